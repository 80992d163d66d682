//! The GPU timing model's connection to the shared memory side: a
//! [`warpforge_timing::dram::port::MemoryPort`] that turns the GPU's L2-slice misses into 64 B
//! [`Request`]s of [`Source::Gpgpu`] (carrying the SMs' criticality bit) on a [`MemSystem`]
//! shared with the CPU cores, and steps the CPU cores in the same loop. The GPU preset must run
//! its DRAM clock domain at the memory-side clock (`hetero-gpu`: 4000 MHz), so one port cycle is
//! one memory cycle.

use crate::cpu::CpuCluster;
use crate::crit::GpuShared;
use crate::fasthash::FastMap;
use crate::mem::MemSystem;
use crate::req::{Completion, Request, Source};
use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use warpforge_timing::dram::port::MemoryPort;
use warpforge_timing::dram::DramReq;

/// Memory cycles between updates of the GPU status the policies read.
const STATUS_EVERY: u64 = 1024;
/// Memory cycles per LLC miss-rate period published to the criticality estimator.
const MISS_RATE_EVERY: u64 = 40_000;

/// The shared memory side and CPU cores, seen by the GPU as its DRAM.
pub struct HeteroPort {
    /// The memory side.
    pub mem: MemSystem,
    /// The CPU cores co-running with the GPU.
    pub cpu: CpuCluster,
    shared: Arc<GpuShared>,
    /// Memory cycles run.
    pub t: u64,
    next_id: u64,
    parts: FastMap<u64, (DramReq, u8)>,
    returns: VecDeque<DramReq>,
    max_inflight: usize,
    last_rates: (u64, u64),
    last_ready: (u64, u64, u64),
    done: Vec<Completion>,
    /// GPU requests sent (64 B blocks).
    pub gpu_blocks: u64,
    /// Sum and count of the ready-warp fractions reported to the policies.
    pub ready_samples: (f64, u64),
    /// Sum and count of the ready warps per SM reported to the policies.
    pub ready_warps_samples: (f64, u64),
    /// GPU blocks (64 B) sent to the memory side and not yet completed, now.
    blocks_out: u64,
    /// The GPU's outstanding requests over the port's cycles: (sum of the blocks outstanding,
    /// most blocks outstanding, most L2 requests outstanding, cycles in which the port held
    /// `max_inflight` requests and refused more, cycles sampled). See
    /// [`HeteroPort::outstanding`].
    out_stats: (u64, u64, u64, u64, u64),
}

/// The GPU's outstanding memory requests at the port, over the co-run (see
/// [`HeteroPort::outstanding`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Outstanding {
    /// Mean GPU blocks (64 B) sent to the memory side and not yet completed, per memory cycle.
    pub blocks_mean: f64,
    /// The most such blocks in any memory cycle.
    pub blocks_peak: u64,
    /// The most GPU L2 requests (of one or two blocks) outstanding at once.
    pub requests_peak: u64,
    /// Fraction of memory cycles in which the port held its limit of requests (`max_inflight`),
    /// so that the GPU's L2 slices could send no more.
    pub full_fraction: f64,
}

impl HeteroPort {
    /// A port at memory cycle `t0` over `mem` with `cpu` co-running; at most `max_inflight`
    /// GPU L2 requests outstanding.
    pub fn new(
        mem: MemSystem,
        cpu: CpuCluster,
        shared: Arc<GpuShared>,
        t0: u64,
        max_inflight: usize,
    ) -> Self {
        Self {
            mem,
            cpu,
            shared,
            t: t0,
            next_id: 0,
            parts: FastMap::default(),
            returns: VecDeque::new(),
            max_inflight,
            last_rates: (0, 0),
            last_ready: (0, 0, 0),
            done: Vec::new(),
            gpu_blocks: 0,
            ready_samples: (0.0, 0),
            ready_warps_samples: (0.0, 0),
            blocks_out: 0,
            out_stats: (0, 0, 0, 0, 0),
        }
    }

    /// The GPU's outstanding memory requests at the port over the cycles run so far.
    pub fn outstanding(&self) -> Outstanding {
        let (sum, bpeak, rpeak, full, n) = self.out_stats;
        let frac = |a: u64| if n == 0 { 0.0 } else { a as f64 / n as f64 };
        Outstanding {
            blocks_mean: frac(sum),
            blocks_peak: bpeak,
            requests_peak: rpeak,
            full_fraction: frac(full),
        }
    }

    fn publish(&mut self) {
        // Every cycle: the all-GPU probe's windows (spec 004 §5.6) end on any cycle, and a count
        // up to `STATUS_EVERY` cycles stale would shift a window's IPC by more than its
        // "equal" band.
        let insts = self.shared.insts.load(Ordering::Relaxed);
        self.mem.gpu_status_mut().insts = insts;
        if self.t.is_multiple_of(STATUS_EVERY) {
            let ready = self.shared.ready.load(Ordering::Relaxed);
            let live = self.shared.live.load(Ordering::Relaxed);
            let cycles = self.shared.sm_cycles.load(Ordering::Relaxed);
            let (r0, l0, c0) = self.last_ready;
            let g = self.mem.gpu_status_mut();
            if live > l0 {
                g.ready_fraction = (ready - r0) as f64 / (live - l0) as f64;
                self.ready_samples.0 += g.ready_fraction;
                self.ready_samples.1 += 1;
            }
            if cycles > c0 {
                g.ready_warps = (ready - r0) as f64 / (cycles - c0) as f64;
                self.ready_warps_samples.0 += g.ready_warps;
                self.ready_warps_samples.1 += 1;
            }
            self.last_ready = (ready, live, cycles);
        }
        if self.t.is_multiple_of(MISS_RATE_EVERY) {
            let s = self.mem.source_stat(Source::Gpgpu);
            let (h0, m0) = self.last_rates;
            let (dh, dm) = (s.llc_hits - h0, s.llc_misses - m0);
            if let Some(ppm) = (dm * 1_000_000).checked_div(dh + dm) {
                self.shared
                    .llc_miss_ppm
                    .store(ppm as u32, Ordering::Relaxed);
            }
            self.last_rates = (s.llc_hits, s.llc_misses);
        }
    }

    /// One memory cycle without the GPU (CPU warm-up or CPU-only windows).
    pub fn cpu_cycle(&mut self) {
        MemoryPort::cycle(self, 0);
    }
}

impl MemoryPort for HeteroPort {
    fn cycle(&mut self, _now: u64) {
        self.t += 1;
        self.publish();
        let o = &mut self.out_stats;
        o.0 += self.blocks_out;
        o.1 = o.1.max(self.blocks_out);
        o.2 = o.2.max(self.parts.len() as u64);
        o.3 += (self.parts.len() >= self.max_inflight) as u64;
        o.4 += 1;
        let mut done = std::mem::take(&mut self.done);
        self.cpu.cycle(self.t, &mut self.mem, &mut |c| done.push(c));
        for c in done.drain(..) {
            let Some(e) = self.parts.get_mut(&c.id) else {
                continue;
            };
            e.1 -= 1;
            self.blocks_out -= 1;
            if e.1 == 0 {
                let (d, _) = self.parts.remove(&c.id).expect("present");
                if !d.write || d.ack.is_some() {
                    self.returns.push_back(d);
                }
            }
        }
        self.done = done;
    }

    fn can_accept(&self, _channel: usize, _write: bool) -> bool {
        self.parts.len() < self.max_inflight && self.mem.can_issue()
    }

    fn push(&mut self, _channel: usize, d: DramReq) {
        let first = d.addr / 64;
        let last = (d.addr + d.bytes.max(1) as u64 - 1) / 64;
        let n = (last - first + 1) as u8;
        let id = self.next_id;
        self.next_id += 1;
        for b in first..=last {
            let mut r = Request::read(id, b * 64, Source::Gpgpu);
            r.write = d.write;
            r.critical = d.crit;
            self.mem.issue(r);
        }
        self.gpu_blocks += n as u64;
        self.blocks_out += n as u64;
        self.parts.insert(id, (d, n));
    }

    fn upgrade_crit(&mut self, _channel: usize, addr: u64, bytes: u32) {
        let (first, last) = (addr / 64, (addr + bytes.max(1) as u64 - 1) / 64);
        for b in first..=last {
            self.mem.upgrade_critical(b);
        }
    }

    fn pop_return(&mut self, _now: u64) -> Option<DramReq> {
        self.returns.pop_front()
    }

    fn busy(&self) -> bool {
        !self.parts.is_empty() || !self.returns.is_empty()
    }

    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }
}
