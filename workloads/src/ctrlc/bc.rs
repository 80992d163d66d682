//! `bc`: Betweenness Centrality (Pannotia), Table 5.3 input "1K V / 128K E", approximated by a
//! [`preferential_attachment`] graph of 1024 vertices with m = 64 (about 127K arcs). See
//! `workloads/bc/README.md`.
//!
//! Brandes' algorithm, one source at a time (the first `sources` vertices): `bc_init`, one
//! `bc_forward` per BFS level until the frontier stops growing, one `bc_backward` per level
//! deepest first, then `bc_accum`. Checked: the last source's BFS distances and path counts
//! exactly, the centrality scores against an f32 CPU replay within rtol 1e-4 / atol 1e-3.

use crate::common::graph::{preferential_attachment, Csr};
use crate::common::{by_size, compare_exact, compare_f32, grid1d, load, rng, rounds_until_clear};
use crate::{check_or_return, Check, Size, Workload, WorkloadError, WorkloadInfo};
use rand::Rng;
use warpforge_simt::{Device, KernelArg as A};

const PTX: &str = include_str!("../../bc/kernel.ptx");
const BLOCK: u32 = 128;

/// The Betweenness Centrality workload.
pub struct Bc;

/// (vertices, attachment m, sources) at `size`.
fn dims(size: Size) -> (usize, usize, usize) {
    by_size(size, (64, 4, 4), (256, 16, 16), (1024, 64, 1024))
}

/// Distances and path counts from `s`, then the dependencies (f32, same order as the kernels).
fn brandes(g: &Csr, s: usize) -> (Vec<i32>, Vec<u32>, Vec<f32>) {
    let n = g.vertices();
    let levels = g.bfs_levels(s);
    let dist: Vec<i32> = levels
        .iter()
        .map(|&d| if d == u32::MAX { -1 } else { d as i32 })
        .collect();
    let depth = dist.iter().copied().max().unwrap_or(0);
    let mut sigma = vec![0u32; n];
    sigma[s] = 1;
    for l in 0..depth {
        for v in (0..n).filter(|&v| dist[v] == l) {
            for (w, _) in g.neighbours(v) {
                if dist[w] == l + 1 {
                    sigma[w] = sigma[w].wrapping_add(sigma[v]);
                }
            }
        }
    }
    let mut delta = vec![0f32; n];
    for l in (0..depth).rev() {
        for v in (0..n).filter(|&v| dist[v] == l) {
            let sv = sigma[v] as f32;
            let mut acc = 0f32;
            for (w, _) in g.neighbours(v) {
                if dist[w] == l + 1 {
                    acc += sv / sigma[w] as f32 * (1.0 + delta[w]);
                }
            }
            delta[v] = acc;
        }
    }
    (dist, sigma, delta)
}

impl Workload for Bc {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "bc",
            application: "Betweenness Centrality (Pannotia)",
            suite: "Pannotia",
            sets: "Ctrl-C",
            kernels: &["bc_init", "bc_forward", "bc_backward", "bc_accum"],
            behaviour: "level-synchronous BFS + dependency sweeps; frontier divergence, hub rows",
        }
    }

    fn input(&self, size: Size) -> String {
        let (n, m, s): (usize, usize, usize) = dims(size);
        format!("power-law graph, {n} vertices, m={m}; {s} sources")
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let (n, m_edges, sources): (usize, usize, usize) = dims(size);
        let seed: u64 = rng("bc", size).gen();
        let g = preferential_attachment(n, m_edges, seed);
        let m = load(dev, PTX, "bc")?;
        let row = dev.alloc_copy(&g.row_ptr)?;
        let col = dev.alloc_copy(&g.col)?;
        let dist = dev.malloc(n as u64 * 4)?;
        let sigma = dev.malloc(n as u64 * 4)?;
        let delta = dev.malloc(n as u64 * 4)?;
        let bc = dev.malloc(n as u64 * 4)?;
        let grew = dev.malloc(4)?;
        let cfg = grid1d(n as u32, BLOCK);
        let nn = A::S32(n as i32);
        for s in 0..sources {
            let src = A::S32(s as i32);
            dev.launch(
                m,
                "bc_init",
                cfg,
                &[
                    A::Ptr(dist),
                    A::Ptr(sigma),
                    A::Ptr(delta),
                    src.clone(),
                    nn.clone(),
                ],
            )?;
            let forward = |dev: &mut Device, level: i32| -> Result<(), WorkloadError> {
                let args = [
                    A::Ptr(row),
                    A::Ptr(col),
                    A::Ptr(dist),
                    A::Ptr(sigma),
                    A::Ptr(grew),
                    A::S32(level),
                    nn.clone(),
                ];
                dev.launch(m, "bc_forward", cfg, &args)?;
                Ok(())
            };
            let stuck = |_| "bc: BFS did not terminate".to_string();
            // the last level grew nothing: the deepest level reached is one less
            let level = rounds_until_clear(dev, grew, n, forward, stuck)? as i32 - 1;
            for l in (0..level).rev() {
                dev.launch(
                    m,
                    "bc_backward",
                    cfg,
                    &[
                        A::Ptr(row),
                        A::Ptr(col),
                        A::Ptr(dist),
                        A::Ptr(sigma),
                        A::Ptr(delta),
                        A::S32(l),
                        nn.clone(),
                    ],
                )?;
            }
            dev.launch(
                m,
                "bc_accum",
                cfg,
                &[A::Ptr(dist), A::Ptr(delta), A::Ptr(bc), src, nn.clone()],
            )?;
        }
        let mut want = vec![0f32; n];
        let mut last = (Vec::new(), Vec::new());
        for s in 0..sources {
            let (d, sg, dl) = brandes(&g, s);
            for v in 0..n {
                if v != s && d[v] >= 0 {
                    want[v] += dl[v];
                }
            }
            last = (d, sg);
        }
        let dist_got: Vec<i32> = dev.read(dist, n)?;
        let sigma_got: Vec<u32> = dev.read(sigma, n)?;
        let bc_got: Vec<f32> = dev.read(bc, n)?;
        check_or_return!(
            "bc",
            compare_exact("dist (last source)", &dist_got, &last.0),
            compare_exact("sigma (last source)", &sigma_got, &last.1),
            compare_f32("bc", &bc_got, &want, 1e-4, 1e-3),
        );
        Ok(Check::Passed)
    }
}
