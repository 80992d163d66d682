//! `warpforge experiment cawa`: CAWA (Lee 2017 Chapter 4, spec 000 §4 and §7.2, claims 8-16)
//! on the timing model. Every (policy, workload) pair of Table 4.2 runs on `gtx480-cawa`
//! (Table 4.1: L1D 8 sets x 16 ways) through the parallel, cached [`super::batch`] runner; the
//! report holds the speed-ups over RR (Figure 4.10), the L1D MPKI (Figure 4.11), the CPL accuracy
//! (Figure 4.12), the critical-warp L1D hit-rate ratio (Figure 4.14) and the critical-ways
//! sensitivity (claim 16), as JSON and as SVG bar charts.
//!
//! Metric decisions (spec 000 §8.2): speed-up = RR's total cycles / the policy's (whole program,
//! every kernel); averages are geometric means; MPKI counts thread instructions; the CPL accuracy
//! is sampled every `cpl::SAMPLE_PERIOD` cycles under CAWA (the runs where CPL drives the
//! scheduler and the cache) and averaged over workloads; the critical-warp hit-rate ratio is
//! CAWA's L1D hit rate of loads by CPL-critical warps over RR's, averaged over the workloads
//! where RR's is not zero.
//!
//! CPL diagnostics of session 15 (issue #12): `cpl_accuracy_inst_term` and
//! `cpl_accuracy_stall_term` score each term of Eq. 4.1 alone on the same samples;
//! `cpl_rank_rho` (under the accuracy policy) and `cpl_rank_rho_rr` give, per part of the counter
//! (`counter`, `inst`, `stall`), the mean Spearman rho between the warps' final execution times
//! and their values at 25%, 50% and 75% of each TB's lifetime (`sim.cpl_rank`; not at the paper
//! size).
//!
//! Diagnostics (issue #12): `cpl_accuracy_spread` is the same accuracy over the TBs whose warp
//! execution times spread by at least 1% (`cpl::SPREAD_MIN_PPM`); `tb_warp_time_spread` (mean
//! (slowest - fastest) / slowest warp time per TB), `tb_spread_fraction` (TBs with such a
//! spread) and `tb_lifetime_cycles` (mean core cycles from a TB's first dispatch to its last
//! exit) are given per policy and workload.

use crate::cmd::report::charts as chart;

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{anyhow, bail, Context, Result};
use serde_json::{json, Map, Value};
use warpforge_timing::GpuConfig;
use warpforge_workloads::Size;

use super::batch::{self, Outcome, Point};
use super::stats::{geomean_positive, mean};
use crate::cmd::write_atomically;

/// Table 4.2, the 7 L1D-sensitive ("Sens") workloads (warpforge names; `sc` is SC_small).
pub const SENS: [&str; 7] = ["bfs", "bt", "htw", "kmn", "nw", "sr1", "sc"];
/// Table 4.2, the 5 non-sensitive workloads.
pub const NON_SENS: [&str; 5] = ["bp", "pf", "pth", "sc_mid", "tpf"];

/// A compared policy: name, warp scheduler, L1D replacement (`None`: the preset's).
pub(crate) struct Policy {
    pub(crate) name: &'static str,
    scheduler: &'static str,
    replacement: Option<&'static str>,
    about: &'static str,
}

/// The policies of Figures 4.10-4.16, in report order (`rr` is the baseline).
pub(crate) const POLICIES: &[Policy] = &[
    Policy {
        name: "rr",
        scheduler: "lrr",
        replacement: None,
        about: "loose round robin (baseline)",
    },
    Policy {
        name: "gto",
        scheduler: "gto",
        replacement: None,
        about: "greedy-then-oldest",
    },
    Policy {
        name: "two_level",
        scheduler: "two_level",
        replacement: None,
        about: "two-level active/pending pools",
    },
    Policy {
        name: "gcaws",
        scheduler: "gcaws",
        replacement: None,
        about: "greedy criticality-aware scheduler alone (CPL + gCAWS)",
    },
    Policy {
        name: "cacp_rr",
        scheduler: "lrr",
        replacement: Some("cacp"),
        about: "CACP L1D under RR",
    },
    Policy {
        name: "cacp_gto",
        scheduler: "gto",
        replacement: Some("cacp"),
        about: "CACP L1D under GTO",
    },
    Policy {
        name: "cacp_two_level",
        scheduler: "two_level",
        replacement: Some("cacp"),
        about: "CACP L1D under two-level",
    },
    Policy {
        name: "cawa",
        scheduler: "gcaws",
        replacement: Some("cacp"),
        about: "CAWA = CPL + gCAWS + CACP",
    },
    Policy {
        name: "caws_oracle",
        scheduler: "caws",
        replacement: None,
        about: "CAWS with oracle criticality (Chapter 3)",
    },
];

/// The L1D ceiling study: (name, scheduler, L1D change) runs on the Sens workloads, compared
/// with RR on the L1D as configured. `Capacity(4)` multiplies the L1D's sets by 4 (same ways and
/// line size, 4x the capacity); `Off` bypasses it (`l1d.insertion = bypass_all`). No cache or
/// scheduling policy is part of these runs: they bound what the policies can gain at the
/// workloads' input sizes.
pub(crate) const CEILING: [(&str, &str, L1dChange); 4] = [
    ("rr_l1d_4x", "lrr", L1dChange::Capacity(4)),
    ("gto_l1d_4x", "gto", L1dChange::Capacity(4)),
    ("rr_no_l1d", "lrr", L1dChange::Off),
    ("gto_no_l1d", "gto", L1dChange::Off),
];

/// How a ceiling run changes the L1D.
#[derive(Debug, Clone, Copy)]
pub(crate) enum L1dChange {
    /// This many times the sets (capacity).
    Capacity(u32),
    /// No L1D (every access bypasses it).
    Off,
}

/// The configuration of one [`CEILING`] run over `base`.
pub(crate) fn ceiling_config(
    base: &GpuConfig,
    (name, scheduler, change): (&str, &str, L1dChange),
) -> Result<GpuConfig> {
    let mut c = base.clone();
    let e = |e| anyhow!("ceiling `{name}`: {e}");
    c.set("core.scheduler", scheduler).map_err(e)?;
    match change {
        L1dChange::Capacity(k) => c
            .set("l1d.sets", &(base.l1d.sets * k).to_string())
            .map_err(e)?,
        L1dChange::Off => c.set("l1d.insertion", "bypass_all").map_err(e)?,
    }
    c.name = format!("{}+{name}", base.name);
    Ok(c)
}

/// Critical-way counts of the sensitivity study (claim 16), of the 16 ways.
const CRITICAL_WAYS: [u32; 3] = [4, 8, 12];

/// Arguments of `experiment cawa`.
#[derive(clap::Args)]
pub struct CawaArgs {
    /// Input size: tiny, small or paper.
    #[arg(long, default_value = "small")]
    size: Size,
    /// Write the report (JSON) to this file (atomically).
    #[arg(long)]
    json: PathBuf,
    /// Also write the SVG charts (speed-up and L1D MPKI bars) into this directory.
    #[arg(long)]
    svg: Option<PathBuf>,
    /// Policies (comma-separated; default: all). `rr` is always run as the baseline.
    #[arg(long, value_delimiter = ',')]
    policy: Vec<String>,
    /// Workloads (comma-separated; default: the 12 of Table 4.2).
    #[arg(long, value_delimiter = ',')]
    workload: Vec<String>,
    /// Base configuration (preset name or TOML file).
    #[arg(long, default_value = "gtx480-cawa")]
    config: String,
    /// Override a configuration key of every run (repeatable), e.g. `--set l1d.sets=16`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Simulations at once (default: one per core).
    #[arg(long)]
    jobs: Option<usize>,
    /// Do not read or write the simulation cache.
    #[arg(long)]
    no_cache: bool,
    /// Skip the L1D ceiling runs (RR and GTO with 4x the L1D and without it, Sens workloads).
    #[arg(long)]
    no_ceiling: bool,
    /// Skip the critical-ways sensitivity runs (CAWA with 4 and 12 critical ways, Sens
    /// workloads; claim 16): `critical_ways_sensitivity` is then null.
    #[arg(long)]
    no_ways: bool,
}

/// Picks the requested names from `known` (all when `asked` is empty); an unknown name is an
/// error listing the known ones.
fn select<'a>(what: &str, asked: &[String], known: &[&'a str]) -> Result<Vec<&'a str>> {
    if asked.is_empty() {
        return Ok(known.to_vec());
    }
    let mut out = Vec::new();
    for a in asked {
        let Some(k) = known.iter().find(|k| **k == a.as_str()) else {
            bail!("unknown {what} `{a}` (known: {})", known.join(", "));
        };
        if !out.contains(k) {
            out.push(*k);
        }
    }
    Ok(out)
}

/// The configuration of `policy` over `base`, or why it cannot run on this build.
pub(crate) fn policy_config(base: &GpuConfig, p: &Policy) -> Result<GpuConfig> {
    let mut c = base.clone();
    c.set("core.scheduler", p.scheduler)
        .map_err(|e| anyhow!("policy `{}`: {e}", p.name))?;
    if let Some(r) = p.replacement {
        c.set("l1d.replacement", r)
            .map_err(|e| anyhow!("policy `{}`: {e}", p.name))?;
    }
    c.name = format!("{}+{}", base.name, p.name);
    Ok(c)
}

fn num(o: &Outcome, path: &[&str]) -> f64 {
    let mut v = &o.stats["total"];
    for p in path {
        v = &v[*p];
    }
    v.as_f64().unwrap_or(0.0)
}

fn ratio(a: f64, b: f64) -> Option<f64> {
    (b > 0.0).then(|| a / b)
}

fn opt(v: Option<f64>) -> Value {
    v.map_or(Value::Null, |x| json!(x))
}

/// Runs the experiment.
pub fn run(a: CawaArgs) -> Result<()> {
    let names: Vec<&str> = POLICIES.iter().map(|p| p.name).collect();
    let all_wl: Vec<&str> = SENS.iter().chain(NON_SENS.iter()).copied().collect();
    let asked = select("policy", &a.policy, &names)?;
    // Report order, RR (the baseline, always run) first.
    let policies: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| *n == "rr" || asked.contains(n))
        .collect();
    let workloads = select("workload", &a.workload, &all_wl)?;
    if let Some(j) = a.jobs {
        if j == 0 {
            bail!("--jobs must be at least 1");
        }
    }
    let mut base = super::super::config::resolve(Some(&a.config), &[], &a.set)?;
    // Every run reports CPL's accuracy and the critical-warp L1D figures, whatever its
    // scheduler: CPL runs in all of them (under RR and GTO too, where no policy reads it).
    base.set("sim.cpl", "true")
        .map_err(|e| anyhow!("sim.cpl: {e}"))?;
    // CPL's rank-correlation diagnostic (`cpl_rank_rho*`), except at the paper size, where
    // holding every TB's samples until it finishes would cost too much memory.
    if a.size != Size::Paper {
        base.set("sim.cpl_rank", "true")
            .map_err(|e| anyhow!("sim.cpl_rank: {e}"))?;
    }

    // Which policies this build can run (the oracle CAWS scheduler may be absent).
    let mut missing: BTreeMap<&str, String> = BTreeMap::new();
    let mut configs: Vec<(&str, GpuConfig)> = Vec::new();
    let want_oracle = policies.contains(&"caws_oracle");
    for name in &policies {
        let p = POLICIES.iter().find(|p| p.name == *name).expect("selected");
        if p.name == "caws_oracle" {
            // Per workload: its oracle comes from a baseline pass (below).
            continue;
        }
        // With CAWS, the RR baseline also records every warp's time and latency attribution
        // (which change no cycle: timing test `recording_switches_do_not_change_timing`), so
        // the one RR run per workload is both the speed-up baseline and the oracle's source.
        let made = match policy_config(&base, p) {
            Ok(c) if p.name == "rr" && want_oracle => super::caws::baseline_config(&c),
            r => r,
        };
        match made {
            Ok(c) => configs.push((p.name, c)),
            Err(e) => {
                if p.name == "rr" {
                    return Err(e);
                }
                missing.insert(p.name, format!("{e:#}"));
            }
        }
    }
    // The critical-ways sensitivity reruns CAWA with 4 and 12 critical ways (8 is CAWA itself
    // when the base has the default split) on the Sens workloads.
    let cawa_cfg = configs
        .iter()
        .find(|(n, _)| *n == "cawa")
        .map(|(_, c)| c.clone());
    let sens_sel: Vec<&str> = workloads
        .iter()
        .copied()
        .filter(|w| SENS.contains(w))
        .collect();
    let mut ways_cfgs: Vec<(u32, GpuConfig)> = Vec::new();
    let base_ways = if base.l1d.critical_ways == 0 {
        base.l1d.ways / 2
    } else {
        base.l1d.critical_ways
    };
    if let Some(c) = cawa_cfg.as_ref().filter(|_| !a.no_ways) {
        // The base split is CAWA's own runs; only the other splits are simulated.
        for k in CRITICAL_WAYS.into_iter().filter(|k| *k != base_ways) {
            let mut ck = c.clone();
            ck.set("l1d.critical_ways", &k.to_string())
                .map_err(|e| anyhow!("critical ways {k}: {e}"))?;
            ck.name = format!("{}+ways{k}", c.name);
            if ck.validate().is_ok() {
                ways_cfgs.push((k, ck));
            }
        }
    }

    // The L1D ceiling (no CAWA mechanism): RR and GTO with 4x the L1D and without it.
    let mut ceil_cfgs: Vec<(&str, GpuConfig)> = Vec::new();
    if !a.no_ceiling {
        for c in CEILING {
            ceil_cfgs.push((c.0, ceiling_config(&base, c)?));
        }
    }

    let mut points = Vec::new();
    for (_, c) in &configs {
        for w in &workloads {
            points.push(Point::new(w, a.size, c.clone()));
        }
    }
    let n_main = points.len();
    let side = ways_cfgs
        .iter()
        .map(|(_, c)| c)
        .chain(ceil_cfgs.iter().map(|(_, c)| c));
    for c in side {
        for w in &sens_sel {
            points.push(Point::new(w, a.size, c.clone()));
        }
    }
    let opts = batch::Options {
        jobs: a.jobs.unwrap_or_else(batch::default_jobs),
        cache: if a.no_cache {
            None
        } else {
            batch::default_cache_dir()
        },
        progress: std::io::IsTerminal::is_terminal(&std::io::stderr()),
    };
    let out = batch::run(&points, &opts)?;
    let mut main: Vec<Outcome> = out[..n_main].to_vec();
    let ways_out = &out[n_main..];
    let ceil_out = &out[n_main + ways_cfgs.len() * sens_sel.len()..];
    // CAWS with oracle criticality (Chapter 3): the RR runs recorded every warp's execution
    // time per workload; their oracle files feed the `caws` scheduler (avg variant).
    if want_oracle {
        let dir = opts
            .cache
            .clone()
            .unwrap_or_else(|| std::env::temp_dir().join("warpforge-caws"));
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        let mut pts = Vec::new();
        for (i, w) in workloads.iter().enumerate() {
            let oracle = super::caws::oracle_of(&out[i].stats)?;
            let path = super::caws::save_oracle(&oracle, &dir, w, a.size)?;
            let mut c = super::caws::policy_config(&configs[0].1, "caws_avg", &path)?;
            c.name = format!("{}+caws_oracle", base.name);
            pts.push(Point::new(w, a.size, c));
        }
        main.extend(batch::run(&pts, &opts)?);
        configs.push(("caws_oracle", configs[0].1.clone()));
    }
    let nw = workloads.len();
    let get = |pi: usize, wi: usize| &main[pi * nw + wi];

    let mut report = Map::new();
    report.insert("experiment".into(), json!("cawa"));
    report.insert("size".into(), json!(a.size.name()));
    report.insert("config".into(), json!(base.name));
    report.insert("workloads".into(), json!(workloads));
    report.insert("sens".into(), json!(sens_sel));
    report.insert(
        "policies".into(),
        json!(configs.iter().map(|(n, _)| *n).collect::<Vec<_>>()),
    );
    let about: Map<String, Value> = POLICIES
        .iter()
        .map(|p| (p.name.to_string(), json!(p.about)))
        .collect();
    report.insert("policy_descriptions".into(), Value::Object(about));
    let rr_cycles: Vec<f64> = (0..nw).map(|wi| get(0, wi).cycles() as f64).collect();
    let (mut speedup, mut mpki, mut cycles) = (Map::new(), Map::new(), Map::new());
    let (mut gs, mut ga) = (Map::new(), Map::new());
    // Scheduler diagnostics (the baseline-scheduler comparison, EXPERIMENTS rows 8-10): L1D hit
    // rate, warps each scheduler issued from per 1,000 cycles, resident warps per SM.
    let (mut hit, mut spread, mut resident) = (Map::new(), Map::new(), Map::new());
    // Thread-block diagnostics (issue #12 task 3): the mean spread of a TB's warp execution
    // times ((slowest - fastest) / slowest), the fraction of TBs whose spread is at least 1%
    // (below it the oracle critical warp is noise), and the mean TB lifetime in core cycles
    // (first warp dispatched to last warp exited: how many TBs a scheduler keeps in progress).
    let (mut tb_spread, mut tb_real, mut tb_life) = (Map::new(), Map::new(), Map::new());
    for (pi, (name, cfg)) in configs.iter().enumerate() {
        let (mut s, mut m, mut cy) = (Map::new(), Map::new(), Map::new());
        let (mut h, mut sp_w, mut res) = (Map::new(), Map::new(), Map::new());
        let (mut ts, mut tr, mut tl) = (Map::new(), Map::new(), Map::new());
        for (wi, w) in workloads.iter().enumerate() {
            let o = get(pi, wi);
            let ctas = num(o, &["raw", "core", "ctas"]);
            ts.insert(
                (*w).into(),
                opt(ratio(num(o, &["raw", "core", "tb_spread_ppm"]) / 1e6, ctas)),
            );
            tr.insert(
                (*w).into(),
                opt(ratio(num(o, &["raw", "core", "tbs_spread"]), ctas)),
            );
            tl.insert(
                (*w).into(),
                opt(ratio(num(o, &["raw", "core", "tb_lifetime_cycles"]), ctas)),
            );
            h.insert((*w).into(), json!(num(o, &["l1d", "hit_rate"])));
            sp_w.insert(
                (*w).into(),
                opt(ratio(
                    num(o, &["raw", "core", "issuing_warps"]),
                    num(o, &["raw", "core", "issue_windows"]) * f64::from(cfg.core.schedulers),
                )),
            );
            res.insert(
                (*w).into(),
                opt(ratio(
                    num(o, &["raw", "core", "warp_cycles"]),
                    o.cycles() as f64 * f64::from(cfg.core.num_sms),
                )),
            );
        }
        hit.insert((*name).into(), Value::Object(h));
        tb_spread.insert((*name).into(), Value::Object(ts));
        tb_real.insert((*name).into(), Value::Object(tr));
        tb_life.insert((*name).into(), Value::Object(tl));
        spread.insert((*name).into(), Value::Object(sp_w));
        resident.insert((*name).into(), Value::Object(res));
        let (mut sv_sens, mut sv_all) = (Vec::new(), Vec::new());
        for (wi, w) in workloads.iter().enumerate() {
            let o = get(pi, wi);
            let sp = ratio(rr_cycles[wi], o.cycles() as f64);
            if let Some(x) = sp {
                sv_all.push(x);
                if SENS.contains(w) {
                    sv_sens.push(x);
                }
            }
            s.insert((*w).into(), opt(sp));
            m.insert((*w).into(), json!(num(o, &["l1d", "mpki"])));
            cy.insert((*w).into(), json!(o.cycles()));
        }
        speedup.insert((*name).into(), Value::Object(s));
        mpki.insert((*name).into(), Value::Object(m));
        cycles.insert((*name).into(), Value::Object(cy));
        gs.insert((*name).into(), opt(geomean_positive(&sv_sens)));
        ga.insert((*name).into(), opt(geomean_positive(&sv_all)));
    }
    report.insert("speedup".into(), Value::Object(speedup.clone()));
    report.insert("geomean_sens".into(), Value::Object(gs.clone()));
    report.insert("geomean_all".into(), Value::Object(ga.clone()));
    report.insert("l1d_mpki".into(), Value::Object(mpki.clone()));
    report.insert("cycles".into(), Value::Object(cycles));
    report.insert("l1d_hit_rate".into(), Value::Object(hit));
    report.insert("issuing_warps_per_scheduler".into(), Value::Object(spread));
    report.insert("resident_warps_per_sm".into(), Value::Object(resident));
    report.insert("tb_warp_time_spread".into(), Value::Object(tb_spread));
    report.insert("tb_spread_fraction".into(), Value::Object(tb_real));
    report.insert("tb_lifetime_cycles".into(), Value::Object(tb_life));

    // CPL accuracy and the critical-warp hit rates.
    let idx = |n: &str| configs.iter().position(|(c, _)| *c == n);
    let acc_of = |o: &Outcome| {
        ratio(
            num(o, &["raw", "core", "cpl_correct"]),
            num(o, &["raw", "core", "cpl_samples"]),
        )
    };
    let crit_hit = |o: &Outcome| {
        ratio(
            num(o, &["raw", "l1d", "critical_hits"]),
            num(o, &["raw", "l1d", "critical_accesses"]),
        )
    };
    let acc_policy = if idx("cawa").is_some() { "cawa" } else { "rr" };
    let ap = idx(acc_policy).expect("rr is always run");
    let mut acc_w = Map::new();
    let mut accs = Vec::new();
    for (wi, w) in workloads.iter().enumerate() {
        let x = acc_of(get(ap, wi));
        if let Some(x) = x {
            accs.push(x);
        }
        acc_w.insert((*w).into(), opt(x));
    }
    report.insert("cpl_accuracy".into(), opt(mean(&accs)));
    report.insert("cpl_accuracy_policy".into(), json!(acc_policy));
    report.insert("cpl_accuracy_per_workload".into(), Value::Object(acc_w));
    // `key` = the mean over the workloads of `of` under policy `pi`, and `key_per_workload`.
    let put = |report: &mut Map<String, Value>,
               key: &str,
               pi: usize,
               of: &dyn Fn(&Outcome) -> Option<f64>| {
        let (mut per_w, mut v) = (Map::new(), Vec::new());
        for (wi, w) in workloads.iter().enumerate() {
            let x = of(get(pi, wi));
            v.extend(x);
            per_w.insert((*w).into(), opt(x));
        }
        report.insert(key.into(), opt(mean(&v)));
        report.insert(format!("{key}_per_workload"), Value::Object(per_w));
    };
    // The same measurement under RR, where CPL only observes: under CAWA, gCAWS speeds up the
    // warps CPL ranks critical, which changes which warp finishes last.
    put(&mut report, "cpl_accuracy_rr", 0, &acc_of);
    // The same accuracy restricted to the TBs whose warps' execution times spread by at least
    // 1% (`cpl::SPREAD_MIN_PPM`): in the others the oracle critical warp is a matter of a few
    // cycles and one half is the expected score (issue #12 task 3). `cpl_accuracy` keeps
    // §8.2's definition over all TBs.
    let acc_spread = |o: &Outcome| {
        ratio(
            num(o, &["raw", "core", "cpl_correct_spread"]),
            num(o, &["raw", "core", "cpl_samples_spread"]),
        )
    };
    for (key, pi) in [("cpl_accuracy_spread", ap), ("cpl_accuracy_spread_rr", 0)] {
        put(&mut report, key, pi, &acc_spread);
    }
    // The inclusive reading of "slow" (`cpl::Marks`: the warp counts itself among its TB's
    // warps, which is what makes footnote 2's 100% for one- or two-warp TBs follow from the TB
    // size), and each reading's chance level: what a random ranking scores on the same samples.
    for (key, correct) in [
        ("cpl_accuracy_inclusive", "cpl_correct_inclusive"),
        ("cpl_accuracy_chance", "cpl_chance_ppm"),
        ("cpl_accuracy_inclusive_chance", "cpl_chance_inclusive_ppm"),
        // Each term of Eq. 4.1 alone, on the same samples (issue #12, session 15).
        ("cpl_accuracy_inst_term", "cpl_correct_inst"),
        ("cpl_accuracy_stall_term", "cpl_correct_stall"),
    ] {
        let scale = if correct.ends_with("_ppm") { 1e6 } else { 1.0 };
        let of = |o: &Outcome| {
            ratio(
                num(o, &["raw", "core", correct]) / scale,
                num(o, &["raw", "core", "cpl_samples"]),
            )
        };
        for (suffix, pi) in [("", ap), ("_rr", 0)] {
            put(&mut report, &format!("{key}{suffix}"), pi, &of);
        }
    }
    // Spearman's rho between the warps' final execution times and CPL's counter, and each term
    // of Eq. 4.1, at 25%, 50% and 75% of each TB's lifetime (`sim.cpl_rank`; TBs of at least 3
    // warps with a 1% spread of warp times): the mean over TBs per workload, and its mean over
    // the workloads that have such TBs.
    let parts = ["counter", "inst", "stall"];
    for (suffix, pi) in [("", ap), ("_rr", 0)] {
        let mut per_w = Map::new();
        let mut all = vec![Vec::new(); 9];
        for (wi, w) in workloads.iter().enumerate() {
            let o = get(pi, wi);
            let tbs = num(o, &["raw", "core", "cpl_rank_tbs"]);
            let mut by_part = Map::new();
            for (k, part) in parts.iter().enumerate() {
                let row: Vec<Value> = ["25", "50", "75"]
                    .iter()
                    .enumerate()
                    .map(|(q, pct)| {
                        let key = format!("cpl_rho_{part}_{pct}_ppm");
                        let r = ratio(num(o, &["raw", "core", &key]) / 1e6, tbs).map(|x| x - 1.0);
                        all[3 * k + q].extend(r);
                        opt(r)
                    })
                    .collect();
                by_part.insert((*part).into(), Value::Array(row));
            }
            by_part.insert("tbs".into(), json!(tbs));
            per_w.insert((*w).into(), Value::Object(by_part));
        }
        let mut means = Map::new();
        for (k, part) in parts.iter().enumerate() {
            let row: Vec<Value> = (0..3).map(|q| opt(mean(&all[3 * k + q]))).collect();
            means.insert((*part).into(), Value::Array(row));
        }
        report.insert(format!("cpl_rank_rho{suffix}"), Value::Object(means));
        report.insert(
            format!("cpl_rank_rho{suffix}_per_workload"),
            Value::Object(per_w),
        );
    }
    let mut rates = Map::new();
    for (pi, (name, _)) in configs.iter().enumerate() {
        let mut r = Map::new();
        for (wi, w) in workloads.iter().enumerate() {
            r.insert((*w).into(), opt(crit_hit(get(pi, wi))));
        }
        rates.insert((*name).into(), Value::Object(r));
    }
    report.insert("critical_warp_l1d_hit_rate".into(), Value::Object(rates));
    // Where CACP puts the lines and who hits them (rows 14-15 of docs/EXPERIMENTS.md): the
    // share of L1D load-miss fills placed in the critical partition, and the critical warps'
    // shares of the L1D load accesses and load hits (per policy and workload).
    let share = |o: &Outcome, part: &str, whole: &str| {
        ratio(
            num(o, &["raw", "l1d", part]),
            num(o, &["raw", "l1d", whole]),
        )
    };
    for (key, part, whole) in [
        ("critical_fill_fraction", "critical_fills", "fills"),
        (
            "critical_warp_access_fraction",
            "critical_accesses",
            "loads",
        ),
        ("critical_warp_hit_fraction", "critical_hits", "load_hits"),
    ] {
        let mut by_policy = Map::new();
        for (pi, (name, _)) in configs.iter().enumerate() {
            let mut r = Map::new();
            for (wi, w) in workloads.iter().enumerate() {
                r.insert((*w).into(), opt(share(get(pi, wi), part, whole)));
            }
            by_policy.insert((*name).into(), Value::Object(r));
        }
        report.insert(key.into(), Value::Object(by_policy));
    }
    if let Some(ci) = idx("cawa") {
        let mut per = Map::new();
        let mut v = Vec::new();
        for (wi, w) in workloads.iter().enumerate() {
            let x = match (crit_hit(get(ci, wi)), crit_hit(get(0, wi))) {
                (Some(c), Some(b)) => ratio(c, b),
                _ => None,
            };
            if let Some(x) = x {
                v.push(x);
            }
            per.insert((*w).into(), opt(x));
        }
        report.insert("critical_warp_l1d_hit_ratio".into(), opt(mean(&v)));
        report.insert(
            "critical_warp_l1d_hit_ratio_geomean".into(),
            opt(geomean_positive(&v)),
        );
        report.insert(
            "critical_warp_l1d_hit_ratio_per_workload".into(),
            Value::Object(per),
        );
    } else {
        report.insert("critical_warp_l1d_hit_ratio".into(), Value::Null);
    }
    let mut sens_ways = Map::new();
    if cawa_cfg.is_some() && !a.no_ways {
        sens_ways.insert(base_ways.to_string(), gs["cawa"].clone());
    }
    for (k, (kk, _)) in ways_cfgs.iter().enumerate() {
        let sp: Vec<f64> = sens_sel
            .iter()
            .enumerate()
            .filter_map(|(si, w)| {
                let wi = workloads.iter().position(|x| x == w).expect("selected");
                ratio(
                    rr_cycles[wi],
                    ways_out[k * sens_sel.len() + si].cycles() as f64,
                )
            })
            .collect();
        sens_ways.insert(kk.to_string(), opt(geomean_positive(&sp)));
    }
    report.insert(
        "critical_ways_sensitivity".into(),
        if sens_ways.is_empty() {
            Value::Null
        } else {
            Value::Object(sens_ways)
        },
    );
    // The L1D ceiling: speed-ups over RR on the L1D as configured, per Sens workload and their
    // geometric mean.
    let mut ceil = Map::new();
    for (k, (name, _)) in ceil_cfgs.iter().enumerate() {
        let (mut per, mut sp) = (Map::new(), Vec::new());
        for (si, w) in sens_sel.iter().enumerate() {
            let wi = workloads.iter().position(|x| x == w).expect("selected");
            let s = ratio(
                rr_cycles[wi],
                ceil_out[k * sens_sel.len() + si].cycles() as f64,
            );
            sp.extend(s);
            per.insert((*w).into(), opt(s));
        }
        per.insert("geomean_sens".into(), opt(geomean_positive(&sp)));
        ceil.insert((*name).into(), Value::Object(per));
    }
    report.insert(
        "l1d_ceiling_speedup".into(),
        if ceil.is_empty() {
            Value::Null
        } else {
            Value::Object(ceil)
        },
    );
    report.insert("missing".into(), json!(missing));
    // Simulation cost: every point's thread CPU time (of its original run when cached), per
    // workload and per policy, to show which points dominate the experiment's run time.
    let mut timed: Vec<(&str, String, &Outcome)> = Vec::new();
    for (pi, (name, _)) in configs.iter().enumerate() {
        for (wi, w) in workloads.iter().enumerate() {
            timed.push((w, name.to_string(), get(pi, wi)));
        }
    }
    for (k, (kk, _)) in ways_cfgs.iter().enumerate() {
        for (si, w) in sens_sel.iter().enumerate() {
            timed.push((
                w,
                format!("cawa_ways{kk}"),
                &ways_out[k * sens_sel.len() + si],
            ));
        }
    }
    for (k, (name, _)) in ceil_cfgs.iter().enumerate() {
        for (si, w) in sens_sel.iter().enumerate() {
            timed.push((
                w,
                format!("ceiling_{name}"),
                &ceil_out[k * sens_sel.len() + si],
            ));
        }
    }
    report.insert("cpu_s".into(), cpu_breakdown(&timed));
    let fresh = || timed.iter().filter(|t| !t.2.cached);
    report.insert(
        "simulated_cpu_s".into(),
        json!(fresh().map(|t| t.2.cpu_s).sum::<f64>()),
    );
    report.insert(
        "simulated_wall_s".into(),
        json!(fresh().map(|t| t.2.wall_s).sum::<f64>()),
    );

    let text = serde_json::to_string_pretty(&Value::Object(report.clone()))? + "\n";
    if let Some(dir) = &a.svg {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let pol: Vec<String> = configs
            .iter()
            .map(|(n, _)| n.to_string())
            .filter(|n| n != "rr")
            .collect();
        let mut groups: Vec<String> = workloads.iter().map(|w| w.to_string()).collect();
        groups.push("GM Sens".into());
        groups.push("GM All".into());
        let val = |m: &Map<String, Value>, p: &str, w: &str| m[p][w].as_f64();
        let values: Vec<Vec<Option<f64>>> = groups
            .iter()
            .map(|g| {
                pol.iter()
                    .map(|p| match g.as_str() {
                        "GM Sens" => gs[p].as_f64(),
                        "GM All" => ga[p].as_f64(),
                        w => val(&speedup, p, w),
                    })
                    .collect()
            })
            .collect();
        let svg = chart::bars(&chart::Bars {
            title: &format!(
                "CAWA speed-up over RR ({} inputs, {})",
                a.size.name(),
                base.name
            ),
            y_desc: "speed-up over RR",
            groups: &groups,
            series: &pol,
            values: &values,
            reference: Some(1.0),
        })?;
        write_atomically(&dir.join("cawa_speedup.svg"), svg.as_bytes())?;
        let allp: Vec<String> = configs.iter().map(|(n, _)| n.to_string()).collect();
        let values: Vec<Vec<Option<f64>>> = workloads
            .iter()
            .map(|w| allp.iter().map(|p| val(&mpki, p, w)).collect())
            .collect();
        let svg = chart::bars(&chart::Bars {
            title: &format!("L1D MPKI ({} inputs, {})", a.size.name(), base.name),
            y_desc: "L1D misses per 1000 thread instructions",
            groups: &groups[..workloads.len()],
            series: &allp,
            values: &values,
            reference: None,
        })?;
        write_atomically(&dir.join("cawa_l1d_mpki.svg"), svg.as_bytes())?;
    }
    write_atomically(&a.json, text.as_bytes())?;
    print!("{}", summary(&report));
    Ok(())
}

/// CPU seconds of the points `(workload, policy, outcome)`: `total`, `by_workload` and
/// `by_policy` (cached points count with their original run's time).
fn cpu_breakdown(timed: &[(&str, String, &Outcome)]) -> Value {
    let (mut by_w, mut by_p) = (
        BTreeMap::<String, f64>::new(),
        BTreeMap::<String, f64>::new(),
    );
    for (w, p, o) in timed {
        *by_w.entry(w.to_string()).or_default() += o.cpu_s;
        *by_p.entry(p.clone()).or_default() += o.cpu_s;
    }
    json!({
        "total": timed.iter().map(|t| t.2.cpu_s).sum::<f64>(),
        "points": timed.len(),
        "by_workload": by_w,
        "by_policy": by_p,
    })
}

/// A short table of the report for the terminal.
fn summary(r: &Map<String, Value>) -> String {
    let mut s = String::new();
    let f = |v: &Value| v.as_f64().map_or("-".to_string(), |x| format!("{x:.3}"));
    s.push_str("policy          GM Sens  GM All\n");
    if let Some(p) = r["policies"].as_array() {
        for p in p.iter().filter_map(|p| p.as_str()) {
            s.push_str(&format!(
                "{p:<15} {:>7}  {:>6}\n",
                f(&r["geomean_sens"][p]),
                f(&r["geomean_all"][p])
            ));
        }
    }
    s.push_str(&format!(
        "CPL accuracy {}   critical-warp L1D hit ratio {}   simulation CPU {} s\n",
        f(&r["cpl_accuracy"]),
        f(&r["critical_warp_l1d_hit_ratio"]),
        f(&r["cpu_s"]["total"])
    ));
    if let Some(c) = r["l1d_ceiling_speedup"].as_object() {
        for (k, v) in c {
            s.push_str(&format!(
                "L1D ceiling {k:<11} GM Sens {}\n",
                f(&v["geomean_sens"])
            ));
        }
    }
    if let Some(m) = r["missing"].as_object() {
        for (k, v) in m {
            s.push_str(&format!("missing: {k}: {}\n", v.as_str().unwrap_or("")));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_names_are_refused_with_the_known_ones() {
        let known = ["rr", "gto"];
        let e = select("policy", &["gto".into(), "fifo".into()], &known).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("`fifo`") && msg.contains("rr, gto"), "{msg}");
        assert_eq!(select("policy", &[], &known).unwrap(), vec!["rr", "gto"]);
        assert_eq!(
            select("policy", &["gto".into(), "gto".into()], &known).unwrap(),
            vec!["gto"]
        );
    }

    #[test]
    fn cpu_time_is_summed_per_workload_and_policy() {
        let o = |cpu_s: f64, cached: bool| Outcome {
            stats: json!({}),
            wall_s: 10.0 * cpu_s,
            cpu_s,
            cached,
        };
        let (a, b, c) = (o(1.5, false), o(2.0, true), o(4.0, false));
        let t = vec![
            ("kmn", "rr".to_string(), &a),
            ("kmn", "cawa".to_string(), &b),
            ("bfs", "cawa".to_string(), &c),
        ];
        let v = cpu_breakdown(&t);
        assert_eq!(v["total"], json!(7.5));
        assert_eq!(v["points"], json!(3));
        assert_eq!(v["by_workload"]["kmn"], json!(3.5));
        assert_eq!(v["by_workload"]["bfs"], json!(4.0));
        assert_eq!(v["by_policy"]["cawa"], json!(6.0));
        assert_eq!(v["by_policy"]["rr"], json!(1.5));
    }

    #[test]
    fn policies_map_to_registered_mechanisms() {
        let base = GpuConfig::preset("gtx480-cawa").unwrap();
        for p in POLICIES.iter().filter(|p| p.name != "caws_oracle") {
            let c = policy_config(&base, p).unwrap();
            c.validate().unwrap();
            assert_eq!(c.core.scheduler, p.scheduler);
        }
        // The ceiling runs change only the scheduler and the L1D's capacity or presence.
        for c in CEILING {
            let g = ceiling_config(&base, c).unwrap();
            g.validate().unwrap();
            assert_eq!(g.core.scheduler, c.1);
            assert_eq!(g.l1d.ways, base.l1d.ways);
            assert_eq!(g.l1d.replacement, base.l1d.replacement);
            match c.2 {
                L1dChange::Capacity(k) => {
                    assert_eq!(g.l1d.sets, k * base.l1d.sets);
                    assert_eq!(g.l1d.insertion, base.l1d.insertion);
                }
                L1dChange::Off => {
                    assert_eq!(g.l1d.sets, base.l1d.sets);
                    assert_eq!(g.l1d.insertion, "bypass_all");
                }
            }
        }
        let cawa = POLICIES.iter().find(|p| p.name == "cawa").unwrap();
        assert_eq!(policy_config(&base, cawa).unwrap().l1d.replacement, "cacp");
    }
}
