//! GPGPU access criticality (spec 004 §3, Section 4.1.2 of the document): a two-level estimator
//! per shader core, installed on the GPU timing model's SMs as a
//! [`warpforge_timing::core::probe::SmProbe`].
//!
//! * Level 1: 8-bit saturating `InputStall` (+1 when the front end dispatched nothing because of
//!   pending source operands, i.e. some warp waited on an operand while its instruction's unit
//!   had room, else -1) and `OutputStall` (+1 when nothing committed, else -1),
//!   both starting at 128, updated every cycle. The document's "two-level algorithm invoked
//!   periodically" classifies the core at each invocation (every `period` core cycles): it is
//!   **bottlenecked** for the next period iff both counters are then above 128. The class is
//!   held between invocations, not re-read at each miss: a load issues when its warp is ready,
//!   i.e. in a cycle in which the input counter falls, so an instantaneous test would mark almost
//!   no miss of a core that is bottlenecked over the period.
//! * Level 2: a 16-entry fully associative LRU **stall table** of (PC, stall cycles): when a
//!   warp's next instruction waits on a register whose producer is a load that missed the
//!   private L1D, that load's PC gains one stall cycle (inserted if absent). At each invocation
//!   the top PCs are recomputed, the minimal prefix (by stall cycles, descending) covering
//!   at least 90% of the table's stall cycles [INTERP §10.4 item 8], and the counts are halved
//!   [INTERP item 7].
//! * Marking of a load/store that misses the L1D, by the classes of the last invocation: core
//!   not bottlenecked -> non-critical; PC among the
//!   top PCs -> critical; PC absent from the table -> critical iff the GPU-wide LLC miss rate of
//!   the last period is <= 80%; otherwise non-critical.
//!
//! The shared [`GpuShared`] carries the LLC miss rate in (from the memory side) and the GPU's
//! retired instructions and ready-warp counts out (for the all-GPU probe and HeLM).

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use warpforge_timing::core::probe::{SmCycle, SmProbe};

/// Stall-table entries per core (document: 16).
pub const TABLE_ENTRIES: usize = 16;
/// Bits of one stall-table entry: 32-bit PC, 32-bit stall count, valid, 4 LRU bits (document).
pub const ENTRY_BITS: u64 = 32 + 32 + 1 + 4;
/// Bits of the two stall counters of a core.
pub const COUNTER_BITS: u64 = 2 * 8;

/// Storage of the GPGPU estimator for `cores` shader cores, bytes (spec 004 §6: ≈2.2 KB for 16).
pub fn gpgpu_bytes(cores: u64) -> f64 {
    (cores * (COUNTER_BITS + TABLE_ENTRIES as u64 * ENTRY_BITS)) as f64 / 8.0
}

/// State shared by the per-SM probes and the memory side (atomics: SMs step in parallel).
#[derive(Debug, Default)]
pub struct GpuShared {
    /// Warp instructions dispatched, all SMs.
    pub insts: AtomicU64,
    /// Sum over SM cycles of ready warps.
    pub ready: AtomicU64,
    /// Sum over SM cycles of live warps.
    pub live: AtomicU64,
    /// SM cycles, all SMs.
    pub sm_cycles: AtomicU64,
    /// GPU LLC miss rate of the last period, parts per million (written by the memory side).
    pub llc_miss_ppm: AtomicU32,
}

#[derive(Clone, Copy, Default)]
struct Entry {
    pc: u64,
    stall: u64,
    lru: u64,
    valid: bool,
}

/// Counters of one core's estimator.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CritStats {
    /// L1D misses marked.
    pub misses: u64,
    /// Of which critical.
    pub critical: u64,
    /// Misses marked non-critical because the core was not bottlenecked.
    pub not_bottlenecked: u64,
    /// Misses of a bottlenecked core whose PC was absent from the table while the GPU's LLC
    /// miss rate was above 80% (non-critical).
    pub absent_high_miss_rate: u64,
    /// Misses of a bottlenecked core whose PC was in the table but not in the top set.
    pub not_top: u64,
    /// Core cycles classified bottlenecked (by the last invocation).
    pub bottlenecked_cycles: u64,
    /// Cycles observed.
    pub cycles: u64,
    /// Per PC: (stall cycles accumulated in the table, L1D misses), whole run.
    pub per_pc: HashMap<u64, (u64, u64)>,
}

/// The estimator of one shader core.
pub struct CritProbe {
    input: u8,
    output: u8,
    table: [Entry; TABLE_ENTRIES],
    top: Vec<u64>,
    hot: bool,
    clock: u64,
    period: u64,
    shared: Arc<GpuShared>,
    closest_reason: bool,
    busy_unit_waits: bool,
    local: (u64, u64, u64, u64),
    /// Counters (shared with the experiment through the handle returned by [`CritProbe::new`]).
    pub stats: Arc<std::sync::Mutex<CritStats>>,
    pending: CritStats,
    /// Per PC since the last flush: (PC, stall cycles, L1D misses), and the index of the PC
    /// last counted. A kernel has a few load/store PCs, and [`SmProbe::stall_on_miss`] is
    /// called per waiting warp per cycle: a short list searched from the last hit costs less
    /// than a hashed map (the counts are the same).
    pcs: Vec<(u64, u64, u64)>,
    last_pc: usize,
    /// Stall-table slot of the last PC found or inserted (a hint; checked before use).
    last_slot: usize,
}

const FLUSH: u64 = 256;

impl CritProbe {
    /// An estimator invoked (core classified, top PCs recomputed) every `period` core cycles.
    pub fn new(period: u64, shared: Arc<GpuShared>) -> Self {
        Self {
            input: 128,
            output: 128,
            table: [Entry::default(); TABLE_ENTRIES],
            top: Vec::new(),
            hot: false,
            clock: 0,
            period: period.max(1),
            shared,
            closest_reason: false,
            busy_unit_waits: false,
            local: (0, 0, 0, 0),
            stats: Arc::default(),
            pending: CritStats::default(),
            pcs: Vec::new(),
            last_pc: 0,
            last_slot: 0,
        }
    }

    /// The per-PC counters of `pc` since the last flush.
    fn pc_counts(&mut self, pc: u64) -> &mut (u64, u64, u64) {
        if self.pcs.get(self.last_pc).is_none_or(|e| e.0 != pc) {
            self.last_pc = match self.pcs.iter().position(|e| e.0 == pc) {
                Some(i) => i,
                None => {
                    self.pcs.push((pc, 0, 0));
                    self.pcs.len() - 1
                }
            };
        }
        &mut self.pcs[self.last_pc]
    }

    /// `InputStall` counts only cycles whose schedulers' closest reason was a pending operand
    /// ([`crate::config::PolicyConfig::crit_closest_reason`], an ablation; it overrides
    /// [`CritProbe::with_busy_unit_waits`]).
    pub fn with_closest_reason(mut self, on: bool) -> Self {
        self.closest_reason = on;
        self
    }

    /// `InputStall` also counts a cycle whose only operand waits are of warps whose unit is
    /// busy anyway ([`crate::config::PolicyConfig::crit_busy_unit_waits`], the rule until
    /// session 22, an ablation). By default a cycle counts when nothing was dispatched and some
    /// warp waited on an operand with its unit free ([`SmCycle::operand_wait_unit_free`]).
    pub fn with_busy_unit_waits(mut self, on: bool) -> Self {
        self.busy_unit_waits = on;
        self
    }

    fn bump(c: &mut u8, up: bool) {
        *c = if up {
            c.saturating_add(1)
        } else {
            c.saturating_sub(1)
        };
    }

    /// Level 1 condition on the counters now: both above the mid-point.
    pub fn counters_above_midpoint(&self) -> bool {
        self.input > 128 && self.output > 128
    }

    /// Level 1 class of the core, as of the last invocation (held until the next).
    pub fn bottlenecked(&self) -> bool {
        self.hot
    }

    /// One invocation of the two-level algorithm: classify the core, recompute the top PCs.
    fn invoke(&mut self) {
        self.hot = self.counters_above_midpoint();
        self.recompute_top();
    }

    fn recompute_top(&mut self) {
        let mut v: Vec<Entry> = self.table.iter().copied().filter(|e| e.valid).collect();
        v.sort_by_key(|e| (std::cmp::Reverse(e.stall), e.pc));
        let total: u64 = v.iter().map(|e| e.stall).sum();
        self.top.clear();
        let mut acc = 0;
        for e in v {
            if total == 0 || acc * 10 >= total * 9 {
                break;
            }
            acc += e.stall;
            self.top.push(e.pc);
        }
        for e in &mut self.table {
            e.stall /= 2;
        }
    }

    fn flush(&mut self) {
        let (i, r, l, n) = std::mem::take(&mut self.local);
        self.shared.sm_cycles.fetch_add(n, Ordering::Relaxed);
        self.shared.insts.fetch_add(i, Ordering::Relaxed);
        self.shared.ready.fetch_add(r, Ordering::Relaxed);
        self.shared.live.fetch_add(l, Ordering::Relaxed);
        let mut s = self.stats.lock().expect("stats");
        let p = std::mem::take(&mut self.pending);
        s.misses += p.misses;
        s.critical += p.critical;
        s.not_bottlenecked += p.not_bottlenecked;
        s.absent_high_miss_rate += p.absent_high_miss_rate;
        s.not_top += p.not_top;
        s.bottlenecked_cycles += p.bottlenecked_cycles;
        s.cycles += p.cycles;
        for (pc, st, m) in self.pcs.drain(..) {
            let e = s.per_pc.entry(pc).or_default();
            e.0 += st;
            e.1 += m;
        }
        self.last_pc = 0;
    }

    /// The current top-PC set (for tests and reports).
    pub fn top_pcs(&self) -> &[u64] {
        &self.top
    }
}

impl Drop for CritProbe {
    fn drop(&mut self) {
        self.flush();
    }
}

impl SmProbe for CritProbe {
    fn cycle(&mut self, c: &SmCycle) {
        let input = if self.closest_reason {
            c.operand_stall
        } else if self.busy_unit_waits {
            c.operand_wait_any
        } else {
            c.operand_wait_unit_free
        };
        Self::bump(&mut self.input, input);
        Self::bump(&mut self.output, c.committed == 0);
        self.clock += 1;
        self.pending.cycles += 1;
        self.pending.bottlenecked_cycles += self.hot as u64;
        self.local.0 += c.issued as u64;
        self.local.1 += c.ready_warps as u64;
        self.local.2 += c.live_warps as u64;
        self.local.3 += 1;
        if self.clock.is_multiple_of(self.period) {
            self.invoke();
        }
        if self.clock.is_multiple_of(FLUSH) {
            self.flush();
        }
    }

    fn stall_on_miss(&mut self, pc: u64) {
        self.pc_counts(pc).1 += 1;
        let clock = self.clock;
        let hint = &self.table[self.last_slot];
        let slot = if hint.valid && hint.pc == pc {
            Some(self.last_slot)
        } else {
            self.table.iter().position(|e| e.valid && e.pc == pc)
        };
        if let Some(i) = slot {
            let e = &mut self.table[i];
            e.stall += 1;
            e.lru = clock;
            self.last_slot = i;
            return;
        }
        let (i, _) = self
            .table
            .iter()
            .enumerate()
            .min_by_key(|(_, e)| if e.valid { e.lru + 1 } else { 0 })
            .expect("16 entries");
        self.last_slot = i;
        let victim = &mut self.table[i];
        *victim = Entry {
            pc,
            stall: 1,
            lru: clock,
            valid: true,
        };
    }

    fn mark_miss(&mut self, pc: u64, _store: bool) -> bool {
        self.pending.misses += 1;
        self.pc_counts(pc).2 += 1;
        let crit = if !self.hot {
            self.pending.not_bottlenecked += 1;
            false
        } else if self.top.contains(&pc) {
            true
        } else if !self.table.iter().any(|e| e.valid && e.pc == pc) {
            let c = self.shared.llc_miss_ppm.load(Ordering::Relaxed) <= 800_000;
            self.pending.absent_high_miss_rate += !c as u64;
            c
        } else {
            self.pending.not_top += 1;
            false
        };
        self.pending.critical += crit as u64;
        crit
    }
}

/// Per PC, over the per-PC counts of every core in `stats`: (stall cycles, L1D misses).
pub fn per_pc(stats: &[CritStats]) -> BTreeMap<u64, (u64, u64)> {
    let mut per: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
    for s in stats {
        for (&pc, &(st, m)) in &s.per_pc {
            let e = per.entry(pc).or_default();
            e.0 += st;
            e.1 += m;
        }
    }
    per
}

/// The load/store PCs of `stats` (every core together) sorted by stall cycles, most first, ties
/// by PC; the PCs that missed the L1D without causing a stall cycle come last (spec 004 §1.4:
/// "the shader instructions sorted by stall cycle count", Fig. 5's TnPC order).
pub fn stall_ranking(stats: &[CritStats]) -> Vec<u64> {
    ranking_of(&per_pc(stats))
}

/// [`stall_ranking`] of per-PC (stall cycles, L1D misses) counts already summed by [`per_pc`].
fn ranking_of(per: &BTreeMap<u64, (u64, u64)>) -> Vec<u64> {
    let mut v: Vec<(u64, u64)> = per.iter().map(|(&pc, &(st, _))| (st, pc)).collect();
    v.sort_by_key(|&(st, pc)| (std::cmp::Reverse(st), pc));
    v.into_iter().map(|(_, pc)| pc).collect()
}

/// Fraction of L1D misses whose PC is among the `n` PCs with the most stall cycles (claim 17's
/// `stall_table_coverage`), over the per-PC counts of every core.
pub fn top_n_coverage(stats: &[CritStats], n: usize) -> f64 {
    let per = per_pc(stats);
    let misses: BTreeMap<u64, u64> = per.iter().map(|(&pc, &(_, m))| (pc, m)).collect();
    dram_coverage(&ranking_of(&per), &misses, n)
}

/// Fraction of the DRAM accesses of `dram` (per PC) whose PC is among the first `n` of
/// `ranking` (Fig. 5 left: the DRAM accesses of the top-n PCs by stall cycles); 0 when `dram`
/// has none. [`top_n_coverage`] applies it to the L1D misses.
pub fn dram_coverage(ranking: &[u64], dram: &BTreeMap<u64, u64>, n: usize) -> f64 {
    let total: u64 = dram.values().sum();
    if total == 0 {
        return 0.0;
    }
    ranking
        .iter()
        .take(n)
        .map(|pc| dram.get(pc).copied().unwrap_or(0))
        .sum::<u64>() as f64
        / total as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe() -> CritProbe {
        CritProbe::new(100, Arc::default())
    }

    fn stalled(p: &mut CritProbe, n: usize, stall: bool) {
        for _ in 0..n {
            p.cycle(&SmCycle {
                operand_stall: stall,
                operand_wait_any: stall,
                operand_wait_unit_free: stall,
                committed: (!stall) as u32,
                ..Default::default()
            });
        }
    }

    #[test]
    fn level_one_needs_both_counters_above_the_midpoint() {
        let mut p = probe();
        assert!(!p.counters_above_midpoint());
        stalled(&mut p, 10, true);
        assert!(p.counters_above_midpoint());
        stalled(&mut p, 20, false);
        assert!(!p.counters_above_midpoint());
        // Only input stalls (commits keep happening): never bottlenecked, even at an invocation.
        let mut q = probe();
        for _ in 0..100 {
            q.cycle(&SmCycle {
                operand_stall: true,
                operand_wait_any: true,
                operand_wait_unit_free: true,
                committed: 1,
                ..Default::default()
            });
        }
        assert!(!q.counters_above_midpoint());
        assert!(!q.bottlenecked());
    }

    #[test]
    fn input_stall_counts_operand_waits_hidden_behind_a_structural_hazard() {
        // Nothing dispatched and nothing committed; some warps wait on pending loads while the
        // schedulers' closest reason is a full LD/ST unit (`operand_stall` false).
        let hidden = SmCycle {
            operand_stall: false,
            operand_wait_any: true,
            operand_wait_unit_free: true,
            ..Default::default()
        };
        let mut p = CritProbe::new(100, Arc::default());
        for _ in 0..100 {
            p.cycle(&hidden);
        }
        assert!(p.bottlenecked(), "document rule: the operand waits count");
        let mut q = CritProbe::new(100, Arc::default()).with_closest_reason(true);
        for _ in 0..100 {
            q.cycle(&hidden);
        }
        assert!(
            !q.bottlenecked(),
            "closest-reason rule: the cycle is structural"
        );
        // A cycle that dispatched nothing with no operand wait at all counts under neither.
        let mut r = CritProbe::new(100, Arc::default());
        for _ in 0..100 {
            r.cycle(&SmCycle::default());
        }
        assert!(!r.counters_above_midpoint());
    }

    #[test]
    fn input_stall_skips_operand_waits_for_a_busy_unit() {
        // Spec 004 §4.1.2 level 1: "fails to dispatch any warp due to pending source operands".
        // A 16-lane core running SP work flat out dispatches a warp every other cycle; in the
        // cycle between, its one SP pipeline is busy and the warps waiting on operands need it
        // too: that cycle is not an operand stall.
        let sp_bound = |k: u32| SmCycle {
            operand_stall: k % 2 == 1,
            operand_wait_any: k % 2 == 1,
            operand_wait_unit_free: false,
            committed: 1 - k % 2,
            issued: 1 - k % 2,
            ..Default::default()
        };
        let run = |busy_unit_waits: bool| {
            let mut p = CritProbe::new(100, Arc::default()).with_busy_unit_waits(busy_unit_waits);
            for k in 0..1000 {
                p.cycle(&sp_bound(k));
                // Now and then the core also waits with the unit free and commits nothing.
                if k % 20 == 19 {
                    p.cycle(&SmCycle {
                        operand_stall: true,
                        operand_wait_any: true,
                        operand_wait_unit_free: true,
                        ..Default::default()
                    });
                }
            }
            (p.input, p.counters_above_midpoint())
        };
        let (input, hot) = run(false);
        assert!(
            input < 128 && !hot,
            "document rule: busy-unit waits do not count"
        );
        let (input, hot) = run(true);
        assert!(input > 128 && hot, "the old rule: they count");
        // An operand wait with the unit free counts under both.
        let mut p = CritProbe::new(100, Arc::default());
        for _ in 0..100 {
            p.cycle(&SmCycle {
                operand_wait_any: true,
                operand_wait_unit_free: true,
                ..Default::default()
            });
        }
        assert!(p.bottlenecked());
    }

    #[test]
    fn the_class_is_taken_at_each_invocation_and_held_for_the_period() {
        let mut p = CritProbe::new(200, Arc::default());
        // Before the first invocation no core is bottlenecked: nothing is critical.
        stalled(&mut p, 199, true);
        assert!(p.counters_above_midpoint() && !p.bottlenecked());
        assert!(!p.mark_miss(0x40, false));
        stalled(&mut p, 1, true); // cycle 200: invocation, both counters saturated
        assert!(p.bottlenecked());
        // The core now dispatches and commits every cycle and issues its misses: the counters
        // fall below the mid-point, but the class holds until the next invocation, so these
        // misses (PC absent from the table, LLC miss rate 0) are critical.
        stalled(&mut p, 150, false);
        assert!(!p.counters_above_midpoint());
        assert!(p.bottlenecked());
        assert!(p.mark_miss(0x40, false));
        stalled(&mut p, 50, false); // cycle 400: invocation
        assert!(!p.bottlenecked());
        assert!(!p.mark_miss(0x40, false));
        p.flush();
        let s = p.stats.lock().unwrap().clone();
        assert_eq!((s.misses, s.critical, s.not_bottlenecked), (3, 1, 2));
        assert_eq!(s.bottlenecked_cycles, 200, "cycles 200..400 classified");
    }

    #[test]
    fn marking_rule_of_section_3() {
        let mut p = probe();
        // PC 0x10 causes 95% of the stalls, 0x20 5%.
        for _ in 0..95 {
            p.stall_on_miss(0x10);
        }
        for _ in 0..5 {
            p.stall_on_miss(0x20);
        }
        stalled(&mut p, 100, true); // period end: top set computed, core bottlenecked
        assert_eq!(p.top_pcs(), &[0x10]);
        assert!(p.mark_miss(0x10, false), "top PC");
        assert!(
            !p.mark_miss(0x20, false),
            "in the table, not in the top set"
        );
        assert!(p.mark_miss(0x30, true), "absent, LLC miss rate 0 <= 80%");
        p.shared.llc_miss_ppm.store(900_000, Ordering::Relaxed);
        assert!(!p.mark_miss(0x30, false), "absent, LLC miss rate 90% > 80%");
        assert!(p.mark_miss(0x10, false));
    }

    #[test]
    fn table_is_lru_with_16_entries_and_coverage_counts_misses() {
        let mut p = probe();
        for pc in 0..17u64 {
            p.clock += 1;
            p.stall_on_miss(pc * 8);
        }
        assert!(!p.table.iter().any(|e| e.pc == 0), "the LRU entry left");
        assert_eq!(p.table.iter().filter(|e| e.valid).count(), 16);
        p.mark_miss(8, false);
        p.mark_miss(8, false);
        p.mark_miss(16, false);
        p.mark_miss(0x999, false);
        p.flush();
        let s = p.stats.lock().unwrap().clone();
        assert_eq!(s.misses, 4);
        assert!((top_n_coverage(std::slice::from_ref(&s), 17) - 0.75).abs() < 1e-9);
        assert_eq!(gpgpu_bytes(16), 16.0 * (16.0 + 16.0 * 69.0) / 8.0);
    }

    /// Fig. 5's order: by stall cycles over every core, ties by PC, PCs without stalls last;
    /// the DRAM coverage of the top n follows that order, not the DRAM counts.
    #[test]
    fn ranking_is_by_stall_cycles_over_all_cores() {
        let mut a = CritStats::default();
        let mut b = CritStats::default();
        a.per_pc.insert(0x10, (5, 10));
        a.per_pc.insert(0x20, (7, 1));
        b.per_pc.insert(0x10, (5, 10)); // 0x10: 10 stall cycles in all
        b.per_pc.insert(0x30, (0, 50));
        b.per_pc.insert(0x08, (7, 2)); // ties with 0x20: lower PC first
        let st = [a, b];
        assert_eq!(stall_ranking(&st), vec![0x10, 0x08, 0x20, 0x30]);
        let dram: BTreeMap<u64, u64> = [(0x10, 10), (0x30, 80), (0x20, 10)].into();
        let r = stall_ranking(&st);
        assert!((dram_coverage(&r, &dram, 1) - 0.1).abs() < 1e-12);
        assert!((dram_coverage(&r, &dram, 3) - 0.2).abs() < 1e-12);
        assert!((dram_coverage(&r, &dram, 4) - 1.0).abs() < 1e-12);
        assert_eq!(dram_coverage(&r, &BTreeMap::new(), 4), 0.0);
        // The L1D-miss coverage of claim 17 follows the same order.
        assert!((top_n_coverage(&st, 1) - 20.0 / 73.0).abs() < 1e-12);
    }
}
