//! `warpforge experiment caws`: CAWS with oracle criticality on BFS (document 000 §3, Lee 2017
//! §3.4-3.5): Table 3.3 (speed-ups over RR and criticality-inversion frequencies of CAWS-blk,
//! -SM and -avg), Figure 3.5's GTO and 2-level points, Figure 3.3's per-TB disparity and
//! Figure 3.6 (critical-warp and TB time under RR and CAWS-avg, with the stall breakdown).
//!
//! Two passes: a baseline RR (`lrr`) run records every warp's execution time
//! (`sim.warp_times`), which becomes the oracle file ([`Oracle`], named by its content hash in
//! the cache directory) that the `caws` scheduler reads (`core.caws.oracle`). Both passes go
//! through [`super::batch`], whose cache is keyed by workload, size and configuration, so a
//! repeated experiment (or `experiment cawa`'s `caws_oracle` policy, through [`oracle_for`])
//! simulates the baseline once.
//!
//! Metrics (spec 000 §8.2):
//! * speed-up: baseline RR total core cycles of the run / the policy's (all launches);
//! * criticality inversion: over the TBs (every launch's CTAs with at least 2 warps), the
//!   fraction in which the policy prioritised some warp as critical (`warp_times.critical`)
//!   and yet the TB's slowest warp under the policy was none of the prioritised ones: the
//!   boosted warp finished earlier than another, which became the new critical warp.

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context, Result};
use serde::Deserialize;
use serde_json::{json, Value};
use warpforge_timing::core::sched::caws::Oracle;
use warpforge_timing::stats::WarpTime;
use warpforge_timing::GpuConfig;
use warpforge_workloads::Size;

use super::batch::{self, Options, Outcome, Point};
use super::chart::{write_atomic, Chart};
use super::latency::{DEFAULT_CONFIG, FACTORS};
use super::stats::mean_or_zero;

/// The policies of Table 3.3 and Figure 3.5 with their configuration overrides (RR first: the
/// baseline).
pub const POLICIES: &[(&str, &[(&str, &str)])] = &[
    ("rr", &[("core.scheduler", "lrr")]),
    ("gto", &[("core.scheduler", "gto")]),
    ("two_level", &[("core.scheduler", "two_level")]),
    (
        "caws_blk",
        &[("core.scheduler", "caws"), ("core.caws.variant", "blk")],
    ),
    (
        "caws_sm",
        &[("core.scheduler", "caws"), ("core.caws.variant", "sm")],
    ),
    (
        "caws_avg",
        &[("core.scheduler", "caws"), ("core.caws.variant", "avg")],
    ),
];

/// Arguments of `experiment caws`.
#[derive(clap::Args)]
pub struct CawsArgs {
    /// Input size: tiny, small or paper.
    #[arg(long, default_value = "small")]
    size: Size,
    /// Workload (the document uses BFS).
    #[arg(long, default_value = "bfs")]
    workload: String,
    /// Timing configuration preset name or TOML file (default: Table 3.1 on GPGPU-Sim 3.2.0,
    /// the document's version; `gtx480` is the same card with GPGPU-Sim 4's L1D MSHRs and hit
    /// latencies).
    #[arg(long, default_value = DEFAULT_CONFIG)]
    config: String,
    /// Override one configuration key (repeatable), e.g. `--set core.caws.reset_critical=36`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Write Table 3.3 and Figures 3.3/3.6 as JSON here.
    #[arg(long)]
    json: PathBuf,
    /// Also write `caws_speedup.svg` and `caws_fig3_6.svg` into this directory.
    #[arg(long)]
    svg: Option<PathBuf>,
    /// Simulations at once (default: the cores available).
    #[arg(long)]
    jobs: Option<usize>,
    /// Do not read or write the simulation cache (the oracle goes to a temporary directory).
    #[arg(long)]
    no_cache: bool,
}

/// The baseline pass's configuration: `cfg` under RR recording warp times and the attribution.
pub fn baseline_config(cfg: &GpuConfig) -> Result<GpuConfig> {
    let mut c = cfg.clone();
    c.set("core.scheduler", "lrr")?;
    c.set("sim.warp_times", "true")?;
    c.set("sim.latency_attribution", "true")?;
    Ok(c)
}

/// One warp record of a run's statistics (`kernels[].warp_times[]`).
#[derive(Debug, Clone, Deserialize)]
pub struct Rec {
    /// SM.
    pub sm: u16,
    /// CTA.
    pub cta: u32,
    /// Warp within the CTA.
    pub warp: u32,
    /// Dispatch cycle.
    pub start: u64,
    /// Retirement cycle.
    pub end: u64,
    /// Prioritised as critical.
    pub critical: bool,
    /// Attribution, core cycles per factor.
    #[serde(default)]
    pub latency: Option<BTreeMap<String, u64>>,
    /// L1D blocks re-referenced while still held (once per residency).
    #[serde(default)]
    pub l1d_reuse_served: u64,
    /// L1D blocks re-referenced after their eviction.
    #[serde(default)]
    pub l1d_reuse_lost: u64,
}

impl Rec {
    /// Execution time, core cycles.
    pub fn cycles(&self) -> u64 {
        self.end + 1 - self.start
    }
}

/// The warp records of every launch of a run: (kernel name, records).
pub fn records(stats: &Value) -> Result<Vec<(String, Vec<Rec>)>> {
    let ks = stats["kernels"]
        .as_array()
        .ok_or_else(|| anyhow!("statistics without kernels"))?;
    ks.iter()
        .map(|k| {
            let name = k["kernel"].as_str().unwrap_or("").to_string();
            let recs: Vec<Rec> = match k.get("warp_times") {
                Some(v) => serde_json::from_value(v.clone()).context("reading warp_times")?,
                None => Vec::new(),
            };
            Ok((name, recs))
        })
        .collect()
}

/// The oracle of a baseline run's statistics.
pub fn oracle_of(stats: &Value) -> Result<Oracle> {
    let recs = records(stats)?;
    let times: Vec<(String, Vec<WarpTime>)> = recs
        .into_iter()
        .map(|(n, rs)| {
            let ws = rs
                .iter()
                .map(|r| WarpTime {
                    sm: r.sm,
                    cta: r.cta,
                    warp: r.warp,
                    start: r.start,
                    end: r.end,
                    critical: false,
                    latency: None,
                    ..WarpTime::default()
                })
                .collect();
            (n, ws)
        })
        .collect();
    if times.iter().all(|(_, w)| w.is_empty()) {
        return Err(anyhow!(
            "the baseline run recorded no warp times (sim.warp_times)"
        ));
    }
    Ok(Oracle::from_warp_times(
        times.iter().map(|(n, w)| (n.as_str(), w.as_slice())),
    ))
}

/// Writes `oracle` into `dir` under a name made of its content hash (so a batch cache keyed by
/// the configuration, which names the file, can never mix two oracles) and returns the path.
pub fn save_oracle(oracle: &Oracle, dir: &Path, workload: &str, size: Size) -> Result<PathBuf> {
    let text = serde_json::to_string(oracle)?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    let path = dir.join(format!(
        "caws-oracle-{workload}-{}-{:016x}.json",
        size.name(),
        h.finish()
    ));
    if !path.exists() {
        write_atomic(&path, text.as_bytes())?;
    }
    Ok(path)
}

fn oracle_dir(opts: &Options) -> PathBuf {
    opts.cache
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join("warpforge-caws"))
}

/// The baseline RR run of `workload` (cached) and the path of its oracle file: the input of
/// `core.caws.oracle` for a `caws` run of the same workload, size and configuration.
pub fn baseline(
    workload: &str,
    size: Size,
    cfg: &GpuConfig,
    opts: &Options,
) -> Result<(Outcome, PathBuf)> {
    let base = baseline_config(cfg)?;
    let out = batch::run(&[Point::new(workload, size, base)], opts)?
        .pop()
        .expect("one point");
    let oracle = oracle_of(&out.stats)?;
    let path = save_oracle(&oracle, &oracle_dir(opts), workload, size)?;
    Ok((out, path))
}

/// The oracle file for `workload` at `size` on `cfg` (runs or reuses the baseline RR pass).
/// A `caws` policy then is `cfg` + `core.scheduler=caws`, `core.caws.variant=avg`,
/// `core.caws.oracle=<this path>`.
#[allow(dead_code)] // the entry point of `experiment cawa`'s `caws_oracle` policy
pub fn oracle_for(workload: &str, size: Size, cfg: &GpuConfig, opts: &Options) -> Result<PathBuf> {
    Ok(baseline(workload, size, cfg, opts)?.1)
}

/// `cfg` with policy `name`'s overrides (and the oracle for CAWS), recording warp times.
pub fn policy_config(cfg: &GpuConfig, name: &str, oracle: &Path) -> Result<GpuConfig> {
    let (_, sets) = POLICIES
        .iter()
        .find(|p| p.0 == name)
        .ok_or_else(|| anyhow!("unknown policy `{name}`"))?;
    let mut c = baseline_config(cfg)?;
    for (k, v) in sets.iter() {
        c.set(k, v)?;
    }
    if name.starts_with("caws") {
        c.set("core.caws.oracle", &oracle.display().to_string())?;
    }
    Ok(c)
}

/// TB key: (launch, CTA).
type Tb = (usize, u32);

fn by_tb(launches: &[(String, Vec<Rec>)]) -> BTreeMap<Tb, Vec<&Rec>> {
    let mut m: BTreeMap<Tb, Vec<&Rec>> = BTreeMap::new();
    for (l, (_, rs)) in launches.iter().enumerate() {
        for r in rs {
            m.entry((l, r.cta)).or_default().push(r);
        }
    }
    for v in m.values_mut() {
        v.sort_by_key(|r| r.warp);
    }
    m
}

/// Criticality inversion (module documentation): (inverted TBs, TBs with >= 2 warps).
pub fn inversion(launches: &[(String, Vec<Rec>)]) -> (usize, usize) {
    let (mut inv, mut n) = (0, 0);
    for ws in by_tb(launches).values() {
        if ws.len() < 2 {
            continue;
        }
        n += 1;
        let max = ws.iter().map(|r| r.cycles()).max().unwrap_or(0);
        let boosted = ws.iter().any(|r| r.critical);
        let slowest_boosted = ws.iter().any(|r| r.critical && r.cycles() == max);
        if boosted && !slowest_boosted {
            inv += 1;
        }
    }
    (inv, n)
}

/// A TB's time: from its first warp's dispatch to its last warp's retirement.
fn tb_cycles(ws: &[&Rec]) -> u64 {
    let s = ws.iter().map(|r| r.start).min().unwrap_or(0);
    let e = ws.iter().map(|r| r.end).max().unwrap_or(0);
    e + 1 - s
}

fn factors_json(r: &Rec) -> Value {
    let l = r.latency.clone().unwrap_or_default();
    let m: serde_json::Map<String, Value> = FACTORS
        .iter()
        .map(|f| (f.0.to_string(), json!(l.get(f.0).copied().unwrap_or(0))))
        .collect();
    Value::Object(m)
}

/// Figures 3.3 and 3.6 from the RR and CAWS-avg records: the example TB is the one with the
/// longest critical warp under RR (the TB that bounds its launch); means are over every TB.
pub fn figures(rr: &[(String, Vec<Rec>)], avg: &[(String, Vec<Rec>)]) -> Value {
    let (a, b) = (by_tb(rr), by_tb(avg));
    let mut best: Option<(Tb, u64)> = None;
    let (mut warp_red, mut tb_red, mut ideal, mut n) = (0.0, 0.0, 0.0, 0usize);
    for (tb, ws) in &a {
        let Some(os) = b.get(tb) else { continue };
        if ws.len() < 2 || os.len() != ws.len() {
            continue;
        }
        let crit = ws
            .iter()
            .max_by_key(|r| (r.cycles(), std::cmp::Reverse(r.warp)));
        let crit = crit.expect("warps");
        let mean = ws.iter().map(|r| r.cycles() as f64).sum::<f64>() / ws.len() as f64;
        let other = os.iter().find(|r| r.warp == crit.warp).expect("same warps");
        warp_red += 1.0 - other.cycles() as f64 / crit.cycles() as f64;
        tb_red += 1.0 - tb_cycles(os) as f64 / tb_cycles(ws) as f64;
        ideal += crit.cycles() as f64 / mean;
        n += 1;
        if best.is_none_or(|(_, c)| crit.cycles() > c) {
            best = Some((*tb, crit.cycles()));
        }
    }
    let Some((tb, _)) = best else {
        return json!(null);
    };
    let ws = &a[&tb];
    let os = &b[&tb];
    let crit = *ws
        .iter()
        .max_by_key(|r| (r.cycles(), std::cmp::Reverse(r.warp)))
        .expect("warps");
    let other = *os.iter().find(|r| r.warp == crit.warp).expect("same warps");
    let fastest = ws.iter().map(|r| r.cycles()).min().unwrap_or(0);
    let mean = ws.iter().map(|r| r.cycles() as f64).sum::<f64>() / ws.len() as f64;
    let nf = n.max(1) as f64;
    json!({
        "tb": {"launch": tb.0, "kernel": rr[tb.0].0, "cta": tb.1, "sm": crit.sm, "warps": ws.len()},
        "figure_3_3": {
            "critical_warp": crit.warp,
            "warp_cycles": ws.iter().map(|r| r.cycles()).collect::<Vec<_>>(),
            // The fastest warp idles (waits at the TB's end) for this share of the critical
            // warp's time.
            "max_idle_fraction": 1.0 - fastest as f64 / crit.cycles() as f64,
            // Equalised warps would all take the mean time.
            "ideal_speedup": crit.cycles() as f64 / mean,
            "mean_ideal_speedup": ideal / nf,
        },
        "figure_3_6": {
            "rr": {
                "critical_warp_cycles": crit.cycles(),
                "tb_cycles": tb_cycles(ws),
                "critical_warp_factors": factors_json(crit),
            },
            "caws_avg": {
                "critical_warp_cycles": other.cycles(),
                "tb_cycles": tb_cycles(os),
                "critical_warp_factors": factors_json(other),
            },
            "critical_warp_time_reduction": 1.0 - other.cycles() as f64 / crit.cycles() as f64,
            "tb_time_reduction": 1.0 - tb_cycles(os) as f64 / tb_cycles(ws) as f64,
            "mean_critical_warp_time_reduction": warp_red / nf,
            "mean_tb_time_reduction": tb_red / nf,
            "tbs": n,
        },
    })
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Sources of disparity under RR (spec 000 §4.1, claims 5 and 7), over the TBs of the
/// baseline: the fastest-to-slowest warp time gap (`1 - fastest / slowest`), the same for the
/// warps' issued instructions (the attribution's `exec` cycles, one per issued instruction),
/// the share of the critical (slowest) warp's time that RR's rotation added (`scheduling`), and
/// claim 6: of the L1D blocks the critical warps came back for (blocks the L1D had held), the
/// fraction evicted before that reuse (`l1d_reuse_lost / (lost + served)`, block counts summed
/// over the critical warps; the same over every warp for comparison).
pub fn disparity(rr: &[(String, Vec<Rec>)]) -> Value {
    let (mut gap, mut inst, mut sched) = (Vec::new(), Vec::new(), Vec::new());
    let (mut crit_lost, mut crit_reuses, mut all_lost, mut all_reuses) = (0u64, 0u64, 0u64, 0u64);
    for ws in by_tb(rr).values().filter(|w| w.len() >= 2) {
        let crit = ws
            .iter()
            .max_by_key(|r| (r.cycles(), std::cmp::Reverse(r.warp)))
            .expect("warps");
        crit_lost += crit.l1d_reuse_lost;
        crit_reuses += crit.l1d_reuse_lost + crit.l1d_reuse_served;
        for r in ws {
            all_lost += r.l1d_reuse_lost;
            all_reuses += r.l1d_reuse_lost + r.l1d_reuse_served;
        }
        let fastest = ws.iter().map(|r| r.cycles()).min().unwrap_or(0);
        gap.push(1.0 - fastest as f64 / crit.cycles() as f64);
        let exec = |r: &Rec| {
            r.latency
                .as_ref()
                .and_then(|l| l.get("exec").copied())
                .unwrap_or(0) as f64
        };
        let (lo, hi) = ws
            .iter()
            .map(|r| exec(r))
            .fold((f64::MAX, 0.0f64), |(a, b), x| (a.min(x), b.max(x)));
        if hi > 0.0 {
            inst.push(1.0 - lo / hi);
        }
        let sc = crit
            .latency
            .as_ref()
            .and_then(|l| l.get("scheduling").copied())
            .unwrap_or(0);
        sched.push(sc as f64 / crit.cycles() as f64);
    }
    let max = |v: &[f64]| v.iter().copied().fold(0.0f64, f64::max);
    json!({
        "tbs": gap.len(),
        "warp_time_gap_mean": mean_or_zero(&gap),
        "warp_time_gap_median": median(&mut gap.clone()),
        "inst_gap_mean": mean_or_zero(&inst),
        "inst_gap_median": median(&mut inst.clone()),
        "inst_gap_max": max(&inst),
        "critical_warp_scheduling_fraction_mean": mean_or_zero(&sched),
        "critical_warp_scheduling_fraction_max": max(&sched),
        "critical_warp_reuses": crit_reuses,
        "critical_warp_evicted_before_reuse_fraction": crit_lost as f64 / crit_reuses.max(1) as f64,
        "all_warps_evicted_before_reuse_fraction": all_lost as f64 / all_reuses.max(1) as f64,
    })
}

/// The experiment's JSON document for `workload` at `size` on `cfg`.
pub fn measure(workload: &str, size: Size, cfg: &GpuConfig, opts: &Options) -> Result<Value> {
    let (base, oracle) = baseline(workload, size, cfg, opts)?;
    let names: Vec<&str> = POLICIES
        .iter()
        .map(|p| p.0)
        .filter(|&n| n != "rr")
        .collect();
    let points = names
        .iter()
        .map(|n| Ok(Point::new(workload, size, policy_config(cfg, n, &oracle)?)))
        .collect::<Result<Vec<_>>>()?;
    let outs = batch::run(&points, opts)?;
    let rr_cycles = base.cycles() as f64;
    let rr_recs = records(&base.stats)?;
    let (mut cycles, mut speedup, mut inv, mut inv_n, mut boosted) = (
        serde_json::Map::new(),
        serde_json::Map::new(),
        serde_json::Map::new(),
        serde_json::Map::new(),
        serde_json::Map::new(),
    );
    cycles.insert("rr".into(), json!(base.cycles()));
    let mut avg_recs = None;
    for (n, o) in names.iter().zip(&outs) {
        cycles.insert(n.to_string(), json!(o.cycles()));
        speedup.insert(n.to_string(), json!(rr_cycles / o.cycles().max(1) as f64));
        if n.starts_with("caws") {
            let recs = records(&o.stats)?;
            let (i, t) = inversion(&recs);
            inv.insert(n.to_string(), json!(i as f64 / t.max(1) as f64));
            inv_n.insert(n.to_string(), json!(i));
            let b = recs
                .iter()
                .flat_map(|k| &k.1)
                .filter(|r| r.critical)
                .count();
            boosted.insert(n.to_string(), json!(b));
            if *n == "caws_avg" {
                avg_recs = Some(recs);
            }
        }
    }
    let tbs = by_tb(&rr_recs).values().filter(|w| w.len() >= 2).count();
    let figs = figures(&rr_recs, avg_recs.as_deref().unwrap_or(&[]));
    Ok(json!({
        "experiment": "caws",
        "table": "document 000 Table 3.3, Figures 3.3, 3.5, 3.6 (Lee 2017 §3.3-3.5)",
        "workload": workload,
        "size": size.name(),
        "config": cfg.name,
        "resets": {
            "critical": cfg.core.caws.reset_critical,
            "normal": cfg.core.caws.reset_normal,
            "fast": cfg.core.caws.reset_fast,
        },
        "oracle": oracle.display().to_string(),
        "cycles": cycles,
        "speedup": speedup,
        "inversion": inv,
        "inverted_tbs": inv_n,
        "tbs": tbs,
        "prioritised_warps": boosted,
        "warps": rr_recs.iter().map(|k| k.1.len()).sum::<usize>(),
        "disparity": disparity(&rr_recs),
        "figure_3_3": figs["figure_3_3"].clone(),
        "figure_3_6": figs["figure_3_6"].clone(),
        "example_tb": figs["tb"].clone(),
    }))
}

/// Table 3.3 / Figure 3.5 speed-ups and Figure 3.6 as SVG documents.
pub fn charts(doc: &Value) -> Result<(String, String)> {
    let names: Vec<String> = POLICIES
        .iter()
        .map(|p| p.0.to_string())
        .filter(|n| n != "rr")
        .collect();
    let vals: Vec<Vec<f64>> = names
        .iter()
        .map(|n| vec![doc["speedup"][n].as_f64().unwrap_or(0.0)])
        .collect();
    let speed = Chart {
        title: "Speed-up over RR (Table 3.3, Figure 3.5)",
        y_desc: "speed-up over RR",
        categories: &names,
        series: &["speed-up".to_string()],
        values: &vals,
        stacked: false,
        reference: Some(1.0),
    }
    .svg()?;
    let f = &doc["figure_3_6"];
    let cats = vec![
        "critical warp, RR".to_string(),
        "critical warp, CAWS-avg".to_string(),
    ];
    let series: Vec<String> = FACTORS.iter().map(|f| f.1.to_string()).collect();
    let vals: Vec<Vec<f64>> = ["rr", "caws_avg"]
        .iter()
        .map(|p| {
            FACTORS
                .iter()
                .map(|k| f[p]["critical_warp_factors"][k.0].as_f64().unwrap_or(0.0))
                .collect()
        })
        .collect();
    let title = format!(
        "Critical warp time (Figure 3.6); TB time {} -> {} cycles",
        f["rr"]["tb_cycles"], f["caws_avg"]["tb_cycles"]
    );
    let fig = Chart {
        title: &title,
        y_desc: "core cycles",
        categories: &cats,
        series: &series,
        values: &vals,
        stacked: true,
        reference: None,
    }
    .svg()?;
    Ok((speed, fig))
}

/// Runs `experiment caws`.
pub fn run(a: CawsArgs) -> Result<()> {
    let cfg = crate::cmd::config::resolve(Some(&a.config), &[], &a.set)?;
    crate::cmd::run::find_workload(&a.workload)?;
    let mut opts = Options::default();
    if let Some(j) = a.jobs {
        opts.jobs = j.max(1);
    }
    if a.no_cache {
        opts.cache = None;
    }
    let doc = measure(&a.workload, a.size, &cfg, &opts)?;
    let svgs = a.svg.as_ref().map(|_| charts(&doc)).transpose()?;
    write_atomic(&a.json, serde_json::to_string_pretty(&doc)?.as_bytes())?;
    if let (Some(dir), Some((s, f))) = (&a.svg, svgs) {
        write_atomic(&dir.join("caws_speedup.svg"), s.as_bytes())?;
        write_atomic(&dir.join("caws_fig3_6.svg"), f.as_bytes())?;
    }
    println!("{} ({}), over RR:", a.workload, a.size.name());
    for (n, _) in POLICIES.iter().skip(1) {
        let inv = doc["inversion"][n]
            .as_f64()
            .map_or(String::new(), |v| format!("  inversion {:.2}%", 100.0 * v));
        println!(
            "  {:<10} speed-up {:.3}{inv}",
            n,
            doc["speedup"][n].as_f64().unwrap_or(0.0)
        );
    }
    let d = &doc["disparity"];
    println!(
        "  RR disparity over {} TBs: warp time gap {:.1}% (median), instruction gap {:.1}% (median), RR scheduling up to {:.1}% of the critical warp's time",
        d["tbs"],
        100.0 * d["warp_time_gap_median"].as_f64().unwrap_or(0.0),
        100.0 * d["inst_gap_median"].as_f64().unwrap_or(0.0),
        100.0 * d["critical_warp_scheduling_fraction_max"].as_f64().unwrap_or(0.0)
    );
    let f = &doc["figure_3_6"];
    println!(
        "  example TB: critical warp {:.1}% faster, TB {:.1}% faster under CAWS-avg",
        100.0 * f["critical_warp_time_reduction"].as_f64().unwrap_or(0.0),
        100.0 * f["tb_time_reduction"].as_f64().unwrap_or(0.0)
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(cta: u32, warp: u32, cycles: u64, critical: bool) -> Rec {
        Rec {
            sm: 0,
            cta,
            warp,
            start: 10,
            end: 10 + cycles - 1,
            critical,
            latency: None,
            l1d_reuse_served: 0,
            l1d_reuse_lost: 0,
        }
    }

    /// Claim 6 counts the reuses of each TB's slowest warp only.
    #[test]
    fn evicted_before_reuse_is_over_the_critical_warps() {
        let mut a = rec(0, 0, 100, false);
        (a.l1d_reuse_served, a.l1d_reuse_lost) = (9, 1);
        let mut b = rec(0, 1, 120, false);
        (b.l1d_reuse_served, b.l1d_reuse_lost) = (1, 3);
        let mut c = rec(1, 0, 50, false);
        (c.l1d_reuse_served, c.l1d_reuse_lost) = (0, 4);
        let mut d = rec(1, 1, 40, false);
        (d.l1d_reuse_served, d.l1d_reuse_lost) = (2, 0);
        let v = disparity(&[("k".into(), vec![a, b, c, d])]);
        assert_eq!(v["critical_warp_reuses"].as_u64(), Some(8));
        assert_eq!(
            v["critical_warp_evicted_before_reuse_fraction"].as_f64(),
            Some(7.0 / 8.0)
        );
        assert_eq!(
            v["all_warps_evicted_before_reuse_fraction"].as_f64(),
            Some(8.0 / 20.0)
        );
    }

    #[test]
    fn inversion_counts_tbs_whose_boosted_warp_is_no_longer_the_slowest() {
        let launch = vec![
            // Boosted warp 1 is still the slowest: no inversion.
            rec(0, 0, 100, false),
            rec(0, 1, 120, true),
            // Boosted warp 0 finished first; warp 1 became critical: inversion.
            rec(1, 0, 90, true),
            rec(1, 1, 110, false),
            // Nothing boosted: no inversion.
            rec(2, 0, 90, false),
            rec(2, 1, 110, false),
            // A tie with the slowest counts as still critical.
            rec(3, 0, 110, true),
            rec(3, 1, 110, false),
            // A one-warp TB is not counted.
            rec(4, 0, 50, true),
        ];
        assert_eq!(inversion(&[("k".into(), launch)]), (1, 4));
    }

    /// The two passes on BFS at the tiny input: the oracle holds every warp of the baseline,
    /// CAWS-blk prioritises exactly one warp per TB, CAWS-avg only warps 20% above their TB's
    /// mean, and the JSON has the keys of the issue.
    #[test]
    fn two_pass_caws_on_bfs() {
        let dir = tempfile::tempdir().unwrap();
        let opts = Options {
            jobs: 2,
            cache: Some(dir.path().to_path_buf()),
            progress: false,
        };
        let cfg = GpuConfig::preset(DEFAULT_CONFIG).unwrap();
        let doc = measure("bfs", Size::Tiny, &cfg, &opts).unwrap();
        for p in ["caws_blk", "caws_sm", "caws_avg"] {
            let s = doc["speedup"][p].as_f64().unwrap();
            assert!(s > 0.5 && s < 2.0, "{p}: {s}");
            let i = doc["inversion"][p].as_f64().unwrap();
            assert!((0.0..=1.0).contains(&i), "{p}: {i}");
        }
        let tbs = doc["tbs"].as_u64().unwrap();
        assert!(tbs > 0);
        assert_eq!(doc["prioritised_warps"]["caws_blk"].as_u64(), Some(tbs));
        // The oracle file: every warp of the baseline run.
        let oracle = Oracle::load(doc["oracle"].as_str().unwrap()).unwrap();
        let n: usize = oracle
            .kernels
            .iter()
            .flat_map(|k| &k.ctas)
            .map(|c| c.len())
            .sum();
        assert_eq!(n as u64, doc["warps"].as_u64().unwrap());
        // CAWS-avg: a prioritised warp took > 1.2x its TB's mean in the oracle.
        let cfg_avg =
            policy_config(&cfg, "caws_avg", Path::new(doc["oracle"].as_str().unwrap())).unwrap();
        let out = batch::run(&[Point::new("bfs", Size::Tiny, cfg_avg)], &opts).unwrap();
        assert!(out[0].cached, "the experiment's run is reused");
        for (l, (_, recs)) in records(&out[0].stats).unwrap().iter().enumerate() {
            for r in recs.iter().filter(|r| r.critical) {
                let t = oracle.cta(l as u32, r.cta).unwrap();
                let mean = t.iter().sum::<u64>() as f64 / t.len() as f64;
                assert!(t[r.warp as usize] as f64 > 1.2 * mean);
            }
        }
        // Disparity: shares between 0 and 1 over every TB.
        let d = &doc["disparity"];
        assert_eq!(d["tbs"].as_u64(), Some(tbs));
        for k in [
            "warp_time_gap_mean",
            "inst_gap_mean",
            "critical_warp_scheduling_fraction_max",
        ] {
            assert!((0.0..1.0).contains(&d[k].as_f64().unwrap()), "{k}");
        }
        // Figures 3.3 and 3.6 describe one TB of the run.
        assert!(doc["figure_3_3"]["ideal_speedup"].as_f64().unwrap() >= 1.0);
        assert!(
            doc["figure_3_6"]["rr"]["critical_warp_cycles"]
                .as_u64()
                .unwrap()
                > 0
        );
        // A second run reuses the baseline and the oracle file.
        let again = oracle_for("bfs", Size::Tiny, &cfg, &opts).unwrap();
        assert_eq!(again.display().to_string(), doc["oracle"].as_str().unwrap());
        let svgs = charts(&doc).unwrap();
        assert!(svgs.0.contains("caws_avg") && svgs.1.contains("Data$"));
    }
}
