//! `warpforge experiment cawa` end to end on tiny inputs: the report's keys and their
//! consistency (speed-ups are RR's cycles over the policy's, geomeans over the selected
//! workloads), the SVG charts, and the refusal of unknown names (exit 2, known names listed, no
//! JSON written).

use assert_cmd::Command;
use serde_json::Value;
use std::path::Path;

fn wf() -> Command {
    Command::cargo_bin("warpforge").unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn unknown_policy_or_workload_is_refused_listing_the_known_names() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    for (flag, bad, known) in [
        ("--policy", "fifo", "rr, gto, two_level, gcaws"),
        (
            "--workload",
            "lud",
            "bfs, bt, htw, kmn, nw, sr1, sc, bp, pf, pth, sc_mid, tpf",
        ),
    ] {
        let out = wf()
            .args(["experiment", "cawa", "--size", "tiny", "--json", s(&json)])
            .args([flag, bad])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains(&format!("`{bad}`")) && err.contains(known),
            "{err}"
        );
        assert!(!err.contains("panicked"), "{err}");
        assert!(!json.exists(), "no report on error");
    }
}

#[test]
fn tiny_report_has_consistent_speedups_and_the_claim_metrics() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let svg = dir.path().join("svg");
    wf().env("WARPFORGE_CACHE", dir.path().join("cache"))
        .args(["experiment", "cawa", "--size", "tiny", "--jobs", "2"])
        .args([
            "--workload",
            "kmn,nw,bp",
            "--policy",
            "gcaws,cawa,caws_oracle",
        ])
        .args(["--json", s(&json), "--svg", s(&svg)])
        .assert()
        .success();
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(
        r["policies"],
        serde_json::json!(["rr", "gcaws", "cawa", "caws_oracle"])
    );
    assert_eq!(r["missing"], serde_json::json!({}));
    for p in ["rr", "gcaws", "cawa", "caws_oracle"] {
        let mut sens = Vec::new();
        let mut all = Vec::new();
        for w in ["kmn", "nw", "bp"] {
            let sp = r["speedup"][p][w].as_f64().unwrap();
            let want = r["cycles"]["rr"][w].as_f64().unwrap() / r["cycles"][p][w].as_f64().unwrap();
            assert!((sp - want).abs() < 1e-12, "{p} {w}");
            assert!(r["l1d_mpki"][p][w].as_f64().unwrap() >= 0.0);
            all.push(sp.ln());
            if w != "bp" {
                sens.push(sp.ln());
            }
        }
        let gm = |v: &[f64]| (v.iter().sum::<f64>() / v.len() as f64).exp();
        assert!((r["geomean_sens"][p].as_f64().unwrap() - gm(&sens)).abs() < 1e-9);
        assert!((r["geomean_all"][p].as_f64().unwrap() - gm(&all)).abs() < 1e-9);
    }
    assert_eq!(r["speedup"]["rr"]["kmn"].as_f64(), Some(1.0));
    let acc = r["cpl_accuracy"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&acc));
    // Issue #12 task 3: the accuracy over the TBs whose warp times spread by >= 1%, and the TB
    // diagnostics (fractions in [0, 1], lifetimes in core cycles).
    for key in ["cpl_accuracy_spread", "cpl_accuracy_spread_rr"] {
        if let Some(x) = r[key].as_f64() {
            assert!((0.0..=1.0).contains(&x), "{key} {x}");
        }
        assert!(r[format!("{key}_per_workload")].is_object(), "{key}");
    }
    // Session 15: each term of Eq. 4.1 scored alone on the same samples, and the rank
    // correlation of each with the final warp times at 25/50/75% of each TB's lifetime.
    for key in [
        "cpl_accuracy_inst_term",
        "cpl_accuracy_stall_term",
        "cpl_accuracy_inst_term_rr",
        "cpl_accuracy_stall_term_rr",
    ] {
        let x = r[key].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&x), "{key} {x}");
    }
    for key in ["cpl_rank_rho", "cpl_rank_rho_rr"] {
        for part in ["counter", "inst", "stall"] {
            let row = r[key][part].as_array().unwrap();
            assert_eq!(row.len(), 3, "{key} {part}");
            for x in row.iter().filter_map(|x| x.as_f64()) {
                assert!((-1.0..=1.0).contains(&x), "{key} {part} {x}");
            }
        }
        for w in ["kmn", "nw", "bp"] {
            let tbs = r[format!("{key}_per_workload")][w]["tbs"].as_f64().unwrap();
            let row = r[format!("{key}_per_workload")][w]["counter"]
                .as_array()
                .unwrap();
            // A workload without a TB of 3+ warps with a 1% spread has no rho.
            assert_eq!(tbs == 0.0, row.iter().all(|x| x.is_null()), "{key} {w}");
        }
    }
    for p in ["rr", "gcaws", "cawa"] {
        for w in ["kmn", "nw", "bp"] {
            let sp = r["tb_warp_time_spread"][p][w].as_f64().unwrap();
            let real = r["tb_spread_fraction"][p][w].as_f64().unwrap();
            assert!(
                (0.0..1.0).contains(&sp) && (0.0..=1.0).contains(&real),
                "{p} {w}"
            );
            assert!(
                r["tb_lifetime_cycles"][p][w].as_f64().unwrap() > 0.0,
                "{p} {w}"
            );
        }
    }
    assert!(r["critical_warp_l1d_hit_ratio"].as_f64().unwrap() > 0.0);
    // Fills in the critical partition: only CACP has one; every fraction is in [0, 1].
    for w in ["kmn", "nw", "bp"] {
        assert_eq!(
            r["critical_fill_fraction"]["rr"][w].as_f64(),
            Some(0.0),
            "{w}"
        );
        assert_eq!(r["critical_fill_fraction"]["gcaws"][w].as_f64(), Some(0.0));
        for key in [
            "critical_fill_fraction",
            "critical_warp_access_fraction",
            "critical_warp_hit_fraction",
        ] {
            for p in ["rr", "gcaws", "cawa"] {
                if let Some(x) = r[key][p][w].as_f64() {
                    assert!((0.0..=1.0).contains(&x), "{key} {p} {w} {x}");
                }
            }
        }
    }
    assert!(
        r["critical_fill_fraction"]["cawa"]["kmn"].as_f64().unwrap() > 0.0,
        "KMN's critical warps re-hit lines: CACP places some fills in the critical ways"
    );
    let ways = r["critical_ways_sensitivity"].as_object().unwrap();
    let mut keys: Vec<&str> = ways.keys().map(|k| k.as_str()).collect();
    keys.sort();
    assert_eq!(keys, ["12", "4", "8"]);
    assert_eq!(
        ways["8"], r["geomean_sens"]["cawa"],
        "8 ways is the preset's CAWA"
    );
    let chart = std::fs::read_to_string(svg.join("cawa_speedup.svg")).unwrap();
    assert!(
        chart.starts_with("<svg")
            && chart.contains("kmn\n</text>")
            && chart.contains("cawa\n</text>")
    );
    assert!(svg.join("cawa_l1d_mpki.svg").exists());
    // The L1D ceiling: the 4 runs over the selected Sens workloads only (bp is not Sens),
    // their geometric mean consistent with the per-workload speed-ups.
    let ceil = r["l1d_ceiling_speedup"].as_object().unwrap();
    let mut runs: Vec<&str> = ceil.keys().map(|k| k.as_str()).collect();
    runs.sort();
    assert_eq!(runs, ["gto_l1d_4x", "gto_no_l1d", "rr_l1d_4x", "rr_no_l1d"]);
    for (run, v) in ceil {
        let v = v.as_object().unwrap();
        let mut keys: Vec<&str> = v.keys().map(|k| k.as_str()).collect();
        keys.sort();
        assert_eq!(keys, ["geomean_sens", "kmn", "nw"], "{run}");
        let (k, n) = (v["kmn"].as_f64().unwrap(), v["nw"].as_f64().unwrap());
        assert!(k > 0.0 && n > 0.0, "{run}");
        assert!((v["geomean_sens"].as_f64().unwrap() - (k * n).sqrt()).abs() < 1e-9);
    }
}

#[test]
fn no_ways_and_no_ceiling_skip_the_side_runs() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    wf().env("WARPFORGE_CACHE", dir.path().join("cache"))
        .args(["experiment", "cawa", "--size", "tiny", "--jobs", "2"])
        .args(["--workload", "nw", "--policy", "cawa"])
        .args(["--no-ceiling", "--no-ways", "--json", s(&json)])
        .assert()
        .success();
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(r["critical_ways_sensitivity"].is_null());
    assert!(r["l1d_ceiling_speedup"].is_null());
    // Only the main points ran: RR (the baseline) and CAWA on NW.
    assert_eq!(r["cpu_s"]["points"], 2);
    let mut by: Vec<&str> = r["cpu_s"]["by_policy"]
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    by.sort();
    assert_eq!(by, ["cawa", "rr"]);
    assert!(r["geomean_sens"]["cawa"].as_f64().unwrap() > 0.0);
}
