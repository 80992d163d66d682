//! HeteroPDP (document 000 Chapter 6): regression, metrics, decision rule and interference model.

use warpforge_models::heteropdp::corunner::spec2006;
use warpforge_models::heteropdp::decide::{choose, Target};
use warpforge_models::heteropdp::metrics::{
    fairness, fairness_ratio, slowdown, weighted_fairness, weighted_speedup,
};
use warpforge_models::heteropdp::platform::{corunner_load, llc_shares, solve, Load, Platform};
use warpforge_models::heteropdp::regression::{
    all_terms, cross_validate, prune, Fit, Model, Sample, Weighting,
};

/// Deterministic pseudo-random factors in [1, 100).
fn lcg(seed: &mut u64) -> f64 {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    1.0 + 99.0 * ((*seed >> 11) as f64 / (1u64 << 53) as f64)
}

fn synthetic(coef: &[f64], n_factors: usize, rows: usize, seed: u64) -> Vec<Sample> {
    let terms = all_terms(n_factors);
    let mut s = seed;
    (0..rows)
        .map(|r| {
            let x: Vec<f64> = (0..n_factors).map(|_| lcg(&mut s)).collect();
            let y = terms
                .iter()
                .zip(coef)
                .map(|(&t, c)| {
                    c * match t.1 {
                        None => x[t.0],
                        Some(j) => x[t.0] * x[j],
                    }
                })
                .sum();
            Sample {
                group: format!("k{}", r / 2),
                x,
                y,
            }
        })
        .collect()
}

#[test]
fn term_counts_match_appendix_a() {
    assert_eq!(all_terms(8).len(), 36);
    assert_eq!(all_terms(10).len(), 55);
    assert_eq!(all_terms(9).len(), 45);
    assert!(all_terms(3).contains(&(0, Some(2))));
    assert!(!all_terms(3).iter().any(|t| t.1 == Some(t.0)));
}

#[test]
fn least_squares_recovers_known_coefficients() {
    // Three factors: 3 main effects + 3 products, coefficients of mixed sign and scale.
    let coef = [2.0, -0.5, 1e-3, 0.25, -4e-2, 7.0];
    let names: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
    // y must stay positive for the relative weighting: add a large positive main effect.
    let coef_pos = [200.0, 50.0, 30.0, 0.25, 4e-2, 7.0];
    for (c, w) in [(coef, Weighting::Absolute), (coef_pos, Weighting::Relative)] {
        let s: Vec<Sample> = synthetic(&c, 3, 40, 7)
            .into_iter()
            .filter(|s| s.y > 0.0)
            .collect();
        assert!(s.len() > 12);
        let m = Model::fit(
            &names,
            &s,
            Fit {
                weighting: w,
                rcond: 0.0,
            },
        )
        .unwrap();
        for (got, want) in m.coef.iter().zip(&c) {
            assert!(
                (got - want).abs() <= 1e-6 * want.abs().max(1.0),
                "{w:?}: {got} vs {want}"
            );
        }
        // And it predicts an unseen point exactly.
        let x = [3.0, 5.0, 11.0];
        let y: f64 =
            c[0] * 3.0 + c[1] * 5.0 + c[2] * 11.0 + c[3] * 15.0 + c[4] * 33.0 + c[5] * 55.0;
        assert!((m.predict(&x) - y).abs() < 1e-6 * y.abs().max(1.0));
    }
}

#[test]
fn fit_rejects_bad_samples() {
    let names = vec!["a".to_string()];
    let bad = vec![Sample {
        group: "g".into(),
        x: vec![1.0],
        y: 0.0,
    }];
    assert!(Model::fit(&names, &bad, Fit::default()).is_err());
    assert!(Model::fit(&names, &[], Fit::default()).is_err());
    let arity = vec![Sample {
        group: "g".into(),
        x: vec![1.0, 2.0],
        y: 1.0,
    }];
    assert!(Model::fit(&names, &arity, Fit::default()).is_err());
}

#[test]
fn cross_validation_is_exact_on_noiseless_data_and_pruning_drops_an_outlier() {
    let coef = [5.0, 3.0, 0.5, 0.1, 0.2, 0.3];
    let names: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
    let mut s = synthetic(&coef, 3, 60, 11);
    let p = cross_validate(&names, &s, 5, Fit::default()).unwrap();
    for (pi, si) in p.iter().zip(&s) {
        assert!((pi - si.y).abs() < 1e-6 * si.y);
    }
    // Corrupt one kernel's times: it is the one the pruning removes.
    for x in s.iter_mut().filter(|x| x.group == "k3") {
        x.y *= 40.0;
    }
    let pr = prune(&names, &s, 10, 0.3, Fit::default()).unwrap();
    assert_eq!(pr.removed.first().map(String::as_str), Some("k3"));
    assert!(pr.cv_r2_kept > pr.cv_r2_pool);
    assert!(!pr.kept.contains(&"k3".to_string()));
}

#[test]
fn metrics_on_hand_computed_examples() {
    assert_eq!(slowdown(3.0, 2.0), 1.5);
    // Eq 6.1: min 1.2 / max 1.5 = 0.8.
    assert!((fairness(&[1.5, 1.2]) - 0.8).abs() < 1e-12);
    assert_eq!(fairness(&[1.3]), 1.0);
    // Eq 6.2.
    assert!((fairness_ratio(0.8, 0.4) - 2.0).abs() < 1e-12);
    // Eq 6.3/6.4: slowdowns 1.5 (OpenCL, w 1) and 1.2 (CPU, w 2.5) -> 1.5 and 3.0 -> 0.5.
    assert!((weighted_fairness(&[1.5, 1.2], &[1.0, 2.5]) - 0.5).abs() < 1e-12);
    // Weighted speedup: 1/1.5 + 1/1.2 = 1.5.
    assert!((weighted_speedup(&[1.5, 1.2]) - 1.5).abs() < 1e-12);
}

#[test]
fn decision_rule_picks_the_faster_or_fairer_target() {
    assert_eq!(choose([2.0, 1.0], [2.0, 1.0], None), Target::Gpu);
    assert_eq!(choose([0.5, 1.0], [0.5, 1.0], None), Target::Cmp);
    // Co-located: fairness decides even when the GPU is faster.
    assert_eq!(
        choose([2.0, 1.0], [3.0, 1.1], Some([0.9, 0.5])),
        Target::Cmp
    );
    assert_eq!(
        choose([2.0, 1.0], [3.0, 1.1], Some([0.4, 0.5])),
        Target::Gpu
    );
    // Equal fairness: the faster co-located time.
    assert_eq!(
        choose([1.0, 1.0], [3.0, 2.0], Some([0.7, 0.7])),
        Target::Gpu
    );
}

#[test]
fn mm1_solve_is_consistent_alone_and_slows_with_pressure() {
    let p = Platform::default();
    // A program alone at its own utilisation keeps its alone time.
    let bytes = 5.5e9; // 5.5 GB in 1 s: rho 0.25
    let l = Load {
        compute_s: 0.4,
        memory_s: 0.6,
        dram_bytes: bytes,
        rho_alone: bytes / 22e9,
        ps: 1.0,
    };
    let (rho, t) = solve(&p, &[l]);
    assert!((rho - 0.25).abs() < 1e-9 && (t[0] - 1.0).abs() < 1e-9);
    // Heavier co-runners slow it more, and the fixed point holds.
    for c in spec2006() {
        let co = corunner_load(&p, &c, 8e6, 1.0);
        let (rho, t) = solve(&p, &[l, co]);
        let demand = bytes / t[0] + co.dram_bytes / t[1];
        assert!(t[0] >= 1.0 - 1e-12);
        assert!((demand / 22e9 - rho).abs() < 1e-6 || rho >= p.rho_max - 1e-9);
    }
    let light = solve(&p, &[l, corunner_load(&p, &spec2006()[1], 8e6, 1.0)]).1[0];
    let heavy = solve(&p, &[l, corunner_load(&p, &spec2006()[2], 8e6, 1.0)]).1[0];
    assert!(heavy > light, "lbm {heavy} vs calculix {light}");
}

#[test]
fn llc_shares_follow_insertion_rates_and_footprints() {
    let s = llc_shares(8.0, &[1.0, 3.0], &[100.0, 100.0]);
    assert!((s[0] - 2.0).abs() < 1e-12 && (s[1] - 6.0).abs() < 1e-12);
    // A small footprint is capped and the rest redistributed.
    let s = llc_shares(8.0, &[1.0, 1.0], &[1.0, 100.0]);
    assert!((s[0] - 1.0).abs() < 1e-12 && (s[1] - 7.0).abs() < 1e-12);
    // Fitting programs all keep their footprint.
    let s = llc_shares(8.0, &[5.0, 1.0], &[2.0, 3.0]);
    assert_eq!(s, vec![2.0, 3.0]);
}

fn launch(blocks: u64, tpb: u32, per_warp: u64) -> warpforge_models::analyser::KernelProfile {
    let warps = blocks * u64::from(tpb.div_ceil(32));
    warpforge_models::analyser::KernelProfile {
        kernel: "k".into(),
        threads_per_block: tpb,
        blocks,
        warps,
        warp_insts: 10 * per_warp * warps,
        comp_insts: 7 * per_warp * warps,
        int_insts: 4 * per_warp * warps,
        fp_insts: 3 * per_warp * warps,
        coal_mem_insts: 2 * per_warp * warps,
        uncoal_mem_insts: per_warp * warps,
        uncoal_transactions: 8 * per_warp * warps,
        transactions: 10 * per_warp * warps,
        transaction_bytes: 1280 * per_warp * warps,
        branch_insts: per_warp * warps,
        store_insts: per_warp * warps,
        line_accesses: 10 * per_warp * warps,
        line_reuses: 5 * per_warp * warps,
        footprint_lines: 5 * per_warp * warps,
        l2_bytes: 1 << 18,
        crit_warp_insts: 10 * per_warp,
        ..Default::default()
    }
}

#[test]
fn features_are_per_work_item_and_threads_per_launch() {
    use warpforge_models::heteropdp::features::kernel_features;
    use warpforge_models::heteropdp::platform::KernelJob;
    // Two launches of one kernel: 4 blocks × 64 threads (8 warps, 1 unit of work per warp)
    // and 2 blocks × 64 threads (4 warps, 3 units per warp).
    let (a, b) = (launch(4, 64, 1), launch(2, 64, 3));
    let job = KernelJob {
        name: "w/k".into(),
        cmp: vec![a.clone(), b.clone()],
        gpu: vec![a, b],
    };
    let f = kernel_features(&job);
    // Integer instructions per work-item summed over the launches: 4×1 + 4×3.
    assert_eq!(f.gpu[1], 16.0);
    assert_eq!(f.cmp[0], 16.0);
    // Memory (global) per work-item: 3×1 + 3×3; branch 1 + 3.
    assert_eq!(f.gpu[0], 12.0);
    assert_eq!(f.gpu[4], 4.0);
    // Mean global work size of a launch: (256 + 128) / 2.
    assert_eq!(f.threads, 192.0);
    // A total-count feature would double with a twice-larger grid; a per-item one does not.
    let g = warpforge_models::heteropdp::scale::scale_job(&job, 2.0);
    let f2 = kernel_features(&g);
    assert_eq!(f2.gpu, f.gpu);
    assert_eq!(f2.threads, 2.0 * f.threads);
    assert_eq!(f2.buffer_bytes, 2.0 * f.buffer_bytes);
}

#[test]
fn grid_scaling_keeps_per_warp_inputs_and_grows_the_footprint() {
    use warpforge_models::heteropdp::scale::scale_profile;
    let p = launch(10, 256, 5);
    let s = scale_profile(&p, 4.0);
    assert_eq!(s.blocks, 40);
    assert_eq!(s.warps, 4 * p.warps);
    assert_eq!(s.footprint_lines, 4 * p.footprint_lines);
    assert_eq!(s.crit_warp_insts, p.crit_warp_insts);
    let (i, j) = (p.inputs(), s.inputs());
    assert_eq!(i.comp_insts, j.comp_insts);
    assert_eq!(i.coal_mem_insts, j.coal_mem_insts);
    assert_eq!(i.uncoal_per_mw, j.uncoal_per_mw);
    assert_eq!(j.blocks, 4 * i.blocks);
    // The footprint (250 kB) outgrows the 256 KiB L2 estimate: the hit estimate falls with the scale.
    assert!(s.l2_hit_rate() < p.l2_hit_rate());
    // Scaling down rounds the grid to at least one block; totals follow the realised factor.
    let q = scale_profile(&p, 0.01);
    assert_eq!(q.blocks, 1);
    assert_eq!(q.warps, p.warps / 10);
}

/// Random kernel features of plausible magnitudes.
fn random_kernel(seed: &mut u64) -> warpforge_models::heteropdp::features::KernelFeatures {
    let mut k = warpforge_models::heteropdp::features::KernelFeatures::default();
    for v in k.cmp.iter_mut().chain(k.gpu.iter_mut()) {
        *v = lcg(seed);
    }
    k.threads = 1e3 * lcg(seed);
    k.buffer_bytes = 2e5 * lcg(seed);
    k.transfer_bytes = 2e5 * lcg(seed);
    k
}

#[test]
fn nested_model_recovers_a_synthetic_interference_law() {
    use warpforge_models::heteropdp::nested::{
        cross_validate as nested_cv, interference_factors, msle, names, Interference,
    };
    let p = Platform::default();
    let cos = spec2006();
    // Known laws (of ln slowdown) on the named factors: the CMP slowdown grows with the
    // co-runners' core share and with their bandwidth times the kernel's own bandwidth; the GPU
    // one with the co-runners' bandwidth times the kernel's copy share.
    let law = |d: Target, x: &[f64]| -> f64 {
        match d {
            Target::Cmp => (0.9 * x[2] + 0.9 * x[0] * x[3] + 0.3 * x[1] * x[4]).exp(),
            Target::Gpu => (1.7 * x[0] * x[2] + 0.2 * x[1]).exp(),
        }
    };
    for d in [Target::Cmp, Target::Gpu] {
        let n = names(d);
        assert_eq!(n[0], "co_dram_bw_util");
        let mut seed = 7u64;
        let mut make = |rows: usize, tag: &str| -> Vec<Sample> {
            (0..rows)
                .map(|r| {
                    let k = random_kernel(&mut seed);
                    let ta = 1e-5 * lcg(&mut seed);
                    let one = std::slice::from_ref(&cos[r % cos.len()]);
                    let both = &cos[r % 2..r % 2 + 2];
                    let co = if r % 3 == 0 { both } else { one };
                    let x = interference_factors(&p, d, &k, ta, co);
                    assert_eq!(x.len(), n.len());
                    Sample {
                        group: format!("{tag}{}", r / 3),
                        y: law(d, &x),
                        x,
                    }
                })
                .collect()
        };
        let train = make(240, "k");
        let test = make(60, "t");
        let m = Interference::fit(d, &train, 0.0).expect("fit");
        for s in &test {
            let got = m.slowdown(&s.x);
            assert!((got - s.y).abs() < 1e-6 * s.y, "{d:?}: {got} vs {}", s.y);
        }
        // No co-runner: no pressure factor, so exactly no slowdown.
        let k = random_kernel(&mut seed);
        assert_eq!(m.slowdown(&interference_factors(&p, d, &k, 1e-4, &[])), 1.0);
        // Cross-validation by group sees the same law in every fold.
        let y: Vec<f64> = train.iter().map(|s| s.y).collect();
        let cv = nested_cv(d, &train, 8, 0.0).expect("cv");
        assert!(msle(&cv, &y) < 1e-12, "{d:?}: cv msle {}", msle(&cv, &y));
        // A law outside the model's span (a slowdown without any co-runner pressure) is not
        // recovered: the no-intercept terms all vanish without pressure.
        let off: Vec<Sample> = train
            .iter()
            .map(|s| Sample {
                y: s.y * (1.0 + 0.5 * s.x[n.len() - 1] / 2e7),
                ..s.clone()
            })
            .collect();
        let yo: Vec<f64> = off.iter().map(|s| s.y).collect();
        let cvo = nested_cv(d, &off, 8, 0.0).expect("cv");
        assert!(msle(&cvo, &yo) > 1e-6);
    }
}

#[test]
fn log_fit_removes_the_downward_bias_of_relative_least_squares() {
    // Positive coefficients, so every time is positive; multiplicative noise e^{±0.4}
    // (symmetric in ln). Relative least squares shrinks every prediction by
    // cosh(0.4)/cosh(0.8) ≈ 0.81 (mean ln error ≈ −0.21); the log fit is unbiased in ln.
    let coef = [2.0, 0.5, 1e-1, 0.25, 4e-2, 7e-2];
    let names: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
    let clean = synthetic(&coef, 3, 400, 11);
    let noisy: Vec<Sample> = clean
        .iter()
        .enumerate()
        .map(|(i, s)| Sample {
            y: s.y
                * if i % 2 == 0 {
                    0.4f64.exp()
                } else {
                    (-0.4f64).exp()
                },
            ..s.clone()
        })
        .collect();
    let mean_ln = |m: &Model| {
        noisy
            .iter()
            .map(|s| (m.predict(&s.x) / s.y).ln())
            .sum::<f64>()
            / noisy.len() as f64
    };
    let sse = |m: &Model| -> f64 {
        noisy
            .iter()
            .map(|s| (m.predict(&s.x).max(1e-3 * s.y) / s.y).ln().powi(2))
            .sum()
    };
    let rel = Model::fit(&names, &noisy, Fit::default()).expect("relative");
    let log = Model::fit(
        &names,
        &noisy,
        Fit {
            weighting: Weighting::Log,
            rcond: 0.0,
        },
    )
    .expect("log");
    assert!(mean_ln(&rel) < -0.15, "relative: {}", mean_ln(&rel));
    assert!(mean_ln(&log).abs() < 0.05, "log: {}", mean_ln(&log));
    assert!(sse(&log) < sse(&rel));
    // Noiseless data: the log fit keeps the exact coefficients.
    let exact = Model::fit(
        &names,
        &clean,
        Fit {
            weighting: Weighting::Log,
            rcond: 0.0,
        },
    )
    .expect("exact");
    for (got, want) in exact.coef.iter().zip(coef) {
        assert!(
            (got - want).abs() < 1e-6 * want.abs().max(1e-3),
            "{got} vs {want}"
        );
    }
}
