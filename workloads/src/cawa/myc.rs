//! `myc`: myocyte-like cardiac cell ODE solver (modelled on Rodinia myocyte; latency Table 3.2).
//!
//! Each thread integrates one excitable-cell model (Hodgkin-Huxley-type sodium and potassium
//! gating, a calcium pool, a calcium-activated potassium current, periodic stimulus) with forward
//! Euler; the host launches one time span after another. Only one or a few warps exist, and each
//! step is a long dependent chain of SFU exponentials and divides: the "poor latency hiding" and
//! "data hazard" case of §2.4 (MYC).
//!
//! Check (stepwise): after every span, the state matches a CPU f64 integration of that span from
//! the device's state at its start (1e-3 relative, absolute 0.05 mV / 1e-4 for gates).

use rand::Rng;
use warpforge_simt::{Device, KernelArg as A};

use crate::common::{by_size, grid1d, load, rng};
use crate::{Check, Size, Workload, WorkloadError, WorkloadInfo};

const PTX: &str = include_str!("../../myc/kernel.ptx");
const NV: usize = 5;
const DT: f32 = 0.01;

/// The myocyte-like workload.
pub struct Myc;

fn dims(size: Size) -> (usize, usize, usize) {
    // (cells, spans, steps per span)
    by_size(size, (32, 2, 25), (64, 20, 50), (128, 100, 100))
}

fn vtrap(x: f64, k: f64) -> f64 {
    if x.abs() < 1e-4 {
        k
    } else {
        x / (1.0 - (-x / k).exp())
    }
}

/// Integrates one cell for `steps` Euler steps (the kernel's model, in f64).
fn integrate(s: &mut [f64; NV], g_na: f64, per: i32, step0: i32, steps: i32) {
    let dt = DT as f64;
    let [mut v, mut m, mut h, mut n, mut ca] = *s;
    for k in 0..steps {
        let am = 0.1 * vtrap(v + 40.0, 10.0);
        let bm = 4.0 * (-(v + 65.0) / 18.0).exp();
        let ah = 0.07 * (-(v + 65.0) / 20.0).exp();
        let bh = 1.0 / (1.0 + (-(v + 35.0) / 10.0).exp());
        let an = 0.01 * vtrap(v + 55.0, 10.0);
        let bn = 0.125 * (-(v + 65.0) / 80.0).exp();
        let ina = g_na * m * m * m * h * (v - 50.0);
        let ik = 36.0 * n.powi(4) * (v + 77.0);
        let il = 0.3 * (v + 54.4);
        let ikca = 2.0 * ca / (ca + 1.0) * (v + 77.0);
        let stim = if (step0 + k) % per < 100 { 10.0 } else { 0.0 };
        let dv = stim - ina - ik - il - ikca;
        let dca = -0.0005 * ina - ca / 80.0;
        v += dt * dv;
        m += dt * (am * (1.0 - m) - bm * m);
        h += dt * (ah * (1.0 - h) - bh * h);
        n += dt * (an * (1.0 - n) - bn * n);
        ca += dt * dca;
    }
    *s = [v, m, h, n, ca];
}

impl Workload for Myc {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "myc",
            application: "Myocyte (Rodinia)",
            suite: "Rodinia",
            sets: "latency",
            kernels: &["myc_solve"],
            behaviour: "1-4 warps, long dependent SFU/divide chains, host time-span loop",
        }
    }

    fn input(&self, size: Size) -> String {
        let (c, s, k) = dims(size);
        format!("{c} cells, {s} spans x {k} steps of {DT} ms")
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let (cells, spans, steps) = dims(size);
        let mut r = rng("myc", size);
        let gna: Vec<f32> = (0..cells).map(|_| r.gen_range(100.0..140.0)).collect();
        let period: Vec<i32> = (0..cells).map(|_| r.gen_range(800..2000)).collect();
        let mut state = vec![0f32; NV * cells];
        for c in 0..cells {
            let init = [-65.0, 0.05, 0.6, 0.32, 0.0];
            for (v, x) in init.iter().enumerate() {
                state[v * cells + c] = x + r.gen_range(-0.01f32..0.01);
            }
        }
        let m = load(dev, PTX, "myc")?;
        let ds = dev.alloc_copy(&state)?;
        let dg = dev.alloc_copy(&gna)?;
        let dp = dev.alloc_copy(&period)?;
        let cfg = grid1d(cells as u32, 32);
        for span in 0..spans {
            let step0 = (span * steps) as i32;
            let args = [
                A::Ptr(ds),
                A::Ptr(dg),
                A::Ptr(dp),
                A::S32(cells as i32),
                A::S32(step0),
                A::S32(steps as i32),
                A::F32(DT),
            ];
            dev.launch(m, "myc_solve", cfg, &args)?;
            let got = dev.read::<f32>(ds, NV * cells)?;
            for c in 0..cells {
                let mut s = [0f64; NV];
                for (v, x) in s.iter_mut().enumerate() {
                    *x = state[v * cells + c] as f64;
                }
                integrate(&mut s, gna[c] as f64, period[c], step0, steps as i32);
                for (v, &want) in s.iter().enumerate() {
                    let g = got[v * cells + c] as f64;
                    let atol = if v == 0 { 0.05 } else { 1e-4 };
                    if (g - want).abs() > atol + 1e-3 * want.abs() {
                        return Ok(Check::Failed(format!(
                            "span {span}: cell {c} variable {v} = {g}, reference {want}"
                        )));
                    }
                }
            }
            state = got;
        }
        Ok(Check::Passed)
    }
}
