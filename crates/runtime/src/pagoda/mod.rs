//! Pagoda: a GPU runtime for narrow tasks (document 003, Ch. 5), its data structures, and the
//! baselines it is compared with (CUDA-HyperQ, GeMTC, static fusion, Pagoda-batch, a 20-core CPU
//! pool), on a task-level discrete-event model of a Pascal Titan X.

pub mod barrier;
pub mod buddy;
pub mod machine;
pub mod master;
pub mod rt_cpu;
pub mod rt_fusion;
pub mod rt_gemtc;
pub mod rt_hyperq;
pub mod rt_pagoda;
pub mod task_table;
pub mod warp_table;
pub mod workload;

use crate::RuntimeError;
use machine::RunStats;
use master::PagodaConfig;
use workload::TaskSet;

/// A runtime that executes a task set.
pub type RuntimeFn = fn(&PagodaConfig, &TaskSet) -> RunStats;

/// All runtimes by name, in report order.
pub const RUNTIMES: &[(&str, RuntimeFn)] = &[
    ("Pagoda", |c, s| rt_pagoda::run(c, s, None).0),
    ("Pagoda-batch", |c, s| {
        rt_pagoda::run(c, s, Some(c.pagoda_batch)).0
    }),
    ("HyperQ", rt_hyperq::run),
    ("GeMTC", rt_gemtc::run),
    ("Fusion", rt_fusion::run),
    ("CPU-20", rt_cpu::run),
];

/// Looks a runtime up by (case-insensitive) name.
pub fn runtime_by_name(name: &str) -> Result<(&'static str, RuntimeFn), RuntimeError> {
    RUNTIMES
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .copied()
        .ok_or_else(|| RuntimeError::UnknownName {
            what: "Pagoda runtime",
            name: name.to_string(),
            known: RUNTIMES
                .iter()
                .map(|(n, _)| *n)
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// One (benchmark, runtime) result.
#[derive(Debug, Clone)]
pub struct Cell {
    /// Benchmark.
    pub bench: String,
    /// Runtime.
    pub runtime: &'static str,
    /// Its statistics.
    pub stats: RunStats,
}

/// Whether a runtime can run a benchmark (GeMTC and fusion need the task count in advance:
/// no SLUD, as in the document).
pub fn supported(runtime: &str, bench: &str) -> bool {
    !(bench == "SLUD" && (runtime == "GeMTC" || runtime == "Fusion"))
}

/// Runs `runtimes` on every benchmark (`threads` per task; 0 = random 32..256, the irregular
/// setting of Fig. 5.8; `copies = false` drops data copies: the compute-only setting of
/// Figs. 5.7, 5.8 and 5.10). `progress` is called after each cell; `tasks = 0` is an error.
#[allow(clippy::too_many_arguments)]
pub fn run_experiment(
    c: &PagodaConfig,
    benches: &[&str],
    runtimes: &[&str],
    tasks: usize,
    threads: u32,
    copies: bool,
    seed: u64,
    progress: &mut dyn FnMut(&str, &str),
) -> Result<Vec<Cell>, RuntimeError> {
    if tasks == 0 {
        return Err(RuntimeError::Config(
            "tasks per benchmark must be at least 1 (got 0)".into(),
        ));
    }
    let mut rts = Vec::new();
    for r in runtimes {
        rts.push(runtime_by_name(r)?);
    }
    let mut out = Vec::new();
    for (i, b) in benches.iter().enumerate() {
        let mut set = workload::generate(b, tasks, threads, seed ^ ((i as u64 + 1) << 40), None)?;
        if !copies {
            for t in &mut set.tasks {
                t.copy_ns = 0.0;
            }
        }
        for &(name, f) in &rts {
            if !supported(name, &set.name) {
                continue;
            }
            out.push(Cell {
                bench: set.name.clone(),
                runtime: name,
                stats: f(c, &set),
            });
            progress(&set.name, name);
        }
    }
    Ok(out)
}

/// Speed-up of runtime `a` over `b` on a benchmark (makespan ratio).
pub fn speedup(cells: &[Cell], bench: &str, a: &str, b: &str) -> Option<f64> {
    let get = |r: &str| cells.iter().find(|c| c.bench == bench && c.runtime == r);
    Some(get(b)?.stats.makespan as f64 / get(a)?.stats.makespan as f64)
}

/// Geomean speed-up of `a` over `b` across the benchmarks both ran.
pub fn geomean_speedup(cells: &[Cell], a: &str, b: &str) -> f64 {
    let mut benches: Vec<&str> = cells.iter().map(|c| c.bench.as_str()).collect();
    benches.dedup();
    crate::lax::geomean(benches.iter().filter_map(|x| speedup(cells, x, a, b)))
}

/// The document's figures (Ch. 5) for side-by-side printing.
pub mod reference {
    /// Geomean speed-ups of Pagoda (Fig. 5.6): over HyperQ, GeMTC, 20-core PThreads.
    pub const OVER: &[(&str, f64)] = &[("HyperQ", 1.76), ("GeMTC", 1.44), ("CPU-20", 5.52)];
    /// Pagoda over static fusion on irregular tasks (Fig. 5.8 summary).
    pub const OVER_FUSION_IRREGULAR: f64 = 1.79;
    /// Pagoda-batch overhead relative to Pagoda (Fig. 5.10): 29 % slower.
    pub const BATCH_OVERHEAD: f64 = 0.29;
}
