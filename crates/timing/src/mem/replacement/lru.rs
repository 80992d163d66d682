//! Least recently used: each line carries the time of its last use; the oldest goes.

use super::{MissInfo, Replacement};
use crate::config::CacheConfig;

/// LRU state: a use stamp per line.
pub struct Lru {
    ways: usize,
    stamp: Vec<u64>,
    clock: u64,
}

impl Lru {
    /// LRU over `sets x ways` lines.
    pub fn new(c: &CacheConfig) -> Self {
        let (sets, ways) = (c.sets as usize, c.ways as usize);
        Self {
            ways,
            stamp: vec![0; sets * ways],
            clock: 0,
        }
    }
    fn touch(&mut self, set: usize, way: usize) {
        self.clock += 1;
        self.stamp[set * self.ways + way] = self.clock;
    }
}

impl Replacement for Lru {
    fn victim(&mut self, set: usize, candidates: u64, _: &MissInfo) -> usize {
        let base = set * self.ways;
        let mut m = candidates;
        let mut best = m.trailing_zeros() as usize;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            if self.stamp[base + w] < self.stamp[base + best] {
                best = w;
            }
        }
        best
    }
    fn on_hit(&mut self, set: usize, way: usize, _: &MissInfo) {
        self.touch(set, way);
    }
    fn on_fill(&mut self, set: usize, way: usize, _: &MissInfo) {
        self.touch(set, way);
    }
}
