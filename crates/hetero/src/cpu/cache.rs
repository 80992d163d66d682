//! Private CPU caches (spec 004 Table 1: L1D 32 KB 8-way, L2 256 KB 8-way): set-associative,
//! LRU, write-back, tags of 64 B blocks.

/// A private cache.
pub struct PrivCache {
    sets: u64,
    ways: usize,
    tag: Vec<u64>,
    stamp: Vec<u64>,
    dirty: Vec<bool>,
    clock: u64,
}

const INVALID: u64 = u64::MAX;

impl PrivCache {
    /// `kb` KB with `ways` ways of 64 B blocks.
    pub fn new(kb: u32, ways: u32) -> Self {
        let ways = ways as usize;
        let sets = ((kb as u64 * 1024 / 64) / ways as u64).max(1);
        let n = sets as usize * ways;
        Self {
            sets,
            ways,
            tag: vec![INVALID; n],
            stamp: vec![0; n],
            dirty: vec![false; n],
            clock: 0,
        }
    }

    fn range(&self, line: u64) -> std::ops::Range<usize> {
        let s = (line % self.sets) as usize * self.ways;
        s..s + self.ways
    }

    /// Lookup; a hit refreshes LRU and sets the dirty bit on a write.
    pub fn access(&mut self, line: u64, write: bool) -> bool {
        self.clock += 1;
        for i in self.range(line) {
            if self.tag[i] == line {
                self.stamp[i] = self.clock;
                self.dirty[i] |= write;
                return true;
            }
        }
        false
    }

    /// Inserts `line` (MRU); returns the evicted block and whether it was dirty.
    pub fn fill(&mut self, line: u64, dirty: bool) -> Option<(u64, bool)> {
        if self.access(line, dirty) {
            return None;
        }
        let r = self.range(line);
        let w = r
            .clone()
            .min_by_key(|&i| {
                if self.tag[i] == INVALID {
                    0
                } else {
                    self.stamp[i]
                }
            })
            .expect("ways > 0");
        let old = (self.tag[w] != INVALID).then_some((self.tag[w], self.dirty[w]));
        self.tag[w] = line;
        self.stamp[w] = self.clock;
        self.dirty[w] = dirty;
        old
    }

    /// Drops `line` (back-invalidation); returns whether it was present and dirty.
    pub fn invalidate(&mut self, line: u64) -> Option<bool> {
        for i in self.range(line) {
            if self.tag[i] == line {
                self.tag[i] = INVALID;
                return Some(self.dirty[i]);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_evicts_the_least_recent_and_reports_dirty() {
        let mut c = PrivCache::new(1, 2); // 8 sets x 2 ways
        c.fill(0, true);
        c.fill(8, false);
        assert!(c.access(0, false));
        assert_eq!(c.fill(16, false), Some((8, false)));
        assert_eq!(c.fill(24, false), Some((0, true)));
        assert_eq!(c.invalidate(16), Some(false));
        assert!(!c.access(16, false));
    }
}
