//! `sr2`: SRAD v2 (Rodinia srad_v2; latency Table 3.2, Ctrl-C).
//!
//! 16x16 tiles with halos in shared memory, two kernels per iteration, image statistics on the
//! host between iterations (the image is copied back each time, as the original does). Same
//! diffusion as `sr1`, different memory behaviour: shared-memory staging instead of gathers,
//! a large image (2048x2048 at paper size) and bursty tile loads (the MSHR finding of §2.4).
//!
//! Check (stepwise): every iteration's image against the CPU f64 step from the previous one.

use warpforge_core::Dim3;
use warpforge_simt::{DevPtr, Device, KernelArg as A};

use super::sr1::{q0sqr, speckle_image, srad_step};
use crate::common::{by_size, compare_f32, load, rng, shape};
use crate::{check_or_return, Check, Size, Workload, WorkloadError, WorkloadInfo};

const PTX: &str = include_str!("../../sr2/kernel.ptx");
const T: u32 = 16;
const LAMBDA: f32 = 0.5;

/// The SRAD v2 workload.
pub struct Sr2;

fn dims(size: Size) -> (usize, usize, usize) {
    // (rows, cols, iterations); multiples of 16.
    by_size(size, (32, 32, 2), (256, 256, 2), (2048, 2048, 2))
}

impl Workload for Sr2 {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "sr2",
            application: "SRAD v2 (Rodinia)",
            suite: "Rodinia",
            sets: "latency, Ctrl-C",
            kernels: &["sr2_srad1", "sr2_srad2"],
            behaviour: "shared-memory tiles with divergent halo loads, fp divides, coalesced rows",
        }
    }

    fn input(&self, size: Size) -> String {
        let (r, c, it) = dims(size);
        format!("{r}x{c} image, {it} iterations")
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let (rows, cols, iters) = dims(size);
        let n = rows * cols;
        // SRAD v2 starts from exp(image / 255), computed on the host.
        let mut cur: Vec<f32> = speckle_image(rows, cols, &mut rng("sr2", size))
            .iter()
            .map(|&v| (v / 255.0).exp())
            .collect();
        let m = load(dev, PTX, "sr2")?;
        let img = dev.alloc_copy(&cur)?;
        let mut bufs = [DevPtr(0); 5];
        for b in &mut bufs {
            *b = dev.malloc(4 * n as u64)?;
        }
        let [dn, ds, dw, de, c] = bufs;
        let cfg = shape(
            Dim3::new(cols as u32 / T, rows as u32 / T, 1),
            Dim3::new(T, T, 1),
        );
        let (r_, c_) = (A::S32(rows as i32), A::S32(cols as i32));
        for it in 0..iters {
            let sum: f64 = cur.iter().map(|&v| v as f64).sum();
            let sq: f64 = cur.iter().map(|&v| (v as f64).powi(2)).sum();
            let q0 = q0sqr(sum, sq, n) as f32;
            let args = [
                A::Ptr(img),
                r_.clone(),
                c_.clone(),
                A::Ptr(dn),
                A::Ptr(ds),
                A::Ptr(dw),
                A::Ptr(de),
                A::Ptr(c),
                A::F32(q0),
            ];
            dev.launch(m, "sr2_srad1", cfg, &args)?;
            let args = [
                A::Ptr(img),
                r_.clone(),
                c_.clone(),
                A::Ptr(dn),
                A::Ptr(ds),
                A::Ptr(dw),
                A::Ptr(de),
                A::Ptr(c),
                A::F32(LAMBDA),
            ];
            dev.launch(m, "sr2_srad2", cfg, &args)?;
            let next = dev.read::<f32>(img, n)?;
            let want = srad_step(&cur, rows, cols, q0 as f64, LAMBDA as f64);
            check_or_return!(
                format!("iteration {it}"),
                compare_f32("image", &next, &want, 1e-4, 1e-5)
            );
            cur = next;
        }
        Ok(Check::Passed)
    }
}
