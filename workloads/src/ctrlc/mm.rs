//! `mm`: Matrix Multiply (Mars, no shared memory), Table 5.3 input "1024x1024". See
//! `workloads/mm/README.md`.
//!
//! Launches: map (partial dot products over k-chunks, keyed by output element and chunk), reduce
//! (sum of the chunks in order). Checked against an f64 reference within rtol 1e-4 / atol 1e-3
//! (f32 sums of up to 1024 products of magnitude at most 1).

use crate::common::{by_size, compare_f32, grid1d, load, rng};
use crate::{check_or_return, Check, Size, Workload, WorkloadError, WorkloadInfo};
use rand::Rng;
use warpforge_simt::{Device, KernelArg as A};

const PTX: &str = include_str!("../../mm/kernel.ptx");
const BLOCK: u32 = 128;

/// The Matrix Multiply workload.
pub struct Mm;

/// (matrix side, k-chunk per map task) at `size`.
fn dims(size: Size) -> (usize, usize) {
    by_size(size, (16, 8), (96, 32), (1024, 256))
}

impl Workload for Mm {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "mm",
            application: "Matrix Multiplication (Mars)",
            suite: "Mars",
            sets: "Ctrl-C",
            kernels: &["mm_map", "mm_reduce"],
            behaviour:
                "map-reduce; lanes read A a row apart (4 useful bytes per line): L1D-hostile",
        }
    }

    fn input(&self, size: Size) -> String {
        let (n, _) = dims(size);
        format!("{n}x{n} matrices")
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let (n, kchunk): (usize, usize) = dims(size);
        let chunks = n / kchunk;
        let mut r = rng("mm", size);
        let a: Vec<f32> = (0..n * n).map(|_| r.gen_range(-1.0..1.0)).collect();
        let b: Vec<f32> = (0..n * n).map(|_| r.gen_range(-1.0..1.0)).collect();
        let m = load(dev, PTX, "mm")?;
        let (da, db) = (dev.alloc_copy(&a)?, dev.alloc_copy(&b)?);
        let partial = dev.malloc((n * n * chunks) as u64 * 4)?;
        let c = dev.malloc((n * n) as u64 * 4)?;
        let nn = A::S32(n as i32);
        dev.launch(
            m,
            "mm_map",
            grid1d((n * n * chunks) as u32, BLOCK),
            &[
                A::Ptr(da),
                A::Ptr(db),
                nn.clone(),
                A::S32(kchunk as i32),
                A::Ptr(partial),
            ],
        )?;
        dev.launch(
            m,
            "mm_reduce",
            grid1d((n * n) as u32, BLOCK),
            &[A::Ptr(partial), nn, A::S32(chunks as i32), A::Ptr(c)],
        )?;
        let mut want = vec![0f32; n * n];
        for i in 0..n {
            for j in 0..n {
                let s: f64 = (0..n)
                    .map(|k| a[i * n + k] as f64 * b[k * n + j] as f64)
                    .sum();
                want[i * n + j] = s as f32;
            }
        }
        let got: Vec<f32> = dev.read(c, n * n)?;
        check_or_return!("mm", compare_f32("C", &got, &want, 1e-4, 1e-3));
        Ok(Check::Passed)
    }
}
