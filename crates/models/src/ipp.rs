//! Chapter III §3.3: IPP, the integrated power and performance model — performance per watt
//! (Eq 62), the optimal number of active SMs (Eq 63 and the GIPS/W sweep), and the energy of
//! running on fewer SMs, with and without power gating (§3.3.3).
//!
//! Erratum 12: GIPS counts *warp* instructions (one per warp per dynamic instruction); relative
//! results (optimal SMs, savings) do not depend on the choice. Erratum 19: the power-gating
//! projection is the document's linear one, `P_all / Num_SMs` per active SM and no idle power.

use crate::mwp_cwp::MwpCwp;
use serde::{Deserialize, Serialize};

/// Eq (63): the optimal number of SMs from one Chapter II evaluation on all `max_sms` SMs.
/// Returns `max_sms` when MWP or CWP is clamped by N, when MWP > CWP, or when MWP is below
/// `MWP_peak_BW`; else `Mem_Bandwidth / (BW_per_warp × N)`, rounded down and kept in
/// `[1, max_sms]`.
pub fn optimal_sms_eq63(m: &MwpCwp, bandwidth_gbs: f64, max_sms: u32) -> u32 {
    let mwp_is_n = m.mwp_limit == crate::mwp_cwp::MwpLimit::Warps;
    let cwp_is_n = m.cwp_full >= m.n;
    if mwp_is_n || cwp_is_n || m.mwp > m.cwp || m.mwp < m.mwp_peak_bw {
        return max_sms;
    }
    let v = bandwidth_gbs / (m.bw_per_warp_gbs * m.n);
    (v.floor() as u32).clamp(1, max_sms)
}

/// One point of the active-SM sweep.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    /// Active SMs.
    pub active_sms: u32,
    /// Predicted execution time, s.
    pub time_s: f64,
    /// GPU power (runtime + idle), W.
    pub power_w: f64,
    /// Runtime power only, W.
    pub runtime_w: f64,
    /// Giga warp-instructions per second.
    pub gips: f64,
    /// GIPS per watt (Eq 62) with GPU power.
    pub gips_per_w: f64,
}

/// Energies of §3.3.3 for the optimal and the full configuration, J.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EnergySavings {
    /// Optimal number of SMs (highest GIPS/W of the sweep).
    pub optimal_sms: u32,
    /// Energy saving with total GPU power ("Runtime+Idle"), fraction of the all-SM energy.
    pub saving_runtime_idle: f64,
    /// Energy saving with runtime power only ("Runtime").
    pub saving_runtime: f64,
    /// Energy saving under the linear power-gating projection ("Powergating").
    pub saving_power_gating: f64,
}

/// Picks the highest GIPS/W point (ties: fewer SMs) and computes the §3.3.3 savings against the
/// last point (all usable SMs). `points` must be ordered by active SMs, the full configuration
/// last; the power-gating projection spreads the last point's power evenly over its SMs.
pub fn savings(points: &[SweepPoint]) -> Option<EnergySavings> {
    let all = points.last()?;
    let best = points.iter().fold(None::<&SweepPoint>, |b, p| match b {
        Some(b) if b.gips_per_w >= p.gips_per_w => Some(b),
        _ => Some(p),
    })?;
    let e = |p: &SweepPoint| p.power_w * p.time_s;
    let er = |p: &SweepPoint| p.runtime_w * p.time_s;
    let num = all.active_sms as f64;
    // Power gating: all-SM GPU power spread linearly, idle SMs cost nothing.
    let eg = |p: &SweepPoint| all.power_w / num * p.active_sms as f64 * p.time_s;
    let frac = |a: f64, b: f64| if b > 0.0 { 1.0 - a / b } else { 0.0 };
    Some(EnergySavings {
        optimal_sms: best.active_sms,
        saving_runtime_idle: frac(e(best), e(all)),
        saving_runtime: frac(er(best), er(all)),
        saving_power_gating: frac(eg(best), eg(all)),
    })
}

/// Energy `E = P × T` (Eq 94), J.
pub fn energy_j(power_w: f64, time_s: f64) -> f64 {
    power_w * time_s
}
