//! Chapter III §3.2.6–3.2.7: the RC temperature model and temperature-dependent static power.
//!
//! Erratum 10: with Table 9, Eq (53) gives a plausible *rise over idle* (δ of Eq 51), not an
//! absolute temperature (INT +11 °C → 68 °C, SVM +21 °C → 78 °C from a 57 °C idle), so
//! [`ThermalParams::max_rise_c`] returns δ directly. γ (Eq 52) is taken from the temperature reached
//! at the end of execution. Times are in seconds ("saturated after 600 s").

use serde::{Deserialize, Serialize};

/// Table 9 and the measured constants of GTX280.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThermalParams {
    /// Idle (cold-start) chip temperature, °C (57).
    pub idle_temp_c: f64,
    /// μ of Eq (53), °C/W (0.120).
    pub mu: f64,
    /// λ of Eq (53), °C (5.5).
    pub lambda: f64,
    /// ρ of Eq (53), °C per unit memory intensity (21.505).
    pub rho: f64,
    /// RC_Rise, s (35).
    pub rc_rise_s: f64,
    /// RC_Decay, s (60).
    pub rc_decay_s: f64,
    /// σ of Eq (56), W/°C (10/22: 10 W of leakage over a 22 °C rise).
    pub sigma_w_per_c: f64,
}

/// `MemAccess_intensity = Memory_Insts / NonMemory_Insts` (Eq 54); 0 without non-memory insts.
pub fn mem_access_intensity(memory_insts: f64, non_memory_insts: f64) -> f64 {
    if non_memory_insts > 0.0 {
        memory_insts / non_memory_insts
    } else {
        0.0
    }
}

/// Fraction of the final rise reached after `t` seconds: `1 − e^{−t/RC}` (Eq 49).
pub fn rc_rise_fraction(t_s: f64, rc_s: f64) -> f64 {
    1.0 - (-t_s / rc_s).exp()
}

impl ThermalParams {
    /// δ = `μ × Runtime_Power + λ + ρ × MemAccess_intensity` (Eqs 51, 53; erratum 10), °C.
    pub fn max_rise_c(&self, runtime_power_w: f64, mem_intensity: f64) -> f64 {
        (self.mu * runtime_power_w + self.lambda + self.rho * mem_intensity).max(0.0)
    }

    /// `Temperature_rise(t) = Idle_temp + δ(1 − e^{−t/RC_Rise})` (Eq 49), °C.
    pub fn temperature_rise(&self, delta_c: f64, t_s: f64) -> f64 {
        self.idle_temp_c + delta_c * rc_rise_fraction(t_s, self.rc_rise_s)
    }

    /// `Temperature_decay(t) = Idle_temp + γ e^{−t/RC_Decay}` (Eq 50), γ = temperature at the end of
    /// execution minus idle (Eq 52), `t` counted from the end of execution, °C.
    pub fn temperature_decay(&self, end_temp_c: f64, t_s: f64) -> f64 {
        let gamma = end_temp_c - self.idle_temp_c;
        self.idle_temp_c + gamma * (-t_s / self.rc_decay_s).exp()
    }

    /// `Runtime_power(t) = Runtime_power_0 + σ × (Temperature(t) − Idle_temp)` (Eqs 56–57), W.
    pub fn runtime_power_at(&self, runtime_power_0_w: f64, temperature_c: f64) -> f64 {
        runtime_power_0_w + self.sigma_w_per_c * (temperature_c - self.idle_temp_c)
    }

    /// Static-power increase after a run of `t` seconds from cold start, W (σ × δ × rise fraction).
    pub fn static_increase_w(&self, runtime_power_0_w: f64, mem_intensity: f64, t_s: f64) -> f64 {
        let delta = self.max_rise_c(runtime_power_0_w, mem_intensity);
        self.sigma_w_per_c * delta * rc_rise_fraction(t_s, self.rc_rise_s)
    }

    /// Energy of a run of `t` seconds at cold-start runtime power `p0` plus `idle_w`, with the
    /// temperature-dependent static power integrated over the RC rise (Eqs 49, 55–57), J.
    pub fn energy_j(&self, p0_w: f64, idle_w: f64, mem_intensity: f64, t_s: f64) -> f64 {
        let delta = self.max_rise_c(p0_w, mem_intensity);
        let rc = self.rc_rise_s;
        // ∫0^t σ δ (1 − e^{−τ/RC}) dτ = σ δ (t − RC (1 − e^{−t/RC}))
        let leak = self.sigma_w_per_c * delta * (t_s - rc * (1.0 - (-t_s / rc).exp()));
        (p0_w + idle_w) * t_s + leak
    }
}
