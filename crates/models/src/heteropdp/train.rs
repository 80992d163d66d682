//! Training HeteroPDP on measured (modelled) runs: the four regression models fitted on the
//! training kernels after K-fold pruning (claim 31), and the Bubble-up tables.

use super::bubble::BubbleTable;
use super::corunner::CoRunner;
use super::decide::Predictor;
use super::features::{factors, names, system_features, KernelFeatures, ModelKind};
use super::platform::{Measured, Targets};
use super::regression::{prune, select_rcond, Fit, FitError, Model, Pruning, Sample, Weighting};
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
    /// Row weighting of the least squares.
    pub weighting: Weighting,
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            folds: 32,
            max_pruned: 0.3,
            weighting: Weighting::Relative,
        }
    }
}

/// The trained predictor and how each model's training set was pruned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trained {
    /// The predictor.
    pub predictor: Predictor,
    /// Pruning of models 1–4 (keys `cmp_alone`, ...) and the SVD truncation chosen by
    /// cross-validation.
    pub pruning: BTreeMap<String, (Pruning, f64)>,
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

/// Prunes and fits the four models on `jobs`, and measures the Bubble-up tables.
pub fn train(
    targets: &Targets,
    corunners: &[CoRunner],
    jobs: &[&JobData],
    o: &TrainOptions,
) -> Result<Trained, FitError> {
    let mut models = Vec::new();
    let mut pruning = BTreeMap::new();
    for kind in ModelKind::ALL {
        let f = names(kind);
        let s = samples(targets, kind, corunners, jobs);
        let (rcond, _) = select_rcond(&f, &s, o.folds, o.weighting)?;
        let fit = Fit {
            weighting: o.weighting,
            rcond,
        };
        let pr = prune(&f, &s, o.folds, o.max_pruned, fit)?;
        let kept: Vec<Sample> = s
            .into_iter()
            .filter(|x| pr.kept.binary_search(&x.group).is_ok())
            .collect();
        models.push(Model::fit(&f, &kept, fit)?);
        pruning.insert(kind.key().to_string(), (pr, rcond));
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
        },
        pruning,
    })
}
