//! `csr`: Dijkstra / SSSP on a CSR graph (Pannotia), Table 5.3 input "USA road NY" (264K
//! intersections, 730K arcs), approximated by [`road_grid`]. See `workloads/csr/README.md`.
//!
//! Launches: `csr_relax` repeatedly (ping-pong distance arrays) until no distance changes.
//! Checked exactly against Dijkstra's algorithm.

use crate::common::graph::{road_grid, Csr};
use crate::common::{by_size, compare_exact, grid1d, load, rng, rounds_until_clear};
use crate::{check_or_return, Check, Size, Workload, WorkloadError, WorkloadInfo};
use rand::Rng;
use warpforge_simt::{DevPtr, Device, KernelArg as A, ModuleId};

const PTX: &str = include_str!("../../csr/kernel.ptx");
pub(super) const BLOCK: u32 = 128;

/// The SSSP-on-CSR workload.
pub struct CsrSssp;

/// Side of the road grid at `size`.
pub(super) fn road_side(size: Size) -> usize {
    by_size(size, 16, 48, 512)
}

/// The road graph of `workload` at `size`: grid side 16 (tiny), 48 (small), 512 (paper: 262K
/// vertices, about 730K arcs, close to USA-road-NY's 264K / 734K).
pub(super) fn road_input(workload: &str, size: Size) -> Csr {
    let side: usize = road_side(size);
    let seed: u64 = rng(workload, size).gen();
    road_grid(side, side, 0.4, 100, seed)
}

/// Dijkstra from vertex 0; `u32::MAX` for unreachable vertices.
pub(super) fn dijkstra(g: &Csr) -> Vec<u32> {
    use std::cmp::Reverse;
    let mut dist = vec![u32::MAX; g.vertices()];
    let mut heap = std::collections::BinaryHeap::new();
    dist[0] = 0;
    heap.push(Reverse((0u32, 0usize)));
    while let Some(Reverse((d, v))) = heap.pop() {
        if d > dist[v] {
            continue;
        }
        for (w, wt) in g.neighbours(v) {
            if d + wt < dist[w] {
                dist[w] = d + wt;
                heap.push(Reverse((dist[w], w)));
            }
        }
    }
    dist
}

/// Runs relaxation launches until no change; `args(dist_in, dist_out, changed)` gives a
/// launch's arguments. Returns the final distance array and the number of launches.
pub(super) fn relax_until_stable(
    dev: &mut Device,
    m: ModuleId,
    kernel: &str,
    n: usize,
    args: impl Fn(DevPtr, DevPtr, DevPtr) -> Vec<A>,
) -> Result<(Vec<u32>, u32), WorkloadError> {
    let mut init = vec![u32::MAX; n];
    init[0] = 0;
    let mut a = dev.alloc_copy(&init)?;
    let mut b = dev.alloc_copy(&init)?;
    let changed = dev.malloc(4)?;
    let relax = |dev: &mut Device, _: i32| -> Result<(), WorkloadError> {
        dev.launch(m, kernel, grid1d(n as u32, BLOCK), &args(a, b, changed))?;
        std::mem::swap(&mut a, &mut b);
        Ok(())
    };
    let stuck = |launches| format!("{kernel}: no convergence after {launches} launches");
    let launches = rounds_until_clear(dev, changed, 4 * n + 4, relax, stuck)?;
    Ok((dev.read(a, n)?, launches as u32))
}

impl Workload for CsrSssp {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "csr",
            application: "Dijkstra, CSR format (Pannotia)",
            suite: "Pannotia",
            sets: "Ctrl-C",
            kernels: &["csr_relax"],
            behaviour:
                "relaxation until stable; per-thread adjacency walks, irregular dist gathers",
        }
    }

    fn input(&self, size: Size) -> String {
        let s: usize = road_side(size);
        format!("road-like {s}x{s} grid graph ({} vertices)", s * s)
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let g = road_input("csr", size);
        let n = g.vertices();
        let m = load(dev, PTX, "csr")?;
        let row = dev.alloc_copy(&g.row_ptr)?;
        let col = dev.alloc_copy(&g.col)?;
        let wt = dev.alloc_copy(&g.weight)?;
        let (got, _) = relax_until_stable(dev, m, "csr_relax", n, |i, o, c| {
            vec![
                A::Ptr(row),
                A::Ptr(col),
                A::Ptr(wt),
                A::Ptr(i),
                A::Ptr(o),
                A::Ptr(c),
                A::S32(n as i32),
            ]
        })?;
        check_or_return!("csr", compare_exact("dist", &got, &dijkstra(&g)));
        Ok(Check::Passed)
    }
}
