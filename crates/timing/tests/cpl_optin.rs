//! CPL (CAWA's criticality prediction, spec 000 §4.3) runs only when something consumes it: a
//! scheduler or L1D policy that reads criticality (`reads_criticality`: gCAWS, CACP) or
//! `sim.cpl = true` (its accuracy statistics). Without a consumer its counters stay 0 and the
//! CPL statistics (`cpl_*`, the caches' `critical_accesses`/`critical_hits`) are 0; since only
//! the consumers read it, every other statistic is the same with CPL on or off.

mod common;

/// The statistics JSON of workload `name` at size tiny on `preset` with `set` applied.
fn run(name: &str, preset: &str, set: &[(&str, &str)]) -> serde_json::Value {
    common::run_tiny(
        name,
        common::preset_with(preset, set),
        1,
        |_| {},
        |t| t.stats_json(),
    )
}

/// `total.raw.<unit>.<key>` of a statistics JSON.
fn raw(s: &serde_json::Value, unit: &str, key: &str) -> u64 {
    s["total"]["raw"][unit][key]
        .as_u64()
        .unwrap_or_else(|| panic!("total.raw.{unit}.{key} missing"))
}

/// The JSON without CPL's own counters and the wall-clock fields.
fn without_cpl(v: &serde_json::Value) -> serde_json::Value {
    match v {
        serde_json::Value::Object(m) => serde_json::Value::Object(
            m.iter()
                .filter(|(k, _)| {
                    !(k.starts_with("cpl_")
                        || *k == "critical_accesses"
                        || *k == "critical_hits"
                        || k.starts_with("wall")
                        || k.ends_with("_per_s"))
                })
                .map(|(k, v)| (k.clone(), without_cpl(v)))
                .collect(),
        ),
        serde_json::Value::Array(a) => {
            serde_json::Value::Array(a.iter().map(without_cpl).collect())
        }
        x => x.clone(),
    }
}

#[test]
fn a_plain_run_has_cpl_off_and_sim_cpl_turns_it_on_without_changing_timing() {
    for name in ["bt", "kmn"] {
        let off = run(name, "gtx480", &[]);
        assert_eq!(raw(&off, "core", "cpl_samples"), 0, "{name}: CPL ran");
        assert_eq!(raw(&off, "core", "cpl_correct"), 0, "{name}");
        assert_eq!(raw(&off, "l1d", "critical_accesses"), 0, "{name}");
        // The TB spread statistics do not need the counters.
        assert!(raw(&off, "core", "tb_lifetime_cycles") > 0, "{name}");
        let on = run(name, "gtx480", &[("sim.cpl", "true")]);
        let samples = raw(&on, "core", "cpl_samples");
        assert!(samples > 0, "{name}: sim.cpl=true took no accuracy sample");
        assert!(raw(&on, "core", "cpl_correct") <= samples, "{name}");
        assert!(raw(&on, "l1d", "critical_accesses") > 0, "{name}");
        assert!(
            raw(&on, "l1d", "critical_accesses") < raw(&on, "l1d", "loads"),
            "{name}: every load critical"
        );
        assert_eq!(on["total"]["cycles"], off["total"]["cycles"], "{name}");
        assert_eq!(without_cpl(&on), without_cpl(&off), "{name}");
    }
}

#[test]
fn policies_that_read_criticality_turn_cpl_on() {
    // gCAWS reads the counters (`SchedView::crit`), CACP the L1D's criticality bit: CPL runs
    // without `sim.cpl`, and the flag then changes nothing at all.
    for (preset, set) in [
        ("gtx480", vec![("core.scheduler", "gcaws")]),
        ("gtx480-cawa", vec![("l1d.replacement", "cacp")]),
    ] {
        let plain = run("bt", preset, &set);
        assert!(
            raw(&plain, "core", "cpl_samples") > 0,
            "{preset} {set:?}: CPL did not run"
        );
        let mut with = set.clone();
        with.push(("sim.cpl", "true"));
        let flagged = run("bt", preset, &with);
        assert_eq!(
            without_cpl(&plain)["total"],
            without_cpl(&flagged)["total"],
            "{preset} {set:?}"
        );
        assert_eq!(
            plain["total"]["raw"], flagged["total"]["raw"],
            "{preset} {set:?}"
        );
    }
}

/// `sim.cpl_rank` (issue #12, session 15) turns CPL on and adds the rank-correlation counters,
/// and nothing else: the accuracy counters and every other statistic equal those of
/// `sim.cpl`. Each rho sum is one (rho + 1) x 1e6 in [0, 2e6] per ranked TB.
#[test]
fn cpl_rank_adds_only_its_counters() {
    let on = run("bt", "gtx480-cawa", &[("sim.cpl", "true")]);
    let rank = run("bt", "gtx480-cawa", &[("sim.cpl_rank", "true")]);
    assert_eq!(raw(&on, "core", "cpl_rank_tbs"), 0, "off without the flag");
    let tbs = raw(&rank, "core", "cpl_rank_tbs");
    assert!(tbs > 0, "BT's TBs of 8 warps spread: some must be ranked");
    assert!(tbs <= raw(&rank, "core", "ctas"));
    let samples = raw(&rank, "core", "cpl_samples");
    for key in [
        "cpl_samples",
        "cpl_correct",
        "cpl_correct_inclusive",
        "cpl_correct_inst",
        "cpl_correct_stall",
    ] {
        assert_eq!(raw(&on, "core", key), raw(&rank, "core", key), "{key}");
        assert!(raw(&rank, "core", key) <= samples, "{key}");
    }
    for part in ["counter", "inst", "stall"] {
        for pct in ["25", "50", "75"] {
            let key = format!("cpl_rho_{part}_{pct}_ppm");
            assert!(raw(&rank, "core", &key) <= 2_000_000 * tbs, "{key}");
            assert_eq!(raw(&on, "core", &key), 0, "{key}");
        }
    }
    assert_eq!(without_cpl(&on), without_cpl(&rank));
}
