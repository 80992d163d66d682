//! Power from simulation (models issue, item 6): the Chapter III power model
//! ([`crate::power`]) fed by a timing run's activity counters instead of a predicted time.
//!
//! Instruction-side unit counts (Table 7 / Table 11: INT, FP, SFU, ALU, FDS, register file,
//! shared, constant and texture caches) come from the warp instructions the timing model
//! executed, counted by the light [`UnitCounter`] observer (or the full
//! [`crate::analyser::Analyser`]); memory-side ones come from the timing model's own counters: L1
//! and L2 accesses as simulated, and global/local-memory instructions scaled by the simulated
//! DRAM share of L2 traffic (`(reads + writes) / L2 accesses`, at most 1), so an L2-resident
//! kernel is not charged off-chip power. Cycles are the simulated kernel cycles in the SM clock;
//! the runtime is `cycles / core clock` of the simulated configuration.
//!
//! `warpforge run --mode timing` and `warpforge predict --simulate` both go through
//! [`simulated_power`]; the JSON fields are documented in `docs/MODELS.md` ("Power from
//! simulation").

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use warpforge_core::{DynInst, InstObserver, KernelInfo};

use crate::options::RegFileRow;
use crate::params::DeviceParams;
use crate::power::{from_activity, SmScaling, Unit, UnitCounts};

/// Table 7 unit counts of one launch, as [`UnitCounter`] records them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct LaunchUnits {
    /// Kernel name.
    pub kernel: String,
    /// CTAs in the grid.
    pub blocks: u64,
    /// Whole-launch per-unit warp-instruction counts.
    pub units: UnitCounts,
}

/// A light instruction observer that only counts Table 7 units per launch (one array update per
/// warp instruction, no allocation), for power from simulation without the analyser's
/// dependence and cache tracking.
#[derive(Debug, Clone, Default)]
pub struct UnitCounter {
    reg_row: RegFileRow,
    current: Option<LaunchUnits>,
    launches: Vec<LaunchUnits>,
}

impl UnitCounter {
    /// A counter with the given register-file row of Table 7.
    pub fn new(reg_row: RegFileRow) -> Self {
        Self {
            reg_row,
            ..Self::default()
        }
    }

    /// Finished launches, in launch order.
    pub fn launches(&self) -> &[LaunchUnits] {
        &self.launches
    }

    /// Takes the finished launches out.
    pub fn take_launches(&mut self) -> Vec<LaunchUnits> {
        std::mem::take(&mut self.launches)
    }
}

impl InstObserver for UnitCounter {
    fn on_launch(&mut self, k: &KernelInfo) {
        self.current = Some(LaunchUnits {
            kernel: k.name.clone(),
            blocks: k.num_ctas(),
            units: UnitCounts::default(),
        });
    }

    fn on_inst(&mut self, _cta: u32, _warp: u32, inst: &DynInst) {
        if let Some(c) = self.current.as_mut() {
            crate::analyser::unit_counts(self.reg_row, &mut c.units, inst);
        }
    }

    fn on_launch_end(&mut self, _k: &KernelInfo) {
        if let Some(c) = self.current.take() {
            self.launches.push(c);
        }
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

/// Activity of one simulated launch: the inputs of [`simulated_power`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SimActivity {
    /// Instruction-side per-unit warp-instruction counts of the launch (L1/L2 entries are
    /// replaced by the simulated counts; global/local entries are scaled by the DRAM share).
    pub units: UnitCounts,
    /// CTAs in the grid (active SMs = `min(SMs, CTAs)`).
    pub blocks: u64,
    /// Simulated cycles, SM clock.
    pub cycles: u64,
    /// Simulated L1 data-cache accesses.
    pub l1_accesses: u64,
    /// Simulated L2 accesses.
    pub l2_accesses: u64,
    /// Simulated DRAM requests (reads + writes).
    pub dram_accesses: u64,
}

/// The simulated machine the activity was measured on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimMachine {
    /// SMs of the simulated configuration.
    pub num_sms: u32,
    /// SM (core) clock of the simulated configuration, Hz; cycles are counted in it.
    pub core_clock_hz: f64,
}

/// Power and energy of one simulated launch (or of a whole run), W / J / s.
///
/// `avg_power_w = dynamic_power_w + static_power_w` (Eq 35: `GPU_power = Runtime_power +
/// IdlePower`), `energy_j = avg_power_w × runtime_s`, `runtime_s = cycles / core_clock_hz`, and
/// the entries of `units_w` sum to `dynamic_power_w`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimPower {
    /// Parameter set the coefficients come from.
    pub params: String,
    /// Simulated cycles (SM clock).
    pub cycles: u64,
    /// Runtime, s: `cycles / core clock`.
    pub runtime_s: f64,
    /// Average GPU power over the runtime, W (Eq 35).
    pub avg_power_w: f64,
    /// `Runtime_power` (Eq 48 or the Fermi linear form, with the activation step), W.
    pub dynamic_power_w: f64,
    /// `IdlePower`, W.
    pub static_power_w: f64,
    /// Energy, J: `avg_power_w × runtime_s`.
    pub energy_j: f64,
    /// SMs that ran CTAs (run total: runtime-weighted mean).
    pub active_sms: f64,
    /// Device-level dynamic power per unit, W (SM units multiplied out over the active SMs
    /// with the model's scaling; `const_sm` and `activation` are the constant terms); the
    /// entries sum to `dynamic_power_w`. Run total: runtime-weighted mean.
    pub units_w: BTreeMap<String, f64>,
}

/// Power of one simulated launch on `dev`'s power parameters, or `None` when the parameter set
/// has none. `dev` supplies the coefficients and `Issue_cycles` (Eq 40); `m` the SM count and
/// clock of the configuration that was simulated.
pub fn simulated_power(dev: &DeviceParams, m: SimMachine, a: &SimActivity) -> Option<SimPower> {
    let pw = dev.power.as_ref()?;
    let num_sms = m.num_sms.max(1) as f64;
    let active = num_sms.min(a.blocks.max(1) as f64);
    let mut totals = a.units;
    let l2 = a.l2_accesses as f64;
    let dram = a.dram_accesses as f64;
    totals.0[Unit::L1.index()] = a.l1_accesses as f64;
    totals.0[Unit::L2.index()] = l2;
    let dram_share = if l2 > 0.0 { (dram / l2).min(1.0) } else { 0.0 };
    totals.0[Unit::GlobalMem.index()] *= dram_share;
    totals.0[Unit::LocalMem.index()] *= dram_share;
    let b = from_activity(
        pw,
        &totals,
        a.cycles as f64,
        active,
        num_sms,
        dev.core.issue_cycles,
    );
    // Device-level per-unit terms that add up to Runtime_power.
    let (sm_mult, mem_mult, activation) = match pw.scaling {
        SmScaling::Log { .. } => (num_sms * b.sm_factor, b.sm_factor, 0.0),
        SmScaling::Linear => (active, 1.0, pw.activation_w),
    };
    let mut units_w = BTreeMap::new();
    for &u in pw.units.keys() {
        let w = b.units.get(u.name()).copied().unwrap_or(0.0);
        let mult = if u.in_sm() { sm_mult } else { mem_mult };
        units_w.insert(u.name().to_string(), w * mult);
    }
    units_w.insert("const_sm".to_string(), pw.const_sm_w * sm_mult);
    units_w.insert("activation".to_string(), activation);
    let runtime_s = a.cycles as f64 / m.core_clock_hz;
    Some(SimPower {
        params: dev.name.clone(),
        cycles: a.cycles,
        runtime_s,
        avg_power_w: b.total_w,
        dynamic_power_w: b.runtime_w,
        static_power_w: b.idle_w,
        energy_j: b.total_w * runtime_s,
        active_sms: active,
        units_w,
    })
}

/// The run total of per-launch results: cycles, runtime and energy add up; powers are
/// runtime-weighted means (`avg_power_w = energy_j / runtime_s`). `None` for no launches.
pub fn total_power(launches: &[SimPower]) -> Option<SimPower> {
    let first = launches.first()?;
    let cycles: u64 = launches.iter().map(|l| l.cycles).sum();
    let runtime_s: f64 = launches.iter().map(|l| l.runtime_s).sum();
    let energy_j: f64 = launches.iter().map(|l| l.energy_j).sum();
    let mean = |f: &dyn Fn(&SimPower) -> f64| {
        if runtime_s > 0.0 {
            launches.iter().map(|l| f(l) * l.runtime_s).sum::<f64>() / runtime_s
        } else {
            f(first)
        }
    };
    let mut units_w = BTreeMap::new();
    for k in first.units_w.keys() {
        units_w.insert(
            k.clone(),
            mean(&|l: &SimPower| l.units_w.get(k).copied().unwrap_or(0.0)),
        );
    }
    Some(SimPower {
        params: first.params.clone(),
        cycles,
        runtime_s,
        avg_power_w: mean(&|l: &SimPower| l.avg_power_w),
        dynamic_power_w: mean(&|l: &SimPower| l.dynamic_power_w),
        static_power_w: mean(&|l: &SimPower| l.static_power_w),
        energy_j,
        active_sms: mean(&|l: &SimPower| l.active_sms),
        units_w,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gtx480() -> DeviceParams {
        crate::params::builtin("gtx480").unwrap()
    }

    fn machine() -> SimMachine {
        SimMachine {
            num_sms: 15,
            core_clock_hz: 700e6,
        }
    }

    fn busy(fp: f64, cycles: u64) -> SimActivity {
        let mut units = UnitCounts::default();
        units.add(Unit::Fp, fp);
        units.add(Unit::Fds, fp);
        units.add(Unit::Reg, fp);
        SimActivity {
            units,
            blocks: 60,
            cycles,
            ..Default::default()
        }
    }

    #[test]
    fn invariants_hold() {
        let p = simulated_power(&gtx480(), machine(), &busy(1e5, 10_000)).unwrap();
        assert!((p.avg_power_w - p.dynamic_power_w - p.static_power_w).abs() < 1e-9);
        assert!((p.energy_j - p.avg_power_w * p.runtime_s).abs() < 1e-15);
        assert!((p.runtime_s - 10_000.0 / 700e6).abs() < 1e-18);
        let sum: f64 = p.units_w.values().sum();
        assert!((sum - p.dynamic_power_w).abs() < 1e-9, "{sum} vs {p:?}");
        assert_eq!(p.static_power_w, 27.0);
    }

    #[test]
    fn more_activity_per_cycle_costs_more_dynamic_power() {
        let dense = simulated_power(&gtx480(), machine(), &busy(1e5, 10_000)).unwrap();
        let sparse = simulated_power(&gtx480(), machine(), &busy(1e3, 10_000)).unwrap();
        assert!(dense.dynamic_power_w > sparse.dynamic_power_w);
        assert!(dense.units_w["fp"] > sparse.units_w["fp"]);
    }

    #[test]
    fn no_power_parameters_gives_none() {
        let mut d = gtx480();
        d.power = None;
        assert!(simulated_power(&d, machine(), &busy(1.0, 10)).is_none());
    }

    #[test]
    fn total_adds_energy_and_weights_power_by_time() {
        let a = simulated_power(&gtx480(), machine(), &busy(1e5, 10_000)).unwrap();
        let b = simulated_power(&gtx480(), machine(), &busy(1e3, 30_000)).unwrap();
        let t = total_power(&[a.clone(), b.clone()]).unwrap();
        assert_eq!(t.cycles, 40_000);
        assert!((t.energy_j - a.energy_j - b.energy_j).abs() < 1e-15);
        assert!((t.avg_power_w * t.runtime_s - t.energy_j).abs() < 1e-12);
        assert!(t.avg_power_w < a.avg_power_w && t.avg_power_w > b.avg_power_w);
        assert!(total_power(&[]).is_none());
    }
}
