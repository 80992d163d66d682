//! Launch bundles (issue 14 item 2): `run W --dump-launches DIR` then `ptx run --bundle DIR`
//! replays exactly the workload's launches, functionally and on the timing model.

use assert_cmd::Command;
use predicates::prelude::*;

fn wf() -> Command {
    Command::cargo_bin("warpforge").unwrap()
}

fn json(path: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn names() -> Vec<String> {
    let out = wf().args(["list", "--names"]).output().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// Every workload's bundle replays with the same dynamic instruction counts: the same kernels,
/// shapes, arguments and memory (host writes between launches included), or the counts of
/// data-dependent kernels (bfs, graph codes) would differ.
#[test]
fn every_workload_replays_its_launches() {
    let dir = tempfile::tempdir().unwrap();
    let all = names();
    assert!(all.len() >= 39);
    for w in &all {
        let b = dir.path().join(format!("b-{w}"));
        let (f, r) = (dir.path().join("f.json"), dir.path().join("r.json"));
        wf().args(["run", w, "--size", "tiny", "--json", f.to_str().unwrap()])
            .args(["--dump-launches", b.to_str().unwrap()])
            .assert()
            .success()
            .stdout(predicate::str::contains("wrote launch bundle"));
        assert!(b.join("launches.toml").is_file() && b.join("kernel.ptx").is_file());
        wf().args(["ptx", "run", "--bundle", b.to_str().unwrap()])
            .args(["--json", r.to_str().unwrap()])
            .assert()
            .success();
        let (f, r) = (json(&f), json(&r));
        assert_eq!(f["warp_insts"], r["warp_insts"], "{w}: warp instructions");
        assert_eq!(
            f["thread_insts"], r["thread_insts"],
            "{w}: thread instructions"
        );
        let launches: u64 = r["launches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["repeat"].as_u64().unwrap())
            .sum();
        assert_eq!(f["launches"].as_u64().unwrap(), launches, "{w}: launches");
        // Every workload writes an output, so the bundle records final bytes and the replay
        // ends with exactly those bytes.
        assert!(
            std::fs::read_to_string(b.join("launches.toml"))
                .unwrap()
                .contains("expect = \"final_b"),
            "{w}: no recorded final buffer"
        );
        assert_eq!(r["check"], "passed", "{w}: final memory");
    }
}

/// cp's host code fills the module variable `cp_atoms` (`cudaMemcpyToSymbol`): the bundle
/// carries it as a `[[global]]`, and a replay without it ends with other bytes, which the
/// final-memory check reports (exit status 2, the buffer named).
#[test]
fn module_variables_travel_and_the_final_check_catches_their_absence() {
    let dir = tempfile::tempdir().unwrap();
    let b = dir.path().join("cp");
    wf().args(["run", "cp", "--size", "tiny", "--dump-launches"])
        .arg(&b)
        .assert()
        .success();
    let script = std::fs::read_to_string(b.join("launches.toml")).unwrap();
    assert!(script.contains("[[global]]\nname = \"cp_atoms\"\ninit = \"file:g0.npy\""));
    wf().args(["ptx", "run", "--bundle"])
        .arg(&b)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "check: the final bytes of 1 buffer(s) match",
        ));
    let without = script.replace(
        "[[global]]\nname = \"cp_atoms\"\ninit = \"file:g0.npy\"\n",
        "",
    );
    assert_ne!(without, script);
    std::fs::write(b.join("launches.toml"), without).unwrap();
    wf().args(["ptx", "run", "--bundle"])
        .arg(&b)
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("check failed").and(predicate::str::contains("buffer `b0`")),
        );
}

/// On the timing model the replay is the same simulation: identical cycles and cache counts.
#[test]
fn timing_replay_matches_the_workload_run() {
    let dir = tempfile::tempdir().unwrap();
    for w in ["kmn", "bfs"] {
        let b = dir.path().join(format!("b-{w}"));
        let (t, r) = (dir.path().join("t.json"), dir.path().join("r.json"));
        wf().args([
            "run",
            w,
            "--size",
            "tiny",
            "--dump-launches",
            b.to_str().unwrap(),
        ])
        .assert()
        .success();
        wf().args([
            "run",
            w,
            "--size",
            "tiny",
            "--mode",
            "timing",
            "--threads",
            "1",
        ])
        .args(["--json", t.to_str().unwrap()])
        .assert()
        .success();
        wf().args([
            "ptx",
            "run",
            "--bundle",
            b.to_str().unwrap(),
            "--mode",
            "timing",
        ])
        .args(["--threads", "1", "--json", r.to_str().unwrap()])
        .assert()
        .success();
        let (t, r) = (json(&t), json(&r));
        assert!(t["cycles"].as_u64().unwrap() > 0);
        for key in ["cycles", "warp_insts", "l1d", "l2", "dram"] {
            assert_eq!(t[key], r[key], "{w}: {key}");
        }
    }
}

#[test]
fn dump_refuses_a_full_directory_and_timing_mode() {
    let dir = tempfile::tempdir().unwrap();
    let full = dir.path().join("full");
    std::fs::create_dir(&full).unwrap();
    std::fs::write(full.join("x"), "keep").unwrap();
    wf().args([
        "run",
        "kmn",
        "--size",
        "tiny",
        "--dump-launches",
        full.to_str().unwrap(),
    ])
    .assert()
    .code(2)
    .stderr(predicate::str::contains("not empty"));
    assert_eq!(std::fs::read_to_string(full.join("x")).unwrap(), "keep");
    let b = dir.path().join("b");
    wf().args(["run", "kmn", "--size", "tiny", "--mode", "timing"])
        .args(["--dump-launches", b.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("functional mode"));
    assert!(!b.exists());
    // Nothing but the bundle is left beside it (the staging directory is renamed).
    wf().args([
        "run",
        "kmn",
        "--size",
        "tiny",
        "--dump-launches",
        b.to_str().unwrap(),
    ])
    .assert()
    .success();
    let entries: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(entries.len(), 2, "full/ and b/ only");
}
