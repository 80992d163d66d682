//! PC-based adaptive bypassing, the comparison point of Ctrl-C (Lee 2017 §5.3.1, after Tian et
//! al. and SHiP; spec 000 §5.4): per-instruction confidence counters predict zero-reuse lines,
//! and once an instruction is predicted zero-reuse **all** its misses bypass.
//!
//! The document gives neither widths nor thresholds. Choices (recorded in docs/EXPERIMENTS.md):
//! 128 two-bit saturating counters indexed like Ctrl-C's table ([`super::pc_index`]); a line
//! that leaves the cache without having been hit increments the counter of the PC that inserted
//! it, a line that leaves after a hit decrements it (training at eviction, where the reuse bit is
//! final, instead of at every hit); a miss bypasses while its PC's counter is at the maximum.
//! An instruction that bypasses everything inserts nothing more, so only its lines still cached
//! can bring it back: the loss of misprediction detection the document describes.

use super::{pc_index, Evicted, Insertion, MissInfo};

/// Counter maximum (2 bits); a PC at this value bypasses.
pub const MAX: u8 = 3;

/// The policy: one saturating counter per table entry.
#[derive(Debug, Clone)]
pub struct PcBypass {
    conf: Vec<u8>,
}

impl Default for PcBypass {
    fn default() -> Self {
        Self { conf: vec![0; 128] }
    }
}

impl PcBypass {
    /// The counter of load PC `pc`.
    pub fn counter(&self, pc: u64) -> u8 {
        self.conf[pc_index(pc)]
    }
}

impl Insertion for PcBypass {
    fn bypass(&mut self, miss: &MissInfo) -> bool {
        self.conf[pc_index(miss.pc)] >= MAX
    }

    fn on_evict(&mut self, ev: &Evicted) {
        let c = &mut self.conf[pc_index(ev.pc)];
        if ev.reused {
            *c = c.saturating_sub(1);
        } else {
            *c = (*c + 1).min(MAX);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(pc: u64, reused: bool) -> Evicted {
        Evicted {
            line: 0,
            dirty: 0,
            reused,
            pc,
        }
    }

    fn miss(pc: u64) -> MissInfo {
        MissInfo {
            pc,
            line: 0,
            warp: 0,
            critical: false,
        }
    }

    #[test]
    fn learns_zero_reuse_pcs_and_bypasses_all_their_misses() {
        let mut p = PcBypass::default();
        let (a, b) = (16, 24);
        for _ in 0..2 {
            p.on_evict(&ev(a, false));
        }
        assert!(!p.bypass(&miss(a)), "not yet confident");
        p.on_evict(&ev(a, false));
        assert_eq!(p.counter(a), MAX);
        // All or nothing: every later miss of `a` bypasses, `b` is unaffected.
        assert!((0..1000).all(|_| p.bypass(&miss(a))));
        assert!(!p.bypass(&miss(b)));
        // Saturates; one reused line of `a` leaving brings it back to inserting.
        p.on_evict(&ev(a, false));
        assert_eq!(p.counter(a), MAX);
        p.on_evict(&ev(a, true));
        assert!(!p.bypass(&miss(a)));
    }

    #[test]
    fn reused_lines_keep_a_pc_inserting() {
        let mut p = PcBypass::default();
        for i in 0..100 {
            // Every other line reused: the counter never reaches the maximum.
            p.on_evict(&ev(8, i % 2 == 0));
            assert!(!p.bypass(&miss(8)));
        }
    }
}
