//! `bfs`: breadth-first search (Rodinia BFS; CAWA Sens set, Ctrl-C, latency Table 3.2).
//!
//! Two kernels per frontier level, relaunched by the host until the frontier is empty (Lee 2017
//! Algorithm 3). Node degrees are uniform in 1..=12, so warps whose nodes have many neighbours
//! run longer: the workload imbalance behind warp criticality (§3.1, §4.1).

use rand::Rng;
use warpforge_simt::{Device, KernelArg as A};

use crate::common::{by_size, compare_exact, grid1d, load, rng, rounds_until_clear};
use crate::{Check, Size, Workload, WorkloadError, WorkloadInfo};

const PTX: &str = include_str!("../../bfs/kernel.ptx");
const BLOCK: u32 = 512;
const MAX_DEGREE: u32 = 12;

/// The BFS workload.
pub struct Bfs;

/// A directed graph in CSR form.
pub struct Csr {
    /// First edge of each node.
    pub start: Vec<i32>,
    /// Out-degree of each node.
    pub degree: Vec<i32>,
    /// Edge targets.
    pub edges: Vec<i32>,
}

fn nodes(size: Size) -> u32 {
    by_size(size, 2048, 16384, 65536)
}

/// Random graph with `n` nodes and degrees uniform in `1..=MAX_DEGREE`.
pub fn graph(n: u32, r: &mut impl Rng) -> Csr {
    let mut g = Csr {
        start: Vec::with_capacity(n as usize),
        degree: Vec::with_capacity(n as usize),
        edges: Vec::new(),
    };
    for _ in 0..n {
        let d = r.gen_range(1..=MAX_DEGREE);
        g.start.push(g.edges.len() as i32);
        g.degree.push(d as i32);
        for _ in 0..d {
            g.edges.push(r.gen_range(0..n) as i32);
        }
    }
    g
}

/// Level of every node from node 0 (-1 when unreachable).
pub fn reference(g: &Csr) -> Vec<i32> {
    let n = g.start.len();
    let mut cost = vec![-1; n];
    cost[0] = 0;
    let mut q = std::collections::VecDeque::from([0usize]);
    while let Some(u) = q.pop_front() {
        let s = g.start[u] as usize;
        for &v in &g.edges[s..s + g.degree[u] as usize] {
            if cost[v as usize] < 0 {
                cost[v as usize] = cost[u] + 1;
                q.push_back(v as usize);
            }
        }
    }
    cost
}

impl Workload for Bfs {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "bfs",
            application: "Breadth First Search (Rodinia)",
            suite: "Rodinia",
            sets: "latency, CAWA (Sens), Ctrl-C",
            kernels: &["bfs_expand", "bfs_update"],
            behaviour:
                "divergent, scattered neighbour loads, per-warp imbalance; host frontier loop",
        }
    }

    fn input(&self, size: Size) -> String {
        format!("{} nodes, degree 1..={MAX_DEGREE}", nodes(size))
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        run_graph(dev, &graph(nodes(size), &mut rng("bfs", size)))
    }
}

/// Runs BFS from node 0 on graph `g` (the host frontier loop) and checks every node's level
/// against [`reference()`]; shared with `bfs1m` (document 004's input).
pub fn run_graph(dev: &mut Device, g: &Csr) -> Result<Check, WorkloadError> {
    let n = g.start.len() as u32;
    let m = load(dev, PTX, "bfs")?;
    let start = dev.alloc_copy(&g.start)?;
    let degree = dev.alloc_copy(&g.degree)?;
    let edges = dev.alloc_copy(&g.edges)?;
    let mut mask = vec![0u8; n as usize];
    mask[0] = 1;
    let frontier = dev.alloc_copy(&mask)?;
    let visited = dev.alloc_copy(&mask)?;
    let updating = dev.malloc(n as u64)?;
    let mut cost0 = vec![-1i32; n as usize];
    cost0[0] = 0;
    let cost = dev.alloc_copy(&cost0)?;
    let over = dev.malloc(4)?;
    let cfg = grid1d(n, BLOCK);
    let level = |dev: &mut Device, _: i32| -> Result<(), WorkloadError> {
        let args = [
            A::Ptr(start),
            A::Ptr(degree),
            A::Ptr(edges),
            A::Ptr(frontier),
            A::Ptr(updating),
            A::Ptr(visited),
            A::Ptr(cost),
            A::S32(n as i32),
        ];
        dev.launch(m, "bfs_expand", cfg, &args)?;
        let args = [
            A::Ptr(frontier),
            A::Ptr(updating),
            A::Ptr(visited),
            A::Ptr(over),
            A::S32(n as i32),
        ];
        dev.launch(m, "bfs_update", cfg, &args)?;
        Ok(())
    };
    let stuck = |_| "bfs: frontier loop did not terminate".to_string();
    rounds_until_clear(dev, over, n as usize, level, stuck)?;
    let got = dev.read::<i32>(cost, n as usize)?;
    Ok(compare_exact("bfs cost", &got, &reference(g)))
}
