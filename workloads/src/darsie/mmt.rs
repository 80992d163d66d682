//! `mmt`: MatrixMul with shared-memory tiling (NVIDIA CUDA SDK `matrixMul`, BLOCK_SIZE 32), the
//! MM of DARSIE's Table 7.1 (TB 32x32). See `workloads/mmt/README.md`.
//!
//! Input: square n x n matrices of uniform [-1, 1) floats (n a multiple of 32). One launch of
//! `mmt_mul` on an (n/32) x (n/32) grid. Checked against an f64 reference (rtol 1e-4,
//! atol 1e-4 * n).

use crate::common::{by_size_fill, compare_f32, load, rng, shape};
use crate::{check_or_return, Check, Size, Workload, WorkloadError, WorkloadInfo};
use rand::Rng;
use warpforge_core::Dim3;
use warpforge_simt::{Device, KernelArg as A};

const PTX: &str = include_str!("../../mmt/kernel.ptx");
/// CTA edge (the SDK's BLOCK_SIZE).
const BLOCK: usize = 32;

/// The tiled MatrixMul workload.
pub struct Mmt;

fn dim(size: Size) -> usize {
    // Fill: the small matrices x 1.375 (11 x 11 CTAs).
    by_size_fill(size, 64, 256, 352, 1024)
}

impl Workload for Mmt {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "mmt",
            application: "MatrixMul, shared-memory tiled (NVIDIA SDK)",
            suite: "NVIDIA SDK",
            sets: "DARSIE",
            kernels: &["mmt_mul"],
            behaviour: "32x32 CTAs, 32x32 tiles staged in shared memory, unrolled inner product",
        }
    }

    fn input(&self, size: Size) -> String {
        let n = dim(size);
        format!("{n}x{n} times {n}x{n} floats")
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let n = dim(size);
        let mut r = rng("mmt", size);
        let a: Vec<f32> = (0..n * n).map(|_| r.gen_range(-1.0..1.0)).collect();
        let b: Vec<f32> = (0..n * n).map(|_| r.gen_range(-1.0..1.0)).collect();
        let m = load(dev, PTX, "mmt")?;
        let da = dev.alloc_copy(&a)?;
        let db = dev.alloc_copy(&b)?;
        let dc = dev.malloc((n * n) as u64 * 4)?;
        let tiles = (n / BLOCK) as u32;
        let cfg = shape(
            Dim3::new(tiles, tiles, 1),
            Dim3::new(BLOCK as u32, BLOCK as u32, 1),
        );
        let w = A::S32(n as i32);
        dev.launch(
            m,
            "mmt_mul",
            cfg,
            &[A::Ptr(dc), A::Ptr(da), A::Ptr(db), w.clone(), w],
        )?;
        let mut want = vec![0f32; n * n];
        for i in 0..n {
            for j in 0..n {
                let mut s = 0f64;
                for k in 0..n {
                    s += a[i * n + k] as f64 * b[k * n + j] as f64;
                }
                want[i * n + j] = s as f32;
            }
        }
        let got: Vec<f32> = dev.read(dc, n * n)?;
        check_or_return!("mmt", compare_f32("C", &got, &want, 1e-4, 1e-4 * n as f32));
        Ok(Check::Passed)
    }
}
