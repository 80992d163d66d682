//! Chapter III: the empirical GPU power model (Isci–Martonosi style, thesis §3.2) and its Fermi
//! GTX580 extension (§3.6).
//!
//! Runtime power is a sum over architectural units of `MaxPower × AccessRate` (Eqs 36–41), with
//! the special-linear transform for the units marked so in Table 8, scaled by the number of active
//! SMs (log model, Eqs 44–48, for GT200; linear with an activation step for Fermi), plus the idle
//! power (Eq 35). Access rates come from dynamic per-warp unit counts and the execution time
//! (Eq 40/61), so the same code serves predicted times (IPP) and simulated times (activity
//! counters of the timing model).

use serde::{Deserialize, Serialize};

/// Architectural units of Table 7 (GT200) and Table 11 (Fermi).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// Integer arithmetic unit (`RP_Int`).
    Int,
    /// Floating-point unit (`RP_Fp`).
    Fp,
    /// Special-function unit (`RP_Sfu`).
    Sfu,
    /// Logic / move / convert / compare ALU (`RP_Alu`).
    Alu,
    /// Texture cache (`RP_Texture_Cache`).
    TextureCache,
    /// Constant cache (`RP_Const_Cache`).
    ConstCache,
    /// Shared memory (`RP_Shared`).
    Shared,
    /// Register file (`RP_Reg`).
    Reg,
    /// Fetch / decode / schedule (`RP_FDS`): every instruction.
    Fds,
    /// L1 data cache (Fermi only, Table 11).
    L1,
    /// L2 cache (Fermi only, Table 11; one unit shared by all SMs, counted with memory).
    L2,
    /// Global memory (`RP_GlobalMem`, off chip).
    GlobalMem,
    /// Local memory (`RP_LocalMem`, off chip).
    LocalMem,
}

impl Unit {
    /// Every unit, in report order.
    pub const ALL: [Unit; 13] = [
        Unit::Int,
        Unit::Fp,
        Unit::Sfu,
        Unit::Alu,
        Unit::TextureCache,
        Unit::ConstCache,
        Unit::Shared,
        Unit::Reg,
        Unit::Fds,
        Unit::L1,
        Unit::L2,
        Unit::GlobalMem,
        Unit::LocalMem,
    ];

    /// Whether the unit belongs to an SM (Eq 37) rather than to the memory side (Eq 43).
    pub const fn in_sm(self) -> bool {
        !matches!(self, Unit::L2 | Unit::GlobalMem | Unit::LocalMem)
    }

    /// Index into a [`UnitCounts`] array.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Name as in the parameter files and JSON.
    pub const fn name(self) -> &'static str {
        match self {
            Unit::Int => "int",
            Unit::Fp => "fp",
            Unit::Sfu => "sfu",
            Unit::Alu => "alu",
            Unit::TextureCache => "texture_cache",
            Unit::ConstCache => "const_cache",
            Unit::Shared => "shared",
            Unit::Reg => "reg",
            Unit::Fds => "fds",
            Unit::L1 => "l1",
            Unit::L2 => "l2",
            Unit::GlobalMem => "global_mem",
            Unit::LocalMem => "local_mem",
        }
    }
}

/// Dynamic accesses per unit (`DAC_per_th`, Eq 41): per-warp (= per-thread) instruction counts,
/// indexed by [`Unit::index`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct UnitCounts(pub [f64; 13]);

impl UnitCounts {
    /// The count of `u`.
    pub fn get(&self, u: Unit) -> f64 {
        self.0[u.index()]
    }
    /// Adds `v` to the count of `u`.
    pub fn add(&mut self, u: Unit, v: f64) {
        self.0[u.index()] += v;
    }
    /// Every count multiplied by `k`.
    pub fn scaled(&self, k: f64) -> UnitCounts {
        let mut out = *self;
        out.0.iter_mut().for_each(|x| *x *= k);
        out
    }
}

/// One row of Table 8 / Table 11.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnitPower {
    /// `MaxPower_comp` in W (per SM for SM units, whole device for memory units).
    pub max_w: f64,
    /// Whether `AccessRate` is replaced by the special-linear transform (Table 8 "Spec.Linear").
    pub spec_linear: bool,
}

/// How runtime power grows with the number of active SMs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SmScaling {
    /// GT200 without power gating: Eqs (44)–(48), factor `log10(α × Active_SMs + β)`,
    /// `α = (10 − β)/Num_SMs`; the memory power follows the same factor (erratum 11).
    Log {
        /// β of Eq (47) (1.1 for GTX280).
        beta: f64,
    },
    /// Fermi GTX580 (§3.6): power linear in active SMs, plus a constant activation step when a
    /// kernel runs.
    Linear,
}

/// Power parameters of one device (Table 8, Table 11 and the measured constants).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PowerParams {
    /// `IdlePower` in W (GTX280 83, GTX580 27).
    pub idle_w: f64,
    /// Constant step when a kernel is launched, W (GTX580 "Activation" 64; 0 on GT200 where it is
    /// part of `RP_Const_SM`).
    #[serde(default)]
    pub activation_w: f64,
    /// `RP_Const_SM`: constant power per active SM, W (GTX280 0.813).
    #[serde(default)]
    pub const_sm_w: f64,
    /// Active-SM scaling.
    pub scaling: SmScaling,
    /// Per-unit MaxPower, keyed by unit name; units absent do not exist on the device.
    pub units: std::collections::BTreeMap<Unit, UnitPower>,
}

/// The special-linear transform of §3.2.4: `f(AR) = 0.1365 × ln(AR) + 1.001375`.
/// Erratum 9: negative below AR ≈ 6.5e-4 and undefined at 0, so it is clamped to `max(0, ·)` and is
/// 0 for an unused unit.
pub fn special_linear(ar: f64) -> f64 {
    if ar <= 0.0 {
        0.0
    } else {
        (0.1365 * ar.ln() + 1.001375).max(0.0)
    }
}

/// The active-SM factor `log10(α × Active_SMs + β)` of Eq (44), with `α = (10 − β)/Num_SMs`
/// (Eq 46); 1 when every SM is active.
pub fn log_factor(active_sms: f64, num_sms: f64, beta: f64) -> f64 {
    let alpha = (10.0 - beta) / num_sms;
    (alpha * active_sms + beta).log10()
}

/// `Warps_per_SM` of Eq (42): warps one SM executes over the whole kernel.
pub fn warps_per_sm(threads_per_block: f64, blocks: f64, active_sms: f64) -> f64 {
    threads_per_block / 32.0 * (blocks / active_sms)
}

/// Access rates of Eq (40)/(61): `DAC × Warps_per_SM / (Exec_cycles / Issue_cycles)`, clamped to
/// [0, 1] (the thesis's normalisation makes 1 the maximum; `Issue_cycles` is 4 on GT200).
pub fn access_rates(
    dac: &UnitCounts,
    warps_per_sm: f64,
    exec_cycles: f64,
    issue_cycles: f64,
) -> UnitCounts {
    let slots = exec_cycles / issue_cycles;
    let mut out = UnitCounts::default();
    if slots > 0.0 {
        for (o, d) in out.0.iter_mut().zip(dac.0.iter()) {
            *o = (d * warps_per_sm / slots).clamp(0.0, 1.0);
        }
    }
    out
}

/// Result of one power evaluation, all in W.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PowerBreakdown {
    /// Per-unit runtime power per SM (SM units) or for the device (memory units), before the
    /// active-SM scaling, keyed by unit name.
    pub units: std::collections::BTreeMap<String, f64>,
    /// `Σ SM_Component` (Eq 37) of one SM, including `RP_Const_SM`.
    pub sm_component_w: f64,
    /// `Max_SM = Num_SMs × Σ SM_Component` (Eq 45).
    pub max_sm_w: f64,
    /// `RP_Memory` (Eq 43), plus L2 on Fermi.
    pub memory_w: f64,
    /// Active-SM scaling factor applied (Eq 44; `Active/Num` reported for the linear model).
    pub sm_factor: f64,
    /// `Runtime_power` (Eq 48 or the Fermi linear form), including the activation step.
    pub runtime_w: f64,
    /// `IdlePower`.
    pub idle_w: f64,
    /// `GPU_power = Runtime_power + IdlePower` (Eq 35).
    pub total_w: f64,
}

impl PowerParams {
    /// Sum of the per-SM `MaxPower` values plus `RP_Const_SM` (5.063 W on GTX280).
    pub fn sum_sm_max_w(&self) -> f64 {
        self.units
            .iter()
            .filter(|(u, _)| u.in_sm())
            .map(|(_, p)| p.max_w)
            .sum::<f64>()
            + self.const_sm_w
    }

    /// Runtime and total power for access rates `ar` with `active_sms` of `num_sms` SMs active.
    pub fn evaluate(&self, ar: &UnitCounts, active_sms: f64, num_sms: f64) -> PowerBreakdown {
        self.evaluate_with(ar, active_sms, num_sms, true)
    }

    /// [`Self::evaluate`] without the per-unit map (`units` left empty; every total identical):
    /// the allocation-free form the IPP sweep evaluates for every launch and SM count.
    pub fn evaluate_totals(
        &self,
        ar: &UnitCounts,
        active_sms: f64,
        num_sms: f64,
    ) -> PowerBreakdown {
        self.evaluate_with(ar, active_sms, num_sms, false)
    }

    fn evaluate_with(
        &self,
        ar: &UnitCounts,
        active_sms: f64,
        num_sms: f64,
        per_unit: bool,
    ) -> PowerBreakdown {
        let mut units = std::collections::BTreeMap::new();
        let mut sm = self.const_sm_w;
        let mut mem = 0.0;
        for (&u, p) in &self.units {
            let rate = ar.get(u);
            let eff = if p.spec_linear {
                special_linear(rate)
            } else {
                rate
            };
            let w = p.max_w * eff; // Eq (39)
            if per_unit {
                units.insert(u.name().to_string(), w);
            }
            if u.in_sm() {
                sm += w;
            } else {
                mem += w;
            }
        }
        let max_sm = num_sms * sm; // Eq (45)
        let (factor, runtime) = match self.scaling {
            SmScaling::Log { beta } => {
                let f = log_factor(active_sms, num_sms, beta);
                (f, (max_sm + mem) * f) // Eq (48)
            }
            SmScaling::Linear => {
                let f = active_sms / num_sms;
                (f, self.activation_w + sm * active_sms + mem)
            }
        };
        PowerBreakdown {
            units,
            sm_component_w: sm,
            max_sm_w: max_sm,
            memory_w: mem,
            sm_factor: factor,
            runtime_w: runtime,
            idle_w: self.idle_w,
            total_w: runtime + self.idle_w, // Eq (35)
        }
    }
}

/// Power from simulation (item 6 of the models issue): the same model fed by a timing run's
/// activity counters instead of a predicted time. `totals` are whole-kernel per-unit access
/// counts (warp instructions, as the analyser or the timing model's counters give them),
/// `cycles` the simulated kernel cycles in the SM clock, `active_sms` the SMs that ran CTAs.
/// Access rates follow Eq (40) with `DAC × Warps_per_SM = totals / active_sms`.
pub fn from_activity(
    p: &PowerParams,
    totals: &UnitCounts,
    cycles: f64,
    active_sms: f64,
    num_sms: f64,
    issue_cycles: f64,
) -> PowerBreakdown {
    let per_sm = totals.scaled(1.0 / active_sms.max(1.0));
    let ar = access_rates(&per_sm, 1.0, cycles, issue_cycles);
    p.evaluate(&ar, active_sms, num_sms)
}
