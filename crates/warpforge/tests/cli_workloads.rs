//! `warpforge list`, `run --mode functional` and `characterize` end to end on tiny inputs.

use assert_cmd::Command;
use predicates::str::contains;

fn wf() -> Command {
    Command::cargo_bin("warpforge").unwrap()
}

#[test]
fn list_shows_abbreviations_suites_kernels_and_sizes() {
    wf().arg("list")
        .assert()
        .success()
        .stdout(contains("kmn"))
        .stdout(contains("SC_small"))
        .stdout(contains("SC_mid"))
        .stdout(contains("Parboil"))
        .stdout(contains("bfs_expand, bfs_update"))
        .stdout(contains("494020 points x 34 features"));
    let names = wf().args(["list", "--names"]).output().unwrap();
    let names = String::from_utf8(names.stdout).unwrap();
    for w in [
        "bfs", "bt", "htw", "kmn", "nw", "sr1", "sr2", "sc", "sc_mid", "bp", "pf", "pth",
    ] {
        assert!(
            names.lines().any(|l| l == w),
            "{w} missing from list --names"
        );
    }
}

#[test]
fn run_functional_writes_the_json_fields() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("nw.json");
    wf().args([
        "run",
        "nw",
        "--mode",
        "functional",
        "--size",
        "tiny",
        "--json",
    ])
    .arg(&json)
    .assert()
    .success()
    .stdout(contains("check: passed"));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["check"], "passed");
    assert_eq!(v["workload"], "nw");
    // nw tiny: 4x4 tiles -> 4 + 3 launches of 16-thread CTAs.
    assert_eq!(v["launches"], 7);
    let warp = v["warp_insts"].as_u64().unwrap();
    let thread = v["thread_insts"].as_u64().unwrap();
    assert!(
        warp > 0 && thread > warp && thread <= 16 * warp,
        "{warp} {thread}"
    );
}

#[test]
fn bad_arguments_are_clear_errors() {
    wf().args(["run", "nosuch", "--size", "tiny"])
        .assert()
        .failure()
        .stderr(contains("unknown workload `nosuch`"))
        .stderr(contains("kmn"));
    wf().args(["run", "bfs", "--size", "huge"])
        .assert()
        .failure()
        .stderr(contains("unknown size `huge`"));
    wf().args(["characterize", "nosuch"])
        .assert()
        .failure()
        .stderr(contains("unknown workload"));
}

#[test]
fn characterize_reports_mix_divergence_coalescing_and_shapes() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("kmn.json");
    wf().args(["characterize", "kmn", "--size", "tiny", "--json"])
        .arg(&json)
        .assert()
        .success()
        .stdout(contains("instruction mix"))
        .stdout(contains("lines (128 B) per request"))
        .stdout(contains("kmn_assign"))
        .stdout(contains("grid (1,1,1) x block (256,1,1)"));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let p = &v["profile"];
    assert!(p["lines_per_request"].as_f64().unwrap() > 10.0);
    assert!(p["mix"]["ld_global"].as_u64().unwrap() > 0);
    assert_eq!(v["labels"][1], "scattered");
    wf().args(["characterize", "nw", "--size", "tiny", "--markdown"])
        .assert()
        .success()
        .stdout(contains("| nw |"))
        .stdout(contains("barrier-heavy"));
}
