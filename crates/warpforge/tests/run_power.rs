//! `warpforge run --mode timing` reports power and energy from the simulation's activity
//! counters (document 002's power model, `docs/MODELS.md` "Power from simulation"): the fields
//! exist per kernel and in the total, are positive and physically consistent, a compute-bound
//! kernel draws more dynamic power than a one-thread pointer chase, and bad parameter names are
//! clear errors.

use assert_cmd::Command;
use serde_json::Value;
use std::path::Path;

/// Core clock of the `gtx480` timing preset (spec 000 §1.3: 700 MHz SM clock), Hz.
const GTX480_CORE_HZ: f64 = 700e6;

fn wf() -> Command {
    Command::cargo_bin("warpforge").unwrap()
}

/// Runs `workload` at size tiny in timing mode with `extra` arguments; returns (JSON, stdout).
fn timing(dir: &Path, workload: &str, extra: &[&str]) -> (Value, String) {
    let json = dir.join(format!("{workload}.json"));
    let out = wf()
        .args([
            "run", workload, "--size", "tiny", "--mode", "timing", "--json",
        ])
        .arg(&json)
        .args(extra)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{workload}: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (v, stdout)
}

fn f(v: &Value, key: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("`{key}` is not a number in {v}"))
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs()).max(1e-300)
}

/// Checks one `power` object against its kernel's `cycles`; returns it.
fn check_power(kernel: &Value) -> Value {
    let p = kernel["power"].clone();
    assert!(p.is_object(), "no power object in {kernel}");
    let cycles = kernel["cycles"].as_u64().unwrap();
    assert_eq!(p["cycles"].as_u64(), Some(cycles));
    for k in [
        "avg_power_w",
        "dynamic_power_w",
        "static_power_w",
        "energy_j",
        "runtime_s",
    ] {
        assert!(f(&p, k) > 0.0, "`{k}` not positive: {p}");
    }
    // runtime = cycles / core clock; energy = power x runtime; Eq 35.
    assert!(close(
        f(&p, "runtime_s"),
        cycles as f64 / GTX480_CORE_HZ,
        1e-12
    ));
    assert!(close(
        f(&p, "energy_j"),
        f(&p, "avg_power_w") * f(&p, "runtime_s"),
        1e-9
    ));
    assert!(close(
        f(&p, "avg_power_w"),
        f(&p, "dynamic_power_w") + f(&p, "static_power_w"),
        1e-12
    ));
    // The per-unit breakdown adds up to the dynamic power and has no negative term.
    let units = p["units_w"].as_object().expect("units_w");
    assert!(units.contains_key("fp") && units.contains_key("global_mem"));
    assert!(units.values().all(|w| w.as_f64().unwrap() >= 0.0), "{p}");
    let sum: f64 = units.values().map(|w| w.as_f64().unwrap()).sum();
    assert!(close(sum, f(&p, "dynamic_power_w"), 1e-9), "{sum} vs {p}");
    // gtx480 parameters: IdlePower 27 W (GTX580 constants, Table 11).
    assert_eq!(p["params"], "gtx480");
    assert!(close(f(&p, "static_power_w"), 27.0, 1e-12), "{p}");
    p
}

#[test]
fn timing_run_reports_consistent_power_and_energy() {
    let dir = tempfile::tempdir().unwrap();
    let (alu, stdout) = timing(dir.path(), "micro_alu", &[]);
    assert_eq!(alu["power_params"], "gtx480");
    assert!(stdout.contains("power (gtx480 parameters):"), "{stdout}");
    let kernels = alu["stats"]["kernels"].as_array().unwrap();
    assert!(!kernels.is_empty());
    let mut energy = 0.0;
    for k in kernels {
        energy += f(&check_power(k), "energy_j");
    }
    let total = check_power(&alu["stats"]["total"]);
    assert!(close(f(&total, "energy_j"), energy, 1e-12));

    // A compute-bound kernel on every SM against a one-thread pointer chase that waits on DRAM.
    let (chase, _) = timing(dir.path(), "micro_lat_dram", &[]);
    let chase_total = check_power(&chase["stats"]["total"]);
    let (a, c) = (&total, &chase_total);
    assert!(
        f(a, "dynamic_power_w") > f(c, "dynamic_power_w") + 10.0,
        "alu {a}\nchase {c}"
    );
    assert!(f(&a["units_w"], "fp") > f(&c["units_w"], "fp"));
    assert!(f(a, "active_sms") > f(c, "active_sms"));
}

#[test]
fn power_does_not_depend_on_the_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let (one, _) = timing(dir.path(), "micro_smem", &["--threads", "1"]);
    let two_dir = tempfile::tempdir().unwrap();
    let (two, _) = timing(two_dir.path(), "micro_smem", &["--threads", "2"]);
    assert!(one["stats"]["kernels"].as_array().unwrap().len() == 2);
    for (a, b) in [
        (&one["stats"]["kernels"], &two["stats"]["kernels"]),
        (&one["stats"]["total"], &two["stats"]["total"]),
    ] {
        assert_eq!(a.to_string(), b.to_string());
    }
    check_power(&one["stats"]["total"]);
}

#[test]
fn cawa_preset_uses_the_gtx480_family_parameters() {
    let dir = tempfile::tempdir().unwrap();
    let (v, _) = timing(dir.path(), "micro_alu", &["--config", "gtx480-cawa"]);
    assert_eq!(v["power_params"], "gtx480");
    check_power(&v["stats"]["total"]);
}

#[test]
fn power_can_be_turned_off_or_taken_from_another_set() {
    let dir = tempfile::tempdir().unwrap();
    let (off, stdout) = timing(dir.path(), "micro_alu", &["--power-params", "none"]);
    assert!(off["power_params"].is_null());
    assert!(off["power_note"].as_str().unwrap().contains("none"));
    assert!(off["stats"]["total"].get("power").is_none());
    assert!(stdout.contains("power: omitted"), "{stdout}");
    // The same simulation under GT200 parameters (log SM scaling, IdlePower 83 W).
    let (gt, _) = timing(dir.path(), "micro_alu", &["--power-params", "gtx280"]);
    let p = &gt["stats"]["total"]["power"];
    assert_eq!(p["params"], "gtx280");
    assert!(close(f(p, "static_power_w"), 83.0, 1e-12), "{p}");
    assert_eq!(
        gt["stats"]["total"]["cycles"],
        off["stats"]["total"]["cycles"]
    );
}

#[test]
fn bad_power_params_are_clear_errors() {
    // (arguments after `run micro_alu --size tiny`, what the error must name)
    let cases: [(&[&str], &str); 2] = [
        (&["--mode", "timing", "--power-params", "nosuch"], "nosuch"),
        (&["--power-params", "gtx480"], "--mode timing only"),
    ];
    for (args, want) in cases {
        let out = wf()
            .args(["run", "micro_alu", "--size", "tiny"])
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(want) && !err.contains("panicked"), "{err}");
    }
}
