//! `sr1`: SRAD v1 speckle-reducing anisotropic diffusion (Rodinia srad_v1; CAWA Sens set,
//! Ctrl-C, Table 3.2).
//!
//! One thread per pixel with neighbours gathered through clamped index arrays, a block tree
//! reduction for the image statistics, then two element-wise kernels per iteration; `exp`/`log`
//! on the SFU before and after. Five kernels, host iteration loop, as the original.
//!
//! Check (stepwise, see `common`): the extracted image, every iteration's statistics and updated
//! image, and the compressed output are each compared with a CPU f64 computation from the
//! device's state before that step.

use warpforge_simt::{DevPtr, Device, KernelArg as A};

use super::srad::{check_step, describe, q0sqr, speckle_image, sums, Diffusion, LAMBDA};
use crate::common::{by_size, compare_f32, grid1d, load, rng};
use crate::{check_or_return, Check, Size, Workload, WorkloadError, WorkloadInfo};

const PTX: &str = include_str!("../../sr1/kernel.ptx");
const BLOCK: u32 = 256;

/// The SRAD v1 workload.
pub struct Sr1;

fn dims(size: Size) -> (usize, usize, usize) {
    // (rows, cols, iterations)
    by_size(size, (32, 32, 2), (128, 128, 4), (502, 458, 100))
}

impl Workload for Sr1 {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "sr1",
            application: "SRAD v1 (Rodinia)",
            suite: "Rodinia",
            sets: "latency, CAWA (Sens), Ctrl-C",
            kernels: &[
                "sr1_extract",
                "sr1_reduce",
                "sr1_srad",
                "sr1_srad2",
                "sr1_compress",
            ],
            behaviour: "element-wise stencil with index-array gathers, fp divides, tree reduction",
        }
    }

    fn input(&self, size: Size) -> String {
        describe(dims(size))
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let (rows, cols, iters) = dims(size);
        let n = rows * cols;
        let image = speckle_image(rows, cols, &mut rng("sr1", size));
        let m = load(dev, PTX, "sr1")?;
        let img = dev.alloc_copy(&image)?;
        // clamped neighbour indices: the previous and the next row/column of each
        let prev = |len: usize| (0..len as i32).map(|i| (i - 1).max(0)).collect::<Vec<_>>();
        let next = |len: usize| {
            (0..len as i32)
                .map(|i| (i + 1).min(len as i32 - 1))
                .collect::<Vec<_>>()
        };
        let i_n = dev.alloc_copy(&prev(rows))?;
        let i_s = dev.alloc_copy(&next(rows))?;
        let j_w = dev.alloc_copy(&prev(cols))?;
        let j_e = dev.alloc_copy(&next(cols))?;
        let diff = Diffusion::alloc(dev, n)?;
        let cfg = grid1d(n as u32, BLOCK);
        let blocks = cfg.grid.x as usize;
        let psum = dev.malloc(4 * blocks as u64)?;
        let psq = dev.malloc(4 * blocks as u64)?;

        dev.launch(m, "sr1_extract", cfg, &[A::Ptr(img), A::S32(n as i32)])?;
        let mut cur = dev.read::<f32>(img, n)?;
        let want: Vec<f32> = image
            .iter()
            .map(|&v| (v as f64 / 255.0).exp() as f32)
            .collect();
        check_or_return!("extract", compare_f32("image", &cur, &want, 1e-5, 1e-6));
        for it in 0..iters {
            let args = [A::Ptr(img), A::S32(n as i32), A::Ptr(psum), A::Ptr(psq)];
            dev.launch(m, "sr1_reduce", cfg, &args)?;
            let partial_sum = |dev: &mut Device, p: DevPtr| -> Result<f64, WorkloadError> {
                Ok(dev.read::<f32>(p, blocks)?.iter().map(|&v| v as f64).sum())
            };
            let sum = partial_sum(dev, psum)?;
            let sq = partial_sum(dev, psq)?;
            let (want_sum, want_sq) = sums(&cur);
            check_or_return!(
                format!("iteration {it} reduce"),
                compare_f32(
                    "sum",
                    &[sum as f32, sq as f32],
                    &[want_sum as f32, want_sq as f32],
                    1e-5,
                    0.0
                )
            );
            let q0 = q0sqr(sum, sq, n);
            let (r_, c_) = (A::S32(rows as i32), A::S32(cols as i32));
            let head = [A::Ptr(img), r_.clone(), c_.clone()];
            let args: Vec<A> = (head.iter().cloned())
                .chain([A::Ptr(i_n), A::Ptr(i_s), A::Ptr(j_w), A::Ptr(j_e)])
                .chain(diff.args())
                .chain([A::F32(q0 as f32)])
                .collect();
            dev.launch(m, "sr1_srad", cfg, &args)?;
            let args: Vec<A> = head
                .into_iter()
                .chain([A::Ptr(i_s), A::Ptr(j_e)])
                .chain(diff.args())
                .chain([A::F32(LAMBDA)])
                .collect();
            dev.launch(m, "sr1_srad2", cfg, &args)?;
            let next = dev.read::<f32>(img, n)?;
            check_or_return!(
                format!("iteration {it}"),
                check_step(&next, &cur, (rows, cols), q0 as f32 as f64, LAMBDA)
            );
            cur = next;
        }
        dev.launch(m, "sr1_compress", cfg, &[A::Ptr(img), A::S32(n as i32)])?;
        let got = dev.read::<f32>(img, n)?;
        let want: Vec<f32> = cur
            .iter()
            .map(|&v| ((v as f64).ln() * 255.0) as f32)
            .collect();
        check_or_return!("compress", compare_f32("image", &got, &want, 1e-4, 1e-3));
        Ok(Check::Passed)
    }
}
