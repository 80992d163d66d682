//! Workloads of the Ctrl-C set (Lee 2017, Table 5.3; spec §7.3) that are not also in the CAWA /
//! latency set: Mars map-reduce applications (`pvr`, `ss`, `str`, `mm`, `wc`), Pannotia graph
//! applications (`bc`, `csr`, `ell`, `fld`, `prk`, `mis`, `clr`), NVIDIA SDK kernels (`bo`,
//! `fwt`, `dct`) and Rodinia's `hot`.
//!
//! Each driver generates its input from a fixed seed ([`crate::common::rng`]), runs the launch
//! sequence of the application (including host loops to convergence) and checks the output
//! against a CPU reference: exactly for integer results, with stated tolerances for floats.
//! Graph inputs come from [`crate::common::graph`] (the original data files are not available).

use crate::Workload;

mod bc;
mod bo;
mod clr;
mod csr;
mod dct;
mod ell;
mod fld;
mod fwt;
mod hot;
mod mapreduce;
mod mis;
mod mm;
mod prio_mesh;
mod prk;
mod pvr;
mod ss;
mod str;
mod text;
mod wc;

/// The workloads of this set, in Table 5.3 order.
pub fn workloads() -> Vec<&'static dyn Workload> {
    vec![
        &bo::Bo,
        &hot::Hot,
        &fwt::Fwt,
        &dct::Dct,
        &wc::Wc,
        &mis::Mis,
        &clr::Clr,
        &pvr::Pvr,
        &bc::Bc,
        &csr::CsrSssp,
        &fld::Fld,
        &ss::Ss,
        &str::Str,
        &ell::EllSssp,
        &prk::Prk,
        &mm::Mm,
    ]
}
