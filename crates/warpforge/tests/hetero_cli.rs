//! `warpforge experiment hetero` (document 004, issue 15): a one-mix run writes the JSON keys
//! of the issue, and bad options are refused with exit status 2 naming the key.

use assert_cmd::Command;

fn wf() -> Command {
    Command::cargo_bin("warpforge").unwrap()
}

#[test]
fn one_mix_writes_the_issue_keys() {
    let tmp = tempfile::tempdir().unwrap();
    let json = tmp.path().join("h.json");
    let svg = tmp.path().join("figs");
    wf().args([
        "experiment",
        "hetero",
        "--size",
        "tiny",
        "--workloads",
        "bfs",
        "--policy",
        "frfcfs,im",
        "--mixes",
        "H",
        "--no-interference",
        "--jobs",
        "2",
        "--warmup",
        "50000",
        "--alone-cycles",
        "50000",
        "--json",
    ])
    .arg(&json)
    .arg("--svg")
    .arg(&svg)
    .assert()
    .success();
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    for p in ["frfcfs", "im"] {
        for k in ["gpu_speedup", "cpu_weighted_speedup", "equal_weight"] {
            assert!(v["policies"][p][k].as_f64().unwrap() > 0.0, "{p}.{k}");
        }
    }
    assert_eq!(v["policies"]["frfcfs"]["gpu_speedup"].as_f64(), Some(1.0));
    assert_eq!(v["mixes"].as_array().unwrap().len(), 1);
    assert_eq!(v["mixes"][0]["stands_for"], "BFS");
    let gw = &v["gpu_workloads"][0];
    assert_eq!(
        (gw["workload"].as_str(), gw["table3"].as_str()),
        (Some("bfs"), Some("BFS"))
    );
    assert_eq!(gw["stand_in"], false);
    let cov = v["stall_table_coverage"]["top4_mean"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&cov));
    for m in v["policies"]["im"]["per_mix"].as_array().unwrap() {
        let f = m["gpu_dram_critical_fraction"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&f), "{f}");
        // bfs at tiny runs ~28K GPU cycles: the preset's probe (10K-GPU-cycle windows, the
        // first probe after one baseline window) fires in it (spec 004 §5.6).
        assert!(m["gpu_cycles"].as_u64().unwrap() > 20_000);
        assert!(m["counters"]["probes_fired"].as_f64().unwrap() >= 1.0);
        let share = m["counters"]["all_gpu_cycle_fraction"].as_f64().unwrap();
        assert!(share > 0.0 && share < 1.0, "{share}");
    }
    // The default controllers are the preset's (policy-ranked admission, session 19), and
    // each mix and alone run reports where its reads spent their latency, stage by stage.
    assert_eq!(v["machine"]["controller"], "preset");
    assert_eq!(v["machine"]["dram_fifo_admission"], false);
    let stages = [
        "lookup",
        "llc_mshr_wait",
        "to_mc",
        "front",
        "queue",
        "dram",
        "back",
    ];
    let alone = &v["cpu_alone_memory"];
    assert_eq!(alone.as_object().unwrap().len(), 4, "one per co-runner");
    for mem in v["policies"]["frfcfs"]["per_mix"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| &m["memory"])
        .chain(alone.as_object().unwrap().values())
    {
        let n = |k: &str| mem[k].as_f64().unwrap();
        assert!(n("cpu_stage_misses") > 0.0);
        let sum: f64 = stages.iter().map(|s| n(&format!("cpu_stage_{s}"))).sum();
        let lat = n("cpu_stage_latency");
        assert!((sum - lat).abs() < 1e-6 * lat, "{sum} vs {lat}");
        // No DRAM read is faster than tCL + a burst (67 CPU cycles).
        assert!(n("cpu_stage_dram") >= 67.0);
    }
    // The GPU's outstanding requests and the LLC's dirty blocks (session 20), per co-run.
    for m in v["policies"]["frfcfs"]["per_mix"].as_array().unwrap() {
        let n = |k: &str| m["memory"][k].as_f64().unwrap_or_else(|| panic!("{k}"));
        let mean = n("llc_mshrs_gpu_mean");
        assert!(n("llc_mshrs_gpu_peak") >= mean && n("llc_mshrs_gpu_peak") <= 512.0);
        assert!(n("llc_mshrs_cpu_peak") >= 1.0);
        let (bm, bp) = (n("gpu_port_blocks_mean"), n("gpu_port_blocks_peak"));
        assert!(bm > 0.0 && bm <= bp && bp <= 512.0, "{bm} {bp}");
        assert!(n("gpu_port_requests_peak") <= 256.0 && n("gpu_port_requests_peak") * 2.0 >= bp);
        assert!((0.0..=1.0).contains(&n("gpu_port_full_fraction")));
        assert!(n("llc_dirty_gpu_end") >= 0.0 && n("llc_dirty_cpu_start") >= 0.0);
        // `llc.gpgpu_store_fetch` is on by default (session 21): only stores fetch, at most one
        // block per store, and the CPUs never do.
        assert!(n("gpu_store_fetches") <= n("gpu_writes"));
        assert_eq!(n("cpu_store_fetches"), 0.0);
    }
    assert!(v["task_seconds"]["sums"]["corun"].as_f64().unwrap() > 0.0);
    assert!(v["task_seconds"]["sums"]["policy.im"].as_f64().unwrap() > 0.0);
    let hw = v["hardware_bytes"].as_f64().unwrap();
    assert!((3000.0..3300.0).contains(&hw), "{hw}");
    let s = std::fs::read_to_string(svg.join("hetero_policies.svg")).unwrap();
    assert!(s.contains("<svg") && s.contains("im"));
    // Fig. 5 (spec 004 §1.4, session 25), on by default: one CPU core plus the GPU per
    // co-runner; every GPU DRAM read is attributed (to a PC or to the untagged requests).
    let f = &v["fig5"];
    assert_eq!(
        (f["cpu_cores"].as_u64(), f["policy"].as_str()),
        (Some(1), Some("frfcfs"))
    );
    for co in ["bwaves", "gcc"] {
        let w = &f["co_runners"][co]["per_workload"]["bfs"];
        assert_eq!(w["co_runner"], co);
        let n = |k: &str| w[k].as_u64().unwrap_or_else(|| panic!("{k}"));
        assert!(n("gpu_dram_reads") > 0);
        assert_eq!(n("dram_reads_attributed"), n("gpu_dram_reads"), "{co}");
        assert!(n("dram_reads_tagged") > n("dram_reads_attributed") / 2);
        let c = |k: &str| w["coverage_top_n"][k].as_f64().unwrap();
        let cov: Vec<f64> = (1..=8).map(|k| c(&k.to_string())).collect();
        assert!(
            cov.windows(2).all(|p| p[0] <= p[1]) && cov[0] > 0.0,
            "{cov:?}"
        );
        assert!((c("all") - 1.0).abs() < 1e-12);
        for k in ["1", "2", "4", "all"] {
            let s = w["ideal_speedup"][k].as_f64().unwrap();
            assert!(s > 0.5 && s < 3.0, "{co} top {k}: {s}");
            // Ideal requests never add DRAM reads: compulsory misses only, at most.
            assert!(w["ideal_gpu_dram_reads"][k].as_u64().unwrap() <= n("gpu_dram_reads"));
        }
        // The listed PCs follow the stall ranking.
        let st: Vec<u64> = w["pcs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["stall_cycles"].as_u64().unwrap())
            .collect();
        assert!(
            !st.is_empty() && st.windows(2).all(|p| p[0] >= p[1]),
            "{st:?}"
        );
    }
    assert_eq!(f["per_workload"], f["co_runners"]["bwaves"]["per_workload"]);
    let cf = f["per_workload"]["bfs"]["compulsory_fraction"]
        .as_f64()
        .unwrap();
    assert!(cf > 0.0 && cf <= 1.0, "{cf}");
    let d = v["stall_table_dram_coverage"]["per_workload"]["bfs"]
        .as_f64()
        .unwrap();
    assert!(d > 0.0 && d <= 1.0, "{d}");
    assert!(v["task_seconds"]["sums"]["fig5"].as_f64().unwrap() > 0.0);
    for f in ["hetero_fig5_coverage.svg", "hetero_fig5_speedup.svg"] {
        let s = std::fs::read_to_string(svg.join(f)).unwrap();
        assert!(s.contains("<svg") && s.contains("bfs"), "{f}");
    }
}

#[test]
fn bad_options_are_refused_with_status_2() {
    let tmp = tempfile::tempdir().unwrap();
    let json = tmp.path().join("h.json");
    for (args, what) in [
        (vec!["--policy", "nope"], "policy.name"),
        (vec!["--set", "llc.size=1"], "llc.size"),
        (vec!["--set", "policy.crit_period=0"], "policy.crit_period"),
        (vec!["--no-fig5", "--set", "policy.nope=1"], "policy.nope"),
        (vec!["--set", "llc.size_kb"], "llc.size_kb"),
        (
            vec!["--no-fig5", "--fig5-workloads", "bfs"],
            "--fig5-workloads",
        ),
        (vec!["--fig5-workloads", "nope"], "unknown workload"),
        (vec!["--mixes", "Q"], "mix class"),
        (vec!["--workloads", "nope"], "unknown workload"),
        (vec!["--stand-ins", "--workloads", "bfs"], "--stand-ins"),
        (vec!["--controller", "nope"], "--controller"),
        (vec!["--warmup-resident", "nope"], "--warmup-resident"),
        (vec!["--seeds", "0"], "--seeds 0"),
    ] {
        let out = wf()
            .args(["experiment", "hetero", "--json"])
            .arg(&json)
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(what), "{args:?}: {err}");
        assert!(!json.exists(), "no output on error");
    }
}

/// The JSON of a one-mix tiny run (bfs, H) under IM and GPU-favoring with `args`.
fn one_mix(args: &[&str]) -> serde_json::Value {
    let tmp = tempfile::tempdir().unwrap();
    let json = tmp.path().join("h.json");
    wf().args([
        "experiment",
        "hetero",
        "--size",
        "tiny",
        "--workloads",
        "bfs",
    ])
    .args([
        "--policy",
        "im,gpu_favoring",
        "--mixes",
        "H,L",
        "--no-interference",
        "--no-fig5",
    ])
    .args(["--warmup", "50000", "--alone-cycles", "50000"])
    .args(args)
    .arg("--json")
    .arg(&json)
    .assert()
    .success();
    serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap()
}

/// `--seeds 3` (session 23): IM (IM-SCHED draws) runs every mix once per seed 1, 2, 3, the
/// deterministic FR-FCFS and GPU-favoring once; the reported figures are the geomeans of the
/// per-seed figures (and over seeds x mixes); seed 2 of the run is the single run with
/// `--set policy.seed=2`, and seed 1 today's default single run; `--jobs 1` gives the same.
#[test]
fn seeds_are_geomeans_and_seed_k_is_the_single_run_with_that_seed() {
    let r = one_mix(&["--seeds", "3", "--jobs", "2"]);
    let two = one_mix(&["--seeds", "1", "--set", "policy.seed=2"]);
    let one = one_mix(&["--seeds", "1"]);
    assert!(one["fig5"].is_null(), "--no-fig5");
    // The seeds' runs are independent jobs kept in a fixed order: one thread gives the same.
    let serial = one_mix(&["--seeds", "3", "--jobs", "1"]);
    assert_eq!(r["policies"], serial["policies"], "--jobs 1 vs 2");
    assert_eq!(r["seeding"]["seeds"], serde_json::json!([1, 2, 3]));
    assert_eq!(r["seeding"]["policies_drawing"], serde_json::json!(["im"]));
    // Two mixes: FR-FCFS and GPU-favoring once each, IM three times.
    assert_eq!(r["seeding"]["co_runs"], 2 * (1 + 1 + 3));
    assert_eq!(one["seeding"]["co_runs"], 2 * 3);
    let gm = |v: &[f64]| (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp();
    let im = &r["policies"]["im"];
    let seeds = im["seeds"].as_array().unwrap();
    assert_eq!(seeds.len(), 3);
    for k in ["gpu_speedup", "cpu_weighted_speedup", "equal_weight"] {
        let per: Vec<f64> = seeds.iter().map(|s| s[k].as_f64().unwrap()).collect();
        let got = im[k].as_f64().unwrap();
        assert!((got - gm(&per)).abs() < 1e-12, "{k}: {got} vs {per:?}");
        let lo = per.iter().copied().fold(f64::INFINITY, f64::min);
        assert_eq!(im["spread"][k]["min"].as_f64(), Some(lo), "{k}");
        assert_eq!(seeds[1][k], two["policies"]["im"][k], "seed 2: {k}");
        assert_eq!(seeds[0][k], one["policies"]["im"][k], "seed 1: {k}");
    }
    // Over seeds x mixes: the mixes' per-seed speed-ups.
    let all: Vec<f64> = im["per_mix"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| {
            m["seeds"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["gpu_speedup"].as_f64().unwrap())
        })
        .collect();
    assert_eq!(all.len(), 6);
    assert!((im["gpu_speedup"].as_f64().unwrap() - gm(&all)).abs() < 1e-12);
    assert_eq!(
        im["per_mix"][1]["seeds"][1]["gpu_cycles"],
        two["policies"]["im"]["per_mix"][1]["gpu_cycles"]
    );
    let gf = &r["policies"]["gpu_favoring"];
    assert_eq!(
        gf["seeds"].as_array().unwrap().len(),
        1,
        "deterministic: one run"
    );
    assert_eq!(
        gf["gpu_speedup"],
        two["policies"]["gpu_favoring"]["gpu_speedup"]
    );
}
