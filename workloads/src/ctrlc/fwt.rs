//! `fwt`: Fast Walsh Transform (NVIDIA SDK), Table 5.3 input "32k samples". See
//! `workloads/fwt/README.md`.
//!
//! As the SDK sample, computes a dyadic convolution: FWT(data), FWT(kernel), point-wise
//! product scaled by 1/N, FWT again. Data are integers in [-8, 8] and the kernel integers in
//! [-4, 4] on its first 128 samples, so both forward spectra are integers below 2^24 and must
//! match an integer CPU transform exactly; the convolution (integers up to 2^12 after rounding
//! errors of the f32 products) must be within 0.25 of the exact integer result.

use crate::common::{by_size, compare_exact, compare_f32, grid1d, load, rng, shape};
use crate::{check_or_return, Check, Size, Workload, WorkloadError, WorkloadInfo};
use rand::Rng;
use warpforge_core::Dim3;
use warpforge_simt::{DevPtr, Device, KernelArg as A, ModuleId};

const PTX: &str = include_str!("../../fwt/kernel.ptx");
/// Elements per shared-memory chunk (`FWT_CHUNK` in kernel.cu).
const CHUNK: usize = 1024;
const KERNEL_LEN: usize = 128;

/// The Fast Walsh Transform workload.
pub struct Fwt;

/// Number of samples at `size`.
fn samples(size: Size) -> usize {
    by_size(size, 1 << 11, 1 << 14, 1 << 15)
}

fn transform(dev: &mut Device, m: ModuleId, d: DevPtr, n: usize) -> Result<(), WorkloadError> {
    let chunk = n.min(CHUNK);
    let mut stride = n / 2;
    while stride >= chunk {
        dev.launch(
            m,
            "fwt_global_step",
            grid1d((n / 2) as u32, 256),
            &[A::Ptr(d), A::S32(n as i32), A::S32(stride as i32)],
        )?;
        stride /= 2;
    }
    dev.launch(
        m,
        "fwt_shared",
        shape(Dim3::x((n / chunk) as u32), Dim3::x((chunk / 2) as u32)),
        &[A::Ptr(d), A::S32(chunk as i32)],
    )?;
    Ok(())
}

fn cpu_fwt(v: &mut [i64]) {
    let mut h = 1;
    while h < v.len() {
        for i in (0..v.len()).step_by(2 * h) {
            for j in i..i + h {
                let (a, b) = (v[j], v[j + h]);
                v[j] = a + b;
                v[j + h] = a - b;
            }
        }
        h *= 2;
    }
}

impl Workload for Fwt {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "fwt",
            application: "Fast Walsh Transform (NVIDIA SDK)",
            suite: "NVIDIA SDK",
            sets: "Ctrl-C",
            kernels: &["fwt_global_step", "fwt_shared", "fwt_modulate"],
            behaviour: "streaming butterflies (coalesced) + shared-memory stages with barriers",
        }
    }

    fn input(&self, size: Size) -> String {
        let n: usize = samples(size);
        format!("{n} samples, {KERNEL_LEN}-tap kernel")
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let n: usize = samples(size);
        let mut r = rng("fwt", size);
        let data: Vec<i64> = (0..n).map(|_| r.gen_range(-8..=8)).collect();
        let kern: Vec<i64> = (0..n)
            .map(|i| {
                if i < KERNEL_LEN {
                    r.gen_range(-4..=4)
                } else {
                    0
                }
            })
            .collect();
        let to_f = |v: &[i64]| v.iter().map(|&x| x as f32).collect::<Vec<f32>>();
        let m = load(dev, PTX, "fwt")?;
        let d = dev.alloc_copy(&to_f(&data))?;
        let k = dev.alloc_copy(&to_f(&kern))?;
        transform(dev, m, d, n)?;
        transform(dev, m, k, n)?;
        let (mut dref, mut kref) = (data, kern);
        cpu_fwt(&mut dref);
        cpu_fwt(&mut kref);
        let dspec: Vec<f32> = dev.read(d, n)?;
        let kspec: Vec<f32> = dev.read(k, n)?;
        check_or_return!(
            "fwt",
            compare_exact("FWT(data)", &dspec, &to_f(&dref)),
            compare_exact("FWT(kernel)", &kspec, &to_f(&kref)),
        );
        dev.launch(
            m,
            "fwt_modulate",
            grid1d(n as u32, 256),
            &[
                A::Ptr(d),
                A::Ptr(k),
                A::S32(n as i32),
                A::F32(1.0 / n as f32),
            ],
        )?;
        transform(dev, m, d, n)?;
        let mut conv: Vec<i64> = dref.iter().zip(&kref).map(|(a, b)| a * b).collect();
        cpu_fwt(&mut conv);
        let want: Vec<f32> = conv.iter().map(|&x| (x / n as i64) as f32).collect();
        let got: Vec<f32> = dev.read(d, n)?;
        check_or_return!(
            "fwt",
            compare_f32("dyadic convolution", &got, &want, 0.0, 0.25)
        );
        Ok(Check::Passed)
    }
}
