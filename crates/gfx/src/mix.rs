//! One run of a 3D title with CPU co-runners on the CPU-GPU machine's memory side under a
//! memory-scheduling policy: the unit of the section 8 experiments (baseline, ideal LLC for
//! critical / non-critical accesses, random marking, policy comparisons, LLC size).
//!
//! Scaling \[INTERP\]: a simulated frame has 1/`res_div²` of the real frame's pixels, while the
//! memory hierarchy is divided by `mem_div`: the LLC, the CPU cores' private caches and warm
//! regions, and the GPU's texture footprint and capacity-bound caches (textures are assets,
//! their size does not follow the screen resolution). The render targets store
//! `res_div² / mem_div` real pixels per simulated pixel ([`crate::scene::rt_scale`]), so every
//! footprint-to-LLC ratio is the full-size frame's.

use serde::Serialize;
use warpforge_hetero::cpu::{synth, CpuCluster, OpStream};
use warpforge_hetero::mem::WaitStats;
use warpforge_hetero::{HeteroConfig, MemSystem};

use crate::mem::Ideal;
use crate::pipeline::memif::{Marking, StreamCounts};
use crate::shared::SharedMem;
use crate::sim::{self, RunOpts};
use crate::title::Title;

/// CPU operations of functional warm-up per core before a run.
pub const CPU_WARM_OPS: usize = 300_000;

/// The high-LLC-MPKI SPEC CPU2006 applications of section 8.3.
pub const H_APPS: [&str; 7] = [
    "bwaves",
    "lbm",
    "leslie3d",
    "libquantum",
    "mcf",
    "milc",
    "soplex",
];
/// The low-LLC-MPKI ones.
pub const L_APPS: [&str; 6] = ["bzip2", "gcc", "omnetpp", "sphinx3", "wrf", "zeusmp"];

/// The 4-way CPU mixes of the title with index `i` in [`crate::title::TITLES`] (section 8.4: one
/// H, one L and one HL mix per GPU workload; the document does not list them, so they are drawn
/// deterministically from `i`): HL first.
pub fn cpu_mixes(i: usize) -> [(&'static str, [&'static str; 4]); 3] {
    let (h, l) = (H_APPS, L_APPS);
    [
        ("HL", [h[i % 7], h[(i + 3) % 7], l[i % 6], l[(i + 2) % 6]]),
        (
            "H",
            [h[i % 7], h[(i + 2) % 7], h[(i + 4) % 7], h[(i + 6) % 7]],
        ),
        (
            "L",
            [l[i % 6], l[(i + 1) % 6], l[(i + 3) % 6], l[(i + 4) % 6]],
        ),
    ]
}

/// The FR-FCFS baseline run of `title` with its HL CPU mix (16 MB LLC, algorithm marking, seed
/// 11): the run whose FPS is compared with Table 2 (claim 19) and against which the title
/// profiles are calibrated.
pub fn baseline(title: &Title, opts: RunOpts) -> MixRun {
    let i = crate::title::TITLES
        .iter()
        .position(|x| x.name == title.name)
        .unwrap_or(0);
    MixRun {
        title: *title,
        policy: "frfcfs".into(),
        llc_kb: 16384,
        marking: Marking::Algorithm,
        ideal: None,
        opts,
        cpu: cpu_mixes(i)[0].1.to_vec(),
        sets: Vec::new(),
        seed: 11,
    }
}

/// What to run.
#[derive(Clone, Debug)]
pub struct MixRun {
    /// The title.
    pub title: Title,
    /// Memory-scheduling policy (`warpforge_hetero::policy` registry name).
    pub policy: String,
    /// Full-size LLC capacity, KB (divided by `opts.mem_div`).
    pub llc_kb: u64,
    /// Marking of the critical bit.
    pub marking: Marking,
    /// Accesses made ideal in the LLC.
    pub ideal: Option<Ideal>,
    /// Frame scale and frame counts.
    pub opts: RunOpts,
    /// CPU co-runners (SPEC CPU2006 substitutes of `warpforge_hetero::cpu::synth`), one per core.
    pub cpu: Vec<&'static str>,
    /// Extra `key=value` settings of the machine configuration.
    pub sets: Vec<String>,
    /// Seed of the CPU streams.
    pub seed: u64,
}

/// What a run measured.
#[derive(Clone, Debug, Serialize)]
pub struct MixResult {
    /// Average FPS over the measured frames (real-frame scale).
    pub fps: f64,
    /// GPU accesses of the measured frames.
    pub counts: StreamCounts,
    /// GPU reads of the measured frames served by DRAM, with their critical bits (claim 4) and
    /// their units' Algorithm 1 flags before the frame-rate gate (`marked`, Fig. 9's
    /// classification).
    pub dram: StreamCounts,
    /// Mean signed estimator error over the measured frames with a prediction.
    pub estimate_error: Option<f64>,
    /// The same with the plain `C_cur` reading (see [`crate::estimator`]).
    pub estimate_error_plain: Option<f64>,
    /// IPC of each CPU core over the measured frames.
    pub cpu_ipc: Vec<f64>,
    /// All frames completed.
    pub complete: bool,
    /// Frames completed, warm-up included (`warmup + frames` when [`MixResult::complete`]).
    pub frames_done: usize,
    /// GPU cycles simulated, warm-up included (a run that hits the cap, `RunOpts::max_frame_cycles`
    /// per frame, stops at about `max_frame_cycles x (warmup + frames)`).
    pub gpu_cycles: u64,
    /// Share of the measured cycles in which Algorithm 1 marked each unit bottlenecked (FE, ZS,
    /// SH, CW, BT; index = `Unit as usize`).
    pub bottleneck_share: [f64; 5],
    /// Share of the measured cycles with the frame-rate gate open (predicted FPS below target).
    pub gate_share: f64,
    /// Algorithm 1's runs over the measured frames: bits, walk, flags (diagnostic of claim 4).
    pub walk: crate::pipeline::probe::WalkStats,
    /// Each unit's sampled activity over the measured frames, what its instances waited for
    /// (diagnostic of claims 3-4; index = `Unit as usize`).
    pub waits: [crate::pipeline::probe::Waits; 5],
    /// The whole GPU's sampled activity over the measured frames
    /// (`crate::pipeline::probe::gpu_activity`).
    pub gpu_waits: crate::pipeline::probe::Waits,
    /// Per unit, the samples in which the GPU stood still while the unit waited for a
    /// non-critical / a critical read (`crate::pipeline::probe::Stalls`).
    pub stalls: crate::pipeline::probe::Stalls,
    /// The shader cores' sampled context occupancy over the measured frames
    /// (`crate::pipeline::probe::ShContexts`; session 25).
    pub sh_contexts: crate::pipeline::probe::ShContexts,
    /// Each unit's states and throughput, and why the SH queue was empty, over the measured
    /// frames (`crate::pipeline::probe::UnitStates`; session 25, shfeed).
    pub unit_states: crate::pipeline::probe::UnitStates,
    /// Cycles and estimator error of every measured frame.
    pub frames: Vec<(u64, Option<f64>)>,
    /// The memory-scheduling policy's own counters at the end of the run (e.g. IM-SCHED's mean
    /// probability, IM-LLC's emergency fraction).
    pub policy_counters: Vec<(&'static str, f64)>,
    /// DRAM data-bus utilisation over the measured frames (busy bus cycles over channel
    /// cycles, GPU bursts counted at their scaled share, [`gpu_bus_div`]).
    pub dram_util: f64,
    /// DRAM row-buffer hit rate over the measured frames (row hits over column accesses).
    pub dram_row_hits: f64,
    /// Share of the banks' time held by row activations over the measured frames: activates
    /// times tRC (a scaled GPU activation's tRC / `gpu_bus_div` under `dram.gpu_bank_scaled`)
    /// over bank-cycles (a lower
    /// bound of bank occupancy; diagnostic of claims 7-8).
    pub dram_bank_busy: f64,
    /// Mean latency of the GPU reads served by DRAM over the measured frames, memory-side (CPU)
    /// cycles from issue to data return: `[non-critical, critical]` (0 when there were none).
    pub gpu_dram_latency: [f64; 2],
    /// The same per stream (index `Stream as usize`): `[non-critical, critical]` mean latency,
    /// memory-side cycles, and the reads they average over (diagnostic of claims 7-8: which
    /// streams' reads a policy delays; session 22).
    pub gpu_dram_latency_by_stream: [[(f64, u64); 2]; 8],
    /// The memory side seen by the CPU cores and by the GPU over the measured frames, `[CPU,
    /// GPU]` (all cores summed, all 3D units summed; diagnostic of claims 7-8): mean read
    /// latency, memory-side (CPU) cycles from issue to completion, LLC hits included.
    pub read_latency: [f64; 2],
    /// Read LLC hit rate over the measured frames, `[CPU, GPU]` (ideal hits included).
    pub llc_hit_rate: [f64; 2],
    /// Reads served by DRAM over the measured frames, `[CPU, GPU]`.
    pub dram_reads: [u64; 2],
    /// Where the DRAM reads waited over the measured frames, `[CG, NG, CPU]` (the GPU's
    /// reads by their criticality bit; sums over the reads served;
    /// `warpforge_hetero::mem::WaitStats`: in front of the controller, in the read queue, the
    /// reads of each class that passed them, the write drain they sat through; diagnostic of
    /// claims 7-8).
    pub dram_wait: [WaitStats; 3],
    /// Share of the DRAM channel cycles over the measured frames in which the channels served
    /// their write queues (the write drain, or writes while no read was queued).
    pub dram_write_share: f64,
    /// GPU reads issued non-critical and raised in flight over the measured frames, because an
    /// access marked critical found their block pending (`pipeline::Config::raise_pending`).
    pub raised_reads: u64,
}

/// `a - b`, field by field (counters of the same run at two instants).
fn wait_delta(a: &WaitStats, b: &WaitStats) -> WaitStats {
    let d3 = |x: &[u64; 3], y: &[u64; 3]| -> [u64; 3] { std::array::from_fn(|k| x[k] - y[k]) };
    WaitStats {
        reads: a.reads - b.reads,
        row_hits: a.row_hits - b.row_hits,
        front_cycles: a.front_cycles - b.front_cycles,
        queue_cycles: a.queue_cycles - b.queue_cycles,
        ahead_front: d3(&a.ahead_front, &b.ahead_front),
        ahead_queue: d3(&a.ahead_queue, &b.ahead_queue),
        passed_by: d3(&a.passed_by, &b.passed_by),
        drain_dram_cycles: a.drain_dram_cycles - b.drain_dram_cycles,
    }
}

/// `[CPU, GPU]` sums of the memory side's per-source counters.
fn side_stats(m: &MemSystem) -> [warpforge_hetero::mem::SourceStats; 2] {
    let mut t = [warpforge_hetero::mem::SourceStats::default(); 2];
    for (s, v) in m.source_stats() {
        let x = &mut t[s.is_gpu() as usize];
        x.reads += v.reads;
        x.llc_hits += v.llc_hits;
        x.llc_misses += v.llc_misses;
        x.dram_reads += v.dram_reads;
        x.latency_sum += v.latency_sum;
    }
    t
}

/// The machine configuration: the `hetero` preset with the LLC and the CPU private caches
/// divided by `mem_div`, each GPU DRAM burst holding 1/`gpu_bus_div` of the bus
/// ([`gpu_bus_div`]), the policy and the extra settings.
pub fn config(
    llc_kb: u64,
    policy: &str,
    mem_div: u32,
    gpu_bus_div: u32,
    sets: &[String],
) -> Result<HeteroConfig, String> {
    let e = |e: warpforge_hetero::config::ConfigError| e.to_string();
    let mut cfg = HeteroConfig::preset("hetero").map_err(e)?;
    let d = mem_div.max(1);
    cfg.set("llc.size_kb", &(llc_kb / d as u64).max(64).to_string())
        .map_err(e)?;
    cfg.set("cpu.l1d_kb", &(cfg.cpu.l1d_kb / d).max(1).to_string())
        .map_err(e)?;
    cfg.set("cpu.l2_kb", &(cfg.cpu.l2_kb / d).max(4).to_string())
        .map_err(e)?;
    cfg.set("dram.gpu_bus_div", &gpu_bus_div.max(1).to_string())
        .map_err(e)?;
    cfg.set("policy.name", policy).map_err(e)?;
    // IM-SCHED counts and reverses only the CG-over-CPU decisions that FR-FCFS would have taken
    // the other way (docs/history/EXPERIMENTS-004.md, 3D notes: "de-prioritised by a younger CG request").
    cfg.set("policy.im_sched_overtake", "true").map_err(e)?;
    // IM-SCHED's probability is per CPU access (§5.4, docs/history/EXPERIMENTS-004.md row 8, session 16).
    cfg.set("policy.im_sched_per_request", "true").map_err(e)?;
    cfg.apply_overrides(sets).map_err(e)?;
    Ok(cfg)
}

/// The DRAM bus share of a scaled frame's GPU burst, as a divisor (`dram.gpu_bus_div`): a
/// frame reduced by `res_div` per axis does 1/`res_div²` of the full frame's work, so it lasts
/// 1/`res_div²` of the cycles, but it moves 1/`mem_div` of its DRAM bytes (its textures and,
/// through [`crate::scene::rt_scale`], its render targets are 1/`mem_div` of their size against
/// an LLC divided by `mem_div`, so they miss as often per byte as at full size). Per simulated
/// cycle its DRAM traffic is `res_div² / mem_div` times the full-size frame's (16 at `tiny`,
/// 4 at `small`), against a channel of the full-size bandwidth that the CPU cores, unscaled in
/// time, use at their full-size rate. Each GPU burst therefore holds 1/`res_div² / mem_div` of
/// the data bus (and of the tRRD/tFAW activation budget), so that the GPU's and the CPU's
/// shares of the bus per cycle are the full-size ones (with `dram.gpu_bank_scaled`, session
/// 13, each GPU row miss also holds its bank for 1/`res_div² / mem_div` of the bank timings,
/// since a scaled frame's row misses arrive that many times as often per bank-cycle); the
/// per-request latency is not scaled. The LLC
/// and the ring model latency only, so they carry no bandwidth to scale. \[INTERP\]
pub fn gpu_bus_div(res_div: u32, mem_div: u32) -> u32 {
    crate::scene::rt_scale(res_div, mem_div) as u32
}

/// The CPU streams of `apps`, their warm regions divided by `mem_div`.
fn streams(apps: &[&str], mem_div: u32, seed: u64) -> Result<Vec<Box<dyn OpStream>>, String> {
    apps.iter()
        .enumerate()
        .map(|(i, a)| {
            let app = synth::find(a).ok_or_else(|| format!("unknown CPU application `{a}`"))?;
            let scaled = synth::App {
                warm_kb: (app.warm_kb / mem_div.max(1) as u64).max(16),
                ..*app
            };
            Ok(Box::new(synth::Synth::new(&scaled, seed + i as u64, 0)) as Box<dyn OpStream>)
        })
        .collect()
}

/// Most quad contexts per shader core that `gfx.contexts` accepts (a guard against a typo that
/// would allocate `cores` x N context slots; 64 x 1024 is far above any studied value).
pub const MAX_CONTEXTS: usize = 1024;

/// Splits `key=value` settings into the GPU pipeline's own (`gfx.KEY`, applied to `pipe`) and
/// the machine configuration's (returned, for [`config`]). The pipeline's keys:
/// `gfx.raise_pending` (true or false, [`crate::pipeline::Config::raise_pending`]) and
/// `gfx.contexts` (quad contexts per shader core, 1..=[`MAX_CONTEXTS`],
/// [`crate::pipeline::Config::contexts`]; default 16, our choice: Table 1 does not give it;
/// the sensitivity study of session 25) and `gfx.fe_cross_draw` (true or false, default false,
/// [`crate::pipeline::Config::fe_cross_draw`]; the ablation of session 25).
pub fn apply_gfx_sets(
    sets: &[String],
    pipe: &mut crate::pipeline::Config,
) -> Result<Vec<String>, String> {
    let mut rest = Vec::new();
    for s in sets {
        let Some(key) = s.trim().strip_prefix("gfx.") else {
            rest.push(s.clone());
            continue;
        };
        let (k, v) = key
            .split_once('=')
            .ok_or_else(|| format!("{s}: expected key=value"))?;
        match k.trim() {
            "raise_pending" => {
                pipe.raise_pending = v
                    .trim()
                    .parse()
                    .map_err(|_| format!("gfx.raise_pending: expected true or false, got `{v}`"))?;
            }
            "fe_cross_draw" => {
                pipe.fe_cross_draw = v
                    .trim()
                    .parse()
                    .map_err(|_| format!("gfx.fe_cross_draw: expected true or false, got `{v}`"))?;
            }
            "contexts" => {
                let n: usize = v.trim().parse().map_err(|_| {
                    format!(
                        "gfx.contexts: expected a whole number of quad contexts per shader \
                         core (1 to {MAX_CONTEXTS}), got `{v}`"
                    )
                })?;
                if !(1..=MAX_CONTEXTS).contains(&n) {
                    return Err(format!(
                        "gfx.contexts: {n} quad contexts per shader core is out of range \
                         (1 to {MAX_CONTEXTS})"
                    ));
                }
                pipe.contexts = n;
            }
            other => {
                return Err(format!(
                    "gfx.{other}: unknown key (known here: raise_pending, contexts, fe_cross_draw)"
                ))
            }
        }
    }
    Ok(rest)
}

/// Runs `run`.
pub fn run(run: &MixRun) -> Result<MixResult, String> {
    let (r, m) = (run.opts.res_div, run.opts.mem_div);
    let mut pipe = run.opts.cfg.clone();
    let sets = apply_gfx_sets(&run.sets, &mut pipe)?;
    let cfg = config(run.llc_kb, &run.policy, m, gpu_bus_div(r, m), &sets)?;
    let mut mem = SharedMem::new(MemSystem::new(&cfg), 4);
    mem.ideal = run.ideal;
    if !run.cpu.is_empty() {
        let mut cpu = CpuCluster::new(&cfg.cpu, streams(&run.cpu, run.opts.mem_div, run.seed)?);
        cpu.warm(CPU_WARM_OPS, &mut mem.mem);
        mem.cpu = Some(cpu);
    }
    let mut opts = run.opts.clone();
    opts.cfg = pipe;
    opts.cfg.marking = run.marking.clone();
    let (mut gpu, mut generator) = sim::build(&run.title, &opts);
    let n = opts.warmup + opts.frames;
    let max = opts.max_frame_cycles;
    gpu.run_frames(
        opts.warmup,
        max * opts.warmup as u64,
        &mut mem,
        &mut generator,
    );
    let snap = |m: &SharedMem| -> Vec<(u64, u64)> {
        m.cpu
            .as_ref()
            .map(|c| {
                c.cores
                    .iter()
                    .map(|k| (k.stats.retired, k.stats.cycles))
                    .collect()
            })
            .unwrap_or_default()
    };
    let before = snap(&mem);
    let dram_before = mem.dram;
    let lat_before = mem.dram_latency;
    let by_stream_before = mem.dram_latency_by_stream;
    let stats_before = mem.mem.dram_stats();
    let sides_before = side_stats(&mem.mem);
    let wait_before = mem.mem.wait_stats_by_class();
    let raised_before = gpu.raised_reads();
    let writes_before = mem.mem.dram_write_cycles();
    gpu.run_frames(n, max * opts.frames as u64, &mut mem, &mut generator);
    let after = snap(&mem);
    let cpu_ipc = before
        .iter()
        .zip(&after)
        .map(|(b, a)| (a.0 - b.0) as f64 / (a.1 - b.1).max(1) as f64)
        .collect();
    let r = sim::summarize(&run.title, &gpu.frames, opts.warmup, n);
    let d = mem.dram;
    let dram = StreamCounts {
        reads: std::array::from_fn(|s| d.reads[s] - dram_before.reads[s]),
        writes: [0; 8],
        critical: std::array::from_fn(|s| d.critical[s] - dram_before.critical[s]),
        marked: std::array::from_fn(|s| d.marked[s] - dram_before.marked[s]),
    };
    let gpu_dram_latency = std::array::from_fn(|k| {
        let (a, b) = (mem.dram_latency[k], lat_before[k]);
        (a.0 - b.0) as f64 / (a.1 - b.1).max(1) as f64
    });
    let gpu_dram_latency_by_stream = std::array::from_fn(|s| {
        std::array::from_fn(|k| {
            let (a, b) = (mem.dram_latency_by_stream[s][k], by_stream_before[s][k]);
            let n = a.1 - b.1;
            ((a.0 - b.0) as f64 / n.max(1) as f64, n)
        })
    });
    let policy_counters = mem.mem.policy().counters();
    let sides = side_stats(&mem.mem);
    let side = |k: usize| {
        let (a, b) = (sides[k], sides_before[k]);
        let reads = (a.reads - b.reads).max(1) as f64;
        let looked = (a.llc_hits + a.llc_misses - b.llc_hits - b.llc_misses).max(1) as f64;
        (
            (a.latency_sum - b.latency_sum) as f64 / reads,
            (a.llc_hits - b.llc_hits) as f64 / looked,
            a.dram_reads - b.dram_reads,
        )
    };
    let (cpu_side, gpu_side) = (side(0), side(1));
    let st = mem.mem.dram_stats();
    let busy = st.busy_cycles - stats_before.busy_cycles;
    let chan_cycles = st.cycles - stats_before.cycles;
    let accesses = (st.reads + st.writes) - (stats_before.reads + stats_before.writes);
    let hits = st.row_hits - stats_before.row_hits;
    let bank = st.bank_cycles - stats_before.bank_cycles;
    let dram_bank_busy = bank as f64 / (chan_cycles * cfg.dram.banks as u64).max(1) as f64;
    let wait = mem.mem.wait_stats_by_class();
    let dram_wait = std::array::from_fn(|k| wait_delta(&wait[k], &wait_before[k]));
    let dram_write_share =
        (mem.mem.dram_write_cycles() - writes_before) as f64 / chan_cycles.max(1) as f64;
    Ok(MixResult {
        policy_counters,
        gpu_dram_latency,
        gpu_dram_latency_by_stream,
        read_latency: [cpu_side.0, gpu_side.0],
        llc_hit_rate: [cpu_side.1, gpu_side.1],
        dram_reads: [cpu_side.2, gpu_side.2],
        dram_wait,
        dram_write_share,
        raised_reads: gpu.raised_reads() - raised_before,
        dram_bank_busy,
        dram_util: busy as f64 / chan_cycles.max(1) as f64,
        dram_row_hits: hits as f64 / accesses.max(1) as f64,
        fps: r.fps,
        counts: r.counts,
        dram,
        estimate_error: r.estimate_error,
        estimate_error_plain: r.estimate_error_plain,
        cpu_ipc,
        complete: r.complete,
        frames_done: gpu.frames.len(),
        gpu_cycles: gpu.now(),
        bottleneck_share: r.bottleneck_share(),
        gate_share: r.gate_share(),
        walk: r.walk(),
        waits: r.waits(),
        gpu_waits: r.gpu_waits(),
        stalls: r.stalls(),
        sh_contexts: r.sh_contexts(),
        unit_states: r.unit_states(),
        frames: r
            .frames
            .iter()
            .map(|f| (f.cycles, f.estimate_error))
            .collect(),
    })
}

/// IPC of `app` running alone on one core (no GPU) for `cycles` CPU cycles after the same
/// warm-up, under `policy` with the given LLC (the denominator of weighted speedup).
pub fn alone_ipc(
    app: &'static str,
    llc_kb: u64,
    mem_div: u32,
    cycles: u64,
    seed: u64,
) -> Result<f64, String> {
    let cfg = config(llc_kb, "frfcfs", mem_div, 1, &[])?;
    let mut mem = MemSystem::new(&cfg);
    let mut cpu = CpuCluster::new(&cfg.cpu, streams(&[app], mem_div, seed)?);
    cpu.warm(CPU_WARM_OPS, &mut mem);
    for t in 1..=cycles {
        cpu.cycle(t, &mut mem, &mut |_| {});
    }
    Ok(cpu.ipcs()[0])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{rt_scale, Layout, QUAD_PX};

    /// `gfx.contexts=N` sets the quad contexts per shader core (the session-25 sensitivity
    /// study); the machine's keys pass through; a bad or out-of-range N is refused with an
    /// error naming the key, leaving the default (16) untouched.
    #[test]
    fn gfx_contexts_sets_the_shader_contexts_and_refuses_bad_values() {
        let mut pipe = crate::pipeline::Config::default();
        assert_eq!(pipe.contexts, 16, "the default stays 16");
        let sets = [
            "gfx.contexts=32".to_string(),
            "policy.seed=3".to_string(),
            " gfx.contexts = 8 ".to_string(),
        ];
        let rest = apply_gfx_sets(&sets, &mut pipe).unwrap();
        assert_eq!(pipe.contexts, 8, "the last setting wins");
        assert_eq!(rest, vec!["policy.seed=3".to_string()]);
        for bad in ["0", "-1", "many", "1.5", "", "1025"] {
            let mut p = crate::pipeline::Config::default();
            let e = apply_gfx_sets(&[format!("gfx.contexts={bad}")], &mut p).unwrap_err();
            assert!(e.contains("gfx.contexts"), "{bad}: {e}");
            assert_eq!(p.contexts, 16, "{bad}");
        }
        let mut p = crate::pipeline::Config::default();
        apply_gfx_sets(&[format!("gfx.contexts={MAX_CONTEXTS}")], &mut p).unwrap();
        apply_gfx_sets(&["gfx.contexts=1".to_string()], &mut p).unwrap();
        assert_eq!(p.contexts, 1);
    }

    /// `gfx.fe_cross_draw=true|false` sets FE's cross-draw look-ahead (the session-25
    /// ablation); the default stays false; a value other than true or false is refused with an
    /// error naming the key, leaving the default untouched.
    #[test]
    fn gfx_fe_cross_draw_sets_the_ablation_and_refuses_bad_values() {
        let mut pipe = crate::pipeline::Config::default();
        assert!(!pipe.fe_cross_draw, "the default stays false");
        apply_gfx_sets(&[" gfx.fe_cross_draw = true ".to_string()], &mut pipe).unwrap();
        assert!(pipe.fe_cross_draw);
        apply_gfx_sets(&["gfx.fe_cross_draw=false".to_string()], &mut pipe).unwrap();
        assert!(!pipe.fe_cross_draw, "the last setting wins");
        for bad in ["1", "yes", "TRUE ish", ""] {
            let mut p = crate::pipeline::Config::default();
            let e = apply_gfx_sets(&[format!("gfx.fe_cross_draw={bad}")], &mut p).unwrap_err();
            assert!(e.contains("gfx.fe_cross_draw"), "{bad}: {e}");
            assert!(!p.fe_cross_draw, "{bad}");
        }
    }

    /// Spec 004 §5.4 (session 16): the 3D mixes run IM-SCHED with its probability drawn once
    /// per CPU read, and count only the CPU reads a CG overtook by its class; an override
    /// still wins.
    #[test]
    fn the_3d_mixes_draw_im_sched_per_cpu_read() {
        let c = config(16384, "im", 16, 16, &[]).unwrap();
        assert!(c.policy.im_sched_per_request && c.policy.im_sched_overtake);
        let off = ["policy.im_sched_per_request=false".to_string()];
        let c = config(16384, "im", 16, 16, &off).unwrap();
        assert!(!c.policy.im_sched_per_request);
    }

    /// The consistent-scaling rule for bandwidth: a scaled frame's render-target bytes (per
    /// frame, at the full-size footprint-to-LLC ratio) times each GPU burst's bus share, over
    /// the frame's cycles (its pixels: the work per pixel is the full-size one), is the
    /// full-size frame's bus time per cycle at every size; the machine configuration of a run
    /// carries that share, and a CPU-alone run keeps the unscaled bus.
    #[test]
    fn scaled_gpu_bursts_keep_the_full_size_bus_time_per_cycle() {
        let bus_per_pixel = |res_div: u32, mem_div: u32| {
            let (w, h) = (1280 / res_div as usize, 1024 / res_div as usize);
            let l = Layout {
                qw: w / QUAD_PX,
                qh: h / QUAD_PX,
                rops: 16,
                rt_scale: rt_scale(res_div, mem_div),
            };
            let bytes = l.surface_blocks() as f64 * 64.0;
            bytes / gpu_bus_div(res_div, mem_div) as f64 / (w * h) as f64
        };
        let full = bus_per_pixel(1, 1);
        assert_eq!(full, 4.0, "4 B a pixel at full size");
        for (r, m) in [(16, 16), (8, 16), (4, 16), (2, 4)] {
            let b = bus_per_pixel(r, m);
            assert!(
                (b / full - 1.0).abs() < 0.02,
                "res/{r}, mem/{m}: {b:.3} B of bus time a pixel, full size {full}"
            );
        }
        assert_eq!(gpu_bus_div(16, 16), 16, "tiny");
        assert_eq!(gpu_bus_div(8, 16), 4, "small");
        let run = MixRun {
            opts: RunOpts::sized("tiny").unwrap(),
            ..baseline(&crate::title::TITLES[0], RunOpts::sized("tiny").unwrap())
        };
        let (r, m) = (run.opts.res_div, run.opts.mem_div);
        let cfg = config(run.llc_kb, &run.policy, m, gpu_bus_div(r, m), &run.sets).unwrap();
        assert_eq!(cfg.dram.gpu_bus_div, 16);
        assert_eq!(cfg.llc.size_kb, 1024, "LLC / mem_div");
        let alone = config(16384, "frfcfs", 16, 1, &[]).unwrap();
        assert_eq!(alone.dram.gpu_bus_div, 1);
    }
}
