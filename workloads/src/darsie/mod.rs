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

/// The operating point of `experiment darsie` ([`crate::Size::Fill`]). Document 003 (§7.6,
/// Table 7.1) names its applications' suites but not their inputs; their standard inputs fill
/// the GPU many times over, while most of our `small` inputs leave Table 7.2's 28 SMs partly
/// empty. The rule, which looks only at grid shapes and never at speed-ups:
pub const FILL_RULE: &str = "each 2D workload of Table 7.1 runs the smallest input that is its \
small input with every linear dimension scaled by one factor s (a multiple of 1/8, CTA shape \
unchanged) such that every launch has at least 2 full waves on Table 7.2's GPU (CTAs >= 2 x 28 \
SMs x the CTAs an SM holds by warps, registers, shared memory and the 32-CTA limit); a workload \
that already has 2 waves at small keeps it (bp). Fill inputs: dct 480x240 (s 1.875), hot 208x208 \
(1.625), cp 480x240 lattice (3.75, the same 128 atoms), ctex 352x352 (1.375), mmt 352 (1.375), \
fld 348 vertices (3.625, the same average degree); the 1D workloads run their small input";
