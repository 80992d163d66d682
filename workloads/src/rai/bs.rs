//! `bs`: BLACKSCHOLES (NVIDIA CUDA SDK 4.2), document 004 Table 3 (480 blocks x 128 threads).
//! See `workloads/bs/README.md`.
//!
//! Options as in the SDK: spot in [5, 30), strike in [1, 100), expiry in [0.25, 10) years, risk-free
//! rate 0.02, volatility 0.30. One `bs_price` launch with a grid-stride loop prices every option's
//! call and put. Checked against an f64 evaluation of the same formula (the same polynomial
//! N(d)) within rtol 1e-3 / atol 1e-3 (the kernel uses `ex2.approx` / `lg2.approx`).

use crate::common::{by_size, compare_f32, load, rng, shape};
use crate::{check_or_return, Check, Size, Workload, WorkloadError, WorkloadInfo};
use rand::Rng;
use warpforge_core::Dim3;
use warpforge_simt::{Device, KernelArg as A};

const PTX: &str = include_str!("../../bs/kernel.ptx");
const RISK_FREE: f32 = 0.02;
const VOLATILITY: f32 = 0.30;
const THREADS: u32 = 128;

/// The Black-Scholes workload.
pub struct Bs;

/// (options, blocks of 128 threads) at `size`. Paper: the SDK's 4M options on Table 3's grid.
fn dims(size: Size) -> (usize, u32) {
    by_size(size, (1000, 2), (245_760, 480), (4_000_000, 480))
}

/// N(d) by the Abramowitz-Stegun polynomial, in f64.
fn cnd(d: f64) -> f64 {
    const A: [f64; 5] = [
        0.31938153,
        -0.356563782,
        1.781477937,
        -1.821255978,
        1.330274429,
    ];
    let k = 1.0 / (1.0 + 0.2316419 * d.abs());
    let poly = k * (A[0] + k * (A[1] + k * (A[2] + k * (A[3] + k * A[4]))));
    let c = (-0.5 * d * d).exp() / (2.0 * std::f64::consts::PI).sqrt() * poly;
    if d > 0.0 {
        1.0 - c
    } else {
        c
    }
}

/// (call, put) of one option, in f64.
fn reference(s: f64, x: f64, t: f64) -> (f64, f64) {
    let (r, v) = (RISK_FREE as f64, VOLATILITY as f64);
    let sqrt_t = t.sqrt();
    let d1 = ((s / x).ln() + (r + 0.5 * v * v) * t) / (v * sqrt_t);
    let d2 = d1 - v * sqrt_t;
    let (c1, c2) = (cnd(d1), cnd(d2));
    let e = (-r * t).exp();
    (s * c1 - x * e * c2, x * e * (1.0 - c2) - s * (1.0 - c1))
}

impl Workload for Bs {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "bs",
            application: "BlackScholes (NVIDIA SDK)",
            suite: "NVIDIA SDK",
            sets: "RAI",
            kernels: &["bs_price"],
            behaviour:
                "streaming grid-stride loop, 3 loads + 2 stores per option, no reuse, SFU exp/log",
        }
    }

    fn input(&self, size: Size) -> String {
        let (n, b) = dims(size);
        format!("{n} options, {b} x {THREADS} threads")
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let (n, blocks) = dims(size);
        let mut r = rng("bs", size);
        let spot: Vec<f32> = (0..n).map(|_| r.gen_range(5.0..30.0)).collect();
        let strike: Vec<f32> = (0..n).map(|_| r.gen_range(1.0..100.0)).collect();
        let years: Vec<f32> = (0..n).map(|_| r.gen_range(0.25..10.0)).collect();
        let m = load(dev, PTX, "bs")?;
        let (ds, dx, dt) = (
            dev.alloc_copy(&spot)?,
            dev.alloc_copy(&strike)?,
            dev.alloc_copy(&years)?,
        );
        let call = dev.alloc_copy(&vec![0f32; n])?;
        let put = dev.alloc_copy(&vec![0f32; n])?;
        dev.launch(
            m,
            "bs_price",
            shape(Dim3::x(blocks), Dim3::x(THREADS)),
            &[
                A::Ptr(call),
                A::Ptr(put),
                A::Ptr(ds),
                A::Ptr(dx),
                A::Ptr(dt),
                A::F32(RISK_FREE),
                A::F32(VOLATILITY),
                A::S32(n as i32),
            ],
        )?;
        let (mut want_c, mut want_p) = (vec![0f32; n], vec![0f32; n]);
        for i in 0..n {
            let (c, p) = reference(spot[i] as f64, strike[i] as f64, years[i] as f64);
            want_c[i] = c as f32;
            want_p[i] = p as f32;
        }
        let got_c: Vec<f32> = dev.read(call, n)?;
        let got_p: Vec<f32> = dev.read(put, n)?;
        check_or_return!(
            "bs",
            compare_f32("call", &got_c, &want_c, 1e-3, 1e-3),
            compare_f32("put", &got_p, &want_p, 1e-3, 1e-3)
        );
        Ok(Check::Passed)
    }
}
