//! The SRAD diffusion shared by `sr1` and `sr2` (Rodinia srad_v1 / srad_v2): the synthetic
//! speckle input, the CPU f64 reference of one iteration, the image statistic `q0^2`, the five
//! per-pixel buffers both kernels' iterations use, and the per-iteration check.

use rand::Rng;
use warpforge_simt::{DevPtr, Device, KernelArg as A};

use crate::common::compare_f32;
use crate::{Check, WorkloadError};

/// Synthetic ultrasound-like image: smooth blobs times multiplicative speckle, in 0..255.
pub(crate) fn speckle_image(rows: usize, cols: usize, r: &mut impl Rng) -> Vec<f32> {
    (0..rows * cols)
        .map(|i| {
            let (y, x) = ((i / cols) as f32, (i % cols) as f32);
            let base = 120.0 + 60.0 * (x * 0.11).sin() * (y * 0.07).cos();
            (base * r.gen_range(0.6f32..1.4)).clamp(1.0, 255.0)
        })
        .collect()
}

/// One SRAD iteration on the CPU in f64 (row-major, clamped neighbours).
pub(crate) fn srad_step(
    img: &[f32],
    rows: usize,
    cols: usize,
    q0sqr: f64,
    lambda: f64,
) -> Vec<f32> {
    let at = |r: usize, c: usize| img[r * cols + c] as f64;
    let n = rows * cols;
    let (mut d, mut cc) = (vec![[0f64; 4]; n], vec![0f64; n]);
    for r in 0..rows {
        for c in 0..cols {
            let jc = at(r, c);
            let dn = at(r.saturating_sub(1), c) - jc;
            let ds = at((r + 1).min(rows - 1), c) - jc;
            let dw = at(r, c.saturating_sub(1)) - jc;
            let de = at(r, (c + 1).min(cols - 1)) - jc;
            let g2 = (dn * dn + ds * ds + dw * dw + de * de) / (jc * jc);
            let l = (dn + ds + dw + de) / jc;
            let num = 0.5 * g2 - l * l / 16.0;
            let den = 1.0 + 0.25 * l;
            let qsqr = num / (den * den);
            let den = (qsqr - q0sqr) / (q0sqr * (1.0 + q0sqr));
            cc[r * cols + c] = (1.0 / (1.0 + den)).clamp(0.0, 1.0);
            d[r * cols + c] = [dn, ds, dw, de];
        }
    }
    (0..n)
        .map(|i| {
            let (r, c) = (i / cols, i % cols);
            let cs = cc[(r + 1).min(rows - 1) * cols + c];
            let ce = cc[r * cols + (c + 1).min(cols - 1)];
            let [dn, ds, dw, de] = d[i];
            let div = cc[i] * dn + cs * ds + cc[i] * dw + ce * de;
            (img[i] as f64 + 0.25 * lambda * div) as f32
        })
        .collect()
}

/// `q0^2 = var / mean^2` of the image from its sum and sum of squares.
pub(crate) fn q0sqr(sum: f64, sq: f64, n: usize) -> f64 {
    let mean = sum / n as f64;
    let var = sq / n as f64 - mean * mean;
    var / (mean * mean)
}

/// The diffusion rate (lambda) of both SRAD workloads.
pub(crate) const LAMBDA: f32 = 0.5;

/// The input description of a SRAD workload of `rows` x `cols` pixels and `iters` iterations.
pub(crate) fn describe((rows, cols, iters): (usize, usize, usize)) -> String {
    format!("{rows}x{cols} image, {iters} iterations")
}

/// Sum and sum of squares of an image, in f64.
pub(crate) fn sums(img: &[f32]) -> (f64, f64) {
    let sum: f64 = img.iter().map(|&v| v as f64).sum();
    let sq: f64 = img.iter().map(|&v| (v as f64).powi(2)).sum();
    (sum, sq)
}

/// The per-pixel buffers of one SRAD iteration (`f32`, one per pixel): the four directional
/// derivatives (north, south, west, east) and the diffusion coefficient.
pub(crate) struct Diffusion {
    /// `[dn, ds, dw, de, c]`.
    bufs: [DevPtr; 5],
}

impl Diffusion {
    /// Allocates the five buffers for `n` pixels.
    pub(crate) fn alloc(dev: &mut Device, n: usize) -> Result<Self, WorkloadError> {
        let mut bufs = [DevPtr(0); 5];
        for b in &mut bufs {
            *b = dev.malloc(4 * n as u64)?;
        }
        Ok(Diffusion { bufs })
    }

    /// The buffers as kernel arguments, in the kernels' order `dn, ds, dw, de, c`.
    pub(crate) fn args(&self) -> [A; 5] {
        self.bufs.map(A::Ptr)
    }
}

/// Checks iteration `next` of the device against the CPU step from `cur` (`q0sqr` as the
/// kernel received it, `lambda` the diffusion rate).
pub(crate) fn check_step(
    next: &[f32],
    cur: &[f32],
    (rows, cols): (usize, usize),
    q0sqr: f64,
    lambda: f32,
) -> Check {
    let want = srad_step(cur, rows, cols, q0sqr, lambda as f64);
    compare_f32("image", next, &want, 1e-4, 1e-5)
}
