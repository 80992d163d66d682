//! Document 004 Table 1's GPGPU (spec 004 §7.2) in the `hetero-gpu` preset that `experiment
//! hetero` attaches to the shared LLC: 16 shader cores at 2 GHz with "sixteen SP FLOPs/cycle"
//! each, 512 GFLOPS (seed §5), counted at one FLOP per lane per cycle as the document counts its
//! 1,024-lane, 1 GHz 3D GPU as one TFLOPS (session 21).

use warpforge_timing::GpuConfig;

/// Threads per warp, the unit an SP pipeline's initiation interval is counted in.
const WARP: u32 = 32;

#[test]
fn hetero_gpu_has_table_1s_sixteen_sp_lanes_per_core_and_512_gflops() {
    let g = GpuConfig::preset("hetero-gpu").unwrap();
    let lanes = f64::from(g.core.sp_units * WARP) / f64::from(g.core.initiation.fp_alu);
    assert_eq!(lanes, 16.0, "SP lanes per core per cycle");
    assert_eq!(g.core.num_sms, 16);
    assert_eq!(g.clocks.core_mhz, 2000.0);
    let gflops = lanes * f64::from(g.core.num_sms) * g.clocks.core_mhz / 1000.0;
    assert_eq!(gflops, 512.0);
}

/// Every class the SP pipeline executes runs at half gtx480's per-pipeline rate (a 32-thread warp
/// on 16 lanes), so the core's ALU mix keeps gtx480's proportions; the SFU classes keep gtx480's.
#[test]
fn hetero_gpu_halves_every_sp_class_and_keeps_the_sfu() {
    let g = GpuConfig::preset("hetero-gpu").unwrap();
    let b = GpuConfig::preset("gtx480").unwrap();
    let (gi, bi) = (&g.core.initiation, &b.core.initiation);
    for (name, h, f) in [
        ("int_alu", gi.int_alu, bi.int_alu),
        ("int_mul", gi.int_mul, bi.int_mul),
        ("int_div", gi.int_div, bi.int_div),
        ("fp_alu", gi.fp_alu, bi.fp_alu),
        ("fp_div", gi.fp_div, bi.fp_div),
        ("branch", gi.branch, bi.branch),
        ("collective", gi.collective, bi.collective),
    ] {
        assert_eq!(h, 2 * f, "{name}");
    }
    assert_eq!((b.core.sp_units, g.core.sp_units), (2, 1));
    assert_eq!((gi.sfu, gi.conv, gi.dp), (bi.sfu, bi.conv, bi.dp));
    assert_eq!(g.core.sfu_units, b.core.sfu_units);
    assert!(g.core.dp_on_sfu, "dp stays on the SFU");
}
