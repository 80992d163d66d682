//! `fld`: Floyd-Warshall (Pannotia), Table 5.3 input "256 V / 16K E". See
//! `workloads/fld/README.md`.
//!
//! Input: a random directed graph with the given vertex and edge counts, weights 1..=100.
//! Launches: one `fld_step` per intermediate vertex k (a 2-D grid of 16x16 CTAs). Checked
//! exactly against a CPU Floyd-Warshall.

use crate::common::{by_size_fill, compare_exact, load, rng, shape};
use crate::{check_or_return, Check, Size, Workload, WorkloadError, WorkloadInfo};
use rand::Rng;
use warpforge_core::Dim3;
use warpforge_simt::{Device, KernelArg as A};

const PTX: &str = include_str!("../../fld/kernel.ptx");
/// "No path": large enough to dominate any path, small enough that INF + INF fits in an i32.
const INF: i32 = 1 << 29;

/// The Floyd-Warshall workload.
pub struct Fld;

/// (vertices, directed edges) at `size`.
fn dims(size: Size) -> (usize, usize) {
    // Fill: 96 x 3.625 vertices (22 x 22 CTAs per launch), the small average degree of 24.
    by_size_fill(
        size,
        (16, 64),
        (96, 2304),
        (348, 348 * 24),
        (256, 16 * 1024),
    )
}

fn input(size: Size) -> (usize, Vec<i32>) {
    let (v, e): (usize, usize) = dims(size);
    let mut r = rng("fld", size);
    let mut d = vec![INF; v * v];
    for i in 0..v {
        d[i * v + i] = 0;
    }
    let mut placed = 0;
    while placed < e {
        let (a, b) = (r.gen_range(0..v), r.gen_range(0..v));
        if a != b && d[a * v + b] == INF {
            d[a * v + b] = r.gen_range(1..=100);
            placed += 1;
        }
    }
    (v, d)
}

impl Workload for Fld {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "fld",
            application: "Floyd-Warshall (Pannotia)",
            suite: "Pannotia",
            sets: "Ctrl-C",
            kernels: &["fld_step"],
            behaviour:
                "one launch per k; row/column k reused by every thread (short reuse distance)",
        }
    }

    fn input(&self, size: Size) -> String {
        let (v, e): (usize, usize) = dims(size);
        format!("{v} vertices, {e} directed edges")
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let (v, mut want) = input(size);
        let m = load(dev, PTX, "fld")?;
        let d = dev.alloc_copy(&want)?;
        let tiles = (v as u32).div_ceil(16);
        let cfg = shape(Dim3::new(tiles, tiles, 1), Dim3::new(16, 16, 1));
        for k in 0..v {
            dev.launch(
                m,
                "fld_step",
                cfg,
                &[A::Ptr(d), A::S32(v as i32), A::S32(k as i32)],
            )?;
        }
        for k in 0..v {
            for i in 0..v {
                for j in 0..v {
                    let via = want[i * v + k] + want[k * v + j];
                    if via < want[i * v + j] {
                        want[i * v + j] = via;
                    }
                }
            }
        }
        let got: Vec<i32> = dev.read(d, v * v)?;
        check_or_return!("fld", compare_exact("dist", &got, &want));
        Ok(Check::Passed)
    }
}
