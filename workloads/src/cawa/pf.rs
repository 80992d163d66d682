//! `pf`: particle filter (Rodinia particlefilter, float version; CAWA Non-sens set, Ctrl-C,
//! Table 3.2).
//!
//! Five kernels per frame, host frame loop. The likelihood kernel gathers a disk footprint from
//! the frame (data-dependent addresses) and reduces weights in shared memory; `pf_sum` and
//! `pf_cdf` are single-thread serial sections; `pf_find_index` searches the CDF linearly, so
//! threads loop for different trip counts (divergence, imbalance: the sync/data-hazard findings
//! of §2.4).
//!
//! Check (stepwise, every frame): moved particles exactly; weights and block sums within 1e-4
//! relative of CPU f64 (the kernel uses `__expf`); the CDF against a CPU prefix sum of the
//! device's normalised weights; resampled positions exactly against a CPU search of the device's
//! CDF.

use rand::Rng;
use warpforge_simt::{Device, KernelArg as A};

use crate::common::{by_size, compare_exact, compare_f32, grid1d, load, rng};
use crate::{check_or_return, Check, Size, Workload, WorkloadError, WorkloadInfo};

const PTX: &str = include_str!("../../pf/kernel.ptx");
const BLOCK: u32 = 128;
const RADIUS: i32 = 5;

/// The particle-filter workload.
pub struct Pf;

fn dims(size: Size) -> (usize, usize, usize) {
    // (frame side, frames, particles)
    by_size(size, (32, 2, 128), (128, 4, 1024), (128, 10, 10000))
}

impl Workload for Pf {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "pf",
            application: "Particle Filter (Rodinia)",
            suite: "Rodinia",
            sets: "latency, CAWA (Non-sens), Ctrl-C",
            kernels: &[
                "pf_likelihood",
                "pf_sum",
                "pf_normalize",
                "pf_cdf",
                "pf_find_index",
            ],
            behaviour: "gathers, SFU exp, serial single-thread sections, divergent CDF search",
        }
    }

    fn input(&self, size: Size) -> String {
        let (s, f, p) = dims(size);
        format!("{s}x{s}x{f} video, {p} particles")
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let (side, frames, n) = dims(size);
        let mut r = rng("pf", size);
        // Disk footprint offsets.
        let mut obj = Vec::new();
        for dy in -RADIUS..=RADIUS {
            for dx in -RADIUS..=RADIUS {
                if dx * dx + dy * dy <= RADIUS * RADIUS {
                    obj.extend([dx, dy]);
                }
            }
        }
        let ones = obj.len() / 2;
        let m = load(dev, PTX, "pf")?;
        let start = side as f32 / 2.0;
        let mut ax = vec![start; n];
        let y0 = start + frames as f32;
        let mut ay = vec![y0; n];
        let dax = dev.alloc_copy(&ax)?;
        let day = dev.alloc_copy(&ay)?;
        let mut weights = vec![1.0 / n as f32; n];
        let dw = dev.alloc_copy(&weights)?;
        let dobj = dev.alloc_copy(&obj)?;
        let dnx = dev.malloc(4 * n as u64)?;
        let dny = dev.malloc(4 * n as u64)?;
        let dframe = dev.malloc(4 * (side * side) as u64)?;
        let cfg = grid1d(n as u32, BLOCK);
        let blocks = cfg.grid.x as usize;
        let dpart = dev.malloc(4 * blocks as u64)?;
        let dsum = dev.malloc(4)?;
        let dcdf = dev.malloc(4 * n as u64)?;
        let dxj = dev.malloc(4 * n as u64)?;
        let dyj = dev.malloc(4 * n as u64)?;
        let one = grid1d(1, 32);
        for f in 0..frames {
            // The object: a bright disk moving (+1, -2) per frame on a dark noisy background.
            let (ox, oy) = (start as i32 + f as i32 + 1, y0 as i32 - 2 * (f as i32 + 1));
            let frame: Vec<i32> = (0..side * side)
                .map(|p| {
                    let (x, y) = ((p % side) as i32, (p / side) as i32);
                    let inside = (x - ox).pow(2) + (y - oy).pow(2) <= RADIUS * RADIUS;
                    let base = if inside { 228 } else { 100 };
                    (base + r.gen_range(-20..=20)).clamp(0, 255)
                })
                .collect();
            let nx: Vec<f32> = (0..n).map(|_| r.gen_range(-2.0f32..2.0)).collect();
            let ny: Vec<f32> = (0..n).map(|_| r.gen_range(-2.0f32..2.0)).collect();
            dev.copy_htod(dframe, &frame)?;
            dev.copy_htod(dnx, &nx)?;
            dev.copy_htod(dny, &ny)?;
            let args = [
                A::Ptr(dax),
                A::Ptr(day),
                A::Ptr(dnx),
                A::Ptr(dny),
                A::Ptr(dframe),
                A::S32(side as i32),
                A::S32(side as i32),
                A::Ptr(dobj),
                A::S32(ones as i32),
                A::Ptr(dw),
                A::Ptr(dpart),
                A::S32(n as i32),
            ];
            dev.launch(m, "pf_likelihood", cfg, &args)?;
            // CPU likelihood from the same state.
            let mut want_w = vec![0f32; n];
            for i in 0..n {
                ax[i] = ax[i] + 1.0 + nx[i];
                ay[i] = ay[i] - 2.0 + ny[i];
                let (cx, cy) = ((ax[i] + 0.5) as i32, (ay[i] + 0.5) as i32);
                let mut lik = 0f64;
                for o in obj.chunks(2) {
                    let px = (cx + o[0]).clamp(0, side as i32 - 1) as usize;
                    let py = (cy + o[1]).clamp(0, side as i32 - 1) as usize;
                    let v = frame[py * side + px] as f64;
                    lik += ((v - 100.0).powi(2) - (v - 228.0).powi(2)) / 2000.0;
                }
                want_w[i] = (weights[i] as f64 * (lik / ones as f64).exp()) as f32;
            }
            let got_x = dev.read::<f32>(dax, n)?;
            let got_y = dev.read::<f32>(day, n)?;
            let got_w = dev.read::<f32>(dw, n)?;
            let part = dev.read::<f32>(dpart, blocks)?;
            let want_part: Vec<f32> = got_w
                .chunks(BLOCK as usize)
                .map(|c| c.iter().map(|&v| v as f64).sum::<f64>() as f32)
                .collect();
            check_or_return!(
                format!("frame {f} likelihood"),
                compare_exact("x", &got_x, &ax),
                compare_exact("y", &got_y, &ay),
                compare_f32("weight", &got_w, &want_w, 2e-4, 0.0),
                compare_f32("block sum", &part, &want_part, 1e-4, 0.0),
            );
            dev.launch(
                m,
                "pf_sum",
                one,
                &[A::Ptr(dpart), A::S32(blocks as i32), A::Ptr(dsum)],
            )?;
            dev.launch(
                m,
                "pf_normalize",
                cfg,
                &[A::Ptr(dw), A::Ptr(dsum), A::S32(n as i32)],
            )?;
            dev.launch(
                m,
                "pf_cdf",
                one,
                &[A::Ptr(dw), A::Ptr(dcdf), A::S32(n as i32)],
            )?;
            let sum: f64 = part.iter().map(|&v| v as f64).sum();
            let norm = dev.read::<f32>(dw, n)?;
            let want_norm: Vec<f32> = got_w.iter().map(|&v| (v as f64 / sum) as f32).collect();
            let cdf = dev.read::<f32>(dcdf, n)?;
            let mut acc = 0f32;
            let want_cdf: Vec<f32> = norm
                .iter()
                .map(|&w| {
                    acc += w;
                    acc
                })
                .collect();
            check_or_return!(
                format!("frame {f} normalize"),
                compare_f32("normalised weight", &norm, &want_norm, 1e-4, 0.0),
                compare_exact("cdf", &cdf, &want_cdf),
            );
            let u1 = r.gen_range(0.0f32..1.0) / n as f32;
            let args = [
                A::Ptr(dcdf),
                A::Ptr(dax),
                A::Ptr(day),
                A::Ptr(dxj),
                A::Ptr(dyj),
                A::Ptr(dw),
                A::F32(u1),
                A::S32(n as i32),
            ];
            dev.launch(m, "pf_find_index", cfg, &args)?;
            let (mut rx, mut ry) = (vec![0f32; n], vec![0f32; n]);
            for i in 0..n {
                let u = u1 + i as f32 / n as f32;
                let idx = cdf.iter().position(|&c| c >= u).unwrap_or(n - 1);
                rx[i] = ax[idx];
                ry[i] = ay[idx];
            }
            let xj = dev.read::<f32>(dxj, n)?;
            let yj = dev.read::<f32>(dyj, n)?;
            check_or_return!(
                format!("frame {f} resample"),
                compare_exact("x", &xj, &rx),
                compare_exact("y", &yj, &ry),
            );
            // Resampled particles become the next frame's state.
            ax = xj;
            ay = yj;
            dev.copy_htod(dax, &ax)?;
            dev.copy_htod(day, &ay)?;
            weights = vec![1.0 / n as f32; n];
        }
        Ok(Check::Passed)
    }
}
