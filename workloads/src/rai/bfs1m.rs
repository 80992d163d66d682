//! `bfs1m`: BFS (Rodinia 3.0) at document 004's input, Table 3 (1954 blocks x 512 threads: the
//! 1M-node `graph1MW_6` of Rodinia's BFS data, 1,000,000 nodes). The kernels, the graph generator
//! (degrees uniform in 1..=12, mean 6.5 edges per node against `graph1MW_6`'s 6) and the check
//! are `bfs`'s ([`crate::cawa::bfs::run_graph`]); only the node count differs. `bfs` itself keeps
//! the CAWA set's 65,536-node `paper` input.
//!
//! Footprint: 41 B per node (start, degree, 6.5 edges of 4 B; frontier, updating and visited
//! masks of 1 B; the 4-B cost), so Table 3's input is about 41 MB, 2.5 times document 004's 16 MB
//! LLC, and `small` (2^19 nodes, 21.5 MB) is the smallest power of two whose footprint exceeds it;
//! `bfs` at `small` (16,384 nodes, 0.7 MB) fits the LLC 24 times over (session 15).

use crate::cawa::bfs::{graph, run_graph};
use crate::common::{by_size, rng};
use crate::{Check, Size, Workload, WorkloadError, WorkloadInfo};
use warpforge_simt::Device;

/// BFS on document 004's 1M-node graph.
pub struct Bfs1m;

/// Nodes at `size`: tiny as `bfs`, small the smallest power of two whose footprint exceeds the
/// 16 MB LLC, paper Table 3's 1954 x 512 grid over the 1,000,000 nodes of `graph1MW_6`.
fn nodes(size: Size) -> u32 {
    by_size(size, 2048, 1 << 19, 1_000_000)
}

impl Workload for Bfs1m {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "bfs1m",
            application: "Breadth First Search (Rodinia), document 004's 1M-node input",
            suite: "Rodinia",
            sets: "RAI",
            kernels: &["bfs_expand", "bfs_update"],
            behaviour: "as bfs: divergent, scattered neighbour loads; a graph larger than the LLC",
        }
    }

    fn input(&self, size: Size) -> String {
        format!("{} nodes, degree 1..=12", nodes(size))
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        run_graph(dev, &graph(nodes(size), &mut rng("bfs1m", size)))
    }
}
