//! An L2 slice (memory sub-partition; spec 000 §8.1 item 5): requests from the interconnect wait
//! `rop_latency` L2 cycles in the ROP queue, then access the tags (one per cycle). Read misses
//! take an MSHR (merging up to `mshr_merge` requests per line), fetch the line from DRAM and
//! reply to every merged request at fill time; dirty victims are written back. Writes are
//! write-back / write-validate (no fetch on a write miss). Atomics execute here (read, then the
//! line is dirty). DRAM returns wait `dram_latency` L2 cycles before the fill. Every queue is
//! bounded; a request that cannot proceed stays at the head (back-pressure).

use super::cache::{Cache, Lookup, Mshr, WritePolicy};
use super::req::{MemReq, ReqKind, ReqSrc, ACK};
use crate::config::L2Config;
use crate::dram::addrmap::AddrMap;
use crate::dram::DramReq;
use crate::stats::CacheStats;
use std::collections::VecDeque;

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
        }
    }
}

/// One slice.
pub struct L2Slice {
    id: u16,
    cache: Cache,
    mshr: Mshr<MemReq>,
    write: WritePolicy,
    rop: VecDeque<(u64, MemReq)>,
    rop_cap: usize,
    rop_latency: u64,
    dram_latency: u64,
    /// Replies waiting for the reply network.
    pub out_q: VecDeque<MemReq>,
    out_cap: usize,
    /// Requests waiting for the DRAM controller.
    pub to_dram: VecDeque<DramReq>,
    dram_cap: usize,
    fills: VecDeque<(u64, u64)>,
    map: AddrMap,
    sector_bytes: u32,
    merge_cap: usize,
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
            rop: VecDeque::with_capacity(c.input_queue as usize),
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
            stats: CacheStats::default(),
        }
    }

    /// Whether the ROP queue has room.
    pub fn can_accept(&self) -> bool {
        self.rop.len() < self.rop_cap
    }

    /// A request arrives from the interconnect at L2 cycle `now`.
    pub fn accept(&mut self, now: u64, r: MemReq) {
        self.rop.push_back((now + self.rop_latency, r));
    }

    /// A DRAM read of the line at `addr` completed (L2 cycle `now`).
    pub fn dram_return(&mut self, now: u64, addr: u64) {
        self.fills.push_back((now + self.dram_latency, addr));
    }

    /// Whether anything is queued or outstanding.
    pub fn busy(&self) -> bool {
        !self.rop.is_empty()
            || !self.out_q.is_empty()
            || !self.to_dram.is_empty()
            || !self.fills.is_empty()
            || self.mshr.used() > 0
    }

    /// Idle skipping: the earliest L2 cycle (`>= now`) at which [`L2Slice::cycle`] or the
    /// queues to the networks and DRAM could change state; `None` when nothing is pending here
    /// (an MSHR waiting for DRAM is woken by the DRAM return, which the caller tracks).
    pub fn next_event(&self, now: u64) -> Option<u64> {
        if !self.out_q.is_empty() || !self.to_dram.is_empty() {
            return Some(now);
        }
        let rop = self.rop.front().map(|&(t, _)| t.max(now));
        let fill = self.fills.front().map(|&(t, _)| t.max(now));
        match (rop, fill) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
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
            bank: d.bank,
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
    pub fn cycle(&mut self, now: u64) {
        self.fill_step(now);
        if let Some(&(t, r)) = self.rop.front() {
            if t <= now && self.access(&r) {
                self.rop.pop_front();
            }
        }
    }

    fn fill_step(&mut self, now: u64) {
        let Some(&(t, addr)) = self.fills.front() else {
            return;
        };
        if t > now || self.out_q.len() + self.merge_cap > self.out_cap {
            return;
        }
        self.fills.pop_front();
        let line = self.local_line(addr);
        let full = self.cache.full_mask();
        self.cache.fill(line, full);
        let mut dirty_atomic = false;
        let out = &mut self.out_q;
        self.mshr.close(line, |w| {
            if w.kind == ReqKind::Atomic {
                dirty_atomic = true;
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

    /// Processes request `r`; false if it must wait. A store tagged [`ACK`] is acknowledged
    /// with a 0-byte reply once processed (GPGPU-Sim retires a warp only when its stores are
    /// acknowledged).
    fn access(&mut self, r: &MemReq) -> bool {
        let ack = r.kind == ReqKind::Write && r.id != u32::MAX && r.id & ACK != 0;
        if ack && self.out_q.len() >= self.out_cap {
            return false;
        }
        let done = self.access_inner(r);
        if done && ack {
            self.out_q.push_back(MemReq {
                kind: ReqKind::Reply,
                bytes: 0,
                bypass: true,
                ..*r
            });
        }
        done
    }

    fn access_inner(&mut self, r: &MemReq) -> bool {
        let line = self.local_line(r.addr);
        let sectors = self.cache.sectors_of(r.addr, r.bytes);
        let look = self.cache.lookup(line, sectors);
        match r.kind {
            ReqKind::Write if self.write == WritePolicy::WriteBack => {
                match look {
                    Lookup::Hit(w) | Lookup::SectorMiss(w) | Lookup::Pending(w) => {
                        self.cache.write(line, w, sectors, true)
                    }
                    Lookup::Miss => {
                        if self.to_dram.len() >= self.dram_cap || !self.cache.can_allocate(line) {
                            self.stats.reservation_fails += 1;
                            return false;
                        }
                        let (w, ev) = self.cache.allocate(line, false).expect("checked");
                        self.evict(ev);
                        self.cache.write(line, w, sectors, true);
                    }
                }
                self.count(matches!(look, Lookup::Hit(_)), true);
                true
            }
            ReqKind::Write => {
                if self.to_dram.len() >= self.dram_cap {
                    self.stats.reservation_fails += 1;
                    return false;
                }
                match (self.write, look) {
                    (WritePolicy::WriteThrough, Lookup::Hit(w) | Lookup::SectorMiss(w)) => {
                        self.cache.write(line, w, sectors, false)
                    }
                    (_, Lookup::Hit(_) | Lookup::SectorMiss(_)) => self.cache.invalidate(line),
                    _ => {}
                }
                let d = self.dram_req(r.addr, r.bytes, true);
                self.to_dram.push_back(d);
                self.count(matches!(look, Lookup::Hit(_)), true);
                true
            }
            ReqKind::Read | ReqKind::Atomic => match look {
                Lookup::Hit(w) => {
                    if self.out_q.len() >= self.out_cap {
                        return false;
                    }
                    self.cache.touch(line, w);
                    if r.kind == ReqKind::Atomic {
                        self.cache.write(line, w, sectors, true);
                    }
                    self.out_q.push_back(Self::reply(r));
                    self.count(true, false);
                    true
                }
                Lookup::Pending(_) => match self.mshr.find(line) {
                    Some(e) if self.mshr.can_merge(e) => {
                        self.mshr.merge(e, *r);
                        self.stats.merged += 1;
                        self.count(false, false);
                        true
                    }
                    _ => {
                        self.stats.reservation_fails += 1;
                        false
                    }
                },
                Lookup::SectorMiss(_) | Lookup::Miss => {
                    let ok = self.mshr.has_free()
                        && self.to_dram.len() + 2 <= self.dram_cap
                        && (matches!(look, Lookup::SectorMiss(_)) || self.cache.can_allocate(line));
                    if !ok {
                        self.stats.reservation_fails += 1;
                        return false;
                    }
                    if let Lookup::SectorMiss(w) = look {
                        self.cache.reserve(line, w);
                    } else {
                        let (_, ev) = self.cache.allocate(line, true).expect("checked");
                        self.evict(ev);
                    }
                    self.mshr.open(line, *r);
                    let lb = self.cache.line_bytes();
                    let d = self.dram_req(r.addr & !(lb - 1), lb as u32, false);
                    self.to_dram.push_back(d);
                    self.count(false, false);
                    true
                }
            },
            ReqKind::Reply => true,
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
