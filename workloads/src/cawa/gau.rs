//! `gau`: Gaussian elimination (Rodinia gaussian; latency characterisation, Table 3.2).
//!
//! One `gau_fan1` + `gau_fan2` pair per pivot step, launched by the host (n-1 steps), then
//! back-substitution on the host as in the original. Fan2 is launched over the full n x n space
//! with 16x16 CTAs; the useful region shrinks every step, so late launches are mostly early exits.
//!
//! Check: the solution from the device's triangular system matches a CPU f64 elimination of the
//! same system within 1e-3 relative (the matrix is diagonally dominant, so well conditioned).

use rand::Rng;
use warpforge_core::Dim3;
use warpforge_simt::{Device, KernelArg as A};

use crate::common::{by_size, compare_f32, grid1d, load, rng, shape};
use crate::{Check, Size, Workload, WorkloadError, WorkloadInfo};

const PTX: &str = include_str!("../../gau/kernel.ptx");
const TILE: u32 = 16;

/// The Gaussian-elimination workload.
pub struct Gau;

fn order(size: Size) -> usize {
    by_size(size, 24, 96, 1024)
}

/// Back-substitution of an upper-triangular system in f64.
fn back_substitute(a: &[f64], b: &[f64], n: usize) -> Vec<f64> {
    let mut x = vec![0f64; n];
    for i in (0..n).rev() {
        let s: f64 = (i + 1..n).map(|j| a[i * n + j] * x[j]).sum();
        x[i] = (b[i] - s) / a[i * n + i];
    }
    x
}

/// CPU solve: elimination without pivoting in f64, then back-substitution.
fn reference(a: &[f32], b: &[f32], n: usize) -> Vec<f64> {
    let mut a: Vec<f64> = a.iter().map(|&v| v as f64).collect();
    let mut b: Vec<f64> = b.iter().map(|&v| v as f64).collect();
    for t in 0..n - 1 {
        for r in t + 1..n {
            let m = a[r * n + t] / a[t * n + t];
            for c in t..n {
                a[r * n + c] -= m * a[t * n + c];
            }
            b[r] -= m * b[t];
        }
    }
    back_substitute(&a, &b, n)
}

impl Workload for Gau {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "gau",
            application: "Gaussian Elimination (Rodinia)",
            suite: "Rodinia",
            sets: "latency",
            kernels: &["gau_fan1", "gau_fan2"],
            behaviour: "2n short launches, shrinking active region, fp divide + fma updates",
        }
    }

    fn input(&self, size: Size) -> String {
        let n = order(size);
        format!("{n}x{n} matrix")
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let n = order(size);
        let mut r = rng("gau", size);
        let mut a: Vec<f32> = (0..n * n).map(|_| r.gen_range(-1.0..1.0)).collect();
        for i in 0..n {
            a[i * n + i] = n as f32 + r.gen_range(1.0..2.0);
        }
        let b: Vec<f32> = (0..n).map(|_| r.gen_range(-10.0..10.0)).collect();
        let m = load(dev, PTX, "gau")?;
        let da = dev.alloc_copy(&a)?;
        let db = dev.alloc_copy(&b)?;
        let dm = dev.malloc(4 * (n * n) as u64)?;
        let g = (n as u32).div_ceil(TILE);
        let fan2 = shape(Dim3::new(g, g, 1), Dim3::new(TILE, TILE, 1));
        for t in 0..n - 1 {
            let args = [A::Ptr(da), A::Ptr(dm), A::S32(n as i32), A::S32(t as i32)];
            dev.launch(m, "gau_fan1", grid1d(n as u32, 256), &args)?;
            let args = [
                A::Ptr(da),
                A::Ptr(db),
                A::Ptr(dm),
                A::S32(n as i32),
                A::S32(t as i32),
            ];
            dev.launch(m, "gau_fan2", fan2, &args)?;
        }
        let ga: Vec<f64> = dev
            .read::<f32>(da, n * n)?
            .iter()
            .map(|&v| v as f64)
            .collect();
        let gb: Vec<f64> = dev.read::<f32>(db, n)?.iter().map(|&v| v as f64).collect();
        let got: Vec<f32> = back_substitute(&ga, &gb, n)
            .iter()
            .map(|&v| v as f32)
            .collect();
        let want: Vec<f32> = reference(&a, &b, n).iter().map(|&v| v as f32).collect();
        Ok(compare_f32("gau solution", &got, &want, 1e-3, 1e-5))
    }
}
