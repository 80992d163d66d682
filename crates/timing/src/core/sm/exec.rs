//! Execution stages of the SM: writeback events, load trackers, L1 fills, the LD/ST unit
//! (shared memory, constant cache, L1D) and the operand collectors that dispatch to the units.

use super::*;
use crate::mem::l1bank::BankArbiter;

impl SmState {
    #[inline]
    pub(super) fn push_ev(&mut self, at: u64, ev: Ev) {
        self.events.push(at, ev);
    }

    pub(super) fn tracker_done(&mut self, t: u32) {
        let tr = &mut self.trackers[t as usize];
        tr.pending -= 1;
        if tr.pending == 0 {
            let tr = *tr;
            let wp = &mut self.warps[tr.warp as usize];
            for &r in &tr.regs[..tr.n as usize] {
                wp.sb.release(r);
                if tr.missed {
                    wp.missed.release(r);
                }
            }
            if tr.missed && !wp.miss_pcs.is_empty() {
                let regs = &tr.regs[..tr.n as usize];
                wp.miss_pcs.retain(|(r, _)| !regs.contains(r));
            }
            wp.inflight -= 1;
            wp.pending_loads -= 1;
            self.free_trackers.push(t);
            if self.elim_on {
                let (cs, wic) = (wp.cta_slot as usize, wp.warp_in_cta);
                self.elim.written(cs, wic, &tr.regs[..tr.n as usize]);
            }
            self.rehazard(tr.warp as usize);
        }
    }

    pub(super) fn fill_reply(&mut self, r: &MemReq) {
        let mut woken = std::mem::take(&mut self.woken);
        woken.clear();
        match r.src {
            ReqSrc::L1d => self.l1d.fill(r, |w| woken.push(w)),
            ReqSrc::Const => self.cc.fill(r, |w| woken.push(w)),
            ReqSrc::Tex => self.tc.fill(r, |w| woken.push(w)),
            ReqSrc::L1i => unreachable!("L1I replies are handled by `ifill`"),
        }
        for &w in &woken {
            // Atomics without a destination (`red`) have no tracker.
            if w != u32::MAX {
                self.tracker_done(w);
            }
        }
        self.woken = woken;
    }

    pub(super) fn ldst_step(&mut self, now: u64) {
        self.mem_blocked = false;
        let l = &mut *self.ldst;
        if !l.busy {
            return;
        }
        if l.shared_left > 0 {
            l.shared_left -= 1;
            if l.shared_left == 0 {
                l.busy = false;
                if l.tracker == u32::MAX {
                    self.warps[l.warp as usize].inflight -= 1;
                }
            }
            return;
        }
        // Transactions handed to the cache this cycle: one, or with L1D banks up to one per
        // bank as the bank arbiter allows (`crate::mem::l1bank`).
        let per_cycle = if l.src == ReqSrc::L1d {
            self.l1d_banks
        } else {
            1
        };
        let geom = crate::mem::l1bank::Banks {
            banks: per_cycle,
            bank_bytes: self.l1d_bank_bytes,
            sector_bytes: self.l1d_sector,
        };
        let mut banks_used = 0u64;
        let mut handed = 0;
        let mut j = self.ldst.next;
        while handed < per_cycle {
            let l = &*self.ldst;
            while j < l.ntx && l.done & (1u64 << j) != 0 {
                j += 1;
            }
            if j >= l.ntx {
                break;
            }
            let t = l.txns[j];
            if per_cycle > 1 {
                let b = self.l1d_arbiter.banks(&t, &geom);
                if banks_used & b != 0 {
                    self.stats.l1d_bank_conflicts += 1;
                    if self.l1d_arbiter.in_order() {
                        break;
                    }
                    j += 1;
                    continue;
                }
                banks_used |= b;
            }
            // Algorithm 8 reads `IsCriticalWarp(req.WarpID)` when the request reaches the
            // L1D (Lee 2017 §4.2.3): CPL's counters at this cycle, not at the load's issue.
            let lw = self.ldst.warp as usize;
            let critical = self.cpl_on && self.cpl.is_critical(lw, self.tb_of(lw));
            let l = &*self.ldst;
            let queued = self.l1d.miss_queue.len();
            let unit = match l.src {
                ReqSrc::L1d => &mut self.l1d,
                ReqSrc::Const => &mut self.cc,
                ReqSrc::Tex => &mut self.tc,
                ReqSrc::L1i => unreachable!("the LD/ST unit never accesses the L1I"),
            };
            let waiter = if l.kind == AccessKind::Store {
                ACK | l.warp as u32
            } else {
                l.tracker
            };
            let out = unit.access(
                &t,
                l.kind,
                waiter,
                l.pc,
                l.warp as u32,
                critical,
                self.id,
                &self.map,
            );
            let lat = unit.latency as u64;
            self.mem_blocked = out == Outcome::Fail;
            match out {
                Outcome::Fail => return,
                Outcome::Hit => {
                    if waiter != u32::MAX && waiter & ACK == 0 {
                        let at = now + lat;
                        self.ldst_handed(j);
                        self.push_ev(at, Ev::Tracker(waiter));
                    } else {
                        self.ldst_handed(j);
                    }
                }
                Outcome::Miss => {
                    if let (Some(p), ReqSrc::L1d) = (self.probe.as_mut(), self.ldst.src) {
                        if self.l1d.miss_queue.len() > queued {
                            let store = self.ldst.kind == AccessKind::Store;
                            let c = p.mark_miss(self.ldst.pc, store);
                            let tag = crate::mem::req::pc_tag(self.ldst.pc);
                            for r in self.l1d.miss_queue.range_mut(queued..) {
                                r.crit = c;
                                r.miss_pc = tag;
                            }
                        }
                    }
                    if self.ldst.kind == AccessKind::Store {
                        // The store's acknowledgement is now outstanding.
                        self.warps[self.ldst.warp as usize].inflight += 1;
                    } else if matches!(self.ldst.src, ReqSrc::L1d | ReqSrc::Tex)
                        && waiter != u32::MAX
                    {
                        // A load (or returning atomic) missed in the L1D (or a texture fetch in
                        // the texture cache): its destination registers now wait on the
                        // memory hierarchy (exact `Data$`).
                        let tr = &mut self.trackers[waiter as usize];
                        if !tr.missed {
                            tr.missed = true;
                            let wp = &mut self.warps[tr.warp as usize];
                            for &r in &tr.regs[..tr.n as usize] {
                                wp.missed.reserve(r);
                                if self.probe.is_some() {
                                    wp.miss_pcs.push((r, tr.pc));
                                }
                            }
                        }
                    }
                    self.ldst_handed(j);
                }
            }
            handed += 1;
            j += 1;
        }
        let l = &mut *self.ldst;
        if l.next >= l.ntx {
            l.busy = false;
            if l.tracker != u32::MAX {
                let t = l.tracker;
                self.tracker_done(t); // the guard count
            } else {
                self.warps[l.warp as usize].inflight -= 1;
            }
        }
    }

    /// Transaction `j` of the LD/ST unit's instruction went to the cache.
    #[inline]
    fn ldst_handed(&mut self, j: usize) {
        let l = &mut *self.ldst;
        l.done |= 1u64 << j;
        while l.next < l.ntx && l.done & (1u64 << l.next) != 0 {
            l.next += 1;
        }
    }

    /// Operand collection (register-bank arbitration) and dispatch to execution units:
    /// `core.pipe.reg_port_throughput` steps per cycle (GPGPU-Sim runs its collector step
    /// that many times), each dispatching ready collectors and serving one read per bank.
    pub(super) fn collect_and_dispatch(&mut self, now: u64) {
        for _ in 0..self.oc_steps {
            self.disp_left = self.out_ports;
            self.collector_step(now);
        }
    }

    /// One operand-collector step.
    fn collector_step(&mut self, now: u64) {
        // Dispatch: oldest ready CU per free unit. Each sub-core dispatches its collectors to
        // its own SP, INT and SFU pipelines; the memory collectors of all sub-cores share the
        // LD/ST unit.
        if self.cu_busy != 0 {
            // Only groups with a collector whose operands are all read are visited: for the
            // others `dispatch_kind` would stop at its first test, with no effect.
            let subs = self.sub_cores;
            for j in 0..subs {
                if self.cu_mask[j][0] & self.cu_busy & !self.cu_pending != 0 {
                    self.dispatch_kind(Unit::Sp, j, self.cu_mask[j][0], now);
                }
            }
            for j in 0..subs {
                if self.cu_mask[j][1] & self.cu_busy & !self.cu_pending != 0 {
                    self.dispatch_kind(Unit::Sfu, j, self.cu_mask[j][1], now);
                }
            }
            let mem = self.cu_mask.iter().fold(0, |m, k| m | k[2]);
            if mem & self.cu_busy & !self.cu_pending != 0 {
                self.dispatch_kind(Unit::Mem, 0, mem, now);
            }
        }
        // Operand reads: one per bank per cycle, collectors served round robin from `cu_rr`.
        let n = self.cus.len();
        // (Collectors with nothing left to read are skipped: they would read nothing.)
        if self.cu_pending != 0 {
            let mut bank_busy = 0u64;
            let from = !0u64 << self.cu_rr;
            for part in [self.cu_pending & from, self.cu_pending & !from] {
                let mut m = part;
                while m != 0 {
                    let i = m.trailing_zeros() as usize;
                    m &= m - 1;
                    let c = &mut self.cus[i];
                    let mut j = 0;
                    while j < c.reads as usize {
                        let b = c.banks[j];
                        if bank_busy & (1 << b) == 0 {
                            bank_busy |= 1 << b;
                            c.reads -= 1;
                            c.banks[j] = c.banks[c.reads as usize];
                        } else {
                            self.stats.bank_conflicts += 1;
                            j += 1;
                        }
                    }
                    if c.reads == 0 {
                        self.cu_pending &= !(1 << i);
                    }
                }
            }
        }
        self.cu_rr += 1;
        if self.cu_rr >= n {
            self.cu_rr = 0;
        }
    }

    /// A result bus for an ALU result written back at `at` (`core.pipe.result_buses`): false
    /// when all are taken that cycle.
    fn take_result_bus(&mut self, at: u64) -> bool {
        if self.result_buses == 0 {
            return true;
        }
        let i = at as usize & (self.wb_ring.len() - 1);
        let e = &mut self.wb_ring[i];
        if e.0 != at {
            *e = (at, 0);
        }
        if e.1 >= self.result_buses {
            return false;
        }
        e.1 += 1;
        true
    }

    /// Dispatch of the collectors `cand` (unit kind `kind` of sub-core `j`; the memory
    /// collectors of all sub-cores share the LD/ST unit): the oldest collector with all its
    /// operands read goes to a free unit of its pipeline (SP or INT for the SP-class
    /// collectors), as long as both remain and the step's dispatch limits allow.
    #[inline(always)]
    fn dispatch_kind(&mut self, kind: Unit, j: usize, cand: u64, now: u64) {
        let first_free = |free: &[u64], (a, b): (usize, usize)| {
            free[a..b].iter().position(|&t| t <= now).map(|i| a + i)
        };
        // Dispatches of this call to the SP, SFU and INT pipelines (`core.pipe.dispatch`).
        let mut sent = [0u8; 3];
        loop {
            // Collectors with all operands read; the unit is looked for only when there is one,
            // the oldest collector only when there is a unit (either missing ends the loop).
            let mut m = cand & self.cu_busy & !self.cu_pending;
            if m == 0 || self.disp_left == 0 {
                break;
            }
            // A free unit of each pipeline this kind dispatches to.
            let (mut unit, mut int) = (None, None);
            match kind {
                Unit::Sp => {
                    if sent[0] < self.dispatch_cap[0] {
                        unit = first_free(&self.sp_free, self.unit_range[j][0]);
                    }
                    if self.cu_int & m != 0 && sent[2] < self.dispatch_cap[2] {
                        int = first_free(&self.int_free, self.unit_range[j][2]);
                    }
                    if unit.is_none() {
                        m &= self.cu_int;
                    }
                    if int.is_none() {
                        m &= !self.cu_int;
                    }
                }
                Unit::Sfu => {
                    if sent[1] < self.dispatch_cap[1] {
                        unit = first_free(&self.sfu_free, self.unit_range[j][1]);
                    }
                    if unit.is_none() {
                        m = 0;
                    }
                }
                _ => {
                    if self.ldst.busy {
                        m = 0;
                    }
                }
            }
            if m == 0 {
                break;
            }
            let mut ci = m.trailing_zeros() as usize;
            m &= m - 1;
            while m != 0 {
                let i = m.trailing_zeros() as usize;
                m &= m - 1;
                if self.cus[i].seq < self.cus[ci].seq {
                    ci = i;
                }
            }
            if kind == Unit::Mem {
                let started = self.start_mem(ci, now);
                self.mem_blocked = !started;
                if !started {
                    break;
                }
            } else {
                // Pipeline: 0 SP, 1 SFU, 2 INT.
                let (pipe, ui) = if kind == Unit::Sfu {
                    (1, unit)
                } else if self.cu_int & (1 << ci) != 0 {
                    (2, int)
                } else {
                    (0, unit)
                };
                let ui = ui.expect("a free unit of the collector's pipeline");
                let inst = &self.cu_insts[ci];
                let (lat, ii) = self.lat_ii(inst.class);
                let (lat, ii) = (lat as u64, ii as u64);
                // The whole array (entries past `n` are never read): no length-dependent copy.
                let (regs, n) = (inst.dst, inst.n_dst);
                let branch = inst.class == OpClass::Branch;
                let warp = self.cus[ci].warp;
                let done = now + lat.max(1);
                if !self.take_result_bus(done) {
                    // No result bus in the cycle the result is due: the unit waits.
                    break;
                }
                match pipe {
                    0 => self.sp_free[ui] = now + ii,
                    1 => self.sfu_free[ui] = now + ii,
                    _ => self.int_free[ui] = now + ii,
                }
                sent[pipe] += 1;
                self.cu_int &= !(1 << ci);
                self.push_ev(
                    done,
                    Ev::Writeback {
                        warp,
                        regs,
                        n,
                        branch,
                    },
                );
            }
            self.cu_busy &= !(1 << ci);
            let (gj, gk) = self.cu_group[ci];
            self.cu_idle[gj as usize][gk as usize] += 1;
            let idle = self.cu_idle[gj as usize][gk as usize];
            self.free_now[gj as usize][gk as usize] = idle.min(self.issue_cap[gk as usize]);
            self.disp_left -= 1;
        }
    }

    /// Starts the memory instruction of collector `ci` on the LD/ST unit; false if it must wait
    /// (no load tracker free).
    pub(super) fn start_mem(&mut self, ci: usize, now: u64) -> bool {
        // The instructions are lent out so that this one is read in place, not copied.
        let insts = std::mem::take(&mut self.cu_insts);
        let started = self.start_mem_of(&insts[ci], self.cus[ci].warp, now);
        self.cu_insts = insts;
        started
    }

    /// [`SmState::start_mem`] of instruction `inst` of `warp` (`self.cu_insts` is empty meanwhile).
    fn start_mem_of(&mut self, inst: &DynInst, warp: u8, now: u64) -> bool {
        let mut regs = [0u16; MAX_DST];
        let n_dst = inst.n_dst;
        regs[..n_dst as usize].copy_from_slice(inst.dsts());
        let Some(mem) = &inst.mem else {
            // A memory-class instruction without an access: retire it like an ALU operation.
            if n_dst > 0 && inst.class != OpClass::Store {
                let wp = &mut self.warps[warp as usize];
                wp.pending_loads = wp.pending_loads.saturating_sub(1);
                self.rehazard(warp as usize);
            }
            self.push_ev(
                now + 1,
                Ev::Writeback {
                    warp,
                    regs,
                    n: n_dst,
                    branch: false,
                },
            );
            return true;
        };
        let kind = if mem.is_atomic {
            AccessKind::Atomic
        } else if mem.is_store {
            AccessKind::Store
        } else {
            AccessKind::Load
        };
        let tracker = if n_dst > 0 && kind != AccessKind::Store {
            let Some(t) = self.free_trackers.pop() else {
                return false;
            };
            self.trackers[t as usize] = Tracker {
                warp,
                n: n_dst,
                regs,
                pending: 1,
                missed: false,
                pc: inst.pc,
            };
            t
        } else {
            u32::MAX
        };
        let active = inst.active_mask;
        let (mut ntx, mut shared_left, mut src) = (0usize, 0u32, ReqSrc::L1d);
        match mem.space {
            MemSpace::Shared => {
                let d = conflict_cycles(
                    mem,
                    active,
                    self.smem_banks,
                    self.smem_bank_bytes,
                    self.smem_warp_parts,
                );
                self.stats.shared_accesses += 1;
                self.stats.shared_conflict_cycles += (d - 1) as u64;
                shared_left = d;
                if tracker != u32::MAX {
                    let at = now + self.smem_latency + d as u64 - 1;
                    self.push_ev(at, Ev::Tracker(tracker));
                }
            }
            MemSpace::Const | MemSpace::Param if kind == AccessKind::Load => {
                let n = distinct_chunks(mem, active, self.const_line, &mut self.chunks);
                src = ReqSrc::Const;
                for i in 0..n {
                    self.ldst.txns[i] = Txn {
                        line_addr: self.chunks[i],
                        sectors: 1,
                        lanes: 0,
                    };
                }
                ntx = n;
            }
            MemSpace::Tex if self.tex_on && kind == AccessKind::Load => {
                // Texture fetches: the texture cache's lines, 32-byte coalescing sectors.
                src = ReqSrc::Tex;
                ntx = coalesce(
                    mem,
                    active,
                    self.tex_line,
                    self.tex_line.min(32),
                    &mut self.ldst.txns,
                );
            }
            _ => {
                ntx = coalesce(
                    mem,
                    active,
                    self.l1d_line,
                    self.l1d_sector,
                    &mut self.ldst.txns,
                );
            }
        }
        if tracker != u32::MAX {
            self.trackers[tracker as usize].pending += ntx as u32;
        }
        let l = &mut *self.ldst;
        l.busy = true;
        l.warp = warp;
        l.kind = kind;
        l.pc = inst.pc;
        l.tracker = tracker;
        l.next = 0;
        l.done = 0;
        l.ntx = ntx;
        l.shared_left = shared_left;
        l.src = src;
        true
    }
}
