//! Synthetic graph inputs shaped like the documents' graph data sets (Lee 2017, Table 5.3; spec
//! §7.3), whose original files (DIMACS USA-road-NY, coAuthorsDBLP, ecology1, Pannotia's BC and
//! Floyd-Warshall inputs) are not available here:
//!
//! - [`road_grid`]: road-network-like graphs (USA-road-NY stands behind `csr` and `ell`): planar,
//!   degree at most 4, long diameter, positive integer edge weights.
//! - [`preferential_attachment`]: power-law graphs (Barabási–Albert) for `bc` and `prk`
//!   (co-author DBLP is a power-law graph): heavy-tailed degrees, short diameter.
//! - [`mesh2d`]: the 5-point 2D mesh the `ecology1` matrix is (used by `mis` and `clr`).
//!
//! All generators are deterministic functions of their seed (ChaCha8). Graphs are undirected and
//! stored as symmetric CSR ([`Csr`]); each undirected edge appears as two arcs.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A graph in compressed-sparse-row form with one `u32` weight per arc.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Csr {
    /// `row_ptr[v]..row_ptr[v+1]` are the arcs leaving vertex `v`; length `vertices + 1`.
    pub row_ptr: Vec<u32>,
    /// Destination vertex of each arc.
    pub col: Vec<u32>,
    /// Weight of each arc (1 for unweighted graphs).
    pub weight: Vec<u32>,
}

/// A graph in ELLPACK form, column-major (`col[k * vertices + v]` is the k-th neighbour of `v`),
/// as Pannotia's ELL kernels store it so that consecutive threads read consecutive words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ell {
    /// Number of vertices.
    pub vertices: usize,
    /// Slots per vertex (the maximum degree).
    pub width: usize,
    /// Neighbour of each slot, [`Ell::EMPTY`] for padding.
    pub col: Vec<u32>,
    /// Weight of each slot (0 for padding).
    pub weight: Vec<u32>,
}

impl Ell {
    /// Marker of an unused slot.
    pub const EMPTY: u32 = u32::MAX;
}

impl Csr {
    /// Builds a symmetric CSR from undirected edges `(u, v, w)` on `n` vertices; arcs of a vertex
    /// are sorted by destination. Self-loops are dropped.
    pub fn from_undirected(n: usize, edges: &[(u32, u32, u32)]) -> Csr {
        let mut arcs: Vec<(u32, u32, u32)> = Vec::with_capacity(edges.len() * 2);
        for &(u, v, w) in edges {
            if u != v {
                arcs.push((u, v, w));
                arcs.push((v, u, w));
            }
        }
        arcs.sort_unstable();
        let mut row_ptr = vec![0u32; n + 1];
        for &(u, _, _) in &arcs {
            row_ptr[u as usize + 1] += 1;
        }
        for i in 0..n {
            row_ptr[i + 1] += row_ptr[i];
        }
        Csr {
            row_ptr,
            col: arcs.iter().map(|a| a.1).collect(),
            weight: arcs.iter().map(|a| a.2).collect(),
        }
    }

    /// Number of vertices.
    pub fn vertices(&self) -> usize {
        self.row_ptr.len() - 1
    }

    /// Number of arcs (twice the number of undirected edges).
    pub fn arcs(&self) -> usize {
        self.col.len()
    }

    /// Degree of `v`.
    pub fn degree(&self, v: usize) -> usize {
        (self.row_ptr[v + 1] - self.row_ptr[v]) as usize
    }

    /// Neighbours of `v` with weights.
    pub fn neighbours(&self, v: usize) -> impl Iterator<Item = (usize, u32)> + '_ {
        let r = self.row_ptr[v] as usize..self.row_ptr[v + 1] as usize;
        self.col[r.clone()]
            .iter()
            .zip(&self.weight[r])
            .map(|(&c, &w)| (c as usize, w))
    }

    /// Maximum degree.
    pub fn max_degree(&self) -> usize {
        (0..self.vertices())
            .map(|v| self.degree(v))
            .max()
            .unwrap_or(0)
    }

    /// Hop distances from `src` (BFS); `u32::MAX` for unreachable vertices.
    pub fn bfs_levels(&self, src: usize) -> Vec<u32> {
        let mut dist = vec![u32::MAX; self.vertices()];
        let mut queue = std::collections::VecDeque::new();
        dist[src] = 0;
        queue.push_back(src);
        while let Some(v) = queue.pop_front() {
            for (w, _) in self.neighbours(v) {
                if dist[w] == u32::MAX {
                    dist[w] = dist[v] + 1;
                    queue.push_back(w);
                }
            }
        }
        dist
    }

    /// Whether every vertex is reachable from vertex 0.
    pub fn is_connected(&self) -> bool {
        self.vertices() == 0 || self.bfs_levels(0).iter().all(|&d| d != u32::MAX)
    }

    /// The ELLPACK form of this graph.
    pub fn to_ell(&self) -> Ell {
        let n = self.vertices();
        let width = self.max_degree();
        let mut col = vec![Ell::EMPTY; n * width];
        let mut weight = vec![0; n * width];
        for v in 0..n {
            for (k, (c, w)) in self.neighbours(v).enumerate() {
                col[k * n + v] = c as u32;
                weight[k * n + v] = w;
            }
        }
        Ell {
            vertices: n,
            width,
            col,
            weight,
        }
    }
}

/// A road-network-like graph on a `w` x `h` grid of intersections: a random spanning tree of the
/// grid (so the graph is connected) plus each remaining grid street with probability
/// `extra_prob`; weights are uniform in `1..=max_weight`. Degree is at most 4 and the diameter is
/// at least `w + h - 2` hops, the shape of the DIMACS USA-road graphs (average degree about 2.8
/// arcs per vertex for NY with `extra_prob` = 0.4).
pub fn road_grid(w: usize, h: usize, extra_prob: f64, max_weight: u32, seed: u64) -> Csr {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = w * h;
    let mut grid_edges: Vec<(u32, u32)> = Vec::with_capacity(2 * n);
    for y in 0..h {
        for x in 0..w {
            let v = (y * w + x) as u32;
            if x + 1 < w {
                grid_edges.push((v, v + 1));
            }
            if y + 1 < h {
                grid_edges.push((v, v + w as u32));
            }
        }
    }
    // Random spanning tree: Kruskal over randomly ordered grid streets.
    for i in (1..grid_edges.len()).rev() {
        let j = rng.gen_range(0..=i);
        grid_edges.swap(i, j);
    }
    let mut parent: Vec<u32> = (0..n as u32).collect();
    fn find(p: &mut [u32], mut x: u32) -> u32 {
        while p[x as usize] != x {
            p[x as usize] = p[p[x as usize] as usize];
            x = p[x as usize];
        }
        x
    }
    let mut edges = Vec::with_capacity(grid_edges.len());
    for &(u, v) in &grid_edges {
        let (ru, rv) = (find(&mut parent, u), find(&mut parent, v));
        let keep = if ru != rv {
            parent[ru as usize] = rv;
            true
        } else {
            rng.gen_bool(extra_prob)
        };
        if keep {
            edges.push((u, v, rng.gen_range(1..=max_weight)));
        }
    }
    Csr::from_undirected(n, &edges)
}

/// A Barabási–Albert preferential-attachment graph: a clique on `m + 1` vertices, then each new
/// vertex attaches to `m` distinct existing vertices chosen with probability proportional to their
/// degree. Connected, power-law degree tail, `2 * (m(m+1)/2 + (n-m-1)m)` arcs; weights 1.
pub fn preferential_attachment(n: usize, m: usize, seed: u64) -> Csr {
    assert!(m >= 1 && n > m, "preferential_attachment needs n > m >= 1");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut edges = Vec::with_capacity(n * m);
    // Endpoint list: a vertex appears once per incident edge, so sampling it is degree-biased.
    let mut ends: Vec<u32> = Vec::with_capacity(2 * n * m);
    for u in 0..=m as u32 {
        for v in 0..u {
            edges.push((v, u, 1));
            ends.push(u);
            ends.push(v);
        }
    }
    let mut chosen: Vec<u32> = Vec::with_capacity(m);
    for u in (m + 1) as u32..n as u32 {
        chosen.clear();
        while chosen.len() < m {
            let t = ends[rng.gen_range(0..ends.len())];
            if !chosen.contains(&t) {
                chosen.push(t);
            }
        }
        for &t in &chosen {
            edges.push((t, u, 1));
            ends.push(t);
            ends.push(u);
        }
    }
    Csr::from_undirected(n, &edges)
}

/// The `w` x `h` five-point mesh (each vertex joined to its N/S/E/W neighbours), the structure of
/// the `ecology1` matrix (a 1000 x 1000 mesh) used for Pannotia's MIS and colouring; weights 1.
pub fn mesh2d(w: usize, h: usize) -> Csr {
    let mut edges = Vec::with_capacity(2 * w * h);
    for y in 0..h {
        for x in 0..w {
            let v = (y * w + x) as u32;
            if x + 1 < w {
                edges.push((v, v + 1, 1));
            }
            if y + 1 < h {
                edges.push((v, v + w as u32, 1));
            }
        }
    }
    Csr::from_undirected(w * h, &edges)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn symmetric(g: &Csr) -> bool {
        (0..g.vertices()).all(|v| {
            g.neighbours(v)
                .all(|(w, wt)| g.neighbours(w).any(|(x, xw)| x == v && xw == wt))
        })
    }

    #[test]
    fn road_grid_is_connected_low_degree_long_diameter() {
        let (w, h) = (40, 30);
        let g = road_grid(w, h, 0.4, 100, 7);
        assert_eq!(g.vertices(), w * h);
        assert!(g.is_connected());
        assert!(symmetric(&g));
        assert!(g.max_degree() <= 4);
        // Spanning tree (n-1 edges) plus about 40% of the other grid streets.
        let undirected = g.arcs() / 2;
        let grid_streets = (w - 1) * h + w * (h - 1);
        assert!(undirected >= w * h - 1 && undirected < grid_streets);
        let avg = g.arcs() as f64 / g.vertices() as f64;
        assert!((2.2..3.4).contains(&avg), "average degree {avg}");
        // Long diameter: the far corner is at least w+h-2 hops away.
        let far = g.bfs_levels(0)[w * h - 1];
        assert!(far as usize >= w + h - 2);
        assert!(g.weight.iter().all(|&x| (1..=100).contains(&x)));
    }

    #[test]
    fn road_grid_is_deterministic_per_seed() {
        assert_eq!(road_grid(10, 10, 0.4, 9, 1), road_grid(10, 10, 0.4, 9, 1));
        assert_ne!(road_grid(10, 10, 0.4, 9, 1), road_grid(10, 10, 0.4, 9, 2));
    }

    #[test]
    fn preferential_attachment_has_power_law_tail() {
        let (n, m) = (4000, 3);
        let g = preferential_attachment(n, m, 3);
        assert!(g.is_connected());
        assert!(symmetric(&g));
        assert_eq!(g.arcs(), 2 * (m * (m + 1) / 2 + (n - m - 1) * m));
        let mut deg: Vec<usize> = (0..n).map(|v| g.degree(v)).collect();
        assert!(deg.iter().all(|&d| d >= m));
        deg.sort_unstable();
        let mean = g.arcs() as f64 / n as f64;
        let median = deg[n / 2] as f64;
        let max = *deg.last().unwrap() as f64;
        // Heavy tail: hubs far above the mean, median below it.
        assert!(max > 10.0 * mean, "max {max} mean {mean}");
        assert!(median < mean);
        // Short diameter (small world).
        let ecc = *g.bfs_levels(0).iter().max().unwrap();
        assert!(ecc <= 12, "eccentricity {ecc}");
    }

    #[test]
    fn preferential_attachment_bc_input_size() {
        // Table 5.3's BC input: 1K vertices, 128K edges (arcs).
        let g = preferential_attachment(1024, 64, 11);
        assert!(g.arcs() > 120_000 && g.arcs() < 132_000, "{}", g.arcs());
    }

    #[test]
    fn mesh2d_degrees_and_ell() {
        let g = mesh2d(5, 4);
        assert_eq!(g.arcs(), 2 * (4 * 4 + 5 * 3));
        assert_eq!(g.degree(0), 2);
        assert_eq!(g.degree(6), 4);
        assert!(g.is_connected());
        let e = g.to_ell();
        assert_eq!(e.width, 4);
        for v in 0..g.vertices() {
            let ell: Vec<u32> = (0..e.width)
                .map(|k| e.col[k * e.vertices + v])
                .filter(|&c| c != Ell::EMPTY)
                .collect();
            let csr: Vec<u32> = g.neighbours(v).map(|(c, _)| c as u32).collect();
            assert_eq!(ell, csr);
        }
    }
}
