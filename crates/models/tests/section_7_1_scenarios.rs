//! Digest §7.1: the Figure 6–9 scenarios of Chapter II and the Figure 100–103 examples of
//! Chapter V (abstract units: comp period 100, memory period 300, #Rep = 1 unless stated).

use warpforge_models::mwp_cwp::{self, exec_cycles, Case, CaseInputs};
use warpforge_models::throughput::{idle_mem, mwp_app};

fn close(a: f64, b: f64, tol: f64) {
    assert!((a - b).abs() <= tol, "{a} vs {b} (tol {tol})");
}

/// A scenario with MWP given; `mwp_is_n` when MWP equals N.
fn scenario(n: f64, mwp: f64, comp: f64, mem: f64, mem_insts: f64, mem_p: f64) -> (Case, f64, f64) {
    exec_cycles(&CaseInputs {
        n,
        mwp,
        mwp_is_n: mwp >= n,
        comp_cycles: comp,
        mem_cycles: mem,
        mem_insts,
        mem_l: mem_p,
        rep: 1.0,
        mwp_from_npw: false,
    })
}

#[test]
fn fig_6a_mwp2_cwp4_case2() {
    let (case, cwp, cyc) = scenario(8.0, 2.0, 100.0, 300.0, 1.0, 300.0);
    assert_eq!(case, Case::MemoryBound);
    close(cwp, 4.0, 1e-12);
    close(cyc, 1300.0, 1e-9); // Eq (22)
                              // Eq (1) and the narrative: 2 computation + 4 memory periods.
    close(
        mwp_cwp::eq1_exec_cycles(300.0, 100.0, 1.0, 8.0, 2.0),
        1400.0,
        1e-9,
    );
    close(
        mwp_cwp::eq1_exec_cycles(300.0, 100.0, 1.0, 8.0, 2.0),
        2.0 * 100.0 + 4.0 * 300.0,
        1e-9,
    );
}

#[test]
fn fig_6b_two_sets_same_total_as_6a() {
    let (full, cwp, clamped) = mwp_cwp::cwp(200.0, 600.0, 4.0);
    close(full, 4.0, 1e-12);
    assert!(clamped && cwp == 4.0);
    let (case, _, cyc) = scenario(4.0, 2.0, 200.0, 600.0, 2.0, 300.0);
    assert_eq!(case, Case::MemoryBound);
    close(cyc, 1300.0, 1e-9);
    close(
        mwp_cwp::eq1_exec_cycles(600.0, 200.0, 2.0, 4.0, 2.0),
        1400.0,
        1e-9,
    );
}

#[test]
fn fig_7a_case3_one_mem_eight_comp() {
    let (case, cwp, cyc) = scenario(8.0, 8.0, 100.0, 300.0, 1.0, 300.0);
    close(cwp, 4.0, 1e-12);
    assert_eq!(case, Case::ComputeBound);
    close(cyc, 1100.0, 1e-9);
    close(cyc, 300.0 + 8.0 * 100.0, 1e-9);
    close(mwp_cwp::eq3_exec_cycles(300.0, 100.0, 8.0), 1100.0, 1e-9);
}

#[test]
fn fig_7b_case1_and_m200_variant() {
    let (case, _, cyc) = scenario(4.0, 4.0, 200.0, 600.0, 2.0, 300.0);
    assert_eq!(case, Case::NotEnoughWarps);
    close(cyc, 1100.0, 1e-9);
    close(
        mwp_cwp::eq4_exec_cycles(600.0, 200.0, 2.0, 4.0),
        1100.0,
        1e-9,
    );
    // Memory period 200: CWP = 3 < MWP = 4 -> Case 3, 1 mem + 8 comp.
    let (case, cwp, cyc) = scenario(4.0, 4.0, 200.0, 400.0, 2.0, 200.0);
    close(cwp, 3.0, 1e-12);
    assert_eq!(case, Case::ComputeBound);
    close(cyc, 1000.0, 1e-9);
}

#[test]
fn fig_8_off_by_one_documented() {
    let (full, _, _) = mwp_cwp::cwp(400.0, 300.0, 8.0);
    close(full, 1.75, 1e-12);
    let (case, _, cyc) = scenario(8.0, 8.0, 400.0, 300.0, 1.0, 300.0);
    assert_eq!(
        case,
        Case::MemoryBound,
        "Comp > Mem selects Case 2 under the printed order"
    );
    close(cyc, 3100.0, 1e-9); // 1 mem + 7 comp (erratum 2)
    close(mwp_cwp::eq3_exec_cycles(300.0, 400.0, 8.0), 3500.0, 1e-9); // the narrative
}

#[test]
fn fig_9a_and_9b_serialised() {
    let (case, _, cyc) = scenario(1.0, 1.0, 100.0, 300.0, 1.0, 300.0);
    assert_eq!(case, Case::NotEnoughWarps);
    close(cyc, 400.0, 1e-9);
    let (case, cwp, cyc) = scenario(2.0, 2.0, 100.0, 300.0, 1.0, 300.0);
    assert_eq!(case, Case::NotEnoughWarps);
    close(cwp, 2.0, 1e-12);
    close(cyc, 500.0, 1e-9);
    close(cyc, 800.0 / 2.0 + 100.0, 1e-9);
}

#[test]
fn fig_100_and_101_mwp_app() {
    // Fig 100: N = 2, MSTR = 2, MWP_App_InfiN >= 2 -> MWP_App = 4.
    let (infin, one, app, _) = mwp_app(400.0, 100.0, 2.0, 2.0, 100.0, 100.0);
    assert!(infin >= 2.0);
    close(one, 2.0, 1e-12);
    close(app, 4.0, 1e-12);
    // Fig 101: MWP_App = 4, MWP_BW = 3, N = 2 -> MWP = 2.
    let (_, _, app, mwp) = mwp_app(400.0, 100.0, 2.0, 2.0, 3.0, 100.0);
    close(app, 4.0, 1e-12);
    close(mwp, 2.0, 1e-12);
}

#[test]
fn fig_102_103_idle_mem_cycles() {
    let (serial, divided, mem_n, comp_n, idle, ratio) = idle_mem(100.0, 50.0, 400.0, 6.0, 3.0);
    close(serial, 2400.0, 1e-9);
    close(divided, 800.0, 1e-9);
    close(mem_n, 1000.0, 1e-9);
    close(comp_n, 600.0, 1e-9);
    close(idle, 400.0, 1e-9);
    close(ratio, 0.3, 1e-12);
    let (infin, _, _, _) = mwp_app(400.0, 100.0, 6.0, 1.0, 100.0, 100.0);
    close(infin, 4.0, 1e-12);
    // EffMem = 100: memory fully hidden (Eq 80 gives 200 + 200 = 400 < 600; the digest's "300"
    // does not follow from Eq 80 but the conclusion, Idle = 0 and EffRatio = 0.5, holds).
    let (_, _, mem_n, comp_n, idle, ratio) = idle_mem(100.0, 50.0, 100.0, 6.0, 3.0);
    close(mem_n, 400.0, 1e-9);
    assert!(mem_n < comp_n);
    close(idle, 0.0, 0.0);
    close(ratio, 0.5, 1e-12);
}
