//! Device parameter sets as data: one TOML file per device under `crates/models/params/`,
//! embedded at build time and validated on load (`deny_unknown_fields`, named errors).
//!
//! Documented devices (thesis Tables 2, 5, 8–11, 14): `8800gtx`, `fx5600`, `8800gt`, `gtx280`,
//! `gtx580`, `e5645`. Derived from warpforge timing presets: `gtx480`.

use crate::mwp_cwp::MemoryTiming;
use crate::occupancy::SmLimits;
use crate::power::PowerParams;
use crate::thermal::ThermalParams;
use crate::ModelError;
use serde::{Deserialize, Serialize};

/// GPU or CPU (Chapter V §4.10: a CPU core is modelled with N = 1 and MWP = 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeviceKind {
    /// A GPU: SMs, warps, the MWP-CWP model as written.
    Gpu,
    /// A multicore CPU: each core runs one 32-work-item group at a time, no latency hiding.
    Cpu,
}

/// How a warp's per-lane addresses become memory transactions (§2.2 and Table 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Coalescing {
    /// Compute capability 1.0/1.1 (G80, G92): one transaction if lane i accesses `base + i×size`
    /// with `base` aligned to the whole warp's footprint, else one transaction per active lane.
    Cc10,
    /// Compute capability 1.2/1.3 (GT200): one transaction per distinct aligned segment touched,
    /// segment 32 B for 1-byte, 64 B for 2-byte and 128 B for wider words.
    Cc13,
    /// Fermi (CC 2.x, L1 cached): one transaction per distinct 128-byte line touched.
    Lines128,
}

/// SM / core section.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoreParams {
    /// Number of SMs (GPU) or cores (CPU).
    pub num_sms: u32,
    /// Scalar processors (FP lanes) per SM.
    pub sp_per_sm: u32,
    /// SM (processor/shader) clock, GHz.
    pub freq_ghz: f64,
    /// Cycles to issue one warp instruction (4 on G80/GT200).
    pub issue_cycles: f64,
    /// Latency between dependent computation instructions of one warp, cycles (extension; absent
    /// for the document's devices, whose Chapter II model assumes peak issue).
    #[serde(default)]
    pub dep_latency: f64,
    /// Per-SM occupancy limits.
    #[serde(flatten)]
    pub limits: SmLimits,
}

/// Memory section (Tables 2 and 5).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoryParams {
    /// `Mem_Bandwidth`, GB/s.
    pub bandwidth_gbs: f64,
    /// `Mem_LD`, SM cycles.
    pub mem_ld: f64,
    /// `Departure_del_coal`, SM cycles.
    pub departure_del_coal: f64,
    /// `Departure_del_uncoal`, SM cycles.
    pub departure_del_uncoal: f64,
    /// Coalescing rules of the compute capability.
    pub coalescing: Coalescing,
    /// Round trip of an L2 hit, cycles (extension; absent = no cache, as in Chapter II).
    #[serde(default)]
    pub l2_latency: f64,
    /// L2 capacity in bytes (for the analyser's first-touch hit estimate; 0 = no L2).
    #[serde(default)]
    pub l2_bytes: u64,
    /// Miss-status holding registers per SM (extension; 0 = unlimited, as in the thesis).
    #[serde(default)]
    pub mshr_per_sm: u32,
    /// L1 hit round trip, cycles (extension; 0 = no L1 model).
    #[serde(default)]
    pub l1_latency: f64,
    /// L1 sets per SM (extension, 128-byte lines).
    #[serde(default)]
    pub l1_sets: u32,
    /// L1 ways (extension).
    #[serde(default)]
    pub l1_ways: u32,
    /// L1 set-index function (extension; default linear).
    #[serde(default)]
    pub l1_index: crate::cache_est::SetIndex,
    /// Core cycles per LD/ST-unit pass (extension; 0 = no LD/ST-unit bound).
    #[serde(default)]
    pub ldst_pass_cycles: f64,
    /// Core cycles per extra shared-memory bank-conflict pass (extension; 0 = `ldst_pass_cycles`).
    #[serde(default)]
    pub smem_pass_cycles: f64,
    /// Shared-memory banks for the bank-conflict degree (extension; 0 = conflicts not counted).
    #[serde(default)]
    pub shared_banks: u32,
    /// Shared-memory bank width, bytes (extension).
    #[serde(default)]
    pub shared_bank_bytes: u32,
    /// Instruction-cache sets per SM (extension, 128-byte lines; 0 = every fetch hits, as the
    /// thesis assumes, §2.7 "Limitations").
    #[serde(default)]
    pub l1i_sets: u32,
    /// Instruction-cache ways (extension).
    #[serde(default)]
    pub l1i_ways: u32,
}

/// Chapter V device inputs (Table 14).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThroughputParams {
    /// Scalar FP units per core/SM.
    pub fp_units_per_core: u32,
    /// Vector (SSE) FP units per core (0 on GPUs).
    pub vec_fp_units_per_core: u32,
    /// Lanes of a vector FP unit (4 for SSE single precision).
    pub vec_width: u32,
    /// Whether fused multiply-add exists (GPU yes, Nehalem no).
    pub fma: bool,
    /// FP instruction latency, cycles (≈ 20 GPU, 4 CPU).
    pub inst_latency: f64,
    /// Whether the dependence effect (`DEP_Effect`) applies (CPU yes; GPU "not very critical").
    pub dep_applies: bool,
}

/// A complete device parameter set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceParams {
    /// Name used on the command line (`--gpu NAME`).
    pub name: String,
    /// One-line description.
    pub description: String,
    /// Where every number comes from.
    pub source: String,
    /// GPU or CPU.
    pub kind: DeviceKind,
    /// SM / core parameters.
    pub core: CoreParams,
    /// Memory parameters.
    pub memory: MemoryParams,
    /// Chapter III power parameters, where the document gives them.
    #[serde(default)]
    pub power: Option<PowerParams>,
    /// Chapter III temperature parameters (GTX280 only).
    #[serde(default)]
    pub thermal: Option<ThermalParams>,
    /// Chapter V throughput parameters.
    #[serde(default)]
    pub throughput: Option<ThroughputParams>,
}

impl DeviceParams {
    /// Memory timing as the Chapter II model takes it.
    pub fn timing(&self) -> MemoryTiming {
        MemoryTiming {
            mem_ld: self.memory.mem_ld,
            departure_del_coal: self.memory.departure_del_coal,
            departure_del_uncoal: self.memory.departure_del_uncoal,
            freq_ghz: self.core.freq_ghz,
            bandwidth_gbs: self.memory.bandwidth_gbs,
            issue_cycles: self.core.issue_cycles,
            dep_latency: self.core.dep_latency,
            l2_latency: self.memory.l2_latency,
            mshr_per_sm: self.memory.mshr_per_sm as f64,
            l1_latency: self.memory.l1_latency,
            ldst_pass_cycles: self.memory.ldst_pass_cycles,
            smem_pass_cycles: self.memory.smem_pass_cycles,
        }
    }

    /// Parses and validates a parameter file; `file` names it in errors.
    pub fn from_toml(text: &str, file: &str) -> Result<Self, ModelError> {
        let p: DeviceParams = toml::from_str(text).map_err(|e| ModelError::Params {
            file: file.to_string(),
            message: e.to_string(),
        })?;
        p.validate(file)?;
        Ok(p)
    }

    fn validate(&self, file: &str) -> Result<(), ModelError> {
        let bad = |key: &str, why: &str| {
            Err(ModelError::Params {
                file: file.to_string(),
                message: format!("key `{key}`: {why}"),
            })
        };
        let c = &self.core;
        let m = &self.memory;
        if c.num_sms == 0 {
            return bad("core.num_sms", "must be at least 1");
        }
        for (k, v) in [
            ("core.freq_ghz", c.freq_ghz),
            ("core.issue_cycles", c.issue_cycles),
            ("memory.bandwidth_gbs", m.bandwidth_gbs),
            ("memory.mem_ld", m.mem_ld),
            ("memory.departure_del_coal", m.departure_del_coal),
            ("memory.departure_del_uncoal", m.departure_del_uncoal),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return bad(k, "must be a positive number");
            }
        }
        if c.limits.max_blocks_per_sm == 0 || c.limits.max_threads_per_sm < 32 {
            return bad(
                "core.max_blocks_per_sm/max_threads_per_sm",
                "too small to hold a warp",
            );
        }
        if let Some(p) = &self.power {
            if let crate::power::SmScaling::Log { beta } = p.scaling {
                if !(beta > 0.0 && beta < 10.0) {
                    return bad("power.scaling.beta", "must lie in (0, 10)");
                }
            }
        }
        Ok(())
    }
}

/// The embedded parameter files, `(name, text)`, in listing order.
pub const BUILTIN: &[(&str, &str)] = &[
    ("8800gtx", include_str!("../params/8800gtx.toml")),
    ("fx5600", include_str!("../params/fx5600.toml")),
    ("8800gt", include_str!("../params/8800gt.toml")),
    ("gtx280", include_str!("../params/gtx280.toml")),
    ("gtx580", include_str!("../params/gtx580.toml")),
    ("e5645", include_str!("../params/e5645.toml")),
    ("gtx480", include_str!("../params/gtx480.toml")),
];

/// Names of every built-in parameter set.
pub fn names() -> Vec<&'static str> {
    BUILTIN.iter().map(|(n, _)| *n).collect()
}

/// The built-in parameter set `name`; an unknown name is an error listing the available ones.
pub fn builtin(name: &str) -> Result<DeviceParams, ModelError> {
    match BUILTIN.iter().find(|(n, _)| *n == name) {
        Some((n, text)) => DeviceParams::from_toml(text, &format!("params/{n}.toml")),
        None => Err(ModelError::UnknownDevice {
            name: name.to_string(),
            available: names().join(", "),
        }),
    }
}

/// A built-in set by name, or a parameter file when `name_or_path` ends in `.toml`.
pub fn load(name_or_path: &str) -> Result<DeviceParams, ModelError> {
    if name_or_path.ends_with(".toml") {
        let text = std::fs::read_to_string(name_or_path).map_err(|e| ModelError::Params {
            file: name_or_path.to_string(),
            message: e.to_string(),
        })?;
        DeviceParams::from_toml(&text, name_or_path)
    } else {
        builtin(name_or_path)
    }
}
