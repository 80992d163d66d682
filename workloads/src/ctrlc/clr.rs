//! `clr`: Graph Colouring (Pannotia), Table 5.3 input "ecology" (the same mesh input as `mis`,
//! see [`super::prio_mesh`]). See `workloads/clr/README.md`.
//!
//! Launches: `clr_round` per round until every vertex is coloured. The outcome is independent
//! of thread order, so the CPU reference replays the rounds and colours must match exactly;
//! the colouring is also checked to be proper.

use super::prio_mesh::{describe, PrioMesh};
use crate::common::graph::Csr;
use crate::common::{compare_exact, grid1d, rounds_until_clear};
use crate::{check_or_return, Check, Size, Workload, WorkloadError, WorkloadInfo};
use warpforge_simt::{Device, KernelArg as A};

const PTX: &str = include_str!("../../clr/kernel.ptx");
const BLOCK: u32 = 128;

/// The Graph Colouring workload.
pub struct Clr;

fn reference(g: &Csr, prio: &[u32]) -> Vec<i32> {
    let n = g.vertices();
    let mut color = vec![-1i32; n];
    let mut round = 0;
    while color.contains(&-1) {
        let snap = color.clone();
        for v in (0..n).filter(|&v| snap[v] < 0) {
            let comp = g.neighbours(v).filter(|&(w, _)| snap[w] < 0);
            let (mut is_max, mut is_min) = (true, true);
            for (w, _) in comp {
                if (prio[w], w) > (prio[v], v) {
                    is_max = false;
                } else {
                    is_min = false;
                }
            }
            if is_max {
                color[v] = 2 * round;
            } else if is_min {
                color[v] = 2 * round + 1;
            }
        }
        round += 1;
    }
    color
}

impl Workload for Clr {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "clr",
            application: "Graph Coloring (Pannotia)",
            suite: "Pannotia",
            sets: "Ctrl-C",
            kernels: &["clr_round"],
            behaviour:
                "max-min colouring rounds on a mesh; shrinking active set, neighbour gathers",
        }
    }

    fn input(&self, size: Size) -> String {
        describe(size)
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let mesh = PrioMesh::upload(dev, "clr", PTX, size)?;
        let (g, m) = (&mesh.g, mesh.m);
        let n = g.vertices();
        let color = dev.alloc_copy(&vec![-1i32; n])?;
        let uncolored = dev.malloc(4)?;
        let cfg = grid1d(n as u32, BLOCK);
        let round = |dev: &mut Device, round: i32| -> Result<(), WorkloadError> {
            let args = [
                A::Ptr(mesh.row),
                A::Ptr(mesh.col),
                A::Ptr(mesh.pr),
                A::Ptr(color),
                A::Ptr(uncolored),
                A::S32(round),
                A::S32(n as i32),
            ];
            dev.launch(m, "clr_round", cfg, &args)?;
            Ok(())
        };
        rounds_until_clear(dev, uncolored, n, round, |_| "clr: no progress".into())?;
        let got: Vec<i32> = dev.read(color, n)?;
        check_or_return!(
            "clr",
            compare_exact("color", &got, &reference(g, &mesh.prio))
        );
        for v in 0..n {
            if got[v] < 0 || g.neighbours(v).any(|(w, _)| got[w] == got[v]) {
                return Ok(Check::Failed(format!(
                    "clr: vertex {v} badly coloured ({})",
                    got[v]
                )));
            }
        }
        Ok(Check::Passed)
    }
}
