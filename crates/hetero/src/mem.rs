//! The shared memory side (spec 004 §7, §10.1 items 1-4): requesters on a ring, the banked
//! shared LLC with per-block MSHRs, and the DRAM controllers run by the memory policy. Time is
//! in memory-side cycles = CPU cycles (4 GHz in the preset; the LLC and ring clock is not given,
//! \[INTERP\] §10.1 item 8); the DRAM command clock is derived from `dram.clock_mhz`.
//!
//! Use: [`MemSystem::issue`] requests at the current cycle, [`MemSystem::advance_to`] a later
//! cycle, then [`MemSystem::drain_completions`] (and [`MemSystem::drain_back_invalidations`] for
//! CPU cores, whose private copies the inclusive LLC revokes).

use crate::config::HeteroConfig;
use crate::dram::{locate, Channel, DramEntry, DramStats};
use crate::fasthash::{FastMap, FastSet};
use crate::llc::Llc;
use crate::policy::{self, Ctx, GpuStatus, MemPolicy};
use crate::req::{Completion, Request, Source};
use crate::ring::Ring;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};

/// Counters of one requester.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct SourceStats {
    /// Read requests.
    pub reads: u64,
    /// Write requests.
    pub writes: u64,
    /// Read LLC hits (ideal ones included).
    pub llc_hits: u64,
    /// Read LLC misses (merged ones included).
    pub llc_misses: u64,
    /// Critical read requests.
    pub critical: u64,
    /// Reads that did not allocate in the LLC.
    pub bypassed: u64,
    /// Reads served by DRAM.
    pub dram_reads: u64,
    /// Of those, GPU reads whose DRAM read was critical (a critical GPU read opened or joined
    /// the LLC miss, or one above the LLC raised it).
    pub dram_critical: u64,
    /// Sum of read latencies, memory cycles (issue to completion).
    pub latency_sum: u64,
    /// Store misses whose block was fetched from DRAM (`llc.gpgpu_store_fetch`).
    pub store_fetches: u64,
}

/// Where the DRAM reads of one requester class waited (a diagnostic of the policies, spec 004
/// §5.4): in front of the controller (the reads that reached it while its read queue was full)
/// and in the read queue, and which reads were ahead of them. Classes of the `[u64; 3]` arrays:
/// 0 = critical GPU read (CG), 1 = non-critical GPU read (NG), 2 = CPU read, each as marked
/// when counted. Cycles are memory (CPU) cycles; every field is a sum over the served reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct WaitStats {
    /// DRAM reads served (column access issued).
    pub reads: u64,
    /// Of those, reads whose column access found the row open without an activation of its
    /// own (row hits).
    pub row_hits: u64,
    /// Cycles from reaching the controller to entering its read queue.
    pub front_cycles: u64,
    /// Cycles from entering the read queue to the column access.
    pub queue_cycles: u64,
    /// Reads waiting in front of the controller, ahead of the read, when it arrived, by class.
    pub ahead_front: [u64; 3],
    /// Reads in the read queue when the read entered it, by class.
    pub ahead_queue: [u64; 3],
    /// Reads of the channel served while the read was in the read queue, by class.
    pub passed_by: [u64; 3],
    /// DRAM command cycles in which the read's channel served its write queue (a write drain,
    /// or writes while no read was queued) while the read was in the read queue.
    pub drain_dram_cycles: u64,
}

/// Where one requester class's reads spent their memory-side latency (issue to delivery,
/// memory cycles), stage by stage: a diagnostic of what the DRAM policies of spec 004 §5 can
/// reach. Reads that opened an LLC miss (`misses`) pass every stage; their stage sums add up
/// to their latency sum. Reads that joined a pending miss of the same block (`merged`) or hit
/// are counted apart. The controller stages (in front of the read queue, in it) are
/// [`WaitStats`]'s `front_cycles` and `queue_cycles`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct ReadStages {
    /// Reads that opened an LLC miss and were served by DRAM.
    pub misses: u64,
    /// Of the misses: issue to the LLC bank's lookup (ring hops and the lookup latency).
    pub lookup: u64,
    /// Of the misses: lookups repeated while every LLC MSHR was busy (the wait for one).
    pub llc_mshr_wait: u64,
    /// Of the misses: MSHR allocated to reaching the memory controller (ring hops).
    pub to_mc: u64,
    /// Of the misses: in front of the controller, waiting for a read-queue entry.
    pub front: u64,
    /// Of the misses: in the read queue until the column access issued.
    pub queue: u64,
    /// Of the misses: column access to the data at the LLC bank (tCL, burst, ring hops).
    pub dram: u64,
    /// Of the misses: LLC bank to the requester (ring hops).
    pub back: u64,
    /// Of the misses: latency, issue to delivery (the sum of the stages above).
    pub latency: u64,
    /// Reads that joined a pending LLC miss of their block.
    pub merged: u64,
    /// Their latency, issue to delivery.
    pub merged_latency: u64,
}

/// The [`WaitStats`] class of a DRAM read: 0 = CG, 1 = NG, 2 = CPU.
fn wait_class(e: &DramEntry) -> usize {
    match (e.source.is_gpu(), e.critical) {
        (true, true) => 0,
        (true, false) => 1,
        (false, _) => 2,
    }
}

/// A DRAM read being followed for [`WaitStats`].
struct Follow {
    ahead_front: [u64; 3],
    admitted: u64,
    ahead_queue: [u64; 3],
    served_at_admission: [u64; 3],
    drain_at_admission: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    /// The request reaches its LLC bank.
    Lookup(u64),
    /// A miss reaches its memory controller.
    ToMc(u64),
    /// A write-back reaches its memory controller: (block, owner index).
    Writeback(u64, u16, bool),
    /// DRAM data is back at the LLC bank (MSHR token).
    Fill(u64),
    /// A completion reaches its requester.
    Deliver(u64),
}

struct Inflight {
    req: Request,
    issued: u64,
    llc_hit: bool,
}

/// A read lookup that found every LLC MSHR busy and its block neither in the LLC nor missing
/// already: it looks up again in the next cycle, at the place in that cycle's event order that
/// a lookup event re-queued for the next cycle would take (`seq`). While every MSHR stays busy
/// and nothing happened to its block (`epoch` = [`MemSystem::line_epoch`] of its last full
/// look-up), the next look-up is known to fail again, and only its effects on the policy
/// (the LLC miss it reports, its bypass decision) are repeated.
#[derive(Clone, Copy)]
struct Waiting {
    seq: u64,
    tok: u64,
    req: Request,
    epoch: u64,
}

struct Mshr {
    waiters: Vec<u64>,
    line: u64,
    source: Source,
    critical: bool,
    allocate: bool,
    /// The fill allocates the block dirty: a GPGPU store joined or opened the miss
    /// (`llc.gpgpu_store_fetch`).
    dirty: bool,
    /// A read opened the miss (its first waiter); false when a store's fetch opened it, so
    /// every read waiter merged into it.
    read_opened: bool,
    /// Memory cycle the MSHR was allocated, and the one its DRAM read's column access issued
    /// ([`ReadStages`]).
    created: u64,
    served: u64,
    /// Its DRAM read's cycles in front of the controller and in the read queue.
    front: u64,
    queue: u64,
}

fn src_code(s: Source) -> u16 {
    match s {
        Source::Cpu(i) => i as u16,
        Source::Gpgpu => 0x8000,
        Source::Gfx(u) => 0x4000 | (u & 0x3fff),
    }
}

fn src_of(c: u16) -> Source {
    if c == 0x8000 {
        Source::Gpgpu
    } else if c & 0x4000 != 0 {
        Source::Gfx(c & 0x3fff)
    } else {
        Source::Cpu(c as u8)
    }
}

/// The shared LLC, ring and DRAM with a memory policy.
pub struct MemSystem {
    cfg: HeteroConfig,
    now: u64,
    ring: Ring,
    llc: Llc,
    channels: Vec<Channel>,
    policy: Box<dyn MemPolicy>,
    gpu: GpuStatus,
    events: BinaryHeap<Reverse<(u64, u64, Ev)>>,
    seq: u64,
    inflight: FastMap<u64, Inflight>,
    next_tok: u64,
    mshrs: FastMap<u64, Mshr>,
    mshr_of_line: FastMap<u64, u64>,
    overflow: Vec<VecDeque<DramEntry>>,
    woverflow: Vec<VecDeque<DramEntry>>,
    seen: FastSet<u64>,
    completions: Vec<Completion>,
    back_inval: Vec<(usize, u64)>,
    dram_acc: u64,
    dram_now: u64,
    dram_step: u64,
    cpu_step: u64,
    /// Per-source counters, updated on every request (fast deterministic hashing; ordered
    /// only when read, [`MemSystem::source_stats`]).
    stats: FastMap<Source, SourceStats>,
    /// Dirty blocks written back to DRAM.
    pub writebacks: u64,
    /// Sums over stepped DRAM cycles and channels of (read-queue entries, reads waiting
    /// outside the full read queue), and the number of (cycle, channel) samples.
    queue_sums: (u64, u64, u64),
    /// Sums over the same (cycle, channel) samples of the critical GPU reads (CG, as marked
    /// then) waiting in front of the controller, the number of samples in which none was, and
    /// the number in which no GPU read (CG or NG) was.
    front_cg_sums: (u64, u64, u64),
    /// Reads in DRAM being followed for [`WaitStats`], by token.
    follow: FastMap<u64, Follow>,
    /// Reads served per channel by [`WaitStats`] class.
    served_by_class: Vec<[u64; 3]>,
    /// [`WaitStats`] of the GPU's (index 0) and the CPUs' (index 1) DRAM reads.
    wait: [WaitStats; 2],
    /// The same by class as served: CG, NG, CPU ([`MemSystem::wait_stats_by_class`]).
    wait_by_class: [WaitStats; 3],
    /// Write-backs and written-around stores sent to DRAM: GPU-owned (0) and CPU-owned (1).
    dram_writes_by: [u64; 2],
    /// [`ReadStages`] of the GPU's (index 0) and the CPUs' (index 1) reads.
    stages: [ReadStages; 2],
    /// LLC MSHRs held by GPU (0) and CPU (1) misses now.
    mshr_by: [u64; 2],
    /// Sums over stepped DRAM cycles of the LLC MSHRs held by GPU and CPU misses, and the
    /// number of those cycles in which every MSHR was busy (samples: `queue_sums.2` / channels).
    mshr_sums: [u64; 3],
    /// The most LLC MSHRs held by GPU (0) and CPU (1) misses in any stepped DRAM cycle.
    mshr_peak: [u64; 2],
    /// Lookups waiting for an MSHR, due to look up again in the next cycle, in event order.
    waiting: Vec<Waiting>,
    /// The same, due in the cycle being stepped (`waiting` of the last cycle).
    waiting_due: Vec<Waiting>,
    /// Waiting lookups per block (64 B units).
    waiting_lines: FastMap<u64, u32>,
    /// Bumped whenever a waiting lookup's block enters the LLC, gets an MSHR or is seen for the
    /// first time (what, besides a free MSHR, lets its look-up succeed).
    line_epoch: u64,
    /// Whether the policy observes the failed look-ups of a waiting CPU (0), GPGPU (1) or 3D GPU
    /// (2) lookup ([`MemPolicy::observes_waiting_lookups`]).
    observe: [bool; 3],
}

/// The [`MemSystem::observe`] index of `s`.
fn kind_of(s: Source) -> usize {
    match s {
        Source::Cpu(_) => 0,
        Source::Gpgpu => 1,
        Source::Gfx(_) => 2,
    }
}

impl MemSystem {
    /// The memory side of `cfg` (validated) under `cfg.policy.name`.
    pub fn new(cfg: &HeteroConfig) -> Self {
        let policy = policy::create(&cfg.policy).expect("validated policy name");
        let n = cfg.dram.channels as usize;
        let observe = [Source::Cpu(0), Source::Gpgpu, Source::Gfx(0)]
            .map(|s| policy.observes_waiting_lookups(s));
        Self {
            ring: Ring::new(cfg),
            llc: Llc::new(&cfg.llc),
            channels: (0..n).map(|_| Channel::new(&cfg.dram)).collect(),
            policy,
            gpu: GpuStatus::default(),
            now: 0,
            events: BinaryHeap::new(),
            seq: 0,
            inflight: FastMap::default(),
            next_tok: 0,
            mshrs: FastMap::default(),
            mshr_of_line: FastMap::default(),
            overflow: vec![VecDeque::new(); n],
            woverflow: vec![VecDeque::new(); n],
            seen: FastSet::default(),
            completions: Vec::new(),
            back_inval: Vec::new(),
            dram_acc: 0,
            dram_now: 0,
            // DRAM cycles per CPU cycle as a ratio of kHz.
            dram_step: (cfg.dram.clock_mhz * 1000.0).round() as u64,
            cpu_step: (cfg.cpu.clock_mhz * 1000.0).round() as u64,
            stats: FastMap::default(),
            writebacks: 0,
            queue_sums: (0, 0, 0),
            front_cg_sums: (0, 0, 0),
            follow: FastMap::default(),
            served_by_class: vec![[0; 3]; n],
            wait: [WaitStats::default(); 2],
            wait_by_class: [WaitStats::default(); 3],
            dram_writes_by: [0; 2],
            stages: [ReadStages::default(); 2],
            mshr_by: [0; 2],
            mshr_sums: [0; 3],
            mshr_peak: [0; 2],
            waiting: Vec::new(),
            waiting_due: Vec::new(),
            waiting_lines: FastMap::default(),
            line_epoch: 0,
            observe,
            cfg: cfg.clone(),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &HeteroConfig {
        &self.cfg
    }

    /// Current memory-side cycle.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// The policy in use.
    pub fn policy(&self) -> &dyn MemPolicy {
        self.policy.as_ref()
    }

    /// What the GPU reports to the policies (write it as the GPU runs).
    pub fn gpu_status_mut(&mut self) -> &mut GpuStatus {
        &mut self.gpu
    }

    /// Whether a new request can be taken now (in-flight requests below 4 x `llc.mshrs`).
    pub fn can_issue(&self) -> bool {
        self.inflight.len() < self.cfg.llc.mshrs as usize * 4
    }

    /// Requests accepted and not yet completed.
    pub fn in_flight(&self) -> usize {
        self.inflight.len()
    }

    fn push(&mut self, at: u64, e: Ev) {
        self.seq += 1;
        self.events.push(Reverse((at, self.seq, e)));
    }

    /// Issues `r` at the current cycle; it completes no earlier than the ring and LLC latency.
    pub fn issue(&mut self, r: Request) {
        let tok = self.next_tok;
        self.next_tok += 1;
        let st = self.stats.entry(r.source).or_default();
        if r.write {
            st.writes += 1;
        } else {
            st.reads += 1;
            if r.critical && r.source.is_gpu() {
                st.critical += 1;
            }
        }
        let line = r.addr / 64;
        let bank = self.ring.bank_of(line);
        let at = self.now + self.ring.to_bank(r.source, bank) + self.cfg.llc.latency as u64;
        self.inflight.insert(
            tok,
            Inflight {
                req: r,
                issued: self.now,
                llc_hit: false,
            },
        );
        self.push(at, Ev::Lookup(tok));
    }

    /// Completions delivered so far (in delivery order); the caller routes them by source.
    pub fn drain_completions(&mut self) -> std::vec::Drain<'_, Completion> {
        self.completions.drain(..)
    }

    /// Back-invalidations of the inclusive LLC: (CPU core, block number) to drop from that
    /// core's private caches.
    pub fn drain_back_invalidations(&mut self) -> std::vec::Drain<'_, (usize, u64)> {
        self.back_inval.drain(..)
    }

    /// Per-source counters, ordered by source.
    pub fn source_stats(&self) -> BTreeMap<Source, SourceStats> {
        self.stats.iter().map(|(k, v)| (*k, *v)).collect()
    }

    /// The counters of source `s` (zero if it sent nothing).
    pub fn source_stat(&self, s: Source) -> SourceStats {
        self.stats.get(&s).copied().unwrap_or_default()
    }

    /// DRAM counters summed over channels.
    pub fn dram_stats(&self) -> DramStats {
        let mut t = DramStats::default();
        for c in &self.channels {
            let s = &c.stats;
            t.reads += s.reads;
            t.writes += s.writes;
            t.row_hits += s.row_hits;
            t.activates += s.activates;
            t.precharges += s.precharges;
            t.busy_cycles += s.busy_cycles;
            t.bank_cycles += s.bank_cycles;
            t.cycles += s.cycles;
        }
        t
    }

    /// Mean read-queue occupancy per channel and mean number of reads waiting for a free
    /// read-queue entry per channel, over the DRAM cycles the memory side was stepped (idle
    /// stretches skipped in bulk are not sampled).
    pub fn read_queue_occupancy(&self) -> (f64, f64) {
        let (q, o, n) = self.queue_sums;
        if n == 0 {
            return (0.0, 0.0);
        }
        (q as f64 / n as f64, o as f64 / n as f64)
    }

    /// Critical GPU reads (CG) waiting in front of the controller: the mean per channel, the
    /// share of (DRAM cycle, channel) samples with none, and the share with no GPU read at all,
    /// over the samples of [`MemSystem::read_queue_occupancy`]. A diagnostic of the CG-first order (spec 004 §4.3,
    /// §5.4): a full read queue's free entry goes to the waiting read the policy ranks first, so
    /// a CPU read that ranks below CG (no row hit, no won IM-SCHED draw) enters only when no CG
    /// read waits beside it (session 22).
    pub fn front_cg(&self) -> (f64, f64, f64) {
        let n = self.queue_sums.2;
        if n == 0 {
            return (0.0, 0.0, 0.0);
        }
        let (c, z, g) = self.front_cg_sums;
        let n = n as f64;
        (c as f64 / n, z as f64 / n, g as f64 / n)
    }

    /// DRAM command cycles in which the channels served their write queues (a write drain,
    /// or writes while no read was queued), summed over channels.
    pub fn dram_write_cycles(&self) -> u64 {
        self.channels.iter().map(|c| c.write_cycles).sum()
    }

    /// Where the DRAM reads waited: (GPU, CPU) [`WaitStats`].
    pub fn wait_stats(&self) -> (WaitStats, WaitStats) {
        (self.wait[0], self.wait[1])
    }

    /// Where the DRAM reads waited, by class as served: `[CG, NG, CPU]` [`WaitStats`] (the
    /// GPU's entry of [`MemSystem::wait_stats`] split by the criticality bit).
    pub fn wait_stats_by_class(&self) -> [WaitStats; 3] {
        self.wait_by_class
    }

    /// Where the reads spent their latency, stage by stage: (GPU, CPU) [`ReadStages`].
    pub fn read_stages(&self) -> (ReadStages, ReadStages) {
        (self.stages[0], self.stages[1])
    }

    /// Over the stepped DRAM cycles: the mean LLC MSHRs held by GPU misses and by CPU misses,
    /// and the fraction of those cycles in which every LLC MSHR was busy.
    pub fn llc_mshr_occupancy(&self) -> (f64, f64, f64) {
        let n = self.queue_sums.2 / self.channels.len().max(1) as u64;
        if n == 0 {
            return (0.0, 0.0, 0.0);
        }
        let m = &self.mshr_sums;
        let f = |x: u64| x as f64 / n as f64;
        (f(m[0]), f(m[1]), f(m[2]))
    }

    /// The most LLC MSHRs held at once, over the stepped DRAM cycles, by GPU misses and by CPU
    /// misses (the peak of [`MemSystem::llc_mshr_occupancy`]'s means).
    pub fn llc_mshr_peak(&self) -> (u64, u64) {
        (self.mshr_peak[0], self.mshr_peak[1])
    }

    /// Dirty blocks resident in the LLC now: (filled or written by the GPU, held by a CPU
    /// core). Each is a DRAM write owed at its eviction (statistics).
    pub fn llc_dirty_blocks(&self) -> (u64, u64) {
        self.llc.dirty_blocks()
    }

    /// Blocks sent to DRAM as writes (write-backs of dirty LLC victims and written-around
    /// stores): (GPU-owned, CPU-owned).
    pub fn dram_writes_by_owner(&self) -> (u64, u64) {
        (self.dram_writes_by[0], self.dram_writes_by[1])
    }

    /// Functional warm-up (no timing): `addr`'s block is looked up and, on a miss, allocated in
    /// the LLC as a fill for `source` would (victims are dropped; CPU holders are still
    /// back-invalidated). Stands in for the document's 200M-instruction warm-up.
    pub fn prefill(&mut self, addr: u64, source: Source) {
        let line = addr / 64;
        let cpu = source.cpu();
        self.seen.insert(line);
        self.touch(line);
        if !self.llc.access(line, cpu, false) {
            if let Some(v) = self.llc.fill(line, cpu, false) {
                let mut m = v.cpu_mask;
                while m != 0 {
                    let c = m.trailing_zeros() as usize;
                    m &= m - 1;
                    self.back_inval.push((c, v.line));
                }
            }
        }
    }

    /// Whether nothing is in flight or queued.
    pub fn idle(&self) -> bool {
        self.events.is_empty()
            && self.waiting.is_empty()
            && self.channels.iter().all(|c| !c.busy())
            && self.overflow.iter().all(|q| q.is_empty())
            && self.woverflow.iter().all(|q| q.is_empty())
    }

    /// Runs the memory side up to cycle `t` (inclusive of events at `t`).
    pub fn advance_to(&mut self, t: u64) {
        while self.now < t {
            if self.idle() {
                // Nothing to do: account DRAM cycles in bulk (refresh state aside).
                let n = t - self.now;
                self.dram_acc += n * self.dram_step;
                let d = self.dram_acc / self.cpu_step;
                self.dram_acc %= self.cpu_step;
                for _ in 0..d {
                    self.dram_now += 1;
                }
                for c in &mut self.channels {
                    c.stats.cycles += d;
                }
                self.now = t;
                return;
            }
            self.now += 1;
            self.step();
        }
    }

    fn step(&mut self) {
        let now = self.now;
        // The waiting lookups due now, merged into the cycle's events by sequence number.
        std::mem::swap(&mut self.waiting, &mut self.waiting_due);
        let mut due = std::mem::take(&mut self.waiting_due);
        let mut i = 0;
        loop {
            let ev_seq = match self.events.peek() {
                Some(Reverse((at, seq, _))) if *at <= now => *seq,
                _ => u64::MAX,
            };
            let Some(w) = due.get(i) else {
                if ev_seq == u64::MAX {
                    break;
                }
                let Reverse((_, _, ev)) = self.events.pop().expect("peeked");
                self.handle(ev);
                continue;
            };
            if w.seq > ev_seq {
                let Reverse((_, _, ev)) = self.events.pop().expect("peeked");
                self.handle(ev);
                continue;
            }
            // The waiting lookups before the next event that are known to fail (every MSHR
            // busy, nothing happened to their blocks): the policy calls of their look-ups
            // where the policy observes them, then on to the next cycle in the same order (a
            // failed look-up changes neither condition).
            let mut j = i;
            if self.mshrs.len() >= self.cfg.llc.mshrs as usize {
                let ctx = Ctx {
                    now: self.now,
                    dram_now: self.dram_now,
                    gpu: &self.gpu,
                };
                while let Some(w) = due.get_mut(j) {
                    if w.seq > ev_seq || w.epoch != self.line_epoch {
                        break;
                    }
                    if self.observe[kind_of(w.req.source)] && !w.req.write {
                        let line = w.req.addr / 64;
                        self.policy.on_llc(&ctx, w.req.source, false);
                        self.policy.on_llc_block(&ctx, w.req.source, line, false);
                        if !w.req.bypass {
                            self.policy.llc_bypass(&ctx, &w.req);
                        }
                    }
                    self.seq += 1;
                    w.seq = self.seq;
                    j += 1;
                }
                self.waiting.extend_from_slice(&due[i..j]);
            }
            if j == i {
                let w = due[i];
                j += 1;
                self.retry(w);
            }
            i = j;
        }
        due.clear();
        self.waiting_due = due;
        self.dram_acc += self.dram_step;
        while self.dram_acc >= self.cpu_step {
            self.dram_acc -= self.cpu_step;
            self.dram_cycle();
        }
    }

    fn dram_cycle(&mut self) {
        let gpu = self.gpu;
        let ctx = Ctx {
            now: self.now,
            dram_now: self.dram_now,
            gpu: &gpu,
        };
        self.policy.tick(&ctx);
        self.mshr_sums[0] += self.mshr_by[0];
        self.mshr_sums[1] += self.mshr_by[1];
        self.mshr_sums[2] += (self.mshrs.len() >= self.cfg.llc.mshrs as usize) as u64;
        self.mshr_peak[0] = self.mshr_peak[0].max(self.mshr_by[0]);
        self.mshr_peak[1] = self.mshr_peak[1].max(self.mshr_by[1]);
        for ch in 0..self.channels.len() {
            let n = self.channels[ch].admit(&mut self.overflow[ch], &ctx, ch, self.policy.as_mut());
            if n > 0 {
                self.note_admitted(ch, n);
            }
            while self.channels[ch].can_accept(true) {
                let Some(e) = self.woverflow[ch].pop_front() else {
                    break;
                };
                self.channels[ch].writes.push(e);
            }
            self.queue_sums.0 += self.channels[ch].reads.len() as u64;
            self.queue_sums.1 += self.overflow[ch].len() as u64;
            self.queue_sums.2 += 1;
            let (mut cg, mut gpu) = (0u64, 0u64);
            for e in &self.overflow[ch] {
                cg += (wait_class(e) == 0) as u64;
                gpu += e.source.is_gpu() as u64;
            }
            self.front_cg_sums.0 += cg;
            self.front_cg_sums.1 += (cg == 0) as u64;
            self.front_cg_sums.2 += (gpu == 0) as u64;
            if let Some(d) = self.channels[ch].cycle(self.dram_now, &ctx, ch, self.policy.as_mut())
            {
                self.policy.on_served(&ctx, &d.entry);
                self.note_served(ch, &d.entry);
                // Data arrival in CPU cycles (rounded up), then the ring to the LLC bank.
                let dcyc = d.at - self.dram_now;
                let cpu = (dcyc * self.cpu_step).div_ceil(self.dram_step);
                let bank = self.ring.bank_of(d.entry.line);
                let at = self.now + cpu + self.ring.bank_to_mc(bank, ch);
                self.push(at, Ev::Fill(d.tok));
            }
        }
        self.dram_now += 1;
    }

    fn handle(&mut self, ev: Ev) {
        match ev {
            Ev::Lookup(tok) => {
                if !self.lookup(tok) {
                    let req = self.inflight[&tok].req;
                    *self.waiting_lines.entry(req.addr / 64).or_default() += 1;
                    self.wait_for_mshr(tok, req);
                }
            }
            Ev::ToMc(m) => {
                let ms = &self.mshrs[&m];
                let loc = locate(&self.cfg.dram, ms.line);
                let e = DramEntry {
                    tok: m,
                    line: ms.line,
                    source: ms.source,
                    critical: ms.critical,
                    arrival: self.now,
                    bank: loc.bank,
                    row: loc.row,
                    activated: false,
                };
                let mut ahead = [0u64; 3];
                for w in &self.overflow[loc.channel] {
                    ahead[wait_class(w)] += 1;
                }
                self.follow.insert(
                    m,
                    Follow {
                        ahead_front: ahead,
                        admitted: self.now,
                        ahead_queue: [0; 3],
                        served_at_admission: [0; 3],
                        drain_at_admission: 0,
                    },
                );
                let gpu = self.gpu;
                let ctx = Ctx {
                    now: self.now,
                    dram_now: self.dram_now,
                    gpu: &gpu,
                };
                self.policy.on_arrival(&ctx, loc.channel, &e);
                self.overflow[loc.channel].push_back(e);
            }
            Ev::Writeback(line, owner, critical) => {
                let loc = locate(&self.cfg.dram, line);
                self.writebacks += 1;
                self.dram_writes_by[!src_of(owner).is_gpu() as usize] += 1;
                let tok = self.next_tok;
                self.next_tok += 1;
                self.woverflow[loc.channel].push_back(DramEntry {
                    tok,
                    line,
                    source: src_of(owner),
                    critical,
                    arrival: self.now,
                    bank: loc.bank,
                    row: loc.row,
                    activated: false,
                });
            }
            Ev::Fill(m) => self.fill(m),
            Ev::Deliver(tok) => {
                let f = self.inflight.remove(&tok).expect("in flight");
                if !f.req.write {
                    let st = self.stats.entry(f.req.source).or_default();
                    st.latency_sum += self.now - f.issued;
                }
                self.completions.push(Completion {
                    id: f.req.id,
                    source: f.req.source,
                    addr: f.req.addr,
                    write: f.req.write,
                    cycle: self.now,
                    llc_hit: f.llc_hit,
                });
            }
        }
    }

    /// The last `n` reads of channel `ch`'s read queue entered it now: notes the queue ahead of
    /// each ([`WaitStats`]).
    fn note_admitted(&mut self, ch: usize, n: usize) {
        let reads = &self.channels[ch].reads;
        let first = reads.len() - n;
        for (i, e) in reads.iter().enumerate().skip(first) {
            let Some(f) = self.follow.get_mut(&e.tok) else {
                continue;
            };
            f.admitted = self.now;
            f.ahead_queue = [0; 3];
            for a in &reads[..i] {
                f.ahead_queue[wait_class(a)] += 1;
            }
            f.served_at_admission = self.served_by_class[ch];
            f.drain_at_admission = self.channels[ch].write_cycles;
        }
    }

    /// Read `e` of channel `ch` was served now ([`WaitStats`]).
    fn note_served(&mut self, ch: usize, e: &DramEntry) {
        if let Some(f) = self.follow.remove(&e.tok) {
            if let Some(ms) = self.mshrs.get_mut(&e.tok) {
                ms.front = f.admitted - e.arrival;
                ms.queue = self.now - f.admitted;
            }
            let (side, class) = (!e.source.is_gpu() as usize, wait_class(e));
            for w in [&mut self.wait[side], &mut self.wait_by_class[class]] {
                w.reads += 1;
                w.row_hits += !e.activated as u64;
                w.front_cycles += f.admitted - e.arrival;
                w.queue_cycles += self.now - f.admitted;
                w.drain_dram_cycles += self.channels[ch].write_cycles - f.drain_at_admission;
                for k in 0..3 {
                    w.ahead_front[k] += f.ahead_front[k];
                    w.ahead_queue[k] += f.ahead_queue[k];
                    w.passed_by[k] += self.served_by_class[ch][k] - f.served_at_admission[k];
                }
            }
        }
        self.served_by_class[ch][wait_class(e)] += 1;
        if let Some(ms) = self.mshrs.get_mut(&e.tok) {
            ms.served = self.now;
        }
    }

    fn deliver(&mut self, tok: u64) {
        let f = &self.inflight[&tok];
        let bank = self.ring.bank_of(f.req.addr / 64);
        let at = self.now + self.ring.to_bank(f.req.source, bank);
        self.push(at, Ev::Deliver(tok));
    }

    fn writeback(&mut self, line: u64, owner: Source, critical: bool) {
        let loc = locate(&self.cfg.dram, line);
        let bank = self.ring.bank_of(line);
        let at = self.now + self.ring.bank_to_mc(bank, loc.channel);
        self.push(at, Ev::Writeback(line, src_code(owner), critical));
    }

    fn allocate(&mut self, line: u64, cpu: Option<usize>, dirty: bool) {
        self.touch(line);
        if let Some(v) = self.llc.fill(line, cpu, dirty) {
            if v.dirty {
                let owner = match v.cpu_mask {
                    0 => Source::Gpgpu,
                    m => Source::Cpu(m.trailing_zeros() as u8),
                };
                self.writeback(v.line, owner, false);
            }
            let mut m = v.cpu_mask;
            while m != 0 {
                let c = m.trailing_zeros() as usize;
                m &= m - 1;
                self.back_inval.push((c, v.line));
            }
        }
    }

    /// Queues lookup `tok` (request `req`) to look up again in the next cycle (it found every
    /// MSHR busy), after every event already queued for that cycle, as a re-queued lookup event.
    fn wait_for_mshr(&mut self, tok: u64, req: Request) {
        self.seq += 1;
        self.waiting.push(Waiting {
            seq: self.seq,
            tok,
            req,
            epoch: self.line_epoch,
        });
    }

    /// The turn of a waiting lookup that may succeed (an MSHR is free, or its block changed):
    /// its look-up again. [`MemSystem::step`] handles those known to fail.
    fn retry(&mut self, w: Waiting) {
        let line = w.req.addr / 64;
        // Not among the waiting lookups while it looks up: the MSHR it opens, or its own hit,
        // is news only to other lookups of its block.
        match self.waiting_lines.get_mut(&line) {
            Some(n) if *n > 1 => *n -= 1,
            _ => {
                self.waiting_lines.remove(&line);
            }
        }
        if !self.lookup(w.tok) {
            *self.waiting_lines.entry(line).or_default() += 1;
            let req = self.inflight[&w.tok].req;
            self.wait_for_mshr(w.tok, req);
        }
    }

    /// Block `line` entered the LLC, got an MSHR or was seen: waiting lookups of it must look
    /// up again.
    fn touch(&mut self, line: u64) {
        if !self.waiting_lines.is_empty() && self.waiting_lines.contains_key(&line) {
            self.line_epoch += 1;
        }
    }

    /// Looks up request `tok` in the LLC. Returns false, with no effect but the policy's
    /// `on_llc`, `on_llc_block` and `llc_bypass` calls, when it is a read miss (or, with
    /// `llc.gpgpu_store_fetch`, a GPGPU store miss that fetches) that needs an MSHR and every
    /// MSHR is busy.
    fn lookup(&mut self, tok: u64) -> bool {
        let r = self.inflight[&tok].req;
        let line = r.addr / 64;
        let cpu = r.source.cpu();
        let first = self.seen.insert(line);
        let hit = self.llc.access(line, cpu, r.write);
        if r.write {
            let bypass = !hit
                && (r.bypass || {
                    let gpu = self.gpu;
                    let ctx = Ctx {
                        now: self.now,
                        dram_now: self.dram_now,
                        gpu: &gpu,
                    };
                    self.policy.llc_bypass(&ctx, &r)
                });
            // `llc.gpgpu_store_fetch`: an allocating GPGPU store miss fetches its block.
            let fetch =
                !hit && !bypass && self.cfg.llc.gpgpu_store_fetch && r.source == Source::Gpgpu;
            if fetch
                && !self.mshr_of_line.contains_key(&line)
                && self.mshrs.len() >= self.cfg.llc.mshrs as usize
            {
                // MSHRs full: looked up again next cycle, like a read miss.
                if first {
                    self.seen.remove(&line);
                }
                return false;
            }
            if first {
                self.touch(line);
            }
            if bypass {
                self.writeback(line, r.source, r.critical);
            } else if fetch {
                self.store_fetch(line, &r);
            } else if !hit {
                self.allocate(line, cpu, true);
            }
            self.inflight.get_mut(&tok).expect("in flight").llc_hit = hit;
            self.deliver(tok);
            return true;
        }
        let gpu = self.gpu;
        let ctx = Ctx {
            now: self.now,
            dram_now: self.dram_now,
            gpu: &gpu,
        };
        let ideal = !hit && r.ideal && !first;
        self.policy.on_llc(&ctx, r.source, hit || ideal);
        self.policy.on_llc_block(&ctx, r.source, line, hit || ideal);
        let st = self.stats.entry(r.source).or_default();
        if hit || ideal {
            st.llc_hits += 1;
            self.inflight.get_mut(&tok).expect("in flight").llc_hit = true;
            if first {
                self.touch(line);
            }
            if ideal {
                self.allocate(line, cpu, false);
            }
            self.deliver(tok);
            return true;
        }
        st.llc_misses += 1;
        let bypass = r.bypass || self.policy.llc_bypass(&ctx, &r);
        if bypass {
            self.stats.entry(r.source).or_default().bypassed += 1;
        }
        if let Some(&m) = self.mshr_of_line.get(&line) {
            let ms = self.mshrs.get_mut(&m).expect("mshr");
            ms.waiters.push(tok);
            ms.allocate |= !bypass;
            if r.critical && r.source.is_gpu() {
                self.raise(m);
            }
            if first {
                self.touch(line);
            }
            return true;
        }
        if self.mshrs.len() >= self.cfg.llc.mshrs as usize {
            // MSHRs full: the caller queues it to look up again next cycle (counted again).
            let st = self.stats.entry(r.source).or_default();
            st.llc_misses -= 1;
            if bypass {
                st.bypassed -= 1;
            }
            if first {
                self.seen.remove(&line);
            }
            return false;
        }
        self.touch(line);
        self.open_miss(Mshr {
            waiters: vec![tok],
            line,
            source: r.source,
            critical: r.critical && r.source.is_gpu(),
            allocate: !bypass,
            dirty: false,
            read_opened: true,
            created: self.now,
            served: 0,
            front: 0,
            queue: 0,
        });
        true
    }

    /// Opens the LLC miss `ms` (a free MSHR is the caller's check): the MSHR is registered
    /// for its line and its requester's class, and the miss leaves the LLC bank for its
    /// memory controller over the ring.
    fn open_miss(&mut self, ms: Mshr) {
        let (line, side) = (ms.line, !ms.source.is_gpu() as usize);
        let m = self.next_tok;
        self.next_tok += 1;
        self.mshrs.insert(m, ms);
        self.mshr_of_line.insert(line, m);
        self.mshr_by[side] += 1;
        let loc = locate(&self.cfg.dram, line);
        let bank = self.ring.bank_of(line);
        let at = self.now + self.ring.bank_to_mc(bank, loc.channel);
        self.push(at, Ev::ToMc(m));
    }

    /// `llc.gpgpu_store_fetch`: the GPGPU store `r` missed the LLC and allocates; its block is
    /// fetched from DRAM (a new LLC miss without waiters, or the pending one of the block) and
    /// filled dirty. The caller checked that an MSHR is free or the block's miss pending.
    fn store_fetch(&mut self, line: u64, r: &Request) {
        self.stats.entry(r.source).or_default().store_fetches += 1;
        if let Some(&m) = self.mshr_of_line.get(&line) {
            let ms = self.mshrs.get_mut(&m).expect("mshr");
            ms.allocate = true;
            ms.dirty = true;
            if r.critical {
                self.raise(m);
            }
            return;
        }
        self.open_miss(Mshr {
            waiters: Vec::new(),
            line,
            source: r.source,
            critical: r.critical,
            allocate: true,
            dirty: true,
            read_opened: false,
            created: self.now,
            served: 0,
            front: 0,
            queue: 0,
        });
    }

    /// Makes miss `m` critical, with its DRAM read if queued (a critical GPU read joined it).
    fn raise(&mut self, m: u64) {
        let ms = self.mshrs.get_mut(&m).expect("mshr");
        if ms.critical {
            return;
        }
        ms.critical = true;
        for q in self.channels.iter_mut().map(|c| &mut c.reads) {
            for e in q.iter_mut().filter(|e| e.tok == m) {
                e.critical = true;
            }
        }
        for q in self.overflow.iter_mut() {
            for e in q.iter_mut().filter(|e| e.tok == m) {
                e.critical = true;
            }
        }
    }

    /// A critical GPU read merged, above the LLC (in the GPU's own miss buffers), into a
    /// pending GPU read of block `line` (64 B units) that was issued non-critical: that read
    /// becomes critical (document 004 §3), whether it still travels to the LLC or waits on an
    /// LLC miss (the miss and its queued DRAM read are raised). Its LLC allocation decision
    /// is re-taken as for a critical read: a raised read already waiting on the LLC miss makes
    /// its fill allocate unless the policy bypasses critical reads too (§3 bypasses only the
    /// non-critical accesses that miss). Returns the GPU reads raised.
    pub fn upgrade_critical(&mut self, line: u64) -> usize {
        let mut raised = Vec::new();
        for (&tok, f) in self.inflight.iter_mut() {
            let r = &mut f.req;
            if r.source.is_gpu() && !r.write && !r.critical && r.addr / 64 == line {
                r.critical = true;
                raised.push(tok);
                self.stats.entry(r.source).or_default().critical += 1;
            }
        }
        if raised.is_empty() {
            return 0;
        }
        for w in self.waiting.iter_mut().chain(self.waiting_due.iter_mut()) {
            if raised.contains(&w.tok) {
                w.req.critical = true;
            }
        }
        if let Some(&m) = self.mshr_of_line.get(&line) {
            self.raise(m);
            let gpu = self.gpu;
            let ctx = Ctx {
                now: self.now,
                dram_now: self.dram_now,
                gpu: &gpu,
            };
            let ms = self.mshrs.get_mut(&m).expect("mshr");
            for t in raised.iter().filter(|t| ms.waiters.contains(t)) {
                let r = &self.inflight[t].req;
                ms.allocate |= !(r.bypass || self.policy.llc_bypass(&ctx, r));
            }
        }
        raised.len()
    }

    fn fill(&mut self, m: u64) {
        let ms = self.mshrs.remove(&m).expect("mshr");
        self.mshr_of_line.remove(&ms.line);
        self.mshr_by[!ms.source.is_gpu() as usize] -= 1;
        if ms.allocate {
            let cpu = ms
                .waiters
                .iter()
                .find_map(|t| self.inflight[t].req.source.cpu());
            self.allocate(ms.line, cpu, ms.dirty);
            if let Some(c) = cpu {
                for t in &ms.waiters {
                    if let Some(o) = self.inflight[t].req.source.cpu() {
                        if o != c {
                            self.llc.access(ms.line, Some(o), false);
                        }
                    }
                }
            }
        }
        let bank = self.ring.bank_of(ms.line);
        let ch = locate(&self.cfg.dram, ms.line).channel;
        for (i, t) in ms.waiters.into_iter().enumerate() {
            let f = &self.inflight[&t];
            let r = f.req;
            let st = self.stats.entry(r.source).or_default();
            st.dram_reads += 1;
            st.dram_critical += (ms.critical && r.source.is_gpu()) as u64;
            let back = self.ring.to_bank(r.source, bank);
            let total = self.now + back - f.issued;
            let sg = &mut self.stages[!r.source.is_gpu() as usize];
            if i == 0 && ms.read_opened {
                // The read that opened the miss: every stage.
                let lookup = self.ring.to_bank(r.source, bank) + self.cfg.llc.latency as u64;
                let to_mc = self.ring.bank_to_mc(bank, ch);
                sg.misses += 1;
                sg.lookup += lookup;
                sg.llc_mshr_wait += ms.created - f.issued - lookup;
                sg.to_mc += to_mc;
                sg.front += ms.front;
                sg.queue += ms.queue;
                sg.dram += self.now - ms.served;
                sg.back += back;
                sg.latency += total;
            } else {
                sg.merged += 1;
                sg.merged_latency += total;
            }
            self.deliver(t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sys(policy: &str) -> MemSystem {
        let mut c = HeteroConfig::preset("hetero").unwrap();
        c.set("policy.name", policy).unwrap();
        MemSystem::new(&c)
    }

    fn run_until_done(m: &mut MemSystem, n: usize) -> Vec<Completion> {
        let mut out = Vec::new();
        let mut t = m.now();
        while out.len() < n {
            t += 1;
            m.advance_to(t);
            out.extend(m.drain_completions());
            assert!(t < 1_000_000, "requests never completed");
        }
        out
    }

    /// §3 under IM with `policy.gpgpu_store_bypass`: a non-critical GPGPU store that misses the
    /// LLC is written around it (a DRAM write, no allocation: a later read misses); a critical
    /// store allocates; a non-critical
    /// read miss is served without allocating (the next read misses again), while a block that
    /// is already in the LLC is hit whatever the criticality.
    #[test]
    fn im_non_critical_gpgpu_accesses_bypass_the_llc_and_critical_ones_allocate() {
        let mut c = HeteroConfig::preset("hetero").unwrap();
        c.set("policy.name", "im").unwrap();
        c.set("policy.gpgpu_store_bypass", "true").unwrap();
        let mut m = MemSystem::new(&c);
        let settle = |m: &mut MemSystem| {
            for _ in 0..400 {
                let t = m.now() + 1;
                m.advance_to(t);
            }
        };
        let mut st = Request::read(1, 0x40000, Source::Gpgpu);
        st.write = true;
        m.issue(st);
        run_until_done(&mut m, 1);
        settle(&mut m);
        assert_eq!(m.dram_stats().writes, 1, "written around to DRAM");
        m.issue(Request::read(2, 0x40000, Source::Gpgpu));
        let c = run_until_done(&mut m, 1);
        assert!(!c[0].llc_hit, "the written-around block is not in the LLC");
        // A critical store allocates (no DRAM write), and any later read hits it.
        let mut cs = Request::read(3, 0xc0000, Source::Gpgpu);
        cs.write = true;
        cs.critical = true;
        m.issue(cs);
        run_until_done(&mut m, 1);
        settle(&mut m);
        assert_eq!(m.dram_stats().writes, 1, "no write-around");
        m.issue(Request::read(4, 0xc0000, Source::Gpgpu));
        let c = run_until_done(&mut m, 1);
        assert!(c[0].llc_hit, "the critical store's block is in the LLC");
        // A non-critical read miss is served but not allocated: the next read misses again.
        let reads = m.dram_stats().reads;
        m.issue(Request::read(5, 0x80000, Source::Gpgpu));
        run_until_done(&mut m, 1);
        m.issue(Request::read(6, 0x80000, Source::Gpgpu));
        let c = run_until_done(&mut m, 1);
        assert!(!c[0].llc_hit, "bypassed fill");
        assert_eq!(m.dram_stats().reads, reads + 2);
    }

    /// `llc.gpgpu_store_fetch`: off (the ablation), a GPGPU store that misses the LLC allocates
    /// its block dirty with no DRAM access; on (the preset's since session 21), the block is
    /// fetched from DRAM (one GPU DRAM
    /// read, an LLC MSHR) and filled dirty, the store completing at once; a read of the block
    /// issued meanwhile joins the fetch; a store written around the LLC (IM's §3 bypass)
    /// never fetches.
    #[test]
    fn gpgpu_store_miss_fetches_its_block_only_when_told() {
        let settle = |m: &mut MemSystem| {
            for _ in 0..2000 {
                let t = m.now() + 1;
                m.advance_to(t);
            }
        };
        for fetch in [false, true] {
            let mut c = HeteroConfig::preset("hetero").unwrap();
            assert!(c.llc.gpgpu_store_fetch, "on in the preset");
            c.set("llc.gpgpu_store_fetch", &fetch.to_string()).unwrap();
            let mut m = MemSystem::new(&c);
            m.issue(Request::write(1, 0x40000, Source::Gpgpu));
            // The store completes after the LLC lookup, before any DRAM read could return.
            let done = run_until_done(&mut m, 1);
            assert!(!done[0].llc_hit);
            assert!(m.now() < 60, "the store waited for DRAM: {}", m.now());
            // A read of the same block right behind it.
            m.issue(Request::read(2, 0x40000, Source::Gpgpu));
            let r = run_until_done(&mut m, 1);
            settle(&mut m);
            let st = m.source_stat(Source::Gpgpu);
            assert_eq!(m.dram_stats().writes, 0, "fetch={fetch}");
            assert_eq!(m.llc_dirty_blocks(), (1, 0), "fetch={fetch}: filled dirty");
            if fetch {
                assert_eq!(m.dram_stats().reads, 1, "one fetch, the read joined it");
                assert_eq!(st.store_fetches, 1);
                assert!(!r[0].llc_hit, "the read waited for the fetch");
                assert_eq!(m.read_stages().0.misses, 0, "no read opened the miss");
                assert_eq!(m.read_stages().0.merged, 1);
            } else {
                assert_eq!(m.dram_stats().reads, 0);
                assert_eq!(st.store_fetches, 0);
                assert!(r[0].llc_hit, "allocated at once");
            }
        }
        // Under IM a non-critical GPGPU store is written around: no fetch, one DRAM write.
        let mut c = HeteroConfig::preset("hetero").unwrap();
        c.set("llc.gpgpu_store_fetch", "true").unwrap();
        c.set("policy.name", "im").unwrap();
        let mut m = MemSystem::new(&c);
        m.issue(Request::write(3, 0x80000, Source::Gpgpu));
        run_until_done(&mut m, 1);
        settle(&mut m);
        assert_eq!((m.dram_stats().reads, m.dram_stats().writes), (0, 1));
        assert_eq!(m.source_stat(Source::Gpgpu).store_fetches, 0);
        // A critical one allocates, so it fetches.
        let mut cs = Request::write(4, 0xc0000, Source::Gpgpu);
        cs.critical = true;
        m.issue(cs);
        run_until_done(&mut m, 1);
        settle(&mut m);
        assert_eq!(m.dram_stats().reads, 1);
        assert_eq!(m.llc_dirty_blocks(), (1, 0));
    }

    /// With `llc.gpgpu_store_fetch`, a store miss that finds every LLC MSHR busy waits for one
    /// like a read miss, and completes once its lookup succeeds.
    #[test]
    fn a_store_fetch_waits_for_a_free_mshr() {
        let mut c = HeteroConfig::preset("hetero").unwrap();
        c.set("llc.gpgpu_store_fetch", "true").unwrap();
        c.set("llc.mshrs", "4").unwrap();
        let mut m = MemSystem::new(&c);
        for i in 0..4 {
            m.issue(Request::read(i, i * 8192, Source::Gpgpu));
        }
        m.issue(Request::write(9, 0x7_0000, Source::Gpgpu));
        let done = run_until_done(&mut m, 5);
        // The store completed after the first read's fill freed an MSHR.
        let pos = done.iter().position(|d| d.id == 9).unwrap();
        assert!(pos >= 1, "the store finished before any read: {done:?}");
        assert_eq!(m.llc_mshr_peak().0, 4);
        for _ in 0..2000 {
            let t = m.now() + 1;
            m.advance_to(t);
        }
        assert_eq!(m.dram_stats().reads, 5);
        assert_eq!(m.source_stat(Source::Gpgpu).store_fetches, 1);
    }

    #[test]
    fn miss_then_hit_latencies_and_dram_once() {
        let mut m = sys("frfcfs");
        m.issue(Request::read(7, 0x10000, Source::Cpu(0)));
        let c = run_until_done(&mut m, 1);
        assert_eq!(c[0].id, 7);
        assert!(!c[0].llc_hit);
        let miss = c[0].cycle;
        // Ring there and back plus LLC plus DRAM (ACT + RD + data ~ 32 DRAM cycles = 120 CPU).
        assert!(miss > 120 && miss < 200, "miss latency {miss}");
        let t0 = m.now();
        m.issue(Request::read(8, 0x10000, Source::Cpu(0)));
        let c = run_until_done(&mut m, 1);
        assert!(c[0].llc_hit);
        let hit = c[0].cycle - t0;
        assert!((10..=30).contains(&hit), "hit latency {hit}");
        assert_eq!(m.dram_stats().reads, 1);
    }

    /// With one LLC MSHR, reads of three blocks issued 20 cycles apart (more than any ring
    /// path, so they reach the LLC in that order): the first takes the MSHR and the others wait.
    /// A waiting read looks up again in the next cycle after the lookups that reach the LLC in
    /// that cycle (as a lookup event queued anew for it would), so the read that arrived last
    /// is the first to look up again when the MSHR frees: read 3 before read 2. Each read is
    /// counted as one LLC miss however long it waited, and a fourth read of the first block,
    /// issued while its miss is pending, merges into it.
    #[test]
    fn a_read_waiting_for_an_mshr_looks_up_again_after_newer_arrivals() {
        let mut c = HeteroConfig::preset("hetero").unwrap();
        c.set("llc.mshrs", "1").unwrap();
        let mut m = MemSystem::new(&c);
        for (id, addr) in [(1, 0x10000), (2, 0x20000), (3, 0x30000), (4, 0x10000)] {
            m.issue(Request::read(id, addr, Source::Cpu(0)));
            let t = m.now() + 20;
            m.advance_to(t);
        }
        let mut done: Vec<Completion> = m.drain_completions().collect();
        assert!(done.is_empty(), "no read is served in 80 cycles");
        done.extend(run_until_done(&mut m, 4));
        let at = |id: u64| done.iter().find(|c| c.id == id).unwrap().cycle;
        assert_eq!(at(4), at(1), "merged into the pending miss");
        // The misses are served one after the other, the last arrival first.
        assert!(at(3) > at(1) + 60 && at(2) > at(3) + 60, "{done:?}");
        assert_eq!(m.dram_stats().reads, 3);
        let st = m.source_stat(Source::Cpu(0));
        assert_eq!(
            (st.reads, st.llc_misses, st.llc_hits),
            (4, 4, 0),
            "one lookup per read"
        );
    }

    /// A read waiting for an MSHR whose block enters the LLC meanwhile (a CPU store allocates
    /// it) hits at its next look-up, without waiting for an MSHR to free.
    #[test]
    fn a_waiting_read_hits_a_block_written_while_it_waits() {
        let mut c = HeteroConfig::preset("hetero").unwrap();
        c.set("llc.mshrs", "1").unwrap();
        let mut m = MemSystem::new(&c);
        m.issue(Request::read(1, 0x10000, Source::Cpu(0)));
        let t = m.now() + 20;
        m.advance_to(t);
        m.issue(Request::read(2, 0x20000, Source::Cpu(1)));
        // Read 1 holds the MSHR; let read 2 reach the LLC and wait.
        let mut t = m.now();
        while m.waiting.is_empty() {
            t += 1;
            m.advance_to(t);
            assert!(t < 1_000, "read 2 never waited");
        }
        m.issue(Request::write(3, 0x20000, Source::Cpu(2)));
        let done = run_until_done(&mut m, 3);
        let get = |id: u64| done.iter().find(|c| c.id == id).unwrap();
        assert!(get(2).llc_hit, "the written block is in the LLC: {done:?}");
        assert!(get(2).cycle < get(1).cycle, "{done:?}");
        assert_eq!(m.dram_stats().reads, 1);
    }

    /// A mixed CPU / GPGPU / 3D read stream for the policy-invariance tests: request `k` of `n`
    /// comes from the GPGPU when `k % 6` is 0 or 1, from a 3D unit when it is one of
    /// `gfx_every`, from a CPU core otherwise; one block in `blocks` (spread over the sets),
    /// critical when `k % critical_every == 0`, a write when `k % 13 == 0`; `step` memory cycles
    /// between issues (the GPU reported busy: ready fraction 0.9, 4 ready warps).
    struct MixedStream {
        n: u64,
        gfx_every: [u64; 2],
        blocks: u64,
        critical_every: u64,
        step: u64,
    }

    /// Completion keys, policy counters (as bits) and the most lookups that waited at once.
    type StreamResult = (Vec<(u64, u64, bool)>, Vec<(&'static str, u64)>, usize);

    impl MixedStream {
        /// Issues the stream into `m` and runs it until every request completed.
        fn run(&self, m: &mut MemSystem, name: &str) -> StreamResult {
            m.gpu_status_mut().ready_fraction = 0.9;
            m.gpu_status_mut().ready_warps = 4.0;
            let (mut out, mut waited) = (Vec::new(), 0);
            for k in 0..self.n {
                let src = match k % 6 {
                    0 | 1 => Source::Gpgpu,
                    c if self.gfx_every.contains(&c) => Source::Gfx(k as u16 % 5),
                    c => Source::Cpu(((c + k / 7) % 4) as u8),
                };
                let mut r = Request::read(k, (k * 7919 % self.blocks) * 64 * 33, src);
                r.critical = k % self.critical_every == 0;
                r.write = k % 13 == 0;
                m.issue(r);
                let t = m.now() + self.step;
                m.advance_to(t);
                waited = waited.max(m.waiting.len());
                out.extend(m.drain_completions());
            }
            let mut t = m.now();
            while (out.len() as u64) < self.n {
                t += 50;
                m.advance_to(t);
                out.extend(m.drain_completions());
                assert!(t < 50_000_000, "{name}");
            }
            let counters = m
                .policy()
                .counters()
                .into_iter()
                .map(|(k, v)| (k, v.to_bits()))
                .collect();
            let keyed = out.iter().map(|c| (c.id, c.cycle, c.llc_hit)).collect();
            (keyed, counters, waited)
        }
    }

    /// Skipping the policy calls of the waiting lookups' failed look-ups where a policy says it
    /// does not observe them ([`MemPolicy::observes_waiting_lookups`]) changes nothing: for
    /// every registered policy, a mixed CPU / GPGPU / 3D stream through 8 LLC MSHRs (so that
    /// lookups wait) gives the same completions, counters and policy counters as with every
    /// call made.
    #[test]
    fn skipping_unobserved_waiting_lookups_changes_no_result() {
        let run = |name: &str, all: bool| {
            let mut c = HeteroConfig::preset("hetero").unwrap();
            c.set("policy.name", name).unwrap();
            c.set("llc.mshrs", "8").unwrap();
            let mut m = MemSystem::new(&c);
            if all {
                m.observe = [true; 3];
            }
            let stream = MixedStream {
                n: 600,
                gfx_every: [2, 3],
                blocks: 8192,
                critical_every: 3,
                step: 3,
            };
            let (keyed, counters, waited) = stream.run(&mut m, name);
            (keyed, m.source_stats(), m.dram_stats(), counters, waited)
        };
        for name in policy::names() {
            let (a, b) = (run(name, false), run(name, true));
            assert!(a.4 > 8, "{name}: lookups waited (at most {} at once)", a.4);
            assert!(a == b, "{name}: skipping the calls changed a result");
        }
    }

    /// A policy that declares itself deterministic ([`MemPolicy::draws_random`] false) gives
    /// the same completions, counters and policy counters under two seeds, on a mixed CPU /
    /// GPGPU / 3D stream with half the GPU reads critical; IM (IM-SCHED) and SMS-0.9 declare
    /// their draws, IM-LLC alone and SMS-0 do not (what `experiment hetero|frame --seeds` runs
    /// once). The same stream under IM differs between the seeds (the check can fail).
    #[test]
    fn policies_declared_deterministic_do_not_depend_on_the_seed() {
        let run = |name: &str, seed: u64| {
            let mut c = HeteroConfig::preset("hetero").unwrap();
            c.set("policy.name", name).unwrap();
            c.set("policy.seed", &seed.to_string()).unwrap();
            c.set("policy.interval", "2000").unwrap();
            let mut m = MemSystem::new(&c);
            let stream = MixedStream {
                n: 3000,
                gfx_every: [2, 2],
                blocks: 65536,
                critical_every: 2,
                step: 2,
            };
            let (keyed, counters, _) = stream.run(&mut m, name);
            (keyed, m.source_stats(), m.dram_stats(), counters)
        };
        let draws = |name: &str| {
            let mut c = HeteroConfig::preset("hetero").unwrap();
            c.set("policy.name", name).unwrap();
            policy::draws_random(&c.policy)
        };
        for name in policy::names() {
            if !draws(name) {
                assert!(run(name, 1) == run(name, 2), "{name} depends on the seed");
            }
        }
        // The stream reaches IM-SCHED's draws: another seed changes IM's results.
        assert!(
            run("im", 1) != run("im", 2),
            "the stream exercises the draws"
        );
        for (name, d) in [
            ("im", true),
            ("im_sched", true),
            ("sms_09", true),
            ("im_llc", false),
            ("sms_0", false),
            ("frfcfs", false),
        ] {
            assert_eq!(draws(name), d, "{name}");
        }
    }

    #[test]
    fn concurrent_misses_to_one_block_merge() {
        let mut m = sys("frfcfs");
        m.issue(Request::read(1, 0x4000, Source::Cpu(0)));
        m.issue(Request::read(2, 0x4010, Source::Gpgpu));
        let c = run_until_done(&mut m, 2);
        assert_eq!(c.len(), 2);
        assert_eq!(m.dram_stats().reads, 1);
    }

    #[test]
    fn upgrading_a_pending_gpu_read_raises_its_miss_and_queued_dram_read() {
        let queued = |m: &MemSystem| -> Vec<bool> {
            m.channels
                .iter()
                .flat_map(|c| c.reads.iter().map(|e| e.critical))
                .collect()
        };
        // Raised while its DRAM read is queued.
        let mut m = sys("gpu_favoring");
        m.issue(Request::read(1, 0x20000, Source::Gpgpu));
        let mut t = m.now();
        while queued(&m).is_empty() {
            t += 1;
            m.advance_to(t);
            assert!(t < 10_000, "the miss never reached a controller");
        }
        assert_eq!(queued(&m), vec![false]);
        assert_eq!(m.upgrade_critical(0x20000 / 64 + 1), 0, "another block");
        assert_eq!(m.upgrade_critical(0x20000 / 64), 1);
        assert_eq!(queued(&m), vec![true]);
        assert_eq!(m.source_stats()[&Source::Gpgpu].critical, 1);
        assert_eq!(m.upgrade_critical(0x20000 / 64), 0, "already critical");
        assert_eq!(run_until_done(&mut m, 1).len(), 1);
        // Raised before its LLC lookup: the miss it opens is critical.
        let mut m = sys("gpu_favoring");
        m.issue(Request::read(1, 0x40000, Source::Gpgpu));
        assert_eq!(m.upgrade_critical(0x40000 / 64), 1);
        let mut t = m.now();
        while queued(&m).is_empty() {
            t += 1;
            m.advance_to(t);
            assert!(t < 10_000, "the miss never reached a controller");
        }
        assert_eq!(queued(&m), vec![true]);
        // CPU reads are never raised.
        let mut m = sys("gpu_favoring");
        m.issue(Request::read(1, 0x60000, Source::Cpu(0)));
        assert_eq!(m.upgrade_critical(0x60000 / 64), 0);
    }

    #[test]
    fn a_non_critical_miss_raised_to_critical_allocates_under_im() {
        // Under IM a non-critical GPGPU read miss bypasses the LLC (§3); when a critical read of
        // the same block joins it above the LLC while the miss is pending, the miss is critical
        // and its fill allocates. Without the upgrade, the block stays out of the LLC.
        let pending = |m: &MemSystem| m.mshrs.values().any(|s| !s.allocate);
        for (upgrade, hit) in [(true, true), (false, false)] {
            let mut m = sys("im");
            m.issue(Request::read(1, 0x50000, Source::Gpgpu));
            let mut t = m.now();
            while !pending(&m) {
                t += 1;
                m.advance_to(t);
                assert!(t < 10_000, "the read never missed");
            }
            if upgrade {
                assert_eq!(m.upgrade_critical(0x50000 / 64), 1);
                assert!(m.mshrs.values().all(|s| s.allocate && s.critical));
            }
            run_until_done(&mut m, 1);
            m.issue(Request::read(2, 0x50000, Source::Gpgpu));
            let c = run_until_done(&mut m, 1);
            assert_eq!(c[0].llc_hit, hit, "upgraded: {upgrade}");
        }
    }

    #[test]
    fn bypassed_fill_does_not_allocate_and_ideal_skips_dram_after_first_touch() {
        let mut m = sys("frfcfs");
        let mut r = Request::read(1, 0x8000, Source::Gpgpu);
        r.bypass = true;
        m.issue(r);
        run_until_done(&mut m, 1);
        m.issue(r);
        let c = run_until_done(&mut m, 1);
        assert!(!c[0].llc_hit, "a bypassed block is not in the LLC");
        assert_eq!(m.dram_stats().reads, 2);
        // Ideal: the block was touched, so the next miss is charged as a hit.
        let mut i = Request::read(2, 0x8000, Source::Gpgpu);
        i.ideal = true;
        m.issue(i);
        let c = run_until_done(&mut m, 1);
        assert!(c[0].llc_hit);
        assert_eq!(m.dram_stats().reads, 2);
        // A compulsory miss is not idealised.
        let mut j = Request::read(3, 0x9_0000, Source::Gpgpu);
        j.ideal = true;
        m.issue(j);
        let c = run_until_done(&mut m, 1);
        assert!(!c[0].llc_hit);
    }

    #[test]
    fn evicting_a_cpu_block_back_invalidates_the_core() {
        let mut c = HeteroConfig::preset("hetero").unwrap();
        c.set("llc.size_kb", "64").unwrap(); // 64 sets x 16 ways
        let mut m = MemSystem::new(&c);
        // 17 blocks of core 2 in one set (stride = 64 sets), then GPU blocks in the same set.
        for k in 0..40u64 {
            let src = if k < 8 { Source::Cpu(2) } else { Source::Gpgpu };
            m.issue(Request::read(k, k * 64 * 64, src));
            run_until_done(&mut m, 1);
        }
        let inv: Vec<_> = m.drain_back_invalidations().collect();
        assert!(!inv.is_empty());
        assert!(inv.iter().all(|&(c, _)| c == 2));
    }

    #[test]
    fn dirty_victims_are_written_back() {
        let mut c = HeteroConfig::preset("hetero").unwrap();
        c.set("llc.size_kb", "64").unwrap();
        let mut m = MemSystem::new(&c);
        for k in 0..40u64 {
            m.issue(Request::write(k, k * 64 * 64, Source::Cpu(0)));
            run_until_done(&mut m, 1);
        }
        let mut t = m.now();
        while !m.idle() {
            t += 1;
            m.advance_to(t);
        }
        assert!(m.writebacks > 0);
        assert_eq!(m.dram_stats().writes, m.writebacks);
    }

    #[test]
    fn every_policy_completes_a_mixed_stream() {
        for name in policy::names() {
            let mut m = sys(name);
            m.gpu_status_mut().ready_fraction = 0.9;
            m.gpu_status_mut().ready_warps = 4.0;
            let mut n = 0;
            for k in 0..300u64 {
                let src = match k % 5 {
                    0 => Source::Gpgpu,
                    1 => Source::Gfx(3),
                    c => Source::Cpu(c as u8),
                };
                let mut r = Request::read(k, (k * 7919 % 4096) * 64 * 33, src);
                r.critical = k % 3 == 0;
                r.write = k % 11 == 0;
                m.issue(r);
                n += 1;
                let t = m.now() + 2;
                m.advance_to(t);
            }
            let mut done = m.drain_completions().count();
            let mut t = m.now();
            while done < n {
                t += 100;
                m.advance_to(t);
                done += m.drain_completions().count();
                assert!(t < 10_000_000, "{name}: {done} of {n} completed");
            }
            assert_eq!(done, n, "{name}");
        }
    }

    /// Claim 20's mechanism: a GPU-like requester (64 outstanding streaming reads) slows down
    /// more the more memory-intensive CPU cores share the LLC and DRAM.
    #[test]
    fn gpu_stream_slows_with_more_memory_intensive_cpu_cores() {
        use crate::cpu::{synth, CpuCluster, OpStream};
        let mut times = vec![];
        for n in [0usize, 1, 2, 4] {
            let c = HeteroConfig::preset("hetero").unwrap();
            let mut m = MemSystem::new(&c);
            let streams: Vec<Box<dyn OpStream>> = ["mcf", "lbm", "milc", "libquantum"][..n]
                .iter()
                .enumerate()
                .map(|(i, a)| {
                    Box::new(synth::Synth::new(synth::find(a).unwrap(), i as u64, 0))
                        as Box<dyn OpStream>
                })
                .collect();
            let mut cpu = CpuCluster::new(&c.cpu, streams);
            let (mut sent, mut done, total) = (0u64, 0u64, 6000u64);
            let mut t = 0;
            while done < total {
                t += 1;
                let mut got = 0;
                cpu.cycle(t, &mut m, &mut |_| got += 1);
                done += got;
                while sent < total && sent - done < 64 {
                    m.issue(Request::read(sent, (1 << 30) + sent * 64, Source::Gpgpu));
                    sent += 1;
                }
                assert!(t < 5_000_000);
            }
            times.push(t);
        }
        assert!(
            times.windows(2).all(|w| w[1] > w[0]),
            "GPU time by co-runners 0/1/2/4: {times:?}"
        );
        assert!(times[3] as f64 > 1.2 * times[0] as f64, "{times:?}");
    }
}
