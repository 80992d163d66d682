//! Table 6.4 features from the instruction analyser (document 000 §6.5).
//!
//! The document's instruction counts are *static* counts of the kernel's code from an
//! instrumented JIT: per work-item quantities, which the models multiply by the global work
//! size of the enqueue (Appendix A's `#threads × #inst` terms) to express the total work. Here a
//! kernel is all the launches of one kernel name, taken as one enqueue: the counts are the
//! analyser's dynamic warp-instruction counts of each launch divided by its warps (the
//! instructions one work-item executes; a warp instruction is one instruction of each of its
//! work-items), summed over the launches, and the thread count is the mean global work size of
//! a launch, so that `#threads × #inst` is the kernel's total work. Mapping (decision):
//! * CMP: scalar ALU = integer instructions (index and address arithmetic), scalar memory =
//!   shared and constant accesses, vector ALU = floating-point and special-math instructions,
//!   vector memory = global/local accesses, branch, atomic;
//! * GPU: memory = global/local + shared + constant accesses, integer, floating-point,
//!   special-math, branch, barrier;
//! * dynamic: threads per launch (mean global work size) and buffer size (largest footprint,
//!   bytes);
//! * system (co-located models): host LLC misses per second and host-DRAM bandwidth utilisation
//!   (a fraction of Table 6.1's 22 GB/s) of the co-runners, as the sampling before a launch sees
//!   them (the GPU co-located model uses the bandwidth only).
//!
//! Per work-item rather than total counts matter: with totals, `#threads × #inst` grows with
//! the square of the grid, and no term is proportional to the total work; with per-item counts
//! the products are the total work (the throughput-bound time) and the main effects the
//! per-item work (the latency-bound time of a grid that under-fills the device).

use super::corunner::CoRunner;
use super::platform::{KernelJob, Platform};
use crate::power::Unit;

/// Host line size for LLC-miss counts, bytes.
pub const LINE_BYTES: f64 = 64.0;

/// Factor names of the four models, in order.
pub fn names(model: ModelKind) -> Vec<String> {
    let cmp = [
        "scalar_alu",
        "scalar_mem",
        "vector_alu",
        "vector_mem",
        "branch",
        "atomic",
    ];
    let gpu = ["mem", "int", "fp", "math", "branch", "barrier"];
    let dynamic = ["threads", "buffer_bytes"];
    let mut v: Vec<&str> = match model {
        ModelKind::CmpAlone | ModelKind::CmpColoc => cmp.to_vec(),
        ModelKind::GpuAlone | ModelKind::GpuColoc => gpu.to_vec(),
    };
    v.extend(dynamic);
    match model {
        ModelKind::CmpColoc => v.extend(["llc_misses_per_s", "dram_bw_util"]),
        ModelKind::GpuColoc => v.push("dram_bw_util"),
        _ => {}
    }
    v.into_iter().map(String::from).collect()
}

/// The four regression models of §6.5.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ModelKind {
    /// (1) CMP alone: 8 factors.
    CmpAlone,
    /// (2) GPU alone: 8 factors.
    GpuAlone,
    /// (3) CMP co-located: 10 factors.
    CmpColoc,
    /// (4) GPU co-located: 9 factors.
    GpuColoc,
}

impl ModelKind {
    /// All four, in the document's order.
    pub const ALL: [ModelKind; 4] = [
        ModelKind::CmpAlone,
        ModelKind::GpuAlone,
        ModelKind::CmpColoc,
        ModelKind::GpuColoc,
    ];

    /// Short name used in JSON keys.
    pub fn key(self) -> &'static str {
        match self {
            ModelKind::CmpAlone => "cmp_alone",
            ModelKind::GpuAlone => "gpu_alone",
            ModelKind::CmpColoc => "cmp_coloc",
            ModelKind::GpuColoc => "gpu_coloc",
        }
    }
}

/// Static and dynamic features of one kernel.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct KernelFeatures {
    /// CMP instructions per work-item (scalar ALU, scalar mem, vector ALU, vector mem, branch,
    /// atomic).
    pub cmp: [f64; 6],
    /// GPU instructions per work-item (mem, int, fp, math, branch, barrier).
    pub gpu: [f64; 6],
    /// Global work size (threads) of a launch, mean over the kernel's launches.
    pub threads: f64,
    /// Buffer size, bytes.
    pub buffer_bytes: f64,
    /// Host↔device copy size of the GPU target, bytes.
    pub transfer_bytes: f64,
}

/// System-utilisation features sampled with the co-runners running.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct SystemFeatures {
    /// Host LLC misses per second.
    pub llc_misses_per_s: f64,
    /// Host-DRAM bandwidth utilisation (fraction of the platform bandwidth).
    pub dram_bw_util: f64,
}

/// Table 6.4 static and dynamic features of `job`.
pub fn kernel_features(job: &KernelJob) -> KernelFeatures {
    let mut f = KernelFeatures::default();
    for p in &job.gpu {
        if p.warps == 0 {
            continue;
        }
        let per_item = 1.0 / p.warps as f64;
        let global = (p.coal_mem_insts + p.uncoal_mem_insts) as f64;
        let onchip = p.units.get(Unit::Shared) + p.units.get(Unit::ConstCache);
        let cmp = [
            p.int_insts as f64,
            onchip,
            (p.fp_insts + p.sfu_insts) as f64,
            global,
            p.branch_insts as f64,
            p.atomic_insts as f64,
        ];
        let gpu = [
            global + onchip,
            p.int_insts as f64,
            p.fp_insts as f64,
            p.sfu_insts as f64,
            p.branch_insts as f64,
            p.synch_insts as f64,
        ];
        for (a, b) in f.cmp.iter_mut().zip(cmp) {
            *a += b * per_item;
        }
        for (a, b) in f.gpu.iter_mut().zip(gpu) {
            *a += b * per_item;
        }
        f.threads += p.blocks as f64 * p.threads_per_block as f64;
    }
    if !job.gpu.is_empty() {
        f.threads /= job.gpu.len() as f64;
    }
    f.buffer_bytes = job.buffer_bytes();
    f.transfer_bytes = job.transfer_bytes();
    f
}

/// What the performance counters show with `corunners` running (their alone rates).
pub fn system_features(p: &Platform, corunners: &[CoRunner]) -> SystemFeatures {
    let gbs: f64 = corunners.iter().map(|c| c.dram_gbs).sum();
    SystemFeatures {
        llc_misses_per_s: gbs * 1e9 / LINE_BYTES,
        dram_bw_util: gbs / p.dram_gbs,
    }
}

/// The factor vector of `model`.
pub fn factors(model: ModelKind, k: &KernelFeatures, s: &SystemFeatures) -> Vec<f64> {
    let mut v: Vec<f64> = match model {
        ModelKind::CmpAlone | ModelKind::CmpColoc => k.cmp.to_vec(),
        ModelKind::GpuAlone | ModelKind::GpuColoc => k.gpu.to_vec(),
    };
    v.push(k.threads);
    v.push(k.buffer_bytes);
    match model {
        ModelKind::CmpColoc => {
            v.push(s.llc_misses_per_s);
            v.push(s.dram_bw_util);
        }
        ModelKind::GpuColoc => v.push(s.dram_bw_util),
        _ => {}
    }
    v
}
