//! Static RRIP (Jaleel et al.), 2-bit re-reference prediction values: insert at 2 ("long"),
//! promote to 0 on a hit, evict a line at 3, aging every candidate until one reaches 3. This is
//! the RRIP that CACP (spec 000 §4.5) builds on.

use super::{MissInfo, Replacement};
use crate::config::CacheConfig;

const MAX: u8 = 3;

/// SRRIP state: an RRPV per line.
pub struct Srrip {
    ways: usize,
    rrpv: Vec<u8>,
}

impl Srrip {
    /// SRRIP over `sets x ways` lines.
    pub fn new(c: &CacheConfig) -> Self {
        let (sets, ways) = (c.sets as usize, c.ways as usize);
        Self {
            ways,
            rrpv: vec![MAX; sets * ways],
        }
    }
}

impl Replacement for Srrip {
    fn victim(&mut self, set: usize, candidates: u64, _: &MissInfo) -> usize {
        let base = set * self.ways;
        loop {
            let mut m = candidates;
            while m != 0 {
                let w = m.trailing_zeros() as usize;
                m &= m - 1;
                if self.rrpv[base + w] >= MAX {
                    return w;
                }
            }
            let mut m = candidates;
            while m != 0 {
                let w = m.trailing_zeros() as usize;
                m &= m - 1;
                self.rrpv[base + w] += 1;
            }
        }
    }
    fn on_hit(&mut self, set: usize, way: usize, _: &MissInfo) {
        self.rrpv[set * self.ways + way] = 0;
    }
    fn on_fill(&mut self, set: usize, way: usize, _: &MissInfo) {
        self.rrpv[set * self.ways + way] = MAX - 1;
    }
}
