//! One SIMT core (SM), spec 000 §1.1 and §8.1 item 1. Stages, per core cycle:
//!
//! * sequential phase ([`Sm::dispatch_cta`], [`Sm::fetch`]): CTA dispatch, and fetch through the
//!   L1I into per-warp instruction buffers. Fetch calls [`WarpSource::next`], which executes the
//!   instruction functionally, so it runs in SM order; a warp is not fetched past a barrier
//!   until its CTA has arrived, nor past a branch until it has executed.
//! * parallel phase ([`Sm::cycle`]): writeback events, one reply from the interconnect (L1
//!   fill), the LD/ST unit (coalescer, shared memory, constant cache, L1D), operand collectors
//!   with register-bank arbitration and dispatch to SP/SFU/LD-ST units, then issue by the warp
//!   schedulers (scoreboard, barriers), and retirement of finished warps and CTAs.

use super::sched::{self, SchedView, WarpScheduler};
use super::warp::{Warp, MAX_IBUF};
use crate::config::{ClassCycles, GpuConfig};
use crate::dram::addrmap::AddrMap;
use crate::mem::cache::{Cache, Lookup, Mshr};
use crate::mem::coalesce::{coalesce, distinct_chunks, Txn, MAX_TXNS};
use crate::mem::code;
use crate::mem::l1::{AccessKind, Outcome, L1};
use crate::mem::req::{MemReq, ReqKind, ReqSrc, ACK};
use crate::mem::shared::conflict_degree;
use crate::stats::{CacheStats, CoreStats, StallStats};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use warpforge_core::{
    DynInst, KernelInfo, MemSpace, OpClass, SourceError, WarpSource, WarpStep, MAX_DST, WARP_SIZE,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    /// ALU result (or branch resolution) of `warp` written back.
    Writeback {
        warp: u8,
        regs: [u16; MAX_DST],
        n: u8,
        branch: bool,
    },
    /// One transaction of a load tracker completed.
    Tracker(u32),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Sp,
    Sfu,
    Mem,
    None,
}

#[derive(Clone, Copy, Default)]
struct Tracker {
    warp: u8,
    n: u8,
    regs: [u16; MAX_DST],
    pending: u32,
}

#[derive(Clone)]
struct Cu {
    busy: bool,
    warp: u8,
    seq: u64,
    reads: u8,
    banks: [u8; 8],
    inst: DynInst,
}

#[derive(Clone, Copy, Default)]
struct CtaSlot {
    active: bool,
    cta: u32,
    warps: u64,
    live: u32,
    arrived: u32,
    regs: u32,
    smem: u32,
}

/// What the LD/ST unit is working on.
struct LdSt {
    busy: bool,
    warp: u8,
    kind: AccessKind,
    src: ReqSrc,
    pc: u64,
    ntx: usize,
    next: usize,
    tracker: u32,
    txns: [Txn; MAX_TXNS],
    shared_left: u32,
}

/// Why a warp cannot issue; lower is closer to issuing (the stall attributed to a cycle).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Why {
    Structural,
    Ldst,
    MemData,
    DataHazard,
    Control,
    Fetch,
    Sync,
    Idle,
}

/// One SM.
pub struct Sm {
    id: u16,
    // configuration
    max_warps: usize,
    regs_total: u32,
    smem_total: u32,
    n_sched: usize,
    ibuf_cap: u8,
    fetch_per_cycle: u32,
    decode: u64,
    lat: ClassCycles,
    ii: ClassCycles,
    dp_on_sfu: bool,
    reg_banks: u32,
    smem_banks: u32,
    smem_bank_bytes: u32,
    smem_latency: u64,
    l1i_miss: u64,
    skip_idle: bool,
    l1d_line: u64,
    l1d_sector: u64,
    const_line: u64,
    out_cap: usize,
    in_cap: usize,
    // state
    warps: Vec<Warp>,
    ctas: Vec<CtaSlot>,
    used_warps: u64,
    regs_used: u32,
    smem_used: u32,
    scheds: Vec<Box<dyn WarpScheduler>>,
    sched_masks: Vec<u64>,
    ages: Vec<u64>,
    age_counter: u64,
    fetch_rr: usize,
    l1i: Cache,
    /// Outstanding L1I line misses (one entry per line; waiters are found by scanning warps).
    imshr: Mshr<u8>,
    /// Warps whose missing L1I line has no MSHR entry yet (waiting for a free one).
    imiss_unsent: u64,
    /// L1I miss requests waiting for the request network (sent before data misses).
    imiss_q: VecDeque<MemReq>,
    /// Code window of the running kernel ([`code::code_base`]).
    code_base: u64,
    l1d: L1,
    cc: L1,
    map: AddrMap,
    cus: Vec<Cu>,
    cu_range: [(usize, usize); 3],
    cu_seq: u64,
    cu_rr: usize,
    sp_free: Vec<u64>,
    sfu_free: Vec<u64>,
    ldst: Box<LdSt>,
    trackers: Vec<Tracker>,
    free_trackers: Vec<u32>,
    events: BinaryHeap<Reverse<(u64, u64, Ev)>>,
    ev_seq: u64,
    woken: Vec<u32>,
    chunks: [u64; WARP_SIZE],
    /// Requests waiting for the request network.
    pub out_q: VecDeque<MemReq>,
    /// Replies delivered by the reply network.
    pub in_q: VecDeque<MemReq>,
    /// CTAs finished this cycle (linear ids), for the sequential phase to release.
    pub finished: Vec<u32>,
    /// Something issued or a reply was consumed this cycle.
    pub progressed: bool,
    /// A warp exited this cycle.
    pub exited_warp: bool,
    /// Pipeline counters.
    pub stats: CoreStats,
    /// Issue-stall counters.
    pub stalls: StallStats,
    /// L1I counters.
    pub l1i_stats: CacheStats,
}

impl Sm {
    /// SM `id` of `cfg`.
    pub fn new(id: u16, cfg: &GpuConfig, map: AddrMap) -> Self {
        let c = &cfg.core;
        let ctor = sched::find(&c.scheduler).expect("validated scheduler");
        let n_sched = c.schedulers as usize;
        let mut sched_masks = vec![0u64; n_sched];
        for w in 0..c.max_warps as usize {
            sched_masks[w % n_sched] |= 1 << w;
        }
        let (a, b, m) = (
            c.collectors_sp as usize,
            c.collectors_sfu as usize,
            c.collectors_mem as usize,
        );
        let cu = Cu {
            busy: false,
            warp: 0,
            seq: 0,
            reads: 0,
            banks: [0; 8],
            inst: DynInst::default(),
        };
        Self {
            id,
            max_warps: c.max_warps as usize,
            regs_total: c.registers,
            smem_total: c.shared_bytes,
            n_sched,
            ibuf_cap: c.ibuffer_entries.min(MAX_IBUF as u32) as u8,
            fetch_per_cycle: c.fetch_per_cycle,
            decode: c.decode_latency as u64,
            lat: c.latency.clone(),
            ii: c.initiation.clone(),
            dp_on_sfu: c.dp_on_sfu,
            reg_banks: c.reg_banks,
            smem_banks: cfg.shared.banks,
            smem_bank_bytes: cfg.shared.bank_bytes,
            smem_latency: cfg.shared.latency as u64,
            l1i_miss: cfg.l1i.miss_latency as u64,
            skip_idle: cfg.sim.skip_idle,
            l1d_line: cfg.l1d.line_bytes as u64,
            l1d_sector: cfg.l1d.sector_bytes as u64,
            const_line: cfg.const_cache.line_bytes as u64,
            out_cap: cfg.icnt.input_buffer as usize,
            in_cap: cfg.icnt.ejection_buffer as usize,
            warps: vec![Warp::default(); c.max_warps as usize],
            ctas: vec![CtaSlot::default(); c.max_ctas as usize],
            used_warps: 0,
            regs_used: 0,
            smem_used: 0,
            scheds: (0..n_sched).map(|_| ctor(c)).collect(),
            sched_masks,
            ages: vec![0; 64],
            age_counter: 0,
            fetch_rr: 0,
            l1i: Cache::new(&cfg.l1i),
            imshr: Mshr::new(cfg.l1i.mshr_entries as usize, 1),
            imiss_unsent: 0,
            imiss_q: VecDeque::with_capacity(cfg.l1i.mshr_entries as usize),
            code_base: code::code_base(""),
            l1d: L1::new(&cfg.l1d, ReqSrc::L1d),
            cc: L1::new(&cfg.const_cache, ReqSrc::Const),
            map,
            cus: vec![cu; a + b + m],
            cu_range: [(0, a), (a, a + b), (a + b, a + b + m)],
            cu_seq: 0,
            cu_rr: 0,
            sp_free: vec![0; c.sp_units as usize],
            sfu_free: vec![0; c.sfu_units as usize],
            ldst: Box::new(LdSt {
                busy: false,
                warp: 0,
                kind: AccessKind::Load,
                src: ReqSrc::L1d,
                pc: 0,
                ntx: 0,
                next: 0,
                tracker: u32::MAX,
                txns: [Txn::default(); MAX_TXNS],
                shared_left: 0,
            }),
            trackers: vec![Tracker::default(); c.load_trackers as usize],
            free_trackers: (0..c.load_trackers).rev().collect(),
            events: BinaryHeap::with_capacity(1024),
            ev_seq: 0,
            woken: Vec::with_capacity(64),
            chunks: [0; WARP_SIZE],
            out_q: VecDeque::with_capacity(cfg.icnt.input_buffer as usize),
            in_q: VecDeque::with_capacity(cfg.icnt.ejection_buffer as usize),
            finished: Vec::with_capacity(c.max_ctas as usize),
            progressed: false,
            exited_warp: false,
            stats: CoreStats::default(),
            stalls: StallStats::default(),
            l1i_stats: CacheStats::default(),
        }
    }

    /// L1D counters.
    pub fn l1d_stats(&self) -> &CacheStats {
        &self.l1d.stats
    }
    /// Constant-cache counters.
    pub fn const_stats(&self) -> &CacheStats {
        &self.cc.stats
    }

    /// Whether the SM holds any CTA.
    pub fn has_work(&self) -> bool {
        self.used_warps != 0
    }

    /// Whether anything is in flight (events, memory, queues).
    pub fn busy(&self) -> bool {
        self.used_warps != 0
            || !self.events.is_empty()
            || self.l1d.busy()
            || self.cc.busy()
            || !self.out_q.is_empty()
            || !self.in_q.is_empty()
            || self.imshr.used() > 0
    }

    /// Whether CTA dispatch could place a CTA of `k` here now (the checks of
    /// [`Sm::dispatch_cta`] before it touches anything).
    pub fn can_take_cta(&self, k: &KernelInfo) -> bool {
        let (w, r, s) = Self::cta_resources(k);
        let free_warps = self.max_warps as u32 - self.used_warps.count_ones();
        self.ctas.iter().any(|c| !c.active)
            && w <= free_warps
            && self.regs_used + r <= self.regs_total
            && self.smem_used + s <= self.smem_total
    }

    /// Whole-GPU idle skipping: `None` when fetch, a pipeline stage or retirement might change
    /// state in core cycle `now`; otherwise `Some(t)`, the earliest core cycle at which this SM's
    /// own state could change (`u64::MAX`: only a reply from the network can wake it). In
    /// cycles `now..t`, with no reply arriving, [`Sm::cycle`] would only count the same stall
    /// reasons and occupancy every cycle, which [`Sm::skip_cycles`] adds in bulk. Conservative:
    /// any queued request, busy collector or LD/ST unit, fetchable or retirable warp, or warp
    /// ready to issue means "not quiet".
    pub fn quiet_until(&self, now: u64) -> Option<u64> {
        if self.skip_idle && !self.busy() {
            return Some(u64::MAX);
        }
        if !self.in_q.is_empty()
            || !self.out_q.is_empty()
            || self.imiss_unsent != 0
            || !self.imiss_q.is_empty()
            || !self.l1d.miss_queue.is_empty()
            || !self.cc.miss_queue.is_empty()
            || self.ldst.busy
            || self.cus.iter().any(|c| c.busy)
        {
            return None;
        }
        let mut until = self.events.peek().map_or(u64::MAX, |Reverse((t, _, _))| *t);
        if until <= now {
            return None;
        }
        let mut m = self.used_warps;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            let wp = &self.warps[w];
            if !wp.live {
                continue;
            }
            if wp.refetch
                || (wp.len == 0 && !wp.fetch_done && !wp.fetch_barrier && !wp.branch_pending)
                || (wp.exited() && wp.inflight == 0)
            {
                return None;
            }
            if wp.len > 0 {
                let t = wp.ready_at[wp.head as usize];
                if t > now {
                    until = until.min(t);
                }
            }
        }
        let free = self.free_units();
        for s in 0..self.n_sched {
            if self.classify(s, now, &free).1 != 0 {
                return None;
            }
        }
        Some(until)
    }

    /// Accounts `n` core cycles from `now` in which [`Sm::quiet_until`] said nothing happens:
    /// the stall reasons, occupancy and collector round robin advance exactly as `n` calls of
    /// [`Sm::cycle`] would.
    pub fn skip_cycles(&mut self, now: u64, n: u64) {
        self.progressed = false;
        self.exited_warp = false;
        let nc = self.cus.len().max(1) as u64;
        self.cu_rr = ((self.cu_rr as u64 + n) % nc) as usize;
        if self.skip_idle && !self.busy() {
            self.stalls.idle += self.n_sched as u64 * n;
            return;
        }
        let free = self.free_units();
        for s in 0..self.n_sched {
            let why = self.classify(s, now, &free).3;
            self.count_stall(why, n);
        }
        let live = self.used_warps.count_ones() as u64;
        self.stats.warp_cycles += live * n;
        if live > 0 {
            self.stats.active_cycles += n;
        }
    }

    /// Room for one more reply from the network.
    pub fn can_accept_reply(&self) -> bool {
        self.in_q.len() < self.in_cap
    }

    /// Kernel boundary: flush the L1D and constant cache (GPGPU-Sim `-gpgpu_flush_l1_cache 1`)
    /// and the L1I; the kernel's instructions live at `code_base` ([`code::code_base`]).
    pub fn start_kernel(&mut self, code_base: u64) {
        self.code_base = code_base;
        self.l1d.flush();
        self.cc.flush();
        self.l1i.invalidate_all();
    }

    fn cta_resources(k: &KernelInfo) -> (u32, u32, u32) {
        let warps = k.warps_per_cta();
        let regs = k.regs_per_thread * warps * WARP_SIZE as u32;
        (warps, regs, k.shared_bytes)
    }

    /// Whether a CTA of `k` could ever fit on an empty SM (error text if not).
    pub fn check_fits(cfg: &GpuConfig, k: &KernelInfo) -> Result<(), String> {
        let (w, r, s) = Self::cta_resources(k);
        let c = &cfg.core;
        if w > c.max_warps {
            return Err(format!(
                "a CTA of {} warps exceeds core.max_warps = {}",
                w, c.max_warps
            ));
        }
        if r > c.registers {
            return Err(format!(
                "a CTA needs {r} registers, core.registers = {}",
                c.registers
            ));
        }
        if s > c.shared_bytes {
            return Err(format!(
                "a CTA needs {s} B of shared memory, core.shared_bytes = {}",
                c.shared_bytes
            ));
        }
        Ok(())
    }

    /// Tries to place CTA `cta` here; returns whether it was placed.
    pub fn dispatch_cta(
        &mut self,
        cta: u32,
        k: &KernelInfo,
        src: &mut dyn WarpSource,
    ) -> Result<bool, SourceError> {
        let (w, r, s) = Self::cta_resources(k);
        let free_warps = self.max_warps as u32 - self.used_warps.count_ones();
        let Some(slot) = self.ctas.iter().position(|c| !c.active) else {
            return Ok(false);
        };
        if w > free_warps
            || self.regs_used + r > self.regs_total
            || self.smem_used + s > self.smem_total
        {
            return Ok(false);
        }
        let n = src.start_cta(cta, self.id as u32)?;
        let mut mask = 0u64;
        let mut placed = 0;
        for ws in 0..self.max_warps {
            if placed == n {
                break;
            }
            if self.used_warps & (1 << ws) != 0 {
                continue;
            }
            mask |= 1 << ws;
            let wp = &mut self.warps[ws];
            *wp = Warp {
                live: true,
                cta_slot: slot as u8,
                cta,
                warp_in_cta: placed,
                age: self.age_counter,
                ..Warp::default()
            };
            self.ages[ws] = self.age_counter;
            self.age_counter += 1;
            placed += 1;
        }
        self.used_warps |= mask;
        self.regs_used += r;
        self.smem_used += s;
        self.ctas[slot] = CtaSlot {
            active: true,
            cta,
            warps: mask,
            live: placed,
            arrived: 0,
            regs: r,
            smem: s,
        };
        Ok(true)
    }

    /// Sequential phase: fetch for up to `fetch_per_cycle` warps.
    pub fn fetch(&mut self, now: u64, src: &mut dyn WarpSource) -> Result<(), SourceError> {
        if self.used_warps == 0 {
            return Ok(());
        }
        for _ in 0..self.fetch_per_cycle {
            let mut pick = None;
            let mut m = self.used_warps;
            // Round robin from fetch_rr.
            let rot = m.rotate_right(self.fetch_rr as u32);
            m = rot;
            while m != 0 {
                let k = m.trailing_zeros() as usize;
                m &= m - 1;
                let w = (k + self.fetch_rr) % 64;
                let wp = &self.warps[w];
                if wp.live
                    && (wp.refetch
                        || (wp.len == 0
                            && !wp.fetch_done
                            && !wp.fetch_barrier
                            && !wp.branch_pending))
                {
                    pick = Some(w);
                    break;
                }
            }
            let Some(w) = pick else { return Ok(()) };
            self.fetch_rr = (w + 1) % 64;
            if self.warps[w].refetch {
                self.refetch(w, now);
                let wp = &self.warps[w];
                if wp.fetch_done || wp.fetch_barrier || wp.branch_pending {
                    continue;
                }
            }
            self.fetch_warp(w, now, src)?;
        }
        Ok(())
    }

    fn fetch_warp(
        &mut self,
        w: usize,
        now: u64,
        src: &mut dyn WarpSource,
    ) -> Result<(), SourceError> {
        let mut ready = now + self.decode;
        let cap = self.ibuf_cap;
        loop {
            let wp = &mut self.warps[w];
            if wp.len >= cap {
                break;
            }
            let slot = ((wp.head + wp.len) as usize) % MAX_IBUF;
            let step = src.next(wp.cta, wp.warp_in_cta, &mut wp.ibuf[slot])?;
            if step == WarpStep::Done {
                wp.fetch_done = true;
                break;
            }
            let inst = &wp.ibuf[slot];
            let pc = inst.pc;
            wp.last_pc = pc;
            let line = self.l1i.line_of(code::code_addr(self.code_base, pc));
            self.l1i_stats.accesses += 1;
            let mut missed = false;
            match self.l1i.lookup(line, 1) {
                Lookup::Hit(way) => {
                    self.l1i.touch(line, way);
                    self.l1i_stats.hits += 1;
                }
                _ if self.l1i_miss > 0 => {
                    // Fixed-penalty mode (`l1i.miss_latency > 0`): fill at once, pay the penalty.
                    self.l1i_stats.misses += 1;
                    self.l1i_fill(line);
                    ready = ready.max(now + self.l1i_miss + self.decode);
                }
                _ => {
                    // Realistic mode: the entry waits for the line from L2 (see `imiss_step`,
                    // which counts the miss, or a merge into an outstanding miss).
                    missed = true;
                }
            }
            let wp = &mut self.warps[w];
            let inst = &wp.ibuf[slot];
            let class = inst.class;
            let exits = inst.warp_exits;
            wp.ready_at[slot] = if missed { u64::MAX } else { ready };
            wp.len += 1;
            if missed {
                wp.imiss = Some(line);
                self.imiss_unsent |= 1 << w;
            }
            if exits {
                wp.fetch_done = true;
                break;
            }
            if class == OpClass::Barrier {
                wp.fetch_barrier = true;
                break;
            }
            if class == OpClass::Branch {
                wp.branch_pending = true;
                break;
            }
            if missed {
                // Fetch resumes for this warp once the line has arrived and the entry issued.
                break;
            }
        }
        let cs = self.warps[w].cta_slot as usize;
        if self.warps[w].fetch_done {
            self.check_barrier(cs);
        }
        Ok(())
    }

    /// The fetch slot re-accesses the L1I for warp `w` after its line arrived: the waiting
    /// entry becomes issuable after decode.
    fn refetch(&mut self, w: usize, now: u64) {
        let ready = now + self.decode;
        let wp = &mut self.warps[w];
        wp.refetch = false;
        for k in 0..wp.len as usize {
            let slot = (wp.head as usize + k) % MAX_IBUF;
            if wp.ready_at[slot] == u64::MAX {
                wp.ready_at[slot] = ready;
            }
        }
    }

    /// Installs L1I line `line` (allocate, evicting as the policy says, and mark valid).
    fn l1i_fill(&mut self, line: u64) {
        if let Some((_, ev)) = self.l1i.allocate(line, false) {
            if ev.is_some() {
                self.l1i_stats.evictions += 1;
            }
            let full = self.l1i.full_mask();
            self.l1i.fill(line, full);
        }
    }

    /// L1I misses to the memory system: every warp waiting for a line without an MSHR entry
    /// joins the entry of that line or opens one (when free), which queues a line-size read to
    /// the L2 slice owning the code address. Allocation-free: the MSHR and the queue are
    /// preallocated (`l1i.mshr_entries`).
    fn imiss_step(&mut self) {
        let mut m = self.imiss_unsent;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            let Some(line) = self.warps[w].imiss else {
                self.imiss_unsent &= !(1 << w);
                continue;
            };
            if self.imshr.find(line).is_some() {
                self.l1i_stats.merged += 1;
            } else {
                if !self.imshr.has_free() {
                    continue;
                }
                self.l1i_stats.misses += 1;
                self.imshr.open(line, w as u8);
                let addr = line * self.l1i.line_bytes();
                self.imiss_q.push_back(MemReq {
                    addr,
                    bytes: self.l1i.line_bytes() as u32,
                    kind: ReqKind::Read,
                    src: ReqSrc::L1i,
                    bypass: false,
                    sm: self.id,
                    slice: self.map.slice(addr) as u16,
                    id: u32::MAX,
                    born: 0,
                });
            }
            self.imiss_unsent &= !(1 << w);
        }
    }

    /// An L1I line arrived from L2: install it and mark every warp waiting for it for a
    /// re-fetch (the fetch unit then serves them one per fetch slot).
    fn ifill(&mut self, r: &MemReq) {
        let line = self.l1i.line_of(r.addr);
        self.l1i_fill(line);
        self.imshr.close(line, |_| {});
        let mut m = self.used_warps;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            let wp = &mut self.warps[w];
            if wp.imiss != Some(line) {
                continue;
            }
            wp.imiss = None;
            wp.refetch = true;
            if self.imiss_unsent & (1 << w) != 0 {
                // Missed on this line in the cycle it arrived: counted as a merge.
                self.l1i_stats.merged += 1;
                self.imiss_unsent &= !(1 << w);
            }
        }
    }

    /// Releases the barrier of CTA slot `cs` when every warp has arrived or is done.
    fn check_barrier(&mut self, cs: usize) {
        let c = self.ctas[cs];
        if !c.active || c.arrived == 0 {
            return;
        }
        let mut m = c.warps;
        let mut all = true;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            let wp = &self.warps[w];
            if wp.live && !wp.at_barrier && !wp.fetch_done {
                all = false;
                break;
            }
        }
        if !all {
            return;
        }
        let mut m = c.warps;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            let wp = &mut self.warps[w];
            wp.at_barrier = false;
            wp.fetch_barrier = false;
        }
        self.ctas[cs].arrived = 0;
    }

    fn unit_of(&self, c: OpClass) -> Unit {
        match c {
            OpClass::Load | OpClass::Store | OpClass::Atomic | OpClass::Tex => Unit::Mem,
            OpClass::Sfu | OpClass::Conv => Unit::Sfu,
            OpClass::Dp if self.dp_on_sfu => Unit::Sfu,
            OpClass::Barrier | OpClass::Exit | OpClass::Nop | OpClass::Fence => Unit::None,
            _ => Unit::Sp,
        }
    }

    fn class_cycles(t: &ClassCycles, c: OpClass) -> u32 {
        match c {
            OpClass::IntAlu => t.int_alu,
            OpClass::IntMul => t.int_mul,
            OpClass::IntDiv => t.int_div,
            OpClass::FpAlu => t.fp_alu,
            OpClass::FpDiv => t.fp_div,
            OpClass::Dp => t.dp,
            OpClass::Sfu => t.sfu,
            OpClass::Conv => t.conv,
            OpClass::Branch => t.branch,
            OpClass::WarpCollective => t.collective,
            _ => t.misc,
        }
    }

    fn push_ev(&mut self, at: u64, ev: Ev) {
        self.ev_seq += 1;
        self.events.push(Reverse((at, self.ev_seq, ev)));
    }

    fn tracker_done(&mut self, t: u32) {
        let tr = &mut self.trackers[t as usize];
        tr.pending -= 1;
        if tr.pending == 0 {
            let tr = *tr;
            let wp = &mut self.warps[tr.warp as usize];
            for &r in &tr.regs[..tr.n as usize] {
                wp.sb.release(r);
            }
            wp.inflight -= 1;
            wp.pending_loads -= 1;
            self.free_trackers.push(t);
        }
    }

    /// Parallel phase: one core cycle of the pipeline.
    pub fn cycle(&mut self, now: u64) {
        self.progressed = false;
        self.exited_warp = false;
        if self.skip_idle && !self.busy() {
            // Nothing in flight: every stage would find nothing to do; only the schedulers'
            // idle cycles are counted and the collectors' round robin advances, as the full
            // path would.
            self.stalls.idle += self.n_sched as u64;
            self.cu_rr = (self.cu_rr + 1) % self.cus.len().max(1);
            return;
        }
        // Writeback events.
        while let Some(Reverse((t, _, ev))) = self.events.peek().copied() {
            if t > now {
                break;
            }
            self.events.pop();
            match ev {
                Ev::Writeback {
                    warp,
                    regs,
                    n,
                    branch,
                } => {
                    let wp = &mut self.warps[warp as usize];
                    for &r in &regs[..n as usize] {
                        wp.sb.release(r);
                    }
                    wp.inflight -= 1;
                    if branch {
                        wp.branch_pending = false;
                    }
                }
                Ev::Tracker(t) => self.tracker_done(t),
            }
        }
        // One reply per cycle fills the L1D or the constant cache.
        if let Some(r) = self.in_q.pop_front() {
            self.progressed = true;
            if r.bypass && r.id & ACK != 0 && r.id != u32::MAX {
                // A store acknowledgement.
                self.warps[(r.id & !ACK) as usize].inflight -= 1;
            } else {
                self.stats.read_replies += 1;
                self.stats.read_latency_cycles += now.saturating_sub(r.born);
                if r.src == ReqSrc::L1i {
                    self.ifill(&r);
                } else {
                    self.fill_reply(&r);
                }
            }
        }
        if self.imiss_unsent != 0 {
            self.imiss_step();
        }
        self.ldst_step(now);
        // Miss queues to the network (one request per cycle: L1I, then L1D, then constants).
        if self.out_q.len() < self.out_cap {
            let next = if let Some(r) = self.imiss_q.pop_front() {
                Some(r)
            } else if let Some(r) = self.l1d.miss_queue.pop_front() {
                Some(r)
            } else {
                self.cc.miss_queue.pop_front()
            };
            if let Some(r) = next {
                self.out_q.push_back(MemReq { born: now, ..r });
            }
        }
        self.collect_and_dispatch(now);
        self.issue(now);
        self.retire();
        let live = self.used_warps.count_ones() as u64;
        self.stats.warp_cycles += live;
        if live > 0 {
            self.stats.active_cycles += 1;
        }
    }

    fn fill_reply(&mut self, r: &MemReq) {
        let mut woken = std::mem::take(&mut self.woken);
        woken.clear();
        match r.src {
            ReqSrc::L1d => self.l1d.fill(r, |w| woken.push(w)),
            ReqSrc::Const => self.cc.fill(r, |w| woken.push(w)),
            ReqSrc::L1i => unreachable!("L1I replies are handled by `ifill`"),
        }
        for &w in &woken {
            // Atomics without a destination (`red`) have no tracker.
            if w != u32::MAX {
                self.tracker_done(w);
            }
        }
        self.woken = woken;
    }

    fn ldst_step(&mut self, now: u64) {
        let l = &mut *self.ldst;
        if !l.busy {
            return;
        }
        if l.shared_left > 0 {
            l.shared_left -= 1;
            if l.shared_left == 0 {
                l.busy = false;
                if l.tracker == u32::MAX {
                    self.warps[l.warp as usize].inflight -= 1;
                }
            }
            return;
        }
        if l.next < l.ntx {
            let t = l.txns[l.next];
            let unit = match l.src {
                ReqSrc::L1d => &mut self.l1d,
                ReqSrc::Const => &mut self.cc,
                ReqSrc::L1i => unreachable!("the LD/ST unit never accesses the L1I"),
            };
            let waiter = if l.kind == AccessKind::Store {
                ACK | l.warp as u32
            } else {
                l.tracker
            };
            let out = unit.access(&t, l.kind, waiter, l.pc, l.warp as u32, self.id, &self.map);
            let lat = unit.latency as u64;
            match out {
                Outcome::Fail => return,
                Outcome::Hit => {
                    if waiter != u32::MAX && waiter & ACK == 0 {
                        let at = now + lat;
                        self.ldst.next += 1;
                        self.push_ev(at, Ev::Tracker(waiter));
                    } else {
                        self.ldst.next += 1;
                    }
                }
                Outcome::Miss => {
                    if self.ldst.kind == AccessKind::Store {
                        // The store's acknowledgement is now outstanding.
                        self.warps[self.ldst.warp as usize].inflight += 1;
                    }
                    self.ldst.next += 1;
                }
            }
        }
        let l = &mut *self.ldst;
        if l.next >= l.ntx {
            l.busy = false;
            if l.tracker != u32::MAX {
                let t = l.tracker;
                self.tracker_done(t); // the guard count
            } else {
                self.warps[l.warp as usize].inflight -= 1;
            }
        }
    }

    /// Operand collection (register-bank arbitration) and dispatch to execution units.
    fn collect_and_dispatch(&mut self, now: u64) {
        // Dispatch: oldest ready CU per free unit.
        for kind in [Unit::Sp, Unit::Sfu, Unit::Mem] {
            let (lo, hi) = self.cu_range[match kind {
                Unit::Sp => 0,
                Unit::Sfu => 1,
                _ => 2,
            }];
            loop {
                let unit_idx = match kind {
                    Unit::Sp => self.sp_free.iter().position(|&t| t <= now),
                    Unit::Sfu => self.sfu_free.iter().position(|&t| t <= now),
                    _ => (!self.ldst.busy).then_some(0),
                };
                let Some(ui) = unit_idx else { break };
                let mut best: Option<usize> = None;
                for i in lo..hi {
                    let c = &self.cus[i];
                    if c.busy && c.reads == 0 && best.is_none_or(|b| c.seq < self.cus[b].seq) {
                        best = Some(i);
                    }
                }
                let Some(ci) = best else { break };
                if kind == Unit::Mem {
                    if !self.start_mem(ci, now) {
                        break;
                    }
                } else {
                    let inst = &self.cus[ci].inst;
                    let lat = Self::class_cycles(&self.lat, inst.class) as u64;
                    let ii = Self::class_cycles(&self.ii, inst.class) as u64;
                    let mut regs = [0u16; MAX_DST];
                    let n = inst.n_dst;
                    regs[..n as usize].copy_from_slice(inst.dsts());
                    let branch = inst.class == OpClass::Branch;
                    let warp = self.cus[ci].warp;
                    match kind {
                        Unit::Sp => self.sp_free[ui] = now + ii,
                        _ => self.sfu_free[ui] = now + ii,
                    }
                    self.push_ev(
                        now + lat.max(1),
                        Ev::Writeback {
                            warp,
                            regs,
                            n,
                            branch,
                        },
                    );
                }
                self.cus[ci].busy = false;
            }
        }
        // Operand reads: one per bank per cycle, collectors served round robin.
        let mut bank_busy = 0u64;
        let n = self.cus.len();
        for k in 0..n {
            let i = (self.cu_rr + k) % n;
            let c = &mut self.cus[i];
            if !c.busy || c.reads == 0 {
                continue;
            }
            let mut j = 0;
            while j < c.reads as usize {
                let b = c.banks[j];
                if bank_busy & (1 << b) == 0 {
                    bank_busy |= 1 << b;
                    c.reads -= 1;
                    c.banks[j] = c.banks[c.reads as usize];
                } else {
                    self.stats.bank_conflicts += 1;
                    j += 1;
                }
            }
        }
        self.cu_rr = (self.cu_rr + 1) % n.max(1);
    }

    /// Starts the memory instruction of collector `ci` on the LD/ST unit; false if it must wait
    /// (no load tracker free).
    fn start_mem(&mut self, ci: usize, now: u64) -> bool {
        let inst = self.cus[ci].inst;
        let warp = self.cus[ci].warp;
        let mut regs = [0u16; MAX_DST];
        let n_dst = inst.n_dst;
        regs[..n_dst as usize].copy_from_slice(inst.dsts());
        let Some(mem) = inst.mem else {
            // A memory-class instruction without an access: retire it like an ALU operation.
            if n_dst > 0 && inst.class != OpClass::Store {
                let wp = &mut self.warps[warp as usize];
                wp.pending_loads = wp.pending_loads.saturating_sub(1);
            }
            self.push_ev(
                now + 1,
                Ev::Writeback {
                    warp,
                    regs,
                    n: n_dst,
                    branch: false,
                },
            );
            return true;
        };
        let kind = if mem.is_atomic {
            AccessKind::Atomic
        } else if mem.is_store {
            AccessKind::Store
        } else {
            AccessKind::Load
        };
        let tracker = if n_dst > 0 && kind != AccessKind::Store {
            let Some(t) = self.free_trackers.pop() else {
                return false;
            };
            self.trackers[t as usize] = Tracker {
                warp,
                n: n_dst,
                regs,
                pending: 1,
            };
            t
        } else {
            u32::MAX
        };
        let active = inst.active_mask;
        let (mut ntx, mut shared_left, mut src) = (0usize, 0u32, ReqSrc::L1d);
        match mem.space {
            MemSpace::Shared => {
                let d = conflict_degree(&mem, active, self.smem_banks, self.smem_bank_bytes);
                self.stats.shared_accesses += 1;
                self.stats.shared_conflict_cycles += (d - 1) as u64;
                shared_left = d;
                if tracker != u32::MAX {
                    let at = now + self.smem_latency + d as u64 - 1;
                    self.push_ev(at, Ev::Tracker(tracker));
                }
            }
            MemSpace::Const | MemSpace::Param if kind == AccessKind::Load => {
                let n = distinct_chunks(&mem, active, self.const_line, &mut self.chunks);
                src = ReqSrc::Const;
                for i in 0..n {
                    self.ldst.txns[i] = Txn {
                        line_addr: self.chunks[i],
                        sectors: 1,
                        lanes: 0,
                    };
                }
                ntx = n;
            }
            _ => {
                ntx = coalesce(
                    &mem,
                    active,
                    self.l1d_line,
                    self.l1d_sector,
                    &mut self.ldst.txns,
                );
            }
        }
        if tracker != u32::MAX {
            self.trackers[tracker as usize].pending += ntx as u32;
        }
        let l = &mut *self.ldst;
        l.busy = true;
        l.warp = warp;
        l.kind = kind;
        l.pc = inst.pc;
        l.tracker = tracker;
        l.next = 0;
        l.ntx = ntx;
        l.shared_left = shared_left;
        l.src = src;
        true
    }

    fn free_units(&self) -> [usize; 3] {
        let mut free = [0usize; 3];
        for (k, &(lo, hi)) in self.cu_range.iter().enumerate() {
            free[k] = self.cus[lo..hi].iter().filter(|c| !c.busy).count();
        }
        free
    }

    /// Scheduler `s`'s view of its warps at `now`: (mask of warps, ready warps, long-waiting
    /// warps, the stall reason closest to issuing). Reads state only.
    fn classify(&self, s: usize, now: u64, free: &[usize; 3]) -> (u64, u64, u64, Why) {
        let mask = self.sched_masks[s] & self.used_warps;
        let mut ready = 0u64;
        let mut long_wait = 0u64;
        let mut why = Why::Idle;
        let mut m = mask;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            let wp = &self.warps[w];
            let r = if !wp.live {
                continue;
            } else if wp.at_barrier {
                long_wait |= 1 << w;
                Why::Sync
            } else if wp.len == 0 {
                if wp.fetch_done {
                    long_wait |= 1 << w;
                    Why::Sync
                } else if wp.branch_pending {
                    Why::Control
                } else {
                    Why::Fetch
                }
            } else {
                let h = wp.head as usize;
                let inst = &wp.ibuf[h];
                if wp.ready_at[h] > now {
                    Why::Fetch
                } else if wp.sb.hazard(inst).is_some() {
                    if wp.pending_loads > 0 {
                        long_wait |= 1 << w;
                        Why::MemData
                    } else {
                        Why::DataHazard
                    }
                } else {
                    match self.unit_of(inst.class) {
                        Unit::Sp if free[0] == 0 => Why::Structural,
                        Unit::Sfu if free[1] == 0 => Why::Structural,
                        Unit::Mem if free[2] == 0 => Why::Ldst,
                        _ => {
                            ready |= 1 << w;
                            continue;
                        }
                    }
                }
            };
            why = why.min(r);
        }
        (mask, ready, long_wait, why)
    }

    fn count_stall(&mut self, why: Why, n: u64) {
        let st = &mut self.stalls;
        match why {
            Why::Idle => st.idle += n,
            Why::Fetch => st.fetch += n,
            Why::Control => st.control += n,
            Why::Sync => st.sync += n,
            Why::DataHazard => st.data_hazard += n,
            Why::MemData => st.mem_data += n,
            Why::Structural => st.structural += n,
            Why::Ldst => st.ldst += n,
        }
    }

    fn issue(&mut self, now: u64) {
        let mut free = self.free_units();
        for s in 0..self.n_sched {
            let (mask, ready, long_wait, why) = self.classify(s, now, &free);
            let view = SchedView {
                valid: mask,
                ready,
                long_wait,
                age: &self.ages,
            };
            let pick = if ready != 0 {
                self.scheds[s].pick(&view)
            } else {
                None
            };
            match pick {
                Some(w) if ready & (1 << w) != 0 => {
                    self.scheds[s].on_issue(w);
                    self.issue_warp(w, &mut free);
                }
                _ => self.count_stall(why, 1),
            }
        }
    }

    fn issue_warp(&mut self, w: usize, free: &mut [usize; 3]) {
        self.progressed = true;
        let h = self.warps[w].head as usize;
        let inst = self.warps[w].ibuf[h];
        {
            let wp = &mut self.warps[w];
            wp.head = ((h + 1) % MAX_IBUF) as u8;
            wp.len -= 1;
        }
        self.stats.warp_insts += 1;
        self.stats.thread_insts += inst.active_lanes() as u64;
        let unit = self.unit_of(inst.class);
        if unit == Unit::None {
            if inst.class == OpClass::Barrier {
                let cs = self.warps[w].cta_slot as usize;
                self.warps[w].at_barrier = true;
                self.ctas[cs].arrived += 1;
                self.check_barrier(cs);
            }
            return;
        }
        let k = match unit {
            Unit::Sp => 0,
            Unit::Sfu => 1,
            _ => 2,
        };
        free[k] -= 1;
        let (lo, hi) = self.cu_range[k];
        let ci = (lo..hi)
            .find(|&i| !self.cus[i].busy)
            .expect("free collector");
        let wp = &mut self.warps[w];
        for &r in inst.dsts() {
            wp.sb.reserve(r);
        }
        wp.inflight += 1;
        if unit == Unit::Mem && inst.n_dst > 0 && inst.class != OpClass::Store {
            wp.pending_loads += 1;
        }
        self.cu_seq += 1;
        let c = &mut self.cus[ci];
        c.busy = true;
        c.warp = w as u8;
        c.seq = self.cu_seq;
        c.reads = 0;
        for &r in inst.srcs() {
            let b = ((r as u32 + w as u32) % self.reg_banks) as u8;
            c.banks[c.reads as usize] = b;
            c.reads += 1;
        }
        c.inst = inst;
    }

    /// Frees warps that have exited with nothing in flight, and CTAs whose warps all did.
    fn retire(&mut self) {
        let mut m = self.used_warps;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            let wp = &self.warps[w];
            if !(wp.live && wp.exited() && wp.inflight == 0) {
                continue;
            }
            // A warp that has exited also leaves any pending barrier.
            let cs = wp.cta_slot as usize;
            self.warps[w].live = false;
            self.used_warps &= !(1 << w);
            self.exited_warp = true;
            let c = &mut self.ctas[cs];
            c.live -= 1;
            if c.live == 0 {
                c.active = false;
                self.regs_used -= c.regs;
                self.smem_used -= c.smem;
                self.finished.push(c.cta);
                self.stats.ctas += 1;
            } else {
                self.check_barrier(cs);
            }
        }
    }

    /// Describes every live warp and what it waits for (deadlock / livelock diagnosis).
    pub fn diagnose(&self, now: u64, out: &mut String, limit: &mut usize) {
        use std::fmt::Write;
        let mut m = self.used_warps;
        while m != 0 && *limit > 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            let wp = &self.warps[w];
            let c = &self.ctas[wp.cta_slot as usize];
            let what = if wp.at_barrier {
                let n = c.warps.count_ones();
                format!("barrier ({} of {} warps arrived)", c.arrived, n)
            } else if wp.exited() {
                format!("end of CTA ({} instructions in flight)", wp.inflight)
            } else if wp.len == 0 {
                if wp.branch_pending {
                    "branch resolution".to_string()
                } else if wp.fetch_barrier {
                    "barrier release before fetching on".to_string()
                } else {
                    "instruction fetch".to_string()
                }
            } else {
                let inst = &wp.ibuf[wp.head as usize];
                match wp.sb.hazard(inst) {
                    Some(r) if wp.pending_loads > 0 => {
                        format!("register r{r} (a memory load in flight)")
                    }
                    Some(r) => format!("register r{r} (an ALU result)"),
                    None if wp.imiss.is_some() && wp.len == 1 => {
                        "an instruction-cache fill from L2".to_string()
                    }
                    None if wp.refetch && wp.len == 1 => "re-fetch after an L1I fill".to_string(),
                    None if wp.ready_at[wp.head as usize] > now => "decode".to_string(),
                    None => format!("a free {:?} unit", self.unit_of(inst.class)),
                }
            };
            let pc = if wp.len > 0 {
                wp.ibuf[wp.head as usize].pc
            } else {
                wp.last_pc
            };
            let _ = writeln!(
                out,
                "  SM {} warp slot {} (CTA {}, warp {}): pc {:#x}, waits for {}",
                self.id, w, wp.cta, wp.warp_in_cta, pc, what
            );
            *limit -= 1;
        }
    }
}
