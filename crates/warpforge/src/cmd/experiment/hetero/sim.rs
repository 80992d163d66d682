//! One simulation of the heterogeneous machine: a GPU workload on the timing model (`hetero-gpu`)
//! whose L2 misses go through `warpforge_hetero::port::HeteroPort` to the shared LLC and DRAM,
//! with CPU co-runners stepped in the same loop; or CPU applications alone.
//!
//! Protocol [INTERP, scaled down from §8.5 to fit the time budget]: every CPU core is warmed
//! functionally (its LLC-resident region placed in the LLC, then `warm` accesses through its
//! private caches and the LLC: [`Warmup`], standing in for the document's 200M-instruction
//! warm-up); the GPU workload then runs to completion and the CPU
//! cores run exactly as long (they run only while a kernel runs); CPU IPC is measured over that
//! window. The alone IPC of an application: the same warm-up, then `alone_cycles` memory cycles
//! on the machine by itself.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use anyhow::{anyhow, bail, Context, Result};
use warpforge_hetero::cpu::{synth, trace::Trace, CpuCluster, OpStream};
use warpforge_hetero::crit::{CritProbe, CritStats, GpuShared};
use warpforge_hetero::port::{HeteroPort, IdealPcs, PcDram};
use warpforge_hetero::{HeteroConfig, MemSystem, Source};
use warpforge_simt::Device;
use warpforge_timing::{GpuConfig, TimingRunner};
use warpforge_workloads::{Check, Size};

use super::mixes::CpuApp;

/// GPU L2 requests the port keeps in flight.
pub const PORT_INFLIGHT: usize = 256;

/// The outcome of one co-run.
#[derive(Debug, Clone)]
pub struct CoRun {
    /// GPU core cycles of all kernels.
    pub gpu_cycles: u64,
    /// GPU warp instructions.
    pub gpu_insts: u64,
    /// IPC of each CPU core over the GPU's run.
    pub ipc: Vec<f64>,
    /// Per-SM criticality counters.
    pub crit: Vec<CritStats>,
    /// Named counters of the policy.
    pub counters: Vec<(String, f64)>,
    /// GPU LLC read hit rate.
    pub gpu_llc_hit_rate: f64,
    /// Fraction of GPU reads marked critical.
    pub gpu_critical_fraction: f64,
    /// Fraction of the GPU's reads served by DRAM whose DRAM read was critical.
    pub gpu_dram_critical_fraction: f64,
    /// Mean ready-warp fraction the GPU reported (HeLM's latency tolerance).
    pub gpu_ready_fraction: f64,
    /// Fraction of SM cycles in which the core was bottlenecked (spec 004 §3 level 1).
    pub gpu_bottlenecked_fraction: f64,
    /// Shares of the GPU's L1D misses marked non-critical because: the core was not
    /// bottlenecked; the PC was absent from the stall table with the LLC miss rate above 80%;
    /// the PC was in the table but not in the top set.
    pub gpu_noncritical_reasons: [f64; 3],
    /// Mean ready warps per SM the GPU reported (HeLM's thread-level parallelism).
    pub gpu_ready_warps: f64,
    /// Memory-side counters of the run (DRAM row-hit rate, bus utilisation, GPU/CPU traffic
    /// split, bypasses, mean read latencies in memory cycles), for diagnosing policies.
    pub memory: Vec<(String, f64)>,
    /// The GPU's LLC misses per load/store PC (`None`: requests no probe tagged), spec 004
    /// §1.4 / Fig. 5 left.
    pub dram_by_pc: BTreeMap<Option<u64>, PcDram>,
    /// The memory side's GPU reads served from DRAM (the sum of `dram_by_pc`'s reads).
    pub gpu_dram_reads: u64,
}

fn stream(app: &CpuApp, core: usize, traces: &Path) -> Result<Box<dyn OpStream>> {
    Ok(match app {
        CpuApp::Spec(n) => {
            let a = synth::find(n).ok_or_else(|| anyhow!("unknown SPEC substitute `{n}`"))?;
            Box::new(synth::Synth::new(a, 1000 + core as u64, 0))
        }
        CpuApp::Trace(n) => {
            let p = traces.join(format!("{n}.wft.xz"));
            Box::new(Trace::load(&p).map_err(|e| anyhow!("{e}"))?)
        }
    })
}

/// The functional warm-up of each CPU core before a run.
#[derive(Debug, Clone, Copy)]
pub struct Warmup {
    /// Accesses per core replayed through the private caches and the LLC.
    pub accesses: usize,
    /// Place each SPEC substitute's LLC-resident working set in the LLC first
    /// ([`CpuCluster::prefill_resident`]).
    pub prefill: bool,
}

/// Builds the warmed memory side and CPU cluster of `apps` (core i runs `apps[i]`).
fn machine(
    hcfg: &HeteroConfig,
    apps: &[CpuApp],
    warm: Warmup,
    traces: &Path,
) -> Result<(MemSystem, CpuCluster)> {
    let mut mem = MemSystem::new(hcfg);
    let streams = apps
        .iter()
        .enumerate()
        .map(|(i, a)| stream(a, i, traces))
        .collect::<Result<Vec<_>>>()?;
    let mut cpu = CpuCluster::new(&hcfg.cpu, streams);
    if warm.prefill {
        cpu.prefill_resident(&mut mem);
    }
    cpu.warm(warm.accesses, &mut mem);
    Ok((mem, cpu))
}

/// IPC of `app` running alone on core `core` for `cycles` memory cycles after the warm-up,
/// and the memory-side and core counters of that run (the GPU idle; keys as [`CoRun::memory`]).
pub fn alone_ipc(
    hcfg: &HeteroConfig,
    app: &CpuApp,
    warm: Warmup,
    cycles: u64,
    traces: &Path,
) -> Result<(f64, Vec<(String, f64)>)> {
    let (mem, cpu) = machine(hcfg, std::slice::from_ref(app), warm, traces)?;
    let mut port = HeteroPort::new(mem, cpu, Arc::default(), 0, PORT_INFLIGHT);
    for _ in 0..cycles {
        port.cpu_cycle();
    }
    let mut memory = memory_counters(&port.mem);
    memory.extend(cpu_counters(&port.cpu));
    Ok((port.cpu.ipcs()[0], memory))
}

/// Runs GPU workload `gpu` at `size` with `apps` co-running; the GPU requests `ideal` selects
/// are issued in spec 004 §1.3's ideal mode.
#[allow(clippy::too_many_arguments)]
pub fn corun(
    gpu: &str,
    size: Size,
    gcfg: &GpuConfig,
    hcfg: &HeteroConfig,
    apps: &[CpuApp],
    warm: Warmup,
    traces: &Path,
    ideal: IdealPcs,
) -> Result<CoRun> {
    let w = crate::cmd::run::find_workload(gpu)?;
    let (mem, cpu) = machine(hcfg, apps, warm, traces)?;
    let dirty0 = mem.llc_dirty_blocks();
    let shared = Arc::new(GpuShared::default());
    let port = HeteroPort::new(mem, cpu, shared.clone(), 0, PORT_INFLIGHT).with_ideal(ideal);
    let mut runner = TimingRunner::new(gcfg.clone(), 1);
    runner.gpu_mut().set_memory_port(Box::new(port));
    let handles: Arc<Mutex<Vec<Arc<Mutex<CritStats>>>>> = Arc::default();
    {
        let h = handles.clone();
        runner.gpu_mut().set_sm_probes(&mut |_| {
            let p = CritProbe::new(hcfg.policy.crit_period, shared.clone())
                .with_closest_reason(hcfg.policy.crit_closest_reason)
                .with_busy_unit_waits(hcfg.policy.crit_busy_unit_waits);
            h.lock().expect("lock").push(p.stats.clone());
            Box::new(p)
        });
    }
    let mut dev = Device::new();
    dev.set_runner(Box::new(runner));
    let check = w
        .run(&mut dev, size)
        .with_context(|| format!("running `{gpu}` at size {} on hetero-gpu", size.name()))?;
    if let Check::Failed(m) = check {
        bail!("{gpu}: output check failed: {m}");
    }
    let mut boxed = dev.take_runner().expect("runner installed");
    let runner = boxed
        .as_any_mut()
        .downcast_mut::<TimingRunner>()
        .expect("a timing runner");
    let stats = runner.stats();
    if stats.total.interrupted {
        bail!("{gpu}: interrupted");
    }
    let port = runner
        .gpu_mut()
        .take_memory_port()
        .expect("port installed")
        .into_any()
        .downcast::<HeteroPort>()
        .map_err(|_| anyhow!("memory port of another type"))?;
    drop(boxed); // the SMs' probes flush their counters
    let crit = handles
        .lock()
        .expect("lock")
        .iter()
        .map(|h| h.lock().expect("lock").clone())
        .collect();
    let g = port
        .mem
        .source_stats()
        .get(&Source::Gpgpu)
        .copied()
        .unwrap_or_default();
    let frac = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    let mut memory = memory_counters(&port.mem);
    memory.extend(cpu_counters(&port.cpu));
    // The GPU's outstanding memory requests at the port (spec 004 §7: the bound on them).
    let o = port.outstanding();
    memory.push(("gpu_port_blocks_mean".to_string(), o.blocks_mean));
    memory.push(("gpu_port_blocks_peak".to_string(), o.blocks_peak as f64));
    memory.push(("gpu_port_requests_peak".to_string(), o.requests_peak as f64));
    memory.push(("gpu_port_full_fraction".to_string(), o.full_fraction));
    // Dirty blocks in the LLC at the start (after the warm-up) and at the end of the co-run:
    // DRAM writes the run leaves owed (a GPU store that allocates defers its write past the
    // run; one written around the LLC pays it in the run).
    let dirty1 = port.mem.llc_dirty_blocks();
    for (k, v) in [
        ("llc_dirty_gpu_start", dirty0.0),
        ("llc_dirty_gpu_end", dirty1.0),
        ("llc_dirty_cpu_start", dirty0.1),
        ("llc_dirty_cpu_end", dirty1.1),
    ] {
        memory.push((k.to_string(), v as f64));
    }
    let crit: Vec<CritStats> = crit;
    let sum = |f: fn(&CritStats) -> u64| crit.iter().map(f).sum::<u64>();
    let misses = sum(|s| s.misses);
    let bottlenecked = frac(sum(|s| s.bottlenecked_cycles), sum(|s| s.cycles));
    let reasons = [
        frac(sum(|s| s.not_bottlenecked), misses),
        frac(sum(|s| s.absent_high_miss_rate), misses),
        frac(sum(|s| s.not_top), misses),
    ];
    Ok(CoRun {
        gpu_cycles: stats.total.cycles,
        gpu_insts: stats.total.warp_insts,
        ipc: port.cpu.ipcs(),
        crit,
        counters: port
            .mem
            .policy()
            .counters()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
        gpu_llc_hit_rate: frac(g.llc_hits, g.llc_hits + g.llc_misses),
        gpu_critical_fraction: frac(g.critical, g.reads),
        gpu_dram_critical_fraction: frac(g.dram_critical, g.dram_reads),
        gpu_ready_fraction: port.ready_samples.0 / port.ready_samples.1.max(1) as f64,
        gpu_bottlenecked_fraction: bottlenecked,
        gpu_noncritical_reasons: reasons,
        gpu_ready_warps: port.ready_warps_samples.0 / port.ready_warps_samples.1.max(1) as f64,
        memory,
        gpu_dram_reads: g.dram_reads,
        dram_by_pc: port.dram_by_pc.clone(),
    })
}

/// Counters of the memory side: DRAM traffic and row-buffer locality, and per requester class
/// (GPU, all CPU cores) the reads, writes, DRAM reads, bypassed reads and mean read latency.
fn memory_counters(mem: &MemSystem) -> Vec<(String, f64)> {
    let frac = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    let d = mem.dram_stats();
    let (front_cg_mean, front_no_cg, front_no_gpu) = mem.front_cg();
    let mut out = vec![
        ("dram_reads".to_string(), d.reads as f64),
        ("dram_writes".to_string(), d.writes as f64),
        (
            "dram_row_hit_fraction".to_string(),
            frac(d.row_hits, d.reads + d.writes),
        ),
        (
            "dram_bus_fraction".to_string(),
            frac(d.busy_cycles, d.cycles),
        ),
        ("llc_writebacks".to_string(), mem.writebacks as f64),
        (
            "dram_read_queue_mean".to_string(),
            mem.read_queue_occupancy().0,
        ),
        (
            "dram_read_overflow_mean".to_string(),
            mem.read_queue_occupancy().1,
        ),
        ("dram_front_cg_mean".to_string(), front_cg_mean),
        ("dram_front_no_cg_fraction".to_string(), front_no_cg),
        ("dram_front_no_gpu_fraction".to_string(), front_no_gpu),
    ];
    let mut gpu = warpforge_hetero::mem::SourceStats::default();
    let mut cpu = gpu;
    for (s, st) in mem.source_stats() {
        let t = if s.is_gpu() { &mut gpu } else { &mut cpu };
        t.reads += st.reads;
        t.writes += st.writes;
        t.dram_reads += st.dram_reads;
        t.bypassed += st.bypassed;
        t.latency_sum += st.latency_sum;
        t.llc_hits += st.llc_hits;
        t.llc_misses += st.llc_misses;
        t.critical += st.critical;
        t.store_fetches += st.store_fetches;
    }
    let (gw, cw) = mem.wait_stats();
    let (gs, cs) = mem.read_stages();
    let (gpu_wr, cpu_wr) = mem.dram_writes_by_owner();
    // DRAM command cycles to memory (CPU) cycles.
    let hc = mem.config();
    let dram_to_mem = hc.cpu.clock_mhz / hc.dram.clock_mhz;
    for (n, t, w, wr, sg) in [("gpu", gpu, gw, gpu_wr, gs), ("cpu", cpu, cw, cpu_wr, cs)] {
        out.push((format!("{n}_reads"), t.reads as f64));
        out.push((format!("{n}_writes"), t.writes as f64));
        out.push((format!("{n}_dram_reads"), t.dram_reads as f64));
        out.push((format!("{n}_dram_writes"), wr as f64));
        out.push((format!("{n}_bypassed_reads"), t.bypassed as f64));
        out.push((format!("{n}_store_fetches"), t.store_fetches as f64));
        out.push((format!("{n}_read_latency"), frac(t.latency_sum, t.reads)));
        out.push((
            format!("{n}_llc_hit_rate"),
            frac(t.llc_hits, t.llc_hits + t.llc_misses),
        ));
        // Mean LLC reads of the class in flight (Little: latency summed over the run's cycles).
        out.push((
            format!("{n}_reads_in_flight"),
            frac(t.latency_sum, mem.now()),
        ));
        // Where the class's DRAM reads waited (means per DRAM read), spec 004 §5.4 analysis.
        let per = |x: u64| frac(x, w.reads);
        out.push((format!("{n}_dram_row_hit_fraction"), per(w.row_hits)));
        out.push((format!("{n}_dram_front_wait"), per(w.front_cycles)));
        out.push((format!("{n}_dram_queue_wait"), per(w.queue_cycles)));
        out.push((
            format!("{n}_dram_queue_drain_wait"),
            per(w.drain_dram_cycles) * dram_to_mem,
        ));
        // Where the class's LLC-missing reads spent their latency, stage by stage (means per
        // read that opened an LLC miss, memory cycles; they add up to `_stage_latency`).
        let sp = |x: u64| frac(x, sg.misses);
        out.push((format!("{n}_stage_misses"), sg.misses as f64));
        for (k, v) in [
            ("lookup", sg.lookup),
            ("llc_mshr_wait", sg.llc_mshr_wait),
            ("to_mc", sg.to_mc),
            ("front", sg.front),
            ("queue", sg.queue),
            ("dram", sg.dram),
            ("back", sg.back),
            ("latency", sg.latency),
        ] {
            out.push((format!("{n}_stage_{k}"), sp(v)));
        }
        out.push((format!("{n}_stage_merged"), sg.merged as f64));
        out.push((
            format!("{n}_stage_merged_latency"),
            frac(sg.merged_latency, sg.merged),
        ));
        for (k, c) in ["cg", "ng", "cpu"].iter().enumerate() {
            out.push((format!("{n}_ahead_front_{c}"), per(w.ahead_front[k])));
            out.push((format!("{n}_ahead_queue_{c}"), per(w.ahead_queue[k])));
            out.push((format!("{n}_passed_by_{c}"), per(w.passed_by[k])));
        }
    }
    let (mg, mc, mfull) = mem.llc_mshr_occupancy();
    out.push(("llc_mshrs_gpu_mean".to_string(), mg));
    out.push(("llc_mshrs_cpu_mean".to_string(), mc));
    out.push(("llc_mshrs_full_fraction".to_string(), mfull));
    let (pg, pc) = mem.llc_mshr_peak();
    out.push(("llc_mshrs_gpu_peak".to_string(), pg as f64));
    out.push(("llc_mshrs_cpu_peak".to_string(), pc as f64));
    out.push((
        "gpu_read_critical_fraction".to_string(),
        frac(gpu.critical, gpu.reads),
    ));
    out
}

/// Counters of the CPU cores over the co-run, means over cores: fractions of cycles whose
/// dispatch stalled on a full ROB and on the MSHRs, and LLC requests per 1000 instructions.
fn cpu_counters(cpu: &CpuCluster) -> Vec<(String, f64)> {
    let frac = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    let n = cpu.cores.len().max(1) as f64;
    let mean = |f: &dyn Fn(&warpforge_hetero::cpu::CoreStats) -> f64| {
        cpu.cores.iter().map(|c| f(&c.stats)).sum::<f64>() / n
    };
    vec![
        (
            "cpu_rob_full_fraction".to_string(),
            mean(&|s| frac(s.rob_full, s.cycles)),
        ),
        (
            "cpu_mshr_full_fraction".to_string(),
            mean(&|s| frac(s.mshr_full, s.cycles)),
        ),
        (
            "cpu_mem_refused_fraction".to_string(),
            mean(&|s| frac(s.mem_refused, s.cycles)),
        ),
        (
            "cpu_llc_requests_pki".to_string(),
            mean(&|s| 1000.0 * frac(s.l2_misses, s.retired)),
        ),
    ]
}
