//! The CAWA / latency-characterisation set (Lee 2017 Tables 3.2 and 4.2): Rodinia- and
//! Parboil-style applications written for warpforge. Each module is one workload: input
//! generation from a seed, the launch sequence, and the CPU reference check.

// The CPU references are written index-style, mirroring the kernels they check.
#![allow(clippy::needless_range_loop)]

pub mod bfs;
pub mod bp;
pub mod bt;
pub mod gau;
pub mod htw;
pub mod kmn;
pub mod lmd;
pub mod lud;
pub mod myc;
pub mod nw;
pub mod pf;
pub mod pth;
pub mod sc;
pub mod sr1;
pub mod sr2;
mod srad;
pub mod tpf;

use crate::Workload;

/// The workloads of this set, in `warpforge list` order: the CAWA set of Table 4.2 first (Sens,
/// then Non-sens), then the latency-characterisation extras of Table 3.2.
pub fn workloads() -> Vec<&'static dyn Workload> {
    vec![
        &bfs::Bfs,
        &bt::Bt,
        &htw::Htw,
        &kmn::Kmn,
        &nw::Nw,
        &sr1::Sr1,
        &sc::SC_SMALL,
        &bp::Bp,
        &pf::Pf,
        &pth::Pth,
        &sc::SC_MID,
        &tpf::Tpf,
        &sr2::Sr2,
        &gau::Gau,
        &lmd::Lmd,
        &lud::Lud,
        &myc::Myc,
    ]
}
