//! `mis`: Maximal Independent Set (Pannotia), Table 5.3 input "ecology" (ecology1: a 1000x1000
//! five-point mesh, see [`super::prio_mesh`]). See `workloads/mis/README.md`.
//!
//! Launches per round: `mis_select`, `mis_remove`; the host repeats until no vertex is
//! undecided. The kernels' outcome does not depend on thread order, so the CPU reference
//! replays the same rounds and the final states must match exactly; the result is also checked
//! to be independent and maximal.

use super::prio_mesh::{describe, PrioMesh};
use crate::common::graph::Csr;
use crate::common::{compare_exact, grid1d, rounds_until_clear};
use crate::{check_or_return, Check, Size, Workload, WorkloadError, WorkloadInfo};
use warpforge_simt::{Device, KernelArg as A};

const PTX: &str = include_str!("../../mis/kernel.ptx");
const BLOCK: u32 = 128;

/// The Maximal Independent Set workload.
pub struct Mis;

/// CPU replay of the rounds: final state per vertex (1 in the set, 2 removed).
fn reference(g: &Csr, prio: &[u32]) -> Vec<i32> {
    let n = g.vertices();
    let mut state = vec![0i32; n];
    let less = |w: usize, v: usize| (prio[w], w) < (prio[v], v);
    while state.contains(&0) {
        let joins: Vec<usize> = (0..n)
            .filter(|&v| {
                state[v] == 0 && g.neighbours(v).all(|(w, _)| state[w] != 0 || !less(w, v))
            })
            .collect();
        for v in joins {
            state[v] = 1;
        }
        for v in 0..n {
            if state[v] == 0 && g.neighbours(v).any(|(w, _)| state[w] == 1) {
                state[v] = 2;
            }
        }
    }
    state
}

impl Workload for Mis {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "mis",
            application: "Maximal Independent Set (Pannotia)",
            suite: "Pannotia",
            sets: "Ctrl-C",
            kernels: &["mis_select", "mis_remove"],
            behaviour:
                "Luby rounds on a mesh; shrinking active set (divergence), neighbour gathers",
        }
    }

    fn input(&self, size: Size) -> String {
        describe(size)
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let mesh = PrioMesh::upload(dev, "mis", PTX, size)?;
        let (g, m) = (&mesh.g, mesh.m);
        let n = g.vertices();
        let state = dev.malloc(n as u64 * 4)?;
        let undecided = dev.malloc(4)?;
        let cfg = grid1d(n as u32, BLOCK);
        let nn = A::S32(n as i32);
        // `mis_select` does not read the flag, so zeroing it before the round is the same as
        // zeroing it between the two launches
        let select = [
            A::Ptr(mesh.row),
            A::Ptr(mesh.col),
            A::Ptr(mesh.pr),
            A::Ptr(state),
            nn.clone(),
        ];
        let remove = [
            A::Ptr(mesh.row),
            A::Ptr(mesh.col),
            A::Ptr(state),
            A::Ptr(undecided),
            nn,
        ];
        let round = |dev: &mut Device, _: i32| -> Result<(), WorkloadError> {
            dev.launch(m, "mis_select", cfg, &select)?;
            dev.launch(m, "mis_remove", cfg, &remove)?;
            Ok(())
        };
        rounds_until_clear(dev, undecided, n, round, |_| "mis: no progress".into())?;
        let got: Vec<i32> = dev.read(state, n)?;
        check_or_return!(
            "mis",
            compare_exact("state", &got, &reference(g, &mesh.prio))
        );
        for v in 0..n {
            let in_nb = g.neighbours(v).any(|(w, _)| got[w] == 1);
            if (got[v] == 1 && in_nb) || (got[v] != 1 && !in_nb) {
                return Ok(Check::Failed(format!(
                    "mis: vertex {v} violates independence/maximality"
                )));
            }
        }
        Ok(Check::Passed)
    }
}
