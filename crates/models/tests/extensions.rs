//! The extensions beyond Chapter II used for the timing-model parameter set (`gtx480`): the
//! dependent-issue latency, the L2 hit mix, the MSHR bound, the L1 estimate and mix, the LD/ST
//! floor with shared-memory bank conflicts, the critical warp, fetch stalls, the N_pw overlap
//! case, and power from simulated activity. Each is off for the document's devices.

use warpforge_core::{Dim3, DynInst, InstObserver, KernelInfo, MemAccess, MemSpace, OpClass};
use warpforge_models::analyser::{conflict_degree, Analyser, L1Geometry};
use warpforge_models::mwp_cwp::{
    effective_issue_cycles, evaluate, ldst_cycles, KernelInputs, MwpLimit, Placement, DEP_BUCKETS,
};
use warpforge_models::options::{
    CacheMix, DepIssue, L1Mix, LdstFloor, MFactorSource, ModelOptions, RegFileRow, SmemConflicts,
};
use warpforge_models::params::{builtin, Coalescing};
use warpforge_models::power::{from_activity, Unit, UnitCounts};

fn close(a: f64, b: f64, tol: f64) {
    assert!((a - b).abs() <= tol, "{a} vs {b} (tol {tol})");
}

#[test]
fn effective_issue_reduces_to_thesis_with_many_warps() {
    let mut h = [0.0; DEP_BUCKETS];
    h[1] = 1.0; // every instruction depends on the previous one
    close(effective_issue_cycles(0.5, 10.0, &h, 1.0), 10.0, 1e-12); // a lone warp waits the latency
    close(effective_issue_cycles(0.5, 10.0, &h, 4.0), 2.5, 1e-12);
    close(effective_issue_cycles(0.5, 10.0, &h, 48.0), 0.5, 1e-12); // enough warps: peak issue
    close(effective_issue_cycles(4.0, 0.0, &h, 1.0), 4.0, 0.0); // no latency given: the thesis
    let mut far = [0.0; DEP_BUCKETS];
    far[0] = 1.0; // independent instructions issue at the peak
    close(effective_issue_cycles(0.5, 10.0, &far, 1.0), 0.5, 0.0);
}

fn kernel() -> KernelInputs {
    let mut k = KernelInputs {
        comp_insts: 20.0,
        coal_mem_insts: 2.0,
        uncoal_mem_insts: 2.0,
        uncoal_per_mw: 8.0,
        load_bytes_per_warp: 128.0,
        m_factor: 1.0,
        threads_per_block: 256,
        blocks: 120,
        l2_hit_rate: 0.5,
        ..Default::default()
    };
    k.dep_hist[1] = 10.0;
    k.dep_hist[0] = 10.0;
    k
}

#[test]
fn extensions_only_act_with_device_parameters() {
    let place = Placement {
        active_blocks_per_sm: 2.0,
        active_sms: 15.0,
    };
    // GTX280 has no dep latency / L2: the options change nothing.
    let d = builtin("gtx280").unwrap();
    let on = evaluate(&d.timing(), &kernel(), &place, &ModelOptions::default());
    let off = ModelOptions {
        dep: DepIssue::Off,
        cache: CacheMix::Off,
        ..Default::default()
    };
    assert_eq!(on, evaluate(&d.timing(), &kernel(), &place, &off));
    // GTX480 has both: the L2 mix lowers Mem_LD to the hit/miss average (the L1 mix, which
    // takes the L2 fractions of the L1 misses instead, is tested separately).
    let g = builtin("gtx480").unwrap();
    let t = g.timing();
    let no_l1 = ModelOptions {
        l1: L1Mix::Off,
        ..Default::default()
    };
    let m = evaluate(&t, &kernel(), &place, &no_l1);
    close(
        m.mem_l_coal,
        0.5 * t.l2_latency + 0.5 * t.mem_ld + t.departure_del_coal,
        1e-9,
    );
    let m_off = evaluate(&t, &kernel(), &place, &off);
    close(m_off.mem_l_coal, t.mem_ld + t.departure_del_coal, 1e-9);
    // N = 16 warps, half the instructions at distance 1: issue = (0.5 + max(0.5, 10/16)) / 2.
    close(m.comp_cycles, (0.5 + 0.625) / 2.0 * 24.0, 1e-9);
    // Only the missing half of the bytes uses DRAM bandwidth.
    close(m.bw_per_warp_gbs, t.freq_ghz * 128.0 * 0.5 / m.mem_l, 1e-12);
}

#[test]
fn mshr_bound_limits_uncoalesced_mwp() {
    let g = builtin("gtx480").unwrap();
    let mut t = g.timing();
    t.mshr_per_sm = 32.0;
    let mut k = kernel();
    k.coal_mem_insts = 0.0;
    k.uncoal_per_mw = 16.0;
    let place = Placement {
        active_blocks_per_sm: 6.0,
        active_sms: 15.0,
    };
    let m = evaluate(&t, &k, &place, &ModelOptions::default());
    assert_eq!(m.mwp_limit, MwpLimit::Mshr);
    close(m.mwp, 2.0, 1e-12);
}

#[test]
fn independent_requests_use_the_overlap_formula() {
    let d = builtin("fx5600").unwrap();
    let k = KernelInputs {
        comp_insts: 4.0,
        coal_mem_insts: 40.0,
        ind_mem_req: 20.0,
        load_bytes_per_warp: 128.0,
        m_factor: 1.0,
        uncoal_per_mw: 1.0,
        threads_per_block: 64,
        blocks: 32,
        ..Default::default()
    };
    let place = Placement {
        active_blocks_per_sm: 2.0,
        active_sms: 16.0,
    };
    let dep = KernelInputs {
        ind_mem_req: 0.0,
        ..k
    };
    let a = evaluate(&d.timing(), &k, &place, &ModelOptions::default());
    let b = evaluate(&d.timing(), &dep, &place, &ModelOptions::default());
    assert_eq!(a.mwp_limit, MwpLimit::IndependentRequests);
    // INDEP is faster than DEP with few warps, but far from one memory period per kernel.
    assert!(a.exec_cycles < b.exec_cycles);
    assert!(
        a.exec_cycles > 0.4 * b.exec_cycles,
        "{} vs {}",
        a.exec_cycles,
        b.exec_cycles
    );
}

fn ld(addr: u64, store: bool) -> DynInst {
    let mut m = MemAccess {
        space: MemSpace::Global,
        bytes_per_lane: 4,
        is_store: store,
        ..Default::default()
    };
    for l in 0..32 {
        m.addrs[l] = addr + 4 * l as u64;
    }
    DynInst {
        class: if store { OpClass::Store } else { OpClass::Load },
        active_mask: u32::MAX,
        mem: Some(m),
        n_dst: (!store) as u8,
        ..Default::default()
    }
}

#[test]
fn l1_estimate_hits_reuse_and_evicts_on_store() {
    let g = L1Geometry {
        sms: 2,
        sets: 1,
        ways: 2,
    };
    let mut a = Analyser::new(
        Coalescing::Lines128,
        MFactorSource::Experimental,
        RegFileRow::AllOperandInsts,
    )
    .with_l1(Some(g))
    .with_l2(1 << 20);
    let k = KernelInfo {
        name: "k".into(),
        grid: Dim3 { x: 2, y: 1, z: 1 },
        block: Dim3 { x: 32, y: 1, z: 1 },
        ..Default::default()
    };
    a.on_launch(&k);
    a.on_inst(0, 0, &ld(0, false)); // miss
    a.on_inst(0, 0, &ld(0, false)); // hit
    a.on_inst(1, 0, &ld(0, false)); // other SM: miss
    a.on_inst(0, 0, &ld(128, false)); // miss, set now {128, 0}
    a.on_inst(0, 0, &ld(256, false)); // miss, evicts 0 (LRU)
    a.on_inst(0, 0, &ld(0, false)); // miss
    a.on_inst(0, 0, &ld(0, true)); // store: write-evict
    a.on_inst(0, 0, &ld(0, false)); // miss after the eviction
    a.on_launch_end(&k);
    let p = a.take_profiles().pop().unwrap();
    assert_eq!(p.l1_accesses, 7);
    assert_eq!(p.l1_hits, 1);
    // First-touch L2: lines 0, 128, 256 are new once each; 5 of 8 line accesses are reuses.
    assert_eq!(p.line_accesses, 8);
    assert_eq!(p.line_reuses, 5);
    close(p.l2_hit_rate(), 5.0 / 8.0, 1e-12);
}

#[test]
fn power_from_activity_matches_prediction_path() {
    // 30 SMs each issuing one FP + one REG + one FDS access every 4 cycles: the 137.4 W kernel.
    let d = builtin("gtx280").unwrap();
    let p = d.power.as_ref().unwrap();
    let cycles = 4000.0;
    let mut totals = UnitCounts::default();
    for u in [Unit::Fp, Unit::Reg, Unit::Fds] {
        totals.add(u, 30.0 * cycles / 4.0);
    }
    let b = from_activity(p, &totals, cycles, 30.0, 30.0, 4.0);
    close(b.total_w, 137.4, 0.05);
    // Half the activity: rates 0.5 through the special-linear transform.
    let b = from_activity(p, &totals.scaled(0.5), cycles, 30.0, 30.0, 4.0);
    close(b.sm_component_w, 1.0 * 0.90676 + 0.813, 1e-4);
}

fn shared(word_of_lane: impl Fn(u64) -> u64) -> DynInst {
    let mut m = MemAccess {
        space: MemSpace::Shared,
        bytes_per_lane: 4,
        ..Default::default()
    };
    for l in 0..32 {
        m.addrs[l] = 4 * word_of_lane(l as u64);
    }
    DynInst {
        class: OpClass::Load,
        active_mask: u32::MAX,
        mem: Some(m),
        n_dst: 1,
        ..Default::default()
    }
}

#[test]
fn bank_conflict_degree_of_textbook_strides() {
    assert_eq!(conflict_degree(&shared(|l| l), 32, 4), 1);
    assert_eq!(conflict_degree(&shared(|l| 2 * l), 32, 4), 2);
    assert_eq!(conflict_degree(&shared(|l| 32 * l), 32, 4), 32);
    assert_eq!(conflict_degree(&shared(|_| 5), 32, 4), 1, "broadcast");
    // Two words per bank pair: lanes 0..16 and 16..32 read the same 16 words => no conflict.
    assert_eq!(conflict_degree(&shared(|l| l % 16), 32, 4), 1);
}

#[test]
fn analyser_counts_ldst_passes_and_conflict_passes() {
    let mut a = Analyser::new(
        Coalescing::Lines128,
        MFactorSource::Experimental,
        RegFileRow::AllOperandInsts,
    )
    .with_shared_banks(32, 4);
    let k = KernelInfo {
        name: "k".into(),
        grid: Dim3 { x: 1, y: 1, z: 1 },
        block: Dim3 { x: 64, y: 1, z: 1 },
        ..Default::default()
    };
    a.on_launch(&k);
    a.on_inst(0, 0, &shared(|l| 32 * l)); // 32 passes
    a.on_inst(0, 1, &shared(|l| l)); // 1 pass
    a.on_inst(0, 0, &ld(0, false)); // 1 line: 1 pass
    let mut spread = ld(0, false);
    for l in 0..32 {
        spread.mem.as_mut().unwrap().addrs[l] = 256 * l as u64; // 32 lines
    }
    a.on_inst(0, 1, &spread);
    a.on_launch_end(&k);
    let p = a.take_profiles().pop().unwrap();
    assert_eq!(p.ldst_passes, 32 + 1 + 1 + 32);
    assert_eq!(p.smem_extra_passes, 31);
    let i = p.inputs();
    close(i.ldst_passes, 66.0 / 2.0, 1e-12);
    close(i.smem_extra_passes, 31.0 / 2.0, 1e-12);
}

#[test]
fn ldst_floor_bounds_a_conflicting_kernel_and_only_when_asked() {
    let g = builtin("gtx480").unwrap();
    let mut t = g.timing();
    t.ldst_pass_cycles = 1.0;
    t.smem_pass_cycles = 3.0;
    let mut k = kernel();
    k.ldst_passes = 1000.0; // 900 of them extra bank-conflict passes
    k.smem_extra_passes = 900.0;
    let place = Placement {
        active_blocks_per_sm: 2.0,
        active_sms: 15.0,
    };
    let on = ModelOptions::default();
    close(ldst_cycles(&t, &k, &on), 100.0 + 900.0 * 3.0, 1e-9);
    let m = evaluate(&t, &k, &place, &on);
    // N = 16 warps, #Rep = ceil(120 / 30) = 4.
    close(m.exec_cycles_app, 2800.0 * 16.0 * 4.0, 1e-6);
    assert_eq!(m.bound, warpforge_models::mwp_cwp::Bound::Ldst);
    let no_smem = ModelOptions {
        smem: SmemConflicts::Off,
        ..on
    };
    close(ldst_cycles(&t, &k, &no_smem), 100.0, 1e-9);
    let off = ModelOptions {
        ldst: LdstFloor::Off,
        ..on
    };
    let m_off = evaluate(&t, &k, &place, &off);
    assert!(m_off.exec_cycles_app < 0.1 * m.exec_cycles_app);
    // A document device has no ldst_pass_cycles: the floor never acts.
    let d = builtin("gtx280").unwrap();
    assert_eq!(
        evaluate(&d.timing(), &k, &place, &on),
        evaluate(&d.timing(), &k, &place, &off)
    );
}

#[test]
fn l1_mix_uses_request_level_latency_and_line_level_traffic() {
    let g = builtin("gtx480").unwrap();
    let t = g.timing();
    let mut k = kernel();
    k.uncoal_mem_insts = 0.0;
    k.l1_hit_rate = 0.8; // lines
    k.l1_req_hit_rate = 0.5; // whole requests
    k.l2_hit_rate_after_l1 = 0.5;
    k.l2_req_hit_rate_after_l1 = 0.25;
    let place = Placement {
        active_blocks_per_sm: 2.0,
        active_sms: 15.0,
    };
    let m = evaluate(&t, &k, &place, &ModelOptions::default());
    let below = 0.25 * t.l2_latency + 0.75 * t.mem_ld;
    close(
        m.mem_l_coal,
        0.5 * t.l1_latency + 0.5 * below + t.departure_del_coal,
        1e-9,
    );
    // Only the 20% of lines that miss leave the SM, and half of those reach DRAM.
    close(m.departure_delay, t.departure_del_coal * 0.2, 1e-12);
    close(m.bw_per_warp_gbs, t.freq_ghz * 128.0 * 0.1 / m.mem_l, 1e-12);
    // --no-l1: the L2 mix over all accesses, as before the extension.
    let off = evaluate(
        &t,
        &k,
        &place,
        &ModelOptions {
            l1: L1Mix::Off,
            ..Default::default()
        },
    );
    close(
        off.mem_l_coal,
        0.5 * t.l2_latency + 0.5 * t.mem_ld + t.departure_del_coal,
        1e-9,
    );
}

#[test]
fn critical_warp_bounds_an_imbalanced_launch() {
    let g = builtin("gtx480").unwrap();
    let t = g.timing();
    let place = Placement {
        active_blocks_per_sm: 2.0,
        active_sms: 15.0,
    };
    let mut k = kernel();
    k.dep_hist = [0.0; DEP_BUCKETS];
    k.dep_hist[0] = 1.0; // independent instructions: a lone warp issues at the peak (0.5)
    k.l2_hit_rate = 0.0;
    k.ldst_passes = 0.0;
    // One warp runs 1000 computation and 40 memory instructions, 10 of them independent.
    k.crit_warp_comp = 1000.0;
    k.crit_warp_mem = 40.0;
    k.crit_warp_ind = 10.0;
    let on = ModelOptions {
        l1: L1Mix::Off,
        ..Default::default()
    };
    let m = evaluate(&t, &k, &place, &on);
    let alone = 1000.0 * 0.5 + 30.0 * m.mem_l;
    close(
        warpforge_models::mwp_cwp::critical_warp_cycles(&k, 0.5, m.mem_l),
        alone,
        1e-9,
    );
    close(m.exec_cycles_app, alone, 1e-6);
    assert_eq!(m.bound, warpforge_models::mwp_cwp::Bound::CriticalWarp);
    assert!(warpforge_models::predict::bottleneck(&m).starts_with("critical-warp-bound"));
    let off = ModelOptions {
        crit: warpforge_models::options::CriticalWarp::Off,
        ..on
    };
    let m_off = evaluate(&t, &k, &place, &off);
    assert!(
        m_off.exec_cycles_app < alone - 1000.0,
        "{}",
        m_off.exec_cycles_app
    );
    // Without `dep_latency` (document devices) the bound never acts.
    let d = builtin("gtx280").unwrap();
    assert_eq!(
        evaluate(&d.timing(), &k, &place, &on),
        evaluate(&d.timing(), &k, &place, &off)
    );
}

#[test]
fn analyser_finds_the_longest_warp() {
    let mut a = Analyser::new(
        Coalescing::Lines128,
        MFactorSource::Experimental,
        RegFileRow::AllOperandInsts,
    );
    let k = KernelInfo {
        name: "k".into(),
        grid: Dim3 { x: 2, y: 1, z: 1 },
        block: Dim3 { x: 64, y: 1, z: 1 },
        ..Default::default()
    };
    let alu = DynInst {
        class: OpClass::IntAlu,
        active_mask: u32::MAX,
        ..Default::default()
    };
    a.on_launch(&k);
    for (cta, warp, n_alu, n_ld) in [(0, 0, 3, 1), (0, 1, 2, 0), (1, 1, 5, 2), (1, 0, 1, 1)] {
        for _ in 0..n_alu {
            a.on_inst(cta, warp, &alu);
        }
        for i in 0..n_ld {
            a.on_inst(cta, warp, &ld(128 * i as u64, false));
        }
    }
    a.on_launch_end(&k);
    let p = a.take_profiles().pop().unwrap();
    assert_eq!((p.crit_warp_insts, p.crit_warp_mem), (7, 2));
    // The second load issues while the first is unconsumed: independent.
    assert_eq!(p.crit_warp_ind, 1);
    let i = p.inputs();
    assert_eq!((i.crit_warp_comp, i.crit_warp_mem), (5.0, 2.0));
}

#[test]
fn fetch_misses_of_the_first_warp_through_a_small_icache() {
    // 1 set x 2 ways: a loop over 3 code lines thrashes, a loop over 2 lines does not.
    let mut a = Analyser::new(
        Coalescing::Lines128,
        MFactorSource::Experimental,
        RegFileRow::AllOperandInsts,
    )
    .with_icache(1, 2);
    let k = KernelInfo {
        name: "k".into(),
        grid: Dim3 { x: 2, y: 1, z: 1 },
        block: Dim3 { x: 32, y: 1, z: 1 },
        ..Default::default()
    };
    let at = |pc: u64| DynInst {
        pc,
        class: OpClass::IntAlu,
        active_mask: u32::MAX,
        ..Default::default()
    };
    a.on_launch(&k);
    for _ in 0..3 {
        for pc in [0u64, 8, 128, 256] {
            a.on_inst(0, 0, &at(pc)); // lines 0, 0, 1, 2
        }
    }
    a.on_inst(1, 0, &at(512)); // another CTA's warp: not counted
    a.on_launch_end(&k);
    // Relaunch of a 2-line kernel body: line 2 still cached, line 0 is in the L2 (seen before).
    a.on_launch(&k);
    a.on_inst(0, 0, &at(256));
    a.on_inst(0, 0, &at(0));
    a.on_launch_end(&k);
    let ps = a.take_profiles();
    // LRU with 2 ways over lines 0,1,2 repeated: every line change misses (9), 3 of them cold.
    assert_eq!((ps[0].fetch_misses, ps[0].fetch_cold), (9, 3));
    assert_eq!((ps[1].fetch_misses, ps[1].fetch_cold), (1, 0));
    let g = builtin("gtx480").unwrap();
    let t = g.timing();
    let i = ps[0].inputs();
    close(
        warpforge_models::mwp_cwp::fetch_cycles(&t, &i),
        6.0 * t.l2_latency + 3.0 * t.mem_ld,
        1e-9,
    );
}

#[test]
fn power_totals_fast_path_matches_the_full_breakdown() {
    for name in ["gtx280", "gtx580", "gtx480"] {
        let d = builtin(name).unwrap();
        let p = d.power.as_ref().unwrap();
        let mut ar = UnitCounts::default();
        for (i, u) in [Unit::Fp, Unit::Int, Unit::Reg, Unit::Fds, Unit::GlobalMem]
            .into_iter()
            .enumerate()
        {
            ar.add(u, 0.1 + 0.2 * i as f64);
        }
        let full = p.evaluate(&ar, 7.0, d.core.num_sms as f64);
        let fast = p.evaluate_totals(&ar, 7.0, d.core.num_sms as f64);
        assert!(fast.units.is_empty() && !full.units.is_empty());
        assert_eq!(
            (
                fast.runtime_w,
                fast.total_w,
                fast.idle_w,
                fast.sm_component_w
            ),
            (
                full.runtime_w,
                full.total_w,
                full.idle_w,
                full.sm_component_w
            )
        );
    }
}
