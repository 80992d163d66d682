//! An SM-side cache unit (L1D or constant cache): tag store + MSHRs + miss queue + insertion
//! (bypass) policy (spec 000 §8.1 item 3). One access per call; the caller (LD/ST unit) retries a
//! refused access next cycle (a reservation-failure stall).
//!
//! Decisions: a read miss that allocates fetches the whole line; a bypassed read fetches only the
//! span of its sectors and does not merge with other misses; a read that finds its line pending
//! merges into the MSHR entry (counted as a miss); atomics always go to the L2 (the L1 copy, if
//! any, is invalidated) and return to their waiter directly. The insertion policy decides once
//! per miss: a miss refused for lack of resources keeps its decision for its retry (the LD/ST
//! unit retries the same access until it is accepted), so stateful policies such as Ctrl-C
//! count each miss once. Lines leaving by replacement or by a write-evict / atomic
//! invalidation are reported to the policy with their reuse bit and inserting PC.

use super::cache::{Cache, Evicted, Lookup, Mshr, WritePolicy};
use super::coalesce::Txn;
use super::insertion::{pc_index, Insertion, MissInfo, Policy};
use super::req::{MemReq, ReqKind, ReqSrc};
use super::reuse::ReuseObserver;
use crate::config::CacheConfig;
use crate::dram::addrmap::AddrMap;
use crate::stats::{CacheStats, PcProfile, ReuseStats};
use std::collections::{HashMap, HashSet, VecDeque};

/// Kind of an access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessKind {
    /// Load.
    Load,
    /// Store.
    Store,
    /// Atomic.
    Atomic,
}

/// Outcome of an access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Data present: the waiter completes after the hit latency (stores: done).
    Hit,
    /// Sent on or merged: the waiter completes when the reply arrives (stores: done).
    Miss,
    /// Refused (no MSHR, merge slot, miss-queue slot or free way): retry later.
    Fail,
}

/// The unit.
pub struct L1 {
    /// Tags.
    pub cache: Cache,
    mshr: Mshr<u32>,
    /// Requests waiting for the interconnect.
    pub miss_queue: VecDeque<MemReq>,
    mq_cap: usize,
    insertion: Policy,
    write: WritePolicy,
    src: ReqSrc,
    /// `perfect`: every read hits.
    perfect: bool,
    sector_bytes: u64,
    /// Hit latency, core cycles.
    pub latency: u32,
    /// Counters.
    pub stats: CacheStats,
    /// Reuse distances of accepted loads (only with [`L1::observe_reuse`]).
    pub reuse_stats: ReuseStats,
    reuse: Option<Box<ReuseObserver>>,
    /// Per-load-PC profile (only with [`L1::observe_reuse`]).
    pub pc_profile: Option<Box<PcProfile>>,
    /// The decision of a refused miss, kept for its retry: (line, pc, warp, bypass).
    pending: Option<(u64, u64, u32, bool)>,
    /// Per-warp reuse outcomes (only with [`L1::observe_warp_reuse`]).
    warp_reuse: Option<Box<WarpReuse>>,
    /// Sector fetch (`sector_fetch`): a miss fetches only the sectors it needs.
    sector_fetch: bool,
    /// Sector fetch: the sectors of each reserved line still being fetched.
    fetching: HashMap<u64, u8>,
    /// Stores allocate lines (`store_allocate`).
    store_allocate: bool,
    /// Allocate on fill (`allocate_on_fill`): the access of each line awaiting its fill.
    on_fill: Option<HashMap<u64, MissInfo>>,
}

/// Per-warp-slot reuse outcomes of loads, counted in blocks (spec 000 §4.1, claim 6: "more
/// than 60% of the critical warps' potentially reusable L1D blocks are evicted before reuse").
/// Warp slot `w` re-references a line the cache has held before: the block was *served* to
/// `w` when the line is still there (a hit, or a merge into its pending miss; counted once per
/// warp and residency of the line, however often `w` hits it) and *lost* when the line was
/// evicted (capacity or conflict) since (counted once per eviction, for the warp that comes
/// back for it); a first reference is neither. Lines invalidated by stores are not evictions:
/// their next miss counts as neither.
#[derive(Debug)]
struct WarpReuse {
    /// Lines evicted and not fetched again since.
    gone: HashSet<u64>,
    /// Per resident line, the warp slots already counted as served in this residency.
    served_to: HashMap<u64, u64>,
    served: [u64; 64],
    lost: [u64; 64],
}

impl Default for WarpReuse {
    fn default() -> Self {
        Self {
            gone: HashSet::new(),
            served_to: HashMap::new(),
            served: [0; 64],
            lost: [0; 64],
        }
    }
}

impl L1 {
    /// A unit as configured, returning replies tagged `src`.
    pub fn new(c: &CacheConfig, src: ReqSrc) -> Self {
        Self {
            cache: Cache::new(c),
            mshr: Mshr::new(c.mshr_entries as usize, c.mshr_merge as usize),
            miss_queue: VecDeque::with_capacity(c.miss_queue as usize),
            mq_cap: c.miss_queue as usize,
            insertion: Policy::new(&c.insertion).expect("validated insertion"),
            write: WritePolicy::parse(&c.write_policy).expect("validated write policy"),
            src,
            perfect: c.perfect,
            sector_bytes: c.sector_bytes as u64,
            latency: c.latency,
            stats: CacheStats::default(),
            reuse_stats: ReuseStats::default(),
            reuse: None,
            pc_profile: None,
            pending: None,
            warp_reuse: None,
            sector_fetch: c.sector_fetch,
            fetching: HashMap::new(),
            store_allocate: c.store_allocate,
            on_fill: c.allocate_on_fill.then(HashMap::new),
        }
    }

    /// Whether the insertion or the replacement policy reads the CPL criticality bit of the
    /// accesses (`reads_criticality`): the SM then runs CPL.
    pub fn reads_criticality(&self) -> bool {
        self.insertion.reads_criticality() || self.cache.reads_criticality()
    }

    /// Starts counting each warp slot's served and lost reuses ([`L1::take_warp_reuse`]).
    pub fn observe_warp_reuse(&mut self) {
        self.warp_reuse = Some(Box::default());
    }

    /// Warp slot `w`'s (served, lost) reuses since the last call, and resets them (the slot's
    /// warp retired). `(0, 0)` unless [`L1::observe_warp_reuse`].
    pub fn take_warp_reuse(&mut self, w: usize) -> (u64, u64) {
        match &mut self.warp_reuse {
            Some(r) if w < 64 => {
                // The slot's next warp starts with no block counted.
                for m in r.served_to.values_mut() {
                    *m &= !(1u64 << w);
                }
                (
                    std::mem::take(&mut r.served[w]),
                    std::mem::take(&mut r.lost[w]),
                )
            }
            _ => (0, 0),
        }
    }

    /// Gives the (flushed) tag store geometry `c` unless it has it already: the carve-out of a
    /// unified L1/shared array changes the ways at a launch. Statistics are kept.
    pub fn resize(&mut self, c: &CacheConfig) {
        if self.cache.num_sets() == c.sets as usize && self.cache.ways() == c.ways as usize {
            return;
        }
        self.cache = Cache::new(c);
        self.fetching.clear();
        if self.reuse.is_some() {
            self.reuse = Some(Box::new(ReuseObserver::new(self.cache.num_sets())));
        }
    }

    /// Starts counting reuse distances of loads (`reuse_stats`) and the per-PC profile.
    pub fn observe_reuse(&mut self) {
        self.pc_profile = Some(Box::default());
        self.reuse = Some(Box::new(ReuseObserver::new(self.cache.num_sets())));
    }

    fn evicted(&mut self, ev: &Evicted) {
        self.stats.evictions += 1;
        self.stats.evictions_unreused += u64::from(!ev.reused);
        self.left(ev);
        if let Some(r) = &mut self.warp_reuse {
            r.gone.insert(ev.line);
        }
    }

    /// A line left the cache (evicted or invalidated): the policy and the profile learn of it.
    fn left(&mut self, ev: &Evicted) {
        if let Some(r) = &mut self.warp_reuse {
            r.gone.remove(&ev.line);
            r.served_to.remove(&ev.line);
        }
        self.insertion.on_evict(ev);
        if let Some(p) = &mut self.pc_profile {
            let i = pc_index(ev.pc);
            p.evictions[i] += 1;
            p.evictions_unreused[i] += u64::from(!ev.reused);
        }
    }

    fn mq_free(&self) -> usize {
        self.mq_cap - self.miss_queue.len()
    }

    /// Whether misses are outstanding or queued.
    pub fn busy(&self) -> bool {
        self.mshr.used() > 0 || !self.miss_queue.is_empty()
    }

    fn req(&self, addr: u64, bytes: u32, kind: ReqKind, sm: u16, map: &AddrMap) -> MemReq {
        MemReq {
            addr,
            bytes,
            kind,
            src: self.src,
            bypass: false,
            sm,
            slice: map.slice(addr) as u16,
            id: 0,
            born: 0,
            crit: false,
            miss_pc: 0,
        }
    }

    /// Sends the sectors of `t` on without touching the tags (caller checked the miss queue):
    /// a bypassed read, an atomic (both answered to `waiter` without filling) or a store around
    /// a cache that skips stores (acknowledged to `waiter`); counted as an access that missed.
    fn send_around(
        &mut self,
        t: &Txn,
        kind: ReqKind,
        waiter: u32,
        sm: u16,
        map: &AddrMap,
    ) -> Outcome {
        let (a, b) = self.span(t);
        if kind == ReqKind::Read {
            self.stats.sector_misses += u64::from(t.sectors.count_ones());
            self.stats.sectors_fetched += u64::from(b) / self.sector_bytes;
        }
        let mut r = self.req(a, b, kind, sm, map);
        r.bypass = kind != ReqKind::Write;
        r.id = waiter;
        self.miss_queue.push_back(r);
        self.stats.accesses += 1;
        self.stats.misses += 1;
        Outcome::Miss
    }

    /// Sector fetch: one read for the span of sectors `need` of the line at byte address `la`
    /// (the L2 splits it into sector requests when it has `sector_requests`).
    fn fetch_sectors(&mut self, la: u64, need: u8, sm: u16, map: &AddrMap) {
        let t = Txn {
            line_addr: la,
            sectors: need,
            lanes: 0,
        };
        let (a, b) = self.span(&t);
        self.stats.sectors_fetched += u64::from(b) / self.sector_bytes;
        let r = self.req(a, b, ReqKind::Read, sm, map);
        self.miss_queue.push_back(r);
    }

    fn span(&self, t: &Txn) -> (u64, u32) {
        let first = t.sectors.trailing_zeros() as u64;
        let last = 7 - t.sectors.leading_zeros() as u64;
        (
            t.line_addr + first * self.sector_bytes,
            ((last - first + 1) * self.sector_bytes) as u32,
        )
    }

    /// One access for transaction `t` on behalf of `waiter` (a load tracker), issued by `warp`
    /// at `pc`; `critical` is the warp's CPL criticality bit (spec 000 §4.3), carried to the
    /// policies and counted in `critical_accesses` / `critical_hits` for loads.
    #[allow(clippy::too_many_arguments)]
    pub fn access(
        &mut self,
        t: &Txn,
        kind: AccessKind,
        waiter: u32,
        pc: u64,
        warp: u32,
        critical: bool,
        sm: u16,
        map: &AddrMap,
    ) -> Outcome {
        let line = self.cache.line_of(t.line_addr);
        match kind {
            AccessKind::Load => {
                let info = MissInfo {
                    pc,
                    line,
                    warp,
                    critical,
                };
                let merged = self.stats.merged;
                let out = self.load(t, &info, waiter, sm, map);
                if out != Outcome::Fail {
                    self.pending = None;
                    if let Some(r) = &mut self.warp_reuse {
                        let w = (warp as usize).min(63);
                        if out == Outcome::Hit || self.stats.merged != merged {
                            let m = r.served_to.entry(line).or_insert(0);
                            if *m & (1u64 << w) == 0 {
                                *m |= 1u64 << w;
                                r.served[w] += 1;
                            }
                        } else if r.gone.remove(&line) {
                            r.lost[w] += 1;
                        }
                    }
                    self.stats.loads += 1;
                    self.stats.sector_lookups += u64::from(t.sectors.count_ones());
                    if out == Outcome::Hit {
                        self.stats.load_hits += 1;
                    }
                    if critical {
                        self.stats.critical_accesses += 1;
                        if out == Outcome::Hit {
                            self.stats.critical_hits += 1;
                        }
                    }
                    if let Some(o) = &mut self.reuse {
                        o.access(self.cache.set_of(line), line, &mut self.reuse_stats);
                    }
                    if let (Some(p), Outcome::Miss) = (&mut self.pc_profile, out) {
                        p.misses[pc_index(pc)] += 1;
                    }
                }
                out
            }
            AccessKind::Store => self.store(t, line, waiter, sm, map),
            AccessKind::Atomic => {
                if self.mq_free() == 0 {
                    self.stats.reservation_fails += 1;
                    return Outcome::Fail;
                }
                if let Some(ev) = self.cache.remove(line) {
                    self.left(&ev);
                }
                self.send_around(t, ReqKind::Atomic, waiter, sm, map)
            }
        }
    }

    fn load(&mut self, t: &Txn, info: &MissInfo, waiter: u32, sm: u16, map: &AddrMap) -> Outcome {
        if self.perfect {
            // `perfect`: the data is always here (GPGPU-Sim's perfect instruction and
            // constant cache), so no line is looked up, allocated or fetched.
            self.stats.accesses += 1;
            self.stats.hits += 1;
            return Outcome::Hit;
        }
        let (line, pc, warp) = (info.line, info.pc, info.warp);
        let la = line * self.cache.line_bytes();
        let look = self.cache.lookup(line, t.sectors);
        if self.on_fill.is_some() && !matches!(look, Lookup::Hit(_)) {
            if let Some(e) = self.mshr.find(line) {
                // Allocate on fill: the line's miss is outstanding, nothing is reserved.
                return self.merge(t, line, e, waiter, sm, map);
            }
        }
        match look {
            Lookup::Hit(w) => {
                self.cache.touch_by(line, w, info);
                self.stats.accesses += 1;
                self.stats.hits += 1;
                Outcome::Hit
            }
            Lookup::Pending(_) => match self.mshr.find(line) {
                Some(e) => self.merge(t, line, e, waiter, sm, map),
                None => {
                    self.stats.reservation_fails += 1;
                    Outcome::Fail
                }
            },
            look @ (Lookup::SectorMiss(_) | Lookup::Miss) => {
                let bypass = match self.pending.take() {
                    Some((l, p, w, b)) if (l, p, w) == (line, pc, warp) => b,
                    _ => self.insertion.bypass(info),
                };
                if bypass {
                    if self.mq_free() == 0 {
                        self.stats.reservation_fails += 1;
                        self.pending = Some((line, pc, warp, true));
                        return Outcome::Fail;
                    }
                    self.stats.bypassed += 1;
                    return self.send_around(t, ReqKind::Read, waiter, sm, map);
                }
                let need_mq = if self.write == WritePolicy::WriteBack {
                    2
                } else {
                    1
                };
                let ok = self.mshr.has_free()
                    && self.mq_free() >= need_mq
                    && (matches!(look, Lookup::SectorMiss(_))
                        || self.on_fill.is_some()
                        || self.cache.can_allocate_for(info));
                if !ok {
                    self.stats.reservation_fails += 1;
                    self.pending = Some((line, pc, warp, false));
                    return Outcome::Fail;
                }
                match look {
                    _ if self.on_fill.is_some() => {
                        // Allocate on fill: the victim is chosen when the data arrives.
                        if let Some(m) = &mut self.on_fill {
                            m.insert(line, *info);
                        }
                    }
                    Lookup::SectorMiss(w) => self.cache.reserve(line, w),
                    _ => {
                        let (w, ev) = self.cache.allocate_for(info, true).expect("checked");
                        self.cache.set_pc(line, w, pc);
                        self.stats.fills += 1;
                        if self.cache.in_critical_partition(w) {
                            self.stats.critical_fills += 1;
                        }
                        if let Some(ev) = ev {
                            self.evicted(&ev);
                            // A write-through L1D's stored sectors are already in the L2.
                            if ev.dirty != 0 && self.write == WritePolicy::WriteBack {
                                self.stats.writebacks += 1;
                                let lb = self.cache.line_bytes();
                                let r = self.req(ev.line * lb, lb as u32, ReqKind::Write, sm, map);
                                self.miss_queue.push_back(r);
                            }
                        }
                    }
                }
                self.mshr.open(line, waiter);
                let valid = match look {
                    Lookup::SectorMiss(w) => self.cache.valid_sectors(line, w),
                    _ => 0,
                };
                let need = t.sectors & !valid;
                self.stats.sector_misses += u64::from(need.count_ones());
                if self.sector_fetch {
                    self.fetch_sectors(la, need, sm, map);
                    self.fetching.insert(line, need);
                } else {
                    let lb = self.cache.line_bytes();
                    self.stats.sectors_fetched += lb / self.sector_bytes;
                    let r = self.req(la, lb as u32, ReqKind::Read, sm, map);
                    self.miss_queue.push_back(r);
                }
                self.stats.accesses += 1;
                self.stats.misses += 1;
                Outcome::Miss
            }
        }
    }

    /// A store. Write-through and write-evict send the data on (tagged with `waiter`, which the
    /// L2 acknowledges when it carries [`super::req::ACK`]) and return `Miss`; write-back keeps it
    /// and returns `Hit`.
    fn store(&mut self, t: &Txn, line: u64, waiter: u32, sm: u16, map: &AddrMap) -> Outcome {
        if self.write != WritePolicy::WriteBack && self.insertion.skips_stores() {
            // The cache is off for global accesses: the store goes around it.
            if self.mq_free() == 0 {
                self.stats.reservation_fails += 1;
                return Outcome::Fail;
            }
            self.stats.writes += 1;
            self.stats.bypassed += 1;
            return self.send_around(t, ReqKind::Write, waiter, sm, map);
        }
        let look = self.cache.lookup(line, t.sectors);
        let hit = matches!(look, Lookup::Hit(_));
        if self.write == WritePolicy::WriteBack {
            match look {
                Lookup::Hit(w) | Lookup::SectorMiss(w) | Lookup::Pending(w) => {
                    self.cache.write(line, w, t.sectors, true);
                }
                Lookup::Miss => {
                    if self.mq_free() == 0 || !self.cache.can_allocate(line) {
                        self.stats.reservation_fails += 1;
                        return Outcome::Fail;
                    }
                    let (w, ev) = self.cache.allocate(line, false).expect("checked");
                    if let Some(ev) = ev {
                        self.evicted(&ev);
                        if ev.dirty != 0 {
                            self.stats.writebacks += 1;
                            let lb = self.cache.line_bytes();
                            let r = self.req(ev.line * lb, lb as u32, ReqKind::Write, sm, map);
                            self.miss_queue.push_back(r);
                        }
                    }
                    self.cache.write(line, w, t.sectors, true);
                }
            }
        } else {
            if self.mq_free() == 0 {
                self.stats.reservation_fails += 1;
                return Outcome::Fail;
            }
            match (self.write, look) {
                (WritePolicy::WriteThrough, Lookup::Pending(w)) if self.store_allocate => {
                    self.cache.write(line, w, t.sectors, true)
                }
                (WritePolicy::WriteThrough, Lookup::Hit(w) | Lookup::SectorMiss(w)) => {
                    self.cache.write(line, w, t.sectors, self.store_allocate)
                }
                (WritePolicy::WriteThrough, Lookup::Miss) if self.store_allocate => {
                    // Write-validate: the line is allocated for the stored sectors, unfetched;
                    // with every way reserved the store only goes on.
                    if let Some((w, ev)) = self.cache.allocate(line, false) {
                        if let Some(ev) = ev {
                            self.evicted(&ev);
                        }
                        self.cache.write(line, w, t.sectors, true);
                    }
                }
                (WritePolicy::WriteEvict, Lookup::Hit(_) | Lookup::SectorMiss(_)) => {
                    if let Some(ev) = self.cache.remove(line) {
                        self.left(&ev);
                    }
                }
                _ => {}
            }
            let (a, b) = self.span(t);
            let mut r = self.req(a, b, ReqKind::Write, sm, map);
            r.id = waiter;
            self.miss_queue.push_back(r);
        }
        self.stats.accesses += 1;
        self.stats.writes += 1;
        if hit {
            self.stats.hits += 1;
        } else {
            self.stats.misses += 1;
        }
        if self.write == WritePolicy::WriteBack {
            Outcome::Hit
        } else {
            Outcome::Miss
        }
    }

    /// A reply arrived: fills the line (unless bypassed) and calls `wake` for every waiter.
    pub fn fill(&mut self, r: &MemReq, mut wake: impl FnMut(u32)) {
        if r.bypass {
            wake(r.id);
            return;
        }
        let line = self.cache.line_of(r.addr);
        if let Some(m) = &self.on_fill {
            // Allocate on fill: a line not (or no longer) present gets its way now.
            if matches!(self.cache.lookup(line, 0), Lookup::Miss) {
                let info = m.get(&line).copied().unwrap_or(MissInfo::line_only(line));
                if let Some((w, ev)) = self.cache.allocate_for(&info, false) {
                    self.cache.set_pc(line, w, info.pc);
                    if let Some(ev) = ev {
                        self.evicted(&ev);
                    }
                }
            }
        }
        if self.sector_fetch {
            let got = self.cache.sectors_of(r.addr, r.bytes);
            if !self.cache.sectors_arrived(&mut self.fetching, line, got) {
                return; // more sectors of the line are on their way
            }
        } else {
            let full = self.cache.full_mask();
            self.cache.fill(line, full);
        }
        if let Some(m) = &mut self.on_fill {
            m.remove(&line);
        }
        self.mshr.close(line, wake);
    }

    /// A read of `line` whose miss (MSHR entry `e`) is outstanding merges into it; with sector
    /// fetch the sectors neither valid nor on their way are fetched now, and the entry wakes its
    /// waiters when all of its sectors have arrived.
    fn merge(
        &mut self,
        t: &Txn,
        line: u64,
        e: usize,
        waiter: u32,
        sm: u16,
        map: &AddrMap,
    ) -> Outcome {
        if !self.mshr.can_merge(e) {
            self.stats.reservation_fails += 1;
            return Outcome::Fail;
        }
        if self.sector_fetch {
            let valid = match self.cache.lookup(line, 0) {
                Lookup::Hit(w) | Lookup::Pending(w) | Lookup::SectorMiss(w) => {
                    self.cache.valid_sectors(line, w)
                }
                Lookup::Miss => 0,
            };
            let on_way = self.fetching.get(&line).copied().unwrap_or(0);
            let need = t.sectors & !on_way & !valid;
            if need != 0 {
                if self.mq_free() == 0 {
                    self.stats.reservation_fails += 1;
                    return Outcome::Fail;
                }
                let la = line * self.cache.line_bytes();
                self.stats.sector_misses += u64::from(need.count_ones());
                self.fetch_sectors(la, need, sm, map);
                *self.fetching.entry(line).or_insert(0) |= need;
            }
        }
        self.mshr.merge(e, waiter);
        self.stats.accesses += 1;
        self.stats.misses += 1;
        self.stats.merged += 1;
        Outcome::Miss
    }

    /// Kernel boundary: invalidates every line not awaiting a fill.
    pub fn flush(&mut self) {
        self.cache.invalidate_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem::req::ACK;

    fn setup() -> (L1, AddrMap) {
        let g = crate::GpuConfig::preset("gtx480").unwrap();
        (
            L1::new(&g.l1d, ReqSrc::L1d),
            AddrMap::new(&g.dram, 1).unwrap(),
        )
    }

    fn txn(a: u64) -> Txn {
        Txn {
            line_addr: a,
            sectors: 0b1111,
            lanes: !0,
        }
    }

    /// `sector_fetch`: misses fetch only the sectors they touch; a second miss to other
    /// sectors of a pending line fetches those too, and the line's waiters wake when both
    /// have arrived; a later sector miss of the valid line fetches only its sector.
    #[test]
    fn sector_fetch_fetches_only_missing_sectors() {
        let g = crate::GpuConfig::preset("gtx480").unwrap();
        let mut c = g.l1d.clone();
        c.sector_fetch = true;
        let (mut l1, m) = (L1::new(&c, ReqSrc::L1d), AddrMap::new(&g.dram, 1).unwrap());
        let t = |sectors| Txn {
            line_addr: 0x1000,
            sectors,
            lanes: 1,
        };
        let load = |l1: &mut L1, s, w| l1.access(&t(s), AccessKind::Load, w, 0, 0, false, 0, &m);
        assert_eq!(load(&mut l1, 0b0001, 1), Outcome::Miss);
        assert_eq!(load(&mut l1, 0b0010, 2), Outcome::Miss);
        assert_eq!(
            load(&mut l1, 0b0011, 3),
            Outcome::Miss,
            "merged, nothing new"
        );
        let reqs: Vec<MemReq> = l1.miss_queue.drain(..).collect();
        let spans: Vec<(u64, u32)> = reqs.iter().map(|r| (r.addr, r.bytes)).collect();
        assert_eq!(spans, [(0x1000, 32), (0x1020, 32)]);
        let mut woken = vec![];
        l1.fill(&reqs[0], |w| woken.push(w));
        assert!(woken.is_empty(), "sector 1 is still on its way");
        l1.fill(&reqs[1], |w| woken.push(w));
        assert_eq!(woken, [1, 2, 3]);
        assert_eq!(load(&mut l1, 0b0011, 4), Outcome::Hit);
        assert_eq!(load(&mut l1, 0b1100, 5), Outcome::Miss);
        let r = l1.miss_queue.pop_front().unwrap();
        assert_eq!((r.addr, r.bytes), (0x1040, 64));
        // Without sector fetch the same first miss fetches the whole line.
        let (mut whole, _) = setup();
        whole.access(&t(0b0001), AccessKind::Load, 1, 0, 0, false, 0, &m);
        let r = whole.miss_queue.pop_front().unwrap();
        assert_eq!((r.addr, r.bytes), (0x1000, 128));
    }

    /// Sector fetch, the case of two warps reading different sectors of one cold line back to
    /// back: one line allocation, one fetch per sector, no eviction, no refusal; a third read
    /// of both sectors while they are on their way merges (an access `misses`, but no sector
    /// miss: Nsight Compute's `lookup_miss` counts those as hits) and fetches nothing; every
    /// waiter wakes when both sectors are in, and the line then hits. Without sector fetch the
    /// first miss fetches the whole line (4 sectors) and the second read is a merge.
    #[test]
    fn sector_misses_of_one_line_share_its_allocation() {
        let (mut l1, m) = with(|c| c.sector_fetch = true);
        let load = |l1: &mut L1, s, w| {
            let t = Txn {
                line_addr: 0x2000,
                sectors: s,
                lanes: 1,
            };
            l1.access(&t, AccessKind::Load, w, 0, w, false, 0, &m)
        };
        assert_eq!(load(&mut l1, 0b0001, 1), Outcome::Miss);
        assert_eq!(load(&mut l1, 0b0100, 2), Outcome::Miss);
        assert_eq!(load(&mut l1, 0b0101, 3), Outcome::Miss);
        let s = l1.stats;
        assert_eq!((s.fills, s.evictions, s.reservation_fails), (1, 0, 0));
        assert_eq!((s.misses, s.merged), (3, 2));
        assert_eq!(
            (s.sector_lookups, s.sector_misses, s.sectors_fetched),
            (4, 2, 2)
        );
        let reqs: Vec<MemReq> = l1.miss_queue.drain(..).collect();
        let spans: Vec<(u64, u32)> = reqs.iter().map(|r| (r.addr, r.bytes)).collect();
        assert_eq!(spans, [(0x2000, 32), (0x2040, 32)]);
        let mut woken = vec![];
        for r in &reqs {
            l1.fill(r, |w| woken.push(w));
        }
        assert_eq!(woken, [1, 2, 3]);
        assert_eq!(load(&mut l1, 0b0101, 4), Outcome::Hit);
        assert_eq!((l1.stats.sector_misses, l1.stats.sectors_fetched), (2, 2));
        assert_eq!(l1.stats.sector_lookups, 6);

        let (mut whole, _) = with(|c| c.sector_fetch = false);
        assert_eq!(load(&mut whole, 0b0001, 1), Outcome::Miss);
        assert_eq!(load(&mut whole, 0b0100, 2), Outcome::Miss);
        let s = whole.stats;
        assert_eq!((s.fills, s.merged, s.evictions), (1, 1, 0));
        assert_eq!((s.sector_misses, s.sectors_fetched), (1, 4));
        assert_eq!(whole.miss_queue.len(), 1);
    }

    /// A gtx480 L1D changed by `f`, with its address map.
    fn with(f: impl FnOnce(&mut CacheConfig)) -> (L1, AddrMap) {
        let g = crate::GpuConfig::preset("gtx480").unwrap();
        let mut c = g.l1d.clone();
        f(&mut c);
        crate::check::validate_cache("l1d", &c).unwrap();
        (L1::new(&c, ReqSrc::L1d), AddrMap::new(&g.dram, 1).unwrap())
    }

    fn store(l1: &mut L1, a: u64, sectors: u8, m: &AddrMap) -> Outcome {
        let t = Txn {
            line_addr: a,
            sectors,
            lanes: !0,
        };
        l1.access(
            &t,
            AccessKind::Store,
            crate::mem::req::ACK,
            0,
            0,
            false,
            0,
            m,
        )
    }

    fn load_at(l1: &mut L1, a: u64, sectors: u8, m: &AddrMap) -> Outcome {
        let t = Txn {
            line_addr: a,
            sectors,
            lanes: !0,
        };
        l1.access(&t, AccessKind::Load, 1, 0, 0, false, 0, m)
    }

    #[test]
    fn store_allocate_keeps_stored_sectors_without_fetching() {
        for alloc in [false, true] {
            let (mut l1, m) = with(|c| {
                c.write_policy = "write_through".into();
                c.store_allocate = alloc;
            });
            assert_eq!(store(&mut l1, 0x4000, 0b0011, &m), Outcome::Miss, "sent on");
            let w = l1.miss_queue.pop_front().unwrap();
            assert_eq!((w.kind, w.addr, w.bytes), (ReqKind::Write, 0x4000, 64));
            assert!(l1.miss_queue.is_empty(), "nothing fetched");
            // The stored sectors are readable only when stores allocate.
            let want = if alloc { Outcome::Hit } else { Outcome::Miss };
            assert_eq!(load_at(&mut l1, 0x4000, 0b0011, &m), want, "alloc {alloc}");
            assert_eq!(l1.cache.dirty_lines(), usize::from(alloc));
        }
        // Evicting a stored line of a write-through cache writes nothing back (the store
        // already went on): fill the stored line's set (4 ways, 32 hashed sets) with reads.
        let (mut l1, m) = with(|c| {
            c.write_policy = "write_through".into();
            c.index = "linear".into();
            c.store_allocate = true;
        });
        store(&mut l1, 0, 0b1111, &m);
        l1.miss_queue.clear();
        for i in 1..=4u64 {
            assert_eq!(load_at(&mut l1, i * 32 * 128, 0b1111, &m), Outcome::Miss);
            let r = l1.miss_queue.pop_front().unwrap();
            assert_eq!(r.kind, ReqKind::Read);
            assert!(l1.miss_queue.is_empty(), "no write-back");
            l1.fill(&r, |_| {});
        }
        assert_eq!(l1.stats.evictions, 1);
        assert_eq!(l1.cache.dirty_lines(), 0);
    }

    #[test]
    fn write_ratio_evicts_clean_lines_first_until_the_ratio() {
        // 1 set of 4 ways (4 lines): a stored line is a victim only once 50% of lines hold
        // stored sectors. Line 0 is stored first (LRU), lines 1-3 are read; line 4's read
        // evicts the LRU line, 0, without the ratio and 1 with it.
        for (ratio, victim) in [(0, 0u64), (50, 1)] {
            let (mut l1, m) = with(|c| {
                c.write_policy = "write_through".into();
                c.sets = 1;
                c.store_allocate = true;
                c.write_ratio = ratio;
            });
            store(&mut l1, 0, 0b1111, &m);
            l1.miss_queue.clear();
            for i in 1..=4u64 {
                load_at(&mut l1, i * 128, 0b1111, &m);
                let r = l1.miss_queue.pop_front().unwrap();
                l1.fill(&r, |_| {});
            }
            for i in 0..=4u64 {
                let present = l1.cache.lookup(i, 0) != Lookup::Miss;
                assert_eq!(present, i != victim, "ratio {ratio}: line {i}");
            }
        }
        // At the ratio, stored lines are candidates again: two of four stored lines (50%), the
        // LRU stored line goes.
        let (mut l1, m) = with(|c| {
            c.write_policy = "write_through".into();
            c.sets = 1;
            c.store_allocate = true;
            c.write_ratio = 50;
        });
        store(&mut l1, 0, 0b1111, &m);
        store(&mut l1, 128, 0b1111, &m);
        l1.miss_queue.clear();
        for i in 2..=4u64 {
            load_at(&mut l1, i * 128, 0b1111, &m);
            let r = l1.miss_queue.pop_front().unwrap();
            l1.fill(&r, |_| {});
        }
        assert_eq!(
            l1.cache.lookup(0, 0),
            Lookup::Miss,
            "LRU stored line evicted"
        );
        assert_eq!(l1.cache.dirty_lines(), 1);
        // Every line stored, below the ratio: the policy's victim among them (no refusal).
        let (mut l1, m) = with(|c| {
            c.write_policy = "write_through".into();
            c.sets = 2;
            c.index = "linear".into();
            c.store_allocate = true;
            c.write_ratio = 100;
        });
        for i in 0..4u64 {
            store(&mut l1, i * 256, 0b1111, &m);
        }
        assert_eq!(load_at(&mut l1, 4 * 256, 0b1111, &m), Outcome::Miss);
        assert_eq!(
            l1.cache.lookup(0, 0),
            Lookup::Miss,
            "LRU stored line evicted"
        );
    }

    #[test]
    fn allocate_on_fill_never_waits_for_a_way() {
        // One set of one way: with allocation on miss the second line's miss waits for the
        // first's fill (its way is reserved); on fill both go out, the later fill wins the way.
        for on_fill in [false, true] {
            let (mut l1, m) = with(|c| {
                c.write_policy = "write_through".into();
                c.sets = 1;
                c.ways = 1;
                c.allocate_on_fill = on_fill;
            });
            assert_eq!(load_at(&mut l1, 0, 0b1111, &m), Outcome::Miss);
            let second = load_at(&mut l1, 128, 0b1111, &m);
            if !on_fill {
                assert_eq!(second, Outcome::Fail);
                assert_eq!(l1.stats.reservation_fails, 1);
                continue;
            }
            assert_eq!(second, Outcome::Miss);
            // A third read of line 0 merges into its outstanding miss (no new request).
            assert_eq!(load_at(&mut l1, 0, 0b1111, &m), Outcome::Miss);
            assert_eq!((l1.stats.merged, l1.miss_queue.len()), (1, 2));
            let (a, b) = (
                l1.miss_queue.pop_front().unwrap(),
                l1.miss_queue.pop_front().unwrap(),
            );
            let mut woke = vec![];
            l1.fill(&a, |w| woke.push(w));
            assert_eq!(woke.len(), 2);
            assert_eq!(load_at(&mut l1, 0, 0b1111, &m), Outcome::Hit);
            l1.fill(&b, |w| woke.push(w));
            assert_eq!(woke.len(), 3);
            assert_eq!(load_at(&mut l1, 128, 0b1111, &m), Outcome::Hit);
            assert_eq!(l1.cache.lookup(0, 0), Lookup::Miss, "evicted at the fill");
            assert_eq!(l1.stats.evictions, 1);
        }
    }

    #[test]
    fn miss_merge_fill_hit() {
        let (mut l1, m) = setup();
        assert_eq!(
            l1.access(&txn(0x1000), AccessKind::Load, 1, 0, 0, false, 0, &m),
            Outcome::Miss
        );
        assert_eq!(
            l1.access(&txn(0x1000), AccessKind::Load, 2, 0, 0, false, 0, &m),
            Outcome::Miss
        );
        assert_eq!(l1.miss_queue.len(), 1, "merged, one request");
        assert_eq!(l1.stats.merged, 1);
        let r = l1.miss_queue.pop_front().unwrap();
        assert_eq!((r.addr, r.bytes, r.kind), (0x1000, 128, ReqKind::Read));
        let mut woke = vec![];
        l1.fill(
            &MemReq {
                kind: ReqKind::Reply,
                ..r
            },
            |w| woke.push(w),
        );
        assert_eq!(woke, vec![1, 2]);
        assert_eq!(
            l1.access(&txn(0x1000), AccessKind::Load, 3, 0, 0, false, 0, &m),
            Outcome::Hit
        );
        assert_eq!(
            (l1.stats.accesses, l1.stats.hits, l1.stats.misses),
            (3, 1, 2)
        );
    }

    #[test]
    fn mshr_and_miss_queue_limits_cause_reservation_failures() {
        let (mut l1, m) = setup();
        // Miss queue holds 8: the ninth distinct miss fails until the queue drains.
        for i in 0..8 {
            assert_eq!(
                l1.access(&txn(i * 4096), AccessKind::Load, 0, 0, 0, false, 0, &m),
                Outcome::Miss
            );
        }
        assert_eq!(
            l1.access(&txn(9 * 4096), AccessKind::Load, 0, 0, 0, false, 0, &m),
            Outcome::Fail
        );
        assert_eq!(l1.stats.reservation_fails, 1);
        l1.miss_queue.clear();
        // Merge limit 8 per entry.
        for w in 0..8 {
            assert_eq!(
                l1.access(&txn(1 << 20), AccessKind::Load, w, 0, 0, false, 0, &m),
                Outcome::Miss
            );
        }
        assert_eq!(
            l1.access(&txn(1 << 20), AccessKind::Load, 9, 0, 0, false, 0, &m),
            Outcome::Fail
        );
    }

    #[test]
    fn write_evict_invalidates_and_writes_through() {
        let (mut l1, m) = setup();
        l1.access(&txn(0x2000), AccessKind::Load, 0, 0, 0, false, 0, &m);
        let r = l1.miss_queue.pop_front().unwrap();
        l1.fill(&r, |_| {});
        let st = Txn {
            line_addr: 0x2000,
            sectors: 0b0001,
            lanes: 1,
        };
        let ack = crate::mem::req::ACK | 5;
        let out = l1.access(&st, AccessKind::Store, ack, 0, 0, false, 0, &m);
        assert_eq!(out, Outcome::Miss, "sent on");
        assert_eq!(l1.stats.hits, 1, "but a hit");
        let w = l1.miss_queue.pop_front().unwrap();
        assert_eq!(
            (w.kind, w.addr, w.bytes, w.id),
            (ReqKind::Write, 0x2000, 32, ack)
        );
        assert_eq!(
            l1.access(&txn(0x2000), AccessKind::Load, 0, 0, 0, false, 0, &m),
            Outcome::Miss
        );
    }

    #[test]
    fn bypass_sends_only_the_sectors() {
        let g = crate::GpuConfig::preset("gtx480").unwrap();
        let mut c = g.l1d.clone();
        c.insertion = "bypass_all".into();
        let mut l1 = L1::new(&c, ReqSrc::L1d);
        let m = AddrMap::new(&g.dram, 1).unwrap();
        let t = Txn {
            line_addr: 0x3000,
            sectors: 0b0110,
            lanes: 3,
        };
        assert_eq!(
            l1.access(&t, AccessKind::Load, 7, 0, 0, false, 0, &m),
            Outcome::Miss
        );
        let r = l1.miss_queue.pop_front().unwrap();
        assert!(r.bypass);
        assert_eq!((r.addr, r.bytes, r.id), (0x3020, 64, 7));
        let mut woke = vec![];
        l1.fill(&r, |w| woke.push(w));
        assert_eq!(woke, vec![7]);
        assert_eq!(
            l1.access(&t, AccessKind::Load, 7, 0, 0, false, 0, &m),
            Outcome::Miss,
            "not allocated"
        );
        // Stores go around the cache too: sent on as they are and counted as bypassed.
        assert_eq!(
            l1.access(&t, AccessKind::Store, 9, 0, 0, false, 0, &m),
            Outcome::Miss
        );
        let w = l1.miss_queue.pop_back().unwrap();
        assert_eq!(
            (w.kind, w.addr, w.bytes, w.id),
            (ReqKind::Write, 0x3020, 64, 9)
        );
        assert_eq!(
            (l1.stats.accesses, l1.stats.bypassed, l1.stats.writes),
            (3, 3, 1)
        );
        assert_eq!(l1.stats.hits, 0);
    }

    fn with_insertion(name: &str) -> (L1, AddrMap) {
        let g = crate::GpuConfig::preset("gtx480").unwrap();
        let mut c = g.l1d.clone();
        c.insertion = name.into();
        (L1::new(&c, ReqSrc::L1d), AddrMap::new(&g.dram, 1).unwrap())
    }

    /// Loads line address `a` for `pc`, answering every request sent at once; returns whether
    /// the miss (if any) bypassed.
    fn load_now(l1: &mut L1, m: &AddrMap, a: u64, pc: u64) -> Option<bool> {
        let out = l1.access(&txn(a), AccessKind::Load, 0, pc, 0, false, 0, m);
        assert_ne!(out, Outcome::Fail);
        let mut byp = None;
        while let Some(r) = l1.miss_queue.pop_front() {
            if r.kind == ReqKind::Read {
                byp = Some(r.bypass);
            }
            l1.fill(&r, |_| {});
        }
        byp
    }

    /// Claim 6's per-warp counters: a re-reference is served while the line is held and lost
    /// once it was evicted; first references and lines invalidated by a store are neither.
    #[test]
    fn warp_reuse_counts_served_and_evicted_rereferences() {
        let (mut l1, m) = with_insertion("always");
        l1.observe_warp_reuse();
        let ways = crate::GpuConfig::preset("gtx480").unwrap().l1d.ways as usize;
        let a = 1u64 << 20;
        let set = l1.cache.set_of(l1.cache.line_of(a));
        // `ways` other lines of the same set evict `a` under LRU.
        let others: Vec<u64> = (1..)
            .map(|i| a + i * 128)
            .filter(|&x| l1.cache.set_of(l1.cache.line_of(x)) == set)
            .take(ways)
            .collect();
        let load = |l1: &mut L1, x: u64, warp: u32| {
            assert_ne!(
                l1.access(&txn(x), AccessKind::Load, 0, 8, warp, false, 0, &m),
                Outcome::Fail
            );
            while let Some(r) = l1.miss_queue.pop_front() {
                l1.fill(&r, |_| {});
            }
        };
        load(&mut l1, a, 3); // first reference: neither
        load(&mut l1, a, 3); // hit: served
        load(&mut l1, a, 3); // the same block again: counted once
        for &x in &others {
            load(&mut l1, x, 5);
        }
        load(&mut l1, a, 3); // evicted in between: lost
        load(&mut l1, a, 3); // held again (a new residency): served
        assert_eq!(l1.take_warp_reuse(3), (2, 1));
        assert_eq!(l1.take_warp_reuse(3), (0, 0), "taken");
        // A fresh warp in slot 3 counts the still-resident block anew; warp 4 too.
        load(&mut l1, a, 3);
        load(&mut l1, a, 4);
        assert_eq!(l1.take_warp_reuse(3), (1, 0));
        assert_eq!(l1.take_warp_reuse(4), (1, 0));
        // Warp 5's lines were all first references.
        assert_eq!(l1.take_warp_reuse(5), (0, 0));
        // A store invalidates (write-evict) rather than evicts: its next miss is neither.
        let b = others[ways - 1];
        l1.access(&txn(b), AccessKind::Store, ACK, 8, 5, false, 0, &m);
        while let Some(r) = l1.miss_queue.pop_front() {
            l1.fill(&r, |_| {});
        }
        load(&mut l1, b, 5);
        assert_eq!(l1.take_warp_reuse(5), (0, 0));
    }

    #[test]
    fn ctrlc_learns_to_bypass_a_streaming_pc_but_not_a_reused_one() {
        let (mut l1, m) = with_insertion("ctrlc");
        let (stream, hot) = (8 * 3, 8 * 7);
        let mut next = 1u64 << 24;
        let mut stream_bypass = 0;
        let mut hot_hits = 0;
        for i in 0..40_000u64 {
            // PC `stream` touches a new line every time; PC `hot` cycles over 8 lines.
            if load_now(&mut l1, &m, next, stream) == Some(true) && i >= 30_000 {
                stream_bypass += 1;
            }
            next += 128;
            let h0 = l1.stats.hits;
            load_now(&mut l1, &m, (i % 8) * 128 * 1024, hot);
            if i >= 30_000 {
                hot_hits += l1.stats.hits - h0;
            }
        }
        // AGG of `stream` saturates at 7: 127 of every 128 misses bypass.
        assert!(stream_bypass >= 10_000 * 126 / 128, "{stream_bypass}");
        // The hot lines stay cached.
        assert!(hot_hits >= 9_900, "{hot_hits}");
        assert!(l1.stats.evictions_unreused > 0);
    }

    #[test]
    fn always_and_pc_bypass_do_not_bypass_reused_lines() {
        for name in ["always", "pc_bypass"] {
            let (mut l1, m) = with_insertion(name);
            for i in 0..2000u64 {
                assert_ne!(
                    load_now(&mut l1, &m, (i % 4) * 4096, 8),
                    Some(true),
                    "{name}"
                );
            }
            assert_eq!(l1.stats.hits, 1996, "{name}");
        }
    }

    #[test]
    fn a_refused_miss_keeps_its_decision_for_the_retry() {
        // PC 8 (index 1) alternates: bypass, insert, bypass, insert, ...
        let (mut l1, m) = with_insertion("pc_exp:1=1");
        assert_eq!(load_now(&mut l1, &m, 0x10_0000, 8), Some(true));
        // Fill the miss queue with another PC's misses so the next miss is refused.
        for i in 0..8 {
            l1.access(
                &txn(0x20_0000 + i * 4096),
                AccessKind::Load,
                0,
                0,
                0,
                false,
                0,
                &m,
            );
        }
        for _ in 0..3 {
            let out = l1.access(&txn(0x30_0000), AccessKind::Load, 0, 8, 0, false, 0, &m);
            assert_eq!(out, Outcome::Fail);
        }
        l1.miss_queue.clear();
        let out = l1.access(&txn(0x30_0000), AccessKind::Load, 0, 8, 0, false, 0, &m);
        assert_eq!(out, Outcome::Miss);
        let r = l1.miss_queue.pop_front().unwrap();
        assert!(!r.bypass, "the refused miss was an insertion and stays one");
        l1.fill(&r, |_| {});
        assert_eq!(
            load_now(&mut l1, &m, 0x40_0000, 8),
            Some(true),
            "then a bypass"
        );
    }

    #[test]
    fn write_evict_invalidations_train_the_policy() {
        // pc_bypass: three lines of PC 16 leaving unreused make it bypass everything.
        let (mut l1, m) = with_insertion("pc_bypass");
        let st = |a: u64| Txn {
            line_addr: a,
            sectors: 1,
            lanes: 1,
        };
        for k in 0..3u64 {
            assert_eq!(load_now(&mut l1, &m, k * 4096, 16), Some(false));
            l1.access(&st(k * 4096), AccessKind::Store, ACK, 0, 0, false, 0, &m);
            l1.miss_queue.clear();
        }
        assert_eq!(l1.stats.evictions, 0, "invalidations are not replacements");
        assert_eq!(load_now(&mut l1, &m, 0x9000, 16), Some(true));
        assert_eq!(
            load_now(&mut l1, &m, 0x9000, 24),
            Some(false),
            "other PCs insert"
        );
    }

    #[test]
    fn reuse_observer_sees_every_accepted_load() {
        let (mut l1, m) = setup();
        l1.observe_reuse();
        for _ in 0..3 {
            for a in [0u64, 4096 * 32] {
                load_now(&mut l1, &m, a, 0);
            }
        }
        let s = l1.reuse_stats;
        // Lines 0 and 32*4096/128 = 1024 map to one set or two; either way 2 cold, 4 reuses.
        assert_eq!(s.cold, 2);
        assert_eq!(s.d0 + s.d1, 4);
        let p = l1.pc_profile.as_ref().unwrap();
        assert_eq!(p.misses[0], 2, "two cold misses of PC 0");
        assert_eq!(p.misses.iter().sum::<u64>(), 2);
    }
}
