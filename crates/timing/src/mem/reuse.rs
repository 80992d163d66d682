//! Reuse-distance observer of an L1 (spec 000 §5.1 Figure 5.3, §8.1 item 7): for every load
//! access that the cache accepts, the per-set stack distance of its line, i.e. the number of
//! distinct other lines of the same set (under the cache's own set-index function) accessed
//! since the previous access to that line, binned in powers of two. Line identity is the
//! cache's line address; the observer watches the real access stream whatever the cache holds.
//!
//! Each set keeps its most recently used [`DEPTH`] distinct lines, so distances of 128 and more
//! share the last bin; a line never seen before is counted as `cold` (one set of every line the
//! unit ever touched tells the two apart).

use crate::stats::ReuseStats;
use std::collections::HashSet;

/// Lines remembered per set: distances `>= DEPTH` fall in the `d128_up` bin.
pub const DEPTH: usize = 128;

/// The observer.
#[derive(Debug, Clone, Default)]
pub struct ReuseObserver {
    /// Per set, lines from least to most recently used (at most [`DEPTH`]).
    stacks: Vec<Vec<u64>>,
    seen: HashSet<u64>,
}

impl ReuseObserver {
    /// An observer of a cache with `sets` sets.
    pub fn new(sets: usize) -> Self {
        Self {
            stacks: vec![Vec::with_capacity(DEPTH); sets],
            seen: HashSet::new(),
        }
    }

    /// `line` (in `set`) was accessed: counts its distance in `s`.
    pub fn access(&mut self, set: usize, line: u64, s: &mut ReuseStats) {
        let st = &mut self.stacks[set];
        match st.iter().rposition(|&l| l == line) {
            Some(p) => {
                let d = st.len() - 1 - p;
                st.remove(p);
                s.count(d as u64);
            }
            None => {
                if self.seen.insert(line) {
                    s.cold += 1;
                } else {
                    s.count(DEPTH as u64);
                }
                if st.len() == DEPTH {
                    st.remove(0);
                }
            }
        }
        st.push(line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stack_distance_per_set() {
        let mut o = ReuseObserver::new(2);
        let mut s = ReuseStats::default();
        // Set 0: a b c a -> distance 2 for the second a; b -> 2 (c, a); a -> 1 (b).
        for l in [1, 2, 3, 1, 2, 1] {
            o.access(0, l, &mut s);
        }
        assert_eq!((s.cold, s.d0, s.d1, s.d2_3), (3, 0, 1, 2), "{s:?}");
        // Set 1 is separate: its accesses do not lengthen set 0's distances.
        o.access(1, 100, &mut s);
        o.access(0, 1, &mut s);
        assert_eq!(s.cold, 4);
        assert_eq!(s.d0, 1, "re-access with only another set's line in between");
        // A line pushed out of the remembered depth is counted as >= 128, not cold.
        for l in 1000..1000 + DEPTH as u64 {
            o.access(0, l, &mut s);
        }
        o.access(0, 1, &mut s);
        assert_eq!(s.d128_up, 1);
        assert_eq!(s.cold, 4 + DEPTH as u64);
    }
}
