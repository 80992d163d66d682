//! HeteroPDP (document 000, Chapter 6) on the command line: `warpforge predict-target` and the
//! suite data collection that `experiment heteropdp` shares.
//!
//! Every kernel of the suite (a kernel name of a workload; the `micro_*` probes excluded) is
//! analysed functionally once per target parameter set; its ground-truth alone and co-located
//! times on the CMP and the GPU come from the platform model of
//! [`warpforge_models::heteropdp::platform`].

use std::path::PathBuf;

use crate::cmd::write_atomically;
use anyhow::{anyhow, bail, Context, Result};
use serde::Serialize;
use warpforge_models::analyser::KernelProfile;
use warpforge_models::heteropdp::corunner::{self, CoRunner};
use warpforge_models::heteropdp::decide::Decision;
use warpforge_models::heteropdp::features::kernel_features;
use warpforge_models::heteropdp::platform::{KernelJob, Measured, Platform, Targets};
use warpforge_models::heteropdp::scale::scale_job;
use warpforge_models::heteropdp::train::{train, JobData, TrainOptions};
use warpforge_models::params;
use warpforge_workloads::{registry, Size, Workload};

use super::run::{find_workload, parse_size};

/// The workloads HeteroPDP uses: the suite without the `micro_*` timing probes.
pub fn suite() -> Vec<&'static dyn Workload> {
    registry()
        .into_iter()
        .filter(|w| !w.info().name.starts_with("micro_"))
        .collect()
}

/// The two targets with the GPU parameter set `gpu` (a built-in name or a `*.toml` file).
pub fn targets(gpu: &str) -> Result<Targets> {
    let g = params::load(gpu).map_err(|e| anyhow!("--gpu {gpu}: {e}"))?;
    Ok(Targets::new(Platform::default(), g)?)
}

/// A kernel at one size.
pub struct SizedJob {
    /// Input size.
    pub size: Size,
    /// The kernel's launches.
    pub job: KernelJob,
}

fn group_by_kernel(wl: &str, profiles: Vec<KernelProfile>) -> Vec<(String, Vec<KernelProfile>)> {
    let mut out: Vec<(String, Vec<KernelProfile>)> = Vec::new();
    for p in profiles {
        let key = format!("{wl}/{}", p.kernel);
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(p),
            None => out.push((key, vec![p])),
        }
    }
    out
}

/// Analyses `workloads` at each size for both targets; one job per kernel name and size.
pub fn collect(t: &Targets, workloads: &[&dyn Workload], sizes: &[Size]) -> Result<Vec<SizedJob>> {
    let opts = t.opts;
    let mut out = Vec::new();
    for &size in sizes {
        for w in workloads {
            let name = w.info().name;
            let (cmp, _, _) = super::predict::analyse(*w, size, &t.cmp, &opts)?;
            let (gpu, _, _) = super::predict::analyse(*w, size, &t.gpu, &opts)?;
            let mut g = group_by_kernel(name, gpu);
            for (key, c) in group_by_kernel(name, cmp) {
                let gp = g
                    .iter_mut()
                    .find(|(k, _)| *k == key)
                    .map(|(_, v)| std::mem::take(v))
                    .unwrap_or_default();
                if gp.is_empty() || c.iter().all(|p| p.warp_insts == 0) {
                    continue;
                }
                out.push(SizedJob {
                    size,
                    job: KernelJob {
                        name: key,
                        cmp: c,
                        gpu: gp,
                    },
                });
            }
        }
    }
    Ok(out)
}

/// Ground truth of `job` against each single co-runner.
pub fn measure(t: &Targets, corunners: &[CoRunner], j: &SizedJob) -> Result<JobData> {
    let singles: Vec<Measured> = corunners
        .iter()
        .map(|c| t.measure(&j.job, std::slice::from_ref(c)))
        .collect::<Result<_, _>>()
        .with_context(|| format!("modelling {} at {}", j.job.name, j.size.name()))?;
    Ok(JobData {
        group: j.job.name.clone(),
        size: j.size.name().to_string(),
        features: kernel_features(&j.job),
        singles,
    })
}

/// Ground truth of `j` with its grid scaled by each of `scales` (1 is the analysed grid), one
/// [`JobData`] per scale, labelled `size` or `size×s` (document 000 §6.5: each training kernel
/// at several global work sizes; see [`warpforge_models::heteropdp::scale`]).
pub fn measure_scaled(
    t: &Targets,
    corunners: &[CoRunner],
    j: &SizedJob,
    scales: &[f64],
) -> Result<Vec<JobData>> {
    scales
        .iter()
        .map(|&s| {
            if s == 1.0 {
                return measure(t, corunners, j);
            }
            let sj = SizedJob {
                size: j.size,
                job: scale_job(&j.job, s),
            };
            let mut d = measure(t, corunners, &sj)?;
            d.size = format!("{}x{s}", j.size.name());
            Ok(d)
        })
        .collect()
}

/// Parses and checks `--grid-scales` values (positive, finite).
pub fn check_scales(scales: &[f64]) -> Result<()> {
    if let Some(x) = scales.iter().find(|x| !(x.is_finite() && **x > 0.0)) {
        bail!("--grid-scales {x}: every scale must be a positive number");
    }
    if scales.is_empty() {
        bail!("--grid-scales: give at least one scale (1 = the analysed grid)");
    }
    Ok(())
}

/// Disjoint split by kernel: of the kernels sorted by name, positions 1 and 3 of every 5 are
/// test kernels (40%), the rest training kernels.
pub fn is_test(sorted_index: usize) -> bool {
    matches!(sorted_index % 5, 1 | 3)
}

/// Parses co-runner names.
pub fn corunners_named(names: &[String]) -> Result<Vec<CoRunner>> {
    names
        .iter()
        .map(|n| {
            corunner::by_name(n).ok_or_else(|| {
                let known: Vec<String> = corunner::spec2006().into_iter().map(|c| c.name).collect();
                anyhow!("unknown co-runner `{n}` (known: {})", known.join(", "))
            })
        })
        .collect()
}

/// Arguments of `warpforge predict-target`.
#[derive(clap::Args)]
pub struct Args {
    /// Workload whose kernels to place (see `warpforge list`).
    pub workload: String,
    /// Only this kernel of the workload.
    #[arg(long)]
    pub kernel: Option<String>,
    /// Input size of the workload.
    #[arg(long, default_value = "small", value_parser = parse_size)]
    pub size: Size,
    /// Co-running native CPU program (bzip2, calculix, lbm, mcf, perlbench, xalancbmk);
    /// repeat for several.
    #[arg(long = "corunner")]
    pub corunners: Vec<String>,
    /// Weight of each co-runner (Eq 6.3, 0.5 latency-tolerant to 2.5 latency-critical; the
    /// OpenCL kernel weighs 1); repeat in co-runner order, missing ones are 1.
    #[arg(long = "weight")]
    pub weights: Vec<f64>,
    /// GPU parameter set (built-in name or `*.toml`).
    #[arg(long, default_value = "gtx480")]
    pub gpu: String,
    /// Input size of the training runs (every other workload of the suite).
    #[arg(long, default_value = "tiny", value_parser = parse_size)]
    pub train_size: Size,
    /// Grid scales of the training runs (comma separated; 1 = the analysed grid, 0.25 a
    /// quarter of its blocks, 4 four times as many): several global work sizes per training
    /// kernel, as the document trains (§6.5).
    #[arg(long, default_value = DEFAULT_SCALES, value_delimiter = ',')]
    pub grid_scales: Vec<f64>,
    /// Write the decisions as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

/// Default `--grid-scales` of the training runs.
pub const DEFAULT_SCALES: &str = "0.25,1,4,16";

#[derive(Serialize)]
struct Row {
    kernel: String,
    decision: Decision,
    measured: Measured,
    measured_best: &'static str,
}

/// Runs `warpforge predict-target`.
pub fn run(a: Args) -> Result<()> {
    let w = find_workload(&a.workload)?;
    if let Some(x) = a.weights.iter().find(|x| !(x.is_finite() && **x > 0.0)) {
        bail!("--weight {x}: must be a positive number");
    }
    let cos = corunners_named(&a.corunners)?;
    check_scales(&a.grid_scales)?;
    let t = targets(&a.gpu)?;
    let train_wl: Vec<&dyn Workload> = suite()
        .into_iter()
        .filter(|x| x.info().name != w.info().name)
        .collect();
    eprintln!(
        "training on {} workloads at {} ...",
        train_wl.len(),
        a.train_size.name()
    );
    let all = corunner::spec2006();
    let tj = collect(&t, &train_wl, &[a.train_size])?;
    let mut data: Vec<JobData> = Vec::new();
    for j in &tj {
        data.extend(measure_scaled(&t, &all, j, &a.grid_scales)?);
    }
    let refs: Vec<&JobData> = data.iter().collect();
    let trained = train(&t, &all, &refs, &TrainOptions::default())?;
    let mine = collect(&t, &[w], &[a.size])?;
    let mut rows = Vec::new();
    for j in mine.iter().filter(|j| {
        a.kernel
            .as_ref()
            .is_none_or(|k| j.job.name.ends_with(&format!("/{k}")))
    }) {
        let f = kernel_features(&j.job);
        let d = trained.predictor.decide(&f, &cos, &a.weights);
        let m = t.measure(&j.job, &cos)?;
        let best = if cos.is_empty() {
            if m.cmp_alone < m.gpu_alone {
                "cmp"
            } else {
                "gpu"
            }
        } else {
            let fair = measured_fairness(&m, &a.weights);
            if fair[0] > fair[1] {
                "cmp"
            } else {
                "gpu"
            }
        };
        rows.push(Row {
            kernel: j.job.name.clone(),
            decision: d,
            measured: m,
            measured_best: best,
        });
    }
    if rows.is_empty() {
        bail!(
            "workload `{}` has no kernel{} at size {}",
            a.workload,
            a.kernel
                .as_ref()
                .map(|k| format!(" `{k}`"))
                .unwrap_or_default(),
            a.size.name()
        );
    }
    let names: Vec<&str> = cos.iter().map(|c| c.name.as_str()).collect();
    println!(
        "{} at {} with co-runners [{}] (trained on {} samples at {}, grid scales {:?})",
        a.workload,
        a.size.name(),
        names.join(", "),
        data.len(),
        a.train_size.name(),
        a.grid_scales
    );
    println!(
        "  {:<28} {:>6} {:>11} {:>11} {:>11} {:>11} {:>6} {:>6}  measured best",
        "kernel", "target", "cmp_alone", "gpu_alone", "cmp_coloc", "gpu_coloc", "fair_c", "fair_g",
    );
    for r in &rows {
        let d = &r.decision;
        println!(
            "  {:<28} {:>6} {:>11.3e} {:>11.3e} {:>11.3e} {:>11.3e} {:>6.3} {:>6.3}  {}",
            r.kernel,
            d.target.name(),
            d.t_alone[0],
            d.t_alone[1],
            d.t_coloc[0],
            d.t_coloc[1],
            d.fairness[0],
            d.fairness[1],
            r.measured_best
        );
    }
    if let Some(p) = &a.json {
        let v = serde_json::to_vec_pretty(&rows)?;
        write_atomically(p, &v)?;
    }
    Ok(())
}

/// Measured weighted fairness `[CMP, GPU]` (Eq 6.4) of a co-located case.
pub fn measured_fairness(m: &Measured, weights: &[f64]) -> [f64; 2] {
    use warpforge_models::heteropdp::metrics::{slowdown, weighted_fairness};
    let n = m.corunner_sd_cmp.len();
    let mut w = vec![1.0];
    w.extend(
        weights
            .iter()
            .copied()
            .chain(std::iter::repeat(1.0))
            .take(n),
    );
    let mut sc = vec![slowdown(m.cmp_coloc, m.cmp_alone)];
    sc.extend(&m.corunner_sd_cmp);
    let mut sg = vec![slowdown(m.gpu_coloc, m.gpu_alone)];
    sg.extend(&m.corunner_sd_gpu);
    [weighted_fairness(&sc, &w), weighted_fairness(&sg, &w)]
}
