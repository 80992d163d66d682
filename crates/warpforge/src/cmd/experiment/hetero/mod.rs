//! `experiment hetero`: document 004's GPGPU results (spec 004 §3, §5, §8; claims 16-18 and 20)
//! on the CPU-GPU processor of `crates/hetero`: each GPGPU workload standing in for Table 3 with
//! four CPU co-runners per mix (H, L, HL; optionally T = recorded traces), under the memory
//! policies, plus the interference sanity series (claim 20).
//!
//! Metrics (spec 004 §8.5): GPU speed-up = FR-FCFS GPU cycles / policy GPU cycles; CPU weighted
//! speed-up = Σ IPC_shared / IPC_alone of the mix, normalised to FR-FCFS's; both geometric means
//! over mixes; equal weight = √(GPU speed-up × CPU weighted speed-up). Stall-table coverage
//! (claim 17) = share of the GPU's L1D misses whose PC is among the 4 PCs with most stall cycles
//! (FR-FCFS runs, all SMs of a workload together); its DRAM-based twin counts the GPU's DRAM
//! accesses instead. Fig. 5 (spec 004 §1.4) on the 1C1G machine: [`fig5`]. Hardware bytes (claim 18): our GPGPU stall
//! tables and counters plus the document's 3D counters (196 B) and RTP table (776 B), which
//! belong to the 3D pipeline of `experiment frame`.

mod fig5;
mod mixes;
mod sim;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{anyhow, bail, Result};
use serde_json::{json, Value};
use warpforge_hetero::crit;
use warpforge_hetero::port::IdealPcs;
use warpforge_hetero::HeteroConfig;
use warpforge_timing::GpuConfig;
use warpforge_workloads::Size;

use crate::cmd::experiment::paired::spread;
use crate::cmd::experiment::stats;
use crate::cmd::write_atomically;
use mixes::{CpuApp, Mix};

/// Policies compared in GPGPU mixes (spec 004 §5.7: SMS-0.9, SMS-0, HeLM and the proposal),
/// with the baseline first and GPU-favoring (§5.3) for reference.
pub const POLICIES: [&str; 6] = ["frfcfs", "gpu_favoring", "im", "sms_09", "sms_0", "helm"];

/// The beyond-LLC part of the default run (spec 004 §8.2; docs/history/EXPERIMENTS-004.md, GPGPU,
/// session 16): at `small` every Table 3 workload of ours fits the 16 MB LLC, while the
/// document's BFS input (1M nodes, ~41 MB) does not; `bfs1m` at `small` (2^19 nodes, 21.5 MB) is
/// the smallest BFS whose footprint exceeds the LLC. Its co-runs cost ~40 times `bfs`'s (3.4M
/// GPU cycles), so within the issue's 30 minutes on 2 cores it runs its three mixes (BFS's
/// co-runners) under the baseline and the proposal only, reported apart from the geomeans.
pub const BEYOND_LLC_WORKLOAD: &str = "bfs1m";
/// Policies of the beyond-LLC part: the baseline and the proposal.
pub const BEYOND_LLC_POLICIES: [&str; 2] = ["frfcfs", "im"];

/// Co-runner counts of the interference series (claim 20).
pub const INTERFERENCE_CORES: [usize; 4] = [0, 1, 2, 4];
/// The memory-intensive co-runner of the interference series: with n co-runners, cores 0..n
/// each run their own copy (own seed and address space), so that only the number of
/// memory-intensive co-runners changes from point to point (claim 20, Fig. 1: the GPU's loss
/// grows with the number of active CPU cores). `bwaves` is the one co-runner Fig. 1 names
/// (410.bwaves, 1C1G) and is in §8.3's H group. Until session 13 the series added four
/// different applications (mcf, lbm, milc, libquantum), so the count was confounded with which
/// application joined (mcf alone drew 0.15 GB/s, lbm added 0.47, milc and libquantum 0.90).
pub const INTERFERENCE_APP: &str = "bwaves";

/// The memory controllers of the default run: `preset`, the `hetero` preset's (64-entry read
/// queues whose free entries go to the waiting read the policy ranks first), the same
/// controllers as the 3D mixes of `experiment frame`. Spec 004 §5 (Simulation environment):
/// "Depending on the type of the GPU workload, one of the two GPU models gets attached to the
/// rest of the CMP", and only "the GPU model used for CUDA applications is borrowed from the
/// MacSim infra-structure": the CMP's LLC, ring and memory controllers are one structure for
/// both GPUs. §4.3 states the policies over every pending LLC miss ("the oldest critical GPU
/// access is given priority over the global oldest access"; "a CPU request is prioritized over
/// a pending critical GPU request"; "CPU accesses are given higher priority than the
/// non-critical GPU accesses"). Until session 19 the default was `dramsim2`: DRAMSim2's
/// 32-entry transaction queue fed in arrival order from MacSim's network buffer
/// (`dram_dramsim_c::receive`) \[EXT\], a FIFO no policy orders that held 81% of a CPU read's
/// latency on lbm/H (docs/PERFORMANCE.md, Session 19: hetero); it stays as the ablation
/// `--controller dramsim2`.
pub const DEFAULT_CONTROLLER: &str = "preset";

/// The `hetero` machine of a run with controller `controller` (`preset` or `dramsim2`, see
/// [`DEFAULT_CONTROLLER`]) before `--set` overrides.
pub fn machine_config(controller: &str) -> Result<HeteroConfig> {
    let mut c = HeteroConfig::preset("hetero").map_err(|e| anyhow!("{e}"))?;
    match controller {
        "preset" => {}
        "dramsim2" => {
            c.set("dram.read_queue", "32").expect("preset key");
            c.set("dram.fifo_admission", "true").expect("preset key");
        }
        _ => bail!("--controller: unknown `{controller}` (known: preset, dramsim2)"),
    }
    Ok(c)
}

/// The co-runners of the interference point with `n` CPU cores.
pub fn interference_apps(n: usize) -> Vec<CpuApp> {
    vec![CpuApp::Spec(INTERFERENCE_APP.to_string()); n]
}

/// Arguments of `experiment hetero`.
#[derive(clap::Args)]
pub struct HeteroArgs {
    /// Write the results as JSON to this file.
    #[arg(long)]
    json: PathBuf,
    /// Write the CPU-vs-GPU scatter of the policies (hetero_policies.svg) into this directory.
    #[arg(long)]
    svg: Option<PathBuf>,
    /// GPU workload size. `small` (default): kernels of 36K-180K GPU cycles, long enough for
    /// the §5.6 probe window (100K GPU cycles) and ~100 invocations of the §3 algorithm; the six
    /// workloads and the beyond-LLC part take 497 CPU-seconds with one seed (session 21), 929
    /// with the default `--seeds 3` (session 23). `tiny` (6K-29K GPU
    /// cycles, under 1 CPU-minute) for quick checks. `paper`: Table 3's inputs (without
    /// `--workloads`: lbm, cfd, bfs1m, fwt, bs, red; `bfs1m` is BFS on the 1M-node graph, `fwt`
    /// keeps 32K samples), footprints beyond the 16 MB LLC but for cfd's (12.8 MB); hours.
    #[arg(long, default_value = "small", value_parser = crate::cmd::run::parse_size)]
    size: Size,
    /// GPU workloads (ours; default: Table 3's six applications, our implementations where they
    /// exist: lbm, cfd, bfs, fwt, bs, red; see `--stand-ins`).
    #[arg(long, value_delimiter = ',')]
    workloads: Vec<String>,
    /// Without `--workloads`: run the stand-ins of earlier runs instead (sc, sr1, bfs, fwt, bo,
    /// bp); each gets the same CPU co-runners as the application it stands in for.
    #[arg(long)]
    stand_ins: bool,
    /// Policies (default: frfcfs, gpu_favoring, im, sms_09, sms_0, helm); frfcfs is always run.
    #[arg(long, value_delimiter = ',')]
    policy: Vec<String>,
    /// CPU mix classes: H, L, HL, T (T = the recorded traces gzip, sort, cc1).
    #[arg(long, value_delimiter = ',', default_value = "H,L,HL")]
    mixes: Vec<String>,
    /// Functional warm-up accesses per CPU core before each run (at least).
    #[arg(long, default_value_t = 400_000)]
    warmup: usize,
    /// Warm-up of the LLC-resident working sets: `prefill` (the default) places each SPEC
    /// substitute's re-referenced region in the LLC before the `--warmup` accesses, as spec 004
    /// §8.5's 200M-instruction warm-up would leave it; `none`: the accesses only.
    #[arg(long, default_value = "prefill", value_parser = ["prefill", "none"])]
    warmup_resident: String,
    /// The controllers' read queue: `preset` (the default since session 19) = the `hetero`
    /// preset's (64 entries, a free entry goes to the waiting read the policy ranks first; the
    /// 3D experiment's), spec 004 §5: one CMP for both GPU models, §4.3: the policies rank every
    /// pending request; `dramsim2` (the ablation, the default until session 18) = DRAMSim2's
    /// stock queue depth (`TRANS_QUEUE_DEPTH` = 32) with reads admitted in arrival order from
    /// MacSim's network buffer (`dram.read_queue=32`, `dram.fifo_admission=true`) \[EXT\].
    #[arg(long, default_value = DEFAULT_CONTROLLER, value_parser = ["preset", "dramsim2"])]
    controller: String,
    /// Memory cycles (4 GHz) of each CPU application's alone run.
    #[arg(long, default_value_t = 400_000)]
    alone_cycles: u64,
    /// Override a key of the `hetero` machine preset (repeatable), e.g. llc.size_kb=8192.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
    /// Override a key of the `hetero-gpu` GPU preset (repeatable).
    #[arg(long = "gpu-set", value_name = "KEY=VALUE")]
    gpu_sets: Vec<String>,
    /// Skip the interference series (claim 20).
    #[arg(long)]
    no_interference: bool,
    /// Skip the beyond-LLC part (`bfs1m`, BFS at 2^19 nodes, under frfcfs and im on the
    /// `--mixes` classes), which runs by default at `tiny` and `small` when `--workloads` is not
    /// given. At `paper` the main run is the document-scale one and the part is skipped.
    #[arg(long)]
    no_beyond_llc: bool,
    /// Skip Fig. 5 (spec 004 §1.4: DRAM coverage of the top-n PCs by stall cycles and the
    /// speed-up with their accesses ideal in the LLC, on one CPU core plus the GPU; 60 co-runs
    /// at the default workloads, ~110 CPU-s at `small`, run after the rest; at `--size paper`
    /// they are document-scale runs: give `--no-fig5` or `--fig5-workloads`).
    #[arg(long)]
    no_fig5: bool,
    /// GPU workloads of Fig. 5 (default: the run's workloads), e.g. `bfs1m` for BFS beyond
    /// the LLC.
    #[arg(long, value_delimiter = ',')]
    fig5_workloads: Vec<String>,
    /// Parallel simulations (default: available cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// Seeds of the policies that draw random numbers (IM-SCHED's draws in `im` and its
    /// ablations, SMS-0.9's shortest-job-first draw; each policy declares it,
    /// `warpforge_hetero::policy::draws_random`): each such policy runs every mix with
    /// `policy.seed` = s, s+1, ..., s+N-1, s the configured seed (the preset's 1, or `--set
    /// policy.seed=s`), so that seed s is the single-seed run; the deterministic policies run
    /// once. Each reported figure is the geometric mean over seeds x mixes
    /// (`policies.<name>.seeds` per seed, `.spread` min and max).
    #[arg(long, default_value_t = 3)]
    seeds: usize,
}

/// The seeds of a run (`--seeds`) and which policies draw random numbers; `experiment frame`
/// uses the same.
pub struct Seeds {
    /// `policy.seed` of each seed's runs; the first is the configured seed.
    pub list: Vec<u64>,
    /// Per policy name: whether it draws (`warpforge_hetero::policy::draws_random`).
    pub draws: BTreeMap<String, bool>,
}

impl Seeds {
    /// `n` seeds from `s0` (the configured `policy.seed`) for the policies of `draws` (name:
    /// whether it draws random numbers); an error for `n` = 0 or a seed past `u64::MAX`.
    pub fn new(s0: u64, n: usize, draws: BTreeMap<String, bool>) -> Result<Seeds> {
        if n == 0 {
            bail!("--seeds 0: must be at least 1 (the seeds of each policy that draws random numbers)");
        }
        let list = (0..n as u64)
            .map(|i| s0.checked_add(i))
            .collect::<Option<Vec<u64>>>()
            .ok_or_else(|| anyhow!("--seeds {n} from policy.seed {s0} passes the largest seed"))?;
        Ok(Seeds { list, draws })
    }

    /// Whether policy `p` draws (false for a policy not in the map).
    pub fn draws(&self, p: &str) -> bool {
        self.draws.get(p).copied().unwrap_or(false)
    }

    /// The seeds of runs that draw (`draws`): all of them; else the first.
    pub fn for_runs(&self, draws: bool) -> &[u64] {
        if draws {
            &self.list
        } else {
            &self.list[..1]
        }
    }

    /// The seed of the run that stands for seed `s`: `s` itself if the run draws, else the
    /// first.
    pub fn stand_in(&self, draws: bool, s: u64) -> u64 {
        if draws {
            s
        } else {
            self.list[0]
        }
    }

    /// The seeds `p` runs with.
    pub fn of(&self, p: &str) -> &[u64] {
        self.for_runs(self.draws(p))
    }

    /// The seed of `p`'s run that stands for seed `s`.
    pub fn run_of(&self, p: &str, s: u64) -> u64 {
        self.stand_in(self.draws(p), s)
    }
}

enum Task {
    Alone(CpuApp),
    /// A co-run: (mix index, policy, `policy.seed`).
    Corun(usize, String, u64),
    Interf(usize),
    /// A co-run of the beyond-LLC part: (mix index, policy, `policy.seed`).
    Beyond(usize, String, u64),
}

enum Done {
    /// IPC and the memory-side counters of the alone run (the GPU idle).
    Alone(f64, Vec<(String, f64)>),
    Corun(sim::CoRun),
}

/// [`stats::geomean`], NaN (`null` in the JSON) when `v` is empty.
fn geomean(v: &[f64]) -> f64 {
    stats::geomean(v).unwrap_or(f64::NAN)
}

fn traces_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../hetero/traces")
}

/// Runs the experiment.
pub fn run(a: HeteroArgs) -> Result<()> {
    let t0 = Instant::now();
    let workloads: Vec<String> = if a.workloads.is_empty() {
        if a.size == Size::Paper && !a.stand_ins {
            mixes::document_workloads()
        } else {
            mixes::default_workloads(a.stand_ins)
        }
    } else {
        if a.stand_ins {
            bail!("--stand-ins selects the default workloads: give it without --workloads");
        }
        a.workloads.clone()
    };
    for w in workloads.iter().chain(&a.fig5_workloads) {
        crate::cmd::run::find_workload(w)?;
    }
    if a.no_fig5 && !a.fig5_workloads.is_empty() {
        bail!("--fig5-workloads with --no-fig5: give one of them");
    }
    let fig5_workloads = if a.fig5_workloads.is_empty() {
        workloads.clone()
    } else {
        a.fig5_workloads.clone()
    };
    let mut policies: Vec<String> = if a.policy.is_empty() {
        POLICIES.iter().map(|s| s.to_string()).collect()
    } else {
        a.policy.clone()
    };
    if !policies.iter().any(|p| p == "frfcfs") {
        policies.insert(0, "frfcfs".into());
    }
    let mut hbase = machine_config(&a.controller)?;
    let warm = sim::Warmup {
        accesses: a.warmup,
        prefill: a.warmup_resident == "prefill",
    };
    hbase
        .apply_overrides(&a.sets)
        .map_err(|e| anyhow!("--set {e}"))?;
    for p in &policies {
        hbase
            .clone()
            .set("policy.name", p)
            .map_err(|e| anyhow!("--policy: {e}"))?;
    }
    let mut gcfg = GpuConfig::preset("hetero-gpu").map_err(anyhow::Error::msg)?;
    gcfg.apply_overrides(&a.gpu_sets)
        .map_err(|e| anyhow!("--gpu-set {e}"))?;
    if (gcfg.clocks.dram_mhz - hbase.cpu.clock_mhz).abs() > 1e-6 {
        bail!(
            "--gpu-set clocks.dram_mhz must equal the memory-side clock cpu.clock_mhz ({})",
            hbase.cpu.clock_mhz
        );
    }
    if a.jobs == Some(0) {
        bail!("--jobs must be at least 1");
    }
    let mixes = mixes::mixes(&workloads, &a.mixes)?;
    let beyond = a.workloads.is_empty() && a.size != Size::Paper && !a.no_beyond_llc;
    let bmixes = if beyond {
        mixes::mixes(&[BEYOND_LLC_WORKLOAD.to_string()], &a.mixes)?
    } else {
        Vec::new()
    };
    let bpolicies: Vec<String> = BEYOND_LLC_POLICIES.iter().map(|s| s.to_string()).collect();
    let all: Vec<String> = policies
        .iter()
        .chain(&bpolicies)
        .cloned()
        .collect::<BTreeSet<String>>()
        .into_iter()
        .collect();
    let draws = all
        .iter()
        .map(|p| {
            let mut c = hbase.policy.clone();
            c.name = p.clone();
            (p.clone(), warpforge_hetero::policy::draws_random(&c))
        })
        .collect();
    let seeds = Seeds::new(hbase.policy.seed, a.seeds, draws)?;
    // The machine of each (policy, seed) run.
    let mut hcfgs = BTreeMap::new();
    for p in &all {
        for &s in seeds.of(p) {
            let mut c = hbase.clone();
            c.set("policy.name", p).expect("registered policy");
            c.policy.seed = s;
            hcfgs.insert((p.clone(), s), c);
        }
    }
    let traces = traces_dir();

    // Tasks: alone runs of every distinct CPU app, every (mix, policy), the interference series.
    let mut apps: BTreeSet<String> = BTreeSet::new();
    let mut tasks = Vec::new();
    for m in mixes.iter().chain(&bmixes) {
        for c in &m.cpu {
            if apps.insert(c.name()) {
                tasks.push(Task::Alone(c.clone()));
            }
        }
    }
    let c = CpuApp::Spec(INTERFERENCE_APP.to_string());
    if !a.no_interference && apps.insert(c.name()) {
        tasks.push(Task::Alone(c));
    }
    for (i, _) in mixes.iter().enumerate() {
        for p in &policies {
            for &s in seeds.of(p) {
                tasks.push(Task::Corun(i, p.clone(), s));
            }
        }
    }
    // The beyond-LLC co-runs are the longest: queue them before the main ones so that the
    // parallel jobs do not end on them.
    let mut at = apps.len();
    for (i, _) in bmixes.iter().enumerate() {
        for p in &bpolicies {
            for &s in seeds.of(p) {
                tasks.insert(at, Task::Beyond(i, p.clone(), s));
                at += 1;
            }
        }
    }
    if !a.no_interference {
        for &n in &INTERFERENCE_CORES {
            tasks.push(Task::Interf(n));
        }
    }
    let interf_gpu = workloads[0].clone();
    let jobs = a.jobs.unwrap_or_else(super::batch::default_jobs).max(1);
    let results: Vec<Mutex<Option<Result<Done>>>> =
        tasks.iter().map(|_| Mutex::new(None)).collect();
    let seconds: Vec<Mutex<f64>> = tasks.iter().map(|_| Mutex::new(0.0)).collect();
    let next = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    let verbose = std::io::IsTerminal::is_terminal(&std::io::stderr());
    std::thread::scope(|s| {
        for _ in 0..jobs.min(tasks.len()) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(t) = tasks.get(i) else {
                    break;
                };
                let t_task = Instant::now();
                let r = match t {
                    Task::Alone(app) => sim::alone_ipc(&hbase, app, warm, a.alone_cycles, &traces)
                        .map(|(x, m)| Done::Alone(x, m)),
                    Task::Corun(m, p, seed) | Task::Beyond(m, p, seed) => {
                        let set = if matches!(t, Task::Beyond(..)) {
                            &bmixes
                        } else {
                            &mixes
                        };
                        let mx = &set[*m];
                        let h = &hcfgs[&(p.clone(), *seed)];
                        sim::corun(
                            &mx.gpu,
                            a.size,
                            &gcfg,
                            h,
                            &mx.cpu,
                            warm,
                            &traces,
                            IdealPcs::Off,
                        )
                        .map(Done::Corun)
                    }
                    Task::Interf(n) => {
                        let apps = interference_apps(*n);
                        sim::corun(
                            &interf_gpu,
                            a.size,
                            &gcfg,
                            &hbase,
                            &apps,
                            warm,
                            &traces,
                            IdealPcs::Off,
                        )
                        .map(Done::Corun)
                    }
                };
                *seconds[i].lock().expect("lock") = t_task.elapsed().as_secs_f64();
                *results[i].lock().expect("lock") = Some(r);
                let f = finished.fetch_add(1, Ordering::Relaxed) + 1;
                if verbose {
                    eprint!("\rhetero: {f}/{} simulations", tasks.len());
                }
            });
        }
    });
    if verbose {
        eprintln!();
    }
    let mut alone: BTreeMap<String, f64> = BTreeMap::new();
    let mut alone_mem: BTreeMap<String, BTreeMap<String, f64>> = BTreeMap::new();
    let mut co: CoRuns = BTreeMap::new();
    let mut interf: BTreeMap<usize, sim::CoRun> = BTreeMap::new();
    let mut bco: CoRuns = BTreeMap::new();
    for (t, r) in tasks.iter().zip(results) {
        let d = r.into_inner().expect("lock").expect("every task ran")?;
        match (t, d) {
            (Task::Alone(app), Done::Alone(x, m)) => {
                alone.insert(app.name(), x);
                alone_mem.insert(app.name(), m.into_iter().collect());
            }
            (Task::Corun(m, p, seed), Done::Corun(c)) => {
                co.insert((*m, p.clone(), *seed), c);
            }
            (Task::Interf(n), Done::Corun(c)) => {
                interf.insert(*n, c);
            }
            (Task::Beyond(m, p, seed), Done::Corun(c)) => {
                bco.insert((*m, p.clone(), *seed), c);
            }
            _ => unreachable!("task and result kinds match"),
        }
    }
    let fig5 = if a.no_fig5 {
        None
    } else {
        if verbose {
            eprintln!("hetero: Fig. 5 ({} workloads, 1C1G)", fig5_workloads.len());
        }
        let h = &hcfgs[&("frfcfs".to_string(), seeds.list[0])];
        Some(fig5::run(
            &fig5_workloads,
            a.size,
            &gcfg,
            h,
            warm,
            &traces,
            jobs,
        )?)
    };
    let report = report(
        &a,
        &mixes,
        &policies,
        &alone,
        &co,
        &interf,
        &interf_gpu,
        &hbase,
        gcfg.clocks.core_mhz,
        &seeds,
    );
    let mut report = report?;
    report["cpu_alone_memory"] = json!(alone_mem);
    report["beyond_llc"] = if beyond {
        let input = crate::cmd::run::find_workload(BEYOND_LLC_WORKLOAD)?.input(a.size);
        json!({
            "workload": BEYOND_LLC_WORKLOAD,
            "input": input,
            "why": "at small every Table 3 workload of ours fits the 16 MB LLC; bfs1m (BFS at 2^19 \
                    nodes, 21.5 MB at small) is the smallest BFS beyond it, the document's regime \
                    (1M nodes, ~41 MB); its co-runs cost ~40x bfs's, so only the baseline and the \
                    proposal run, on BFS's co-runners",
            "mixes": bmixes,
            "policies": Value::Object(policy_table(&bmixes, &bpolicies, &alone, &bco, &seeds)),
        })
    } else {
        Value::Null
    };
    report["wall_seconds"] = json!(t0.elapsed().as_secs_f64());
    report["task_seconds"] = task_seconds(&tasks, &seconds, &mixes);
    if let Some(f) = &fig5 {
        report["task_seconds"]["sums"]["fig5"] = json!(f.seconds);
    }
    report["fig5"] = fig5.as_ref().map_or(Value::Null, |f| f.json.clone());
    report["gpu_workloads"] = json!(workloads
        .iter()
        .map(|w| {
            let a = mixes::table3(w);
            json!({
                "workload": w,
                "table3": a.map(|a| a.1.app),
                "stand_in": a.is_some_and(|a| a.1.stand_in == w && a.1.default != w),
                "description": a.map(|a| a.1.description),
            })
        })
        .collect::<Vec<_>>());
    write_atomically(&a.json, serde_json::to_string_pretty(&report)? + "\n")?;
    if let Some(dir) = &a.svg {
        let pts: Vec<(String, f64, f64)> = policies
            .iter()
            .map(|p| {
                let r = &report["policies"][p];
                (
                    p.clone(),
                    r["cpu_weighted_speedup"].as_f64().unwrap_or(f64::NAN),
                    r["gpu_speedup"].as_f64().unwrap_or(f64::NAN),
                )
            })
            .collect();
        let svg = super::chart::Scatter {
            title: "Document 004 GPGPU mixes: policies vs FR-FCFS (geomean over mixes)",
            x_desc: "CPU weighted speed-up",
            y_desc: "GPU speed-up",
            points: &pts,
        }
        .svg()?;
        std::fs::create_dir_all(dir).map_err(|e| anyhow!("creating {}: {e}", dir.display()))?;
        write_atomically(&dir.join("hetero_policies.svg"), svg)?;
        if fig5.is_some() {
            let (left, right) = fig5::svgs(&report["fig5"])?;
            write_atomically(&dir.join("hetero_fig5_coverage.svg"), left)?;
            write_atomically(&dir.join("hetero_fig5_speedup.svg"), right)?;
        }
    }
    print_summary(&report, &policies);
    Ok(())
}

/// Where the wall time went: summed task seconds per kind (alone runs, co-runs per GPU
/// workload and per policy, the interference series) and the slowest task.
fn task_seconds(tasks: &[Task], seconds: &[Mutex<f64>], mixes: &[Mix]) -> Value {
    let mut by: BTreeMap<String, f64> = BTreeMap::new();
    let mut slowest = (String::new(), 0.0f64);
    for (t, s) in tasks.iter().zip(seconds) {
        let s = *s.lock().expect("lock");
        let (keys, name) = match t {
            Task::Alone(a) => (vec!["alone".to_string()], format!("alone {}", a.name())),
            Task::Corun(m, p, seed) => (
                vec![
                    "corun".to_string(),
                    format!("workload.{}", mixes[*m].gpu),
                    format!("policy.{p}"),
                ],
                format!("{} mix {m} {p} seed {seed}", mixes[*m].gpu),
            ),
            Task::Interf(n) => (
                vec!["interference".to_string()],
                format!("interference {n} cores"),
            ),
            Task::Beyond(m, p, seed) => (
                vec!["beyond_llc".to_string()],
                format!("beyond-LLC {BEYOND_LLC_WORKLOAD} mix {m} {p} seed {seed}"),
            ),
        };
        for k in keys {
            *by.entry(k).or_default() += s;
        }
        if s > slowest.1 {
            slowest = (name, s);
        }
    }
    json!({"sums": by, "slowest": {"task": slowest.0, "seconds": slowest.1}})
}

fn weighted(ipc: &[f64], apps: &[CpuApp], alone: &BTreeMap<String, f64>) -> f64 {
    ipc.iter()
        .zip(apps)
        .map(|(s, a)| s / alone[&a.name()])
        .sum()
}

/// The co-runs by (mix index, policy, `policy.seed`).
type CoRuns = BTreeMap<(usize, String, u64), sim::CoRun>;

#[allow(clippy::too_many_arguments)]
fn report(
    a: &HeteroArgs,
    mixes: &[Mix],
    policies: &[String],
    alone: &BTreeMap<String, f64>,
    co: &CoRuns,
    interf: &BTreeMap<usize, sim::CoRun>,
    interf_gpu: &str,
    hbase: &HeteroConfig,
    gpu_mhz: f64,
    seeds: &Seeds,
) -> Result<Value> {
    let pol = policy_table(mixes, policies, alone, co, seeds);
    let base_seed = seeds.list[0];
    // Claim 17: stall-table coverage per workload (FR-FCFS runs, every mix of the workload).
    let mut cov = serde_json::Map::new();
    let mut covs = vec![];
    let mut dcov = serde_json::Map::new();
    let mut dcovs = vec![];
    let mut ws: Vec<&str> = mixes.iter().map(|m| m.gpu.as_str()).collect();
    ws.dedup();
    for w in ws {
        let stats: Vec<crit::CritStats> = mixes
            .iter()
            .enumerate()
            .filter(|(_, m)| m.gpu == w)
            .flat_map(|(i, _)| co[&(i, "frfcfs".to_string(), base_seed)].crit.clone())
            .collect();
        let c4 = crit::top_n_coverage(&stats, 4);
        covs.push(c4);
        cov.insert(w.to_string(), json!(c4));
        // The same ranking over the workload's DRAM accesses (Fig. 5 left's measure).
        let mut dram: BTreeMap<u64, u64> = BTreeMap::new();
        for (i, m) in mixes.iter().enumerate() {
            if m.gpu == w {
                let r = &co[&(i, "frfcfs".to_string(), base_seed)];
                for (pc, n) in fig5::dram_accesses(r).0 {
                    *dram.entry(pc).or_default() += n;
                }
            }
        }
        let d4 = crit::dram_coverage(&crit::stall_ranking(&stats), &dram, 4);
        dcovs.push(d4);
        dcov.insert(w.to_string(), json!(d4));
    }
    let gp = crit::gpgpu_bytes(16);
    let (flow, rtp) = (98.0 * 2.0, (64.0 * 97.0 / 8.0f64).floor());
    let interference: Vec<Value> = interf
        .iter()
        .map(|(n, r)| {
            let base = interf[&0].gpu_cycles as f64;
            let alone_ipc = alone[INTERFERENCE_APP];
            let cpu_change = if *n == 0 {
                0.0
            } else {
                r.ipc.iter().map(|s| s / alone_ipc - 1.0).sum::<f64>() / *n as f64
            };
            let mem: BTreeMap<String, f64> = r.memory.iter().cloned().collect();
            // Seconds of the run: GPU core cycles at the GPU clock (2 GHz, `hetero-gpu`).
            let secs = r.gpu_cycles as f64 / (gpu_mhz * 1e6);
            let gbs = |k: &str| mem.get(k).copied().unwrap_or(0.0) * 64.0 / secs / 1e9;
            json!({
                "cpu_cores": n,
                "co_runners": interference_apps(*n).iter().map(|c| c.name()).collect::<Vec<_>>(),
                "gpu_cycles": r.gpu_cycles,
                "gpu_cycles_change": r.gpu_cycles as f64 / base - 1.0,
                "cpu_ipc_change": cpu_change,
                "cpu_ipc_ratio": r.ipc.iter().map(|s| s / alone_ipc).collect::<Vec<f64>>(),
                "cpu_dram_read_gbs": gbs("cpu_dram_reads"),
                "gpu_dram_read_gbs": gbs("gpu_dram_reads"),
                "dram_write_gbs": gbs("dram_writes"),
                "cpu_read_latency": mem.get("cpu_read_latency"),
                "gpu_read_latency": mem.get("gpu_read_latency"),
                "dram_bus_fraction": mem.get("dram_bus_fraction"),
                "dram_read_overflow_mean": mem.get("dram_read_overflow_mean"),
                // Every memory-side and CPU counter of the point (the mixes' `memory`: where
                // the CPU reads waited, LLC MSHRs by class, the GPU port), for claim 20's
                // diagnosis.
                "memory": mem,
            })
        })
        .collect();
    Ok(json!({
        "experiment": "hetero",
        "document": "004 (Rai & Chaudhuri, TECS 2017), GPGPU mixes",
        "size": a.size.name(),
        "machine": {
            "preset": hbase.name,
            "llc_kb": hbase.llc.size_kb,
            "cpu_cores": hbase.cpu.cores,
            "dram_channels": hbase.dram.channels,
            "gpu_preset": "hetero-gpu",
            "warmup_accesses_per_core": a.warmup,
            "warmup_resident": a.warmup_resident,
            "controller": a.controller,
            "dram_read_queue": hbase.dram.read_queue,
            "dram_fifo_admission": hbase.dram.fifo_admission,
            "alone_cycles": a.alone_cycles,
        },
        "mixes": mixes,
        "cpu_alone_ipc": alone,
        "seeding": {
            "seeds": seeds.list,
            "policies_drawing": policies.iter().filter(|p| seeds.draws[*p]).collect::<Vec<_>>(),
            // The mixes' co-runs made: per mix one per policy and seed it runs with.
            "co_runs": co.len(),
            "definition": "a policy that draws random numbers runs every mix once per seed \
                           (policy.seed = each of `seeds`), a deterministic one once (its run \
                           stands for every seed); policies.<name>.gpu_speedup, \
                           .cpu_weighted_speedup: geometric mean over seeds x mixes of the ratio \
                           to FR-FCFS on the same mix; .equal_weight: sqrt of their product; \
                           .seeds: the same figures per seed (geomean over mixes); .spread: their \
                           min and max over seeds; per_mix[].gpu_speedup and \
                           .cpu_weighted_speedup: geomean over seeds, per_mix[].seeds per seed; \
                           every other per_mix figure is the first seed's run; \
                           gpu_critical_fraction and counters: means over seeds x mixes",
        },
        "policies": pol,
        "stall_table_coverage": {
            "top4_mean": stats::mean_or_zero(&covs),
            "per_workload": cov,
            "definition": "share of the GPU's L1D misses whose PC is among the 4 PCs with the \
                           most stall cycles; FR-FCFS runs of the 4-core mixes, all SMs and \
                           mixes of a workload together",
        },
        "stall_table_dram_coverage": {
            "top4_mean": stats::mean_or_zero(&dcovs),
            "per_workload": dcov,
            "definition": "the same ranking, share of the GPU's DRAM accesses (LLC-missing \
                           reads and stores attributed to the PC of the L1D miss); Fig. 5 \
                           left's measure, on the 4-core mixes (fig5: on 1C1G)",
        },
        "hardware_bytes": gp + flow + rtp,
        "hardware_breakdown": {
            "gpgpu_stall_tables_and_counters": gp,
            "flow_counters_3d": flow,
            "rtp_table_3d": rtp,
        },
        "interference": {
            "workload": interf_gpu,
            "co_runners": interference_apps(INTERFERENCE_CORES[INTERFERENCE_CORES.len() - 1])
                .iter()
                .map(|c| c.name())
                .collect::<Vec<_>>(),
            "definition": "n copies of one memory-intensive application (own seed and address space per core), n = 0, 1, 2, 4; FR-FCFS",
            "points": interference,
        },
        "document_values": {
            "im": {"gpu_speedup": 1.01, "cpu_weighted_speedup": 1.14, "equal_weight": 1.07},
            "helm": {"gpu_speedup": 1.06, "cpu_weighted_speedup": 1.07, "equal_weight": 1.06},
            "sms_09": {"gpu_speedup": 0.96, "cpu_weighted_speedup": 1.07, "equal_weight": 1.02},
            "sms_0": {"gpu_speedup": 0.96, "cpu_weighted_speedup": 1.08, "equal_weight": 1.02},
            "hardware_bytes": 3100,
        },
    }))
}

/// Per policy (relative to `frfcfs` on the same mixes): GPU speed-up, CPU weighted speed-up
/// (geomeans over seeds x mixes; a deterministic policy's one run stands for every seed, and so
/// does FR-FCFS's as the baseline) and equal weight; per seed the same figures (geomeans over
/// `mixes`) and their spread; mean critical fractions and policy counters over seeds x mixes;
/// the per-mix figures (speed-ups: geomean over seeds, and per seed) with the first seed's
/// memory-side counters.
fn policy_table(
    mixes: &[Mix],
    policies: &[String],
    alone: &BTreeMap<String, f64>,
    co: &CoRuns,
    seeds: &Seeds,
) -> serde_json::Map<String, Value> {
    let mut pol = serde_json::Map::new();
    let frfcfs = "frfcfs".to_string();
    for p in policies {
        let (mut g, mut c, mut rows) = (vec![], vec![], vec![]);
        let mut counters: BTreeMap<String, Vec<f64>> = BTreeMap::new();
        let mut crit_frac = vec![];
        let mut dram_crit_frac = vec![];
        let ss = seeds.of(p);
        // Per seed: the ratios of every mix.
        let mut per_seed: Vec<(Vec<f64>, Vec<f64>)> = vec![(vec![], vec![]); ss.len()];
        for (i, m) in mixes.iter().enumerate() {
            let (mut gm, mut cm, mut by_seed) = (vec![], vec![], vec![]);
            for (k, &seed) in ss.iter().enumerate() {
                let b = &co[&(i, frfcfs.clone(), seeds.run_of(&frfcfs, seed))];
                let r = &co[&(i, p.clone(), seed)];
                let gs = b.gpu_cycles as f64 / r.gpu_cycles as f64;
                let ws_b = weighted(&b.ipc, &m.cpu, alone);
                let ws = weighted(&r.ipc, &m.cpu, alone);
                g.push(gs);
                c.push(ws / ws_b);
                gm.push(gs);
                cm.push(ws / ws_b);
                per_seed[k].0.push(gs);
                per_seed[k].1.push(ws / ws_b);
                crit_frac.push(r.gpu_critical_fraction);
                dram_crit_frac.push(r.gpu_dram_critical_fraction);
                for (k, v) in &r.counters {
                    counters.entry(k.clone()).or_default().push(*v);
                }
                by_seed.push(json!({
                    "seed": seed,
                    "gpu_cycles": r.gpu_cycles,
                    "cpu_ipc": r.ipc,
                    "cpu_weighted": ws,
                    "gpu_speedup": gs,
                    "cpu_weighted_speedup": ws / ws_b,
                }));
            }
            // The other figures of the row: the first seed's run.
            let r = &co[&(i, p.clone(), ss[0])];
            let ws = weighted(&r.ipc, &m.cpu, alone);
            rows.push(json!({
                "mix": i,
                "gpu_cycles": r.gpu_cycles,
                "gpu_warp_insts": r.gpu_insts,
                "cpu_ipc": r.ipc,
                "cpu_weighted": ws,
                "gpu_speedup": geomean(&gm),
                "cpu_weighted_speedup": geomean(&cm),
                "seeds": by_seed,
                "gpu_llc_hit_rate": r.gpu_llc_hit_rate,
                "gpu_critical_fraction": r.gpu_critical_fraction,
                "gpu_dram_critical_fraction": r.gpu_dram_critical_fraction,
                "gpu_ready_fraction": r.gpu_ready_fraction,
                "gpu_ready_warps": r.gpu_ready_warps,
                "gpu_bottlenecked_fraction": r.gpu_bottlenecked_fraction,
                "gpu_noncritical_reasons": {
                    "not_bottlenecked": r.gpu_noncritical_reasons[0],
                    "absent_high_llc_miss_rate": r.gpu_noncritical_reasons[1],
                    "in_table_not_top": r.gpu_noncritical_reasons[2],
                },
                "memory": r.memory.iter().cloned().collect::<BTreeMap<String, f64>>(),
                "counters": r.counters.iter().cloned().collect::<BTreeMap<String, f64>>(),
            }));
        }
        let (gs, cs) = (geomean(&g), geomean(&c));
        let counters: serde_json::Map<String, Value> = counters
            .into_iter()
            .map(|(k, v)| (k, json!(stats::mean(&v).unwrap_or(f64::NAN))))
            .collect();
        let figs: Vec<(f64, f64, f64)> = per_seed
            .iter()
            .map(|(g, c)| {
                let (g, c) = (geomean(g), geomean(c));
                (g, c, (g * c).sqrt())
            })
            .collect();
        let seed_rows: Vec<Value> = ss
            .iter()
            .zip(&figs)
            .map(|(s, f)| {
                json!({"seed": s, "gpu_speedup": f.0, "cpu_weighted_speedup": f.1, "equal_weight": f.2})
            })
            .collect();
        let col = |k: usize| -> Vec<f64> { figs.iter().map(|f| [f.0, f.1, f.2][k]).collect() };
        pol.insert(
            p.clone(),
            json!({
                "gpu_speedup": gs,
                "cpu_weighted_speedup": cs,
                "equal_weight": (gs * cs).sqrt(),
                "seeds": seed_rows,
                "spread": {
                    "gpu_speedup": spread(col(0), |x| x),
                    "cpu_weighted_speedup": spread(col(1), |x| x),
                    "equal_weight": spread(col(2), |x| x),
                },
                "gpu_critical_fraction": stats::mean_or_zero(&crit_frac),
                "gpu_dram_critical_fraction": stats::mean_or_zero(&dram_crit_frac),
                "counters": counters,
                "per_mix": rows,
            }),
        );
    }
    pol
}

fn print_summary(r: &Value, policies: &[String]) {
    println!(
        "policy         GPU speed-up  CPU weighted  equal weight  (seeds: equal weight min-max)"
    );
    for p in policies {
        let x = &r["policies"][p];
        let n = x["seeds"].as_array().map_or(0, |v| v.len());
        let spread = if n > 1 {
            let w = &x["spread"]["equal_weight"];
            format!(
                "  ({n}: {:.3}-{:.3})",
                w["min"].as_f64().unwrap_or(f64::NAN),
                w["max"].as_f64().unwrap_or(f64::NAN)
            )
        } else {
            String::new()
        };
        println!(
            "{p:<14} {:>12.3}  {:>12.3}  {:>12.3}{spread}",
            x["gpu_speedup"].as_f64().unwrap_or(f64::NAN),
            x["cpu_weighted_speedup"].as_f64().unwrap_or(f64::NAN),
            x["equal_weight"].as_f64().unwrap_or(f64::NAN)
        );
    }
    println!(
        "stall-table top-4 coverage {:.3}; hardware {:.0} B",
        r["stall_table_coverage"]["top4_mean"]
            .as_f64()
            .unwrap_or(f64::NAN),
        r["hardware_bytes"].as_f64().unwrap_or(f64::NAN)
    );
    println!(
        "stall-table top-4 DRAM coverage {:.3}",
        r["stall_table_dram_coverage"]["top4_mean"]
            .as_f64()
            .unwrap_or(f64::NAN)
    );
    if let Some(f) = r["fig5"]["per_workload"].as_object() {
        println!(
            "Fig. 5 (1C1G, {}): workload  cover T1 T2 T4 T8  speed-up T1 T2 T4 all",
            r["fig5"]["co_runner"].as_str().unwrap_or("?")
        );
        for (w, x) in f {
            let c = |n: &str| x["coverage_top_n"][n].as_f64().unwrap_or(f64::NAN);
            let s = |n: &str| x["ideal_speedup"][n].as_f64().unwrap_or(f64::NAN);
            println!(
                "  {w:<8} {:.2} {:.2} {:.2} {:.2}   {:.3} {:.3} {:.3} {:.3}",
                c("1"),
                c("2"),
                c("4"),
                c("8"),
                s("1"),
                s("2"),
                s("4"),
                s("all")
            );
        }
    }
    if let Some(b) = r["beyond_llc"]["policies"].as_object() {
        for (p, x) in b {
            println!(
                "beyond LLC ({}): {p:<14} {:>12.3}  {:>12.3}  {:>12.3}",
                r["beyond_llc"]["workload"].as_str().unwrap_or("?"),
                x["gpu_speedup"].as_f64().unwrap_or(f64::NAN),
                x["cpu_weighted_speedup"].as_f64().unwrap_or(f64::NAN),
                x["equal_weight"].as_f64().unwrap_or(f64::NAN)
            );
        }
    }
    if let Some(pts) = r["interference"]["points"].as_array() {
        for p in pts {
            println!(
                "interference: {} CPU cores -> GPU cycles {:+.3}",
                p["cpu_cores"],
                p["gpu_cycles_change"].as_f64().unwrap_or(f64::NAN)
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpforge_hetero::cpu::synth::{self, Class};

    /// The beyond-LLC part runs BFS's document regime: `bfs1m` stands for BFS with BFS's
    /// co-runners in every class, its `small` graph is larger than the 16 MB LLC at 41 B per
    /// node (bfs1m.rs), and the baseline is among its policies.
    #[test]
    fn beyond_llc_part_is_bfs_beyond_the_llc_with_bfs_co_runners() {
        let classes: Vec<String> = ["H", "L", "HL"].iter().map(|s| s.to_string()).collect();
        let b = mixes::mixes(&[BEYOND_LLC_WORKLOAD.to_string()], &classes).unwrap();
        let f = mixes::mixes(&["bfs".to_string()], &classes).unwrap();
        for (x, y) in b.iter().zip(&f) {
            assert_eq!((&x.stands_for, &x.cpu), (&y.stands_for, &y.cpu));
        }
        assert_eq!(b[0].stands_for, "BFS");
        let w = crate::cmd::run::find_workload(BEYOND_LLC_WORKLOAD).unwrap();
        let nodes: u64 = w
            .input(Size::Small)
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let llc = HeteroConfig::preset("hetero").unwrap().llc.size_kb as u64 * 1024;
        assert!(nodes * 41 > llc, "{nodes} nodes x 41 B vs {llc} B");
        assert_eq!(BEYOND_LLC_POLICIES[0], "frfcfs");
    }

    /// Where, in the order of completion, a CPU read arriving behind a backlog of 300
    /// non-critical GPU reads (all row misses, 150 per channel, issued 50 cycles before it) is
    /// served, on the machine of `controller` under `policy` with the settings `sets`.
    fn cpu_read_rank(controller: &str, policy: &str, sets: &[(&str, &str)]) -> usize {
        use warpforge_hetero::{MemSystem, Request, Source};
        let mut c = machine_config(controller).unwrap();
        c.set("policy.name", policy).unwrap();
        for (k, v) in sets {
            c.set(k, v).unwrap();
        }
        let mut m = MemSystem::new(&c);
        const GPU: u64 = 300;
        for i in 0..GPU {
            // One 8 KB row apart: each read opens its own row, alternating channels.
            m.issue(Request::read(i, i * 8192, Source::Gpgpu));
        }
        m.advance_to(50);
        let mut order: Vec<Source> = m.drain_completions().map(|c| c.source).collect();
        m.issue(Request::read(GPU, 0x7_0000_0000, Source::Cpu(0)));
        let mut t = 50;
        while order.len() < GPU as usize + 1 {
            t += 1;
            m.advance_to(t);
            order.extend(m.drain_completions().map(|c| c.source));
            assert!(t < 1_000_000, "requests never completed");
        }
        order.iter().position(|s| !s.is_gpu()).unwrap()
    }

    /// Spec 004 §4.3 on a hand-built backlog: under IM and GPU-favoring "the CPU accesses are
    /// given higher priority than the non-critical GPU accesses", over every pending request.
    /// With the default controllers both serve a CPU read that arrives behind 300 waiting
    /// non-critical GPU reads among the first few; FR-FCFS, and GPU-favoring with the ablation
    /// `policy.gpu_favoring_cpu_over_ng=false` (only critical GPU reads raised; none here),
    /// serve it by age (after the ~150 older reads of its channel). With the `dramsim2`
    /// ablation it waits in arrival order until the older reads of its channel fit the
    /// 32-entry queue, whatever the policy.
    #[test]
    fn default_controllers_let_the_policy_rank_the_whole_backlog() {
        assert_eq!(DEFAULT_CONTROLLER, "preset");
        for p in ["im", "gpu_favoring"] {
            let k = cpu_read_rank(DEFAULT_CONTROLLER, p, &[]);
            assert!(k < 30, "{p}: CPU read served {k}th of 301");
        }
        for p in ["gpu_favoring", "im"] {
            // In arrival order behind the ~118 older reads of its channel that do not fit the
            // 32-entry queue, then first.
            let k = cpu_read_rank("dramsim2", p, &[]);
            assert!(k > 200, "{p}, dramsim2: CPU read served {k}th of 301");
        }
        let by_age = [("policy.gpu_favoring_cpu_over_ng", "false")];
        for (p, sets) in [("frfcfs", &[][..]), ("gpu_favoring", &by_age[..])] {
            let k = cpu_read_rank(DEFAULT_CONTROLLER, p, sets);
            assert!(k > 250, "{p} {sets:?}: CPU read served {k}th of 301");
        }
        assert!(machine_config("nope").is_err());
    }

    /// Claim 20's series changes only the number of memory-intensive co-runners: point n runs n
    /// copies of one H-group application, each point's co-runners a prefix of the next one's.
    #[test]
    fn interference_points_differ_only_in_the_number_of_one_h_application() {
        assert_eq!(
            synth::find(INTERFERENCE_APP).map(|a| a.class),
            Some(Class::H)
        );
        for w in INTERFERENCE_CORES.windows(2) {
            let (a, b) = (interference_apps(w[0]), interference_apps(w[1]));
            assert_eq!((a.len(), b.len()), (w[0], w[1]));
            assert_eq!(a[..], b[..w[0]], "a prefix of the next point");
            assert!(b
                .iter()
                .all(|c| *c == CpuApp::Spec(INTERFERENCE_APP.into())));
        }
    }
}
