//! The TB-redundancy limit study (document 003 §2; `warpforge characterize --redundancy`, and the
//! limit-study table of `warpforge experiment darsie`): runs workloads functionally under
//! [`RedundancyStudy`] and formats the per-kernel shares.

use serde::Serialize;
use warpforge_workloads::redundancy::{KernelRedundancy, RedundancyStudy};
use warpforge_workloads::{Check, Size, Workload};

/// One row of the limit-study table: a kernel of a workload, fractions of its dynamic warp
/// instructions.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// Workload name.
    pub workload: String,
    /// Kernel name.
    pub kernel: String,
    /// TB shapes launched.
    pub blocks: Vec<String>,
    /// Dynamic warp instructions.
    pub warp_insts: u64,
    /// Fraction in TB-redundant groups (leaders included).
    pub tb_redundant_fraction: f64,
    /// Fraction that need not execute (once per TB suffices): the limit.
    pub tb_removable_fraction: f64,
    /// Removable fraction with uniform values.
    pub uniform_fraction: f64,
    /// Removable fraction with affine values.
    pub affine_fraction: f64,
    /// Removable fraction with unstructured values.
    pub unstructured_fraction: f64,
    /// Fraction writing one scalar in every active lane (warp-level redundancy).
    pub warp_uniform_fraction: f64,
    /// Fraction DARSIE's static marking lets followers skip (marked and value-redundant).
    pub darsie_removable_fraction: f64,
    /// Dynamic instances whose values contradict DARSIE's marking (expected 0).
    pub darsie_contradicted: u64,
    /// Dynamic shared-memory load warp instructions.
    pub shared_loads: u64,
}

fn frac(n: u64, d: u64) -> f64 {
    if d == 0 {
        0.0
    } else {
        n as f64 / d as f64
    }
}

impl Row {
    /// The row of kernel `kernel` (or `*` for a workload total) from its counts.
    pub fn new(workload: &str, kernel: &str, k: &KernelRedundancy) -> Row {
        let t = k.warp_insts;
        Row {
            workload: workload.into(),
            kernel: kernel.into(),
            blocks: k.blocks.clone(),
            warp_insts: t,
            tb_redundant_fraction: frac(k.tb_redundant, t),
            tb_removable_fraction: frac(k.tb_removable, t),
            uniform_fraction: frac(k.removable_uniform, t),
            affine_fraction: frac(k.removable_affine, t),
            unstructured_fraction: frac(k.removable_unstructured, t),
            warp_uniform_fraction: frac(k.warp_uniform, t),
            darsie_removable_fraction: frac(k.darsie_removable, t),
            darsie_contradicted: k.darsie_contradicted,
            shared_loads: k.shared_loads,
        }
    }
}

/// Runs `w` at `size` under the study; returns one row per kernel plus a `*` total row (first),
/// and the output check.
pub fn study(w: &dyn Workload, size: Size) -> anyhow::Result<(Vec<Row>, Check)> {
    let (s, check, _) =
        super::observed::run_observed(w, size, RedundancyStudy::new(), std::mem::take)?;
    let name = w.info().name;
    let mut rows = vec![Row::new(name, "*", &s.total())];
    for (k, r) in s.kernels() {
        rows.push(Row::new(name, k, r));
    }
    Ok((rows, check))
}

/// The rows as a Markdown table (percentages).
pub fn markdown(rows: &[Row]) -> String {
    let mut s = String::from(
        "| workload | kernel | TB | warp insts | TB-redundant % | removable % | uniform % | affine % | unstructured % | warp-uniform % | DARSIE-skippable % |\n\
         |---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let p = |x: f64| format!("{:.1}", 100.0 * x);
    for r in rows {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            r.workload,
            r.kernel,
            r.blocks.join(" "),
            r.warp_insts,
            p(r.tb_redundant_fraction),
            p(r.tb_removable_fraction),
            p(r.uniform_fraction),
            p(r.affine_fraction),
            p(r.unstructured_fraction),
            p(r.warp_uniform_fraction),
            p(r.darsie_removable_fraction),
        ));
    }
    s
}
