//! `sr2`: SRAD v2 (Rodinia srad_v2; latency Table 3.2, Ctrl-C).
//!
//! 16x16 tiles with halos in shared memory, two kernels per iteration, image statistics on the
//! host between iterations (the image is copied back each time, as the original does). Same
//! diffusion as `sr1`, different memory behaviour: shared-memory staging instead of gathers,
//! a large image (2048x2048 at paper size) and bursty tile loads (the MSHR finding of §2.4).
//!
//! Check (stepwise): every iteration's image against the CPU f64 step from the previous one.

use warpforge_core::Dim3;
use warpforge_simt::{Device, KernelArg as A};

use super::srad::{check_step, describe, q0sqr, speckle_image, sums, Diffusion, LAMBDA};
use crate::common::{by_size, load, rng, shape};
use crate::{check_or_return, Check, Size, Workload, WorkloadError, WorkloadInfo};

const PTX: &str = include_str!("../../sr2/kernel.ptx");
const T: u32 = 16;

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
        describe(dims(size))
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
        let diff = Diffusion::alloc(dev, n)?;
        let cfg = shape(
            Dim3::new(cols as u32 / T, rows as u32 / T, 1),
            Dim3::new(T, T, 1),
        );
        let (r_, c_) = (A::S32(rows as i32), A::S32(cols as i32));
        for it in 0..iters {
            let (sum, sq) = sums(&cur);
            let q0 = q0sqr(sum, sq, n) as f32;
            // both kernels take (image, rows, cols, the five buffers, one scalar)
            for (kernel, scalar) in [("sr2_srad1", q0), ("sr2_srad2", LAMBDA)] {
                let args: Vec<A> = [A::Ptr(img), r_.clone(), c_.clone()]
                    .into_iter()
                    .chain(diff.args())
                    .chain([A::F32(scalar)])
                    .collect();
                dev.launch(m, kernel, cfg, &args)?;
            }
            let next = dev.read::<f32>(img, n)?;
            check_or_return!(
                format!("iteration {it}"),
                check_step(&next, &cur, (rows, cols), q0 as f64, LAMBDA)
            );
            cur = next;
        }
        Ok(Check::Passed)
    }
}
