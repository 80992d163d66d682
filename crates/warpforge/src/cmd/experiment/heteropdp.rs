//! `warpforge experiment heteropdp`: document 000 Chapter 6 (claims 25–31) on the suite's
//! kernels. The kernels are split (disjointly, by name) into training and test kernels; the four
//! regression models are pruned and fitted on the training kernels; every figure is measured on
//! the test kernels except the characterisation figures (claims 29–30), which use every kernel.
//!
//! JSON keys: `kernels`, `samples`, `sizes`, `split`, `accuracy_alone`, `accuracy_colocated`,
//! `accuracy_weighted`, `accuracy_two_corunners`, `within20.{cmp_alone,gpu_alone,cmp_coloc,
//! gpu_coloc}`, `within10.*`, `speedup_over_cmp.{always_gpu,heteropdp,oracle}`, `gap_closed`,
//! `fairness.{always_gpu,heteropdp,oracle,always_cmp}`, `weighted_speedup.*`,
//! `fairness_ratio.{min,max,pairs}`, `mcf_target_changes`, `training`, `platform`, `corunners`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{Context, Result};
use serde_json::json;
use warpforge_models::heteropdp::corunner::{self, CoRunner};
use warpforge_models::heteropdp::decide::{choose, Target};
use warpforge_models::heteropdp::features::ModelKind;
use warpforge_models::heteropdp::metrics::{fairness_ratio, slowdown, weighted_speedup};
use warpforge_models::heteropdp::platform::Measured;
use warpforge_models::heteropdp::train::{train, ColocForm, JobData, TrainOptions};
use warpforge_workloads::Size;

use crate::cmd::experiment::stats;
use crate::cmd::heteropdp::{
    check_scales, collect, is_test, measure, measure_scaled, measured_fairness, suite, targets,
    DEFAULT_SCALES,
};
use crate::cmd::write_atomically;

/// Arguments of `experiment heteropdp`.
#[derive(clap::Args)]
pub struct HeteropdpArgs {
    /// Write the figures as JSON to this file.
    #[arg(long)]
    pub json: PathBuf,
    /// Write predicted-vs-measured SVG plots into this directory.
    #[arg(long)]
    pub svg: Option<PathBuf>,
    /// Input sizes of every kernel (comma separated; each size is one sample per kernel).
    #[arg(long, default_value = "tiny,small", value_delimiter = ',', value_parser = crate::cmd::run::parse_size)]
    pub sizes: Vec<Size>,
    /// GPU parameter set (built-in name or `*.toml`).
    #[arg(long, default_value = "gtx480")]
    pub gpu: String,
    /// K of the K-fold pruning (the document's "32 test passes").
    #[arg(long, default_value_t = 32)]
    pub folds: usize,
    /// Grid scales of the training kernels' runs (comma separated; 1 = the analysed grid):
    /// several global work sizes per training kernel (§6.5). Test kernels use the analysed
    /// grids only.
    #[arg(long, default_value = DEFAULT_SCALES, value_delimiter = ',')]
    pub grid_scales: Vec<f64>,
    /// Form of the co-located models: `flat` (Eq 6.5 on the co-located times), `nested` (alone
    /// model × regressed interference slowdown) or `auto` (per target, the one with the smaller
    /// K-fold cross-validated slowdown error on the training kernels).
    #[arg(long, value_enum, default_value_t = ColocArg::Auto)]
    pub coloc: ColocArg,
}

/// `--coloc` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColocArg {
    /// Eq 6.5 fitted on the co-located times.
    Flat,
    /// Alone model × regressed interference slowdown.
    Nested,
    /// Chosen per target by K-fold cross-validation on the training kernels.
    Auto,
}

impl From<ColocArg> for ColocForm {
    fn from(a: ColocArg) -> Self {
        match a {
            ColocArg::Flat => ColocForm::Flat,
            ColocArg::Nested => ColocForm::Nested,
            ColocArg::Auto => ColocForm::Auto,
        }
    }
}

/// [`stats::mean`], 0 when `v` is empty.
fn mean(v: &[f64]) -> f64 {
    stats::mean(v).unwrap_or(0.0)
}

fn frac(hits: usize, n: usize) -> f64 {
    if n == 0 {
        0.0
    } else {
        hits as f64 / n as f64
    }
}

fn pick(t: Target, v: [f64; 2]) -> f64 {
    match t {
        Target::Cmp => v[0],
        Target::Gpu => v[1],
    }
}

fn oracle(m: &Measured, weights: &[f64]) -> Target {
    choose(
        [m.cmp_alone, m.gpu_alone],
        [m.cmp_coloc, m.gpu_coloc],
        Some(measured_fairness(m, weights)),
    )
}

/// Runs the experiment.
pub fn run(a: HeteropdpArgs) -> Result<()> {
    check_scales(&a.grid_scales)?;
    let t = targets(&a.gpu)?;
    let cos = corunner::spec2006();
    let wl = suite();
    eprintln!(
        "heteropdp: analysing {} workloads at {:?} for both targets ...",
        wl.len(),
        a.sizes.iter().map(|s| s.name()).collect::<Vec<_>>()
    );
    let jobs = collect(&t, &wl, &a.sizes)?;
    let data: Vec<JobData> = jobs
        .iter()
        .map(|j| measure(&t, &cos, j))
        .collect::<Result<_>>()?;
    let mut kernels: Vec<String> = data.iter().map(|d| d.group.clone()).collect();
    kernels.sort();
    kernels.dedup();
    let test_set: Vec<String> = kernels
        .iter()
        .enumerate()
        .filter(|(i, _)| is_test(*i))
        .map(|(_, k)| k.clone())
        .collect();
    let is_test_group = |g: &str| test_set.binary_search_by(|x| x.as_str().cmp(g)).is_ok();
    let mut train_data: Vec<JobData> = Vec::new();
    for (j, d) in jobs.iter().zip(&data) {
        if !is_test_group(&d.group) {
            train_data.extend(measure_scaled(&t, &cos, j, &a.grid_scales)?);
        }
    }
    let train_refs: Vec<&JobData> = train_data.iter().collect();
    let test_idx: Vec<usize> = (0..data.len())
        .filter(|&i| is_test_group(&data[i].group))
        .collect();
    eprintln!(
        "heteropdp: {} kernels ({} samples), {} training kernels ({} samples at grid scales {:?}) / {} test kernels; fitting ...",
        kernels.len(),
        data.len(),
        kernels.len() - test_set.len(),
        train_refs.len(),
        a.grid_scales,
        test_set.len()
    );
    let o = TrainOptions {
        folds: a.folds,
        coloc: a.coloc.into(),
        ..TrainOptions::default()
    };
    let trained = train(&t, &cos, &train_refs, &o)?;
    let pr = &trained.predictor;

    // Alone: accuracy and speed-up over the CMP.
    let (mut ok_alone, mut sp_gpu, mut sp_hpdp, mut sp_orc) = (0, vec![], vec![], vec![]);
    let mut cases_alone = Vec::new();
    let mut within: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    let mut scatter: BTreeMap<&str, Vec<(f64, f64)>> = BTreeMap::new();
    let mut note = |k: ModelKind, pred: f64, meas: f64| {
        let e = ((pred - meas) / meas).abs();
        let w = within.entry(k.key()).or_insert((0, 0, 0));
        w.0 += usize::from(e <= 0.2);
        w.1 += usize::from(e <= 0.1);
        w.2 += 1;
        scatter.entry(k.key()).or_default().push((meas, pred));
    };
    for &i in &test_idx {
        let d = &data[i];
        let m = d.alone();
        let dec = pr.decide(&d.features, &[], &[]);
        let orc = choose(m, m, None);
        ok_alone += usize::from(dec.target == orc);
        cases_alone.push(json!({
            "kernel": d.group, "size": d.size, "measured": m, "predicted": dec.t_alone,
            "target": dec.target, "oracle": orc,
        }));
        sp_gpu.push(m[0] / m[1]);
        sp_hpdp.push(m[0] / pick(dec.target, m));
        sp_orc.push(m[0] / pick(orc, m));
        note(ModelKind::CmpAlone, dec.t_alone[0], m[0]);
        note(ModelKind::GpuAlone, dec.t_alone[1], m[1]);
    }
    // One co-runner (weights 1, then 0.5-2.5).
    let (mut ok_co, mut n_co) = (0, 0);
    let mut cases_coloc = Vec::new();
    let (mut ok_w, mut n_w) = (0, 0);
    let (mut f_gpu, mut f_hp, mut f_orc, mut f_cmp) = (vec![], vec![], vec![], vec![]);
    let (mut ws_gpu, mut ws_hp) = (vec![], vec![]);
    for &i in &test_idx {
        let d = &data[i];
        for (c, m) in cos.iter().zip(&d.singles) {
            let one = std::slice::from_ref(c);
            let dec = pr.decide(&d.features, one, &[1.0]);
            let orc = oracle(m, &[1.0]);
            ok_co += usize::from(dec.target == orc);
            n_co += 1;
            let fair = measured_fairness(m, &[1.0]);
            f_gpu.push(fair[1]);
            f_hp.push(pick(dec.target, fair));
            f_orc.push(pick(orc, fair));
            f_cmp.push(fair[0]);
            let ws = [
                weighted_speedup(&[slowdown(m.cmp_coloc, m.cmp_alone), m.corunner_sd_cmp[0]]),
                weighted_speedup(&[slowdown(m.gpu_coloc, m.gpu_alone), m.corunner_sd_gpu[0]]),
            ];
            ws_gpu.push(ws[1]);
            ws_hp.push(pick(dec.target, ws));
            let (pc, pg) = (dec.t_coloc[0], dec.t_coloc[1]);
            note(ModelKind::CmpColoc, pc, m.cmp_coloc);
            note(ModelKind::GpuColoc, pg, m.gpu_coloc);
            cases_coloc.push(json!({
                "kernel": d.group, "size": d.size, "corunner": c.name,
                "measured": [m.cmp_coloc, m.gpu_coloc], "predicted": dec.t_coloc,
                "measured_alone": [m.cmp_alone, m.gpu_alone], "predicted_alone": dec.t_alone,
                "measured_fairness": fair, "predicted_fairness": dec.fairness,
                "measured_corunner_sd": [m.corunner_sd_cmp[0], m.corunner_sd_gpu[0]],
                "predicted_corunner_sd": [dec.corunner_sd[0][0], dec.corunner_sd[1][0]],
                "target": dec.target, "oracle": orc,
            }));
            for w in [0.5, 1.0, 1.5, 2.0, 2.5] {
                let dw = pr.decide(&d.features, one, &[w]);
                ok_w += usize::from(dw.target == oracle(m, &[w]));
                n_w += 1;
            }
        }
    }
    // Two co-runners (every pair of distinct programs), no retraining.
    let (mut ok_two, mut n_two) = (0, 0);
    for &i in &test_idx {
        let d = &data[i];
        let job = &jobs[i].job;
        for x in 0..cos.len() {
            for y in x + 1..cos.len() {
                let pair: Vec<CoRunner> = vec![cos[x].clone(), cos[y].clone()];
                let m = t.measure(job, &pair)?;
                let dec = pr.decide(&d.features, &pair, &[1.0, 1.0]);
                ok_two += usize::from(dec.target == oracle(&m, &[1.0, 1.0]));
                n_two += 1;
            }
        }
    }
    // Characterisation over every kernel: fairness ratio (claim 30), mcf changes (claim 29).
    let mcf = cos.iter().position(|c| c.name == "mcf").unwrap_or(0);
    let (mut fr_min, mut fr_max, mut pairs) = (f64::INFINITY, 0.0f64, 0usize);
    let (mut changed, mut changed_names) = (0usize, Vec::new());
    for d in &data {
        for m in &d.singles {
            let f = measured_fairness(m, &[1.0]);
            let r = fairness_ratio(f[0], f[1]);
            fr_min = fr_min.min(r);
            fr_max = fr_max.max(r);
            pairs += 1;
        }
        let m = &d.singles[mcf];
        let alone = choose([m.cmp_alone, m.gpu_alone], [0.0; 2], None);
        let with = choose([m.cmp_coloc, m.gpu_coloc], [0.0; 2], None);
        if alone != with {
            changed += 1;
            changed_names.push(format!("{}@{}", d.group, d.size));
        }
    }

    let n_test = test_idx.len();
    let (g, h, o_) = (mean(&sp_gpu), mean(&sp_hpdp), mean(&sp_orc));
    let gap = if o_ - g > 0.0 {
        (h - g) / (o_ - g)
    } else {
        0.0
    };
    let wfrac = |k: &str, which: usize| {
        within
            .get(k)
            .map_or(0.0, |w| frac(if which == 20 { w.0 } else { w.1 }, w.2))
    };
    let mut training = serde_json::Map::new();
    for (k, (p, fit)) in &trained.pruning {
        training.insert(
            k.clone(),
            json!({
                "folds": p.folds.min(p.pool),
                "pool": p.pool,
                "kept": p.kept.len(),
                "removed": p.removed,
                "cv_r2_pool": p.cv_r2_pool,
                "cv_r2_kept": p.cv_r2_kept,
                "svd_rcond": fit.rcond,
                "weighting": fit.weighting,
                "terms": pr.models[ModelKind::ALL.iter().position(|m| m.key() == k).unwrap_or(0)].terms.len(),
            }),
        );
    }
    let report = json!({
        "kernels": kernels.len(),
        "samples": data.len(),
        "sizes": a.sizes.iter().map(|s| s.name()).collect::<Vec<_>>(),
        "grid_scales": a.grid_scales,
        "train_samples": train_refs.len(),
        "gpu": t.gpu.name,
        "cmp": t.cmp.name,
        "split": {
            "rule": "kernels sorted by name; positions 1 and 3 of every 5 are test kernels",
            "train_kernels": kernels.len() - test_set.len(),
            "test_kernels": test_set.len(),
            "test_samples": n_test,
            "test": test_set,
        },
        "accuracy_alone": frac(ok_alone, n_test),
        "accuracy_colocated": frac(ok_co, n_co),
        "accuracy_weighted": frac(ok_w, n_w),
        "accuracy_two_corunners": frac(ok_two, n_two),
        "cases": {"alone": n_test, "colocated": n_co, "weighted": n_w, "two_corunners": n_two},
        "within20": {
            "cmp_alone": wfrac("cmp_alone", 20), "gpu_alone": wfrac("gpu_alone", 20),
            "cmp_coloc": wfrac("cmp_coloc", 20), "gpu_coloc": wfrac("gpu_coloc", 20),
        },
        "within10": {
            "cmp_alone": wfrac("cmp_alone", 10), "gpu_alone": wfrac("gpu_alone", 10),
            "cmp_coloc": wfrac("cmp_coloc", 10), "gpu_coloc": wfrac("gpu_coloc", 10),
        },
        "speedup_over_cmp": {"always_gpu": g, "heteropdp": h, "oracle": o_},
        "gap_closed": gap,
        "fairness": {
            "always_gpu": mean(&f_gpu), "heteropdp": mean(&f_hp),
            "oracle": mean(&f_orc), "always_cmp": mean(&f_cmp),
        },
        "weighted_speedup": {"always_gpu": mean(&ws_gpu), "heteropdp": mean(&ws_hp)},
        "fairness_ratio": {"min": fr_min, "max": fr_max, "pairs": pairs},
        "mcf_target_changes": {
            "samples": data.len(), "changed": changed,
            "fraction": frac(changed, data.len()), "which": changed_names,
        },
        "training": training,
        "coloc_model": trained.coloc,
        "coloc_form": {
            "cmp": if pr.nested[0].is_some() { "nested" } else { "flat" },
            "gpu": if pr.nested[1].is_some() { "nested" } else { "flat" },
        },
        "test_cases_alone": cases_alone,
        "test_cases_coloc": cases_coloc,
        "platform": t.platform,
        "corunners": cos,
    });
    let text = serde_json::to_string_pretty(&report)?;
    write_atomically(&a.json, text.as_bytes())?;
    if let Some(dir) = &a.svg {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create --svg directory {}", dir.display()))?;
        let svg = scatter_svg(&scatter);
        write_atomically(&dir.join("heteropdp_pred_vs_meas.svg"), svg.as_bytes())?;
    }
    println!(
        "heteropdp: {} kernels ({} test); accuracy alone {:.2}, co-located {:.2}, weighted {:.2}, two co-runners {:.2}",
        kernels.len(),
        test_set.len(),
        frac(ok_alone, n_test),
        frac(ok_co, n_co),
        frac(ok_w, n_w),
        frac(ok_two, n_two)
    );
    println!(
        "  within 20%: cmp_alone {:.2} gpu_alone {:.2} cmp_coloc {:.2} gpu_coloc {:.2}",
        wfrac("cmp_alone", 20),
        wfrac("gpu_alone", 20),
        wfrac("cmp_coloc", 20),
        wfrac("gpu_coloc", 20)
    );
    println!(
        "  speed-up over CMP: always-GPU {g:.2}x, HeteroPDP {h:.2}x, oracle {o_:.2}x; gap closed {gap:.2}"
    );
    println!(
        "  fairness: always-GPU {:.3}, HeteroPDP {:.3}, oracle {:.3}; fairness ratio {:.3e}..{:.3e}",
        mean(&f_gpu),
        mean(&f_hp),
        mean(&f_orc),
        fr_min,
        fr_max
    );
    Ok(())
}

/// Predicted against measured time, log-log, one panel per model.
fn scatter_svg(points: &BTreeMap<&str, Vec<(f64, f64)>>) -> String {
    let (pw, ph, m) = (300.0, 300.0, 45.0);
    let mut s = String::new();
    let width = 4.0 * (pw + m) + m;
    let _ = write!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{}\" font-family=\"sans-serif\" font-size=\"11\">",
        ph + 2.0 * m
    );
    let all: Vec<f64> = points
        .values()
        .flatten()
        .flat_map(|&(a, b)| [a, b])
        .filter(|v| *v > 0.0)
        .collect();
    let lo = all
        .iter()
        .fold(f64::INFINITY, |a, &b| a.min(b))
        .log10()
        .floor();
    let hi = all.iter().fold(0.0f64, |a, &b| a.max(b)).log10().ceil();
    let span = (hi - lo).max(1.0);
    for (i, k) in ["cmp_alone", "gpu_alone", "cmp_coloc", "gpu_coloc"]
        .iter()
        .enumerate()
    {
        let x0 = m + i as f64 * (pw + m);
        let y0 = m;
        let _ = write!(
            s,
            "<rect x=\"{x0}\" y=\"{y0}\" width=\"{pw}\" height=\"{ph}\" fill=\"none\" stroke=\"black\"/>\
             <line x1=\"{x0}\" y1=\"{}\" x2=\"{}\" y2=\"{y0}\" stroke=\"gray\" stroke-dasharray=\"4\"/>\
             <text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{k}: predicted vs measured (s, log)</text>\
             <text x=\"{x0}\" y=\"{}\">1e{lo}</text><text x=\"{}\" y=\"{}\" text-anchor=\"end\">1e{hi}</text>",
            y0 + ph,
            x0 + pw,
            x0 + pw / 2.0,
            y0 - 8.0,
            y0 + ph + 14.0,
            x0 + pw,
            y0 + ph + 14.0
        );
        for &(meas, pred) in points.get(k).map(|v| v.as_slice()).unwrap_or(&[]) {
            let fx = ((meas.max(1e-30).log10() - lo) / span).clamp(0.0, 1.0);
            let fy = ((pred.max(10f64.powf(lo)).log10() - lo) / span).clamp(0.0, 1.0);
            let _ = write!(
                s,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"2.5\" fill=\"steelblue\" fill-opacity=\"0.6\"/>",
                x0 + fx * pw,
                y0 + ph - fy * ph
            );
        }
    }
    s.push_str("</svg>\n");
    s
}
