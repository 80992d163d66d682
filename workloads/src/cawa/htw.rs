//! `htw`: heartwall-like template tracking (modelled on Rodinia heartwall; CAWA Sens set,
//! Ctrl-C, Table 3.2).
//!
//! Sample points lie on two ellipses (the inner and outer heart wall). For every frame the host
//! launches one CTA per point: template (from frame 0) and search window (current frame) go to
//! shared memory, each thread scores candidate displacements by a sum of squared differences, and
//! a shared argmin reduction picks the best. The frames are a textured image drifting by a
//! per-frame displacement plus noise. Scores are integers, so the check is exact: the tracked
//! positions after every frame equal the CPU's.

use rand::Rng;
use warpforge_core::Dim3;
use warpforge_simt::{Device, KernelArg as A};

use crate::common::{by_size, compare_exact, load, rng, shape};
use crate::{check_or_return, Check, Size, Workload, WorkloadError, WorkloadInfo};

const PTX: &str = include_str!("../../htw/kernel.ptx");
const THREADS: u32 = 256;

/// The heartwall-like workload.
pub struct Htw;

struct Dims {
    w: usize,
    h: usize,
    points: usize,
    frames: usize,
    ts: usize,
    radius: usize,
}

fn dims(size: Size) -> Dims {
    let (w, h, points, frames, ts, radius) = by_size(
        size,
        (64, 64, 4, 2, 8, 4),
        (256, 256, 16, 3, 16, 8),
        (656, 744, 51, 5, 25, 12),
    );
    Dims {
        w,
        h,
        points,
        frames,
        ts,
        radius,
    }
}

fn clamp(v: i32, hi: usize) -> usize {
    v.clamp(0, hi as i32 - 1) as usize
}

/// CPU tracking step: the best displacement of point `p`, as the kernel computes it.
fn track(f0: &[i32], f: &[i32], d: &Dims, p: (i32, i32), c: (i32, i32)) -> (i32, i32) {
    let (ts, r) = (d.ts as i32, d.radius as i32);
    let half = ts / 2;
    let side = 2 * r + 1;
    let (mut best, mut bi) = (i64::MAX, 0);
    for o in 0..side * side {
        let (oy, ox) = (o / side, o % side);
        let mut s = 0i64;
        for ty in 0..ts {
            for tx in 0..ts {
                let tv = f0[clamp(p.1 - half + ty, d.h) * d.w + clamp(p.0 - half + tx, d.w)];
                let wy = c.1 - r - half + oy + ty;
                let wx = c.0 - r - half + ox + tx;
                let wv = f[clamp(wy, d.h) * d.w + clamp(wx, d.w)];
                s += ((wv - tv) as i64).pow(2);
            }
        }
        if s < best {
            best = s;
            bi = o;
        }
    }
    (c.0 + bi % side - r, c.1 + bi / side - r)
}

impl Workload for Htw {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "htw",
            application: "Heartwall (Rodinia)",
            suite: "Rodinia",
            sets: "latency, CAWA (Sens), Ctrl-C",
            kernels: &["htw_track"],
            behaviour:
                "compute-bound SSD loops on shared tiles, argmin reduction, partial last pass",
        }
    }

    fn input(&self, size: Size) -> String {
        let d = dims(size);
        format!(
            "{}x{} frames x {}, {} points, {}x{} template, +-{} search",
            d.w, d.h, d.frames, d.points, d.ts, d.ts, d.radius
        )
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let d = dims(size);
        let mut r = rng("htw", size);
        // A textured scene larger than the frame; frame f views it shifted by `shift[f]`.
        let phases: Vec<(f32, f32, f32)> = (0..6)
            .map(|_| {
                (
                    r.gen_range(0.05..0.4),
                    r.gen_range(0.05..0.4),
                    r.gen_range(0.0..6.0),
                )
            })
            .collect();
        let scene = |x: i32, y: i32| -> i32 {
            let v: f32 = phases
                .iter()
                .map(|&(a, b, ph)| (a * x as f32 + ph).sin() * (b * y as f32).cos())
                .sum();
            (128.0 + 20.0 * v) as i32
        };
        let mut shift = (0i32, 0i32);
        let make_frame = |shift: (i32, i32), r: &mut rand_chacha::ChaCha8Rng| -> Vec<i32> {
            (0..d.w * d.h)
                .map(|i| {
                    let (x, y) = ((i % d.w) as i32, (i / d.w) as i32);
                    (scene(x + shift.0, y + shift.1) + r.gen_range(-3..=3)).clamp(0, 255)
                })
                .collect()
        };
        let f0 = make_frame(shift, &mut r);
        // Points on two ellipses around the centre.
        let (cxm, cym) = (d.w as f32 / 2.0, d.h as f32 / 2.0);
        let (mut px, mut py) = (Vec::new(), Vec::new());
        for k in 0..d.points {
            let ring = if k % 2 == 0 { 0.2 } else { 0.33 };
            let a = k as f32 / d.points as f32 * std::f32::consts::TAU;
            px.push((cxm + ring * d.w as f32 * a.cos()) as i32);
            py.push((cym + ring * d.h as f32 * a.sin()) as i32);
        }
        let m = load(dev, PTX, "htw")?;
        let df0 = dev.alloc_copy(&f0)?;
        let dframe = dev.malloc(4 * (d.w * d.h) as u64)?;
        let dpx = dev.alloc_copy(&px)?;
        let dpy = dev.alloc_copy(&py)?;
        let dcx = dev.alloc_copy(&px)?;
        let dcy = dev.alloc_copy(&py)?;
        let dox = dev.malloc(4 * d.points as u64)?;
        let doy = dev.malloc(4 * d.points as u64)?;
        let (mut cx, mut cy) = (px.clone(), py.clone());
        let cfg = shape(Dim3::x(d.points as u32), Dim3::x(THREADS));
        for f in 1..=d.frames {
            shift = (shift.0 + r.gen_range(-2..=2), shift.1 + r.gen_range(-2..=2));
            let frame = make_frame(shift, &mut r);
            dev.copy_htod(dframe, &frame)?;
            dev.copy_htod(dcx, &cx)?;
            dev.copy_htod(dcy, &cy)?;
            let args = [
                A::Ptr(df0),
                A::Ptr(dframe),
                A::S32(d.w as i32),
                A::S32(d.h as i32),
                A::Ptr(dpx),
                A::Ptr(dpy),
                A::Ptr(dcx),
                A::Ptr(dcy),
                A::S32(d.ts as i32),
                A::S32(d.radius as i32),
                A::Ptr(dox),
                A::Ptr(doy),
            ];
            dev.launch(m, "htw_track", cfg, &args)?;
            let gx = dev.read::<i32>(dox, d.points)?;
            let gy = dev.read::<i32>(doy, d.points)?;
            let (mut wx, mut wy) = (Vec::new(), Vec::new());
            for k in 0..d.points {
                let (x, y) = track(&f0, &frame, &d, (px[k], py[k]), (cx[k], cy[k]));
                wx.push(x);
                wy.push(y);
            }
            check_or_return!(
                format!("frame {f}"),
                compare_exact("x", &gx, &wx),
                compare_exact("y", &gy, &wy),
            );
            cx = gx;
            cy = gy;
        }
        Ok(Check::Passed)
    }
}
