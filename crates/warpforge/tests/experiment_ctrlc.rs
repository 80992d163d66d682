//! `experiment ctrlc` end to end on tiny inputs: the JSON keys of the issue, their consistency
//! with each other, the SVG files, Ctrl-C's effect on the L1D-thrashing KMN, and bad input.

use assert_cmd::Command;
use serde_json::Value;

fn wf() -> Command {
    Command::cargo_bin("warpforge").unwrap()
}

#[test]
fn ctrlc_experiment_tiny() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("ctrlc.json");
    let svg = dir.path().join("svg");
    wf().env("WARPFORGE_CACHE", dir.path().join("cache"))
        .args([
            "experiment",
            "ctrlc",
            "--size",
            "tiny",
            "--workloads",
            "kmn,bfs",
        ])
        .args([
            "--json",
            json.to_str().unwrap(),
            "--svg",
            svg.to_str().unwrap(),
        ])
        .args(["--jobs", "2"])
        .assert()
        .success();
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    for c in ["l1d_32k", "l1d_64k", "no_l1d", "pc_bypass", "ctrlc"] {
        for w in ["kmn", "bfs"] {
            let s = r["speedup"][c][w].as_f64().unwrap();
            let cyc = |cfg: &str| r["per_workload"][w][cfg]["cycles"].as_f64().unwrap();
            assert!((s - cyc("baseline") / cyc(c)).abs() < 1e-12, "{c} {w}");
        }
    }
    // The CS split follows the 64 KB rule.
    let cs: Vec<&str> = r["cs_workloads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    for w in ["kmn", "bfs"] {
        let s64 = r["speedup"]["l1d_64k"][w].as_f64().unwrap();
        assert_eq!(cs.contains(&w), s64 > 1.2, "{w}");
    }
    // KMN thrashes the 16 KB L1D: Ctrl-C bypasses, speeds it up and cuts zero-reuse lines.
    let k = &r["per_workload"]["kmn"];
    assert!(r["speedup"]["ctrlc"]["kmn"].as_f64().unwrap() > 1.1);
    assert!(k["ctrlc"]["l1d_bypassed"].as_f64().unwrap() > 0.0);
    assert_eq!(k["baseline"]["l1d_bypassed"].as_f64().unwrap(), 0.0);
    assert!(
        k["ctrlc"]["zero_reuse_fraction"].as_f64().unwrap()
            < k["baseline"]["zero_reuse_fraction"].as_f64().unwrap()
    );
    assert_eq!(r["storage_bytes_per_sm"].as_f64().unwrap(), 608.0);
    let rd = &r["reuse_distance"]["kmn"];
    let sum: f64 = rd["fractions"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_f64().unwrap())
        .sum();
    assert!((sum - 1.0).abs() < 1e-9, "{rd}");
    // The static sweep covers the busiest KMN and BFS load PCs, best exponent in 0..=7.
    for w in ["kmn", "bfs"] {
        let pcs = r["static_exponent"][w].as_object().unwrap();
        assert!(!pcs.is_empty(), "{w}");
        for e in pcs.values() {
            assert!(e["best_exponent"].as_u64().unwrap() <= 7);
            assert_eq!(e["speedup"]["0"].as_f64().unwrap(), 1.0);
        }
    }
    for f in ["speedup.svg", "reuse_distance.svg"] {
        let t = std::fs::read_to_string(svg.join(f)).unwrap();
        assert!(t.starts_with("<svg") && t.contains("KMN") == (f == "reuse_distance.svg"));
    }
}

#[test]
fn ctrlc_experiment_bad_workload_fails_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("x.json");
    let out = wf()
        .args([
            "experiment",
            "ctrlc",
            "--size",
            "tiny",
            "--workloads",
            "kmn,nope",
        ])
        .args(["--json", json.to_str().unwrap(), "--no-cache"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("nope") && !err.contains("panicked"), "{err}");
    assert!(!json.exists());
}
