//! Training HeteroPDP on measured (modelled) runs: the four regression models fitted on the
//! training kernels after K-fold pruning (claim 31), and the Bubble-up tables.

use super::bubble::BubbleTable;
use super::corunner::CoRunner;
use super::decide::{Predictor, Target, MIN_TIME_S};
use super::features::{factors, names, system_features, KernelFeatures, ModelKind};
use super::nested::{self, alone_kind, coloc_kind, interference_factors, Interference};
use super::platform::{Measured, Targets};
use super::regression::{
    prune, r2_log, select_fit, Fit, FitError, Folds, Model, Pruning, Sample, Weighting,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One kernel at one input size with its ground truth.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobData {
    /// Kernel (cross-validation group and split unit): `workload/kernel`.
    pub group: String,
    /// Input size.
    pub size: String,
    /// Table 6.4 features.
    pub features: KernelFeatures,
    /// Measured times against each single co-runner (in the co-runner list's order).
    pub singles: Vec<Measured>,
}

impl JobData {
    /// Alone times `[CMP, GPU]`, s.
    pub fn alone(&self) -> [f64; 2] {
        self.singles
            .first()
            .map(|m| [m.cmp_alone, m.gpu_alone])
            .unwrap_or([0.0, 0.0])
    }
}

/// Training options.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TrainOptions {
    /// Cross-validation folds ("32 test passes"; fewer when there are fewer kernels).
    pub folds: usize,
    /// Largest share of the pool the pruning may remove.
    pub max_pruned: f64,
    /// Row weighting of the least squares (the only candidate unless `select_weighting`).
    pub weighting: Weighting,
    /// Choose the weighting of each model among [`Weighting::Relative`] and [`Weighting::Log`]
    /// by its K-fold cross-validated R² of ln(time) on the training kernels.
    pub select_weighting: bool,
    /// Form of the co-located models.
    pub coloc: ColocForm,
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            folds: 32,
            max_pruned: 0.3,
            weighting: Weighting::Log,
            select_weighting: true,
            coloc: ColocForm::Auto,
        }
    }
}

/// Form of the co-located models (3 and 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ColocForm {
    /// Eq 6.5 fitted on the co-located times (Appendix A's models 3 and 4).
    Flat,
    /// The alone model times a regressed interference slowdown ([`nested`]).
    Nested,
    /// Per target, whichever of the two has the smaller K-fold cross-validated slowdown error
    /// on the training kernels ([`compare_coloc`]).
    Auto,
}

/// K-fold cross-validated comparison of the flat and nested co-located models of one target on
/// the training kernels. In each fold the alone model, the flat co-located model and the
/// nested slowdown regression are fitted on the other folds; the held-out kernels' slowdown
/// (Eq 6.6, the quantity the decision rule uses) is predicted as `T̂_coloc / T̂_alone` (flat) or
/// by the slowdown regression at the predicted alone time's pressure (nested).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ColocScore {
    /// Cross-validated mean squared `ln(ŝ/s)` of the slowdown, flat model.
    pub flat_slowdown_msle: f64,
    /// The same, nested model.
    pub nested_slowdown_msle: f64,
    /// Cross-validated R² of `ln T_coloc`, flat model.
    pub flat_r2: f64,
    /// The same, nested model.
    pub nested_r2: f64,
    /// SVD truncation of the slowdown regression (chosen by its own K-fold error).
    pub nested_rcond: f64,
    /// The form kept.
    pub chosen: ColocForm,
}

/// The trained predictor and how each model's training set was pruned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trained {
    /// The predictor.
    pub predictor: Predictor,
    /// Pruning of models 1–4 (keys `cmp_alone`, ...) and the fit (weighting, SVD truncation)
    /// chosen by cross-validation.
    pub pruning: BTreeMap<String, (Pruning, Fit)>,
    /// Flat-versus-nested cross-validation per target (`cmp`, `gpu`; only with
    /// [`ColocForm::Auto`]).
    pub coloc: BTreeMap<String, ColocScore>,
}

/// The samples of `kind` from `jobs` (co-located models: one per single co-runner).
pub fn samples(
    targets: &Targets,
    kind: ModelKind,
    corunners: &[CoRunner],
    jobs: &[&JobData],
) -> Vec<Sample> {
    let mut out = Vec::new();
    for j in jobs {
        match kind {
            ModelKind::CmpAlone | ModelKind::GpuAlone => {
                let none = system_features(&targets.platform, &[]);
                let y = j.alone()[usize::from(kind == ModelKind::GpuAlone)];
                out.push(Sample {
                    group: j.group.clone(),
                    x: factors(kind, &j.features, &none),
                    y,
                });
            }
            ModelKind::CmpColoc | ModelKind::GpuColoc => {
                for (c, m) in corunners.iter().zip(&j.singles) {
                    let s = system_features(&targets.platform, std::slice::from_ref(c));
                    let y = if kind == ModelKind::CmpColoc {
                        m.cmp_coloc
                    } else {
                        m.gpu_coloc
                    };
                    out.push(Sample {
                        group: j.group.clone(),
                        x: factors(kind, &j.features, &s),
                        y,
                    });
                }
            }
        }
    }
    out
}

/// The slowdown samples of target `d`'s nested model: one per job and single co-runner, `y`
/// the measured slowdown, the kernel's pressure from its measured alone time (Bubble-up
/// measures pressure scores offline).
pub fn nested_samples(
    targets: &Targets,
    d: Target,
    corunners: &[CoRunner],
    jobs: &[&JobData],
) -> Vec<Sample> {
    let mut out = Vec::new();
    for j in jobs {
        for (c, m) in corunners.iter().zip(&j.singles) {
            let (ta, tc) = match d {
                Target::Cmp => (m.cmp_alone, m.cmp_coloc),
                Target::Gpu => (m.gpu_alone, m.gpu_coloc),
            };
            if ta.is_nan() || ta <= 0.0 {
                continue;
            }
            out.push(Sample {
                group: j.group.clone(),
                x: interference_factors(
                    &targets.platform,
                    d,
                    &j.features,
                    ta,
                    std::slice::from_ref(c),
                ),
                y: tc / ta,
            });
        }
    }
    out
}

/// Compares the flat and nested co-located models of target `d` by K-fold cross-validation on
/// `jobs` ([`ColocScore`]); `alone` and `flat` are the fits (row weighting and truncation) of
/// the alone and flat co-located models.
pub fn compare_coloc(
    targets: &Targets,
    d: Target,
    corunners: &[CoRunner],
    jobs: &[&JobData],
    folds: usize,
    alone: Fit,
    flat: Fit,
) -> Result<ColocScore, FitError> {
    let p = &targets.platform;
    let (fa, fc) = (
        super::features::names(alone_kind(d)),
        super::features::names(coloc_kind(d)),
    );
    let sa = samples(targets, alone_kind(d), corunners, jobs);
    let sc = samples(targets, coloc_kind(d), corunners, jobs);
    let sn = nested_samples(targets, d, corunners, jobs);
    let (nested_rcond, _) = nested::select_rcond(d, &sn, folds)?;
    let split = Folds::new(&sa, folds);
    // One entry per (job, co-runner), in the order of `sc`.
    let mut flat_sd = Vec::new();
    let mut nest_sd = Vec::new();
    let mut meas_sd = Vec::new();
    let mut flat_tc = Vec::new();
    let mut nest_tc = Vec::new();
    let mut meas_tc = Vec::new();
    for f in 0..split.k {
        let keep = |g: &str| split.of(g) != f;
        let tr = |v: &[Sample]| -> Vec<Sample> {
            v.iter().filter(|s| keep(&s.group)).cloned().collect()
        };
        let (ta_tr, tc_tr, sn_tr) = (tr(&sa), tr(&sc), tr(&sn));
        if ta_tr.is_empty() || tc_tr.is_empty() || sn_tr.is_empty() {
            continue;
        }
        let ma = Model::fit(&fa, &ta_tr, alone)?;
        let mc = Model::fit(&fc, &tc_tr, flat)?;
        let mn = Interference::fit(d, &sn_tr, nested_rcond)?;
        let mut row = 0;
        for (ji, j) in jobs.iter().enumerate() {
            let n_co = corunners.len().min(j.singles.len());
            if keep(&j.group) {
                row += n_co;
                continue;
            }
            let ta_pred = ma.predict(&sa[ji].x).max(MIN_TIME_S);
            for (ci, c) in corunners.iter().enumerate().take(n_co) {
                let s = &sc[row + ci];
                let ta_meas = j.alone()[usize::from(d == Target::Gpu)];
                let tc_flat = mc.predict(&s.x).max(MIN_TIME_S);
                let x = interference_factors(p, d, &j.features, ta_pred, std::slice::from_ref(c));
                let sd_nest = mn.slowdown(&x);
                flat_sd.push(tc_flat / ta_pred);
                nest_sd.push(sd_nest);
                meas_sd.push(s.y / ta_meas);
                flat_tc.push(tc_flat);
                nest_tc.push(ta_pred * sd_nest);
                meas_tc.push(s.y);
            }
            row += n_co;
        }
    }
    let flat_slowdown_msle = nested::msle(&flat_sd, &meas_sd);
    let nested_slowdown_msle = nested::msle(&nest_sd, &meas_sd);
    Ok(ColocScore {
        flat_slowdown_msle,
        nested_slowdown_msle,
        flat_r2: r2_log(&flat_tc, &meas_tc),
        nested_r2: r2_log(&nest_tc, &meas_tc),
        nested_rcond,
        chosen: if nested_slowdown_msle < flat_slowdown_msle {
            ColocForm::Nested
        } else {
            ColocForm::Flat
        },
    })
}

/// Prunes and fits the four models on `jobs`, and measures the Bubble-up tables.
pub fn train(
    targets: &Targets,
    corunners: &[CoRunner],
    jobs: &[&JobData],
    o: &TrainOptions,
) -> Result<Trained, FitError> {
    let mut models = Vec::new();
    let mut pruning = BTreeMap::new();
    let mut fits = Vec::new();
    for kind in ModelKind::ALL {
        let f = names(kind);
        let s = samples(targets, kind, corunners, jobs);
        let cands: &[Weighting] = if o.select_weighting {
            &[Weighting::Relative, Weighting::Log]
        } else {
            std::slice::from_ref(&o.weighting)
        };
        let (fit, _) = select_fit(&f, &s, o.folds, cands)?;
        let pr = prune(&f, &s, o.folds, o.max_pruned, fit)?;
        let kept: Vec<Sample> = s
            .into_iter()
            .filter(|x| pr.kept.binary_search(&x.group).is_ok())
            .collect();
        models.push(Model::fit(&f, &kept, fit)?);
        pruning.insert(kind.key().to_string(), (pr, fit));
        fits.push(fit);
    }
    let mut nested_models = [None, None];
    let mut coloc = BTreeMap::new();
    for (i, d) in [Target::Cmp, Target::Gpu].into_iter().enumerate() {
        let (chosen, rcond) = match o.coloc {
            ColocForm::Flat => (ColocForm::Flat, 0.0),
            ColocForm::Nested => {
                let sn = nested_samples(targets, d, corunners, jobs);
                (ColocForm::Nested, nested::select_rcond(d, &sn, o.folds)?.0)
            }
            ColocForm::Auto => {
                let sc = compare_coloc(targets, d, corunners, jobs, o.folds, fits[i], fits[i + 2])?;
                coloc.insert(d.name().to_string(), sc);
                (sc.chosen, sc.nested_rcond)
            }
        };
        if chosen == ColocForm::Nested {
            let sn = nested_samples(targets, d, corunners, jobs);
            nested_models[i] = Some(Interference::fit(d, &sn, rcond)?);
        }
    }
    let bubbles = corunners
        .iter()
        .map(|c| (c.name.clone(), BubbleTable::measure(targets, c)))
        .collect();
    let models: [Model; 4] = models.try_into().map_err(|_| FitError::Empty)?;
    Ok(Trained {
        predictor: Predictor {
            platform: targets.platform,
            models,
            bubbles,
            nested: nested_models,
        },
        pruning,
        coloc,
    })
}
