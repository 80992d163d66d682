//! Ctrl-C (Lee 2017 Ch. 5, spec 000 §5.2-5.3, Algorithms 11 and 12, Table 5.2): instruction-aware,
//! control-loop adaptive L1D bypassing.
//!
//! A 128-entry iReuse table indexed by the load PC (`PC[6:0]` of the instruction index, see
//! [`super::pc_index`]) holds per instruction a 3-bit insertion exponent `AGG`, a 7-bit count
//! `BYP` of consecutive bypasses, and 10-bit counts `ZERO` (evicted lines never reused) and
//! `INSERT` (evicted lines) of the lines it inserted. A miss of instruction `p` bypasses while
//! `BYP < 2^AGG - 1` and inserts otherwise, so exactly one miss in `2^AGG` is inserted
//! (deterministic counting, as Algorithm 11 is written). Every line leaving the L1D trains the
//! entry of the PC that inserted it (per-line `insertPC`, 7 bits, and `reuse`, 1 bit, kept by the
//! cache); after `SAMPLE_PERIOD = 1024 >> AGG` evictions the zero-reuse fraction `ZERO/INSERT`
//! moves `AGG` up when above [`THRESHOLD_H`] and down when below [`THRESHOLD_L`].
//!
//! Decisions (digest §5.3 ambiguities): `INSERT` is 10 bits because the period check runs right
//! after the increment and resets the count, so the value 1024 is never stored; write-evict
//! invalidations train like evictions; the policy applies to load misses only (stores are
//! write-evict, no-write-allocate); the base replacement stays LRU.

use super::{pc_index, Evicted, Insertion, MissInfo};

/// iReuse table entries (Table 5.2).
pub const TABLE_ENTRIES: usize = 128;
/// Bits of `AGG`, the insertion exponent (Table 5.2).
pub const AGG_BITS: u32 = 3;
/// Bits of `BYP`, consecutive bypasses (Table 5.2).
pub const BYP_BITS: u32 = 7;
/// Bits of `ZERO`, evicted zero-reuse lines in the sample (Table 5.2).
pub const ZERO_BITS: u32 = 10;
/// Bits of `INSERT` (Table 5.2 "REF"), evicted lines in the sample.
pub const INSERT_BITS: u32 = 10;
/// Per-line metadata bits: `reuse` (1) + `insertPC` (7), spec 000 §5.2.
pub const LINE_BITS: u32 = 1 + 7;
/// Evictions per sample at `AGG = 0`; the period is `SAMPLE_BASE >> AGG` (Table 5.2).
pub const SAMPLE_BASE: u32 = 1024;
/// Below this zero-reuse fraction the entry bypasses less (Table 5.2).
pub const THRESHOLD_L: f64 = 0.1;
/// Above this zero-reuse fraction the entry bypasses more (Table 5.2).
pub const THRESHOLD_H: f64 = 0.4;

const AGG_MAX: u8 = (1 << AGG_BITS) - 1;

/// Storage of Ctrl-C in bits for an L1D of `lines` lines: the iReuse table plus the per-line
/// metadata (spec 000 §9 claim 24: 128 x 30 + 128 x 8 bits = 608 B for 16 KB of 128 B lines).
pub fn storage_bits(lines: u64) -> u64 {
    TABLE_ENTRIES as u64 * (AGG_BITS + BYP_BITS + ZERO_BITS + INSERT_BITS) as u64
        + lines * LINE_BITS as u64
}

/// One iReuse entry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Entry {
    /// Insertion exponent 0..=7: one miss in `2^agg` inserts.
    pub agg: u8,
    /// Consecutive bypasses since the last insertion.
    pub byp: u8,
    /// Zero-reuse evictions in the current sample.
    pub zero: u16,
    /// Evictions in the current sample.
    pub insert: u16,
}

/// The policy: the iReuse table.
#[derive(Debug, Clone)]
pub struct CtrlC {
    table: Vec<Entry>,
}

impl Default for CtrlC {
    fn default() -> Self {
        Self {
            table: vec![Entry::default(); TABLE_ENTRIES],
        }
    }
}

impl CtrlC {
    /// The entry of load PC `pc`.
    pub fn entry(&self, pc: u64) -> Entry {
        self.table[pc_index(pc)]
    }
}

impl Insertion for CtrlC {
    /// Algorithm 11 `atMiss`.
    fn bypass(&mut self, miss: &MissInfo) -> bool {
        let c = &mut self.table[pc_index(miss.pc)];
        if (c.byp as u32) < (1u32 << c.agg) - 1 {
            c.byp += 1;
            true
        } else {
            c.byp = 0;
            false
        }
    }

    /// Algorithm 12 `atEviction`.
    fn on_evict(&mut self, ev: &Evicted) {
        let c = &mut self.table[pc_index(ev.pc)];
        c.insert += 1;
        if !ev.reused {
            c.zero += 1;
        }
        if c.insert as u32 >= SAMPLE_BASE >> c.agg {
            let f = c.zero as f64 / c.insert as f64;
            if f > THRESHOLD_H {
                c.agg = (c.agg + 1).min(AGG_MAX);
            } else if f < THRESHOLD_L {
                c.agg = c.agg.saturating_sub(1);
            }
            c.insert = 0;
            c.zero = 0;
        }
        debug_assert!((c.insert as u32) < 1 << INSERT_BITS && (c.zero as u32) < 1 << ZERO_BITS);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PC: u64 = 5 * 8;

    fn miss(pc: u64) -> MissInfo {
        MissInfo {
            pc,
            line: 0,
            warp: 0,
            critical: false,
        }
    }

    fn evict(p: &mut CtrlC, pc: u64, reused: bool, n: u32) {
        for _ in 0..n {
            p.on_evict(&Evicted {
                line: 0,
                dirty: 0,
                reused,
                pc,
            });
        }
    }

    /// Drives PC's entry to AGG `a` with samples of zero-reuse evictions.
    fn raise_to(p: &mut CtrlC, a: u8) {
        while p.entry(PC).agg < a {
            let period = SAMPLE_BASE >> p.entry(PC).agg;
            evict(p, PC, false, period);
        }
    }

    #[test]
    fn storage_is_608_bytes_for_16k() {
        assert_eq!(storage_bits(32 * 4), 608 * 8);
        // Largest counter values fit their widths: BYP < 2^7, INSERT and ZERO < 2^10.
        const { assert!(((1u32 << AGG_MAX) - 1) < 1 << BYP_BITS) };
        const { assert!(SAMPLE_BASE - 1 < 1 << INSERT_BITS) };
    }

    #[test]
    fn agg_zero_inserts_every_miss() {
        let mut p = CtrlC::default();
        assert!((0..100).all(|_| !p.bypass(&miss(PC))));
    }

    #[test]
    fn insertion_rate_is_one_in_two_to_the_agg_for_every_agg() {
        let mut p = CtrlC::default();
        for a in 0..=7u8 {
            raise_to(&mut p, a);
            assert_eq!(p.entry(PC).agg, a);
            let n = 1u32 << a;
            // Consecutive windows of 2^a misses: 2^a - 1 bypasses, then one insertion.
            for _ in 0..3 {
                let pattern: Vec<bool> = (0..n).map(|_| p.bypass(&miss(PC))).collect();
                assert!(pattern[..n as usize - 1].iter().all(|&b| b), "AGG {a}");
                assert!(
                    !pattern[n as usize - 1],
                    "AGG {a}: the 2^AGG-th miss inserts"
                );
                assert_eq!(p.entry(PC).byp, 0);
            }
        }
        // Saturates at 7.
        evict(&mut p, PC, false, SAMPLE_BASE);
        assert_eq!(p.entry(PC).agg, 7);
    }

    #[test]
    fn sample_period_shrinks_as_1024_shifted_by_agg() {
        let mut p = CtrlC::default();
        for a in 0..7u8 {
            assert_eq!(p.entry(PC).agg, a);
            let period = SAMPLE_BASE >> a;
            evict(&mut p, PC, false, period - 1);
            assert_eq!(p.entry(PC).agg, a, "no decision before the period");
            assert_eq!(p.entry(PC).insert as u32, period - 1);
            assert_eq!(p.entry(PC).zero as u32, period - 1);
            evict(&mut p, PC, false, 1);
            assert_eq!(p.entry(PC).agg, a + 1, "decided at eviction {period}");
            assert_eq!(
                (p.entry(PC).insert, p.entry(PC).zero),
                (0, 0),
                "sample reset"
            );
        }
    }

    #[test]
    fn control_loop_thresholds_move_agg_up_down_or_hold() {
        let mut p = CtrlC::default();
        raise_to(&mut p, 4);
        let period = SAMPLE_BASE >> 4; // 64
                                       // Fraction 26/64 = 0.406 > 0.4: up.
        evict(&mut p, PC, true, period - 26);
        evict(&mut p, PC, false, 26);
        assert_eq!(p.entry(PC).agg, 5);
        let period = SAMPLE_BASE >> 5; // 32
                                       // Fraction 12/32 = 0.375 inside [0.1, 0.4]: hold.
        evict(&mut p, PC, false, 12);
        evict(&mut p, PC, true, period - 12);
        assert_eq!(p.entry(PC).agg, 5);
        // Fraction 3/32 = 0.094 < 0.1: down.
        evict(&mut p, PC, false, 3);
        evict(&mut p, PC, true, period - 3);
        assert_eq!(p.entry(PC).agg, 4);
        // Fraction 7/64 = 0.109, just above THRESHOLD_L: hold.
        evict(&mut p, PC, false, 7);
        evict(&mut p, PC, true, 64 - 7);
        assert_eq!(p.entry(PC).agg, 4);
        // All reused: down to 0 and no lower.
        for _ in 0..10 {
            let period = SAMPLE_BASE >> p.entry(PC).agg;
            evict(&mut p, PC, true, period);
        }
        assert_eq!(p.entry(PC).agg, 0);
    }

    #[test]
    fn training_uses_the_inserting_pc_and_decisions_the_requesting_pc() {
        let mut p = CtrlC::default();
        let other = 9 * 8;
        raise_to(&mut p, 3);
        assert_eq!(p.entry(other), Entry::default(), "other PCs untouched");
        assert!(!p.bypass(&miss(other)), "another PC still inserts");
        assert!(p.bypass(&miss(PC)));
        // PCs 128 instructions apart share an entry (PC[6:0]).
        assert_eq!(p.entry(PC + 128 * 8).agg, 3);
        assert!(p.bypass(&miss(PC + 128 * 8)));
    }
}
