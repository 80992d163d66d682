//! LAX: laxity-aware deadline-driven job scheduling in the GPU command processor (document 003,
//! Ch. 6), with the compared policies of Table 6.2 and the workloads of Table 6.3.
//!
//! [`simulate`] runs one job set under one policy; [`run_experiment`] runs the Table 6.3 matrix and
//! computes the document's metrics ([`RunMetrics`]).

pub mod gpu;
pub mod policy;
pub mod sim;
pub mod tables;
pub mod workload;

use crate::engine::Time;
use crate::RuntimeError;
use gpu::GpuConfig;
use policy::{policy_by_name, Policy};
use sim::{LaxSim, Outcome};
use workload::{generate_jobs, Calibration, JobSpec, Rate, BENCHMARKS};

/// Runs `jobs` under `policy` on `gpu` with the kernels of `cal`.
pub fn simulate(
    cal: &Calibration,
    gpu: &GpuConfig,
    jobs: &[JobSpec],
    policy: &mut dyn Policy,
) -> Outcome {
    let kernels: Vec<_> = cal.kernels.values().collect();
    LaxSim::new(gpu.clone(), &kernels, jobs, policy).run()
}

/// The document's per-(benchmark, policy) metrics (§6.6; definitions in docs/RUNTIME.md).
#[derive(Debug, Clone, PartialEq)]
pub struct RunMetrics {
    /// Jobs in the run.
    pub jobs: usize,
    /// Jobs that finished within their deadline.
    pub met: usize,
    /// Jobs refused by admission control (never executed).
    pub rejected: usize,
    /// Fraction of completed WGs that belong to jobs missing their deadline (Fig. 6.5's waste).
    pub wasted: f64,
    /// Energy per successful job (mJ), static + dynamic; 0 when no job succeeded.
    pub energy_mj: f64,
    /// Successful jobs per second, over first arrival to last completion.
    pub throughput: f64,
    /// 99th-percentile latency of completed jobs (ms); 0 when none completed.
    pub p99_ms: f64,
}

impl RunMetrics {
    /// Computes the metrics of a run.
    pub fn from_outcome(o: &Outcome) -> Self {
        let met = o.jobs.iter().filter(|j| j.met()).count();
        let rejected = o
            .jobs
            .iter()
            .filter(|j| j.state == tables::JobState::Rejected)
            .count();
        let failed_wgs: f64 = o.jobs.iter().filter(|j| !j.met()).map(|j| j.wgs_done).sum();
        let wasted = if o.wgs_completed > 0.0 {
            failed_wgs / o.wgs_completed
        } else {
            0.0
        };
        let first = o.jobs.iter().map(|j| j.arrival).min().unwrap_or(0);
        let span = o.end.saturating_sub(first).max(1) as f64 / 1e9;
        let mut lat: Vec<Time> = o
            .jobs
            .iter()
            .filter_map(|j| j.finish.map(|f| f - j.arrival))
            .collect();
        lat.sort_unstable();
        let p99_ms = if lat.is_empty() {
            0.0
        } else {
            let idx = ((lat.len() as f64 * 0.99).ceil() as usize).clamp(1, lat.len()) - 1;
            lat[idx] as f64 / 1e6
        };
        Self {
            jobs: o.jobs.len(),
            met,
            rejected,
            wasted,
            energy_mj: if met > 0 {
                o.energy_nj / met as f64 / 1e6
            } else {
                0.0
            },
            throughput: met as f64 / span,
            p99_ms,
        }
    }
}

/// One cell of the experiment matrix.
#[derive(Debug, Clone)]
pub struct Cell {
    /// Benchmark name (Table 6.3).
    pub bench: &'static str,
    /// Policy name (Table 6.2).
    pub policy: &'static str,
    /// Its metrics.
    pub m: RunMetrics,
}

/// Results of [`run_experiment`].
#[derive(Debug, Clone)]
pub struct Report {
    /// Arrival-rate level.
    pub rate: Rate,
    /// Policies, in the order run.
    pub policies: Vec<&'static str>,
    /// Benchmarks, in the order run.
    pub benches: Vec<&'static str>,
    /// Every (benchmark, policy) cell.
    pub cells: Vec<Cell>,
}

/// Geometric mean of positive values.
pub fn geomean(xs: impl IntoIterator<Item = f64>) -> f64 {
    let (mut s, mut n) = (0.0, 0);
    for x in xs {
        s += x.ln();
        n += 1;
    }
    if n == 0 {
        0.0
    } else {
        (s / n as f64).exp()
    }
}

impl Report {
    /// The cell of (bench, policy).
    pub fn cell(&self, bench: &str, policy: &str) -> Option<&RunMetrics> {
        self.cells
            .iter()
            .find(|c| c.bench == bench && c.policy == policy)
            .map(|c| &c.m)
    }

    /// Jobs meeting their deadline under `policy` relative to `base`, geomean over benchmarks.
    /// A benchmark with zero successes counts as one job (so BAY's IPV6 zero stays finite).
    pub fn met_ratio(&self, policy: &str, base: &str) -> Option<f64> {
        let mut v = Vec::new();
        for b in &self.benches {
            let p = self.cell(b, policy)?.met.max(1) as f64;
            let r = self.cell(b, base)?.met.max(1) as f64;
            v.push(p / r);
        }
        Some(geomean(v))
    }

    /// Geomean over benchmarks of the wasted-work fraction (floored at 0.1 %).
    pub fn wasted_geomean(&self, policy: &str) -> Option<f64> {
        let v: Option<Vec<f64>> = self
            .benches
            .iter()
            .map(|b| self.cell(b, policy).map(|m| m.wasted.max(1e-3)))
            .collect();
        v.map(geomean)
    }
}

/// Runs `policies` on every benchmark of Table 6.3 at `rate` with `jobs` jobs each (`jobs = 0`
/// is an error).
/// Each benchmark's job set depends only on `(seed, benchmark, rate)`, so every policy sees the
/// same arrivals. `progress` is called after each cell.
#[allow(clippy::too_many_arguments)]
pub fn run_experiment(
    cal: &Calibration,
    gpu: &GpuConfig,
    rate: Rate,
    policies: &[&str],
    benches: &[&str],
    jobs: usize,
    seed: u64,
    progress: &mut dyn FnMut(&str, &str),
) -> Result<Report, RuntimeError> {
    if jobs == 0 {
        return Err(RuntimeError::Config(
            "jobs per benchmark must be at least 1 (got 0)".into(),
        ));
    }
    let mut pols = Vec::new();
    for p in policies {
        let name = policy_by_name(p)?.name();
        pols.push(name);
    }
    let mut bs = Vec::new();
    for b in benches {
        let name = BENCHMARKS
            .iter()
            .find(|x| x.eq_ignore_ascii_case(b))
            .ok_or_else(|| RuntimeError::UnknownName {
                what: "LAX benchmark",
                name: b.to_string(),
                known: BENCHMARKS.join(", "),
            })?;
        bs.push(*name);
    }
    let mut cells = Vec::new();
    for (bi, b) in bs.iter().enumerate() {
        let set_seed = seed ^ ((bi as u64 + 1) << 32) ^ ((rate.index() as u64 + 1) << 48);
        let specs = generate_jobs(cal, b, rate, jobs, set_seed)?;
        for p in &pols {
            let mut pol = policy_by_name(p)?;
            let o = simulate(cal, gpu, &specs, pol.as_mut());
            cells.push(Cell {
                bench: b,
                policy: p,
                m: RunMetrics::from_outcome(&o),
            });
            progress(b, p);
        }
    }
    Ok(Report {
        rate,
        policies: pols,
        benches: bs,
        cells,
    })
}

/// The document's headline numbers (§4.9 of the digest) for side-by-side printing.
pub mod reference {
    /// Jobs meeting deadline normalised to RR at the high rate (Figs. 6.2–6.4, geomean).
    pub const MET_VS_RR_HIGH: &[(&str, f64)] = &[
        ("RR", 1.0),
        ("MLFQ", 0.85),
        ("BAT", 0.77),
        ("BAY", 1.0),
        ("PRO", 1.02),
        ("LJF", 1.24),
        ("SJF", 2.46),
        ("SRF", 2.54),
        ("PREMA", 2.2),
        // LAX-SW = LAX / 1.7, LAX-CPU = LAX / 1.1 (Fig. 6.4 ratios)
        ("LAX-SW", 4.2 / 1.7),
        ("LAX-CPU", 4.2 / 1.1),
        ("LAX", 4.2),
    ];
    /// LAX / RR at the low, medium and high rate.
    pub const LAX_VS_RR: [f64; 3] = [1.7, 3.1, 4.2];
    /// Wasted work (geomean fraction) at the high rate, Fig. 6.5 (RR/BAT given as 67–71 %).
    pub const WASTED_HIGH: &[(&str, f64)] = &[
        ("RR", 0.69),
        ("BAT", 0.69),
        ("BAY", 0.27),
        ("PRO", 0.65),
        ("LJF", 0.56),
        ("SJF", 0.41),
        ("SRF", 0.38),
        ("LAX", 0.23),
    ];
    /// Looks a policy up in a reference table.
    pub fn lookup(table: &[(&str, f64)], policy: &str) -> Option<f64> {
        table.iter().find(|(p, _)| *p == policy).map(|(_, v)| *v)
    }
}
