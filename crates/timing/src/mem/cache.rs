//! A generic set-associative tag store with sector valid/dirty bits, line reservation at miss
//! time, and pluggable replacement (spec 000 §8.1 item 3), plus an MSHR table with merging. The
//! L1D, constant cache, L1I and L2 slices are all built from these two parts; the owner decides
//! what to do on a miss (see `l1.rs`, `l2.rs`).

use super::insertion::MissInfo;
use super::replacement::{Policy, Replacement};
use crate::config::CacheConfig;

/// Write handling of a cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WritePolicy {
    /// Update the line on a hit, send the write on, never allocate.
    WriteThrough,
    /// Invalidate the line on a hit, send the write on, never allocate (GPGPU-Sim 3.x L1D global).
    WriteEvict,
    /// Keep writes in the cache (allocate on a write miss without fetching, dirty sectors
    /// written back on eviction).
    WriteBack,
}

impl WritePolicy {
    /// Parses a config name.
    pub fn parse(s: &str) -> Option<WritePolicy> {
        Some(match s {
            "write_through" => WritePolicy::WriteThrough,
            "write_evict" => WritePolicy::WriteEvict,
            "write_back" => WritePolicy::WriteBack,
            _ => return None,
        })
    }
}

/// What a write-back cache does on a write miss (GPGPU-Sim's write-allocate field).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteAllocate {
    /// Allocate the line and validate the written sectors without fetching; the write is
    /// complete at once (GPGPU-Sim `L`, lazy fetch on read).
    Lazy,
    /// Send the write on to the next level and fetch the line into the cache as well; the write
    /// is complete when the next level has written it (GPGPU-Sim `W`, its "naive" write
    /// allocate: one write and one read per write miss). Only a line miss is sent on; a write
    /// to a present or pending line with missing sectors validates them, as `Lazy` does.
    Naive,
    /// Send the write on to the next level without allocating; complete when the next level
    /// has written it (GPGPU-Sim `N`).
    None,
}

impl WriteAllocate {
    /// Parses a config name (`lazy`, `naive`, `none`).
    pub fn parse(s: &str) -> Option<WriteAllocate> {
        Some(match s {
            "lazy" => WriteAllocate::Lazy,
            "naive" => WriteAllocate::Naive,
            "none" => WriteAllocate::None,
            _ => return None,
        })
    }
}

/// Result of a tag lookup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    /// Present with every requested sector valid.
    Hit(usize),
    /// Allocated and waiting for its fill (reserved).
    Pending(usize),
    /// Present, but some requested sectors are not valid.
    SectorMiss(usize),
    /// Absent.
    Miss,
}

/// A line pushed out by an allocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Evicted {
    /// Its line address.
    pub line: u64,
    /// Dirty sectors (to be written back).
    pub dirty: u8,
    /// Whether it was hit after its fill.
    pub reused: bool,
    /// PC of the load that inserted it (0 when the owner did not record one; see
    /// [`Cache::set_pc`]): the `insertPC` line metadata of Ctrl-C (spec 000 §5.2).
    pub pc: u64,
}

const INVALID: u64 = u64::MAX;
const F_RESERVED: u8 = 1;
const F_REUSED: u8 = 2;

/// The tag store.
pub struct Cache {
    sets: usize,
    ways: usize,
    line_shift: u32,
    sector_shift: u32,
    set_bits: u32,
    hashed: bool,
    tags: Vec<u64>,
    valid: Vec<u8>,
    dirty: Vec<u8>,
    flags: Vec<u8>,
    pcs: Vec<u64>,
    repl: Policy,
    /// Lines holding at least one dirty (written) sector.
    dirty_lines: usize,
    /// The write ratio, percent (`write_ratio`): dirty lines are victims only at or above it.
    write_ratio: usize,
}

impl Cache {
    /// A cache of the configured geometry (the config has been validated).
    pub fn new(c: &CacheConfig) -> Self {
        let n = (c.sets * c.ways) as usize;
        Self {
            sets: c.sets as usize,
            ways: c.ways as usize,
            line_shift: c.line_bytes.trailing_zeros(),
            sector_shift: c.sector_bytes.trailing_zeros(),
            set_bits: c.sets.next_power_of_two().trailing_zeros(),
            hashed: c.index == "hashed",
            tags: vec![INVALID; n],
            valid: vec![0; n],
            dirty: vec![0; n],
            flags: vec![0; n],
            pcs: vec![0; n],
            repl: Policy::new(&c.replacement, c).expect("validated replacement"),
            dirty_lines: 0,
            write_ratio: c.write_ratio as usize,
        }
    }

    /// Line address of a byte address.
    #[inline]
    pub fn line_of(&self, addr: u64) -> u64 {
        addr >> self.line_shift
    }

    /// Number of sets.
    pub fn num_sets(&self) -> usize {
        self.sets
    }

    /// Line size in bytes.
    pub fn line_bytes(&self) -> u64 {
        1 << self.line_shift
    }

    /// Mask of every sector of a line.
    pub fn full_mask(&self) -> u8 {
        let n = 1u32 << (self.line_shift - self.sector_shift);
        ((1u32 << n) - 1) as u8
    }

    /// Sectors of the line covered by `[addr, addr + bytes)` (clipped to the line).
    pub fn sectors_of(&self, addr: u64, bytes: u32) -> u8 {
        let off = addr & ((1 << self.line_shift) - 1);
        let first = off >> self.sector_shift;
        let end = (off + bytes.max(1) as u64 - 1).min((1 << self.line_shift) - 1);
        let last = end >> self.sector_shift;
        let mut m = 0u8;
        for s in first..=last {
            m |= 1 << s;
        }
        m
    }

    /// The set of a line address.
    #[inline]
    pub fn set_of(&self, line: u64) -> usize {
        if self.hashed {
            let b = self.set_bits;
            let h = line ^ (line >> b) ^ (line >> (2 * b));
            (h & (self.sets as u64 - 1)) as usize
        } else if self.sets.is_power_of_two() {
            // The same set as the remainder, without a division per access.
            (line & (self.sets as u64 - 1)) as usize
        } else {
            (line % self.sets as u64) as usize
        }
    }

    /// Looks `line` up for `sectors` without changing state.
    #[inline]
    pub fn lookup(&self, line: u64, sectors: u8) -> Lookup {
        let set = self.set_of(line);
        let base = set * self.ways;
        for w in 0..self.ways {
            if self.tags[base + w] == line {
                let i = base + w;
                if self.flags[i] & F_RESERVED != 0 && self.valid[i] & sectors != sectors {
                    return Lookup::Pending(w);
                }
                if self.valid[i] & sectors == sectors {
                    return Lookup::Hit(w);
                }
                return Lookup::SectorMiss(w);
            }
        }
        Lookup::Miss
    }

    /// Records a hit on (`line`'s set, `way`) for replacement and reuse tracking.
    #[inline]
    pub fn touch(&mut self, line: u64, way: usize) {
        self.touch_by(line, way, &MissInfo::line_only(line));
    }

    /// [`Cache::touch`] by the access `acc` (its PC, warp and criticality reach the policy).
    #[inline]
    pub fn touch_by(&mut self, line: u64, way: usize, acc: &MissInfo) {
        let set = self.set_of(line);
        self.flags[set * self.ways + way] |= F_REUSED;
        self.repl.on_hit(set, way, acc);
    }

    /// Whether a way of `line`'s set can be allocated (some way is not reserved).
    pub fn can_allocate(&self, line: u64) -> bool {
        self.can_allocate_for(&MissInfo::line_only(line))
    }

    /// Whether a way that the policy allows for `acc` is free of reservations in its set.
    pub fn can_allocate_for(&self, acc: &MissInfo) -> bool {
        let set = self.set_of(acc.line);
        let base = set * self.ways;
        let allowed = self.allowed(set, acc);
        (0..self.ways).any(|w| allowed & (1 << w) != 0 && self.flags[base + w] & F_RESERVED == 0)
    }

    /// The ways of `set` the policy lets `acc` use (every way when it names none), widened by
    /// its fallback ways when every one of them is reserved.
    fn allowed(&self, set: usize, acc: &MissInfo) -> u64 {
        let all = if self.ways >= 64 {
            u64::MAX
        } else {
            (1u64 << self.ways) - 1
        };
        let m = self.repl.ways_for(set, acc) & all;
        if m == 0 {
            return all;
        }
        let base = set * self.ways;
        let blocked =
            (0..self.ways).all(|w| m & (1 << w) == 0 || self.flags[base + w] & F_RESERVED != 0);
        if blocked {
            // No victim in the policy's ways: the ways it allows as a fallback (if any).
            m | (self.repl.fallback_ways(set, acc) & all)
        } else {
            m
        }
    }

    /// Allocates a way for `line` (invalid ways first, then the policy's victim among
    /// non-reserved ways), optionally reserving it for a pending fill. Returns the way and the
    /// evicted line, or `None` when every way is reserved (a reservation failure).
    pub fn allocate(&mut self, line: u64, reserve: bool) -> Option<(usize, Option<Evicted>)> {
        self.allocate_for(&MissInfo::line_only(line), reserve)
    }

    /// [`Cache::allocate`] of `acc.line` for the access `acc`, within the ways the replacement
    /// policy allows it (a partitioned policy keeps it in its partition).
    pub fn allocate_for(
        &mut self,
        acc: &MissInfo,
        reserve: bool,
    ) -> Option<(usize, Option<Evicted>)> {
        let line = acc.line;
        let set = self.set_of(line);
        let base = set * self.ways;
        let allowed = self.allowed(set, acc);
        let mut cand = 0u64;
        let mut free = None;
        for w in 0..self.ways {
            if allowed & (1 << w) == 0 {
                continue;
            }
            let i = base + w;
            if self.tags[i] == INVALID {
                free = Some(w);
                break;
            }
            if self.flags[i] & F_RESERVED == 0 {
                cand |= 1 << w;
            }
        }
        let (way, ev) = match free {
            Some(w) => (w, None),
            None => {
                if cand == 0 {
                    return None;
                }
                let cand = self.write_ratio_candidates(base, cand);
                let w = self.repl.victim(set, cand, acc);
                let i = base + w;
                let ev = Evicted {
                    line: self.tags[i],
                    dirty: self.dirty[i],
                    reused: self.flags[i] & F_REUSED != 0,
                    pc: self.pcs[i],
                };
                (w, Some(ev))
            }
        };
        let i = base + way;
        self.clear_dirty(i);
        self.tags[i] = line;
        self.valid[i] = 0;
        self.flags[i] = if reserve { F_RESERVED } else { 0 };
        self.pcs[i] = 0;
        self.repl.on_fill(set, way, acc);
        Some((way, ev))
    }

    /// Whether `way` lies in the replacement policy's critical partition (CACP, spec 000 §4.5;
    /// always false for unpartitioned policies).
    pub fn in_critical_partition(&self, way: usize) -> bool {
        self.repl.in_critical_partition(way)
    }

    /// Whether the replacement policy reads the CPL criticality bit of its accesses.
    pub fn reads_criticality(&self) -> bool {
        self.repl.reads_criticality()
    }

    /// Records `pc` as the inserting instruction of (`line`'s set, `way`); reported back in
    /// [`Evicted::pc`].
    pub fn set_pc(&mut self, line: u64, way: usize, pc: u64) {
        let i = self.set_of(line) * self.ways + way;
        self.pcs[i] = pc;
    }

    /// Marks `line` (already allocated) as reserved for a pending fill.
    pub fn reserve(&mut self, line: u64, way: usize) {
        let i = self.set_of(line) * self.ways + way;
        self.flags[i] |= F_RESERVED;
    }

    /// The fill of `line` arrived with `sectors`: valid, no longer reserved. Returns false if the
    /// line is no longer allocated.
    pub fn fill(&mut self, line: u64, sectors: u8) -> bool {
        let base = self.set_of(line) * self.ways;
        for w in 0..self.ways {
            let i = base + w;
            if self.tags[i] == line {
                self.valid[i] |= sectors;
                self.flags[i] &= !F_RESERVED;
                return true;
            }
        }
        false
    }

    /// Sector fetch: sectors `got` of the reserved `line` arrived; `fetching` holds, per line,
    /// the sectors still on their way. While more are coming the arrived sectors become valid
    /// and the line stays reserved (returns false); the last part fills the line (returns
    /// true: the caller wakes the line's waiters).
    pub fn sectors_arrived(
        &mut self,
        fetching: &mut std::collections::HashMap<u64, u8>,
        line: u64,
        got: u8,
    ) -> bool {
        let left = fetching.get(&line).map_or(0, |&m| m & !got);
        if left != 0 {
            fetching.insert(line, left);
            if let Lookup::Hit(w) | Lookup::Pending(w) | Lookup::SectorMiss(w) =
                self.lookup(line, 0)
            {
                self.write(line, w, got, false);
            }
            return false;
        }
        fetching.remove(&line);
        self.fill(line, got);
        true
    }

    /// Ways per set.
    pub fn ways(&self) -> usize {
        self.ways
    }

    /// The valid sectors of (`line`'s set, `way`).
    pub fn valid_sectors(&self, line: u64, way: usize) -> u8 {
        self.valid[self.set_of(line) * self.ways + way]
    }

    /// Writes `sectors` of a present line (valid, and dirty if `dirty`).
    pub fn write(&mut self, line: u64, way: usize, sectors: u8, dirty: bool) {
        let i = self.set_of(line) * self.ways + way;
        self.valid[i] |= sectors;
        if dirty && sectors != 0 {
            self.dirty_lines += usize::from(self.dirty[i] == 0);
            self.dirty[i] |= sectors;
        }
    }

    /// Invalidates `line` if present and not reserved.
    pub fn invalidate(&mut self, line: u64) {
        self.remove(line);
    }

    /// Invalidates `line` if present and not reserved, returning what left (a write-evict
    /// invalidation is an eviction to an insertion policy, spec 000 §5.3 "stores").
    pub fn remove(&mut self, line: u64) -> Option<Evicted> {
        let base = self.set_of(line) * self.ways;
        for w in 0..self.ways {
            let i = base + w;
            if self.tags[i] == line && self.flags[i] & F_RESERVED == 0 {
                let ev = Evicted {
                    line,
                    dirty: self.dirty[i],
                    reused: self.flags[i] & F_REUSED != 0,
                    pc: self.pcs[i],
                };
                self.clear_dirty(i);
                self.tags[i] = INVALID;
                self.valid[i] = 0;
                self.flags[i] = 0;
                return Some(ev);
            }
        }
        None
    }

    /// Invalidates every line that is not reserved (kernel-boundary L1 flush).
    pub fn invalidate_all(&mut self) {
        for i in 0..self.tags.len() {
            if self.flags[i] & F_RESERVED == 0 {
                self.clear_dirty(i);
                self.tags[i] = INVALID;
                self.valid[i] = 0;
                self.flags[i] = 0;
            }
        }
    }

    /// Lines holding at least one dirty (written) sector.
    pub fn dirty_lines(&self) -> usize {
        self.dirty_lines
    }

    fn clear_dirty(&mut self, i: usize) {
        self.dirty_lines -= usize::from(self.dirty[i] != 0);
        self.dirty[i] = 0;
    }

    /// The write ratio (GPGPU-Sim's `m_wr_percent` rule): of the unreserved ways `cand` of the
    /// set at `base`, the dirty ones stay candidates only when at least `write_ratio` percent
    /// of all lines are dirty; when that leaves none, all of `cand` (see
    /// [`crate::config::CacheConfig::write_ratio`]).
    fn write_ratio_candidates(&self, base: usize, cand: u64) -> u64 {
        if self.write_ratio == 0 || self.dirty_lines * 100 >= self.write_ratio * self.tags.len() {
            return cand;
        }
        let mut clean = cand;
        let mut m = cand;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            if self.dirty[base + w] != 0 {
                clean &= !(1u64 << w);
            }
        }
        if clean == 0 {
            cand
        } else {
            clean
        }
    }
}

/// Miss-status holding registers: outstanding line misses with the requests merged into each.
///
/// Waiters live in one shared pool of nodes linked per entry (arrival order), with a free list.
/// The pool starts small and grows only when more waiters are outstanding at once than ever
/// before, so construction is cheap even for huge tables (GPGPU-Sim's `A:1024:1024` L2 MSHRs)
/// while the steady state allocates nothing; behaviour is that of a flat `entries x merge` array.
pub struct Mshr<T: Copy> {
    lines: Vec<u64>,
    counts: Vec<u16>,
    heads: Vec<u32>,
    tails: Vec<u32>,
    pool: Vec<(T, u32)>,
    free: u32,
    merge: usize,
    used: usize,
}

const NIL: u32 = u32::MAX;

impl<T: Copy + Default> Mshr<T> {
    /// `entries` entries of up to `merge` waiters each (`merge` capped at 255).
    pub fn new(entries: usize, merge: usize) -> Self {
        Self {
            lines: vec![INVALID; entries],
            counts: vec![0; entries],
            heads: vec![NIL; entries],
            tails: vec![NIL; entries],
            pool: Vec::with_capacity((entries * merge.min(255)).min(1024)),
            free: NIL,
            merge: merge.min(255),
            used: 0,
        }
    }

    /// The entry tracking `line`.
    #[inline]
    pub fn find(&self, line: u64) -> Option<usize> {
        if self.used == 0 {
            return None;
        }
        self.lines.iter().position(|&l| l == line)
    }

    /// Whether a new entry can be allocated.
    pub fn has_free(&self) -> bool {
        self.used < self.lines.len()
    }

    /// Whether entry `e` can take another waiter.
    pub fn can_merge(&self, e: usize) -> bool {
        (self.counts[e] as usize) < self.merge
    }

    /// Outstanding entries.
    pub fn used(&self) -> usize {
        self.used
    }

    fn node(&mut self, w: T) -> u32 {
        if self.free != NIL {
            let n = self.free;
            self.free = self.pool[n as usize].1;
            self.pool[n as usize] = (w, NIL);
            n
        } else {
            self.pool.push((w, NIL));
            (self.pool.len() - 1) as u32
        }
    }

    /// Opens an entry for `line` with its first waiter (caller checked `has_free`).
    pub fn open(&mut self, line: u64, w: T) -> usize {
        let e = self
            .lines
            .iter()
            .position(|&l| l == INVALID)
            .expect("free MSHR");
        let n = self.node(w);
        self.lines[e] = line;
        self.counts[e] = 1;
        self.heads[e] = n;
        self.tails[e] = n;
        self.used += 1;
        e
    }

    /// Adds a waiter to entry `e` (caller checked `can_merge`).
    pub fn merge(&mut self, e: usize, w: T) {
        let n = self.node(w);
        let t = self.tails[e] as usize;
        self.pool[t].1 = n;
        self.tails[e] = n;
        self.counts[e] += 1;
    }

    /// Closes the entry of `line`, calling `f` on each waiter in arrival order.
    pub fn close(&mut self, line: u64, mut f: impl FnMut(T)) -> bool {
        let Some(e) = self.find(line) else {
            return false;
        };
        let mut n = self.heads[e];
        while n != NIL {
            let (w, next) = self.pool[n as usize];
            f(w);
            self.pool[n as usize].1 = self.free;
            self.free = n;
            n = next;
        }
        self.lines[e] = INVALID;
        self.counts[e] = 0;
        self.heads[e] = NIL;
        self.tails[e] = NIL;
        self.used -= 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(sets: u32, ways: u32) -> CacheConfig {
        let mut c = crate::GpuConfig::preset("gtx480").unwrap().l1d;
        c.sets = sets;
        c.ways = ways;
        c.index = "linear".into();
        c
    }

    #[test]
    fn hit_after_fill_and_lru_eviction() {
        let mut c = Cache::new(&cfg(2, 2));
        let full = c.full_mask();
        assert_eq!(full, 0b1111);
        for line in [0u64, 2, 4] {
            assert_eq!(c.lookup(line, full), Lookup::Miss);
            let (_, ev) = c.allocate(line, true).unwrap();
            assert_eq!(c.lookup(line, full), Lookup::Pending(c_way(&c, line)));
            c.fill(line, full);
            if line == 4 {
                assert_eq!(ev.unwrap().line, 0, "LRU victim of set 0");
            } else {
                assert!(ev.is_none());
            }
        }
        assert!(matches!(c.lookup(2, full), Lookup::Hit(_)));
        assert_eq!(c.lookup(0, full), Lookup::Miss);
    }

    fn c_way(c: &Cache, line: u64) -> usize {
        match c.lookup(line, 0xff) {
            Lookup::Pending(w) | Lookup::Hit(w) | Lookup::SectorMiss(w) => w,
            Lookup::Miss => usize::MAX,
        }
    }

    #[test]
    fn reserved_lines_are_never_victims() {
        let mut c = Cache::new(&cfg(1, 2));
        c.allocate(10, true).unwrap();
        c.allocate(11, true).unwrap();
        assert!(!c.can_allocate(12));
        assert!(c.allocate(12, true).is_none(), "reservation failure");
        c.fill(10, 0b1111);
        let (_, ev) = c.allocate(12, false).unwrap();
        assert_eq!(ev.unwrap().line, 10);
    }

    #[test]
    fn sectors_and_dirty_writeback() {
        let mut c = Cache::new(&cfg(4, 1));
        assert_eq!(c.sectors_of(0x1020, 4), 0b0010);
        assert_eq!(c.sectors_of(0x1000, 128), 0b1111);
        assert_eq!(c.sectors_of(0x107c, 8), 0b1000, "clipped to the line");
        let l = c.line_of(0x1000);
        let (w, _) = c.allocate(l, false).unwrap();
        c.write(l, w, 0b0010, true);
        assert_eq!(c.lookup(l, 0b0010), Lookup::Hit(w));
        assert_eq!(c.lookup(l, 0b0011), Lookup::SectorMiss(w));
        let (_, ev) = c.allocate(l + 4, false).unwrap();
        assert_eq!(ev.unwrap().dirty, 0b0010);
    }

    #[test]
    fn hashed_index_spreads_strided_lines() {
        let mut hc = cfg(32, 4);
        hc.index = "hashed".into();
        let h = Cache::new(&hc);
        let l = Cache::new(&cfg(32, 4));
        // Lines 32 apart all map to set 0 linearly but spread under the hash.
        let lin: std::collections::BTreeSet<usize> = (0..32).map(|i| l.set_of(i * 32)).collect();
        let hsh: std::collections::BTreeSet<usize> = (0..32).map(|i| h.set_of(i * 32)).collect();
        assert_eq!(lin.len(), 1);
        assert!(hsh.len() >= 16, "{}", hsh.len());
    }

    #[test]
    fn mshr_merges_and_bounds() {
        let mut m: Mshr<u32> = Mshr::new(2, 2);
        let e = m.open(7, 1);
        assert!(m.can_merge(e));
        m.merge(e, 2);
        assert!(!m.can_merge(e));
        m.open(8, 3);
        assert!(!m.has_free());
        let mut got = vec![];
        assert!(m.close(7, |w| got.push(w)));
        assert_eq!(got, vec![1, 2]);
        assert!(m.has_free());
        assert!(m.find(7).is_none());
    }

    #[test]
    fn mshr_pool_reuses_nodes_and_keeps_arrival_order() {
        let mut m: Mshr<u32> = Mshr::new(1024, 1024);
        for round in 0..3u32 {
            // Two entries with interleaved waiters.
            let a = m.open(1, round * 10);
            let b = m.open(2, round * 10 + 1);
            for k in 2..6 {
                m.merge(if k % 2 == 0 { a } else { b }, round * 10 + k);
            }
            let (mut ga, mut gb) = (vec![], vec![]);
            assert!(m.close(2, |w| gb.push(w)));
            assert!(m.close(1, |w| ga.push(w)));
            let r = round * 10;
            assert_eq!(ga, vec![r, r + 2, r + 4]);
            assert_eq!(gb, vec![r + 1, r + 3, r + 5]);
            assert_eq!(m.used(), 0);
            // Six waiters at most were ever outstanding: the pool did not grow past them.
            assert_eq!(m.pool.len(), 6);
        }
    }
}
