//! CACP, Criticality-Aware Cache Prioritization (spec 000 §4.5, Lee 2017 §4.2.3, Algorithms
//! 7-9): the ways of each set are split into a critical partition (ways `0..k`, `k` =
//! `critical_ways`, default half of the ways: 8 of Table 4.1's 16) and a non-critical one
//! (ways `k..`). At a miss, CCBP decides the partition from the line's signature and SHiP its
//! insertion RRPV; the victim is chosen by 2-bit RRIP confined to that partition. Lookups still
//! search every way, so a line hits wherever it lives. A hit promotes the line to RRPV 0 and
//! trains the predictors with the requesting warp's criticality (the CPL bit of [`MissInfo`],
//! which the SM reads from CPL's counters at the access, as Algorithm 8 calls
//! `IsCriticalWarp(req.WarpID)` inside `ATHIT`):
//! a critical warp's hit sets `c_reuse` and increments CCBP and SHiP, a non-critical warp's hit
//! sets `nc_reuse` and increments SHiP. At eviction a line of the critical partition reused only
//! by non-critical warps decrements CCBP (a wrong "critical" prediction), and a line never
//! reused decrements SHiP (a dead line).
//!
//! Decisions: lines dropped without a victim choice (write-evict, kernel-boundary flush) train
//! nothing; a degenerate split (one partition empty) lets a line use every way. When every way
//! of the chosen partition is reserved by a fill in flight, the allocation fails by default
//! (`l1d.partition_fallback = none`: the access retries, a reservation failure, as in
//! GPGPU-Sim for a set whose ways are all reserved): §4.2.3 gives the critical data "a certain
//! fixed amount of the L1 data cache capacity" and Algorithm 7 inserts into the predicted
//! partition only, with no fallback. `other` (an \[INTERP\] option, the default of sessions
//! 11-16) takes a victim of the other partition instead, trained at eviction as any victim.

use super::ccbp::Ccbp;
use super::ship::{rrip_victim, ShipTable, Signature, RRPV_MAX};
use super::{MissInfo, Replacement};
use crate::config::CacheConfig;

/// CACP state: per line RRPV, signature and the two reuse bits; the shared CCBP and SHiP tables.
pub struct Cacp {
    ways: usize,
    critical_mask: u64,
    other_mask: u64,
    rrpv: Vec<u8>,
    sig: Vec<u8>,
    c_reuse: Vec<bool>,
    nc_reuse: Vec<bool>,
    ccbp: Ccbp,
    ship: ShipTable,
    signature: Signature,
    /// `l1d.partition_fallback = other`: a line whose partition is all reserved may take a
    /// victim of the other partition.
    fallback: bool,
}

impl Cacp {
    /// CACP over the `sets x ways` lines of `c`, `c.critical_ways` of them critical (0: half).
    pub fn new(c: &CacheConfig) -> Self {
        let n = (c.sets * c.ways) as usize;
        let ways = c.ways as usize;
        let k = if c.critical_ways == 0 {
            ways / 2
        } else {
            (c.critical_ways as usize).min(ways)
        };
        let all = if ways >= 64 {
            u64::MAX
        } else {
            (1u64 << ways) - 1
        };
        let critical_mask = if k >= 64 { u64::MAX } else { (1u64 << k) - 1 } & all;
        Self {
            ways,
            critical_mask,
            other_mask: all & !critical_mask,
            rrpv: vec![RRPV_MAX; n],
            sig: vec![0; n],
            c_reuse: vec![false; n],
            nc_reuse: vec![false; n],
            ccbp: Ccbp::new(),
            ship: ShipTable::new(),
            signature: Signature::new(c),
            fallback: c.partition_fallback == "other",
        }
    }
}

impl Replacement for Cacp {
    fn reads_criticality(&self) -> bool {
        true
    }
    fn ways_for(&self, _set: usize, acc: &MissInfo) -> u64 {
        let m = if self.ccbp.predicts_critical(self.signature.of(acc)) {
            self.critical_mask
        } else {
            self.other_mask
        };
        if m == 0 {
            self.critical_mask | self.other_mask
        } else {
            m
        }
    }
    fn fallback_ways(&self, set: usize, acc: &MissInfo) -> u64 {
        if self.fallback {
            (self.critical_mask | self.other_mask) & !self.ways_for(set, acc)
        } else {
            0
        }
    }
    fn victim(&mut self, set: usize, candidates: u64, _: &MissInfo) -> usize {
        let base = set * self.ways;
        let w = rrip_victim(&mut self.rrpv, base, candidates);
        let i = base + w;
        let s = self.sig[i];
        if !self.c_reuse[i] && self.nc_reuse[i] && self.critical_mask & (1 << w) != 0 {
            self.ccbp.dec(s);
        } else if !self.c_reuse[i] && !self.nc_reuse[i] {
            self.ship.dec(s);
        }
        w
    }
    fn on_hit(&mut self, set: usize, way: usize, acc: &MissInfo) {
        let i = set * self.ways + way;
        self.rrpv[i] = 0;
        let s = self.sig[i];
        if acc.critical {
            self.c_reuse[i] = true;
            self.ccbp.inc(s);
        } else {
            self.nc_reuse[i] = true;
        }
        self.ship.inc(s);
    }
    fn on_fill(&mut self, set: usize, way: usize, acc: &MissInfo) {
        let i = set * self.ways + way;
        let s = self.signature.of(acc);
        self.sig[i] = s;
        self.c_reuse[i] = false;
        self.nc_reuse[i] = false;
        self.rrpv[i] = self.ship.insert_rrpv(s);
    }
    fn in_critical_partition(&self, way: usize) -> bool {
        way < 64 && self.critical_mask & (1 << way) != 0
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_config;
    use super::*;

    fn acc(line: u64, critical: bool) -> MissInfo {
        MissInfo {
            pc: 0,
            line,
            warp: 0,
            critical,
        }
    }

    fn cacp(ways: u32, critical_ways: u32) -> Cacp {
        let mut c = test_config(1, ways);
        c.critical_ways = critical_ways;
        Cacp::new(&c)
    }

    #[test]
    fn partitions_default_to_half_the_ways() {
        let p = cacp(16, 0);
        assert_eq!(p.critical_mask, 0x00ff);
        assert_eq!(p.other_mask, 0xff00);
        let p = cacp(16, 4);
        assert_eq!(p.critical_mask, 0x000f);
        assert_eq!(p.other_mask, 0xfff0);
    }

    #[test]
    fn lines_reused_by_critical_warps_go_to_critical_ways() {
        let mut p = cacp(16, 8);
        let line = 0x2a;
        // Unknown signature: the non-critical partition.
        assert_eq!(p.ways_for(0, &acc(line, false)), 0xff00);
        p.on_fill(0, 8, &acc(line, false));
        // A non-critical warp's reuse trains SHiP only.
        p.on_hit(0, 8, &acc(line, false));
        assert_eq!(p.ways_for(0, &acc(line, false)), 0xff00);
        // Two critical-warp hits push CCBP above the threshold.
        p.on_hit(0, 8, &acc(line, true));
        p.on_hit(0, 8, &acc(line, true));
        assert_eq!(
            p.ways_for(0, &acc(line, false)),
            0x00ff,
            "partition follows the signature, not the requester"
        );
        // A different signature stays non-critical.
        assert_eq!(p.ways_for(0, &acc(line + 1, true)), 0xff00);
    }

    /// The document's signature (`PC xor addr[7:0]` of a 128 B line's byte address) is in
    /// effect the load PC: critical reuse of one line sends the PC's next lines to the critical
    /// partition. With line-address bits each line class learns on its own.
    #[test]
    fn pc_addr_signature_generalises_over_a_pcs_lines() {
        let at = |pc: u64, line: u64| MissInfo {
            pc,
            line,
            warp: 0,
            critical: true,
        };
        for (sig, expect) in [("pc_addr", 0x00ff), ("pc_line", 0xff00)] {
            let mut c = test_config(16, 16);
            c.critical_ways = 8;
            c.signature = sig.into();
            let mut p = Cacp::new(&c);
            p.on_fill(0, 8, &at(0x40, 0x10));
            p.on_hit(0, 8, &at(0x40, 0x10));
            p.on_hit(0, 8, &at(0x40, 0x10));
            assert_eq!(p.ways_for(0, &at(0x40, 0x10)), 0x00ff, "{sig}");
            // Another line of the same PC (same address bit 7).
            assert_eq!(p.ways_for(0, &at(0x40, 0x32)), expect, "{sig}");
            // Another PC stays non-critical either way.
            assert_eq!(p.ways_for(0, &at(0x48, 0x32)), 0xff00, "{sig}");
        }
    }

    #[test]
    fn eviction_trains_ccbp_down_on_wrong_critical_predictions_and_ship_on_dead_lines() {
        let mut p = cacp(4, 2);
        let s = p.signature.of(&acc(7, false));
        p.ccbp.inc(s);
        p.ccbp.inc(s);
        p.ccbp.inc(s);
        // Critical partition (ways 0, 1): one line reused only by a non-critical warp.
        p.on_fill(0, 0, &acc(7, false));
        p.on_fill(0, 1, &acc(7, false));
        p.on_hit(0, 0, &acc(7, false));
        p.on_hit(0, 1, &acc(7, true));
        let ship_before = p.ship.get(s);
        // Both lines are at RRPV 0; aging reaches 3 for way 0 first (lowest index).
        assert_eq!(p.victim(0, 0b11, &acc(7, false)), 0);
        assert_eq!(p.ccbp.get(s), 2, "nc-only reuse in the critical partition");
        assert_eq!(p.ship.get(s), ship_before, "a reused line is not dead");
        // A dead line (never reused) in the non-critical partition trains SHiP down.
        p.on_fill(0, 2, &acc(7, false));
        p.on_fill(0, 3, &acc(7, false));
        p.on_hit(0, 3, &acc(7, false));
        assert_eq!(p.victim(0, 0b1100, &acc(7, false)), 2);
        assert_eq!(p.ship.get(s), ship_before);
        assert_eq!(p.ccbp.get(s), 2);
        p.on_fill(0, 2, &acc(9, false));
        let s9 = p.signature.of(&acc(9, false));
        let before9 = p.ship.get(s9);
        assert_eq!(p.victim(0, 0b0100, &acc(9, false)), 2);
        assert_eq!(p.ship.get(s9), before9 - 1);
    }

    /// Algorithm 8: only a critical warp's hit raises CCBP; any number of non-critical hits
    /// leave it at its initial 0 (they train SHiP only).
    #[test]
    fn ccbp_rises_only_on_critical_warps_hits() {
        let mut p = cacp(16, 8);
        let a = acc(0x33, false);
        let s = p.signature.of(&a);
        p.on_fill(0, 9, &a);
        for _ in 0..10 {
            p.on_hit(0, 9, &a);
        }
        assert_eq!(p.ccbp.get(s), 0);
        assert!(p.ship.get(s) > 1, "non-critical reuse trains SHiP");
        p.on_hit(0, 9, &acc(0x33, true));
        assert_eq!(p.ccbp.get(s), 1);
    }

    /// Through the cache: lines predicted non-critical never evict a line of the critical
    /// partition (victim search confined to the partition), and a lookup finds a line in either
    /// partition (all 16 ways searched).
    #[test]
    fn non_critical_fills_never_evict_critical_lines_and_lookups_search_every_way() {
        use crate::mem::cache::{Cache, Lookup};
        let mut c = test_config(1, 16);
        c.replacement = "cacp".into();
        c.critical_ways = 8;
        let mut cache = Cache::new(&c);
        // Lines 0..8 (signatures 0..8 with PC 0): untrained, so placed in the non-critical
        // ways; two critical-warp hits each lift their CCBP counters above the threshold.
        for l in 0..8u64 {
            let a = acc(l, true);
            let (w, _) = cache.allocate_for(&a, false).unwrap();
            assert!(!cache.in_critical_partition(w));
            cache.fill(l, 0xff);
            cache.touch_by(l, w, &a);
            cache.touch_by(l, w, &a);
        }
        // Lines 256..264 share those signatures: they go to the 8 critical ways.
        let mut critical = Vec::new();
        for l in 256..264u64 {
            let (w, _) = cache.allocate_for(&acc(l, false), false).unwrap();
            assert!(cache.in_critical_partition(w), "line {l} in way {w}");
            cache.fill(l, 0xff);
            critical.push((l, w));
        }
        // 100 lines of untrained signatures (16..116) stream through the set.
        for l in 528..628u64 {
            let (w, _) = cache.allocate_for(&acc(l, false), false).unwrap();
            assert!(
                !cache.in_critical_partition(w),
                "line {l} placed in way {w}"
            );
            cache.fill(l, 0xff);
        }
        for (l, w) in critical {
            assert_eq!(cache.lookup(l, 0xff), Lookup::Hit(w), "critical line {l}");
        }
        assert!(matches!(cache.lookup(627, 0xff), Lookup::Hit(w) if w >= 8));
    }

    /// `l1d.partition_fallback`: with the non-critical ways all reserved by fills in flight, a
    /// non-critical line fails to allocate under `none` (a reservation failure, though critical
    /// ways are free of reservations) and takes a critical way under `other`; while a way of
    /// its own partition is unreserved it stays there under both.
    #[test]
    fn full_partition_fails_or_falls_back_to_the_other() {
        use crate::mem::cache::Cache;
        for (fb, expect_fallback) in [("none", false), ("other", true)] {
            let mut c = test_config(1, 4);
            c.replacement = "cacp".into();
            c.critical_ways = 2;
            c.partition_fallback = fb.into();
            let mut cache = Cache::new(&c);
            // Ways 2, 3 (non-critical) are reserved by misses in flight; 0, 1 are empty.
            let (w2, _) = cache.allocate_for(&acc(2, false), true).unwrap();
            let (w3, _) = cache.allocate_for(&acc(3, false), true).unwrap();
            assert_eq!(
                (w2, w3),
                (2, 3),
                "{fb}: untrained lines go to the non-critical ways"
            );
            let n = acc(5, false);
            assert_eq!(cache.can_allocate_for(&n), expect_fallback, "{fb}");
            match cache.allocate_for(&n, true) {
                None => assert!(!expect_fallback, "{fb}: reservation failure"),
                Some((w, _)) => {
                    assert!(expect_fallback, "{fb}");
                    assert!(cache.in_critical_partition(w), "{fb}: way {w}");
                }
            }
            // One non-critical way fills: its line is the victim, under either rule.
            cache.fill(2, 0xff);
            let (w, ev) = cache.allocate_for(&acc(9, false), true).unwrap();
            assert_eq!((w, ev.map(|e| e.line)), (2, Some(2)), "{fb}");
        }
        let mut g = crate::GpuConfig::preset("gtx480-cawa").unwrap();
        g.l1d.partition_fallback = "elsewhere".into();
        let e = g.validate().unwrap_err().to_string();
        assert!(
            e.contains("partition_fallback") && e.contains("none, other"),
            "{e}"
        );
    }

    /// Lee 2017 §4.2.3: CACP gives the critical data "a certain fixed amount of the L1 data
    /// cache capacity", and Algorithm 7 inserts a line only into the partition CCBP predicts.
    /// On Table 4.1's L1D as the `gtx480-cawa` preset builds it, with every non-critical way
    /// of a set reserved by fills in flight and the 8 critical ways empty, an untrained
    /// (non-critical) line is refused (a reservation failure; it retries) rather than placed
    /// in a critical way, and the critical partition never holds a line predicted
    /// non-critical.
    #[test]
    fn the_presets_split_is_fixed_a_full_partition_refuses_the_line() {
        use crate::mem::cache::Cache;
        let mut c = crate::GpuConfig::preset("gtx480-cawa").unwrap().l1d;
        c.replacement = "cacp".into();
        assert_eq!((c.sets, c.ways, c.critical_ways), (8, 16, 8), "Table 4.1");
        let mut cache = Cache::new(&c);
        // Lines 0, 8, 16, ... all map to set 0 (8 sets, linear index); none has a trained
        // signature, so CCBP predicts them non-critical.
        let line = |i: u64| MissInfo {
            pc: 0x40,
            line: 8 * i,
            warp: 0,
            critical: false,
        };
        for i in 0..8 {
            let (w, _) = cache.allocate_for(&line(i), true).expect("a free way");
            assert!(!cache.in_critical_partition(w), "line {i} took way {w}");
        }
        let ninth = line(8);
        assert!(!cache.can_allocate_for(&ninth));
        assert!(
            cache.allocate_for(&ninth, true).is_none(),
            "refused, though the 8 critical ways are free"
        );
        // Once one of its partition's fills arrives, the line replaces it.
        cache.fill(0, 0xff);
        let (w, ev) = cache.allocate_for(&ninth, true).unwrap();
        assert!(!cache.in_critical_partition(w));
        assert_eq!(ev.map(|e| e.line), Some(0));
    }

    #[test]
    fn victims_stay_in_the_requested_partition() {
        let mut p = cacp(16, 8);
        for w in 0..16 {
            p.on_fill(0, w, &acc(w as u64, false));
        }
        // Non-critical lines are older in RRIP terms, but a critical fill evicts only 0..8.
        for w in 0..8 {
            p.on_hit(0, w, &acc(w as u64, true));
        }
        let v = p.victim(0, 0x00ff, &acc(100, true));
        assert!(v < 8);
        let v = p.victim(0, 0xff00, &acc(100, false));
        assert!(v >= 8);
    }
}
