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
}

#[test]
fn bad_options_are_refused_with_status_2() {
    let tmp = tempfile::tempdir().unwrap();
    let json = tmp.path().join("h.json");
    for (args, what) in [
        (vec!["--policy", "nope"], "policy.name"),
        (vec!["--set", "llc.size=1"], "llc.size"),
        (vec!["--set", "policy.crit_period=0"], "policy.crit_period"),
        (vec!["--mixes", "Q"], "mix class"),
        (vec!["--workloads", "nope"], "unknown workload"),
        (vec!["--stand-ins", "--workloads", "bfs"], "--stand-ins"),
        (vec!["--controller", "nope"], "--controller"),
        (vec!["--warmup-resident", "nope"], "--warmup-resident"),
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
