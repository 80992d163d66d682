//! The HeteroPDP decision rule (document 000 §6.4–6.5, reconstructed in the digest):
//!
//! ```text
//! Ta[d] = Model_alone[d](f);  Tc[d] = Model_coloc[d](f, s);  sd_ocl[d] = Tc[d]/Ta[d]  (Eq 6.6)
//! sd_j[d] = BubbleTable_j(pressure of the kernel on d)  for every co-runner j
//! Fair[d] = min(sd·w)/max(sd·w)                                                    (Eq 6.1/6.4)
//! no co-runner: argmin Ta[d];  otherwise: argmax Fair[d]
//! ```
//!
//! Pressure of the kernel (the predictor sees features and predicted times only): on the CMP a
//! bubble of the kernel's estimated DRAM bandwidth (buffer once plus the vector-memory traffic
//! that does not fit the LLC, over the predicted time) with the buffer as LLC footprint, and the
//! processor sharing of `cores + co-runners` threads; on the GPU a PCIe-rate bubble during the
//! predicted share of copy time. The other co-runners add their own bandwidth and footprint.

use super::bubble::BubbleTable;
use super::corunner::CoRunner;
use super::features::{factors, system_features, KernelFeatures, ModelKind};
use super::metrics::{slowdown, weighted_fairness};
use super::nested::{self, Interference};
use super::platform::Platform;
use super::regression::Model;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Execution target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    /// The multicore CPU.
    Cmp,
    /// The discrete GPU.
    Gpu,
}

impl Target {
    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Target::Cmp => "cmp",
            Target::Gpu => "gpu",
        }
    }
}

/// Smallest predicted time, s (a linear model can go negative).
pub const MIN_TIME_S: f64 = 1e-9;

/// The rule itself: with no fairness (no co-runner) the faster alone time; otherwise the
/// fairer target, ties going to the faster co-located time. Arrays are `[CMP, GPU]`.
pub fn choose(t_alone: [f64; 2], t_coloc: [f64; 2], fairness: Option<[f64; 2]>) -> Target {
    match fairness {
        None => {
            if t_alone[0] < t_alone[1] {
                Target::Cmp
            } else {
                Target::Gpu
            }
        }
        Some(f) => {
            if (f[0] - f[1]).abs() <= 1e-12 * f[0].abs().max(f[1].abs()) {
                if t_coloc[0] < t_coloc[1] {
                    Target::Cmp
                } else {
                    Target::Gpu
                }
            } else if f[0] > f[1] {
                Target::Cmp
            } else {
                Target::Gpu
            }
        }
    }
}

/// Everything the predictor computed for one kernel and co-runner set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// Chosen target.
    pub target: Target,
    /// Predicted alone times `[CMP, GPU]`, s.
    pub t_alone: [f64; 2],
    /// Predicted co-located times `[CMP, GPU]`, s (equal to alone without co-runners).
    pub t_coloc: [f64; 2],
    /// Predicted co-runner slowdowns per target `[CMP, GPU]`.
    pub corunner_sd: [Vec<f64>; 2],
    /// Predicted weighted fairness `[CMP, GPU]` (Eq 6.4); 1.0 without co-runners.
    pub fairness: [f64; 2],
}

/// The trained predictor: four models and the Bubble-up tables.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Predictor {
    /// Platform constants (cores, LLC, bandwidths).
    pub platform: Platform,
    /// CMP alone, GPU alone, CMP co-located, GPU co-located.
    pub models: [Model; 4],
    /// Bubble-up table per co-runner name.
    pub bubbles: BTreeMap<String, BubbleTable>,
    /// Nested co-located models `[CMP, GPU]` ([`nested`]); where present they replace models
    /// 3 and 4 (`T_coloc = T_alone × slowdown`).
    #[serde(default)]
    pub nested: [Option<Interference>; 2],
}

impl Predictor {
    fn model(&self, k: ModelKind) -> &Model {
        &self.models[ModelKind::ALL.iter().position(|&m| m == k).unwrap_or(0)]
    }

    /// Predicted time of `kind`, s (a co-located kind through its nested model where the
    /// predictor has one).
    pub fn time(&self, kind: ModelKind, k: &KernelFeatures, corunners: &[CoRunner]) -> f64 {
        let nest = match kind {
            ModelKind::CmpColoc => Some((Target::Cmp, &self.nested[0])),
            ModelKind::GpuColoc => Some((Target::Gpu, &self.nested[1])),
            _ => None,
        };
        if let Some((d, Some(m))) = nest {
            let ta = self.time(nested::alone_kind(d), k, &[]);
            if corunners.is_empty() {
                return ta;
            }
            let x = nested::interference_factors(&self.platform, d, k, ta, corunners);
            return ta * m.slowdown(&x);
        }
        let s = system_features(&self.platform, corunners);
        self.model(kind)
            .predict(&factors(kind, k, &s))
            .max(MIN_TIME_S)
    }

    /// Decides the target of a kernel with `corunners` (weights pair with them; the OpenCL
    /// process weighs 1).
    pub fn decide(&self, k: &KernelFeatures, corunners: &[CoRunner], weights: &[f64]) -> Decision {
        let ta = [
            self.time(ModelKind::CmpAlone, k, &[]),
            self.time(ModelKind::GpuAlone, k, &[]),
        ];
        if corunners.is_empty() {
            return Decision {
                target: choose(ta, ta, None),
                t_alone: ta,
                t_coloc: ta,
                corunner_sd: [Vec::new(), Vec::new()],
                fairness: [1.0, 1.0],
            };
        }
        let tc = [
            self.time(ModelKind::CmpColoc, k, corunners),
            self.time(ModelKind::GpuColoc, k, corunners),
        ];
        let p = &self.platform;
        let llc = p.llc_bytes;
        let cmp_bw = nested::cmp_dram_bytes(p, k) / ta[0] / 1e9;
        let ps = ((p.cores as f64 + corunners.len() as f64) / p.cores as f64).max(1.0);
        let fx = nested::copy_share(p, k, ta[1]);
        let mut sd = [Vec::new(), Vec::new()];
        for (j, c) in corunners.iter().enumerate() {
            let (obw, ollc) = corunners
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != j)
                .fold((0.0, 0.0), |(b, l), (_, o)| {
                    (b + o.dram_gbs, l + o.footprint_bytes.min(llc))
                });
            let Some(tab) = self.bubbles.get(&c.name) else {
                sd[0].push(ps);
                sd[1].push(1.0);
                continue;
            };
            sd[0].push(tab.lookup(cmp_bw + obw, k.buffer_bytes.min(llc) + ollc) * ps);
            let busy = tab.lookup(p.pcie_gbs + obw, ollc);
            let quiet = tab.lookup(obw, ollc);
            sd[1].push(1.0 / (fx / busy + (1.0 - fx) / quiet));
        }
        let mut fair = [1.0, 1.0];
        for d in 0..2 {
            let mut s = vec![slowdown(tc[d], ta[d])];
            s.extend(&sd[d]);
            let mut w = vec![1.0];
            w.extend(
                weights
                    .iter()
                    .copied()
                    .chain(std::iter::repeat(1.0))
                    .take(corunners.len()),
            );
            fair[d] = weighted_fairness(&s, &w);
        }
        Decision {
            target: choose(ta, tc, Some(fair)),
            t_alone: ta,
            t_coloc: tc,
            corunner_sd: sd,
            fairness: fair,
        }
    }
}
