//! Heterogeneous CPU/GPU execution (Chapter V §4.11) and the energy-efficiency analysis of
//! Appendix A (Eqs 94–117).
//!
//! The split rule is not spelled out in the document; the presumed one is used: each device gets a
//! share of the work proportional to its predicted throughput, so both finish together
//! (`GPU share = Perf_GPU / (Perf_CPU + Perf_GPU)`).

use serde::{Deserialize, Serialize};

/// A CPU/GPU work split.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Split {
    /// Fraction of the work on the CPU (0 to 1).
    pub cpu_share: f64,
    /// Fraction of the work on the GPU.
    pub gpu_share: f64,
}

/// Throughput-proportional split (§4.11, presumed rule).
pub fn split(perf_cpu: f64, perf_gpu: f64) -> Split {
    let sum = perf_cpu + perf_gpu;
    if sum <= 0.0 {
        return Split {
            cpu_share: 0.5,
            gpu_share: 0.5,
        };
    }
    Split {
        cpu_share: perf_cpu / sum,
        gpu_share: perf_gpu / sum,
    }
}

/// Eq (103): energy efficiency `E = (P_o / P_N) × S` with speed-up `S = T_o / T_N` (Eq 95).
pub fn energy_efficiency(p_o: f64, t_o: f64, p_n: f64, t_n: f64) -> f64 {
    (p_o / p_n) * (t_o / t_n)
}

/// One configuration in the scaling law of Eqs (104)–(109).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Config {
    /// C: cores.
    pub cores: f64,
    /// ζ: throughput per core.
    pub zeta: f64,
    /// F: frequency.
    pub freq: f64,
    /// D: data size.
    pub data: f64,
    /// φ: benchmark penalty (saturation...), ≥ 1.
    pub phi: f64,
    /// λ: benchmark power factor.
    pub lambda: f64,
    /// B: baseline (idle + static) power.
    pub base_w: f64,
}

impl Config {
    /// Eq (104): `T ∝ D φ / (C ζ F)`.
    pub fn time(&self) -> f64 {
        self.data * self.phi / (self.cores * self.zeta * self.freq)
    }
    /// Eq (107): `P ∝ C F³ λ + B`.
    pub fn power(&self) -> f64 {
        self.cores * self.freq.powi(3) * self.lambda + self.base_w
    }
}

/// Eq (109): energy efficiency of configuration `n` over baseline `o`.
pub fn efficiency_scaling(o: &Config, n: &Config) -> f64 {
    (o.power() / n.power()) * (o.time() / n.time())
}

/// Eqs (110)–(114): energy efficiency of running a share `gpu_share` of the baseline's work on the
/// GPU and the rest on the CPU, against the CPU-only baseline `cpu` (whose `base_w` is `B_o`: the
/// system idle with both devices installed, counted once).
pub fn hetero_efficiency(cpu: &Config, gpu: &Config, gpu_share: f64) -> f64 {
    let t_o = cpu.time();
    let p_o = cpu.power();
    let mut c = *cpu;
    c.data = cpu.data * (1.0 - gpu_share);
    let mut g = *gpu;
    g.data = cpu.data * gpu_share;
    let t_n = c.time().max(g.time()); // (110), (113)
    let p_n = cpu.cores * cpu.freq.powi(3) * cpu.lambda * (c.data > 0.0) as u8 as f64
        + gpu.cores * gpu.freq.powi(3) * gpu.lambda * (g.data > 0.0) as u8 as f64
        + cpu.base_w; // (111), (114)
    (p_o / p_n) * (t_o / t_n) // (112)
}

/// Eqs (115)–(117): the second difference of `E(S)` over evenly spaced samples; the curve is linear
/// when every second difference is (numerically) zero. Returns the largest |Δ²E| relative to the
/// largest |E|.
pub fn nonlinearity(e: &[f64]) -> f64 {
    let scale = e
        .iter()
        .fold(0.0_f64, |m, v| m.max(v.abs()))
        .max(f64::MIN_POSITIVE);
    e.windows(3)
        .map(|w| (w[2] - 2.0 * w[1] + w[0]).abs())
        .fold(0.0, f64::max)
        / scale
}
