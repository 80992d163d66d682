//! `ctex`: convolutionTexture (NVIDIA CUDA SDK), the CONVTEX of DARSIE's Table 7.1 (TB 16x16).
//! See `workloads/ctex/README.md`.
//!
//! Input: a w x h image and a 17-tap kernel of small integers (0..15, as the SDK's
//! `rand() % 16`), so every sum is an exactly representable float. Two launches on a
//! (w/16) x (h/16) grid: `convolutionRowsKernel` (image -> buffer) then
//! `convolutionColumnsKernel` (buffer -> output), both with clamp-to-edge indexing (the SDK's
//! texture address mode). Checked exactly against a CPU reference of the same two passes.

use crate::common::{by_size_fill, compare_f32, load, rng, shape};
use crate::{check_or_return, Check, Size, Workload, WorkloadError, WorkloadInfo};
use rand::Rng;
use warpforge_core::Dim3;
use warpforge_simt::{Device, KernelArg as A};

const PTX: &str = include_str!("../../ctex/kernel.ptx");
/// Kernel radius (`KERNEL_RADIUS` in the kernel and the SDK).
const RADIUS: usize = 8;
/// Taps of the kernel.
const TAPS: usize = 2 * RADIUS + 1;
/// CTA edge (16x16, Table 7.1).
const BLOCK: usize = 16;

/// The convolutionTexture workload.
pub struct Ctex;

/// (image width, image height) at `size` (paper: the SDK's 3072 x 3072).
fn dims(size: Size) -> (usize, usize) {
    // Fill: the small image x 1.375 (22 x 22 CTAs per pass).
    by_size_fill(size, (32, 32), (256, 256), (352, 352), (3072, 3072))
}

/// One separable pass on the CPU: `rows` convolves along x, otherwise along y; clamp to edge.
fn pass(src: &[f32], w: usize, h: usize, taps: &[f32], rows: bool) -> Vec<f32> {
    let mut out = vec![0f32; w * h];
    for y in 0..h {
        for x in 0..w {
            let mut s = 0f32;
            for k in -(RADIUS as i64)..=RADIUS as i64 {
                let (sx, sy) = if rows {
                    ((x as i64 + k).clamp(0, w as i64 - 1) as usize, y)
                } else {
                    (x, (y as i64 + k).clamp(0, h as i64 - 1) as usize)
                };
                s += src[sy * w + sx] * taps[(RADIUS as i64 - k) as usize];
            }
            out[y * w + x] = s;
        }
    }
    out
}

impl Workload for Ctex {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "ctex",
            application: "convolutionTexture, separable 17-tap convolution (NVIDIA SDK)",
            suite: "NVIDIA SDK",
            sets: "DARSIE",
            kernels: &["convolutionRowsKernel", "convolutionColumnsKernel"],
            behaviour: "16x16 CTAs, row then column pass, uniform tap loads, clamped image reads",
        }
    }

    fn input(&self, size: Size) -> String {
        let (w, h) = dims(size);
        format!("{w}x{h} image, {TAPS}-tap kernel")
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let (w, h) = dims(size);
        assert!(w % BLOCK == 0 && h % BLOCK == 0);
        let mut r = rng("ctex", size);
        let taps: Vec<f32> = (0..TAPS).map(|_| r.gen_range(0..16) as f32).collect();
        let img: Vec<f32> = (0..w * h).map(|_| r.gen_range(0..16) as f32).collect();
        let m = load(dev, PTX, "ctex")?;
        let sym = dev
            .symbol_address(m, "c_Kernel")
            .ok_or_else(|| crate::common::err("ctex: symbol c_Kernel missing"))?;
        dev.copy_htod(sym, &taps)?;
        let src = dev.alloc_copy(&img)?;
        let buf = dev.malloc((w * h) as u64 * 4)?;
        let dst = dev.malloc((w * h) as u64 * 4)?;
        let cfg = shape(
            Dim3::new((w / BLOCK) as u32, (h / BLOCK) as u32, 1),
            Dim3::new(BLOCK as u32, BLOCK as u32, 1),
        );
        let (iw, ih) = (A::S32(w as i32), A::S32(h as i32));
        dev.launch(
            m,
            "convolutionRowsKernel",
            cfg,
            &[A::Ptr(buf), A::Ptr(src), iw.clone(), ih.clone()],
        )?;
        dev.launch(
            m,
            "convolutionColumnsKernel",
            cfg,
            &[A::Ptr(dst), A::Ptr(buf), iw, ih],
        )?;
        let want = pass(&pass(&img, w, h, &taps, true), w, h, &taps, false);
        let got: Vec<f32> = dev.read(dst, w * h)?;
        // Integer data: every partial sum is exact in f32, whatever the summation order.
        check_or_return!("ctex", compare_f32("output", &got, &want, 0.0, 0.0));
        Ok(Check::Passed)
    }
}
