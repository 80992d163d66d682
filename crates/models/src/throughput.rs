//! Chapter V: the OpenCL throughput model for GPUs and CPUs (Eqs 64–82).
//!
//! A kernel becomes one average computation box (`EffComp` cycles per memory access) and one
//! memory box (`EffMem`, the effective latency), plus MSTR, ILP and DEP. Erratum 13 decisions:
//! `EffComp = TotalCycles / #mem_insts`, `EffPerf = PerfCycles / #mem_insts`, both in SM cycles
//! (instruction counts × issue cycles), `EffMem` = the Chapter II `Mem_L` at DRAM (or the latency
//! the caller chooses for a cache level); `DEP_Effect` applies only where the device says so (CPU
//! yes; GPU no, "not very critical" with many warps). Erratum 14: Table 14's frequencies are swapped.

use serde::{Deserialize, Serialize};

/// Table 15 kernel inputs, per warp (GPU) or per work-item (CPU).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct KernelMix {
    /// Scalar FP instructions (not fused).
    pub fp_insts: f64,
    /// Fused multiply-add instructions.
    pub fp_fused_insts: f64,
    /// Vectorisable scalar FP instructions.
    pub fp_vec_insts: f64,
    /// Vectorisable FMA instructions.
    pub fp_vec_fused_insts: f64,
    /// Integer instructions.
    pub int_insts: f64,
    /// Other instructions (branches, moves, conversions...).
    pub br_misc_insts: f64,
    /// Memory instructions.
    pub mem_insts: f64,
    /// MSTR: independent memory requests before the first consumer (≥ 1).
    pub mstr: f64,
    /// Effective ILP (≥ 1).
    pub ilp: f64,
    /// Dependence distance between consecutive instructions (1 = back to back).
    pub dep: f64,
}

impl KernelMix {
    /// All instructions.
    pub fn total(&self) -> f64 {
        self.fp_insts
            + self.fp_fused_insts
            + self.fp_vec_insts
            + self.fp_vec_fused_insts
            + self.int_insts
            + self.br_misc_insts
            + self.mem_insts
    }
}

/// Device side of the throughput model.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DeviceThroughput {
    /// Active cores / SMs.
    pub cores: f64,
    /// Clock, GHz.
    pub freq_ghz: f64,
    /// Scalar FP units (lanes) per core.
    pub fp_units: f64,
    /// Vector FP units per core (CPU SSE) and their width.
    pub vec_units: f64,
    /// Lanes of a vector unit.
    pub vec_width: f64,
    /// Fused multiply-add available.
    pub fma: bool,
    /// FP instruction latency, cycles.
    pub inst_latency: f64,
    /// Whether DEP applies.
    pub dep_applies: bool,
    /// SM cycles to issue one warp instruction (1 per work-item instruction on a CPU core).
    pub issue_cycles: f64,
}

/// Peak achievable GFLOPS (Eqs 65–67). On GPUs the fused peak replaces the vector peak (an FMA is
/// one instruction and 2 flops; vectorisable FP counts as normal FP). On CPUs an FMA becomes two
/// scalar instructions (mul + add) and vector FP uses `vec_width` lanes.
pub fn peak_achievable_gflops(d: &DeviceThroughput, k: &KernelMix) -> f64 {
    let base = d.cores * d.freq_ghz;
    if d.fma {
        let fp = k.fp_insts + k.fp_vec_insts;
        let fused = k.fp_fused_insts + k.fp_vec_fused_insts;
        let sum = fp + fused;
        if sum <= 0.0 {
            return 0.0;
        }
        let dev_fp = base * d.fp_units;
        let dev_fused = 2.0 * dev_fp;
        dev_fp * fp / sum + dev_fused * fused / sum
    } else {
        let fp = k.fp_insts + 2.0 * k.fp_fused_insts;
        let vec = k.fp_vec_insts + 2.0 * k.fp_vec_fused_insts;
        let sum = fp + vec;
        if sum <= 0.0 {
            return 0.0;
        }
        let dev_fp = base * d.fp_units;
        let dev_vec = base * d.vec_units * d.vec_width;
        dev_fp * fp / sum + dev_vec * vec / sum
    }
}

/// Useful (FP) instructions as the device executes them (FMA split on CPUs).
fn useful_insts(d: &DeviceThroughput, k: &KernelMix) -> f64 {
    let fused = k.fp_fused_insts + k.fp_vec_fused_insts;
    k.fp_insts + k.fp_vec_insts + if d.fma { fused } else { 2.0 * fused }
}

/// Total instructions as the device executes them.
fn total_insts(d: &DeviceThroughput, k: &KernelMix) -> f64 {
    let fused = k.fp_fused_insts + k.fp_vec_fused_insts;
    k.total() + if d.fma { 0.0 } else { fused }
}

/// `(PerfCycles, TotalCycles)` of Eqs (69)–(70) in SM cycles, with
/// `DEP_Effect = MAX(Inst_Latency / DEP, 1)` where it applies.
pub fn perf_total_cycles(d: &DeviceThroughput, k: &KernelMix) -> (f64, f64) {
    let ilp = k.ilp.max(1.0);
    let dep_effect = if d.dep_applies {
        (d.inst_latency / k.dep.max(1.0)).max(1.0)
    } else {
        1.0
    };
    let perf = useful_insts(d, k) / ilp * d.issue_cycles;
    let total = total_insts(d, k) * dep_effect / ilp * d.issue_cycles;
    (perf, total)
}

/// Inputs of the memory part (Eqs 71–82) besides the kernel mix.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MemoryBox {
    /// `EffMem`: effective per-request latency, cycles.
    pub eff_mem: f64,
    /// `MWP_BW` (Eqs 75–76, Chapter II's `MWP_peak_BW`).
    pub mwp_bw: f64,
    /// `MWP_Proc` (Chapter II's `MWP_Without_BW_full = Mem_L / Departure_delay`).
    pub mwp_proc: f64,
    /// N: warps per SM (1 on a CPU).
    pub n: f64,
}

/// Every intermediate of the Chapter V model.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Throughput {
    /// Eq (67), GFLOPS.
    pub peak_achievable_gflops: f64,
    /// `EffComp`, cycles per memory access.
    pub eff_comp: f64,
    /// `EffPerf`, cycles per memory access.
    pub eff_perf: f64,
    /// `EffMem`, cycles.
    pub eff_mem: f64,
    /// Eq (72).
    pub mwp_app_infin: f64,
    /// Eq (73).
    pub mwp_app_one_mem_warp: f64,
    /// Eq (74)/(92).
    pub mwp_app: f64,
    /// Eq (75).
    pub mwp_bw: f64,
    /// Chapter II `MWP_Without_BW_full`.
    pub mwp_proc: f64,
    /// N.
    pub n: f64,
    /// Eq (71).
    pub mwp: f64,
    /// Eq (78).
    pub mem_serial_n: f64,
    /// Eq (79).
    pub mem_divided_n: f64,
    /// Eq (80).
    pub mem_n: f64,
    /// Eq (81).
    pub comp_cycles_n: f64,
    /// Eq (82).
    pub idle_mem_cycles: f64,
    /// Eq (77) (Eq 68 without memory).
    pub eff_ratio: f64,
    /// `Perf = PeakAchi × EffRatio`, GFLOPS.
    pub perf_gflops: f64,
    /// Hidden-memory ratio: `IdleMemCycles / Mem_SerialN` (§4.3).
    pub idle_mem_ratio: f64,
}

/// Eqs (77)–(82) for given boxes: `(Mem_SerialN, Mem_DividedN, Mem_N, CompcyclesN, IdleMemCycles,
/// EffRatio)`.
pub fn idle_mem(
    eff_comp: f64,
    eff_perf: f64,
    eff_mem: f64,
    n: f64,
    mwp: f64,
) -> (f64, f64, f64, f64, f64, f64) {
    let serial = eff_mem * n; // (78)
    let divided = serial / mwp; // (79)
    let mem_n = divided + eff_comp * (mwp - 1.0); // (80)
    let comp_n = eff_comp * n; // (81)
    let idle = (mem_n - comp_n).max(0.0); // (82)
    let ratio = eff_perf * n / (comp_n + idle); // (77)
    (serial, divided, mem_n, comp_n, idle, ratio)
}

/// Eq (71)–(74): `MWP_App_InfiN`, `MWP_App_OneMemWarp`, `MWP_App` and the final MWP.
pub fn mwp_app(
    eff_mem: f64,
    eff_comp: f64,
    n: f64,
    mstr: f64,
    mwp_bw: f64,
    mwp_proc: f64,
) -> (f64, f64, f64, f64) {
    let infin = if eff_comp > 0.0 {
        (eff_mem / eff_comp).max(1.0)
    } else {
        f64::INFINITY
    }; // (72)
    let one = infin.min(n); // (73)
    let app = one * mstr.max(1.0); // (74)
    let mwp = app.min(mwp_bw).min(mwp_proc).min(n); // (71)
    (infin, one, app, mwp)
}

/// Evaluates the throughput model.
pub fn evaluate(d: &DeviceThroughput, k: &KernelMix, m: &MemoryBox) -> Throughput {
    let peak = peak_achievable_gflops(d, k);
    let (perf_c, total_c) = perf_total_cycles(d, k);
    if k.mem_insts <= 0.0 {
        let ratio = if total_c > 0.0 { perf_c / total_c } else { 0.0 }; // (68)
        return Throughput {
            peak_achievable_gflops: peak,
            eff_comp: total_c,
            eff_perf: perf_c,
            eff_mem: 0.0,
            mwp_app_infin: 1.0,
            mwp_app_one_mem_warp: 1.0,
            mwp_app: 1.0,
            mwp_bw: m.mwp_bw,
            mwp_proc: m.mwp_proc,
            n: m.n,
            mwp: 1.0,
            mem_serial_n: 0.0,
            mem_divided_n: 0.0,
            mem_n: 0.0,
            comp_cycles_n: total_c * m.n,
            idle_mem_cycles: 0.0,
            eff_ratio: ratio,
            perf_gflops: peak * ratio,
            idle_mem_ratio: 0.0,
        };
    }
    let eff_comp = total_c / k.mem_insts;
    let eff_perf = perf_c / k.mem_insts;
    let (infin, one, app, mwp) = mwp_app(m.eff_mem, eff_comp, m.n, k.mstr, m.mwp_bw, m.mwp_proc);
    let (serial, divided, mem_n, comp_n, idle, ratio) =
        idle_mem(eff_comp, eff_perf, m.eff_mem, m.n, mwp);
    Throughput {
        peak_achievable_gflops: peak,
        eff_comp,
        eff_perf,
        eff_mem: m.eff_mem,
        mwp_app_infin: infin,
        mwp_app_one_mem_warp: one,
        mwp_app: app,
        mwp_bw: m.mwp_bw,
        mwp_proc: m.mwp_proc,
        n: m.n,
        mwp,
        mem_serial_n: serial,
        mem_divided_n: divided,
        mem_n,
        comp_cycles_n: comp_n,
        idle_mem_cycles: idle,
        eff_ratio: ratio,
        perf_gflops: peak * ratio,
        idle_mem_ratio: if serial > 0.0 { idle / serial } else { 0.0 },
    }
}

/// Threshold of the "bandwidth may be just enough" band (§4.4).
pub const BW_BAND: f64 = 0.85;

/// The ten categories of §4.4 (1–5: N < MWP_App_InfiN; 6–10: N ≥ MWP_App_InfiN).
pub fn category(t: &Throughput) -> u8 {
    let base = if t.n < t.mwp_app_infin { 0 } else { 5 };
    let proc_ok = t.mwp_proc >= t.mwp_app;
    let sub = if !proc_ok {
        if t.mwp_bw < t.mwp_app {
            1
        } else {
            2
        }
    } else if t.mwp_bw < BW_BAND * t.mwp_app {
        3
    } else if t.mwp_bw < t.mwp_app {
        4
    } else {
        5
    };
    base + sub
}

/// The verdict of a category in words (§4.4 table).
pub fn category_verdict(cat: u8) -> &'static str {
    match cat {
        1 => "not enough warps, and both memory processing and bandwidth saturate: little to gain except by compiler work; lower the core frequency",
        2 => "not enough warps and a memory-processing (departure delay) limit: improve the access type (coalescing); fewer cores do not help; lower the core frequency",
        3 => "not enough warps and a bandwidth problem: use a device with more bandwidth, fewer active cores or less data per thread",
        4 => "not enough warps; bandwidth may be just enough",
        5 => "not enough warps but no hardware saturation: more warps per SM will definitely help; the core frequency can be lowered",
        6 => "enough warps; bandwidth and memory processing both saturate: fewer warps may relieve registers and fetch/decode/schedule",
        7 => "enough warps; memory-processing (departure delay) problem: improve the access type",
        8 => "enough warps; bandwidth problem: a device with more bandwidth, fewer cores or less data per thread",
        9 => "second best: enough warps and bandwidth may be just enough",
        10 => "best case: further gains only from compiler optimisation",
        _ => "unknown category",
    }
}

/// Model-derived suggestions of §4.5.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Suggestions {
    /// Eqs (83)–(88): when `MWP_App > MWP_BW`, `α = MWP_App / MWP_BW` and the active cores can be
    /// divided by α (or the bandwidth multiplied); `None` otherwise.
    pub active_cores: Option<u32>,
    /// Eqs (89)–(92): when `MWP_App > MWP_BW`, `α = MWP_BW / MWP_App ≤ 1` and N can be reduced to
    /// `α × N`; `None` otherwise.
    pub warps_per_sm: Option<u32>,
    /// Eq (93) read as a factor (erratum 18): when N < MWP_App_InfiN and N > 1, the core clock can
    /// be divided by `(MWP_App_InfiN − 1)/(N − 1)`; `None` otherwise.
    pub core_freq_divisor: Option<f64>,
}

/// Computes the §4.5 suggestions for `cores` active cores.
pub fn suggestions(t: &Throughput, cores: u32) -> Suggestions {
    let mut s = Suggestions {
        active_cores: None,
        warps_per_sm: None,
        core_freq_divisor: None,
    };
    if t.mwp_app > t.mwp_bw && t.mwp_bw > 0.0 {
        let alpha = t.mwp_app / t.mwp_bw;
        s.active_cores = Some(((cores as f64 / alpha).floor() as u32).max(1));
        let beta = t.mwp_bw / t.mwp_app;
        s.warps_per_sm = Some(((t.n * beta).floor() as u32).max(1));
    }
    if t.n < t.mwp_app_infin && t.n > 1.0 {
        let f = (t.mwp_app_infin - 1.0) / (t.n - 1.0);
        if f > 1.0 {
            s.core_freq_divisor = Some(f);
        }
    }
    s
}
