//! `ell`: Dijkstra / SSSP on an ELLPACK graph (Pannotia), Table 5.3 input "USA road NY",
//! approximated by the same generated road graphs as `csr` (another seed). See
//! `workloads/ell/README.md`.
//!
//! Launches: `ell_relax` until no distance changes. Checked exactly against Dijkstra.

use super::csr::{dijkstra, relax_until_stable, road_input};
use crate::common::{compare_exact, load};
use crate::{check_or_return, Check, Size, Workload, WorkloadError, WorkloadInfo};
use warpforge_simt::{Device, KernelArg as A};

const PTX: &str = include_str!("../../ell/kernel.ptx");

/// The SSSP-on-ELL workload.
pub struct EllSssp;

impl Workload for EllSssp {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "ell",
            application: "Dijkstra, ELL format (Pannotia)",
            suite: "Pannotia",
            sets: "Ctrl-C",
            kernels: &["ell_relax"],
            behaviour: "relaxation until stable; coalesced ELL slots, irregular dist gathers",
        }
    }

    fn input(&self, size: Size) -> String {
        let s: usize = super::csr::road_side(size);
        format!("road-like {s}x{s} grid graph ({} vertices), ELL", s * s)
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let g = road_input("ell", size);
        let e = g.to_ell();
        let n = g.vertices();
        let m = load(dev, PTX, "ell")?;
        let col = dev.alloc_copy(&e.col)?;
        let wt = dev.alloc_copy(&e.weight)?;
        let (got, _) = relax_until_stable(dev, m, "ell_relax", n, |i, o, c| {
            vec![
                A::Ptr(col),
                A::Ptr(wt),
                A::S32(e.width as i32),
                A::Ptr(i),
                A::Ptr(o),
                A::Ptr(c),
                A::S32(n as i32),
            ]
        })?;
        check_or_return!("ell", compare_exact("dist", &got, &dijkstra(&g)));
        Ok(Check::Passed)
    }
}
