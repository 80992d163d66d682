//! Digest §7.2: derived MWP limits of the Table 2/5 GPUs, the 49,333-cycle full example, and the
//! refinements of §2.6 (N_pw, synchronisation, M_Factor, #Mem_insts = 0).

use warpforge_models::mwp_cwp::npw;
use warpforge_models::mwp_cwp::{evaluate, Case, KernelInputs, MwpLimit, Placement};
use warpforge_models::options::{
    IssueFloor, MemLCoal, ModelOptions, NpwForm, RepRounding, SyncWarps,
};
use warpforge_models::params::builtin;

fn close(a: f64, b: f64, tol: f64) {
    assert!((a - b).abs() <= tol, "{a} vs {b} (tol {tol})");
}

fn coal_kernel(comp: f64) -> KernelInputs {
    KernelInputs {
        comp_insts: comp,
        coal_mem_insts: 1.0,
        load_bytes_per_warp: 128.0,
        m_factor: 1.0,
        uncoal_per_mw: 1.0,
        threads_per_block: 256,
        blocks: 1600,
        ..Default::default()
    }
}

/// The thesis as printed where options differ from warpforge's defaults (#Rep fractional).
fn thesis() -> ModelOptions {
    ModelOptions {
        rep: RepRounding::Fractional,
        ..Default::default()
    }
}

fn opts(m: MemLCoal) -> ModelOptions {
    ModelOptions {
        mem_l_coal: m,
        ..thesis()
    }
}

/// MWP_peak_BW of a coalesced kernel on all SMs of `dev`.
fn peak_bw(dev: &str, m: MemLCoal) -> f64 {
    let d = builtin(dev).unwrap();
    let place = Placement {
        active_blocks_per_sm: 3.0,
        active_sms: d.core.num_sms as f64,
    };
    evaluate(&d.timing(), &coal_kernel(10.0), &place, &opts(m)).mwp_peak_bw
}

#[test]
fn fx5600_uncoalesced() {
    let d = builtin("fx5600").unwrap();
    let k = KernelInputs {
        comp_insts: 10.0,
        uncoal_mem_insts: 1.0,
        uncoal_per_mw: 32.0,
        load_bytes_per_warp: 128.0,
        m_factor: 1.0,
        threads_per_block: 256,
        blocks: 1600,
        ..Default::default()
    };
    let place = Placement {
        active_blocks_per_sm: 3.0,
        active_sms: 16.0,
    };
    let m = evaluate(&d.timing(), &k, &place, &thesis());
    close(m.mem_l_uncoal, 730.0, 1e-9);
    close(m.departure_delay, 320.0, 1e-9);
    close(m.mwp_without_bw_full, 2.281, 5e-4);
    assert_eq!(
        m.mwp_limit,
        MwpLimit::DepartureDelay,
        "naive SVM: limiting term 2 is MWP_Without_BW"
    );
}

#[test]
fn fx5600_coalesced_both_variants() {
    let d = builtin("fx5600").unwrap();
    let place = Placement {
        active_blocks_per_sm: 3.0,
        active_sms: 16.0,
    };
    let a = evaluate(
        &d.timing(),
        &coal_kernel(10.0),
        &place,
        &opts(MemLCoal::Thesis),
    );
    let b = evaluate(
        &d.timing(),
        &coal_kernel(10.0),
        &place,
        &opts(MemLCoal::MemLdOnly),
    );
    close(a.mem_l_coal, 424.0, 0.0);
    close(b.mem_l_coal, 420.0, 0.0);
    close(a.mwp_without_bw_full, 106.0, 1e-9);
    close(b.mwp_without_bw_full, 105.0, 1e-9);
    close(a.bw_per_warp_gbs, 0.4075, 5e-5);
    close(b.bw_per_warp_gbs, 0.4114, 5e-5);
    close(a.mwp_peak_bw, 11.78, 5e-3);
    close(b.mwp_peak_bw, 11.67, 5e-3);
    assert_eq!(
        a.mwp_limit,
        MwpLimit::PeakBandwidth,
        "const+opt SVM: limiting term 12 is MWP_peak_BW"
    );
}

#[test]
fn coalesced_peak_bw_per_gpu() {
    close(peak_bw("8800gt", MemLCoal::Thesis), 9.09, 5e-3);
    close(peak_bw("8800gt", MemLCoal::MemLdOnly), 9.00, 5e-3);
    close(peak_bw("8800gtx", MemLCoal::Thesis), 13.25, 5e-3);
    close(peak_bw("8800gtx", MemLCoal::MemLdOnly), 13.13, 6e-3); // 13.125 exactly
    close(peak_bw("gtx280", MemLCoal::Thesis), 12.89, 5e-3);
    close(peak_bw("gtx280", MemLCoal::MemLdOnly), 12.77, 5e-3);
}

#[test]
fn gtx280_uncoalesced_k_transactions() {
    let d = builtin("gtx280").unwrap();
    let place = Placement {
        active_blocks_per_sm: 3.0,
        active_sms: 30.0,
    };
    for (k, want) in [(2.0, 6.125), (3.0, 4.417), (4.0, 3.56)] {
        let inp = KernelInputs {
            comp_insts: 10.0,
            uncoal_mem_insts: 1.0,
            uncoal_per_mw: k,
            load_bytes_per_warp: 128.0,
            m_factor: 1.0,
            threads_per_block: 256,
            blocks: 1600,
            ..Default::default()
        };
        let m = evaluate(&d.timing(), &inp, &place, &thesis());
        close(m.mwp_without_bw_full, (410.0 + 40.0 * k) / (40.0 * k), 1e-9);
        close(m.mwp_without_bw_full, want, 5e-3);
        // "Uncoalesced MWP never saturates bandwidth": the departure-delay limit binds first.
        assert!(m.mwp_without_bw_full < m.mwp_peak_bw);
    }
}

#[test]
fn full_example_49333_cycles() {
    let d = builtin("fx5600").unwrap();
    let place = Placement {
        active_blocks_per_sm: 3.0,
        active_sms: 16.0,
    };
    let m = evaluate(&d.timing(), &coal_kernel(10.0), &place, &thesis());
    close(m.n, 24.0, 0.0);
    close(m.comp_cycles, 44.0, 1e-12);
    close(m.mem_cycles, 424.0, 1e-12);
    close(m.cwp_full, 10.636, 1e-3);
    close(m.mwp, 11.78, 5e-3);
    assert_eq!(m.case, Case::ComputeBound);
    close(m.rep, 33.333, 1e-3);
    close(m.exec_cycles_app, 49_333.3, 0.1);
    close(m.cpi, 5.61, 5e-3);
}

#[test]
fn cpi_approaches_issue_rate_at_peak() {
    // Compute-heavy kernel, one cheap coalesced load: CPI -> 4 (Issue_cycles) once the issue
    // floor is applied. Under the printed order the kernel lands in Case 2 (Comp > Mem) and the
    // prediction drops below the issue time (erratum 2): the test documents both.
    let d = builtin("fx5600").unwrap();
    let place = Placement {
        active_blocks_per_sm: 3.0,
        active_sms: 16.0,
    };
    let po = ModelOptions {
        issue_floor: IssueFloor::Printed,
        ..thesis()
    };
    let printed = evaluate(&d.timing(), &coal_kernel(5000.0), &place, &po);
    assert_eq!(printed.case, Case::MemoryBound);
    assert!(printed.cpi < 2.0, "cpi {}", printed.cpi);
    let o = ModelOptions {
        issue_floor: IssueFloor::Floor,
        ..thesis()
    };
    let m = evaluate(&d.timing(), &coal_kernel(5000.0), &place, &o);
    assert!((m.cpi - 4.0).abs() < 0.01, "cpi {}", m.cpi);
    // A kernel that is already above the floor is unchanged.
    let a = evaluate(&d.timing(), &coal_kernel(10.0), &place, &o);
    assert!((a.exec_cycles_app - 49_333.3).abs() < 0.1);
}

#[test]
fn npw_reproduces_n4_to_8_example() {
    close(npw(4.0, 2.0, 1.0, NpwForm::TotalOverDependent), 8.0, 0.0);
    close(npw(4.0, 2.0, 1.0, NpwForm::Literal), 4.0, 0.0);
    // Guards: no independent request -> N; all independent -> every request overlaps.
    close(npw(4.0, 2.0, 0.0, NpwForm::TotalOverDependent), 4.0, 0.0);
    close(npw(4.0, 3.0, 3.0, NpwForm::TotalOverDependent), 12.0, 0.0);
    assert!(npw(4.0, 3.0, 3.0, NpwForm::Literal).is_finite());
}

#[test]
fn npw_raises_mwp_only_with_few_warps() {
    let d = builtin("fx5600").unwrap();
    let mut k = coal_kernel(4.0);
    k.coal_mem_insts = 2.0;
    k.ind_mem_req = 1.0;
    k.threads_per_block = 64; // 2 warps per block, 2 blocks -> N = 4
    let place = Placement {
        active_blocks_per_sm: 2.0,
        active_sms: 16.0,
    };
    let m = evaluate(&d.timing(), &k, &place, &thesis());
    close(m.n, 4.0, 0.0);
    close(m.n_pw, 8.0, 0.0);
    close(m.mwp, 8.0, 0.0);
    assert_eq!(m.mwp_limit, MwpLimit::IndependentRequests);
    // Many warps: N_pw does not matter, the hardware limit binds.
    let place = Placement {
        active_blocks_per_sm: 12.0,
        active_sms: 16.0,
    };
    let m = evaluate(&d.timing(), &k, &place, &thesis());
    assert_eq!(m.mwp_limit, MwpLimit::PeakBandwidth);
}

#[test]
fn synchronisation_cost_eq25() {
    let d = builtin("fx5600").unwrap();
    let mut k = coal_kernel(10.0);
    k.synch_insts = 2.0;
    let place = Placement {
        active_blocks_per_sm: 3.0,
        active_sms: 16.0,
    };
    let m = evaluate(&d.timing(), &k, &place, &thesis());
    // NpWB = min(MWP = 11.78, 8 warps per block) = 8.
    close(m.npwb, 8.0, 0.0);
    close(m.synch_cost, 4.0 * 7.0 * 2.0 * 3.0 * m.rep, 1e-6);
    close(m.exec_cycles, m.exec_cycles_app + m.synch_cost, 1e-9);
    let o = ModelOptions {
        sync_warps: SyncWarps::Mwp,
        ..thesis()
    };
    let m2 = evaluate(&d.timing(), &k, &place, &o);
    close(
        m2.synch_cost,
        4.0 * (m2.mwp - 1.0) * 2.0 * 3.0 * m2.rep,
        1e-6,
    );
}

#[test]
fn m_factor_scales_comp_cycles() {
    let d = builtin("fx5600").unwrap();
    let mut k = coal_kernel(10.0);
    let place = Placement {
        active_blocks_per_sm: 3.0,
        active_sms: 16.0,
    };
    let base = evaluate(&d.timing(), &k, &place, &thesis()).comp_cycles;
    k.m_factor = 4.2;
    let slow = evaluate(&d.timing(), &k, &place, &thesis()).comp_cycles;
    close(slow / base, 4.2, 1e-12);
}

#[test]
fn no_memory_instructions_is_pure_compute() {
    let d = builtin("fx5600").unwrap();
    let mut k = coal_kernel(23.0);
    k.coal_mem_insts = 0.0;
    let place = Placement {
        active_blocks_per_sm: 3.0,
        active_sms: 16.0,
    };
    let m = evaluate(&d.timing(), &k, &place, &thesis());
    assert_eq!(m.case, Case::PureCompute);
    close(m.exec_cycles, 4.0 * 23.0 * 24.0 * m.rep, 1e-9);
    assert!(m.exec_cycles.is_finite() && m.mwp.is_finite());
    close(m.cpi, 4.0, 1e-9);
}

#[test]
fn whole_rounds_charge_the_partial_wave() {
    // Default #Rep counts whole rounds of the busiest SM: 1600 / 48 = 33.3 -> 34.
    let d = builtin("fx5600").unwrap();
    let place = Placement {
        active_blocks_per_sm: 3.0,
        active_sms: 16.0,
    };
    let m = evaluate(
        &d.timing(),
        &coal_kernel(10.0),
        &place,
        &ModelOptions::default(),
    );
    close(m.rep, 34.0, 0.0);
    close(m.exec_cycles_app, (424.0 + 44.0 * 24.0) * 34.0, 1e-9);
}
