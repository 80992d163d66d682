//! The 2D-TB applications of DARSIE's Table 7.1 (document 003, §5.6) that the other sets do not
//! already provide: the NVIDIA SDK's shared-memory-tiled MatrixMul (`mmt`, TB 32x32) and
//! convolutionTexture (`ctex`, CONVTEX, TB 16x16), and the ISPASS Coulombic Potential (`cp`, TB
//! 16x8). The other 2D apps of the table are `bp`, `dct`, `fld` (FWS) and `hot` (HS) of the CAWA
//! and Ctrl-C sets.

// The CPU references are written index-style, mirroring the kernels they check.
#![allow(clippy::needless_range_loop)]

pub mod cp;
pub mod ctex;
pub mod mmt;

use crate::Workload;

/// The workloads of this set, in Table 7.1 order.
pub fn workloads() -> Vec<&'static dyn Workload> {
    vec![&cp::Cp, &ctex::Ctex, &mmt::Mmt]
}

/// The 2D-TB workloads of Table 7.1 in the suite (document 003 §5.6), in the table's order:
/// BP, DCT, FWS (`fld`), HS (`hot`), CP, CONVTEX (`ctex`), MM (`mmt`).
pub const TABLE_7_1_2D: [&str; 7] = ["bp", "dct", "fld", "hot", "cp", "ctex", "mmt"];

/// The 1D-TB workloads of Table 7.1 in the suite: PT (`pf`), FW (`fwt`), SR1 (`sr1`).
pub const TABLE_7_1_1D: [&str; 3] = ["pf", "fwt", "sr1"];
