//! `tpf`: two-point angular correlation function (Parboil tpacf; CAWA Non-sens set, Table 3.2).
//!
//! Three launches (DD, DR over all random sets, RR over all random sets) of one kernel; pairs are
//! binned by a binary search over 20 log-spaced angular bins (1 to 10000 arcmin) into per-CTA
//! shared-memory histograms with integer atomics. Compute-bound with shared-memory tiles and
//! barriers per tile; self-correlation launches skip `j <= i` (the sync-heavy imbalance of §2.4).
//!
//! Check: each of the three summed histograms has exactly the reference's pair count, and the
//! per-bin differences are bounded by the number of pairs whose f64 dot product lies within 1e-5
//! of a bin edge (where f32 rounding may legitimately pick the neighbouring bin).

use rand::Rng;
use warpforge_core::Dim3;
use warpforge_simt::{Device, KernelArg as A};

use crate::common::{by_size, load, rng, shape};
use crate::{Check, Size, Workload, WorkloadError, WorkloadInfo};

const PTX: &str = include_str!("../../tpf/kernel.ptx");
const TILE: usize = 128;
const NB: usize = 20;

/// The TPACF workload.
pub struct Tpf;

fn dims(size: Size) -> (usize, usize) {
    // (points per set, random sets)
    by_size(size, (64, 1), (288, 2), (487, 100))
}

/// Decreasing bin edges in cos(angle): edge 0 is 1, then 1..10^4 arcmin log-spaced.
fn edges() -> Vec<f32> {
    let mut e = vec![1.0f32];
    for k in 0..NB {
        let arcmin = 10f64.powf(4.0 * k as f64 / (NB - 1) as f64);
        e.push((arcmin / 60.0).to_radians().cos() as f32);
    }
    e
}

fn bin_of(edges: &[f32], d: f32) -> usize {
    let (mut lo, mut hi) = (0usize, NB);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if edges[mid] >= d {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// Random unit vectors stored as one set `[x.. , y.., z..]`; `clustered` draws them near a few
/// directions so the small-angle bins fill.
fn points(n: usize, clustered: bool, r: &mut impl Rng) -> Vec<f32> {
    let dirs: Vec<[f64; 3]> = (0..8).map(|_| unit(r)).collect();
    let mut v = vec![0f32; 3 * n];
    for i in 0..n {
        let p = if clustered && r.gen_bool(0.7) {
            let d = dirs[r.gen_range(0..dirs.len())];
            let s = r.gen_range(0.001..0.2);
            let q = unit(r);
            normalise([d[0] + s * q[0], d[1] + s * q[1], d[2] + s * q[2]])
        } else {
            unit(r)
        };
        for c in 0..3 {
            v[c * n + i] = p[c] as f32;
        }
    }
    v
}

fn unit(r: &mut impl Rng) -> [f64; 3] {
    loop {
        let p = [
            r.gen_range(-1.0..1.0),
            r.gen_range(-1.0..1.0),
            r.gen_range(-1.0..1.0),
        ];
        let l2: f64 = p.iter().map(|c| c * c).sum();
        if l2 > 1e-3 && l2 <= 1.0 {
            return normalise(p);
        }
    }
}

fn normalise(p: [f64; 3]) -> [f64; 3] {
    let l = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
    [p[0] / l, p[1] / l, p[2] / l]
}

/// Reference histogram of set pair (a, b) and the number of pairs near a bin edge.
fn reference(a: &[f32], b: &[f32], n: usize, self_pairs: bool, e: &[f32]) -> (Vec<u64>, u64) {
    let mut h = vec![0u64; NB + 1];
    let mut near = 0;
    for i in 0..n {
        for j in 0..n {
            if self_pairs && j <= i {
                continue;
            }
            let d: f64 = (0..3)
                .map(|c| a[c * n + i] as f64 * b[c * n + j] as f64)
                .sum();
            h[bin_of(e, d as f32)] += 1;
            if e.iter().any(|&x| (x as f64 - d).abs() < 1e-5) {
                near += 1;
            }
        }
    }
    (h, near)
}

impl Workload for Tpf {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "tpf",
            application: "Two-Point Angular Correlation Function (Parboil tpacf)",
            suite: "Parboil",
            sets: "latency, CAWA (Non-sens)",
            kernels: &["tpf_hist"],
            behaviour: "compute-bound pair loop, shared tiles + shared atomics, binary-search bins",
        }
    }

    fn input(&self, size: Size) -> String {
        let (n, r) = dims(size);
        format!("{n} points x (1 data + {r} random sets), {NB} angular bins")
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let (n, nr) = dims(size);
        let mut r = rng("tpf", size);
        let data = points(n, true, &mut r);
        let mut rand_sets = Vec::with_capacity(3 * n * nr);
        for _ in 0..nr {
            rand_sets.extend(points(n, false, &mut r));
        }
        let e = edges();
        let m = load(dev, PTX, "tpf")?;
        let dd = dev.alloc_copy(&data)?;
        let dr = dev.alloc_copy(&rand_sets)?;
        let de = dev.alloc_copy(&e)?;
        let gx = n.div_ceil(TILE);
        let dh = dev.malloc((4 * gx * nr * (NB + 1)) as u64)?;
        let stride = (3 * n) as i32;
        // (name, a, b, a stride, b stride, self, sets)
        let runs = [
            ("DD", dd, dd, 0, 0, 1, 1usize),
            ("DR", dd, dr, 0, stride, 0, nr),
            ("RR", dr, dr, stride, stride, 1, nr),
        ];
        for (name, a, b, sa, sb, selfp, sets) in runs {
            let cfg = shape(Dim3::new(gx as u32, sets as u32, 1), Dim3::x(TILE as u32));
            let args = [
                A::Ptr(a),
                A::Ptr(b),
                A::S32(n as i32),
                A::S32(sa),
                A::S32(sb),
                A::S32(selfp),
                A::Ptr(de),
                A::Ptr(dh),
            ];
            dev.launch(m, "tpf_hist", cfg, &args)?;
            let raw = dev.read::<u32>(dh, gx * sets * (NB + 1))?;
            let mut got = vec![0u64; NB + 1];
            for (k, &v) in raw.iter().enumerate() {
                got[k % (NB + 1)] += v as u64;
            }
            let (mut want, mut near) = (vec![0u64; NB + 1], 0u64);
            for s in 0..sets {
                let set = |v: &[f32], st: i32| v[s * st as usize..s * st as usize + 3 * n].to_vec();
                let (av, bv) = if name == "DD" {
                    (data.clone(), data.clone())
                } else if name == "DR" {
                    (data.clone(), set(&rand_sets, stride))
                } else {
                    let x = set(&rand_sets, stride);
                    (x.clone(), x)
                };
                let (h, nn) = reference(&av, &bv, n, selfp == 1, &e);
                for (w, x) in want.iter_mut().zip(h) {
                    *w += x;
                }
                near += nn;
            }
            let total_got: u64 = got.iter().sum();
            let total_want: u64 = want.iter().sum();
            let diff: u64 = got.iter().zip(&want).map(|(g, w)| g.abs_diff(*w)).sum();
            if total_got != total_want || diff > 2 * near {
                return Ok(Check::Failed(format!(
                    "{name} histogram {got:?}, reference {want:?} ({near} pairs near an edge)"
                )));
            }
        }
        Ok(Check::Passed)
    }
}
