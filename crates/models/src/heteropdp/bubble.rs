//! Bubble-up tables (Mars et al., MICRO 2011; document 000 §6.5): per native co-runner, an
//! offline table from the pressure of a "bubble" (a memory-streaming microbenchmark on another
//! core: its host-DRAM bandwidth demand and its LLC footprint) to the co-runner's slowdown.
//! The table is measured on the platform's interference model ([`Targets::bubble_slowdown`]) and
//! read by bilinear interpolation (clamped at the edges).

use super::corunner::CoRunner;
use super::platform::Targets;
use serde::{Deserialize, Serialize};

/// Bubble bandwidth levels, GB/s.
pub const BW_LEVELS: [f64; 9] = [0.0, 1.0, 2.0, 4.0, 6.0, 8.0, 12.0, 16.0, 22.0];
/// Bubble LLC footprints, MB.
pub const LLC_LEVELS_MB: [f64; 6] = [0.0, 1.0, 2.0, 4.0, 8.0, 16.0];

/// One co-runner's table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BubbleTable {
    /// Co-runner.
    pub name: String,
    /// Bandwidth levels, GB/s (rows).
    pub bw_gbs: Vec<f64>,
    /// LLC footprints, bytes (columns).
    pub llc_bytes: Vec<f64>,
    /// Slowdown per (row, column).
    pub slowdown: Vec<Vec<f64>>,
}

fn bracket(levels: &[f64], v: f64) -> (usize, usize, f64) {
    let last = levels.len() - 1;
    if v <= levels[0] {
        return (0, 0, 0.0);
    }
    if v >= levels[last] {
        return (last, last, 0.0);
    }
    let i = levels.iter().rposition(|&l| l <= v).unwrap_or(0);
    let f = (v - levels[i]) / (levels[i + 1] - levels[i]);
    (i, i + 1, f)
}

impl BubbleTable {
    /// Measures `c`'s table against bubbles of every level.
    pub fn measure(t: &Targets, c: &CoRunner) -> BubbleTable {
        let llc: Vec<f64> = LLC_LEVELS_MB.iter().map(|m| m * 1048576.0).collect();
        let slowdown = BW_LEVELS
            .iter()
            .map(|&bw| llc.iter().map(|&l| t.bubble_slowdown(c, bw, l)).collect())
            .collect();
        BubbleTable {
            name: c.name.clone(),
            bw_gbs: BW_LEVELS.to_vec(),
            llc_bytes: llc,
            slowdown,
        }
    }

    /// Slowdown under a pressure of `bw_gbs` and `llc_bytes` (bilinear interpolation).
    pub fn lookup(&self, bw_gbs: f64, llc_bytes: f64) -> f64 {
        let (r0, r1, fr) = bracket(&self.bw_gbs, bw_gbs);
        let (c0, c1, fc) = bracket(&self.llc_bytes, llc_bytes);
        let s = &self.slowdown;
        let top = s[r0][c0] * (1.0 - fc) + s[r0][c1] * fc;
        let bot = s[r1][c0] * (1.0 - fc) + s[r1][c1] * fc;
        top * (1.0 - fr) + bot * fr
    }
}
