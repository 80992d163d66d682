//! End-to-end tests of every `warpforge` subcommand on tiny inputs: the happy paths with their
//! JSON outputs checked field by field (presence, type, and cross-command consistency), thread-count
//! determinism of the timing model, and the bad-input matrix (a clear message naming the file, line
//! or key, exit status 2, no panic, no partial output file).
//!
//! `ptx_cmd.rs` and `trace_cli.rs` beside this file cover `ptx run` buffers and the
//! record/replay cycle equality in more depth.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn wf() -> Command {
    Command::cargo_bin("warpforge").unwrap()
}

/// Records workload `w` at size tiny as an Accel-Sim trace in `dir`; returns its kernel list.
/// (Self-contained: the tests need nothing outside the repository.)
fn recorded_trace(dir: &Path, w: &str) -> PathBuf {
    wf().args(["trace", "record", w, "--size", "tiny", "-o", s(dir)])
        .assert()
        .success();
    dir.join("kernelslist.g")
}

fn read_json(p: &Path) -> Value {
    let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", p.display()))
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs `cmd`, expects exit status 2, a stderr starting with `error: ` that contains every
/// needle, no panic, and none of the `outputs` created.
fn fails(cmd: &mut Command, needles: &[&str], outputs: &[&Path]) {
    let out = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "exit status; stderr:\n{err}");
    assert!(!err.contains("panicked"), "panic on user input:\n{err}");
    assert!(err.starts_with("error: "), "stderr:\n{err}");
    for n in needles {
        assert!(err.contains(n), "stderr lacks `{n}`:\n{err}");
    }
    for o in outputs {
        assert!(
            !o.exists(),
            "{} was written by a failed command",
            o.display()
        );
    }
}

fn u64_of(v: &Value, key: &str) -> u64 {
    v[key]
        .as_u64()
        .unwrap_or_else(|| panic!("`{key}` is not an unsigned integer in {v}"))
}

fn f64_of(v: &Value, key: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("`{key}` is not a number in {v}"))
}

/// A minimal PTX module around `body` (one kernel `k` with one `.u64` parameter `out`).
fn ptx_module(body: &str) -> String {
    format!(
        ".version 7.0\n.target sm_70\n.address_size 64\n\n.visible .entry k(.param .u64 out)\n{{\n\
         .reg .pred %p<2>;\n.reg .b32 %r<4>;\n.reg .b64 %rd<3>;\n{body}}}\n"
    )
}

/// `warpforge ptx run FILE --kernel KERNEL --grid GRID --block BLOCK`, for more arguments.
fn ptx_run(file: &Path, kernel: &str, grid: &str, block: &str) -> Command {
    let mut c = wf();
    c.args(["ptx", "run", s(file), "--kernel", kernel])
        .args(["--grid", grid, "--block", block]);
    c
}

// ---------------------------------------------------------------------------------------------
// list, run (functional)
// ---------------------------------------------------------------------------------------------

#[test]
fn list_names_match_the_registry_and_the_table_shows_sizes() {
    let out = wf().args(["list", "--names"]).output().unwrap();
    assert!(out.status.success());
    let names: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let reg: Vec<&str> = warpforge_workloads::registry()
        .iter()
        .map(|w| w.info().name)
        .collect();
    assert_eq!(names, reg);
    assert!(names.iter().any(|n| n == "kmn") && names.iter().any(|n| n == "bt"));
    wf().arg("list").assert().success().stdout(
        predicate::str::contains(format!("{} workloads", reg.len()))
            .and(predicate::str::contains("KMN"))
            .and(predicate::str::contains("SC_mid"))
            .and(predicate::str::contains("tiny"))
            .and(predicate::str::contains("paper")),
    );
}

#[test]
fn run_functional_json_has_counts_and_check() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("kmn.json");
    wf().args(["run", "kmn", "--size", "tiny", "--json", s(&json)])
        .assert()
        .success()
        .stdout(predicate::str::contains("check: passed"));
    let v = read_json(&json);
    assert_eq!(v["workload"], "kmn");
    assert_eq!(v["size"], "tiny");
    assert_eq!(v["mode"], "functional");
    assert_eq!(v["check"], "passed");
    let warp = u64_of(&v, "warp_insts");
    let thread = u64_of(&v, "thread_insts");
    assert!(warp > 0);
    assert!(thread >= warp && thread <= 32 * warp, "{thread} vs {warp}");
    assert!(u64_of(&v, "launches") >= 1);
    assert!(f64_of(&v, "wall_s") >= 0.0);
    // The same counts as the characterisation of the same run.
    let ch = dir.path().join("ch.json");
    wf().args(["characterize", "kmn", "--size", "tiny", "--json", s(&ch)])
        .assert()
        .success()
        .stdout(predicate::str::contains("instruction mix"));
    let c = read_json(&ch);
    assert_eq!(c["check"], "passed");
    assert_eq!(c["profile"]["warp_insts"], v["warp_insts"]);
    assert_eq!(c["profile"]["thread_insts"], v["thread_insts"]);
    assert_eq!(c["profile"]["launches"], v["launches"]);
    let lanes = f64_of(&c["profile"], "avg_active_lanes");
    assert!(
        (lanes - thread as f64 / warp as f64).abs() < 1e-6,
        "{lanes}"
    );
}

// ---------------------------------------------------------------------------------------------
// run (timing), determinism, --set, config presets
// ---------------------------------------------------------------------------------------------

fn timing_json(dir: &Path, workload: &str, tag: &str, extra: &[&str]) -> Value {
    let json = dir.join(format!("{workload}-{tag}.json"));
    wf().args(["run", workload, "--size", "tiny", "--mode", "timing"])
        .args(extra)
        .args(["--json", s(&json)])
        .assert()
        .success()
        .stdout(predicate::str::contains("check: passed"));
    read_json(&json)
}

fn assert_cache_stats(c: &Value, what: &str) {
    let acc = u64_of(c, "accesses");
    let hits = u64_of(c, "hits");
    let misses = u64_of(c, "misses");
    assert_eq!(hits + misses, acc, "{what}: hits + misses = accesses: {c}");
    let rate = f64_of(c, "hit_rate");
    if acc > 0 {
        assert!(
            (rate - hits as f64 / acc as f64).abs() < 1e-9,
            "{what}: {c}"
        );
    }
}

#[test]
fn run_timing_json_fields_and_consistency_with_functional() {
    let dir = tempfile::tempdir().unwrap();
    let v = timing_json(dir.path(), "bt", "t", &["--config", "gtx480"]);
    assert_eq!(v["mode"], "timing");
    assert_eq!(v["config"], "gtx480");
    // `--threads` defaults to `auto`: one or two threads, by the free cores (never more than
    // its measured cap of two).
    let th = v["threads"].as_u64().unwrap();
    assert!((1..=2).contains(&th), "auto threads: {th}");
    let t = &v["stats"]["total"];
    assert_eq!(t["check"], "passed");
    let cycles = u64_of(t, "cycles");
    let warp = u64_of(t, "warp_insts");
    let thread = u64_of(t, "thread_insts");
    assert!(cycles > 0 && warp > 0);
    // IPC is thread instructions per core cycle (the GPGPU-Sim convention).
    assert!(
        (f64_of(t, "ipc") - thread as f64 / cycles as f64).abs() < 1e-6,
        "{t}"
    );
    let occ = f64_of(t, "occupancy");
    assert!((0.0..=1.0).contains(&occ) && occ > 0.0, "{occ}");
    assert_cache_stats(&t["l1d"], "l1d");
    assert_cache_stats(&t["l2"], "l2");
    u64_of(&t["dram"], "reads");
    u64_of(&t["dram"], "writes");
    assert!(f64_of(&t["dram"], "row_hit_rate") <= 1.0);
    assert!(u64_of(&t["icnt"], "l1_to_l2_bytes") > 0);
    let stalls = t["stalls"].as_object().expect("stalls is an object");
    assert!(
        stalls.len() >= 5 && stalls.values().all(Value::is_u64),
        "{stalls:?}"
    );
    // Power from the activity counters (default parameters: the preset's name).
    let p = &t["power"];
    assert_eq!(p["params"], "gtx480");
    let (w, secs) = (f64_of(p, "avg_power_w"), f64_of(p, "runtime_s"));
    assert!((secs * 700e6 / cycles as f64 - 1.0).abs() < 1e-6, "{p}");
    assert!(
        (f64_of(p, "energy_j") / (w * secs) - 1.0).abs() < 1e-6,
        "{p}"
    );
    let parts = f64_of(p, "dynamic_power_w") + f64_of(p, "static_power_w");
    assert!((parts / w - 1.0).abs() < 1e-6, "{p}");
    // Per-kernel cycles and instructions add up to the total.
    let kernels = v["stats"]["kernels"].as_array().unwrap();
    assert!(!kernels.is_empty());
    let sum = |k: &str| kernels.iter().map(|x| x[k].as_u64().unwrap()).sum::<u64>();
    assert_eq!(sum("cycles"), cycles);
    assert_eq!(sum("warp_insts"), warp);
    // The timing model executes the same dynamic instructions as the functional run.
    let f = dir.path().join("f.json");
    wf().args(["run", "bt", "--size", "tiny", "--json", s(&f)])
        .assert()
        .success();
    let f = read_json(&f);
    assert_eq!(f["warp_insts"], t["warp_insts"]);
    assert_eq!(f["thread_insts"], t["thread_insts"]);
}

#[test]
fn timing_statistics_do_not_depend_on_the_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    for w in ["bt", "micro_lat_l1", "bfs"] {
        let a = timing_json(dir.path(), w, "1", &["--threads", "1"]);
        let b = timing_json(dir.path(), w, "2", &["--threads", "2"]);
        assert_eq!(b["threads"], 2);
        assert_eq!(
            a["stats"], b["stats"],
            "{w}: statistics differ between 1 and 2 threads"
        );
    }
    // The same for trace replay.
    let list = recorded_trace(&dir.path().join("tr"), "bt");
    let mut stats = Vec::new();
    for th in ["1", "2"] {
        let json = dir.path().join(format!("replay-{th}.json"));
        wf().args(["trace", "run", s(&list), "--threads", th])
            .args(["--json", s(&json)])
            .assert()
            .success();
        stats.push(read_json(&json)["stats"].clone());
    }
    assert_eq!(stats[0], stats[1]);
}

#[test]
fn threads_auto_reports_its_team_and_keeps_the_statistics() {
    // A 120-SM window-engine run: `auto` starts an adaptive team of two on any host of at
    // least two cores (docs/PERFORMANCE.md, "Session 21: auto"), which reports what it did in
    // `team`; the statistics are those of one thread whatever it chose.
    let dir = tempfile::tempdir().unwrap();
    let w = [
        "--set",
        "core.num_sms=120",
        "--set",
        "sim.window=4",
        "--set",
        "sim.window_overlap=true",
        "--set",
        "sim.window_partitions=true",
    ];
    let one = timing_json(
        dir.path(),
        "sr2",
        "1",
        &[&w[..], &["--threads", "1"]].concat(),
    );
    let auto = timing_json(
        dir.path(),
        "sr2",
        "a",
        &[&w[..], &["--threads", "auto"]].concat(),
    );
    assert_eq!(
        one["stats"], auto["stats"],
        "auto's statistics are one thread's"
    );
    assert!(one.get("team").is_none(), "no team on one thread");
    let two = std::thread::available_parallelism().map_or(1, |n| n.get()) >= 2;
    if two {
        assert_eq!(auto["threads"], 2);
        let t = &auto["team"];
        let windows = u64_of(t, "windows_team") + u64_of(t, "windows_alone");
        assert!(windows > 0, "{t}");
        let probes = u64_of(t, "probes");
        let answered = u64_of(t, "probes_near") + u64_of(t, "probes_far");
        assert!(
            answered + u64_of(t, "probes_unanswered") + u64_of(t, "probes_stalled") <= probes,
            "{t}"
        );
        // The check periods' evidence (docs/PERFORMANCE.md, "Session 22: auto").
        assert!(
            u64_of(t, "probes_suspect") <= u64_of(t, "probes_unanswered"),
            "{t}"
        );
        assert!(
            u64_of(t, "phases_absent") <= u64_of(t, "phases_judged"),
            "{t}"
        );
        assert!(
            u64_of(t, "periods_starved") <= u64_of(t, "periods_absent"),
            "{t}"
        );
        let periods = u64_of(t, "periods_absent") + u64_of(t, "periods_present");
        assert!(periods <= u64_of(t, "windows_team") / 1024, "{t}");
        if periods == 0 {
            assert_eq!(u64_of(t, "cpu_share_median_permille"), 0, "{t}");
        }
        // An explicit count is never adaptive.
        let fixed = timing_json(
            dir.path(),
            "sr2",
            "2",
            &[&w[..], &["--threads", "2"]].concat(),
        );
        assert!(fixed.get("team").is_none());
        assert_eq!(fixed["stats"], one["stats"]);
    }
}

#[test]
fn set_overrides_and_shown_presets_take_effect() {
    let dir = tempfile::tempdir().unwrap();
    let base = timing_json(dir.path(), "bt", "base", &[]);
    // One SM instead of 15 for bt's 64 CTAs: the run must take longer.
    let one = timing_json(dir.path(), "bt", "one", &["--set", "core.num_sms=1"]);
    let (c15, c1) = (
        u64_of(&base["stats"]["total"], "cycles"),
        u64_of(&one["stats"]["total"], "cycles"),
    );
    assert!(c1 > c15, "1 SM: {c1} cycles, 15 SMs: {c15}");
    assert_eq!(
        one["stats"]["total"]["warp_insts"],
        base["stats"]["total"]["warp_insts"]
    );
    // `config show` prints a preset that loads back as a file and gives identical statistics.
    let out = wf().args(["config", "show", "gtx480"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("num_sms = 15"), "{text}");
    let file = dir.path().join("copy.toml");
    std::fs::write(&file, &text).unwrap();
    let again = timing_json(dir.path(), "bt", "file", &["--config", s(&file)]);
    assert_eq!(again["stats"]["total"], base["stats"]["total"]);
    wf().args(["config", "list"])
        .assert()
        .success()
        .stdout(predicate::str::contains("gtx480\n").and(predicate::str::contains("gtx480-cawa")));
}

#[test]
fn gpgpusim_config_import_and_use() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("gpgpusim.config");
    std::fs::write(
        &src,
        "# a small GPGPU-Sim option file\n-gpgpu_n_clusters 6\n-gpgpu_n_cores_per_cluster 2\n\
         -gpgpu_n_mem 4\n-gpgpu_clock_domains 1000.0:1000.0:1000.0:2000.0\n\
         -gpgpu_shader_registers 65536\n-gpgpu_scheduler lrr\n-gpgpu_frobnicate 3\n",
    )
    .unwrap();
    let out = dir.path().join("mini.toml");
    wf().args(["config", "import", s(&src), "-o", s(&out)])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "12 SMs, 4 DRAM channels, core 1000 MHz",
        ))
        .stderr(
            predicate::str::contains("warning:")
                .count(1)
                .and(predicate::str::contains("-gpgpu_frobnicate")),
        );
    let text = std::fs::read_to_string(&out).unwrap();
    for want in [
        "num_sms = 12",
        "channels = 4",
        "registers = 65536",
        "scheduler = \"lrr\"",
    ] {
        assert!(text.contains(want), "{want}:\n{text}");
    }
    wf().args(["config", "show", s(&out)])
        .assert()
        .success()
        .stdout(predicate::str::contains("num_sms = 12"));
    // `run --gpgpusim-config` imports the same file on the fly: same statistics as the preset.
    let a = timing_json(dir.path(), "micro_lat_l1", "file", &["--config", s(&out)]);
    let b = timing_json(
        dir.path(),
        "micro_lat_l1",
        "import",
        &["--gpgpusim-config", s(&src)],
    );
    assert_eq!(a["stats"]["total"], b["stats"]["total"]);
    let gtx = timing_json(dir.path(), "micro_lat_l1", "gtx480", &[]);
    assert_ne!(a["stats"]["total"], gtx["stats"]["total"]);
}

// ---------------------------------------------------------------------------------------------
// characterize, predict, trace, experiment, bench, ptx
// ---------------------------------------------------------------------------------------------

#[test]
fn characterize_markdown_is_a_table() {
    let out = wf()
        .args(["characterize", "bt", "--size", "tiny", "--markdown"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = text.lines().filter(|l| l.starts_with('|')).collect();
    assert_eq!(rows.len(), 3, "{text}"); // header, rule, one workload
    assert!(rows[0].contains("warp insts") && rows[2].starts_with("| bt |"));
    assert!(rows[2].contains("passed"));
}

#[test]
fn predict_json_is_self_consistent() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("p.json");
    wf().args(["predict", "kmn", "--size", "tiny", "--gpu", "gtx480"])
        .args(["--json", s(&json)])
        .assert()
        .success()
        .stdout(predicate::str::contains("predicted cycles"));
    let v = read_json(&json);
    assert_eq!(v["workload"], "kmn");
    assert_eq!(v["gpu"], "gtx480");
    assert_eq!(v["check"], "passed");
    let cycles = f64_of(&v, "cycles");
    assert!(cycles > 0.0);
    // GTX480 core clock: 700 MHz.
    assert!(
        (f64_of(&v, "time_s") * 700e6 / cycles - 1.0).abs() < 1e-6,
        "{v}"
    );
    assert!(f64_of(&v, "mwp") > 0.0 && f64_of(&v, "cwp") > 0.0);
    assert!(v["case"].as_str().unwrap().starts_with("case"));
    let (p, e) = (f64_of(&v, "power_w"), f64_of(&v, "energy_j"));
    assert!(
        (e / (p * f64_of(&v, "time_s")) - 1.0).abs() < 0.05,
        "{p} W, {e} J"
    );
    assert!(u64_of(&v, "ipp_optimal_sms") >= 1);
}

#[test]
fn trace_record_info_counts_match_the_functional_run() {
    let dir = tempfile::tempdir().unwrap();
    let tr = dir.path().join("tr");
    let f = dir.path().join("f.json");
    wf().args(["run", "bt", "--size", "tiny", "--json", s(&f)])
        .assert()
        .success();
    let f = read_json(&f);
    wf().args(["trace", "record", "bt", "--size", "tiny", "-o", s(&tr)])
        .assert()
        .success()
        .stdout(predicate::str::contains(format!(
            "{} warp instructions",
            f["warp_insts"]
        )));
    let out = wf()
        .args(["trace", "info", s(&tr.join("kernelslist.g"))])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    // "...: N CTAs, W warp instructions, T thread instructions, M memory instructions"
    let field = |line: &str, what: &str| -> u64 {
        let i = line.find(what).unwrap();
        line[..i]
            .split_whitespace()
            .last()
            .unwrap()
            .parse()
            .unwrap()
    };
    let warp: u64 = text.lines().map(|l| field(l, " warp instructions")).sum();
    let thread: u64 = text.lines().map(|l| field(l, " thread instructions")).sum();
    assert_eq!(warp, f["warp_insts"].as_u64().unwrap(), "{text}");
    assert_eq!(thread, f["thread_insts"].as_u64().unwrap(), "{text}");
}

#[test]
fn experiment_lax_and_pagoda_write_csv() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("lax.csv");
    wf().args(["experiment", "lax", "--jobs", "8", "--bench", "LSTM,GMM"])
        .args(["--policy", "LAX,SJF", "--csv", s(&csv)])
        .assert()
        .success()
        .stdout(predicate::str::contains("LSTM").and(predicate::str::contains("GMM")));
    let mut rd = csv::Reader::from_path(&csv).unwrap();
    let hdr = rd.headers().unwrap().clone();
    let col = |n: &str| hdr.iter().position(|h| h == n).unwrap();
    let (policy, jobs, met) = (col("policy"), col("jobs"), col("met"));
    let rows: Vec<csv::StringRecord> = rd.records().map(Result::unwrap).collect();
    // RR is always added as the baseline: 2 benchmarks x 3 policies.
    assert_eq!(rows.len(), 6);
    let mut pols: Vec<&str> = rows.iter().map(|r| &r[policy]).collect();
    pols.sort_unstable();
    pols.dedup();
    assert_eq!(pols, ["LAX", "RR", "SJF"]);
    for r in &rows {
        assert_eq!(&r[jobs], "8");
        assert!(r[met].parse::<u32>().unwrap() <= 8);
    }
    let csv = dir.path().join("pagoda.csv");
    wf().args(["experiment", "pagoda", "--tasks", "64", "--bench", "MB"])
        .args(["--csv", s(&csv)])
        .assert()
        .success()
        .stdout(predicate::str::contains("Pagoda"));
    let mut rd = csv::Reader::from_path(&csv).unwrap();
    let hdr = rd.headers().unwrap().clone();
    let ms = hdr.iter().position(|h| h == "makespan_ms").unwrap();
    let rows: Vec<csv::StringRecord> = rd.records().map(Result::unwrap).collect();
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|r| r[ms].parse::<f64>().unwrap() > 0.0));
}

#[test]
fn bench_functional_reports_rates() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("b.json");
    wf().args(["bench", "--what", "functional", "--json", s(&json)])
        .assert()
        .success();
    let v = read_json(&json);
    let rows = v["functional"].as_array().unwrap();
    assert!(!rows.is_empty());
    for r in rows {
        let (t, sec) = (u64_of(r, "thread_insts"), f64_of(r, "seconds"));
        assert!(t > 0 && sec > 0.0);
        assert!((f64_of(r, "thread_insts_per_s") * sec / t as f64 - 1.0).abs() < 1e-6);
    }
}

#[test]
#[ignore = "slow: simulates 7 workloads at size small twice (about a minute on 2 busy cores)"]
fn bench_timing_reports_rates_and_thread_independence() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("b.json");
    wf().args(["bench", "--what", "timing", "--json", s(&json)])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "statistics identical for 1 and 2 threads",
        ));
    let v = read_json(&json);
    let runs = v["timing"]["runs"].as_array().unwrap();
    assert!(runs.len() >= 2 && runs.len().is_multiple_of(2));
    for pair in runs.chunks(2) {
        assert_eq!(pair[0]["workload"], pair[1]["workload"]);
        assert_eq!(
            (pair[0]["threads"].as_u64(), pair[1]["threads"].as_u64()),
            (Some(1), Some(2))
        );
        assert_eq!(pair[0]["cycles"], pair[1]["cycles"]);
        assert_eq!(pair[0]["warp_insts"], pair[1]["warp_insts"]);
        for r in pair {
            let (w, sec) = (u64_of(r, "warp_insts"), f64_of(r, "seconds"));
            assert!((f64_of(r, "warp_insts_per_s") * sec / w as f64 - 1.0).abs() < 1e-6);
        }
    }
    assert!(f64_of(&v["timing"], "peak_rss_mb") > 0.0);
}

#[test]
fn ptx_run_computes_and_writes_npy() {
    let dir = tempfile::tempdir().unwrap();
    let ptx = dir.path().join("sq.ptx");
    // out[tid] = tid * tid + 7
    std::fs::write(
        &ptx,
        ptx_module(
            "  mov.u32 %r1, %tid.x;\n  mul.lo.u32 %r2, %r1, %r1;\n  add.u32 %r2, %r2, 7;\n\
             \x20 ld.param.u64 %rd1, [out];\n  mul.wide.u32 %rd2, %r1, 4;\n  add.u64 %rd1, %rd1, %rd2;\n\
             \x20 st.global.u32 [%rd1], %r2;\n  ret;\n",
        ),
    )
    .unwrap();
    wf().args(["ptx", "check", s(&ptx)])
        .assert()
        .success()
        .stdout(predicate::str::contains("ok: 1 kernel (k)"));
    let out = dir.path().join("o.npy");
    ptx_run(&ptx, "k", "1", "64")
        .args([
            "--arg",
            "buf:o:u32:64:zeros",
            "--out",
            &format!("o={}", s(&out)),
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "1 launch, 16 warp instructions, 512 thread instructions",
        ));
    let a = warpforge_simt::npy::read(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(a.shape, vec![64]);
    let got: Vec<u32> = a
        .data
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let want: Vec<u32> = (0..64).map(|t| t * t + 7).collect();
    assert_eq!(got, want);
}

// ---------------------------------------------------------------------------------------------
// Bad input: PTX
// ---------------------------------------------------------------------------------------------

#[test]
fn bad_ptx_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.npy");
    let out_arg = format!("o={}", s(&out));
    let good = dir.path().join("good.ptx");
    std::fs::write(
        &good,
        ptx_module("  ld.param.u64 %rd1, [out];\n  st.global.u32 [%rd1], 1;\n  ret;\n"),
    )
    .unwrap();
    let run = |file: &Path| ptx_run(file, "k", "1", "32");
    // Malformed PTX: file:line:col, for check and run alike.
    let bad = dir.path().join("bad.ptx");
    std::fs::write(&bad, ptx_module("  add.u32 %r1, %r2;\n  ret;\n")).unwrap();
    fails(wf().args(["ptx", "check", s(&bad)]), &["bad.ptx:10:"], &[]);
    fails(
        run(&bad).args(["--arg", "buf:o:u32:1:zeros", "--out", &out_arg]),
        &["bad.ptx:10:"],
        &[&out],
    );
    let garbage = dir.path().join("garbage.ptx");
    std::fs::write(&garbage, "this is not PTX\n").unwrap();
    fails(
        wf().args(["ptx", "check", s(&garbage)]),
        &["garbage.ptx:1:"],
        &[],
    );
    fails(
        wf().args(["ptx", "check", "/nonexistent/x.ptx"]),
        &["/nonexistent/x.ptx"],
        &[],
    );
    // Missing kernel: the available ones are named.
    fails(
        ptx_run(&good, "nope", "1", "32").args(["--arg", "buf:o:u32:1:zeros", "--out", &out_arg]),
        &["no kernel `nope`", "available kernels: k"],
        &[&out],
    );
    // Wrong argument count.
    fails(&mut run(&good), &["takes 1 arguments, 0 given"], &[]);
    fails(
        run(&good).args([
            "--arg",
            "buf:o:u32:1:zeros",
            "--arg",
            "u32:3",
            "--out",
            &out_arg,
        ]),
        &["takes 1 arguments, 2 given"],
        &[&out],
    );
    // Bad --arg specs name the argument and what is wrong.
    for (spec, want) in [
        ("bogus", "expected TYPE:VALUE or buf:NAME:TYPE:COUNT:INIT"),
        ("u32:x", "`u32:x`"),
        ("q32:1", "unknown argument kind `q32`"),
        ("buf:o:u32:4", "expected buf:NAME:TYPE:COUNT:INIT"),
        ("buf:o:u33:4:zeros", "unknown element type `u33`"),
        ("buf:o:u32:many:zeros", "COUNT `many`"),
        ("buf:o:u32:4:ones", "unknown INIT `ones`"),
        ("buf:o:u32:4:rand:x", "the seed must be an integer"),
    ] {
        fails(
            run(&good).args(["--arg", spec, "--out", &out_arg]),
            &["--arg 1", want],
            &[&out],
        );
    }
    // Missing and mismatched .npy inputs.
    let missing = dir.path().join("missing.npy");
    fails(
        run(&good).args([
            "--arg",
            &format!("buf:o:u32:4:file:{}", s(&missing)),
            "--out",
            &out_arg,
        ]),
        &["missing.npy"],
        &[&out],
    );
    let not_npy = dir.path().join("text.npy");
    std::fs::write(&not_npy, "hello").unwrap();
    fails(
        run(&good).args([
            "--arg",
            &format!("buf:o:u32:4:file:{}", s(&not_npy)),
            "--out",
            &out_arg,
        ]),
        &["text.npy"],
        &[&out],
    );
    // Bad grid and --out specs are refused before anything runs.
    fails(
        &mut ptx_run(&good, "k", "0", "32"),
        &["--grid", "at least 1"],
        &[],
    );
    fails(
        run(&good).args(["--arg", "buf:o:u32:1:zeros", "--out", "zz=x.npy"]),
        &["no buffer named `zz`"],
        &[],
    );
}

#[test]
fn deadlocking_kernel_is_reported_not_hung() {
    let dir = tempfile::tempdir().unwrap();
    // Warp 0 waits at barrier 0, warp 1 at barrier 1: neither barrier can ever complete.
    let ptx = dir.path().join("dl.ptx");
    std::fs::write(
        &ptx,
        ptx_module(
            "  mov.u32 %r1, %tid.x;\n  setp.lt.u32 %p1, %r1, 32;\n  @%p1 bra LOW;\n  bar.sync 1;\n\
             \x20 bra.uni DONE;\nLOW:\n  bar.sync 0;\nDONE:\n  ld.param.u64 %rd1, [out];\n\
             \x20 st.global.u32 [%rd1], %r1;\n  ret;\n",
        ),
    )
    .unwrap();
    wf().args(["ptx", "check", s(&ptx)]).assert().success();
    let out = dir.path().join("o.npy");
    let mut c = ptx_run(&ptx, "k", "1", "64");
    c.args([
        "--arg",
        "buf:o:u32:1:zeros",
        "--out",
        &format!("o={}", s(&out)),
    ])
    .timeout(std::time::Duration::from_secs(60));
    fails(
        &mut c,
        &["deadlock", "barrier 0", "barrier 1", "dl.ptx:"],
        &[&out],
    );
}

// ---------------------------------------------------------------------------------------------
// Bad input: workloads, sizes, configurations
// ---------------------------------------------------------------------------------------------

#[test]
fn unknown_workload_size_and_preset() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("o.json");
    let j = s(&json);
    for args in [
        vec!["run", "nosuch", "--size", "tiny", "--json", j],
        vec!["run", "nosuch", "--mode", "timing", "--json", j],
        vec!["characterize", "nosuch", "--json", j],
        vec!["predict", "nosuch", "--gpu", "gtx480", "--json", j],
    ] {
        fails(
            wf().args(&args),
            &["unknown workload `nosuch`", "kmn", "micro_smem"],
            &[&json],
        );
    }
    let tr = dir.path().join("tr");
    fails(
        wf().args(["trace", "record", "nosuch", "-o", s(&tr)]),
        &["unknown workload `nosuch`", "bfs"],
        &[&tr],
    );
    for cmd in [
        vec!["run", "kmn", "--size", "huge"],
        vec!["characterize", "kmn", "--size", "huge"],
    ] {
        fails(
            wf().args(&cmd).args(["--json", j]),
            &["huge", "tiny", "small", "paper"],
            &[&json],
        );
    }
    fails(
        wf().args(["run", "kmn", "--mode", "fast", "--json", j]),
        &["fast", "functional", "timing"],
        &[&json],
    );
    fails(
        wf().args(["run", "bt", "--size", "tiny", "--mode", "timing"])
            .args(["--config", "gtx9999", "--json", j]),
        &["gtx9999", "gtx480"],
        &[&json],
    );
    fails(
        wf().args(["config", "show", "gtx9999"]),
        &["gtx9999", "gtx480"],
        &[],
    );
    fails(
        wf().args([
            "predict", "kmn", "--size", "tiny", "--gpu", "gtx9999", "--json", j,
        ]),
        &["gtx9999", "8800gtx"],
        &[&json],
    );
    // Timing options in functional mode are refused rather than silently ignored.
    fails(
        wf().args([
            "run",
            "bt",
            "--size",
            "tiny",
            "--set",
            "core.num_sms=4",
            "--json",
            j,
        ]),
        &["--mode timing"],
        &[&json],
    );
}

#[test]
fn bad_set_overrides_and_impossible_configs() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("o.json");
    let run = |set: &str| {
        let mut c = wf();
        c.args([
            "run", "bt", "--size", "tiny", "--mode", "timing", "--set", set,
        ])
        .args(["--json", s(&json)]);
        c
    };
    for (set, want) in [
        (
            "core.bogus=3",
            vec!["`core.bogus`", "unknown key", "num_sms"],
        ),
        ("bogus.x=3", vec!["`bogus.x`", "unknown key", "l1d"]),
        ("core.num_sms=abc", vec!["`core.num_sms`", "integer", "abc"]),
        ("core.num_sms", vec!["`core.num_sms`", "key=value"]),
        ("core.num_sms=0", vec!["`core.num_sms`", "must be positive"]),
        ("l1d.sets=63", vec!["l1d", "power-of-two"]),
    ] {
        fails(&mut run(set), &want, &[&json]);
    }
    // The same problems in a preset file name the file.
    let shown = wf().args(["config", "show", "gtx480"]).output().unwrap();
    let text = String::from_utf8(shown.stdout).unwrap();
    assert!(text.contains("\nnum_sms = 15\n"));
    for (name, content, want) in [
        (
            "zero.toml",
            text.replace("\nnum_sms = 15\n", "\nnum_sms = 0\n"),
            vec!["num_sms", "must be positive"],
        ),
        (
            "unk.toml",
            text.replace("\nnum_sms = 15\n", "\nnum_smz = 15\n"),
            vec!["unk.toml", "num_smz"],
        ),
        (
            "typ.toml",
            text.replace("\nnum_sms = 15\n", "\nnum_sms = \"x\"\n"),
            vec!["typ.toml", "expected u32"],
        ),
        (
            "mal.toml",
            "[core\nnum_sms = 3\n".to_string(),
            vec!["mal.toml", "line 1"],
        ),
    ] {
        let f = dir.path().join(name);
        std::fs::write(&f, content).unwrap();
        let mut c = wf();
        c.args([
            "run",
            "bt",
            "--size",
            "tiny",
            "--mode",
            "timing",
            "--config",
            s(&f),
        ])
        .args(["--json", s(&json)]);
        fails(&mut c, &want, &[&json]);
        fails(wf().args(["config", "show", s(&f)]), &want, &[]);
    }
    fails(
        wf().args(["config", "show", s(&dir.path().join("absent.toml"))]),
        &["absent.toml"],
        &[],
    );
}

#[test]
fn broken_gpgpusim_configs() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.toml");
    let json = dir.path().join("o.json");
    for (name, content, want) in [
        (
            "assoc.config",
            "-gpgpu_n_clusters 4\n-gpgpu_cache:dl2 S:32:128:x,L:B:m:L:P,A:192:4,32:0,32\n",
            vec!["assoc.config:2", "-gpgpu_cache:dl2", "assoc"],
        ),
        (
            "nan.config",
            "-gpgpu_n_clusters abc\n",
            vec!["nan.config:1", "-gpgpu_n_clusters", "abc"],
        ),
        (
            "zero.config",
            "-gpgpu_n_clusters 0\n",
            vec!["zero.config", "num_sms", "must be positive"],
        ),
    ] {
        let f = dir.path().join(name);
        std::fs::write(&f, content).unwrap();
        fails(
            wf().args(["config", "import", s(&f), "-o", s(&out)]),
            &want,
            &[&out],
        );
        fails(
            wf().args(["run", "bt", "--size", "tiny", "--mode", "timing"])
                .args(["--gpgpusim-config", s(&f), "--json", s(&json)]),
            &want,
            &[&json],
        );
    }
    fails(
        wf().args([
            "config",
            "import",
            s(&dir.path().join("absent.config")),
            "-o",
            s(&out),
        ]),
        &["absent.config"],
        &[&out],
    );
}

// ---------------------------------------------------------------------------------------------
// Bad input: traces, experiments, bench
// ---------------------------------------------------------------------------------------------

/// A copy of the trace `orig` (a kernel list with one kernel-1.traceg) in `dir`, with `edit`
/// applied to the lines of kernel-1.traceg.
fn edited_trace(orig: &Path, dir: &Path, edit: impl Fn(&mut Vec<String>)) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::copy(orig, dir.join("kernelslist.g")).unwrap();
    let k = std::fs::read_to_string(orig.with_file_name("kernel-1.traceg")).unwrap();
    let mut lines: Vec<String> = k.lines().map(str::to_string).collect();
    edit(&mut lines);
    std::fs::write(dir.join("kernel-1.traceg"), lines.join("\n") + "\n").unwrap();
    dir.join("kernelslist.g")
}

#[test]
fn bad_traces() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("o.json");
    let orig = recorded_trace(&dir.path().join("orig"), "bt");
    let check = |list: &Path, want: &[&str]| {
        fails(wf().args(["trace", "info", s(list)]), want, &[]);
        fails(
            wf().args(["trace", "run", s(list), "--json", s(&json)]),
            want,
            &[&json],
        );
    };
    // The first instruction line (1-based number) of the recorded trace.
    let text = std::fs::read_to_string(orig.with_file_name("kernel-1.traceg")).unwrap();
    let first = text
        .lines()
        .position(|l| l.starts_with("insts = "))
        .unwrap()
        + 1;
    let at = format!("kernel-1.traceg:{}:", first + 1);
    // Truncated after a few thread blocks.
    let t = edited_trace(&orig, &dir.path().join("trunc"), |l| {
        l.truncate(l.len() / 3)
    });
    check(&t, &["kernel-1.traceg:", "truncated", "#END_TB"]);
    // Cut in the middle of an instruction line.
    let t = edited_trace(&orig, &dir.path().join("midline"), |l| {
        l.truncate(first + 1);
        l[first] = "0000 ffffffff 1".into();
    });
    check(&t, &[&at]);
    // A malformed source count.
    let t = edited_trace(&orig, &dir.path().join("srcs"), |l| {
        l[first] = "0000 ffffffff 1 R1 IALU zz 0".into()
    });
    check(&t, &[&at, "`zz`"]);
    // An unknown opcode.
    let t = edited_trace(&orig, &dir.path().join("op"), |l| {
        l[first] = "0000 ffffffff 1 R1 FNORD 0 0".into()
    });
    check(&t, &[&at, "unknown opcode `FNORD`"]);
    // A kernel list naming a missing kernel trace.
    let d = dir.path().join("nolist");
    std::fs::create_dir(&d).unwrap();
    std::fs::copy(&orig, d.join("kernelslist.g")).unwrap();
    check(
        &d.join("kernelslist.g"),
        &["kernelslist.g:1", "kernel-1.traceg", "does not exist"],
    );
    check(
        &dir.path().join("absent/kernelslist.g"),
        &["absent/kernelslist.g"],
    );
    // Recording: bad configuration fails before the output directory is created; --json
    // without a timing configuration is refused.
    let tr = dir.path().join("rec");
    fails(
        wf().args(["trace", "record", "bt", "--size", "tiny", "-o", s(&tr)])
            .args(["--config", "gtx9999"]),
        &["gtx9999"],
        &[&tr],
    );
    fails(
        wf().args(["trace", "record", "bt", "--size", "tiny", "-o", s(&tr)])
            .args(["--json", s(&json)]),
        &["--json needs a timing configuration"],
        &[&tr, &json],
    );
}

#[test]
fn bad_experiment_and_bench_options() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("o.csv");
    let c = s(&csv);
    fails(
        wf().args(["experiment", "lax", "--rate", "extreme", "--csv", c]),
        &["extreme", "low", "medium", "high"],
        &[&csv],
    );
    fails(
        wf().args(["experiment", "lax", "--policy", "NOPE", "--csv", c]),
        &["NOPE", "LAX"],
        &[&csv],
    );
    fails(
        wf().args(["experiment", "lax", "--bench", "NOPE", "--csv", c]),
        &["NOPE", "LSTM"],
        &[&csv],
    );
    let cal = dir.path().join("cal.toml");
    std::fs::write(&cal, "foo = [1,\n").unwrap();
    fails(
        wf().args([
            "experiment",
            "lax",
            "--jobs",
            "4",
            "--calibration",
            s(&cal),
            "--csv",
            c,
        ]),
        &["cal.toml", "line 1"],
        &[&csv],
    );
    fails(
        wf().args([
            "experiment",
            "pagoda",
            "--tasks",
            "16",
            "--bench",
            "NOPE",
            "--csv",
            c,
        ]),
        &["NOPE", "MB"],
        &[&csv],
    );
    let json = dir.path().join("b.json");
    fails(
        wf().args(["bench", "--what", "everything", "--json", s(&json)]),
        &["everything", "functional"],
        &[&json],
    );
}

#[test]
fn all_workloads_characterise_and_predict_at_tiny() {
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<&str> = warpforge_workloads::registry()
        .iter()
        .map(|w| w.info().name)
        .collect();
    let ch = dir.path().join("ch.json");
    wf().args(["characterize", "--all", "--size", "tiny", "--json", s(&ch)])
        .assert()
        .success();
    let pr = dir.path().join("pr.json");
    wf().args([
        "predict",
        "--all",
        "--size",
        "tiny",
        "--gpu",
        "gtx480",
        "--json",
        s(&pr),
    ])
    .assert()
    .success();
    let (ch, pr) = (read_json(&ch), read_json(&pr));
    let (ch, pr) = (ch.as_array().unwrap(), pr.as_array().unwrap());
    let order = |v: &[Value]| -> Vec<String> {
        v.iter()
            .map(|x| x["workload"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(order(ch), names);
    assert_eq!(order(pr), names);
    for (c, p) in ch.iter().zip(pr) {
        let w = &c["workload"];
        assert_eq!(c["check"], "passed", "{w}");
        assert_eq!(p["check"], "passed", "{w}");
        assert!(u64_of(&c["profile"], "warp_insts") > 0, "{w}");
        let cycles = f64_of(p, "cycles");
        assert!(cycles.is_finite() && cycles > 0.0, "{w}: {cycles}");
    }
}

#[test]
fn timing_watchdog_and_per_cta_limits_are_errors_not_hangs() {
    // A watchdog of 10 cycles trips at once: reported as a livelock of the named kernel.
    let mut c = wf();
    c.args(["run", "bt", "--size", "tiny", "--mode", "timing"])
        .args(["--set", "sim.watchdog_cycles=10"])
        .timeout(std::time::Duration::from_secs(60));
    fails(&mut c, &["bt_find_k", "livelock"], &[]);
    // A CTA that cannot fit an SM under the configuration is refused with the key named.
    for (set, want) in [
        ("core.max_warps=1", "core.max_warps"),
        ("core.registers=16", "core.registers"),
        ("core.shared_bytes=0", "core.shared_bytes"),
    ] {
        let mut c = wf();
        c.args([
            "run", "bt", "--size", "tiny", "--mode", "timing", "--set", set,
        ])
        .timeout(std::time::Duration::from_secs(60));
        fails(&mut c, &["bt_find_k", want], &[]);
    }
}

#[test]
fn lax_calibrate_writes_a_table_that_lax_accepts() {
    let dir = tempfile::tempdir().unwrap();
    let cal = dir.path().join("cal.toml");
    fails(
        wf().args([
            "experiment",
            "lax-calibrate",
            "--kernels",
            "nope",
            "-o",
            s(&cal),
        ]),
        &["unknown kernel row `nope`", "lstm_act"],
        &[&cal],
    );
    wf().args([
        "experiment",
        "lax-calibrate",
        "--kernels",
        "lstm_act",
        "-o",
        s(&cal),
    ])
    .assert()
    .success();
    let text = std::fs::read_to_string(&cal).unwrap();
    assert!(text.contains("lstm_act"), "{text}");
    let csv = dir.path().join("lax.csv");
    wf().args([
        "experiment",
        "lax",
        "--jobs",
        "8",
        "--bench",
        "LSTM",
        "--policy",
        "LAX",
    ])
    .args(["--calibration", s(&cal), "--csv", s(&csv)])
    .assert()
    .success();
    let rows = csv::Reader::from_path(&csv).unwrap().records().count();
    assert_eq!(rows, 2); // RR baseline and LAX
}

#[test]
fn predict_target_rejects_unknown_corunner_and_bad_weight() {
    wf().args([
        "predict-target",
        "kmn",
        "--size",
        "tiny",
        "--corunner",
        "gcc",
    ])
    .assert()
    .code(2)
    .stderr(predicate::str::contains("gcc").and(predicate::str::contains("mcf")));
    wf().args([
        "predict-target",
        "kmn",
        "--size",
        "tiny",
        "--corunner",
        "mcf",
        "--weight",
        "0",
    ])
    .assert()
    .code(2)
    .stderr(predicate::str::contains("--weight"));
}

#[test]
fn predict_target_prints_a_target_per_kernel() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.json");
    wf().args([
        "predict-target",
        "kmn",
        "--size",
        "tiny",
        "--corunner",
        "lbm",
        "--json",
    ])
    .arg(&out)
    .assert()
    .success()
    .stdout(predicate::str::contains("kmn/"));
    let v: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let rows = v.as_array().unwrap();
    assert!(!rows.is_empty());
    for r in rows {
        let t = r["decision"]["target"].as_str().unwrap();
        assert!(t == "cmp" || t == "gpu");
        // The GPU co-located time can only grow with a co-runner (copies share host DRAM).
        assert!(r["measured"]["gpu_coloc"].as_f64() >= r["measured"]["gpu_alone"].as_f64());
    }
}

/// Output piped into a reader that has gone (`warpforge list | head -1` once `head` is done)
/// ends the process quietly, as a Unix tool does (killed by SIGPIPE), not with a panic about a
/// broken pipe.
#[test]
fn closed_stdout_pipe_is_not_a_panic() {
    use std::io::Read;
    use std::os::fd::{FromRawFd, OwnedFd};
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command as Proc, Stdio};
    // A pipe whose reading end is closed before the child starts: its first write fails.
    let mut fds = [0i32; 2];
    // SAFETY: `fds` has room for the two descriptors `pipe` writes.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: both descriptors were just created by `pipe` and are owned here only.
    let (reader, writer) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(reader);
    let mut child = Proc::new(assert_cmd::cargo::cargo_bin("warpforge"))
        .arg("list")
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    assert!(!err.contains("panicked"), "stderr: {err}");
    assert_eq!(status.signal(), Some(libc::SIGPIPE), "{status:?}");
}
