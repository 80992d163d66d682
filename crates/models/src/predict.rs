//! End to end: analyser profiles + a device parameter set → cycles, CPI, MWP, CWP, case,
//! bottleneck, power, energy, temperature rise and the IPP optimal number of SMs.

use crate::analyser::KernelProfile;
use crate::ipp::{self, EnergySavings, SweepPoint};
use crate::mwp_cwp::{self, Case, KernelInputs, MwpCwp, MwpLimit, Placement};
use crate::occupancy::{occupancy, BlockResources, Occupancy};
use crate::options::ModelOptions;
use crate::params::{DeviceKind, DeviceParams};
use crate::power::{access_rates, warps_per_sm, PowerBreakdown};
use crate::throughput::{self, DeviceThroughput, MemoryBox, Suggestions, Throughput};
use crate::ModelError;
use serde::{Deserialize, Serialize};

/// Prediction for one kernel launch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LaunchPrediction {
    /// Kernel name.
    pub kernel: String,
    /// Model inputs (per thread = per warp).
    pub inputs: KernelInputs,
    /// Registers per thread and shared bytes per block used for occupancy.
    pub resources: BlockResources,
    /// Occupancy.
    pub occupancy: Occupancy,
    /// Chapter II intermediates.
    pub model: MwpCwp,
    /// Bottleneck in words.
    pub bottleneck: String,
    /// Predicted time, s.
    pub time_s: f64,
    /// Chapter III power (where the device has power parameters).
    pub power: Option<PowerBreakdown>,
    /// Energy of the launch, J (GPU power × time, with the temperature-dependent static power).
    pub energy_j: Option<f64>,
    /// Eq (53) δ: the steady-state temperature rise if the kernel ran continuously, °C.
    pub max_temp_rise_c: Option<f64>,
    /// Eq (63) optimal number of SMs.
    pub ipp_eq63_sms: u32,
    /// Chapter V throughput model.
    pub throughput: Option<Throughput>,
    /// Chapter V category (1–10).
    pub category: Option<u8>,
    /// Chapter V suggestions.
    pub suggestions: Option<Suggestions>,
}

/// Prediction for a whole workload (all its launches).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    /// Device parameter set name.
    pub device: String,
    /// Predicted cycles, all launches (SM clock).
    pub cycles: f64,
    /// Predicted time, s.
    pub time_s: f64,
    /// Overall CPI: cycles per warp instruction per SM (Eq 24 summed over launches).
    pub cpi: f64,
    /// MWP of the dominant launch (most cycles).
    pub mwp: f64,
    /// CWP of the dominant launch.
    pub cwp: f64,
    /// Case of the dominant launch (`case1`, `case2`, `case3`, `compute_only`).
    pub case: String,
    /// Bottleneck of the dominant launch, in words.
    pub bottleneck: String,
    /// Average GPU power, W (energy / time).
    pub power_w: Option<f64>,
    /// Energy, J.
    pub energy_j: Option<f64>,
    /// IPP optimal number of active SMs (highest GIPS/W over the whole workload).
    pub ipp_optimal_sms: Option<u32>,
    /// Energy savings at that number of SMs.
    pub ipp_savings: Option<EnergySavings>,
    /// The GIPS/W sweep.
    pub ipp_sweep: Vec<SweepPoint>,
    /// Per-launch detail.
    pub launches: Vec<LaunchPrediction>,
}

/// Describes the bottleneck of one Chapter II evaluation.
pub fn bottleneck(m: &MwpCwp) -> String {
    use crate::mwp_cwp::Bound;
    let floor = match m.bound {
        Bound::Cases | Bound::Issue => None,
        Bound::Ldst => Some("LD/ST-unit-bound: the SM's LD/ST passes (lines, shared bank-conflict passes) take longer than the model's case formula"),
        Bound::CriticalWarp => Some("critical-warp-bound: the longest warp alone takes longer than the average warps' time (load imbalance)"),
    };
    if let Some(f) = floor {
        return format!(
            "{f}; case {} with MWP {:.2}, CWP {:.2}",
            m.case.id(),
            m.mwp,
            m.cwp
        );
    }
    match m.case {
        Case::Empty => "empty kernel".into(),
        Case::PureCompute => format!(
            "compute-only: no global memory access; {:.0} warps share the issue slot",
            m.n
        ),
        Case::NotEnoughWarps => format!(
            "not enough warps: MWP and CWP are both limited by N = {:.1}; more warps per SM (or independent loads) would hide more latency",
            m.n
        ),
        Case::ComputeBound => format!(
            "compute-bound: MWP {:.2} > CWP {:.2}, computation hides the memory latency",
            m.mwp, m.cwp
        ),
        Case::MemoryBound if m.cwp >= m.mwp => match m.mwp_limit {
            MwpLimit::PeakBandwidth => format!(
                "memory-bound by DRAM bandwidth: MWP_peak_BW = {:.2} < N = {:.0}",
                m.mwp_peak_bw, m.n
            ),
            MwpLimit::DepartureDelay => format!(
                "memory-bound by DRAM departure delay (memory-bank parallelism): MWP_Without_BW = {:.2}, departure delay {:.1} cycles{}",
                m.mwp_without_bw_full,
                m.departure_delay,
                if m.weight_uncoal > 0.0 { "; uncoalesced accesses make it worse" } else { "" }
            ),
            MwpLimit::Mshr => format!(
                "memory-bound by outstanding-miss slots (MSHRs): MWP = {:.2}{}",
                m.mwp,
                if m.weight_uncoal > 0.0 { "; uncoalesced requests hold many entries each" } else { "" }
            ),
            MwpLimit::Warps | MwpLimit::IndependentRequests => format!(
                "memory-bound: only N = {:.1} warps overlap memory (CWP {:.2} ≥ MWP {:.2})",
                m.n, m.cwp, m.mwp
            ),
        },
        Case::MemoryBound if m.mwp_limit == MwpLimit::IndependentRequests => format!(
            "memory-bound: independent requests let {:.1} warp-requests overlap (N_pw) with only N = {:.1} warps; memory time is Mem_cycles × N / MWP",
            m.mwp, m.n
        ),
        Case::MemoryBound => format!(
            "computation-dominated: Comp_cycles {:.0} > Mem_cycles {:.0} per warp selects Case 2 (MWP {:.2}, CWP {:.2})",
            m.comp_cycles, m.mem_cycles, m.mwp, m.cwp
        ),
    }
}

struct Launch {
    inputs: KernelInputs,
    res: BlockResources,
    occ_limit_blocks: u64,
}

fn prepare(dev: &DeviceParams, p: &KernelProfile) -> Launch {
    let mut inputs = p.inputs();
    let mut res = BlockResources {
        threads: p.threads_per_block,
        regs_per_thread: p.regs_per_thread,
        shared_bytes: p.shared_bytes,
    };
    if dev.kind == DeviceKind::Cpu {
        // §4.10: one 32-work-item group per core at a time (N = 1, MWP = 1).
        inputs.threads_per_block = 32;
        inputs.blocks = p.warps.max(1);
        res = BlockResources {
            threads: 32,
            regs_per_thread: 0,
            shared_bytes: 0,
        };
    }
    Launch {
        occ_limit_blocks: inputs.blocks,
        inputs,
        res,
    }
}

fn evaluate_at(
    dev: &DeviceParams,
    l: &Launch,
    sms: u32,
    opts: &ModelOptions,
    kernel: &str,
) -> Result<(Occupancy, MwpCwp), ModelError> {
    let occ = occupancy(&dev.core.limits, &l.res, l.occ_limit_blocks, sms).ok_or_else(|| {
        ModelError::Placement {
            kernel: kernel.to_string(),
            device: dev.name.clone(),
            reason: format!(
                "a block of {} threads, {} registers/thread, {} B shared does not fit on an SM ({} threads, {} registers, {} B shared)",
                l.res.threads,
                l.res.regs_per_thread,
                l.res.shared_bytes,
                dev.core.limits.max_threads_per_sm,
                dev.core.limits.registers_per_sm,
                dev.core.limits.shared_mem_per_sm
            ),
        }
    })?;
    let place = Placement {
        active_blocks_per_sm: occ.active_blocks_per_sm as f64,
        active_sms: occ.active_sms as f64,
    };
    Ok((
        occ,
        mwp_cwp::evaluate(&dev.timing(), &l.inputs, &place, opts),
    ))
}

fn power_of(
    dev: &DeviceParams,
    p: &KernelProfile,
    l: &Launch,
    m: &MwpCwp,
    active_sms: u32,
    per_unit: bool,
) -> Option<PowerBreakdown> {
    let pw = dev.power.as_ref()?;
    let wps = warps_per_sm(
        l.inputs.threads_per_block as f64,
        l.inputs.blocks as f64,
        active_sms as f64,
    );
    let ar = access_rates(&p.dac_per_warp(), wps, m.exec_cycles, dev.core.issue_cycles);
    let (a, n) = (active_sms as f64, dev.core.num_sms as f64);
    Some(if per_unit {
        pw.evaluate(&ar, a, n)
    } else {
        pw.evaluate_totals(&ar, a, n)
    })
}

fn energy_of(dev: &DeviceParams, p: &KernelProfile, pb: &PowerBreakdown, time_s: f64) -> f64 {
    match &dev.thermal {
        Some(t) => {
            let (mem, non) = p.mem_nonmem();
            let mi = crate::thermal::mem_access_intensity(mem, non);
            t.energy_j(pb.runtime_w, pb.idle_w, mi, time_s)
        }
        None => pb.total_w * time_s,
    }
}

/// Predicts every launch of a workload on `dev`.
pub fn predict(
    dev: &DeviceParams,
    profiles: &[KernelProfile],
    opts: &ModelOptions,
) -> Result<Prediction, ModelError> {
    let freq_hz = dev.core.freq_ghz * 1e9;
    let mut launches = Vec::with_capacity(profiles.len());
    let mut prepared = Vec::with_capacity(profiles.len());
    for p in profiles {
        let l = prepare(dev, p);
        let (occ, m) = evaluate_at(dev, &l, dev.core.num_sms, opts, &p.kernel)?;
        let time_s = m.exec_cycles / freq_hz;
        let power = power_of(dev, p, &l, &m, occ.active_sms, true);
        let energy_j = power.as_ref().map(|pb| energy_of(dev, p, pb, time_s));
        let max_temp_rise_c = match (&dev.thermal, &power) {
            (Some(t), Some(pb)) => {
                let (mem, non) = p.mem_nonmem();
                Some(t.max_rise_c(pb.runtime_w, crate::thermal::mem_access_intensity(mem, non)))
            }
            _ => None,
        };
        let (tp, category, suggestions) = match &dev.throughput {
            Some(tp) => {
                let d = DeviceThroughput {
                    cores: occ.active_sms as f64,
                    freq_ghz: dev.core.freq_ghz,
                    fp_units: tp.fp_units_per_core as f64,
                    vec_units: tp.vec_fp_units_per_core as f64,
                    vec_width: tp.vec_width as f64,
                    fma: tp.fma,
                    inst_latency: tp.inst_latency,
                    dep_applies: tp.dep_applies,
                    issue_cycles: dev.core.issue_cycles,
                };
                let mb = MemoryBox {
                    eff_mem: m.mem_l,
                    mwp_bw: m.mwp_peak_bw,
                    mwp_proc: m.mwp_without_bw_full,
                    n: m.n,
                };
                let t = throughput::evaluate(&d, &p.mix(), &mb);
                let c = if p.mix().mem_insts > 0.0 {
                    Some(throughput::category(&t))
                } else {
                    None
                };
                (
                    Some(t),
                    c,
                    Some(throughput::suggestions(&t, occ.active_sms)),
                )
            }
            None => (None, None, None),
        };
        launches.push(LaunchPrediction {
            kernel: p.kernel.clone(),
            inputs: l.inputs,
            resources: l.res,
            occupancy: occ,
            bottleneck: bottleneck(&m),
            time_s,
            power,
            energy_j,
            max_temp_rise_c,
            ipp_eq63_sms: ipp::optimal_sms_eq63(&m, dev.memory.bandwidth_gbs, dev.core.num_sms),
            throughput: tp,
            category,
            suggestions,
            model: m,
        });
        prepared.push(l);
    }
    let cycles: f64 = launches.iter().map(|l| l.model.exec_cycles).sum();
    let insts_per_sm: f64 = profiles
        .iter()
        .zip(&launches)
        .map(|(p, l)| p.warp_insts as f64 / l.occupancy.active_sms as f64)
        .sum();
    let dominant = launches
        .iter()
        .enumerate()
        .fold(None::<(usize, f64)>, |b, (i, l)| match b {
            Some((_, c)) if c >= l.model.exec_cycles => b,
            _ => Some((i, l.model.exec_cycles)),
        })
        .map(|(i, _)| &launches[i]);
    let energy_j = if dev.power.is_some() {
        Some(launches.iter().filter_map(|l| l.energy_j).sum::<f64>())
    } else {
        None
    };
    let time_s = cycles / freq_hz;
    // IPP sweep over the number of active SMs, whole workload (Eq 62).
    let mut sweep = Vec::new();
    if dev.power.is_some() && dev.kind == DeviceKind::Gpu && !profiles.is_empty() {
        let total_insts: f64 = profiles.iter().map(|p| p.warp_insts as f64).sum();
        // SMs beyond the largest grid would sit idle: the sweep stops where every launch is spread.
        let max_blocks = prepared
            .iter()
            .map(|l| l.occ_limit_blocks)
            .max()
            .unwrap_or(1);
        let top = (dev.core.num_sms as u64).min(max_blocks.max(1)) as u32;
        for s in 1..=top {
            let (mut t, mut e, mut er) = (0.0, 0.0, 0.0);
            for (p, l) in profiles.iter().zip(&prepared) {
                let (occ, m) = evaluate_at(dev, l, s, opts, &p.kernel)?;
                let ts = m.exec_cycles / freq_hz;
                if let Some(pb) = power_of(dev, p, l, &m, occ.active_sms.min(s), false) {
                    e += energy_of(dev, p, &pb, ts);
                    er += pb.runtime_w * ts;
                }
                t += ts;
            }
            if t > 0.0 {
                let gips = total_insts / t / 1e9;
                let pw = e / t;
                sweep.push(SweepPoint {
                    active_sms: s,
                    time_s: t,
                    power_w: pw,
                    runtime_w: er / t,
                    gips,
                    gips_per_w: gips / pw,
                });
            }
        }
    }
    let savings = ipp::savings(&sweep);
    Ok(Prediction {
        device: dev.name.clone(),
        cycles,
        time_s,
        cpi: if insts_per_sm > 0.0 {
            cycles / insts_per_sm
        } else {
            0.0
        },
        mwp: dominant.map_or(0.0, |l| l.model.mwp),
        cwp: dominant.map_or(0.0, |l| l.model.cwp),
        case: dominant.map_or("empty", |l| l.model.case.id()).to_string(),
        bottleneck: dominant.map_or_else(|| "no launches".to_string(), |l| l.bottleneck.clone()),
        power_w: energy_j.map(|e| if time_s > 0.0 { e / time_s } else { 0.0 }),
        energy_j,
        ipp_optimal_sms: savings.map(|s| s.optimal_sms),
        ipp_savings: savings,
        ipp_sweep: sweep,
        launches,
    })
}
