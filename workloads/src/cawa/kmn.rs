//! `kmn`: k-means clustering (Rodinia kmeans; CAWA Sens set, Ctrl-C CS set, Table 3.2).
//!
//! Features are stored `[point][feature]` (Lee 2017 Algorithm 10): each thread walks its own row
//! once per centroid, so a warp-wide load touches 32 lines and the re-reads of a row only hit if
//! the L1D holds the rows of every resident warp — the thrashing pattern of §5.1. The host does
//! the centroid update between launches, as the original does.
//!
//! Check: at every iteration the device's assignment must be a nearest centroid, computed on the
//! CPU in f64 from the same centroids (ties within a relative 1e-5 accept either cluster).

use rand::Rng;
use warpforge_simt::{Device, KernelArg as A};

use crate::common::{by_size, grid1d, load, rng};
use crate::{Check, Size, Workload, WorkloadError, WorkloadInfo};

const PTX: &str = include_str!("../../kmn/kernel.ptx");
const BLOCK: u32 = 256;
const FEATURES: usize = 34;
const CLUSTERS: usize = 5;

/// The k-means workload.
pub struct Kmn;

fn dims(size: Size) -> (usize, usize) {
    // (points, iterations)
    by_size(size, (256, 2), (8192, 2), (494_020, 5))
}

impl Workload for Kmn {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "kmn",
            application: "K-Means (Rodinia)",
            suite: "Rodinia",
            sets: "latency, CAWA (Sens), Ctrl-C (CS)",
            kernels: &["kmn_assign"],
            behaviour: "per-thread strided row walk: uncoalesced, L1-thrashing, memory-bound",
        }
    }

    fn input(&self, size: Size) -> String {
        let (n, it) = dims(size);
        format!("{n} points x {FEATURES} features, {CLUSTERS} clusters, {it} iterations")
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let (n, iters) = dims(size);
        let mut r = rng("kmn", size);
        let centres: Vec<f32> = (0..CLUSTERS * FEATURES)
            .map(|_| r.gen_range(0.0..1.0))
            .collect();
        let mut feat = Vec::with_capacity(n * FEATURES);
        for _ in 0..n {
            let c = r.gen_range(0..CLUSTERS);
            for f in 0..FEATURES {
                feat.push(centres[c * FEATURES + f] + r.gen_range(-0.3f32..0.3));
            }
        }
        // Initial centroids: the first CLUSTERS points (as Rodinia does).
        let mut clusters: Vec<f32> = feat[..CLUSTERS * FEATURES].to_vec();
        let m = load(dev, PTX, "kmn")?;
        let df = dev.alloc_copy(&feat)?;
        let dc = dev.alloc_copy(&clusters)?;
        let dm = dev.malloc(4 * n as u64)?;
        for it in 0..iters {
            dev.copy_htod(dc, &clusters)?;
            let args = [
                A::Ptr(df),
                A::Ptr(dc),
                A::Ptr(dm),
                A::S32(n as i32),
                A::S32(FEATURES as i32),
                A::S32(CLUSTERS as i32),
            ];
            dev.launch(m, "kmn_assign", grid1d(n as u32, BLOCK), &args)?;
            let member = dev.read::<i32>(dm, n)?;
            if let Some(msg) = check_assignment(&feat, &clusters, &member) {
                return Ok(Check::Failed(format!("iteration {it}: {msg}")));
            }
            clusters = update(&feat, &member, &clusters);
        }
        Ok(Check::Passed)
    }
}

/// `None` when every point is assigned to a nearest centroid.
fn check_assignment(feat: &[f32], clusters: &[f32], member: &[i32]) -> Option<String> {
    for (p, row) in feat.chunks(FEATURES).enumerate() {
        let dist: Vec<f64> = clusters
            .chunks(FEATURES)
            .map(|c| {
                row.iter()
                    .zip(c)
                    .map(|(&a, &b)| (a as f64 - b as f64).powi(2))
                    .sum()
            })
            .collect();
        let best = dist.iter().cloned().fold(f64::INFINITY, f64::min);
        let g = member[p];
        if g < 0 || g as usize >= CLUSTERS || dist[g as usize] > best * (1.0 + 1e-5) + 1e-9 {
            return Some(format!(
                "point {p} assigned to cluster {g}, not a nearest centroid (distances {dist:?})"
            ));
        }
    }
    None
}

/// New centroids: the mean of each cluster's members (an empty cluster keeps its centroid).
fn update(feat: &[f32], member: &[i32], old: &[f32]) -> Vec<f32> {
    let mut sum = vec![0f64; CLUSTERS * FEATURES];
    let mut count = [0usize; CLUSTERS];
    for (row, &c) in feat.chunks(FEATURES).zip(member) {
        let c = c as usize;
        count[c] += 1;
        for (s, &v) in sum[c * FEATURES..(c + 1) * FEATURES].iter_mut().zip(row) {
            *s += v as f64;
        }
    }
    (0..CLUSTERS * FEATURES)
        .map(|i| {
            let c = i / FEATURES;
            if count[c] == 0 {
                old[i]
            } else {
                (sum[i] / count[c] as f64) as f32
            }
        })
        .collect()
}
