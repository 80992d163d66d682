//! The GPGPU applications of document 004's Table 3 (Rai et al., GPU-access criticality in a
//! CPU-GPU heterogeneous processor; digest §8.2) that the other sets do not already provide:
//! the CUDA SDK's BLACKSCHOLES (`bs`) and REDUCTION (`red`), Parboil's LBM (`lbm`) and
//! Rodinia's CFD (`cfd`). BFS and FASTWALSH are `bfs` and `fwt` of the CAWA and Ctrl-C sets,
//! whose `paper` inputs are those sets' documents'; `bfs1m` is BFS at Table 3's 1M-node input.
//! At `paper` size `lbm`, `cfd`, `bs`, `red` and `bfs1m` run Table 3's thread configuration.

// The CPU references are written index-style, mirroring the kernels they check.
#![allow(clippy::needless_range_loop)]

pub mod bfs1m;
pub mod bs;
pub mod cfd;
pub mod lbm;
pub mod red;

use crate::Workload;

/// The workloads of this set, in Table 3 order.
pub fn workloads() -> Vec<&'static dyn Workload> {
    vec![&lbm::Lbm, &cfd::Cfd, &bfs1m::Bfs1m, &bs::Bs, &red::Red]
}

/// Table 3's applications that the suite provides, as (document name, workload), in the table's
/// order.
pub const TABLE_3: [(&str, &str); 6] = [
    ("LBM", "lbm"),
    ("CFD", "cfd"),
    ("BFS", "bfs"),
    ("FASTWALSH", "fwt"),
    ("BLACKSCHOLES", "bs"),
    ("REDUCTION", "red"),
];
