//! An L2 slice (memory sub-partition; spec 000 §8.1 item 5): requests from the interconnect wait
//! `rop_latency` L2 cycles in the ROP queue, then access the tags (one per cycle). Read misses
//! take an MSHR (merging up to `mshr_merge` requests per line), fetch the line from DRAM and
//! reply to every merged request at fill time; dirty victims are written back. Write misses of a
//! write-back slice follow `write_allocate`: `lazy` validates the written sectors without a fetch
//! and acknowledges at once; `naive` (GPGPU-Sim's `W`) sends the store on to DRAM, fetches the
//! line as well, and acknowledges when DRAM has written the store; `none` only sends the store on.
//! Atomics execute here (read, then the line is dirty). DRAM returns wait `dram_latency` L2
//! cycles before the fill. Every queue is bounded; a request that cannot proceed stays at the head
//! (back-pressure).
//!
//! With `l2.sector_requests` (GPGPU-Sim's sectored L2, whose memory partition splits every
//! request into 32-byte sector requests) a request holds the tag port one L2 cycle per sector it
//! touches, and a read miss fetches only the sectors it needs that are neither valid nor already
//! being fetched, one DRAM request per sector. Decision: the sector requests of one request stay
//! together (one MSHR entry per line, one reply when the line's outstanding sectors have all
//! arrived), where GPGPU-Sim keeps an MSHR entry and a reply packet per sector; the DRAM
//! traffic, the tag-port occupancy and the reply bytes are the same.

use super::cache::{Cache, Lookup, Mshr, WriteAllocate, WritePolicy};
use super::l2far::FarHalf;
use super::req::{MemReq, ReqKind, ReqSrc};
use crate::config::L2Config;
use crate::dram::addrmap::AddrMap;
use crate::dram::DramReq;
use crate::stats::CacheStats;
use std::collections::{HashMap, VecDeque};

impl Default for MemReq {
    fn default() -> Self {
        MemReq {
            addr: 0,
            bytes: 0,
            kind: ReqKind::Read,
            src: ReqSrc::L1d,
            bypass: false,
            sm: 0,
            slice: 0,
            id: 0,
            born: 0,
            crit: false,
            miss_pc: 0,
        }
    }
}

/// What arrives back from DRAM after `dram_latency`.
#[derive(Debug, Clone, Copy)]
enum Fill {
    /// The line (or, with sector requests, the sectors) at this address and size: a read or
    /// a write-allocate fetch.
    Line(u64, u32),
    /// A store DRAM has written: its acknowledgement for the SM.
    Ack(MemReq),
}

/// How [`L2Slice::access`] dealt with a request.
enum Outcome {
    /// It must wait (a queue, MSHR or set is full).
    Wait,
    /// Processed here; a store is acknowledged now.
    Done,
    /// A store sent on to DRAM, acknowledged when DRAM returns it.
    SentOn,
}

/// One slice.
pub struct L2Slice {
    id: u16,
    cache: Cache,
    mshr: Mshr<MemReq>,
    write: WritePolicy,
    alloc: WriteAllocate,
    rop: VecDeque<(u64, MemReq)>,
    /// Requests from the other half of a two-partition L2 ([`FarHalf`]), in arrival order,
    /// with the L2 cycle from which they may access the tags.
    far_q: VecDeque<(u64, MemReq)>,
    /// The two-partition L2 (`l2.far_latency` > 0).
    far: Option<Box<FarHalf>>,
    rop_cap: usize,
    rop_latency: u64,
    dram_latency: u64,
    /// Replies waiting for the reply network.
    pub out_q: VecDeque<MemReq>,
    out_cap: usize,
    /// Requests waiting for the DRAM controller.
    pub to_dram: VecDeque<DramReq>,
    dram_cap: usize,
    fills: VecDeque<(u64, Fill)>,
    map: AddrMap,
    sector_bytes: u32,
    merge_cap: usize,
    /// Sector requests (`l2.sector_requests`).
    sector_req: bool,
    /// L2 cycle from which the tag port is free (sector requests hold it a cycle per sector).
    tag_free: u64,
    /// Sector requests: the sectors of each reserved line still being fetched from DRAM.
    fetching: HashMap<u64, u8>,
    /// Lines (byte address, bytes) whose pending fetch a critical read merged into after the
    /// fetch may have left `to_dram` (document 004 §3: the merged miss becomes critical); the
    /// GPU hands them to an installed [`crate::dram::port::MemoryPort::upgrade_crit`].
    pub crit_upgrades: Vec<(u64, u32)>,
    /// Counters.
    pub stats: CacheStats,
}

impl L2Slice {
    /// Slice `id` as configured.
    pub fn new(id: u16, c: &L2Config, map: AddrMap) -> Self {
        Self {
            id,
            cache: Cache::new(&c.cache),
            mshr: Mshr::new(c.cache.mshr_entries as usize, c.cache.mshr_merge as usize),
            write: WritePolicy::parse(&c.cache.write_policy).expect("validated"),
            alloc: WriteAllocate::parse(&c.cache.write_allocate).expect("validated"),
            rop: VecDeque::with_capacity(c.input_queue as usize),
            far_q: VecDeque::new(),
            far: None,
            rop_cap: c.input_queue as usize,
            rop_latency: c.rop_latency as u64,
            dram_latency: c.dram_latency as u64,
            out_q: VecDeque::with_capacity(c.output_queue as usize),
            out_cap: c.output_queue as usize,
            to_dram: VecDeque::with_capacity(c.dram_queue as usize),
            dram_cap: c.dram_queue as usize,
            fills: VecDeque::with_capacity(c.cache.mshr_entries as usize),
            map,
            sector_bytes: c.cache.sector_bytes,
            merge_cap: (c.cache.mshr_merge as usize).min(c.output_queue as usize),
            sector_req: c.sector_requests,
            tag_free: 0,
            fetching: HashMap::new(),
            crit_upgrades: Vec::new(),
            stats: CacheStats::default(),
        }
    }

    /// Places this slice (configured by `c`), one of `slices`, in a GPU of `sms` SMs: with
    /// `l2.far_latency` > 0 the L2 is two partitions ([`FarHalf`]).
    pub fn with_partitions(mut self, c: &L2Config, slices: u32, sms: u32) -> Self {
        self.far = FarHalf::new(c.far_latency, self.id as u32, slices, sms, &c.cache).map(Box::new);
        self
    }

    /// Kernel boundary under `l2.flush_between_launches`: invalidates every line not awaiting
    /// a fill, and the far half's copies; dirty data is dropped without a DRAM write (the
    /// profiler's flush happens before the timed kernel).
    pub fn flush(&mut self) {
        self.cache.invalidate_all();
        if let Some(f) = &mut self.far {
            f.flush();
        }
    }

    /// Requests that crossed to this slice from the other half of a two-partition L2 and paid
    /// the far latency.
    pub fn far_crossings(&self) -> u64 {
        self.far.as_ref().map_or(0, |f| f.crossings)
    }

    /// Whether the ROP queue has room.
    pub fn can_accept(&self) -> bool {
        self.rop.len() + self.far_q.len() < self.rop_cap
    }

    /// A request arrives from the interconnect at L2 cycle `now`.
    pub fn accept(&mut self, now: u64, r: MemReq) {
        if let Some(far) = self.far.as_mut() {
            let line = self.cache.line_of(self.map.slice_local(r.addr));
            let extra = far.delay(&r, line);
            if extra > 0 {
                self.far_q.push_back((now + self.rop_latency + extra, r));
                return;
            }
        }
        self.rop.push_back((now + self.rop_latency, r));
    }

    /// A DRAM read completed, or a write that carries an acknowledgement (L2 cycle `now`).
    pub fn dram_return(&mut self, now: u64, d: &DramReq) {
        let f = match d.ack {
            Some(a) if d.write => Fill::Ack(a),
            _ => Fill::Line(d.addr, d.bytes),
        };
        self.fills.push_back((now + self.dram_latency, f));
    }

    /// Whether anything is queued or outstanding.
    pub fn busy(&self) -> bool {
        !self.rop.is_empty()
            || !self.far_q.is_empty()
            || !self.out_q.is_empty()
            || !self.to_dram.is_empty()
            || !self.fills.is_empty()
            || self.mshr.used() > 0
    }

    /// Idle skipping: the earliest L2 cycle (`>= now`) at which [`L2Slice::cycle`] or the
    /// queue to DRAM (drained on L2 cycles) could change state; `None` when nothing is pending
    /// here (an MSHR waiting for DRAM is woken by the DRAM return, which the caller tracks).
    /// The reply queue (`out_q`) is drained by the reply network on *interconnect* cycles,
    /// which the caller adds on that clock ([`L2Slice::has_replies`]); with nothing else due,
    /// an L2 cycle leaves a slice whose only work is queued replies as it was.
    pub fn next_event(&self, now: u64) -> Option<u64> {
        if !self.to_dram.is_empty() {
            return Some(now);
        }
        let rop = match (self.rop.front(), self.far_q.front()) {
            (Some(&(a, _)), Some(&(b, _))) => Some(a.min(b)),
            (a, b) => a.or(b).map(|&(t, _)| t),
        }
        .map(|t| t.max(self.tag_free).max(now));
        let fill = self.fills.front().map(|&(t, _)| t.max(now));
        match (rop, fill) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Idle skipping: replies wait in the reply queue for the reply network, which takes them
    /// on interconnect cycles (the next one is this slice's next event on that clock).
    pub fn has_replies(&self) -> bool {
        !self.out_q.is_empty()
    }

    fn local_line(&self, addr: u64) -> u64 {
        self.cache.line_of(self.map.slice_local(addr))
    }

    fn dram_req(&self, addr: u64, bytes: u32, write: bool) -> DramReq {
        let d = self.map.decode(addr);
        DramReq {
            addr,
            bytes,
            write,
            bank: self.map.dram_bank(&d),
            row: d.row,
            slice: self.id,
            ..Default::default()
        }
    }

    fn reply(r: &MemReq) -> MemReq {
        MemReq {
            kind: ReqKind::Reply,
            ..*r
        }
    }

    /// One L2 cycle.
    #[inline]
    pub fn cycle(&mut self, now: u64) {
        // An idle slice (no fill due, nothing in the ROP or crossing queues) does nothing:
        // answered here, inlined into the memory side's loop, without the call.
        if self.fills.is_empty() && self.rop.is_empty() && self.far_q.is_empty() {
            return;
        }
        self.step(now);
    }

    /// [`L2Slice::cycle`] of a slice with a fill or a request queued.
    #[inline(never)]
    fn step(&mut self, now: u64) {
        self.fill_step(now);
        // The ROP queue's head, or a crossing request that is due earlier.
        let far = match (self.rop.front(), self.far_q.front()) {
            (Some(&(a, _)), Some(&(b, _))) => b < a,
            (None, Some(_)) => true,
            _ => false,
        };
        let q = if far { &self.far_q } else { &self.rop };
        if let Some(&(t, r)) = q.front() {
            if t <= now && self.tag_free <= now && self.access(&r) {
                if far {
                    self.far_q.pop_front();
                } else {
                    self.rop.pop_front();
                }
                if self.sector_req {
                    let n = self.cache.sectors_of(r.addr, r.bytes).count_ones().max(1);
                    self.tag_free = now + n as u64;
                }
            }
        }
    }

    fn fill_step(&mut self, now: u64) {
        let Some(&(t, f)) = self.fills.front() else {
            return;
        };
        if t > now || self.out_q.len() + self.merge_cap > self.out_cap {
            return;
        }
        self.fills.pop_front();
        let (addr, bytes) = match f {
            Fill::Line(a, b) => (a, b),
            Fill::Ack(a) => {
                self.out_q.push_back(a);
                return;
            }
        };
        let line = self.local_line(addr);
        let full = self.cache.full_mask();
        if self.sector_req {
            let got = self.cache.sectors_of(addr, bytes);
            if !self.cache.sectors_arrived(&mut self.fetching, line, got) {
                return; // more sectors of the line are on their way
            }
        } else {
            self.cache.fill(line, full);
        }
        let mut dirty_atomic = false;
        let out = &mut self.out_q;
        self.mshr.close(line, |w| {
            match w.kind {
                ReqKind::Atomic => dirty_atomic = true,
                // The write-allocate fetch of a store sent on to DRAM: nobody waits for it.
                ReqKind::Write => return,
                _ => {}
            }
            out.push_back(Self::reply(&w));
        });
        if dirty_atomic {
            if let Lookup::Hit(w) = self.cache.lookup(line, full) {
                self.cache.write(line, w, full, true);
            }
        }
    }

    fn evict(&mut self, ev: Option<super::cache::Evicted>) {
        if let Some(ev) = ev {
            self.stats.evictions += 1;
            self.stats.evictions_unreused += u64::from(!ev.reused);
            if ev.dirty != 0 {
                self.stats.writebacks += 1;
                // `ev.line` is slice-local: map it back to its global address.
                let bytes = ev.dirty.count_ones() * self.sector_bytes;
                let addr = self.global_of(ev.line);
                let d = self.dram_req(addr, bytes, true);
                self.to_dram.push_back(d);
            }
        }
    }

    /// Inverse of `slice_local` for a line of this slice (used for write-backs).
    fn global_of(&self, local_line: u64) -> u64 {
        self.map
            .global_of(self.id as u32, local_line * self.cache.line_bytes())
    }

    /// Processes request `r`; false if it must wait. A store tagged [`super::req::ACK`] is acknowledged
    /// with a 0-byte reply once processed, or, when it was sent on to DRAM (write-allocate
    /// `naive` / `none`), once DRAM has written it (GPGPU-Sim retires a warp only when its
    /// stores are acknowledged).
    fn access(&mut self, r: &MemReq) -> bool {
        let ack = r.acked_store();
        if ack && self.out_q.len() >= self.out_cap {
            return false;
        }
        match self.access_inner(r) {
            Outcome::Wait => false,
            Outcome::SentOn => true,
            Outcome::Done => {
                if ack {
                    self.out_q.push_back(Self::ack_of(r));
                }
                true
            }
        }
    }

    fn ack_of(r: &MemReq) -> MemReq {
        MemReq {
            kind: ReqKind::Reply,
            bytes: 0,
            bypass: true,
            ..*r
        }
    }

    /// A store sent on to DRAM, carrying its acknowledgement when the SM waits for one.
    fn store_to_dram(&self, r: &MemReq) -> DramReq {
        let mut d = self.dram_req(r.addr, r.bytes, true);
        (d.crit, d.sm, d.miss_pc) = (r.crit, r.sm, r.miss_pc);
        if r.acked_store() {
            d.ack = Some(Self::ack_of(r));
        }
        d
    }

    /// A write miss of a write-back slice under `naive` / `none` write allocation.
    fn write_miss_sent_on(&mut self, r: &MemReq, line: u64) -> Outcome {
        let naive = self.alloc == WriteAllocate::Naive;
        let need = if naive { 2 } else { 1 };
        let ok = self.to_dram.len() + need <= self.dram_cap
            && (!naive || (self.mshr.has_free() && self.cache.can_allocate(line)));
        if !ok {
            self.stats.reservation_fails += 1;
            return Outcome::Wait;
        }
        if naive {
            let (_, ev) = self.cache.allocate(line, true).expect("checked");
            self.evict(ev);
            // The MSHR entry holds the store itself, which gets no reply at fill time.
            self.mshr.open(line, *r);
            let sb = self.sector_bytes as u64;
            let start = r.addr & !(sb - 1);
            let end = (r.addr + r.bytes.max(1) as u64).div_ceil(sb) * sb;
            let fetch = self.dram_req(start, (end - start) as u32, false);
            if self.sector_req {
                let m = self.cache.sectors_of(fetch.addr, fetch.bytes);
                self.fetching.insert(line, m);
            }
            self.to_dram.push_back(fetch);
        }
        let d = self.store_to_dram(r);
        self.to_dram.push_back(d);
        self.count(false, true);
        Outcome::SentOn
    }

    fn access_inner(&mut self, r: &MemReq) -> Outcome {
        let line = self.local_line(r.addr);
        let sectors = self.cache.sectors_of(r.addr, r.bytes);
        let look = self.cache.lookup(line, sectors);
        match r.kind {
            ReqKind::Write if self.write == WritePolicy::WriteBack => {
                match look {
                    Lookup::Hit(w) | Lookup::SectorMiss(w) | Lookup::Pending(w) => {
                        self.cache.write(line, w, sectors, true)
                    }
                    Lookup::Miss if self.alloc != WriteAllocate::Lazy => {
                        return self.write_miss_sent_on(r, line);
                    }
                    Lookup::Miss => {
                        if self.to_dram.len() >= self.dram_cap || !self.cache.can_allocate(line) {
                            self.stats.reservation_fails += 1;
                            return Outcome::Wait;
                        }
                        let (w, ev) = self.cache.allocate(line, false).expect("checked");
                        self.evict(ev);
                        self.cache.write(line, w, sectors, true);
                    }
                }
                self.count(matches!(look, Lookup::Hit(_)), true);
                Outcome::Done
            }
            ReqKind::Write => {
                if self.to_dram.len() >= self.dram_cap {
                    self.stats.reservation_fails += 1;
                    return Outcome::Wait;
                }
                match (self.write, look) {
                    (WritePolicy::WriteThrough, Lookup::Hit(w) | Lookup::SectorMiss(w)) => {
                        self.cache.write(line, w, sectors, false)
                    }
                    (_, Lookup::Hit(_) | Lookup::SectorMiss(_)) => self.cache.invalidate(line),
                    _ => {}
                }
                let mut d = self.dram_req(r.addr, r.bytes, true);
                (d.crit, d.sm, d.miss_pc) = (r.crit, r.sm, r.miss_pc);
                self.to_dram.push_back(d);
                self.count(matches!(look, Lookup::Hit(_)), true);
                Outcome::Done
            }
            ReqKind::Read | ReqKind::Atomic => match look {
                Lookup::Hit(w) => {
                    if self.out_q.len() >= self.out_cap {
                        return Outcome::Wait;
                    }
                    self.cache.touch(line, w);
                    if r.kind == ReqKind::Atomic {
                        self.cache.write(line, w, sectors, true);
                    }
                    self.out_q.push_back(Self::reply(r));
                    self.count(true, false);
                    Outcome::Done
                }
                Lookup::Pending(w) => match self.mshr.find(line) {
                    Some(e) if self.mshr.can_merge(e) => {
                        if self.sector_req {
                            // Sectors this request needs that nobody fetches yet.
                            let on_way = self.fetching.get(&line).copied().unwrap_or(0);
                            let extra = sectors & !self.cache.valid_sectors(line, w) & !on_way;
                            if extra != 0 {
                                if self.to_dram.len() + extra.count_ones() as usize > self.dram_cap
                                {
                                    self.stats.reservation_fails += 1;
                                    return Outcome::Wait;
                                }
                                self.fetch_sectors(r, extra);
                                self.fetching.insert(line, on_way | extra);
                            }
                        }
                        if r.crit {
                            self.escalate(r.addr);
                        }
                        self.mshr.merge(e, *r);
                        self.stats.merged += 1;
                        self.count(false, false);
                        Outcome::Done
                    }
                    _ => {
                        self.stats.reservation_fails += 1;
                        Outcome::Wait
                    }
                },
                Lookup::SectorMiss(_) | Lookup::Miss => {
                    let need = match look {
                        Lookup::SectorMiss(w) if self.sector_req => {
                            sectors & !self.cache.valid_sectors(line, w)
                        }
                        _ => sectors,
                    };
                    let dram_reqs = if self.sector_req {
                        need.count_ones() as usize
                    } else {
                        1
                    };
                    let ok = self.mshr.has_free()
                        && self.to_dram.len() + dram_reqs < self.dram_cap
                        && (matches!(look, Lookup::SectorMiss(_)) || self.cache.can_allocate(line));
                    if !ok {
                        self.stats.reservation_fails += 1;
                        return Outcome::Wait;
                    }
                    if let Lookup::SectorMiss(w) = look {
                        self.cache.reserve(line, w);
                    } else {
                        let (_, ev) = self.cache.allocate(line, true).expect("checked");
                        self.evict(ev);
                    }
                    self.mshr.open(line, *r);
                    if self.sector_req {
                        self.fetch_sectors(r, need);
                        self.fetching.insert(line, need);
                    } else {
                        let lb = self.cache.line_bytes();
                        let mut d = self.dram_req(r.addr & !(lb - 1), lb as u32, false);
                        (d.crit, d.sm, d.miss_pc) = (r.crit, r.sm, r.miss_pc);
                        self.to_dram.push_back(d);
                    }
                    self.count(false, false);
                    Outcome::Done
                }
            },
            ReqKind::Reply => Outcome::Done,
        }
    }

    /// A critical read merged into the pending fetch of the line of `addr`: the fetch's reads
    /// still queued here become critical, and the line is reported for those already sent.
    fn escalate(&mut self, addr: u64) {
        let lb = self.cache.line_bytes();
        let base = addr & !(lb - 1);
        for d in self.to_dram.iter_mut() {
            if !d.write && d.addr >= base && d.addr < base + lb {
                d.crit = true;
            }
        }
        self.crit_upgrades.push((base, lb as u32));
    }

    /// Sector requests: one DRAM read per sector of `mask` in the line of request `r`.
    fn fetch_sectors(&mut self, r: &MemReq, mask: u8) {
        let lb = self.cache.line_bytes();
        let sb = self.sector_bytes as u64;
        let base = r.addr & !(lb - 1);
        for s in 0..8u64 {
            if mask & (1 << s) != 0 {
                let mut d = self.dram_req(base + s * sb, sb as u32, false);
                (d.crit, d.sm, d.miss_pc) = (r.crit, r.sm, r.miss_pc);
                self.to_dram.push_back(d);
            }
        }
    }

    fn count(&mut self, hit: bool, write: bool) {
        self.stats.accesses += 1;
        if write {
            self.stats.writes += 1;
        }
        if hit {
            self.stats.hits += 1;
        } else {
            self.stats.misses += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem::req::ACK;
    use crate::GpuConfig;

    /// A gtx480 slice 0 with `write_allocate = alloc`, and an address that maps to it.
    fn slice(alloc: &str) -> (L2Slice, u64) {
        let mut g = GpuConfig::preset("gtx480").unwrap();
        g.l2.cache.write_allocate = alloc.into();
        let map = AddrMap::new(&g.dram, g.l2.slices_per_channel).unwrap();
        let addr = (0..1u64 << 20)
            .map(|i| i * 128)
            .find(|&a| map.slice(a) == 0)
            .unwrap();
        (L2Slice::new(0, &g.l2, map), addr)
    }

    fn store(addr: u64) -> MemReq {
        MemReq {
            addr,
            bytes: 64,
            kind: ReqKind::Write,
            id: ACK | 5,
            ..Default::default()
        }
    }

    /// Runs the slice until the ROP queue is empty, from L2 cycle `t`; returns the next cycle.
    fn drain(s: &mut L2Slice, mut t: u64) -> u64 {
        while !s.rop.is_empty() || !s.fills.is_empty() {
            s.cycle(t);
            t += 1;
        }
        t
    }

    #[test]
    fn lazy_write_miss_allocates_without_dram_and_acks_at_once() {
        let (mut s, a) = slice("lazy");
        s.accept(0, store(a));
        drain(&mut s, 0);
        assert!(s.to_dram.is_empty(), "no fetch, no write-through");
        let ack = s.out_q.pop_front().expect("acknowledged by the L2");
        assert_eq!((ack.kind, ack.bytes, ack.id), (ReqKind::Reply, 0, ACK | 5));
        assert_eq!(s.stats.misses, 1);
        // The written sectors now hit.
        s.accept(
            200,
            MemReq {
                bytes: 32,
                ..store(a)
            },
        );
        drain(&mut s, 200);
        assert_eq!(s.stats.hits, 1);
    }

    #[test]
    fn naive_write_miss_sends_the_store_and_a_fetch_and_acks_after_dram() {
        let (mut s, a) = slice("naive");
        s.accept(0, store(a));
        let t = drain(&mut s, 0);
        assert!(
            s.out_q.is_empty(),
            "no acknowledgement before DRAM has the data"
        );
        let fetch = s.to_dram.pop_front().unwrap();
        let write = s.to_dram.pop_front().unwrap();
        assert!(!fetch.write && write.write);
        assert_eq!(
            (fetch.addr, fetch.bytes),
            (a, 64),
            "reads the written sectors"
        );
        assert_eq!((write.addr, write.bytes), (a, 64));
        assert_eq!(write.ack.map(|r| r.id), Some(ACK | 5));
        // A read of the line while the fetch is outstanding merges into its MSHR.
        let read = MemReq {
            kind: ReqKind::Read,
            id: 9,
            ..store(a)
        };
        s.accept(t, read);
        let t = drain(&mut s, t);
        assert_eq!(s.stats.merged, 1);
        // DRAM writes the store: the acknowledgement follows after `dram_latency`.
        s.dram_return(t, &write);
        let t = drain(&mut s, t);
        let ack = s.out_q.pop_front().unwrap();
        assert_eq!((ack.kind, ack.bytes, ack.id), (ReqKind::Reply, 0, ACK | 5));
        // The fetch fills the line: only the merged read gets a reply, not the store.
        s.dram_return(t, &fetch);
        drain(&mut s, t);
        let r = s.out_q.pop_front().unwrap();
        assert_eq!((r.kind, r.id), (ReqKind::Reply, 9));
        assert!(s.out_q.is_empty());
        assert!(!s.busy());
    }

    /// Document 004 §3 marks the load/store misses of a private cache; a store reaches the
    /// memory side with its bit only through a write-through slice (the `hetero-gpu` preset): a
    /// write-back slice sends it on later as a dirty eviction, which carries no instruction's bit.
    #[test]
    fn write_through_sends_each_store_on_with_its_criticality_bit() {
        let (mut s, a) = slice("lazy");
        s.write = WritePolicy::WriteThrough;
        for (id, crit) in [(5, true), (6, false)] {
            s.accept(
                0,
                MemReq {
                    crit,
                    id: ACK | id,
                    ..store(a)
                },
            );
        }
        drain(&mut s, 0);
        let sent: Vec<(bool, bool)> = s.to_dram.iter().map(|d| (d.write, d.crit)).collect();
        assert_eq!(
            sent,
            [(true, true), (true, false)],
            "each store, its own bit"
        );
        assert_eq!(s.out_q.len(), 2, "both acknowledged by the slice");
        // The same critical store on the write-back slice stays in it: nothing is sent.
        let (mut wb, a) = slice("lazy");
        wb.accept(
            0,
            MemReq {
                crit: true,
                ..store(a)
            },
        );
        drain(&mut wb, 0);
        assert!(wb.to_dram.is_empty());
        // `hetero-gpu` sends its stores through.
        let g = GpuConfig::preset("hetero-gpu").unwrap();
        assert_eq!(
            WritePolicy::parse(&g.l2.cache.write_policy),
            Some(WritePolicy::WriteThrough)
        );
    }

    #[test]
    fn a_critical_read_merging_into_a_pending_fetch_makes_it_critical() {
        let (mut s, a) = slice("lazy");
        let read = |id: u32, crit: bool| MemReq {
            addr: a,
            bytes: 32,
            kind: ReqKind::Read,
            id,
            crit,
            ..Default::default()
        };
        s.accept(0, read(1, false));
        let t = drain(&mut s, 0);
        assert!(s.to_dram.iter().all(|d| !d.crit && !d.write));
        assert!(!s.to_dram.is_empty());
        // A non-critical merge changes nothing.
        s.accept(t, read(2, false));
        let t = drain(&mut s, t);
        assert_eq!(s.stats.merged, 1);
        assert!(s.to_dram.iter().all(|d| !d.crit));
        assert!(s.crit_upgrades.is_empty());
        // A critical merge raises the queued fetch and reports the line for a sent one.
        s.accept(t, read(3, true));
        let t = drain(&mut s, t);
        assert_eq!(s.stats.merged, 2);
        assert!(s.to_dram.iter().all(|d| d.crit));
        let lb = s.cache.line_bytes();
        assert_eq!(s.crit_upgrades, vec![(a & !(lb - 1), lb as u32)]);
        // Already sent (left `to_dram`): only the report says so.
        s.crit_upgrades.clear();
        let sent: Vec<DramReq> = s.to_dram.drain(..).collect();
        s.accept(t, read(4, true));
        drain(&mut s, t);
        assert_eq!(s.crit_upgrades.len(), 1);
        assert!(sent.iter().all(|d| d.crit));
    }

    /// Document 004 §1.4 attribution: a fetch carries the PC tag of the miss that opened it;
    /// a later miss of another PC merging into it adds no fetch and does not change the tag
    /// (the DRAM access belongs to the first PC); a store sent on carries its own tag.
    #[test]
    fn a_fetch_carries_the_pc_of_the_miss_that_opened_it() {
        let (mut s, a) = slice("lazy");
        let read = |id: u32, pc: u64| MemReq {
            addr: a,
            bytes: 32,
            kind: ReqKind::Read,
            id,
            miss_pc: crate::mem::req::pc_tag(pc),
            ..Default::default()
        };
        s.accept(0, read(1, 0x40));
        let t = drain(&mut s, 0);
        let n = s.to_dram.len();
        assert!(n > 0);
        s.accept(t, read(2, 0x80));
        let t = drain(&mut s, t);
        assert_eq!(
            (s.stats.merged, s.to_dram.len()),
            (1, n),
            "merged, no new fetch"
        );
        let tags: Vec<Option<u64>> = s
            .to_dram
            .iter()
            .map(|d| crate::mem::req::tag_pc(d.miss_pc))
            .collect();
        assert!(tags.iter().all(|&p| p == Some(0x40)), "{tags:?}");
        s.to_dram.clear();
        let mut st = store(a);
        st.miss_pc = crate::mem::req::pc_tag(0x100);
        let (mut wt, _) = slice("lazy");
        wt.write = WritePolicy::WriteThrough;
        wt.accept(t, st);
        drain(&mut wt, t);
        assert_eq!(wt.to_dram.len(), 1);
        assert_eq!(crate::mem::req::tag_pc(wt.to_dram[0].miss_pc), Some(0x100));
        assert_eq!(crate::mem::req::tag_pc(0), None);
        assert_eq!(crate::mem::req::tag_pc(crate::mem::req::pc_tag(0)), Some(0));
    }

    /// `MemReq` and `DramReq` are moved through every queue of the timing model: their sizes
    /// (session 25, with [`MemReq::miss_pc`]: 40 and 80 bytes, from 32 and 64) are pinned so
    /// that a growth is noticed and measured (docs/PERFORMANCE.md, Session 25: fig5).
    #[test]
    fn request_sizes_are_pinned() {
        assert_eq!(std::mem::size_of::<MemReq>(), 40);
        assert_eq!(std::mem::size_of::<DramReq>(), 80);
    }

    #[test]
    fn no_allocate_write_miss_only_sends_the_store() {
        let (mut s, a) = slice("none");
        s.accept(0, store(a));
        let t = drain(&mut s, 0);
        assert_eq!(s.to_dram.len(), 1);
        let write = s.to_dram.pop_front().unwrap();
        assert!(write.write && write.ack.is_some());
        s.dram_return(t, &write);
        let t = drain(&mut s, t);
        assert_eq!(s.out_q.pop_front().unwrap().id, ACK | 5);
        // Nothing was allocated: a read of the same bytes misses and fetches.
        s.accept(
            t,
            MemReq {
                kind: ReqKind::Read,
                ..store(a)
            },
        );
        drain(&mut s, t);
        assert_eq!(s.stats.misses, 2);
        assert!(!s.to_dram.pop_front().unwrap().write);
    }

    /// A sectored slice (`l2.sector_requests`): a 128-byte read miss is four 32-byte DRAM
    /// reads and holds the tag port four cycles; a read of other sectors of the pending line
    /// fetches only those; the replies wait for every outstanding sector of the line.
    #[test]
    fn sector_requests_fetch_sectors_and_hold_the_tag_port_per_sector() {
        let mut g = GpuConfig::preset("gtx480").unwrap();
        g.l2.sector_requests = true;
        g.l2.rop_latency = 1;
        let map = AddrMap::new(&g.dram, g.l2.slices_per_channel).unwrap();
        let lines: Vec<u64> = (0..1u64 << 20)
            .map(|i| i * 128)
            .filter(|&a| map.slice(a) == 0)
            .take(2)
            .collect();
        let mut s = L2Slice::new(0, &g.l2, map);
        let read = |addr, bytes, id| MemReq {
            addr,
            bytes,
            kind: ReqKind::Read,
            id,
            ..Default::default()
        };
        // Line A's first two sectors, then line B whole, then A's last two sectors.
        s.accept(0, read(lines[0], 64, 1));
        s.accept(0, read(lines[1], 128, 2));
        s.accept(0, read(lines[0] + 64, 64, 3));
        let mut seen = vec![];
        for t in 0..20 {
            s.cycle(t);
            while let Some(d) = s.to_dram.pop_front() {
                seen.push((t, d));
            }
        }
        let got: Vec<(u64, u64, u32)> = seen.iter().map(|(t, d)| (*t, d.addr, d.bytes)).collect();
        let (a, b) = (lines[0], lines[1]);
        assert_eq!(
            got,
            vec![
                // Request 1 at cycle 1 (after the ROP latency): 2 sectors, port busy to 3.
                (1, a, 32),
                (1, a + 32, 32),
                // Request 2 at 3: 4 sectors, port busy to 7.
                (3, b, 32),
                (3, b + 32, 32),
                (3, b + 64, 32),
                (3, b + 96, 32),
                // Request 3 at 7: merges into A's entry and fetches only A's missing sectors.
                (7, a + 64, 32),
                (7, a + 96, 32),
            ]
        );
        assert!(seen.iter().all(|(_, d)| !d.write));
        assert_eq!(s.stats.merged, 1);
        // A's first two sectors arrive: no reply yet (two more are on their way).
        let fills: Vec<DramReq> = seen.iter().map(|&(_, d)| d).collect();
        s.dram_return(20, &fills[0]);
        s.dram_return(20, &fills[1]);
        let mut t = 20 + g.l2.dram_latency as u64;
        for _ in 0..4 {
            s.cycle(t);
            t += 1;
        }
        assert!(s.out_q.is_empty(), "line A still has sectors outstanding");
        s.dram_return(t, &fills[6]);
        s.dram_return(t, &fills[7]);
        t += g.l2.dram_latency as u64;
        for _ in 0..4 {
            s.cycle(t);
            t += 1;
        }
        let ids: Vec<u32> = s.out_q.drain(..).map(|r| r.id).collect();
        assert_eq!(
            ids,
            vec![1, 3],
            "both waiters of line A, once it is complete"
        );
        // The line now hits for all four sectors.
        s.accept(t, read(a, 128, 4));
        for _ in 0..3 {
            s.cycle(t);
            t += 1;
        }
        assert_eq!(s.out_q.pop_front().map(|r| r.id), Some(4));
        assert_eq!(s.stats.hits, 1);
    }

    /// Without `sector_requests` (the Fermi presets) a read miss fetches the whole line at once.
    #[test]
    fn line_requests_fetch_whole_lines() {
        let (mut s, a) = slice("lazy");
        s.accept(
            0,
            MemReq {
                addr: a,
                bytes: 32,
                kind: ReqKind::Read,
                ..Default::default()
            },
        );
        drain(&mut s, 0);
        let d: Vec<(u64, u32)> = s.to_dram.iter().map(|d| (d.addr, d.bytes)).collect();
        assert_eq!(d, vec![(a, 128)]);
    }

    use proptest::prelude::*;

    /// One request of a random stream: kind (0 read, 1 acknowledged store, 2 atomic), line
    /// (of 24, so sets fill and lines are evicted with a small cache) and sector.
    fn request() -> impl Strategy<Value = (u8, u8, u8)> {
        (0u8..3, 0u8..24, 0u8..4)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Whatever the write-allocate mode and however DRAM orders its returns, every read and
        /// atomic gets exactly one data reply, every acknowledged store exactly one
        /// acknowledgement, and the slice ends idle.
        #[test]
        fn every_request_is_answered_once(
            mode in 0usize..6,
            reqs in proptest::collection::vec(request(), 1..120),
            delays in proptest::collection::vec(1u64..40, 256),
        ) {
            let alloc = ["lazy", "naive", "none"][mode % 3];
            let mut g = GpuConfig::preset("gtx480").unwrap();
            g.l2.cache.write_allocate = alloc.into();
            g.l2.sector_requests = mode >= 3;
            g.l2.cache.sets = 2;
            g.l2.cache.ways = 2;
            g.l2.cache.mshr_entries = 4;
            let map = AddrMap::new(&g.dram, g.l2.slices_per_channel).unwrap();
            let lines: Vec<u64> = (0..1u64 << 22)
                .map(|i| i * 128)
                .filter(|&a| map.slice(a) == 0)
                .take(24)
                .collect();
            let mut s = L2Slice::new(0, &g.l2, map);
            let mut sent = std::collections::VecDeque::new();
            for (i, &(kind, line, sector)) in reqs.iter().enumerate() {
                let kind = [ReqKind::Read, ReqKind::Write, ReqKind::Atomic][kind as usize];
                let id = if kind == ReqKind::Write { ACK | i as u32 } else { i as u32 };
                sent.push_back(MemReq {
                    addr: lines[line as usize] + 32 * sector as u64,
                    bytes: 32,
                    kind,
                    id,
                    ..Default::default()
                });
            }
            let mut answered = vec![0u32; reqs.len()];
            let mut dram: Vec<(u64, DramReq)> = Vec::new();
            let mut k = 0;
            let mut now = 0u64;
            while now < 200_000 && (!sent.is_empty() || s.busy() || !dram.is_empty()) {
                if let Some(r) = sent.front() {
                    if s.can_accept() {
                        s.accept(now, *r);
                        sent.pop_front();
                    }
                }
                s.cycle(now);
                while let Some(d) = s.to_dram.pop_front() {
                    dram.push((now + delays[k % delays.len()], d));
                    k += 1;
                }
                // DRAM answers in its own order: whatever is due, reads and acknowledged writes.
                let mut i = 0;
                while i < dram.len() {
                    if dram[i].0 <= now {
                        let (_, d) = dram.swap_remove(i);
                        if !d.write || d.ack.is_some() {
                            s.dram_return(now, &d);
                        }
                    } else {
                        i += 1;
                    }
                }
                while let Some(r) = s.out_q.pop_front() {
                    prop_assert_eq!(r.kind, ReqKind::Reply);
                    let i = (r.id & !ACK) as usize;
                    let is_store = reqs[i].0 == 1;
                    prop_assert_eq!(r.bytes == 0, is_store, "reply size of request {}", i);
                    answered[i] += 1;
                }
                now += 1;
            }
            prop_assert!(!s.busy(), "{} still busy after {} cycles", alloc, now);
            prop_assert!(answered.iter().all(|&n| n == 1), "{}: {:?}", alloc, answered);
        }
    }
}
