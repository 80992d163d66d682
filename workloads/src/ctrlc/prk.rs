//! `prk`: PageRank by SpMV (Pannotia), Table 5.3 input "co-author DBLP" (299K authors, 1.95M
//! arcs, power-law), approximated by a [`preferential_attachment`] graph with m = 3 (paper:
//! 299,067 vertices, 1.79M arcs). See `workloads/prk/README.md`.
//!
//! Launches per iteration: `prk_contrib` then `prk_spmv` (damping 0.85). Checked against a CPU
//! f32 reference that performs the same operations in the same order: rtol 1e-4 / atol 1e-9
//! (only fma contraction may differ).

use crate::common::graph::preferential_attachment;
use crate::common::{by_size, compare_f32, grid1d, load, rng};
use crate::{check_or_return, Check, Size, Workload, WorkloadError, WorkloadInfo};
use rand::Rng;
use warpforge_simt::{Device, KernelArg as A};

const PTX: &str = include_str!("../../prk/kernel.ptx");
const BLOCK: u32 = 128;
const DAMPING: f32 = 0.85;

/// The PageRank-SpMV workload.
pub struct Prk;

/// (vertices, iterations) at `size`.
fn dims(size: Size) -> (usize, usize) {
    by_size(size, (512, 4), (8192, 10), (299_067, 20))
}

impl Workload for Prk {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "prk",
            application: "PageRank SpMV (Pannotia)",
            suite: "Pannotia",
            sets: "Ctrl-C",
            kernels: &["prk_contrib", "prk_spmv"],
            behaviour:
                "CSR-scalar SpMV on a power-law graph; irregular gathers, skewed row lengths",
        }
    }

    fn input(&self, size: Size) -> String {
        let (n, it): (usize, usize) = dims(size);
        format!("power-law graph, {n} vertices, m=3; {it} iterations")
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let (n, iters): (usize, usize) = dims(size);
        let seed: u64 = rng("prk", size).gen();
        let g = preferential_attachment(n, 3, seed);
        let m = load(dev, PTX, "prk")?;
        let row = dev.alloc_copy(&g.row_ptr)?;
        let col = dev.alloc_copy(&g.col)?;
        let init = vec![1.0f32 / n as f32; n];
        let rank = dev.alloc_copy(&init)?;
        let contrib = dev.malloc(n as u64 * 4)?;
        let base = (1.0 - DAMPING) / n as f32;
        let cfg = grid1d(n as u32, BLOCK);
        let nn = A::S32(n as i32);
        for _ in 0..iters {
            dev.launch(
                m,
                "prk_contrib",
                cfg,
                &[A::Ptr(row), A::Ptr(rank), A::Ptr(contrib), nn.clone()],
            )?;
            dev.launch(
                m,
                "prk_spmv",
                cfg,
                &[
                    A::Ptr(row),
                    A::Ptr(col),
                    A::Ptr(contrib),
                    A::Ptr(rank),
                    A::F32(base),
                    A::F32(DAMPING),
                    nn.clone(),
                ],
            )?;
        }
        let mut want = init;
        let mut c = vec![0f32; n];
        for _ in 0..iters {
            for v in 0..n {
                let deg = g.degree(v);
                c[v] = if deg > 0 { want[v] / deg as f32 } else { 0.0 };
            }
            for (v, r) in want.iter_mut().enumerate() {
                let sum: f32 = g.neighbours(v).fold(0.0, |s, (u, _)| s + c[u]);
                *r = base + DAMPING * sum;
            }
        }
        let got: Vec<f32> = dev.read(rank, n)?;
        check_or_return!("prk", compare_f32("rank", &got, &want, 1e-4, 1e-9));
        Ok(Check::Passed)
    }
}
