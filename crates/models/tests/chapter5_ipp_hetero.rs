//! Chapter V (throughput model, categories, suggestions), IPP's optimal number of SMs (Eq 63 and
//! the GIPS/W sweep) and Appendix A (energy efficiency, heterogeneous split).

use warpforge_models::hetero::{self, Config};
use warpforge_models::ipp::{optimal_sms_eq63, savings, SweepPoint};
use warpforge_models::mwp_cwp::{evaluate, Case, KernelInputs, MwpLimit, Placement};
use warpforge_models::options::ModelOptions;
use warpforge_models::params::builtin;
use warpforge_models::throughput::{
    self, category, suggestions, DeviceThroughput, KernelMix, MemoryBox,
};

fn close(a: f64, b: f64, tol: f64) {
    assert!((a - b).abs() <= tol, "{a} vs {b} (tol {tol})");
}

fn gpu580(cores: f64) -> DeviceThroughput {
    DeviceThroughput {
        cores,
        freq_ghz: 1.544,
        fp_units: 32.0,
        vec_units: 0.0,
        vec_width: 1.0,
        fma: true,
        inst_latency: 20.0,
        dep_applies: false,
        issue_cycles: 1.0,
    }
}

fn nehalem() -> DeviceThroughput {
    DeviceThroughput {
        cores: 12.0,
        freq_ghz: 2.4,
        fp_units: 2.0,
        vec_units: 2.0,
        vec_width: 4.0,
        fma: false,
        inst_latency: 4.0,
        dep_applies: true,
        issue_cycles: 1.0,
    }
}

#[test]
fn gtx580_peak_1581_gflops() {
    let k = KernelMix {
        fp_fused_insts: 10.0,
        ilp: 1.0,
        dep: 1.0,
        mstr: 1.0,
        ..Default::default()
    };
    close(
        throughput::peak_achievable_gflops(&gpu580(16.0), &k),
        1581.0,
        0.5,
    );
}

#[test]
fn eff_ratio_half_fp_and_cpu_dependences() {
    // 5 FP of 10 instructions: EffRatio <= 0.5 (computation only, Eq 68).
    let k = KernelMix {
        fp_insts: 5.0,
        int_insts: 5.0,
        ilp: 1.0,
        dep: 4.0,
        mstr: 1.0,
        ..Default::default()
    };
    let mb = MemoryBox {
        eff_mem: 0.0,
        mwp_bw: 1.0,
        mwp_proc: 1.0,
        n: 1.0,
    };
    let t = throughput::evaluate(&gpu580(16.0), &k, &mb);
    close(t.eff_ratio, 0.5, 1e-12);
    // CPU, FP latency 4: DEP 1 -> 4x slower, DEP 2 -> 2x, DEP >= 4 -> no loss.
    let r = |dep: f64| {
        let k = KernelMix {
            fp_insts: 10.0,
            ilp: 1.0,
            dep,
            mstr: 1.0,
            ..Default::default()
        };
        throughput::evaluate(
            &nehalem(),
            &k,
            &MemoryBox {
                eff_mem: 0.0,
                mwp_bw: 1.0,
                mwp_proc: 1.0,
                n: 1.0,
            },
        )
        .eff_ratio
    };
    close(r(1.0), 0.25, 1e-12);
    close(r(2.0), 0.5, 1e-12);
    close(r(4.0), 1.0, 1e-12);
    close(r(8.0), 1.0, 1e-12);
    // No FMA on Nehalem: one FMA = two scalar FP instructions, same peak as mul + add.
    let fma = KernelMix {
        fp_fused_insts: 1.0,
        ilp: 1.0,
        dep: 4.0,
        mstr: 1.0,
        ..Default::default()
    };
    let two = KernelMix {
        fp_insts: 2.0,
        ilp: 1.0,
        dep: 4.0,
        mstr: 1.0,
        ..Default::default()
    };
    close(
        throughput::peak_achievable_gflops(&nehalem(), &fma),
        throughput::peak_achievable_gflops(&nehalem(), &two),
        1e-12,
    );
}

fn tp(n: f64, infin: f64, app: f64, bw: f64, proc_: f64) -> throughput::Throughput {
    let k = KernelMix {
        fp_insts: 1.0,
        mem_insts: 1.0,
        ilp: 1.0,
        dep: 1.0,
        mstr: 1.0,
        ..Default::default()
    };
    let mut t = throughput::evaluate(
        &gpu580(16.0),
        &k,
        &MemoryBox {
            eff_mem: 100.0,
            mwp_bw: bw,
            mwp_proc: proc_,
            n,
        },
    );
    t.mwp_app_infin = infin;
    t.mwp_app = app;
    t
}

#[test]
fn ten_categories() {
    // Sub-category I: N < MWP_App_InfiN.
    assert_eq!(category(&tp(2.0, 4.0, 4.0, 3.0, 3.0)), 1);
    assert_eq!(category(&tp(2.0, 4.0, 4.0, 5.0, 3.0)), 2);
    assert_eq!(category(&tp(2.0, 4.0, 4.0, 3.0, 5.0)), 3);
    assert_eq!(category(&tp(2.0, 4.0, 4.0, 3.5, 5.0)), 4);
    assert_eq!(category(&tp(2.0, 4.0, 4.0, 4.0, 5.0)), 5);
    // Sub-category II: N >= MWP_App_InfiN.
    assert_eq!(category(&tp(8.0, 4.0, 4.0, 3.0, 3.0)), 6);
    assert_eq!(category(&tp(8.0, 4.0, 4.0, 5.0, 3.0)), 7);
    assert_eq!(category(&tp(8.0, 4.0, 4.0, 3.0, 5.0)), 8);
    assert_eq!(category(&tp(8.0, 4.0, 4.0, 3.5, 5.0)), 9);
    assert_eq!(category(&tp(8.0, 4.0, 4.0, 9.0, 9.0)), 10);
}

#[test]
fn suggestions_cores_warps_frequency() {
    // MWP_App 8 vs MWP_BW 4: alpha = 2, half the cores; N reduced to half.
    let s = suggestions(&tp(16.0, 4.0, 8.0, 4.0, 20.0), 16);
    assert_eq!(s.active_cores, Some(8));
    assert_eq!(s.warps_per_sm, Some(8));
    // Fig 130: N = 2, MWP_App_InfiN = 4 -> the core clock can be divided by 3 (Eq 93).
    let s = suggestions(&tp(2.0, 4.0, 2.0, 10.0, 10.0), 16);
    close(s.core_freq_divisor.unwrap(), 3.0, 1e-12);
    assert_eq!(s.active_cores, None);
}

#[test]
fn mstr_2_saturates_at_lower_n_than_mstr_1() {
    // Dmadd/Dotp (MSTR = 2) reach MWP_BW at half the N of Cmem (MSTR = 1).
    let sat_n = |mstr: f64| {
        (1..=48)
            .find(|&n| {
                let k = KernelMix {
                    fp_insts: 2.0,
                    mem_insts: 1.0,
                    ilp: 1.0,
                    dep: 1.0,
                    mstr,
                    ..Default::default()
                };
                let t = throughput::evaluate(
                    &gpu580(16.0),
                    &k,
                    &MemoryBox {
                        eff_mem: 450.0,
                        mwp_bw: 12.0,
                        mwp_proc: 100.0,
                        n: n as f64,
                    },
                );
                t.mwp_app >= t.mwp_bw
            })
            .unwrap()
    };
    assert_eq!(sat_n(1.0), 12);
    assert_eq!(sat_n(2.0), 6);
}

fn bw_kernel(threads: u32) -> KernelInputs {
    KernelInputs {
        comp_insts: 6.0,
        coal_mem_insts: 2.0,
        load_bytes_per_warp: 128.0,
        m_factor: 1.0,
        uncoal_per_mw: 1.0,
        threads_per_block: threads,
        blocks: 30 * 4 * 8,
        ..Default::default()
    }
}

#[test]
fn eq63_bandwidth_limited_and_compute_bound() {
    let d = builtin("gtx280").unwrap();
    let place = Placement {
        active_blocks_per_sm: 4.0,
        active_sms: 30.0,
    };
    let m = evaluate(
        &d.timing(),
        &bw_kernel(256),
        &place,
        &ModelOptions::default(),
    );
    assert_eq!(m.case, Case::MemoryBound);
    assert_eq!(m.mwp_limit, MwpLimit::PeakBandwidth);
    let opt = optimal_sms_eq63(&m, d.memory.bandwidth_gbs, 30);
    let want = (141.7 / (m.bw_per_warp_gbs * m.n)).floor() as u32;
    assert_eq!(opt, want);
    assert!(opt < 30);
    // Optimal cores scale as 1/N once bandwidth binds (CWP below N so Eq 63's else-branch holds).
    let mut k = bw_kernel(256);
    k.comp_insts = 8.0;
    let at = |blocks: f64| {
        let p = Placement {
            active_blocks_per_sm: blocks,
            active_sms: 30.0,
        };
        let m = evaluate(&d.timing(), &k, &p, &ModelOptions::default());
        assert!(m.cwp_full < m.n && m.mwp < m.cwp);
        optimal_sms_eq63(&m, d.memory.bandwidth_gbs, 30)
    };
    let (o24, o32) = (at(3.0), at(4.0));
    assert_eq!((o24, o32), (16, 12));
    assert_eq!(o24 * 24, o32 * 32);
    // CWP clamped by N: Eq 63 keeps every SM.
    let m = evaluate(
        &d.timing(),
        &bw_kernel(256),
        &Placement {
            active_blocks_per_sm: 2.0,
            active_sms: 30.0,
        },
        &ModelOptions::default(),
    );
    assert_eq!(optimal_sms_eq63(&m, d.memory.bandwidth_gbs, 30), 30);
    // Compute-bound kernel: all SMs.
    let mut k = bw_kernel(256);
    k.comp_insts = 400.0;
    let m = evaluate(&d.timing(), &k, &place, &ModelOptions::default());
    assert_eq!(optimal_sms_eq63(&m, d.memory.bandwidth_gbs, 30), 30);
}

#[test]
fn sweep_savings() {
    // Flat time beyond 10 SMs: fewer SMs save energy; linear scaling: all SMs best.
    let mk = |flat: bool| -> Vec<SweepPoint> {
        (1..=30)
            .map(|s| {
                let t = if flat {
                    1.0 / (s.min(10) as f64)
                } else {
                    1.0 / s as f64
                };
                let p = 83.0 + 2.0 * s as f64;
                SweepPoint {
                    active_sms: s,
                    time_s: t,
                    power_w: p,
                    runtime_w: p - 83.0,
                    gips: 1.0 / t,
                    gips_per_w: 1.0 / t / p,
                }
            })
            .collect()
    };
    let s = savings(&mk(true)).unwrap();
    assert_eq!(s.optimal_sms, 10);
    assert!(s.saving_runtime_idle > 0.0 && s.saving_runtime > 0.0 && s.saving_power_gating > 0.0);
    close(s.saving_runtime, 1.0 - 20.0 / 60.0, 1e-12);
    close(s.saving_power_gating, 1.0 - 10.0 / 30.0, 1e-12);
    assert_eq!(savings(&mk(false)).unwrap().optimal_sms, 30);
}

#[test]
fn appendix_a_energy_efficiency() {
    // Eq 103: E = (P_o/P_N) x S.
    close(
        hetero::energy_efficiency(100.0, 10.0, 200.0, 2.0),
        2.5,
        1e-12,
    );
    // Same machine (Eq 106): double cores and work per core fixed -> S = 2, and with fixed power
    // the efficiency is linear in S (Eqs 115-117).
    let base = Config {
        cores: 4.0,
        zeta: 1.0,
        freq: 1.0,
        data: 100.0,
        phi: 1.0,
        lambda: 1.0,
        base_w: 10.0,
    };
    let mut e = Vec::new();
    for s in 1..=5 {
        let n = Config {
            zeta: s as f64,
            ..base
        };
        e.push(hetero::efficiency_scaling(&base, &n));
    }
    assert!(hetero::nonlinearity(&e) < 1e-9, "{e:?}");
    // Raising the frequency costs F^3 power: efficiency drops although speed-up rises.
    let fast = Config { freq: 2.0, ..base };
    assert!(hetero::efficiency_scaling(&base, &fast) < 1.0);
    // Heterogeneous split: all on an inefficient GPU is worse than none.
    let cpu = Config {
        cores: 12.0,
        zeta: 1.0,
        freq: 1.0,
        data: 100.0,
        phi: 1.0,
        lambda: 1.0,
        base_w: 50.0,
    };
    let bad_gpu = Config {
        cores: 16.0,
        zeta: 0.1,
        freq: 1.0,
        data: 0.0,
        phi: 1.0,
        lambda: 5.0,
        base_w: 0.0,
    };
    let e0 = hetero::hetero_efficiency(&cpu, &bad_gpu, 0.0);
    close(e0, 1.0, 1e-12);
    assert!(hetero::hetero_efficiency(&cpu, &bad_gpu, 1.0) < e0);
    // Throughput-proportional split (4.11).
    let sp = hetero::split(100.0, 300.0);
    close(sp.gpu_share, 0.75, 1e-12);
}
