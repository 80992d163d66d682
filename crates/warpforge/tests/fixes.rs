//! Regression tests for QA-reported CLI bugs: bad input gets a clear error, a non-zero exit
//! and no half-written output; timing JSON has the run totals at the top level.

use assert_cmd::Command;
use predicates::prelude::*;
use std::path::Path;

fn wf() -> Command {
    Command::cargo_bin("warpforge").unwrap()
}

fn kernels(name: &str) -> String {
    format!(
        "{}/../simt/tests/kernels/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn read_json(p: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// Runs `micro_copy` (tiny) on the timing model with `--json` into `dir` and reads the result.
fn timing_run_json(dir: &Path) -> serde_json::Value {
    let run_json = dir.join("run.json");
    wf().args(["run", "micro_copy", "--size", "tiny", "--mode", "timing"])
        .arg("--json")
        .arg(&run_json)
        .assert()
        .success();
    read_json(&run_json)
}

/// `trace record micro_copy --size tiny --config gtx480`, for the output and more options.
fn record_micro_copy() -> Command {
    let mut c = wf();
    c.args(["trace", "record", "micro_copy", "--size", "tiny"])
        .args(["--config", "gtx480"]);
    c
}

/// Asserts that each of `keys` stands at the top level of `v`, equal to `v.stats.total[key]`.
fn assert_top_level_totals(v: &serde_json::Value, keys: &[&str], what: &str) {
    for key in keys {
        assert_eq!(
            v[key], v["stats"]["total"][key],
            "{what}: top-level `{key}`"
        );
        assert!(!v[key].is_null(), "{what}: top-level `{key}` missing");
    }
}

#[test]
fn failed_timing_run_writes_no_json() {
    let dir = tempfile::tempdir().unwrap();
    for set in ["core.max_warps=1", "sim.watchdog_cycles=10"] {
        let json = dir.path().join("c.json");
        wf().args([
            "run", "bt", "--size", "tiny", "--mode", "timing", "--set", set,
        ])
        .arg("--json")
        .arg(&json)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("error"));
        assert!(!json.exists(), "--set {set}: a failed run left {json:?}");
    }
}

/// `sim.window_overlap` without a window (`sim.window` = 1) is refused with exit status 2, naming
/// both keys; with a window, the order of the two `--set` flags does not matter.
#[test]
fn window_overlap_needs_a_window_in_either_order() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("o.json");
    for sets in [
        ["sim.window_overlap=true", "sim.window=1"],
        ["sim.window=1", "sim.window_overlap=true"],
    ] {
        wf().args(["run", "bt", "--size", "tiny", "--mode", "timing"])
            .args(["--set", sets[0], "--set", sets[1], "--json"])
            .arg(&json)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("sim.window_overlap"))
            .stderr(predicate::str::contains("sim.window > 1"));
        assert!(!json.exists(), "{sets:?}: a refused run left {json:?}");
    }
    let mut cycles = Vec::new();
    for sets in [
        ["sim.window_overlap=true", "sim.window=4"],
        ["sim.window=4", "sim.window_overlap=true"],
    ] {
        wf().args(["run", "bt", "--size", "tiny", "--mode", "timing"])
            .args(["--set", sets[0], "--set", sets[1], "--json"])
            .arg(&json)
            .assert()
            .success();
        cycles.push(read_json(&json)["cycles"].clone());
    }
    assert!(cycles[0].as_u64().is_some_and(|c| c > 0), "{cycles:?}");
    assert_eq!(cycles[0], cycles[1]);
    // The overlap took effect (replies one window later): not the plain window's cycles.
    wf().args(["run", "bt", "--size", "tiny", "--mode", "timing"])
        .args(["--set", "sim.window=4", "--json"])
        .arg(&json)
        .assert()
        .success();
    assert_ne!(read_json(&json)["cycles"], cycles[0]);
}

#[test]
fn timing_json_has_totals_at_top_level() {
    let dir = tempfile::tempdir().unwrap();
    let v = timing_run_json(dir.path());
    // the documented list, written out here so that the test checks the code's list
    let keys = [
        "cycles",
        "warp_insts",
        "thread_insts",
        "ipc",
        "occupancy",
        "l1d",
        "l2",
        "dram",
        "icnt",
        "stalls",
        "check",
        "power",
    ];
    assert_top_level_totals(&v, &keys, "run");
    assert_eq!(v["check"], "passed");
    assert!(v["cycles"].as_u64().unwrap() > 0);
}

#[test]
fn zero_threads_are_refused_by_run() {
    wf().args([
        "run",
        "micro_copy",
        "--size",
        "tiny",
        "--mode",
        "timing",
        "--threads",
        "0",
    ])
    .assert()
    .code(2)
    .stderr(predicate::str::contains("--threads"));
}

#[test]
fn failed_trace_record_leaves_no_partial_trace() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("recD");
    wf().args([
        "trace", "record", "bt", "--size", "tiny", "--config", "gtx480",
    ])
    .args(["--set", "core.max_warps=1", "-o"])
    .arg(&out)
    .assert()
    .code(2);
    assert!(!out.exists(), "a failed recording left {out:?}");
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
    // A successful recording lands in the target, also when it already exists.
    std::fs::create_dir(&out).unwrap();
    wf().args(["trace", "record", "micro_copy", "--size", "tiny", "-o"])
        .arg(&out)
        .assert()
        .success();
    assert!(out.join("kernelslist.g").is_file());
    assert!(out.join("kernel-1.traceg").is_file());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn empty_kernel_list_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("kernelslist.g"), "").unwrap();
    for sub in ["run", "info"] {
        wf().args(["trace", sub])
            .arg(dir.path())
            .assert()
            .code(2)
            .stderr(
                predicate::str::contains("kernelslist.g")
                    .and(predicate::str::contains("no kernels")),
            );
    }
}

#[test]
fn trace_run_json_has_the_run_layout() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec");
    let v = timing_run_json(dir.path());
    // The replay of a recorded trace reports the same layout (and the same cycles).
    record_micro_copy().arg("-o").arg(&rec).assert().success();
    let trace_json = dir.path().join("trace.json");
    wf().args(["trace", "run", "--config", "gtx480"])
        .arg(&rec)
        .arg("--json")
        .arg(&trace_json)
        .assert()
        .success();
    let t = read_json(&trace_json);
    let keys = [
        "cycles",
        "warp_insts",
        "ipc",
        "l1d",
        "l2",
        "dram",
        "icnt",
        "stalls",
    ];
    assert_top_level_totals(&t, &keys, "trace run");
    assert_eq!(t["cycles"], v["cycles"]);
}

#[test]
fn zero_threads_are_refused_by_trace() {
    let dir = tempfile::tempdir().unwrap();
    record_micro_copy()
        .args(["--threads", "0", "-o"])
        .arg(dir.path().join("t"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--threads"));
}

#[test]
fn huge_ptx_buffer_is_an_error_naming_the_argument() {
    wf().args([
        "ptx",
        "run",
        &kernels("vecadd.ptx"),
        "--kernel",
        "saxpy_i32",
    ])
    .args(["--grid", "1", "--block", "32", "--arg", "s32:1"])
    .args(["--arg", "buf:x:s32:99999999999:zeros"])
    .args(["--arg", "buf:y:s32:32:zeros", "--arg", "u32:32"])
    .assert()
    .code(2)
    .stderr(
        predicate::str::contains("--arg 2")
            .and(predicate::str::contains("buf:x:s32:99999999999:zeros"))
            .and(predicate::str::contains("limit")),
    );
}

#[test]
fn zero_job_and_task_counts_are_refused() {
    wf().args(["experiment", "pagoda", "--tasks", "0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--tasks").and(predicate::str::contains("at least 1")));
    wf().args(["experiment", "lax", "--jobs", "0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--jobs").and(predicate::str::contains("at least 1")));
}

#[test]
fn runtime_experiments_refuse_zero_work() {
    use warpforge_runtime::{lax, pagoda};
    let cal = lax::workload::Calibration::builtin();
    let gpu = lax::gpu::GpuConfig::default();
    let r = lax::run_experiment(
        &cal,
        &gpu,
        lax::workload::Rate::High,
        &["RR"],
        &["LSTM"],
        0,
        1,
        &mut |_, _| {},
    );
    assert!(r.unwrap_err().to_string().contains("at least 1"));
    let c = pagoda::master::PagodaConfig::default();
    let r = pagoda::run_experiment(&c, &["MB"], &["Pagoda"], 0, 128, false, 1, &mut |_, _| {});
    assert!(r.unwrap_err().to_string().contains("at least 1"));
}

#[test]
fn preset_type_error_names_file_key_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("typ.toml");
    std::fs::write(&f, "inherits = \"gtx480\"\n\n[core]\nnum_sms = \"x\"\n").unwrap();
    let shown = f.display().to_string();
    wf().args(["config", "show", &shown])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains(format!("{shown}:4: key `core.num_sms`"))
                .and(predicate::str::contains("invalid type"))
                .and(predicate::str::contains("config key").not()),
        );
}
