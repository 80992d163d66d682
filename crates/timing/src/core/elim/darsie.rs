//! DARSIE (document 003 Ch. 7, §5.1-5.5): dimensionality-aware redundant SIMT instruction
//! elimination at fetch.
//!
//! * Marking: an instruction is TB-redundant when the front end's pass marked it `R`, or `CR`
//!   and the launch passes the TB-shape check (2D TB, `blockDim.x` a power of two <= 32: the
//!   launch-time comparator of §5.2).
//! * PC skip table (§5.3 B), per TB, `core.elim.skip_entries` entries (8, §5.6): one entry per
//!   dynamic instance (PC, per-warp write count: the versions of §5.1), with the leader, the
//!   LeaderWB bit, the warps that passed and IsLoad. The first majority-path warp with a full
//!   mask to reach an instance is the leader and executes it; followers skip it at fetch once
//!   LeaderWB is set (before the I-cache, PC + 8) and wait in fetch until then; the entry
//!   retires when every majority-path warp has passed. A full table: the instance runs normally
//!   (§6.3 ambiguity 3, "just don't skip").
//! * Majority path (§5.3, illusion of lock-step): every branch is a barrier among the TB's
//!   majority-path warps, taken where each warp presents its first instruction after the branch;
//!   the most common next PC wins and the other warps leave the majority path (they stop
//!   skipping; their renamed values are copied to private registers). A warp with SIMD
//!   divergence (a partial mask on a marked instruction or a branch) leaves it too. `bar.sync`
//!   sets the majority mask to all live warps (`core.elim.branch_sync = false`:
//!   DARSIE-NO-CF-SYNC, no branch barriers).
//! * Loads (§5.5): a store executed by the TB removes its load entries (not with
//!   `core.elim.ignore_stores`: DARSIE-IGNORE-STORE); a global atomic in the SM removes every
//!   global-load entry.
//! * Register renaming (§5.3 D-F): a leader's destination gets a physical register of the TB's
//!   rename slice (32 per TB, taken round robin: the version count per TB is bounded by the
//!   skip table, 8 <= 32, so the freelist never runs empty in this model) and followers map
//!   theirs to it. Reads of a renamed register go to that physical register, whose bank is
//!   its place in the slice (strided across banks) rather than the warp's own mapping: the
//!   DARSIE-induced bank conflicts of §5.6 (`core.elim.rename_banks = false` turns them off).
//!   The mapping ends when the warp writes the register itself or leaves the majority path.
//!   It is tracked at fetch, up to the I-buffer's depth ahead of the reads at issue.
//! * `bar.sync` (every warp of the TB at the barrier, every instance passed): the skip table
//!   empties and the per-warp instance counts start again, so a warp that left the majority
//!   path (and stopped counting) rejoins in step with the others.
//!
//! `core.elim.leader_wb_wait = false` (a diagnostic bound, not in the document): followers skip
//! without waiting for LeaderWB.
//!
//! A hold released by the safety timeout (`TIMEOUT` cycles) counts in `timeouts` (expected 0).

use super::{full_mask, At, ElimCounters, Eliminator, Fetch, Instances};
use crate::config::ElimConfig;
use warpforge_core::{hint, DynInst, KernelInfo, MemSpace, OpClass, MAX_DST};

/// Core cycles after which a held warp is released regardless (deadlock guard).
const TIMEOUT: u64 = 200_000;

#[derive(Debug, Clone, Copy)]
struct Entry {
    idx: u32,
    n: u32,
    leader: u32,
    issued: bool,
    leader_wb: bool,
    passed: u64,
    is_load: bool,
    global: bool,
    dst: [u16; MAX_DST],
    n_dst: u8,
    /// The leader's physical register in the TB's rename slice.
    phys: u8,
    /// Core cycle the leader made the entry (its fetch of the instance).
    made: u64,
}

/// Physical registers of a TB's rename slice (document 003 §5.3 F: up to 32 per TB).
const RENAME_PER_TB: u32 = 32;

#[derive(Default)]
struct Tb {
    live: u64,
    majority: u64,
    inst: Instances,
    entries: Vec<Entry>,
    /// Warps whose next fetch is the first instruction after a branch.
    after_branch: u64,
    /// The post-branch static index each warp presented at the current branch barrier.
    arrived: Vec<Option<u32>>,
    /// The (static index, instance number) a held warp was given (counted once per arrival).
    cur: Vec<Option<(u32, u32)>>,
    hold_since: Vec<u64>,
    /// Per warp: (register, physical register of the rename slice) of its renamed registers.
    renamed: Vec<Vec<(u16, u8)>>,
    /// The next physical register the rename slice hands out (round robin).
    next_phys: u8,
}

impl Tb {
    fn gc(&mut self) {
        let need = self.majority & self.live;
        self.entries.retain(|e| need & !e.passed != 0);
    }
    fn leave(&mut self, w: u32, c: &mut ElimCounters) {
        let bit = 1u64 << w;
        if self.majority & bit != 0 {
            self.majority &= !bit;
            c.majority_exits += 1;
        }
        self.after_branch &= !bit;
        self.arrived[w as usize] = None;
        // Its renamed values are copied to its private registers.
        self.renamed[w as usize].clear();
    }
    /// The majority-path warps already past instance `n` of static instruction `idx` although
    /// the instance has no entry yet: they reached it while the skip table was full and ran it
    /// themselves ("just don't skip"). An entry created for the instance later counts them as
    /// passed, or it would wait for them until the next `bar.sync` and hold its slot meanwhile.
    fn already_past(&self, idx: u32, n: u32) -> u64 {
        let mut past = 0;
        let mut m = self.majority & self.live;
        while m != 0 {
            let v = m.trailing_zeros();
            m &= m - 1;
            if self.inst.reached(v, idx) > n && self.cur[v as usize] != Some((idx, n)) {
                past |= 1u64 << v;
            }
        }
        past
    }
    /// Warp `w` maps `regs` to physical register `phys` of the slice (`None`: its own).
    fn rename(&mut self, w: u32, regs: &[u16], phys: Option<u8>) {
        let m = &mut self.renamed[w as usize];
        for &r in regs {
            m.retain(|x| x.0 != r);
            if let Some(p) = phys {
                m.push((r, p));
            }
        }
    }
}

struct Darsie {
    promote: bool,
    entries: usize,
    branch_sync: bool,
    ignore_stores: bool,
    rename_banks: bool,
    wb_wait: bool,
    tbs: Vec<Tb>,
    c: ElimCounters,
}

pub(super) fn new(cfg: &ElimConfig) -> Box<dyn Eliminator> {
    Box::new(Darsie {
        promote: false,
        entries: cfg.skip_entries as usize,
        branch_sync: cfg.branch_sync,
        ignore_stores: cfg.ignore_stores,
        rename_banks: cfg.rename_banks,
        wb_wait: cfg.leader_wb_wait,
        tbs: Vec::new(),
        c: ElimCounters::default(),
    })
}

impl Darsie {
    fn marked(&self, inst: &DynInst) -> bool {
        inst.hints & hint::DARSIE_R != 0 || (self.promote && inst.hints & hint::DARSIE_CR != 0)
    }

    /// §5.5: stores and global atomics invalidate load entries.
    fn memory_ordering(&mut self, cta_slot: usize, inst: &DynInst) {
        let Some(m) = inst.mem.as_ref() else { return };
        if m.is_atomic && m.space == MemSpace::Global {
            for t in &mut self.tbs {
                let before = t.entries.len();
                t.entries.retain(|e| !(e.is_load && e.global));
                self.c.load_invalidations += (before - t.entries.len()) as u64;
            }
        } else if (m.is_store || m.is_atomic) && !self.ignore_stores {
            let t = &mut self.tbs[cta_slot];
            let before = t.entries.len();
            t.entries.retain(|e| !e.is_load);
            self.c.load_invalidations += (before - t.entries.len()) as u64;
        }
    }

    /// The branch barrier at the first instruction after a branch; `None`: go on.
    fn branch_barrier(&mut self, at: &At, inst: &DynInst) -> Option<Fetch> {
        let t = &mut self.tbs[at.cta_slot];
        let w = at.warp as usize;
        let bit = 1u64 << w;
        if t.after_branch & bit == 0 {
            return None;
        }
        if t.majority & bit == 0 {
            t.after_branch &= !bit;
            return None;
        }
        if t.arrived[w].is_none() {
            t.arrived[w] = Some(inst.static_idx);
            t.hold_since[w] = at.now;
        }
        let need = t.majority & t.live;
        let mut m = need;
        while m != 0 {
            let v = m.trailing_zeros() as usize;
            m &= m - 1;
            if t.arrived[v].is_none() {
                if at.retry {
                    self.c.hold_branch += 1;
                }
                return Some(Fetch::Hold);
            }
        }
        // Every majority warp has arrived: elect the most common next PC.
        let mut votes: Vec<(u32, u32)> = Vec::new();
        let mut m = need;
        while m != 0 {
            let v = m.trailing_zeros() as usize;
            m &= m - 1;
            let pc = t.arrived[v].expect("arrived");
            match votes.iter_mut().find(|(p, _)| *p == pc) {
                Some((_, n)) => *n += 1,
                None => votes.push((pc, 1)),
            }
        }
        let win = votes
            .iter()
            .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
            .map(|x| x.0)
            .expect("a voter");
        let mut m = need;
        while m != 0 {
            let v = m.trailing_zeros() as usize;
            m &= m - 1;
            if t.arrived[v] != Some(win) {
                t.majority &= !(1u64 << v);
                t.renamed[v].clear();
                self.c.majority_exits += 1;
            }
            t.arrived[v] = None;
            t.after_branch &= !(1u64 << v);
        }
        self.c.branch_syncs += 1;
        t.gc();
        None
    }
}

impl Eliminator for Darsie {
    fn start_kernel(&mut self, k: &KernelInfo) {
        let b = k.block;
        let [x, y, z] = [b.x, b.y, b.z];
        // The launch-time TB-shape check of §5.2 (claim 24).
        self.promote = y > 1 && z == 1 && x.is_power_of_two() && x <= 32;
    }

    fn cta_started(&mut self, cta_slot: usize, warps: u32) {
        if self.tbs.len() <= cta_slot {
            self.tbs.resize_with(cta_slot + 1, Tb::default);
        }
        let all = if warps >= 64 {
            u64::MAX
        } else {
            (1u64 << warps) - 1
        };
        let t = &mut self.tbs[cta_slot];
        t.live = all;
        t.majority = all;
        t.inst.reset(warps);
        t.entries.clear();
        t.after_branch = 0;
        t.arrived = vec![None; warps as usize];
        t.cur = vec![None; warps as usize];
        t.hold_since = vec![0; warps as usize];
        t.renamed = vec![Vec::new(); warps as usize];
        t.next_phys = 0;
    }

    fn fetched(&mut self, at: &At, inst: &DynInst) -> Fetch {
        let w = at.warp;
        let bit = 1u64 << w;
        if at.retry
            && at
                .now
                .saturating_sub(self.tbs[at.cta_slot].hold_since[w as usize])
                > TIMEOUT
        {
            self.c.timeouts += 1;
            let t = &mut self.tbs[at.cta_slot];
            t.leave(w, &mut self.c);
            t.cur[w as usize] = None;
            t.gc();
            return Fetch::Keep;
        }
        if self.branch_sync {
            if let Some(f) = self.branch_barrier(at, inst) {
                return f;
            }
        }
        let marked = self.marked(inst);
        // A guarded instruction's mask holds the lanes whose guard is true: all or none is
        // lock-step, anything between is SIMD divergence.
        let diverged = inst.active_mask != 0 && !full_mask(inst);
        if inst.class == OpClass::Branch {
            let t = &mut self.tbs[at.cta_slot];
            if diverged {
                t.leave(w, &mut self.c);
                t.gc();
            } else if self.branch_sync && t.majority & bit != 0 {
                t.after_branch |= bit;
            }
            return Fetch::Keep;
        }
        if !marked {
            self.memory_ordering(at.cta_slot, inst);
            self.tbs[at.cta_slot].rename(w, inst.dsts(), None);
            return Fetch::Keep;
        }
        let t = &mut self.tbs[at.cta_slot];
        if t.majority & bit == 0 {
            t.rename(w, inst.dsts(), None);
            return Fetch::Keep;
        }
        if diverged {
            t.leave(w, &mut self.c);
            t.gc();
            return Fetch::Keep;
        }
        if !full_mask(inst) {
            // Predicated off in every lane: nothing to skip (and nothing written).
            return Fetch::Keep;
        }
        let (n, first) = match t.cur[w as usize] {
            Some((idx, n)) if idx == inst.static_idx => (n, false),
            _ => {
                let n = t.inst.arrive(w, inst.static_idx);
                t.cur[w as usize] = Some((inst.static_idx, n));
                t.hold_since[w as usize] = at.now;
                (n, true)
            }
        };
        let pos = t
            .entries
            .iter()
            .position(|e| e.idx == inst.static_idx && e.n == n);
        if let (Some(i), true) = (pos, first) {
            self.c.follower_arrivals += 1;
            self.c.arrival_gap += at.now.saturating_sub(t.entries[i].made);
        }
        match pos {
            None => {
                t.cur[w as usize] = None;
                if t.entries.len() >= self.entries {
                    self.c.table_full += 1;
                    t.rename(w, inst.dsts(), None);
                    return Fetch::Keep;
                }
                let global = inst.mem.is_some_and(|m| m.space == MemSpace::Global);
                let passed = bit | t.already_past(inst.static_idx, n);
                let phys = t.next_phys;
                t.next_phys = ((phys as u32 + 1) % RENAME_PER_TB) as u8;
                t.rename(w, inst.dsts(), Some(phys));
                t.entries.push(Entry {
                    idx: inst.static_idx,
                    n,
                    leader: w,
                    issued: false,
                    leader_wb: false,
                    passed,
                    is_load: inst.class == OpClass::Load,
                    global,
                    dst: inst.dst,
                    n_dst: inst.n_dst,
                    phys,
                    made: at.now,
                });
                self.c.leaders += 1;
                t.gc();
                Fetch::Keep
            }
            Some(i) if t.entries[i].leader_wb || !self.wb_wait => {
                if !first {
                    // Held since its arrival: this retry is the last cycle of the wait.
                    self.c.skips_waited += 1;
                    self.c.hold_leader_wb += 1;
                }
                t.cur[w as usize] = None;
                t.entries[i].passed |= bit;
                let phys = t.entries[i].phys;
                t.rename(w, inst.dsts(), Some(phys));
                t.gc();
                Fetch::Skip
            }
            Some(i) => {
                if at.retry {
                    self.c.hold_leader_wb += 1;
                    if !t.entries[i].issued {
                        self.c.hold_leader_unissued += 1;
                    }
                }
                Fetch::Hold
            }
        }
    }

    fn at_issue(&mut self, cta_slot: usize, warp: u32, inst: &DynInst) -> bool {
        if let Some(t) = self.tbs.get_mut(cta_slot) {
            // Its oldest unissued instance of this instruction (entries are made in order).
            if let Some(e) = t
                .entries
                .iter_mut()
                .find(|e| e.leader == warp && e.idx == inst.static_idx && !e.issued)
            {
                e.issued = true;
            }
        }
        false
    }

    fn written(&mut self, cta_slot: usize, warp: u32, regs: &[u16]) {
        let Some(t) = self.tbs.get_mut(cta_slot) else {
            return;
        };
        for e in &mut t.entries {
            if e.leader == warp
                && e.issued
                && !e.leader_wb
                && e.dst[..e.n_dst as usize].iter().any(|r| regs.contains(r))
            {
                e.leader_wb = true;
            }
        }
    }

    fn warp_done(&mut self, cta_slot: usize, warp: u32) {
        if let Some(t) = self.tbs.get_mut(cta_slot) {
            let bit = 1u64 << warp;
            t.live &= !bit;
            t.majority &= !bit;
            t.after_branch &= !bit;
            // A leader that exits has written back (its warp drains before retiring).
            for e in &mut t.entries {
                if e.leader == warp {
                    e.leader_wb = true;
                }
            }
            t.gc();
        }
    }

    fn barrier_released(&mut self, cta_slot: usize) {
        if let Some(t) = self.tbs.get_mut(cta_slot) {
            t.majority = t.live;
            t.after_branch = 0;
            for a in &mut t.arrived {
                *a = None;
            }
            // Every warp waits at the barrier: every instance is behind all of them.
            t.entries.clear();
            let warps = t.arrived.len() as u32;
            t.inst.reset(warps);
            for c in &mut t.cur {
                *c = None;
            }
        }
    }

    fn renamed(&self, cta_slot: usize, warp: u32, reg: u16) -> Option<u32> {
        if !self.rename_banks {
            return None;
        }
        let t = self.tbs.get(cta_slot)?;
        let (_, p) = t.renamed.get(warp as usize)?.iter().find(|x| x.0 == reg)?;
        Some(cta_slot as u32 * RENAME_PER_TB + *p as u32)
    }

    fn stats(&self) -> ElimCounters {
        self.c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpforge_core::Dim3;

    /// A 2D TB of 2 warps (16x4 threads) on slot 0, DARSIE with `cfg`.
    fn tb(cfg: ElimConfig) -> Box<dyn Eliminator> {
        tb_of(cfg, 2)
    }

    /// A 2D TB of `warps` warps (16 x 2·`warps` threads) on slot 0, DARSIE with `cfg`.
    fn tb_of(cfg: ElimConfig, warps: u32) -> Box<dyn Eliminator> {
        let mut d = new(&cfg);
        d.start_kernel(&KernelInfo {
            block: Dim3::new(16, 2 * warps, 1),
            grid: Dim3::new(1, 1, 1),
            ..KernelInfo::default()
        });
        d.cta_started(0, warps);
        d
    }

    /// A full-mask instruction at static index `idx` writing `dst`, marked `R` or not.
    fn inst(idx: u32, dst: u16, marked: bool) -> DynInst {
        let mut i = DynInst {
            pc: idx as u64 * 8,
            static_idx: idx,
            active_mask: u32::MAX,
            class: OpClass::IntAlu,
            n_dst: 1,
            ..DynInst::default()
        };
        i.dst[0] = dst;
        if marked {
            i.hints = hint::DARSIE_R;
        }
        i
    }

    fn at(warp: u32) -> At {
        At {
            now: 0,
            cta_slot: 0,
            warp,
            retry: false,
        }
    }

    /// The leader executes and writes back.
    fn lead(d: &mut Box<dyn Eliminator>, warp: u32, i: &DynInst) {
        assert_eq!(d.fetched(&at(warp), i), Fetch::Keep, "leader keeps");
        d.at_issue(0, warp, i);
        d.written(0, warp, i.dsts());
    }

    #[test]
    fn followers_read_the_leaders_physical_register_until_they_write_it() {
        let mut d = tb(ElimConfig::default());
        let a = inst(3, 7, true);
        lead(&mut d, 0, &a);
        let leader = d.renamed(0, 0, 7);
        assert!(
            leader.is_some(),
            "the leader's result lives in the rename slice"
        );
        assert_eq!(d.fetched(&at(1), &a), Fetch::Skip);
        assert_eq!(
            d.renamed(0, 1, 7),
            leader,
            "the follower reads the leader's version"
        );
        assert_eq!(
            d.renamed(0, 1, 8),
            None,
            "other registers keep the warp's mapping"
        );
        // The follower's own write of r7 ends the mapping.
        assert_eq!(d.fetched(&at(1), &inst(4, 7, false)), Fetch::Keep);
        assert_eq!(d.renamed(0, 1, 7), None);
        assert_eq!(d.renamed(0, 0, 7), leader);
        // A second instance takes another physical register (a new version).
        let b = inst(5, 9, true);
        lead(&mut d, 1, &b);
        assert_ne!(d.renamed(0, 1, 9), leader);
        // The artificial case without DARSIE-induced bank conflicts: the warp's own mapping.
        let mut d = tb(ElimConfig {
            rename_banks: false,
            ..ElimConfig::default()
        });
        lead(&mut d, 0, &a);
        assert_eq!(d.fetched(&at(1), &a), Fetch::Skip);
        assert_eq!(d.renamed(0, 1, 7), None);
    }

    #[test]
    fn followers_wait_for_leader_wb_unless_the_diagnostic_bound_is_on() {
        let a = inst(3, 7, true);
        let mut d = tb(ElimConfig::default());
        assert_eq!(d.fetched(&at(0), &a), Fetch::Keep, "first arrival leads");
        assert_eq!(d.fetched(&at(1), &a), Fetch::Hold, "no LeaderWB yet");
        d.at_issue(0, 0, &a);
        d.written(0, 0, a.dsts());
        let retry = At {
            retry: true,
            ..at(1)
        };
        assert_eq!(d.fetched(&retry, &a), Fetch::Skip, "LeaderWB set: skip");
        let mut d = tb(ElimConfig {
            leader_wb_wait: false,
            ..ElimConfig::default()
        });
        assert_eq!(d.fetched(&at(0), &a), Fetch::Keep);
        assert_eq!(d.fetched(&at(1), &a), Fetch::Skip);
    }

    #[test]
    fn leader_wb_waits_are_split_by_whether_the_leader_has_issued() {
        let a = inst(3, 7, true);
        let mut d = tb(ElimConfig::default());
        let retry = At {
            retry: true,
            ..at(1)
        };
        assert_eq!(d.fetched(&at(0), &a), Fetch::Keep);
        assert_eq!(d.fetched(&at(1), &a), Fetch::Hold);
        assert_eq!(d.fetched(&retry, &a), Fetch::Hold);
        d.at_issue(0, 0, &a);
        assert_eq!(d.fetched(&retry, &a), Fetch::Hold);
        let c = d.stats();
        assert_eq!((c.hold_leader_wb, c.hold_leader_unissued), (2, 1));
        d.written(0, 0, a.dsts());
        assert_eq!(d.fetched(&retry, &a), Fetch::Skip);
        // The wait lasted from the arrival to this retry: three cycles.
        assert_eq!(d.stats().hold_leader_wb, 3);
    }

    #[test]
    fn the_first_arrival_leads_and_followers_record_gap_and_wait() {
        // Digest §5.1 / §6.3 item 7: the leader is the first warp to reach the instance,
        // whatever its index; here warp 2 of 3 arrives at cycle 10.
        let a = inst(3, 7, true);
        let mut d = tb_of(ElimConfig::default(), 3);
        let at_t = |warp, now, retry| At {
            now,
            cta_slot: 0,
            warp,
            retry,
        };
        assert_eq!(
            d.fetched(&at_t(2, 10, false), &a),
            Fetch::Keep,
            "first leads"
        );
        // Warp 0 arrives 4 cycles later, before the write-back: it waits two cycles.
        assert_eq!(d.fetched(&at_t(0, 14, false), &a), Fetch::Hold);
        assert_eq!(d.fetched(&at_t(0, 15, true), &a), Fetch::Hold);
        d.at_issue(0, 2, &a);
        d.written(0, 2, a.dsts());
        assert_eq!(d.fetched(&at_t(0, 16, true), &a), Fetch::Skip);
        // Warp 1 arrives after the write-back: it skips at once.
        assert_eq!(d.fetched(&at_t(1, 30, false), &a), Fetch::Skip);
        let c = d.stats();
        assert_eq!(c.leaders, 1);
        assert_eq!(c.follower_arrivals, 2);
        assert_eq!(c.arrival_gap, 4 + 20, "cycles since the leader's fetch");
        assert_eq!(c.skips_waited, 1, "only warp 0 waited");
        assert_eq!(c.hold_leader_wb, 2, "cycles 14-16");
    }

    #[test]
    fn a_leaders_issue_and_write_back_mark_only_its_oldest_instance() {
        // Warp 0 fetches two instances of a loop's redundant instruction before issuing either
        // (both in its I-buffer): the first issue and write-back are the first instance's.
        let a = inst(3, 7, true);
        let mut d = tb(ElimConfig::default());
        assert_eq!(d.fetched(&at(0), &a), Fetch::Keep);
        assert_eq!(d.fetched(&at(0), &a), Fetch::Keep);
        assert_eq!(d.stats().leaders, 2);
        d.at_issue(0, 0, &a);
        d.written(0, 0, a.dsts());
        assert_eq!(
            d.fetched(&at(1), &a),
            Fetch::Skip,
            "instance 0 written back"
        );
        assert_eq!(
            d.fetched(&at(1), &a),
            Fetch::Hold,
            "instance 1 not executed yet"
        );
        d.at_issue(0, 0, &a);
        d.written(0, 0, a.dsts());
        let retry = At {
            retry: true,
            ..at(1)
        };
        assert_eq!(d.fetched(&retry, &a), Fetch::Skip);
    }

    #[test]
    fn an_instance_run_past_a_full_table_does_not_pin_its_later_entry() {
        // One entry per TB, three warps. Warp 0 leads A, then reaches B while A's entry still
        // waits for warps 1 and 2: the table is full, so warp 0 runs B itself.
        let mut d = tb_of(
            ElimConfig {
                skip_entries: 1,
                ..ElimConfig::default()
            },
            3,
        );
        let (a, b, c) = (inst(1, 7, true), inst(2, 8, true), inst(3, 9, true));
        lead(&mut d, 0, &a);
        assert_eq!(d.fetched(&at(0), &b), Fetch::Keep, "table full: run it");
        assert_eq!(d.stats().table_full, 1);
        assert_eq!(d.fetched(&at(1), &a), Fetch::Skip);
        assert_eq!(d.fetched(&at(2), &a), Fetch::Skip, "A retires");
        // Warp 1 leads B in the freed entry and warp 2 skips it. Warp 0 is already past B, so
        // the entry retires now; if it waited for warp 0 it would fill the table until the next
        // `bar.sync` and every later instance would run in every warp.
        lead(&mut d, 1, &b);
        assert_eq!(d.fetched(&at(2), &b), Fetch::Skip);
        lead(&mut d, 0, &c);
        assert_eq!(d.stats().table_full, 1, "C found a free entry");
        assert_eq!(d.fetched(&at(1), &c), Fetch::Skip);
        assert_eq!(d.fetched(&at(2), &c), Fetch::Skip);
        assert_eq!(d.stats().leaders, 3);
    }

    #[test]
    fn bar_sync_brings_a_warp_that_left_the_majority_path_back_in_step() {
        let mut d = tb(ElimConfig::default());
        // Warp 1 shows SIMD divergence on a redundant instruction: it leaves the majority path.
        let mut div = inst(2, 5, true);
        div.active_mask = 0xffff;
        assert_eq!(d.fetched(&at(1), &div), Fetch::Keep);
        assert_eq!(d.stats().majority_exits, 1);
        // Two iterations of a loop: warp 0 leads both; warp 1 runs them itself.
        let a = inst(3, 7, true);
        for _ in 0..2 {
            lead(&mut d, 0, &a);
            assert_eq!(d.fetched(&at(1), &a), Fetch::Keep, "off the majority path");
        }
        // After `__syncthreads` both warps are on the majority path and in step again: warp 0
        // leads the next instance and warp 1 skips it.
        d.barrier_released(0);
        lead(&mut d, 0, &a);
        assert_eq!(d.fetched(&at(1), &a), Fetch::Skip);
    }
}
