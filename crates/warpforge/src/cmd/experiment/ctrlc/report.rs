//! The numbers of `experiment ctrlc` from the simulations' statistics (definitions in the
//! parent module's documentation), and the text summary.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde_json::{json, Map, Value};

use super::{CONFIGS, CS_THRESHOLD};
use crate::cmd::experiment::batch::Outcome;
use crate::cmd::experiment::stats::{geomean, mean};

/// Runs by (workload, configuration).
pub type Runs = BTreeMap<(String, &'static str), Outcome>;

fn num(o: &Outcome, path: &str) -> f64 {
    o.total(path).unwrap_or(0.0)
}

/// Relative change `new / old - 1` (None when `old` is 0).
fn change(new: f64, old: f64) -> Option<f64> {
    (old != 0.0).then(|| new / old - 1.0)
}

/// The reuse-distance histogram of one baseline run: counts, fractions of the non-cold
/// accesses per bin, `fraction_lt_4`, `fraction_ge_128` and the bin holding the median.
pub fn reuse_distance(o: &Outcome) -> Value {
    let r = &o.stats["total"]["raw"]["l1d_reuse"];
    let get = |k: &str| r[k].as_u64().unwrap_or(0);
    let bins: Vec<(&str, &str, u64)> = [
        ("0", "d0"),
        ("1", "d1"),
        ("2-3", "d2_3"),
        ("4-7", "d4_7"),
        ("8-15", "d8_15"),
        ("16-31", "d16_31"),
        ("32-63", "d32_63"),
        ("64-127", "d64_127"),
        (">=128", "d128_up"),
    ]
    .into_iter()
    .map(|(l, k)| (l, k, get(k)))
    .collect();
    let reused: u64 = bins.iter().map(|b| b.2).sum();
    let frac = |c: u64| {
        if reused == 0 {
            0.0
        } else {
            c as f64 / reused as f64
        }
    };
    let mut acc = 0;
    let median = bins
        .iter()
        .find(|b| {
            acc += b.2;
            reused > 0 && 2 * acc >= reused
        })
        .map(|b| b.0);
    json!({
        "cold": get("cold"),
        "reuses": reused,
        "bins": bins.iter().map(|b| (b.0.to_string(), json!(b.2))).collect::<Map<_, _>>(),
        "fractions": bins.iter().map(|b| (b.0.to_string(), json!(frac(b.2)))).collect::<Map<_, _>>(),
        "fraction_lt_4": frac(bins[..3].iter().map(|b| b.2).sum()),
        "fraction_ge_128": frac(bins[8].2),
        "median_bin": median,
    })
}

/// Everything but the sweep.
pub fn summarise(workloads: &[String], runs: &Runs, storage_bytes: f64) -> Value {
    let run = |w: &String, c: &'static str| &runs[&(w.clone(), c)];
    let cycles = |w: &String, c| run(w, c).cycles() as f64;
    let speedup = |w: &String, c| cycles(w, "baseline") / cycles(w, c).max(1.0);
    let cs: Vec<&String> = workloads
        .iter()
        .filter(|w| speedup(w, "l1d_64k") > CS_THRESHOLD)
        .collect();
    let ns: Vec<&String> = workloads.iter().filter(|w| !cs.contains(w)).collect();
    let mut sp = Map::new();
    let (mut gm_cs, mut gm_all, mut am_cs, mut ch) =
        (Map::new(), Map::new(), Map::new(), Map::new());
    for &c in &CONFIGS[1..] {
        let m: Map<String, Value> = workloads
            .iter()
            .map(|w| (w.clone(), json!(speedup(w, c))))
            .collect();
        sp.insert(c.into(), Value::Object(m));
        let v_cs: Vec<f64> = cs.iter().map(|w| speedup(w, c)).collect();
        let v_all: Vec<f64> = workloads.iter().map(|w| speedup(w, c)).collect();
        gm_cs.insert(c.into(), json!(geomean(&v_cs)));
        am_cs.insert(c.into(), json!(mean(&v_cs)));
        gm_all.insert(c.into(), json!(geomean(&v_all)));
        let rel = |path: &str| {
            let v: Vec<f64> = cs
                .iter()
                .filter_map(|w| change(num(run(w, c), path), num(run(w, "baseline"), path)))
                .collect();
            mean(&v)
        };
        let both_bytes =
            |o: &Outcome| num(o, "icnt.l1_to_l2_bytes") + num(o, "icnt.l2_to_l1_bytes");
        let both: Vec<f64> = cs
            .iter()
            .filter_map(|w| change(both_bytes(run(w, c)), both_bytes(run(w, "baseline"))))
            .collect();
        let both = mean(&both);
        // The L1<->L2 interconnect traffic (claim 22) is both directions: a read request is a
        // header-only packet, so loads move their data in the reply, and the document's -43.7%
        // next to an MPKI change of only -9.9% (bypasses count as misses and still send a
        // request each) can only be data bytes. The request direction alone is kept apart.
        ch.insert(
            c.into(),
            json!({
                "l1d_mpki": rel("l1d.mpki"),
                "l1_l2_traffic": both,
                "l1_to_l2_request_bytes": rel("icnt.l1_to_l2_bytes"),
            }),
        );
    }
    let zero = |c: &'static str| {
        let v: Vec<f64> = cs
            .iter()
            .filter(|w| num(run(w, c), "l1d.evictions") > 0.0)
            .map(|w| num(run(w, c), "l1d.zero_reuse_fraction"))
            .collect();
        mean(&v)
    };
    let mut per = Map::new();
    for w in workloads {
        let mut m = Map::new();
        for &c in &CONFIGS {
            let o = run(w, c);
            m.insert(
                c.into(),
                json!({
                    "cycles": o.cycles(),
                    "speedup": speedup(w, c),
                    "l1d_mpki": num(o, "l1d.mpki"),
                    "l1d_hit_rate": num(o, "l1d.hit_rate"),
                    "l1d_bypassed": num(o, "l1d.bypassed"),
                    "l1_l2_bytes": num(o, "icnt.l1_to_l2_bytes"),
                    "l2_l1_bytes": num(o, "icnt.l2_to_l1_bytes"),
                    "zero_reuse_fraction": num(o, "l1d.zero_reuse_fraction"),
                    "wall_s": o.wall_s,
                }),
            );
        }
        per.insert(w.clone(), Value::Object(m));
    }
    json!({
        "experiment": "ctrlc",
        "workloads": workloads,
        "configs": CONFIGS,
        "cs_rule": format!("speedup.l1d_64k > {CS_THRESHOLD}"),
        "cs_workloads": cs,
        "ns_workloads": ns,
        "speedup": sp,
        "geomean_cs": gm_cs,
        "mean_cs": am_cs,
        "geomean_all": gm_all,
        "change_cs": ch,
        "l1d_mpki_change_cs": ch["ctrlc"]["l1d_mpki"],
        "l1_l2_traffic_change_cs": ch["ctrlc"]["l1_l2_traffic"],
        "l1_to_l2_request_bytes_change_cs": ch["ctrlc"]["l1_to_l2_request_bytes"],
        "zero_reuse_fraction_cs": {
            "baseline": zero("baseline"),
            "pc_bypass": zero("pc_bypass"),
            "ctrlc": zero("ctrlc"),
        },
        "storage_bytes_per_sm": storage_bytes,
        "reuse_distance": workloads.iter()
            .map(|w| (w.clone(), reuse_distance(run(w, "baseline"))))
            .collect::<Map<_, _>>(),
        "pc_profile": workloads.iter()
            .map(|w| (w.clone(), run(w, "baseline").stats["total"]["raw"]["l1d_pcs"].clone()))
            .collect::<Map<_, _>>(),
        "per_workload": per,
    })
}

/// Load-PC table indices of a baseline run with L1D misses, ascending.
pub fn active_pcs(o: &Outcome) -> Vec<(usize, u64)> {
    let mut v: Vec<(usize, u64)> = o.stats["total"]["raw"]["l1d_pcs"]
        .as_object()
        .map(|m| {
            m.iter()
                .filter_map(|(k, e)| Some((k.parse().ok()?, e["misses"].as_u64()?)))
                .filter(|e: &(usize, u64)| e.1 > 0)
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// The `n` table indices with the most misses in a baseline run, ascending.
pub fn top_pcs(o: &Outcome, n: usize) -> Vec<usize> {
    let mut v = active_pcs(o);
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut top: Vec<usize> = v.into_iter().take(n).map(|e| e.0).collect();
    top.sort();
    top
}

/// The static per-PC exponent sweep: per workload and PC, the speed-up at each exponent and
/// the best exponent (0 = never bypass, the baseline).
pub fn sweep(runs: &Runs, plan: &[(String, usize, u8)], out: &[Outcome]) -> Value {
    let mut res = Map::new();
    for ((w, pc, n), o) in plan.iter().zip(out) {
        let base = &runs[&(w.clone(), "baseline")];
        let active = active_pcs(base);
        let ordinal = active.iter().position(|e| e.0 == *pc).unwrap_or(0);
        let misses = active.iter().find(|e| e.0 == *pc).map_or(0, |e| e.1);
        let wm = res
            .entry(w.clone())
            .or_insert_with(|| json!({}))
            .as_object_mut()
            .expect("object");
        let e = wm.entry(pc.to_string()).or_insert_with(|| {
            json!({ "label": format!("PC_{ordinal}"), "misses": misses, "speedup": { "0": 1.0 } })
        });
        let s = base.cycles() as f64 / o.cycles().max(1) as f64;
        e["speedup"][n.to_string()] = json!(s);
    }
    for wm in res.values_mut() {
        for e in wm.as_object_mut().expect("object").values_mut() {
            let best = e["speedup"]
                .as_object()
                .expect("object")
                .iter()
                .max_by(|a, b| {
                    let (x, y) = (a.1.as_f64().unwrap_or(0.0), b.1.as_f64().unwrap_or(0.0));
                    x.total_cmp(&y)
                })
                .map(|(k, _)| k.parse::<u8>().unwrap_or(0));
            e["best_exponent"] = json!(best);
        }
    }
    Value::Object(res)
}

fn f(v: &Value) -> String {
    v.as_f64().map_or("-".into(), |x| format!("{x:.3}"))
}

/// The text summary printed by the command.
pub fn text(r: &Value) -> String {
    let mut s = String::new();
    let cs: Vec<&str> = r["cs_workloads"]
        .as_array()
        .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default();
    let _ = writeln!(
        s,
        "Ctrl-C (Lee 2017 Ch. 5) on {}, size {}: speed-up over the 16 KB baseline",
        r["config"].as_str().unwrap_or(""),
        r["size"].as_str().unwrap_or("")
    );
    let _ = write!(s, "{:<6}{:>4}", "wl", "CS");
    for c in &CONFIGS[1..] {
        let _ = write!(s, "{c:>11}");
    }
    let _ = writeln!(s, "{:>9}{:>9}", "zr_base", "zr_ctrlc");
    for w in r["workloads"].as_array().into_iter().flatten() {
        let w = w.as_str().unwrap_or("");
        let _ = write!(s, "{w:<6}{:>4}", if cs.contains(&w) { "*" } else { "" });
        for c in &CONFIGS[1..] {
            let _ = write!(s, "{:>11}", f(&r["speedup"][c][w]));
        }
        let pw = &r["per_workload"][w];
        let _ = writeln!(
            s,
            "{:>9}{:>9}",
            f(&pw["baseline"]["zero_reuse_fraction"]),
            f(&pw["ctrlc"]["zero_reuse_fraction"])
        );
    }
    let _ = write!(s, "{:<10}", "gmean CS");
    for c in &CONFIGS[1..] {
        let _ = write!(s, "{:>11}", f(&r["geomean_cs"][c]));
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "CS ({}): {}\nCtrl-C vs baseline on CS: L1D MPKI change {}, L1<->L2 traffic change {} \
         (request direction {}), zero-reuse fraction {} -> {}; storage {} B per SM",
        cs.len(),
        cs.join(" "),
        f(&r["l1d_mpki_change_cs"]),
        f(&r["l1_l2_traffic_change_cs"]),
        f(&r["l1_to_l2_request_bytes_change_cs"]),
        f(&r["zero_reuse_fraction_cs"]["baseline"]),
        f(&r["zero_reuse_fraction_cs"]["ctrlc"]),
        r["storage_bytes_per_sm"]
    );
    if let Some(sw) = r.get("static_exponent").and_then(|v| v.as_object()) {
        for (w, pcs) in sw {
            let _ = write!(s, "static exponent {w}:");
            for (_, e) in pcs.as_object().into_iter().flatten() {
                let _ = write!(
                    s,
                    " {} best N={}",
                    e["label"].as_str().unwrap_or(""),
                    e["best_exponent"]
                );
            }
            let _ = writeln!(s);
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(cycles: u64, mpki: f64, bytes: u64, zr: f64, reuse: Value) -> Outcome {
        Outcome {
            stats: json!({"total": {
                "cycles": cycles,
                "l1d": {"mpki": mpki, "evictions": 10, "zero_reuse_fraction": zr, "hit_rate": 0.5,
                        "bypassed": 0},
                "icnt": {"l1_to_l2_bytes": bytes, "l2_to_l1_bytes": 3 * bytes / 2 + 50},
                "raw": {"l1d_reuse": reuse, "l1d_pcs": {"3": {"misses": 5}, "9": {"misses": 50}}},
            }}),
            wall_s: 0.0,
            cpu_s: 0.0,
            cached: false,
        }
    }

    #[test]
    fn cs_split_means_and_changes() {
        let ws: Vec<String> = vec!["a".into(), "b".into()];
        let mut runs = Runs::new();
        let reuse = json!({"cold": 4, "d0": 1, "d2_3": 1, "d128_up": 2});
        for (w, c64) in [("a", 500u64), ("b", 900)] {
            for &c in &CONFIGS {
                let (cy, mpki, bytes, zr) = match c {
                    "l1d_64k" => (c64, 10.0, 100, 0.5),
                    "ctrlc" => (800, 9.0, 50, 0.3),
                    _ => (1000, 10.0, 100, 0.8),
                };
                runs.insert(
                    (w.to_string(), c),
                    outcome(cy, mpki, bytes, zr, reuse.clone()),
                );
            }
        }
        let r = summarise(&ws, &runs, 608.0);
        // a: 1000/500 = 2.0 > 1.2 is CS; b: 1000/900 = 1.11 is not.
        assert_eq!(r["cs_workloads"], json!(["a"]));
        assert_eq!(r["speedup"]["ctrlc"]["a"], json!(1.25));
        assert_eq!(r["geomean_cs"]["l1d_64k"], json!(2.0));
        assert!(
            (r["geomean_all"]["l1d_64k"].as_f64().unwrap() - (2.0f64 * 1000.0 / 900.0).sqrt())
                .abs()
                < 1e-12
        );
        assert!((r["l1d_mpki_change_cs"].as_f64().unwrap() + 0.1).abs() < 1e-12);
        // Request bytes 100 -> 50; both directions 100 + 200 -> 50 + 125.
        assert!((r["l1_to_l2_request_bytes_change_cs"].as_f64().unwrap() + 0.5).abs() < 1e-12);
        assert!(
            (r["l1_l2_traffic_change_cs"].as_f64().unwrap() - (175.0 / 300.0 - 1.0)).abs() < 1e-12
        );
        assert_eq!(r["zero_reuse_fraction_cs"]["baseline"], json!(0.8));
        assert_eq!(r["zero_reuse_fraction_cs"]["ctrlc"], json!(0.3));
        let rd = &r["reuse_distance"]["a"];
        assert_eq!(rd["reuses"], json!(4));
        assert_eq!(rd["fraction_ge_128"], json!(0.5));
        assert_eq!(rd["fraction_lt_4"], json!(0.5));
        assert_eq!(rd["median_bin"], json!("2-3"));
        assert_eq!(top_pcs(&runs[&("a".into(), "baseline")], 1), vec![9]);
        assert!(text(&r).contains("gmean CS"));
    }

    #[test]
    fn sweep_picks_the_best_exponent_including_none() {
        let mut runs = Runs::new();
        runs.insert(
            ("k".into(), "baseline"),
            outcome(1000, 0.0, 0, 0.0, json!({})),
        );
        let plan = vec![
            ("k".to_string(), 9, 1),
            ("k".to_string(), 9, 5),
            ("k".to_string(), 3, 1),
        ];
        let outs = vec![
            outcome(900, 0.0, 0, 0.0, json!({})),
            outcome(500, 0.0, 0, 0.0, json!({})),
            outcome(1100, 0.0, 0, 0.0, json!({})),
        ];
        let s = sweep(&runs, &plan, &outs);
        assert_eq!(s["k"]["9"]["best_exponent"], json!(5));
        assert_eq!(s["k"]["9"]["label"], json!("PC_1"));
        assert_eq!(
            s["k"]["3"]["best_exponent"],
            json!(0),
            "bypassing only hurts PC 3"
        );
        assert_eq!(s["k"]["3"]["label"], json!("PC_0"));
    }
}
