//! Step 0 of the Chapter II model: `#Active_blocks_per_SM` and `#Active_SMs` (Table 1, "based on
//! machine resources"). The thesis defers to the CUDA occupancy rules; the per-SM limits come from
//! the device's parameter set (digest §6.2: they are not in the document). Register and shared-
//! memory allocation granularities are ignored (whole registers per thread, bytes per block).

use serde::{Deserialize, Serialize};

/// Per-SM resource limits of a device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmLimits {
    /// Maximum resident blocks per SM (8 on every GPU of the document).
    pub max_blocks_per_sm: u32,
    /// Maximum resident threads per SM (G80 768, GT200 1024, Fermi 1536).
    pub max_threads_per_sm: u32,
    /// Registers per SM (G80 8192, GT200 16384, Fermi 32768).
    pub registers_per_sm: u32,
    /// Shared memory per SM in bytes (16 KB, or 48 KB on Fermi).
    pub shared_mem_per_sm: u32,
}

/// Resources one block asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct BlockResources {
    /// Threads per block.
    pub threads: u32,
    /// Registers per thread.
    pub regs_per_thread: u32,
    /// Shared memory per block in bytes.
    pub shared_bytes: u32,
}

/// The resource that bounds resident blocks per SM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OccupancyLimit {
    /// The block-slot limit.
    Blocks,
    /// Thread contexts.
    Threads,
    /// Register file.
    Registers,
    /// Shared memory.
    SharedMemory,
    /// Too few blocks in the grid to fill the slots.
    Grid,
}

/// Occupancy result.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Occupancy {
    /// Blocks that fit on one SM by resources alone.
    pub max_blocks_per_sm: u32,
    /// `#Active_blocks_per_SM` after spreading the grid uniformly over the SMs.
    pub active_blocks_per_sm: u32,
    /// `#Active_SMs`: SMs that receive at least one block.
    pub active_sms: u32,
    /// Resident warps per SM over the device maximum (0 to 1).
    pub occupancy: f64,
    /// What bounds the resident blocks.
    pub limit: OccupancyLimit,
}

/// Computes occupancy for `blocks` blocks of `res` on `num_sms` SMs with limits `lim`.
/// Returns `None` when one block does not fit on an SM at all.
pub fn occupancy(
    lim: &SmLimits,
    res: &BlockResources,
    blocks: u64,
    num_sms: u32,
) -> Option<Occupancy> {
    if res.threads == 0 || blocks == 0 || num_sms == 0 {
        return None;
    }
    let warps = res.threads.div_ceil(32);
    let threads_alloc = warps * 32;
    let mut best = (lim.max_blocks_per_sm, OccupancyLimit::Blocks);
    let mut consider = |v: u32, l: OccupancyLimit| {
        if v < best.0 {
            best = (v, l);
        }
    };
    consider(
        lim.max_threads_per_sm / threads_alloc,
        OccupancyLimit::Threads,
    );
    let regs_per_block = res.regs_per_thread.saturating_mul(threads_alloc);
    if let Some(v) = lim.registers_per_sm.checked_div(regs_per_block) {
        consider(v, OccupancyLimit::Registers);
    }
    if let Some(v) = lim.shared_mem_per_sm.checked_div(res.shared_bytes) {
        consider(v, OccupancyLimit::SharedMemory);
    }
    let (max_blocks, mut limit) = best;
    if max_blocks == 0 {
        return None;
    }
    let active_sms = (num_sms as u64).min(blocks) as u32;
    let per_sm_needed = blocks.div_ceil(active_sms as u64);
    let active = if per_sm_needed < max_blocks as u64 {
        limit = OccupancyLimit::Grid;
        per_sm_needed as u32
    } else {
        max_blocks
    };
    let max_warps = lim.max_threads_per_sm as f64 / 32.0;
    Some(Occupancy {
        max_blocks_per_sm: max_blocks,
        active_blocks_per_sm: active,
        active_sms,
        occupancy: (active * warps) as f64 / max_warps,
        limit,
    })
}
