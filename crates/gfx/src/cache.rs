//! A GPU-internal set-associative LRU cache of 64-B blocks with write-back dirty bits. A miss
//! reserves its line at once (the line is *pending* until the fill, and a pending line is never a
//! victim), so the cache is its own miss-status table (the per-stream caches of document 004
//! Table 1).

/// The state of a block in the cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Present.
    Hit,
    /// Requested, not yet filled.
    Pending,
    /// Absent.
    Miss,
}

/// A set-associative, write-back, LRU cache of block numbers (address / 64).
pub struct Cache {
    sets: usize,
    ways: usize,
    tags: Vec<u64>,
    stamp: Vec<u64>,
    dirty: Vec<bool>,
    pending: Vec<bool>,
    /// Pending ways per set (a set whose ways are all pending has no victim: answered without
    /// scanning it).
    set_pending: Vec<u32>,
    /// `sets - 1` where `sets` is a power of two (the set index is then a mask, not a division).
    mask: Option<u64>,
    /// `floor(2^64 / sets)`: the set index of any other set count by a multiplication and one
    /// correction instead of a 64-bit division ([`Cache::set_of`]).
    magic: u64,
    clock: u64,
    /// Fills so far (lets waiters skip re-checking when nothing arrived).
    pub fills: u64,
    /// Changes of the tags or pending bits so far (every reserve and fill counts): while it
    /// stands still, [`Cache::state`] of every block is unchanged, so a unit that found every
    /// block it looks ahead for present or pending may skip looking again.
    pub epoch: u64,
    /// Changes of the tags or pending bits per set (as [`Cache::epoch`]).
    set_epoch: Vec<u64>,
}

const EMPTY: u64 = u64::MAX;

/// The first way of `set` (exactly `N` ways) holding `block`.
#[inline(always)]
fn first_match<const N: usize>(set: &[u64], block: u64) -> Option<usize> {
    let set: &[u64; N] = set.try_into().expect("N ways");
    let mut m = 0u32;
    for (k, &t) in set.iter().enumerate() {
        m |= ((t == block) as u32) << k;
    }
    (m != 0).then(|| m.trailing_zeros() as usize)
}

impl Cache {
    /// A cache of `bytes` capacity (rounded to whole sets, at least one) and `ways` ways.
    pub fn new(bytes: u64, ways: usize) -> Self {
        let blocks = (bytes / 64).max(ways as u64) as usize;
        let sets = (blocks / ways).max(1);
        Self {
            sets,
            ways,
            tags: vec![EMPTY; sets * ways],
            stamp: vec![0; sets * ways],
            dirty: vec![false; sets * ways],
            pending: vec![false; sets * ways],
            set_pending: vec![0; sets],
            mask: sets.is_power_of_two().then_some(sets as u64 - 1),
            magic: (u128::from(u64::MAX) + 1).div_euclid(sets as u128) as u64,
            clock: 0,
            fills: 0,
            epoch: 0,
            set_epoch: vec![0; sets],
        }
    }

    /// The set of `block`.
    pub fn set_index(&self, block: u64) -> usize {
        self.set_of(block)
    }

    /// Changes of set `set`'s tags or pending bits so far: while it stands still, every block's
    /// state in the set, and whether the set has a victim, are unchanged.
    pub fn set_epoch(&self, set: usize) -> u64 {
        self.set_epoch[set]
    }

    /// Every way of set `set` is pending: a missing block of the set cannot be reserved.
    pub fn set_full(&self, set: usize) -> bool {
        self.set_pending[set] as usize >= self.ways
    }

    fn set_of(&self, block: u64) -> usize {
        let h = block ^ (block >> 13) ^ (block >> 29);
        match self.mask {
            Some(m) => (h & m) as usize,
            None => {
                // h mod sets: with magic = floor(2^64 / sets), q = floor(h * magic / 2^64) is
                // the quotient or one less (h * magic / 2^64 > h / sets - 1), so one correction
                // gives the exact remainder.
                let d = self.sets as u64;
                let q = ((h as u128 * self.magic as u128) >> 64) as u64;
                let r = h - q * d;
                (if r >= d { r - d } else { r }) as usize
            }
        }
    }

    fn find(&self, block: u64) -> Option<usize> {
        let s = self.set_of(block) * self.ways;
        let set = &self.tags[s..s + self.ways];
        // A block is in at most one way of its set: the first match is the match. The common
        // way counts compare the whole set without early exits (vectorised).
        let k = match self.ways {
            4 => first_match::<4>(set, block),
            8 => first_match::<8>(set, block),
            16 => first_match::<16>(set, block),
            _ => set.iter().position(|&t| t == block),
        };
        k.map(|k| s + k)
    }

    /// The state of `block` (no LRU update) and its way index when present.
    pub fn state_at(&self, block: u64) -> (State, Option<usize>) {
        match self.find(block) {
            Some(i) if self.pending[i] => (State::Pending, Some(i)),
            Some(i) => (State::Hit, Some(i)),
            None => (State::Miss, None),
        }
    }

    /// [`Cache::access`] of a present, filled block at way index `i` (from
    /// [`Cache::state_at`]), without looking it up again.
    pub fn touch(&mut self, i: usize, write: bool) {
        self.clock += 1;
        self.stamp[i] = self.clock;
        self.dirty[i] |= write;
    }

    /// The state of `block` (no LRU update).
    pub fn state(&self, block: u64) -> State {
        match self.find(block) {
            Some(i) if self.pending[i] => State::Pending,
            Some(_) => State::Hit,
            None => State::Miss,
        }
    }

    /// Whether `block` is present (no LRU update).
    pub fn contains(&self, block: u64) -> bool {
        self.state(block) == State::Hit
    }

    /// Uses `block` if present (LRU update; `write` sets the dirty bit). Returns whether it hit.
    pub fn access(&mut self, block: u64, write: bool) -> bool {
        self.clock += 1;
        match self.find(block) {
            Some(i) if !self.pending[i] => {
                self.stamp[i] = self.clock;
                self.dirty[i] |= write;
                true
            }
            _ => false,
        }
    }

    /// The way a miss of `block` takes: the first non-pending way with the smallest stamp (an
    /// empty way counts as 0) whose block `spare` does not hold on to.
    fn victim(&self, block: u64, spare: impl Fn(u64) -> bool) -> Option<usize> {
        let set = self.set_of(block);
        if self.set_pending[set] as usize >= self.ways {
            return None;
        }
        let s = set * self.ways;
        let mut best: Option<(usize, u64)> = None;
        for i in s..s + self.ways {
            if self.pending[i] || (self.tags[i] != EMPTY && spare(self.tags[i])) {
                continue;
            }
            let k = if self.tags[i] == EMPTY {
                0
            } else {
                self.stamp[i]
            };
            if best.is_none_or(|(_, b)| k < b) {
                best = Some((i, k));
            }
        }
        best.map(|(i, _)| i)
    }

    fn place(&mut self, v: usize, block: u64, dirty: bool, pending: bool) -> Option<u64> {
        self.epoch += 1;
        self.set_epoch[v / self.ways] += 1;
        let wb = (self.tags[v] != EMPTY && self.dirty[v]).then_some(self.tags[v]);
        self.tags[v] = block;
        self.stamp[v] = self.clock;
        self.dirty[v] = dirty;
        if pending && !self.pending[v] {
            self.set_pending[v / self.ways] += 1;
        }
        self.pending[v] = pending;
        wb
    }

    /// Reserves a pending line for a missing `block`. `Err(())` when every way of its set is
    /// pending; `Ok(victim)` with the evicted block if it was dirty (a write-back).
    #[allow(clippy::result_unit_err)]
    pub fn reserve(&mut self, block: u64) -> Result<Option<u64>, ()> {
        self.reserve_sparing(block, |_| false)
    }

    /// [`Cache::reserve`] that evicts no block for which `spare` holds (`Err(())` also when
    /// every way not pending holds such a block): an in-order unit's look-ahead keeps the
    /// blocks of the quads ahead of the one it fetches for ([`crate::pipeline::memif::MemIf::ensure_window`]).
    #[allow(clippy::result_unit_err)]
    pub fn reserve_sparing(
        &mut self,
        block: u64,
        spare: impl Fn(u64) -> bool,
    ) -> Result<Option<u64>, ()> {
        self.clock += 1;
        let v = self.victim(block, spare).ok_or(())?;
        Ok(self.place(v, block, false, true))
    }

    /// Inserts `block` (a fill of a pending line, or a write-allocate without fetch when `dirty`).
    /// Returns the evicted block if it was dirty (a write-back the caller sends to memory).
    pub fn fill(&mut self, block: u64, dirty: bool) -> Option<u64> {
        self.clock += 1;
        self.fills += 1;
        self.epoch += 1;
        if let Some(i) = self.find(block) {
            self.set_epoch[i / self.ways] += 1;
            if self.pending[i] {
                self.set_pending[i / self.ways] -= 1;
            }
            self.pending[i] = false;
            self.stamp[i] = self.clock;
            self.dirty[i] |= dirty;
            return None;
        }
        let v = self.victim(block, |_| false)?;
        self.place(v, block, dirty, false)
    }

    /// Removes every dirty bit and returns the dirty blocks (a flush at frame end).
    pub fn flush_dirty(&mut self) -> Vec<u64> {
        let mut out = Vec::new();
        for i in 0..self.tags.len() {
            if self.dirty[i] {
                self.dirty[i] = false;
                out.push(self.tags[i]);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_evicts_least_recent_and_reports_dirty() {
        let mut c = Cache::new(64 * 2, 2); // one set, two ways
        assert_eq!(c.fill(1, true), None);
        assert_eq!(c.fill(2, false), None);
        assert!(c.access(1, false));
        assert_eq!(c.fill(3, false), None, "2 was clean and least recent");
        assert!(c.contains(1) && c.contains(3) && !c.contains(2));
        assert!(c.access(3, false));
        assert_eq!(c.fill(4, false), Some(1), "1 is dirty and least recent");
    }

    #[test]
    fn set_index_is_the_remainder_for_any_set_count() {
        for sets in [1usize, 3, 5, 24, 96, 384, 1000, 4097] {
            let c = Cache::new(64 * sets as u64 * 2, 2);
            assert_eq!(c.sets, sets);
            let hs = [
                0u64,
                1,
                23,
                24,
                25,
                1 << 32,
                (1 << 40) + 7,
                u64::MAX,
                u64::MAX - 1,
            ];
            for h in hs
                .into_iter()
                .chain((0..2000u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)))
            {
                // set_of hashes the block first: check the reduction on the hashed value.
                let b = h;
                let x = b ^ (b >> 13) ^ (b >> 29);
                assert_eq!(
                    c.set_of(b),
                    (x % sets as u64) as usize,
                    "sets {sets}, block {b}"
                );
            }
        }
    }

    #[test]
    fn pending_lines_are_never_victims() {
        let mut c = Cache::new(64 * 2, 2);
        assert_eq!(c.reserve(1), Ok(None));
        assert_eq!(c.state(1), State::Pending);
        assert!(!c.access(1, false), "a pending line does not hit");
        assert_eq!(c.reserve(2), Ok(None));
        assert_eq!(c.reserve(3), Err(()), "both ways pending");
        c.fill(1, false);
        assert_eq!(c.state(1), State::Hit);
        assert_eq!(c.reserve(3), Ok(None));
        assert_eq!(c.state(1), State::Miss, "1 was the only non-pending way");
    }

    #[test]
    fn a_sparing_reservation_takes_no_spared_block() {
        let mut c = Cache::new(64 * 2, 2); // one set, two ways
        c.fill(1, false);
        c.fill(2, true);
        assert!(c.access(1, false), "2 is now least recent");
        assert_eq!(c.reserve_sparing(3, |b| b == 2), Ok(None), "1 taken, not 2");
        assert!(c.contains(2) && !c.contains(1));
        assert_eq!(
            c.reserve_sparing(4, |b| b == 2),
            Err(()),
            "3 pending, 2 spared: no way"
        );
        assert_eq!(c.reserve(4), Ok(Some(2)), "unspared: the dirty 2 goes");
    }
}
