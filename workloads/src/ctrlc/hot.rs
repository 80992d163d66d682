//! `hot`: HotSpot (Rodinia), Table 5.3 input "512x512". See `workloads/hot/README.md`.
//!
//! Rodinia's chip constants (16 mm x 16 mm die, 0.5 mm thick, silicon heat capacity and
//! conductivity) give the per-cell coefficients, computed on the host. Pyramid height 2; the
//! paper size runs 2 time steps (Rodinia's run script: `hotspot 512 2 2`), small 4, tiny 4.
//! Launches: `hot_step` per pyramid (ping-pong temperature arrays). Checked against an f32 CPU
//! stencil within rtol 1e-6 / atol 1e-3 (temperatures are about 300-350 K; only fma contraction
//! may differ).

use crate::common::{by_size_fill, compare_f32, load, rng, shape};
use crate::{check_or_return, Check, Size, Workload, WorkloadError, WorkloadInfo};
use rand::Rng;
use warpforge_core::Dim3;
use warpforge_simt::{Device, KernelArg as A};

const PTX: &str = include_str!("../../hot/kernel.ptx");
/// CTA side (`HOT_BLOCK` in kernel.cu).
const BLOCK: usize = 16;
const PYRAMID: usize = 2;
const AMB: f32 = 80.0;

/// The HotSpot workload.
pub struct Hot;

/// (grid side, time steps) at `size`.
fn dims(size: Size) -> (usize, usize) {
    // Fill: the small grid x 1.625 (18 x 18 CTAs), the same time steps.
    by_size_fill(size, (32, 4), (128, 4), (208, 4), (512, 2))
}

/// (step/Cap, 1/Rx, 1/Ry, 1/Rz) for a `side` x `side` grid, from Rodinia's chip constants.
fn coefficients(side: usize) -> [f32; 4] {
    let (t_chip, chip_h, chip_w) = (0.0005f64, 0.016f64, 0.016f64);
    let (spec_heat, k_si, factor, max_pd, precision) = (1.75e6, 100.0, 0.5, 3.0e6, 0.001);
    let gh = chip_h / side as f64;
    let gw = chip_w / side as f64;
    let cap = factor * spec_heat * t_chip * gw * gh;
    let rx = gw / (2.0 * k_si * t_chip * gh);
    let ry = gh / (2.0 * k_si * t_chip * gw);
    let rz = t_chip / (k_si * gh * gw);
    let max_slope = max_pd / (factor * t_chip * spec_heat);
    let step = precision / max_slope;
    [
        (step / cap) as f32,
        (1.0 / rx) as f32,
        (1.0 / ry) as f32,
        (1.0 / rz) as f32,
    ]
}

fn cpu_step(t: &[f32], p: &[f32], side: usize, k: [f32; 4]) -> Vec<f32> {
    let mut out = vec![0f32; t.len()];
    for y in 0..side {
        for x in 0..side {
            let c = t[y * side + x];
            let n = t[y.saturating_sub(1) * side + x];
            let s = t[(y + 1).min(side - 1) * side + x];
            let w = t[y * side + x.saturating_sub(1)];
            let e = t[y * side + (x + 1).min(side - 1)];
            out[y * side + x] = c + k[0]
                * (p[y * side + x]
                    + (s + n - 2.0 * c) * k[2]
                    + (e + w - 2.0 * c) * k[1]
                    + (AMB - c) * k[3]);
        }
    }
    out
}

impl Workload for Hot {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "hot",
            application: "HotSpot (Rodinia)",
            suite: "Rodinia",
            sets: "Ctrl-C",
            kernels: &["hot_step"],
            behaviour: "shared-memory stencil pyramid; coalesced loads, barriers, compute-heavy",
        }
    }

    fn input(&self, size: Size) -> String {
        let (s, t): (usize, usize) = dims(size);
        format!("{s}x{s} grid, {t} time steps")
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let (side, steps): (usize, usize) = dims(size);
        let mut r = rng("hot", size);
        let temp: Vec<f32> = (0..side * side)
            .map(|_| r.gen_range(323.0..343.0))
            .collect();
        let power: Vec<f32> = (0..side * side).map(|_| r.gen_range(0.0..1.0e-3)).collect();
        let k = coefficients(side);
        let m = load(dev, PTX, "hot")?;
        let p = dev.alloc_copy(&power)?;
        let mut a = dev.alloc_copy(&temp)?;
        let mut b = dev.alloc_copy(&temp)?;
        let tiles = side.div_ceil(BLOCK - 2 * PYRAMID) as u32;
        let cfg = shape(
            Dim3::new(tiles, tiles, 1),
            Dim3::new(BLOCK as u32, BLOCK as u32, 1),
        );
        for _ in 0..steps / PYRAMID {
            let mut args = vec![
                A::Ptr(p),
                A::Ptr(a),
                A::Ptr(b),
                A::S32(side as i32),
                A::S32(side as i32),
            ];
            args.push(A::S32(PYRAMID as i32));
            args.extend(k.iter().map(|&x| A::F32(x)));
            args.push(A::F32(AMB));
            dev.launch(m, "hot_step", cfg, &args)?;
            std::mem::swap(&mut a, &mut b);
        }
        let mut want = temp;
        for _ in 0..steps {
            want = cpu_step(&want, &power, side, k);
        }
        let got: Vec<f32> = dev.read(a, side * side)?;
        check_or_return!("hot", compare_f32("temperature", &got, &want, 1e-6, 1e-3));
        Ok(Check::Passed)
    }
}
