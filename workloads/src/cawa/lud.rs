//! `lud`: blocked LU decomposition (Rodinia lud; latency characterisation, Table 3.2).
//!
//! Per 16-wide diagonal step the host launches `lud_diagonal`, `lud_perimeter` and
//! `lud_internal`. The internal kernel streams tiles in bursts (the "MSHR contention, bursty"
//! finding of §2.4); the first two are serial, barrier-bound and lightly occupied.
//!
//! Check: the in-place L\U factors match a CPU f64 LU of the same matrix within 1e-3 relative
//! (diagonally dominant input, no pivoting needed).

use rand::Rng;
use warpforge_core::Dim3;
use warpforge_simt::{Device, KernelArg as A};

use crate::common::{by_size, compare_f32, load, rng, shape};
use crate::{Check, Size, Workload, WorkloadError, WorkloadInfo};

const PTX: &str = include_str!("../../lud/kernel.ptx");
const BS: usize = 16;

/// The LU-decomposition workload.
pub struct Lud;

fn order(size: Size) -> usize {
    by_size(size, 32, 224, 2048)
}

fn reference(a: &[f32], n: usize) -> Vec<f32> {
    let mut a: Vec<f64> = a.iter().map(|&v| v as f64).collect();
    for k in 0..n {
        for i in k + 1..n {
            a[i * n + k] /= a[k * n + k];
            let l = a[i * n + k];
            for j in k + 1..n {
                a[i * n + j] -= l * a[k * n + j];
            }
        }
    }
    a.iter().map(|&v| v as f32).collect()
}

impl Workload for Lud {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "lud",
            application: "LU Decomposition (Rodinia)",
            suite: "Rodinia",
            sets: "latency",
            kernels: &["lud_diagonal", "lud_perimeter", "lud_internal"],
            behaviour: "3 kernels per step: serial barrier chains, then bursty dense tile updates",
        }
    }

    fn input(&self, size: Size) -> String {
        let n = order(size);
        format!("{n}x{n} matrix, 16x16 tiles")
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let n = order(size);
        let mut r = rng("lud", size);
        let mut a: Vec<f32> = (0..n * n).map(|_| r.gen_range(-1.0..1.0)).collect();
        for i in 0..n {
            a[i * n + i] = n as f32 * 0.5 + r.gen_range(1.0..2.0);
        }
        let m = load(dev, PTX, "lud")?;
        let da = dev.alloc_copy(&a)?;
        let nb = n / BS;
        let b = BS as u32;
        for s in 0..nb {
            let args = [A::Ptr(da), A::S32(n as i32), A::S32(s as i32)];
            dev.launch(m, "lud_diagonal", shape(Dim3::x(1), Dim3::x(b)), &args)?;
            let rest = (nb - 1 - s) as u32;
            if rest == 0 {
                break;
            }
            dev.launch(
                m,
                "lud_perimeter",
                shape(Dim3::x(rest), Dim3::x(2 * b)),
                &args,
            )?;
            let cfg = shape(Dim3::new(rest, rest, 1), Dim3::new(b, b, 1));
            dev.launch(m, "lud_internal", cfg, &args)?;
        }
        let got = dev.read::<f32>(da, n * n)?;
        Ok(compare_f32(
            "lud factors",
            &got,
            &reference(&a, n),
            1e-3,
            1e-4,
        ))
    }
}
