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
use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use warpforge_timing::dram::port::MemoryPort;
use warpforge_timing::dram::DramReq;
use warpforge_timing::mem::req::tag_pc;

/// Which GPU requests the port issues in the "ideal" mode of spec 004 §1.3
/// ([`Request::ideal`]: a non-compulsory LLC miss is charged the hit latency and not sent to
/// DRAM), for Fig. 5 right (§1.4: the top-n PCs' accesses made ideal in the LLC).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum IdealPcs {
    /// None (every ordinary run).
    #[default]
    Off,
    /// Every GPU request ("all shader accesses").
    All,
    /// The requests of the L1D misses of these PCs (instruction addresses); a request the
    /// probe did not tag (instruction, constant and texture misses) is not ideal.
    Pcs(Vec<u64>),
}

impl IdealPcs {
    fn covers(&self, tag: u32) -> bool {
        match self {
            IdealPcs::Off => false,
            IdealPcs::All => true,
            IdealPcs::Pcs(v) => tag_pc(tag).is_some_and(|pc| v.contains(&pc)),
        }
    }
}

/// The GPU's LLC misses attributed to the load/store PC whose L1D miss caused them (spec 004
/// §1.4, Fig. 5 left), counted at the port from the completions of its 64 B requests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PcDram {
    /// Reads the LLC served from DRAM (`Completion::llc_hit` false): the memory side's
    /// `dram_reads` of the GPU, request by request (a read that merged into a pending LLC miss
    /// is counted too, as there).
    pub reads: u64,
    /// Stores that missed the LLC: each goes to DRAM once, written around the LLC, fetched
    /// (`llc.gpgpu_store_fetch`) or written back on eviction, perhaps after the run.
    pub store_misses: u64,
}

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
    /// Requests issued in ideal mode ([`HeteroPort::with_ideal`]).
    ideal: IdealPcs,
    /// Per load/store PC (`None`: requests no probe tagged), the GPU's LLC misses.
    pub dram_by_pc: BTreeMap<Option<u64>, PcDram>,
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
            ideal: IdealPcs::Off,
            dram_by_pc: BTreeMap::new(),
        }
    }

    /// The port issuing the GPU requests `ideal` selects in the ideal mode of spec 004 §1.3.
    pub fn with_ideal(mut self, ideal: IdealPcs) -> Self {
        self.ideal = ideal;
        self
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
            if !c.llc_hit {
                let k = self.dram_by_pc.entry(tag_pc(e.0.miss_pc)).or_default();
                if c.write {
                    k.store_misses += 1;
                } else {
                    k.reads += 1;
                }
            }
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
            r.ideal = self.ideal.covers(d.miss_pc);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::HeteroConfig;
    use warpforge_timing::mem::req::pc_tag;

    /// A port over a machine with a 256 KB LLC and no CPU core.
    fn port(ideal: IdealPcs) -> HeteroPort {
        let mut c = HeteroConfig::preset("hetero").unwrap();
        c.set("llc.size_kb", "256").unwrap();
        let mem = MemSystem::new(&c);
        let cpu = CpuCluster::new(&c.cpu, Vec::new());
        HeteroPort::new(mem, cpu, Arc::default(), 0, 64).with_ideal(ideal)
    }

    /// Reads (128 B, two blocks) of `lines` lines, 128 B apart, then (`twice`) again: PC
    /// 0x10 + 8 * (line % 4) for each, every fifth read untagged; runs until all are back.
    fn sweep(p: &mut HeteroPort, lines: u64, twice: bool) {
        let reqs: Vec<DramReq> = (0..if twice { 2 * lines } else { lines })
            .map(|i| {
                let l = i % lines;
                DramReq {
                    addr: l * 128,
                    bytes: 128,
                    miss_pc: if l % 5 == 4 {
                        0
                    } else {
                        pc_tag(0x10 + 8 * (l % 4))
                    },
                    ..Default::default()
                }
            })
            .collect();
        let mut it = reqs.into_iter().peekable();
        let mut guard = 0;
        while it.peek().is_some() || p.busy() {
            if it.peek().is_some() && p.can_accept(0, false) {
                p.push(0, it.next().unwrap());
            }
            MemoryPort::cycle(p, 0);
            while p.pop_return(0).is_some() {}
            guard += 1;
            assert!(guard < 50_000_000, "the port never drained");
        }
    }

    fn reads(p: &HeteroPort) -> u64 {
        p.dram_by_pc.values().map(|k| k.reads).sum()
    }

    /// Spec 004 §1.4 / Fig. 5: the per-PC DRAM reads add up to the memory side's GPU DRAM
    /// reads, and each tagged PC gets its own lines' reads; the untagged requests are apart.
    #[test]
    fn per_pc_dram_reads_add_up_to_the_gpu_dram_reads() {
        let mut p = port(IdealPcs::Off);
        sweep(&mut p, 12_000, true); // 1.5 MB twice through a 256 KB LLC
        let total = p.mem.source_stat(Source::Gpgpu).dram_reads;
        assert!(total > 2 * 12_000, "the second pass misses too: {total}");
        assert_eq!(reads(&p), total);
        let pcs: Vec<Option<u64>> = p.dram_by_pc.keys().copied().collect();
        assert_eq!(
            pcs,
            vec![None, Some(0x10), Some(0x18), Some(0x20), Some(0x28)]
        );
        assert!(p.dram_by_pc[&None].reads > 0);
        assert!(p.dram_by_pc.values().all(|k| k.store_misses == 0));
    }

    /// Spec 004 §1.3: with every GPU request ideal, the second pass sends no read to DRAM (all
    /// its misses are non-compulsory); with the PCs 0x10 and 0x18 ideal only theirs are spared.
    #[test]
    fn ideal_requests_send_no_non_compulsory_read_to_dram() {
        let mut p = port(IdealPcs::All);
        sweep(&mut p, 12_000, false);
        let first = p.mem.source_stat(Source::Gpgpu).dram_reads;
        assert_eq!(first, 2 * 12_000, "compulsory misses go to DRAM");
        sweep(&mut p, 12_000, false);
        assert_eq!(p.mem.source_stat(Source::Gpgpu).dram_reads, first);
        assert_eq!(reads(&p), first);
        let mut q = port(IdealPcs::Pcs(vec![0x10, 0x18]));
        sweep(&mut q, 12_000, true);
        let by = |pc: Option<u64>| q.dram_by_pc[&pc].reads;
        // 12,000 lines: PCs 0x10 and 0x18 own lines 0, 1 mod 4 that are not 4 mod 5.
        assert_eq!(by(Some(0x10)), 2 * 2400, "compulsory only");
        assert_eq!(by(Some(0x18)), 2 * 2400);
        assert!(by(Some(0x20)) > 2 * 2400, "not ideal: missed again");
        assert!(by(None) > 2 * 2400);
    }
}
