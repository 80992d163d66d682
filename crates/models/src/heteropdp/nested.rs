//! The nested co-located model: `T_coloc[d] = T_alone[d] × slowdown[d]`, where `T_alone` is the
//! alone model of target `d` (models 1–2) and the slowdown (Eq 6.6) is regressed on the
//! interference the co-runners exert (their Bubble-up pressure: host-DRAM bandwidth share, LLC
//! footprint share and, on the CMP, their share of the cores) and on the kernel's own pressure
//! score and Table 6.4 features. This is the reading of Table A.4 (the GPU co-located model is
//! the alone model plus an interference term) applied as a correction of the alone prediction,
//! so that the predicted OpenCL slowdown is one regression rather than the ratio of two
//! (models 3/1 and 4/2), whose errors do not cancel.
//!
//! Form (decision): `ln(slowdown) = Σ coef × term`, least squares (no intercept), over every
//! term that contains at least one co-runner pressure factor: their main effects, their pairwise
//! products, and their products with each kernel factor. Without co-runners the slowdown is
//! therefore exactly 1, and a predicted slowdown below 1 is raised to 1 (co-location does not
//! speed a program up in the interference model). The logarithm makes the fit minimise the
//! relative error of the slowdown (the fairness of Eq 6.1 is a ratio of slowdowns) and keeps the
//! few very large slowdowns (an LLC-resident kernel losing its LLC share) from dominating it; a
//! first fit on `slowdown − 1` was worse in cross-validation than the flat model on the CMP.

use super::corunner::CoRunner;
use super::decide::Target;
use super::features::{factors, KernelFeatures, ModelKind, SystemFeatures};
use super::platform::Platform;
use super::regression::{Fit, FitError, Model, Sample, Term, Weighting};
use serde::{Deserialize, Serialize};

/// Co-runner pressure factors of the CMP (the terms' drivers).
pub const CMP_PRESSURE: [&str; 3] = ["co_dram_bw_util", "co_llc_share", "co_core_share"];
/// Co-runner pressure factors of the GPU.
pub const GPU_PRESSURE: [&str; 2] = ["co_dram_bw_util", "co_llc_share"];

/// The alone model of target `d`.
pub fn alone_kind(d: Target) -> ModelKind {
    match d {
        Target::Cmp => ModelKind::CmpAlone,
        Target::Gpu => ModelKind::GpuAlone,
    }
}

/// The co-located model of target `d`.
pub fn coloc_kind(d: Target) -> ModelKind {
    match d {
        Target::Cmp => ModelKind::CmpColoc,
        Target::Gpu => ModelKind::GpuColoc,
    }
}

fn pressure_count(d: Target) -> usize {
    match d {
        Target::Cmp => CMP_PRESSURE.len(),
        Target::Gpu => GPU_PRESSURE.len(),
    }
}

/// Factor names of the slowdown regression of target `d`: the co-runner pressures, the
/// kernel's pressure score, then the alone model's Table 6.4 factors.
pub fn names(d: Target) -> Vec<String> {
    let mut v: Vec<String> = match d {
        Target::Cmp => CMP_PRESSURE.iter().map(|s| s.to_string()).collect(),
        Target::Gpu => GPU_PRESSURE.iter().map(|s| s.to_string()).collect(),
    };
    match d {
        Target::Cmp => v.extend(["k_dram_bw_util".into(), "k_llc_share".into()]),
        Target::Gpu => v.push("k_copy_share".into()),
    }
    v.extend(super::features::names(alone_kind(d)));
    v
}

/// Host-DRAM bytes of the kernel on the CMP as the predictor estimates them from its features:
/// the buffer once plus the vector-memory traffic (one 128-byte line per warp instruction of 32
/// work-items) that does not fit the LLC.
pub fn cmp_dram_bytes(p: &Platform, k: &KernelFeatures) -> f64 {
    let spill = (1.0 - (p.llc_bytes / k.buffer_bytes.max(1.0)).min(1.0)).max(0.0);
    let vmem_total = k.cmp[3] * k.threads / 32.0;
    k.buffer_bytes + vmem_total * 128.0 * spill
}

/// Share of the GPU time spent copying at the PCIe rate, given the GPU alone time `t_alone`.
pub fn copy_share(p: &Platform, k: &KernelFeatures, t_alone: f64) -> f64 {
    if t_alone > 0.0 {
        (k.transfer_bytes / (p.pcie_gbs * 1e9) / t_alone).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// The factor vector of the slowdown regression of target `d` for kernel `k` whose alone time
/// on `d` is `t_alone` s (measured when training, predicted when deciding), with `corunners`.
pub fn interference_factors(
    p: &Platform,
    d: Target,
    k: &KernelFeatures,
    t_alone: f64,
    corunners: &[CoRunner],
) -> Vec<f64> {
    let bw: f64 = corunners.iter().map(|c| c.dram_gbs).sum::<f64>() / p.dram_gbs;
    let llc: f64 = corunners
        .iter()
        .map(|c| c.footprint_bytes.min(p.llc_bytes))
        .sum::<f64>()
        / p.llc_bytes;
    let mut v = vec![bw, llc];
    match d {
        Target::Cmp => {
            v.push(corunners.len() as f64 / p.cores as f64);
            let kbw = if t_alone > 0.0 {
                cmp_dram_bytes(p, k) / t_alone / (p.dram_gbs * 1e9)
            } else {
                0.0
            };
            v.push(kbw.clamp(0.0, 1.0));
            v.push(k.buffer_bytes.min(p.llc_bytes) / p.llc_bytes);
        }
        Target::Gpu => v.push(copy_share(p, k, t_alone)),
    }
    v.extend(factors(alone_kind(d), k, &SystemFeatures::default()));
    v
}

/// The terms of the slowdown regression: every term with at least one of the first `n_pressure`
/// factors (main effects, products among them, products with every other factor).
pub fn nested_terms(n_pressure: usize, n_factors: usize) -> Vec<Term> {
    let mut t: Vec<Term> = (0..n_pressure).map(|i| (i, None)).collect();
    for i in 0..n_pressure {
        for j in i + 1..n_factors {
            t.push((i, Some(j)));
        }
    }
    t
}

/// A fitted slowdown regression of one target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Interference {
    /// Target.
    pub target: Target,
    /// `ln(slowdown)` as a function of [`interference_factors`].
    pub model: Model,
}

impl Interference {
    /// Fits target `d`'s slowdown regression; each sample's `y` is its measured slowdown
    /// (`T_coloc / T_alone`, > 0), its `x` from [`interference_factors`]; least squares on
    /// `ln(slowdown)`.
    pub fn fit(d: Target, samples: &[Sample], rcond: f64) -> Result<Interference, FitError> {
        let f = names(d);
        let excess: Vec<Sample> = samples
            .iter()
            .map(|s| Sample {
                group: s.group.clone(),
                x: s.x.clone(),
                y: s.y.max(f64::MIN_POSITIVE).ln(),
            })
            .collect();
        let model = Model::fit_terms(
            &f,
            nested_terms(pressure_count(d), f.len()),
            &excess,
            Fit {
                weighting: Weighting::Absolute,
                rcond,
            },
        )?;
        Ok(Interference { target: d, model })
    }

    /// Predicted slowdown (≥ 1) for factor values `x`.
    pub fn slowdown(&self, x: &[f64]) -> f64 {
        self.model.predict(x).exp().max(1.0)
    }
}

/// Held-out slowdown predictions of K-fold cross-validation by group (the folds of
/// [`super::regression::cross_validate`]); one per sample, in sample order.
pub fn cross_validate(
    d: Target,
    samples: &[Sample],
    k: usize,
    rcond: f64,
) -> Result<Vec<f64>, FitError> {
    super::regression::Folds::new(samples, k).held_out(samples, 1.0, |train| {
        let m = Interference::fit(d, train, rcond)?;
        Ok(move |x: &[f64]| m.slowdown(x))
    })
}

/// Mean squared `ln(predicted / measured)` (predictions floored at 1e-9).
pub fn msle(pred: &[f64], meas: &[f64]) -> f64 {
    if meas.is_empty() {
        return 0.0;
    }
    pred.iter()
        .zip(meas)
        .map(|(p, m)| (p.max(1e-9) / m).ln().powi(2))
        .sum::<f64>()
        / meas.len() as f64
}

/// The truncation of [`super::regression::RCOND_CANDIDATES`] with the smallest cross-validated
/// slowdown error (training data only; the first best wins ties); returns `(rcond, msle)`.
pub fn select_rcond(d: Target, samples: &[Sample], k: usize) -> Result<(f64, f64), FitError> {
    let y: Vec<f64> = samples.iter().map(|s| s.y).collect();
    let mut best = (0.0, f64::INFINITY);
    for rcond in super::regression::RCOND_CANDIDATES {
        let e = msle(&cross_validate(d, samples, k, rcond)?, &y);
        if e < best.1 {
            best = (rcond, e);
        }
    }
    Ok(best)
}
