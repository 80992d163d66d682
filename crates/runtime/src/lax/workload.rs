//! LAX workloads: kernel costs (calibration table), job templates and Table 6.3 benchmarks.
//!
//! The calibration table is a TOML data file (`data/lax_calibration.toml`, embedded at build time).
//! It is the hook for the timing model: [`Calibration::recalibrate`] replaces per-WG costs with
//! those a [`KernelCostSource`] reports (for example, costs measured by simulating the kernels
//! written in `workloads/` on the cycle-level model).

use crate::engine::{SimRng, Time, US};
use crate::RuntimeError;
use serde::Deserialize;
use std::collections::BTreeMap;

/// The embedded default calibration table.
pub const BUILTIN_CALIBRATION: &str = include_str!("../../data/lax_calibration.toml");

/// Benchmarks of Table 6.3 in the document's table order.
pub const BENCHMARKS: [&str; 8] = [
    "LSTM", "GRU", "VAN", "IPV6", "CUCKOO", "GMM", "STEM", "HYBRID",
];

/// Shape and cost of one kernel (one row of the calibration table).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KernelCost {
    /// Threads per workgroup.
    pub wg_threads: u32,
    /// Workgroups per launch.
    pub wgs: u32,
    /// 32-bit vector registers per thread.
    pub vgprs: u32,
    /// Local data share (LDS) bytes per workgroup.
    pub lds_bytes: u32,
    /// Isolated, uncontended duration of one workgroup (ns).
    pub wg_ns: u64,
    /// Share of the GPU's memory bandwidth one resident WG draws at full speed (0..1).
    pub bw: f64,
}

/// A job template: prologue kernels, `seq_len` repetitions of `step`, epilogue.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Template {
    /// `(kernel, count)` pairs launched first.
    #[serde(default)]
    pub prologue: Vec<(String, u32)>,
    /// Kernels of one recurrent time step, in order.
    #[serde(default)]
    pub step: Vec<String>,
    /// Inclusive range of the sequence length (uniform); absent for single-kernel jobs.
    #[serde(default)]
    pub seq_len: Option<(u32, u32)>,
}

/// One benchmark of Table 6.3.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BenchmarkSpec {
    /// Relative deadline (µs).
    pub deadline_us: u64,
    /// Arrival rates (jobs/s) at the low, medium and high rate.
    pub rates: [f64; 3],
    /// Templates a job is drawn from (uniformly).
    pub templates: Vec<String>,
}

/// The whole calibration table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Calibration {
    /// Kernel costs by name.
    pub kernels: BTreeMap<String, KernelCost>,
    /// Job templates by name.
    pub templates: BTreeMap<String, Template>,
    /// Benchmarks by name.
    pub benchmarks: BTreeMap<String, BenchmarkSpec>,
}

/// A source of per-kernel costs that can replace rows of the calibration table (the hook for
/// timing-model-derived costs).
pub trait KernelCostSource {
    /// The cost of `kernel` given its calibrated shape, or `None` to keep the table's row.
    fn cost(&self, kernel: &str, table: &KernelCost) -> Option<KernelCost>;
}

impl Calibration {
    /// The embedded table.
    pub fn builtin() -> Self {
        Self::from_toml(BUILTIN_CALIBRATION, "<builtin lax_calibration.toml>")
            .expect("builtin calibration is valid")
    }

    /// Parses and validates a table; `origin` names the file in errors.
    pub fn from_toml(text: &str, origin: &str) -> Result<Self, RuntimeError> {
        let cal: Calibration =
            toml::from_str(text).map_err(|e| RuntimeError::Config(format!("{origin}: {e}")))?;
        cal.validate(origin)?;
        Ok(cal)
    }

    fn validate(&self, origin: &str) -> Result<(), RuntimeError> {
        let err = |m: String| Err(RuntimeError::Config(format!("{origin}: {m}")));
        for (name, k) in &self.kernels {
            if k.wg_threads == 0 || k.wg_threads > 1024 || k.wgs == 0 || k.wg_ns == 0 {
                return err(format!(
                    "kernels.{name}: wg_threads must be 1..=1024, wgs and wg_ns > 0"
                ));
            }
            if !(0.0..=1.0).contains(&k.bw) {
                return err(format!("kernels.{name}.bw: must be within 0..=1"));
            }
        }
        for (name, t) in &self.templates {
            let names = t.prologue.iter().map(|(k, _)| k).chain(t.step.iter());
            for k in names {
                if !self.kernels.contains_key(k) {
                    return err(format!("templates.{name}: unknown kernel `{k}`"));
                }
            }
            if let Some((lo, hi)) = t.seq_len {
                if lo > hi || t.step.is_empty() {
                    return err(format!(
                        "templates.{name}.seq_len: needs lo <= hi and a step"
                    ));
                }
            }
        }
        for (name, b) in &self.benchmarks {
            if b.templates.is_empty() {
                return err(format!("benchmarks.{name}.templates: empty"));
            }
            for t in &b.templates {
                if !self.templates.contains_key(t) {
                    return err(format!("benchmarks.{name}: unknown template `{t}`"));
                }
            }
            if b.rates.iter().any(|r| *r <= 0.0) || b.deadline_us == 0 {
                return err(format!("benchmarks.{name}: rates and deadline must be > 0"));
            }
        }
        Ok(())
    }

    /// Replaces kernel rows with the costs `src` provides.
    pub fn recalibrate(&mut self, src: &dyn KernelCostSource) {
        for (name, k) in self.kernels.iter_mut() {
            if let Some(c) = src.cost(name, k) {
                *k = c;
            }
        }
    }

    /// Dense kernel ids: index into [`Calibration::kernel_list`].
    pub fn kernel_list(&self) -> Vec<(&str, &KernelCost)> {
        self.kernels.iter().map(|(n, k)| (n.as_str(), k)).collect()
    }

    fn kernel_id(&self, name: &str) -> usize {
        self.kernels
            .keys()
            .position(|k| k == name)
            .expect("validated kernel name")
    }
}

/// Arrival-rate level of Table 6.3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rate {
    /// Low arrival rate.
    Low,
    /// Medium arrival rate.
    Medium,
    /// High arrival rate.
    High,
}

impl Rate {
    /// Index into [`BenchmarkSpec::rates`].
    pub fn index(self) -> usize {
        self as usize
    }
    /// Lower-case name.
    pub fn name(self) -> &'static str {
        ["low", "medium", "high"][self.index()]
    }
    /// Parses `low|medium|high`.
    pub fn parse(s: &str) -> Result<Self, RuntimeError> {
        match s {
            "low" => Ok(Rate::Low),
            "medium" => Ok(Rate::Medium),
            "high" => Ok(Rate::High),
            _ => Err(RuntimeError::UnknownName {
                what: "rate",
                name: s.to_string(),
                known: "low, medium, high".into(),
            }),
        }
    }
}

/// One kernel launch of a job: dense kernel id and WG count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Launch {
    /// Dense kernel id (index into [`Calibration::kernel_list`]).
    pub kernel: usize,
    /// Workgroups of this launch.
    pub wgs: u32,
}

/// A job: a chain of dependent kernels on one stream.
#[derive(Debug, Clone, PartialEq)]
pub struct JobSpec {
    /// Host arrival time (ns).
    pub arrival: Time,
    /// Relative deadline (ns).
    pub deadline: Time,
    /// The kernels, in order.
    pub kernels: Vec<Launch>,
}

/// Builds the jobs of one template.
fn build_kernels(cal: &Calibration, t: &Template, rng: &mut SimRng) -> Vec<Launch> {
    let mut out = Vec::new();
    let mut push = |name: &str| {
        let id = cal.kernel_id(name);
        out.push(Launch {
            kernel: id,
            wgs: cal.kernels[name].wgs,
        });
    };
    for (k, n) in &t.prologue {
        for _ in 0..*n {
            push(k);
        }
    }
    if let Some((lo, hi)) = t.seq_len {
        let l = rng.range(lo as u64, hi as u64);
        for _ in 0..l {
            for k in &t.step {
                push(k);
            }
        }
    }
    out
}

/// Generates `n` jobs of `bench` with Poisson arrivals at `rate` (deterministic in `seed`).
pub fn generate_jobs(
    cal: &Calibration,
    bench: &str,
    rate: Rate,
    n: usize,
    seed: u64,
) -> Result<Vec<JobSpec>, RuntimeError> {
    let spec = cal
        .benchmarks
        .get(bench)
        .ok_or_else(|| RuntimeError::UnknownName {
            what: "benchmark",
            name: bench.to_string(),
            known: cal
                .benchmarks
                .keys()
                .cloned()
                .collect::<Vec<_>>()
                .join(", "),
        })?;
    let mut rng = SimRng::new(seed);
    let mean_gap = 1e9 / spec.rates[rate.index()];
    let mut t = 0.0;
    let mut jobs = Vec::with_capacity(n);
    for i in 0..n {
        if i > 0 {
            t += rng.exp(mean_gap);
        }
        let pick = rng.range(0, spec.templates.len() as u64 - 1) as usize;
        let tmpl = &cal.templates[&spec.templates[pick]];
        jobs.push(JobSpec {
            arrival: t as Time,
            deadline: spec.deadline_us * US,
            kernels: build_kernels(cal, tmpl, &mut rng),
        });
    }
    Ok(jobs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_table_covers_table_6_3() {
        let cal = Calibration::builtin();
        for b in BENCHMARKS {
            assert!(cal.benchmarks.contains_key(b), "{b}");
        }
        assert_eq!(cal.benchmarks["IPV6"].deadline_us, 40);
        assert_eq!(cal.benchmarks["IPV6"].rates, [16000.0, 32000.0, 64000.0]);
        assert_eq!(cal.benchmarks["GMM"].deadline_us, 3000);
    }

    #[test]
    fn lstm_at_13_steps_has_102_kernels() {
        // Table 3.1: an LSTM job at sequence length 13 makes 102 kernel calls.
        let cal = Calibration::builtin();
        let mut t = cal.templates["lstm"].clone();
        t.seq_len = Some((13, 13));
        let ks = build_kernels(&cal, &t, &mut SimRng::new(1));
        assert_eq!(ks.len(), 102);
    }

    #[test]
    fn unknown_kernel_is_a_clear_error() {
        let bad = BUILTIN_CALIBRATION.replace("step = [\"van_gemm\"", "step = [\"nope\"");
        let e = Calibration::from_toml(&bad, "x.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("x.toml") && e.contains("nope"), "{e}");
    }
}
