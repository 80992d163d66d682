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

use rand::Rng;
use warpforge_simt::{DevPtr, Device, KernelArg as A};

use crate::common::{by_size, compare_f32, grid1d, load, rng};
use crate::{check_or_return, Check, Size, Workload, WorkloadError, WorkloadInfo};

const PTX: &str = include_str!("../../sr1/kernel.ptx");
const BLOCK: u32 = 256;
const LAMBDA: f32 = 0.5;

/// The SRAD v1 workload.
pub struct Sr1;

fn dims(size: Size) -> (usize, usize, usize) {
    // (rows, cols, iterations)
    by_size(size, (32, 32, 2), (128, 128, 4), (502, 458, 100))
}

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
        let (r, c, it) = dims(size);
        format!("{r}x{c} image, {it} iterations")
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let (rows, cols, iters) = dims(size);
        let n = rows * cols;
        let image = speckle_image(rows, cols, &mut rng("sr1", size));
        let m = load(dev, PTX, "sr1")?;
        let img = dev.alloc_copy(&image)?;
        let idx = |v: Vec<i32>, dev: &mut Device| dev.alloc_copy(&v);
        let i_n = idx((0..rows as i32).map(|r| (r - 1).max(0)).collect(), dev)?;
        let i_s = idx(
            (0..rows as i32)
                .map(|r| (r + 1).min(rows as i32 - 1))
                .collect(),
            dev,
        )?;
        let j_w = idx((0..cols as i32).map(|c| (c - 1).max(0)).collect(), dev)?;
        let j_e = idx(
            (0..cols as i32)
                .map(|c| (c + 1).min(cols as i32 - 1))
                .collect(),
            dev,
        )?;
        let mut bufs = [DevPtr(0); 5];
        for b in &mut bufs {
            *b = dev.malloc(4 * n as u64)?;
        }
        let [dn, ds, dw, de, c] = bufs;
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
            let sum: f64 = dev
                .read::<f32>(psum, blocks)?
                .iter()
                .map(|&v| v as f64)
                .sum();
            let sq: f64 = dev
                .read::<f32>(psq, blocks)?
                .iter()
                .map(|&v| v as f64)
                .sum();
            let want_sum: f64 = cur.iter().map(|&v| v as f64).sum();
            let want_sq: f64 = cur.iter().map(|&v| (v as f64).powi(2)).sum();
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
            let args = [
                A::Ptr(img),
                r_.clone(),
                c_.clone(),
                A::Ptr(i_n),
                A::Ptr(i_s),
                A::Ptr(j_w),
                A::Ptr(j_e),
                A::Ptr(dn),
                A::Ptr(ds),
                A::Ptr(dw),
                A::Ptr(de),
                A::Ptr(c),
                A::F32(q0 as f32),
            ];
            dev.launch(m, "sr1_srad", cfg, &args)?;
            let args = [
                A::Ptr(img),
                r_,
                c_,
                A::Ptr(i_s),
                A::Ptr(j_e),
                A::Ptr(dn),
                A::Ptr(ds),
                A::Ptr(dw),
                A::Ptr(de),
                A::Ptr(c),
                A::F32(LAMBDA),
            ];
            dev.launch(m, "sr1_srad2", cfg, &args)?;
            let next = dev.read::<f32>(img, n)?;
            let want = srad_step(&cur, rows, cols, q0 as f32 as f64, LAMBDA as f64);
            check_or_return!(
                format!("iteration {it}"),
                compare_f32("image", &next, &want, 1e-4, 1e-5)
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
