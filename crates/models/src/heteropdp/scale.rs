//! Training runs at several global work sizes (document 000 §6.5: "each kernel is run with
//! varying thread counts and input sizes").
//!
//! Functional analysis of a workload at a larger input is too slow for the whole suite, so a
//! kernel analysed at one size is also modelled with its grid scaled by a factor `s` (weak
//! scaling): `s` times the blocks and warps, every work-item doing what it did (the per-warp
//! averages, the critical warp and the dependence and coalescing ratios are unchanged) on `s`
//! times the data (footprint, line accesses and reuses scale together, so the first-touch L2 and
//! LLC estimates shrink once the footprint outgrows the cache). The ground truth of a scaled job
//! comes from the same platform models as an analysed one; only its grid is synthetic.

use super::platform::KernelJob;
use crate::analyser::KernelProfile;

fn mul(v: u64, s: f64) -> u64 {
    (v as f64 * s).round() as u64
}

/// `p` with its grid scaled by `s` (> 0): totals scaled, per-warp and per-block values kept.
/// The block count is at least 1 and the warp count keeps its ratio to the blocks.
pub fn scale_profile(p: &KernelProfile, s: f64) -> KernelProfile {
    let blocks = mul(p.blocks, s).max(1);
    // The exact factor the rounded grid realises, so every total keeps its per-warp value.
    let f = if p.blocks > 0 {
        blocks as f64 / p.blocks as f64
    } else {
        s
    };
    let units = p.units.scaled(f);
    KernelProfile {
        kernel: p.kernel.clone(),
        blocks,
        warps: mul(p.warps, f),
        warp_insts: mul(p.warp_insts, f),
        comp_insts: mul(p.comp_insts, f),
        coal_mem_insts: mul(p.coal_mem_insts, f),
        uncoal_mem_insts: mul(p.uncoal_mem_insts, f),
        uncoal_transactions: mul(p.uncoal_transactions, f),
        transactions: mul(p.transactions, f),
        transaction_bytes: mul(p.transaction_bytes, f),
        synch_insts: mul(p.synch_insts, f),
        ind_mem_req: mul(p.ind_mem_req, f),
        load_groups: mul(p.load_groups, f),
        grouped_loads: mul(p.grouped_loads, f),
        m_factor_sum: p.m_factor_sum * f,
        fp_insts: mul(p.fp_insts, f),
        int_insts: mul(p.int_insts, f),
        units,
        thread_insts: mul(p.thread_insts, f),
        dep_hist: p.dep_hist.map(|c| mul(c, f)),
        line_accesses: mul(p.line_accesses, f),
        line_reuses: mul(p.line_reuses, f),
        footprint_lines: mul(p.footprint_lines, f),
        l1_accesses: mul(p.l1_accesses, f),
        l1_hits: mul(p.l1_hits, f),
        l2_lookups: mul(p.l2_lookups, f),
        l2_reuses: mul(p.l2_reuses, f),
        ldst_passes: mul(p.ldst_passes, f),
        smem_extra_passes: mul(p.smem_extra_passes, f),
        l1_pending: mul(p.l1_pending, f),
        load_reqs: mul(p.load_reqs, f),
        load_reqs_l1: mul(p.load_reqs_l1, f),
        load_reqs_l2: mul(p.load_reqs_l2, f),
        branch_insts: mul(p.branch_insts, f),
        atomic_insts: mul(p.atomic_insts, f),
        sfu_insts: mul(p.sfu_insts, f),
        store_insts: mul(p.store_insts, f),
        // Per block, per warp or per launch: unchanged.
        ..p.clone()
    }
}

/// `job` with every launch's grid scaled by `s`.
pub fn scale_job(job: &KernelJob, s: f64) -> KernelJob {
    KernelJob {
        name: job.name.clone(),
        cmp: job.cmp.iter().map(|p| scale_profile(p, s)).collect(),
        gpu: job.gpu.iter().map(|p| scale_profile(p, s)).collect(),
    }
}
