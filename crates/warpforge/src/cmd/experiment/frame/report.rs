//! The JSON report, the summary line and the SVG charts of `experiment frame`.

use serde_json::{json, Map, Value};
use warpforge_gfx::mix::MixResult;
use warpforge_gfx::stream::{Category, Stream};
use warpforge_gfx::title::Title;

use super::plan::{Job, Kind, Outcome, Plan};
use crate::cmd::experiment::chart::Chart;
use crate::cmd::experiment::paired::{self, spread, Verdict};
use crate::cmd::experiment::stats::{geomean_positive, mean};

/// The built report.
pub struct Report {
    /// The JSON document.
    pub json: Value,
    titles: Vec<(String, f64, f64)>,
    ideal: Vec<(String, f64, f64)>,
    policies: Vec<(String, f64, Option<f64>)>,
}

/// Claim 4 (Fig. 9): the critical share of the GPU's DRAM accesses (reads served by DRAM).
fn critical_fraction(r: &MixResult) -> f64 {
    r.dram.total_critical() as f64 / r.dram.total().max(1) as f64
}

/// Claim 4 with Fig. 9's scope: the share of the GPU's DRAM reads whose unit Algorithm 1 had
/// flagged at issue, before the frame-rate gate (the document classifies every title in
/// Figs. 8-9, COR at 104 FPS included, so its 62% is not gated by the 40-FPS target).
fn critical_fraction_ungated(r: &MixResult) -> f64 {
    r.dram.marked.iter().sum::<u64>() as f64 / r.dram.total().max(1) as f64
}

/// Per stream: its share of the GPU's DRAM reads, and the critical (gated) and marked
/// (ungated) shares of its own reads (diagnostic of claim 4).
fn dram_reads_by_stream(r: &MixResult) -> Value {
    let d = &r.dram;
    let total = d.total().max(1) as f64;
    let mut m = Map::new();
    for s in Stream::ALL {
        let n = d.reads[s as usize];
        if n > 0 {
            m.insert(
                s.name().into(),
                json!({
                    "share": round(n as f64 / total),
                    "critical": round(d.critical[s as usize] as f64 / n as f64),
                    "marked": round(d.marked[s as usize] as f64 / n as f64),
                }),
            );
        }
    }
    Value::Object(m)
}

/// Unit names in `Unit as usize` order (JSON keys).
const UNITS: [&str; 5] = ["fe", "zs", "sh", "cw", "bt"];

/// Per pipeline unit (`UNITS` order), each count of `v` as a fraction of `n`.
fn per_unit(v: &[u64; 5], n: f64) -> Value {
    UNITS
        .iter()
        .zip(v)
        .map(|(u, x)| (u.to_string(), json!(round(*x as f64 / n))))
        .collect::<Map<String, Value>>()
        .into()
}

/// Algorithm 1's runs (diagnostic of claim 4): per unit, the share of the runs with each
/// classification bit set, with its bottleneck test reached, flagged, and whose walk stopped
/// there (the unit not underloaded); the share of runs in which Algorithm 2 fired.
fn algorithm(r: &MixResult) -> Value {
    let w = &r.walk;
    let n = w.runs.max(1) as f64;
    let per = |v: &[u64; 5]| per_unit(v, n);
    json!({
        "runs": w.runs,
        "io": per(&w.io),
        "ao": per(&w.ao),
        "th": per(&w.th),
        "examined": per(&w.examined),
        "flagged": per(&w.flagged),
        "stopped": per(&w.stopped),
        "fe_rule": round(w.fe_rule as f64 / n),
    })
}

/// The shader cores' context slots (session 25): mean quads resident per core, share of the
/// core-samples with every context occupied, share of the probes with quads waiting in the SH
/// queue.
fn sh_contexts(r: &MixResult) -> Value {
    let c = &r.sh_contexts;
    let n = c.samples.max(1) as f64;
    json!({
        "mean_resident": round(c.resident as f64 / n),
        "full": round(c.full as f64 / n),
        "queued": round(c.queued as f64 / c.probes.max(1) as f64),
    })
}

/// Each unit's states and throughput, and what keeps SH's queue empty (session 25, shfeed;
/// `warpforge_gfx::pipeline::probe::UnitStates`): per unit the shares of its instance-samples
/// busy / starved (input empty) / blocked (output queue full) / waiting for its own reads
/// (they sum to 1), and its completions over its peak (`throughput`, the `th_out` of section
/// 2.3 times the instances); `sh_feed`: the share of the probes with the SH queue empty
/// (`sh_starved`), the share of those attributed to each upstream cause (`causes`, summing to
/// 1), the share of each cause's probes in which Algorithm 1's bottleneck vector in force flags
/// the cause's unit (`cause_flagged`), the share with SH flagged (`sh_flagged`), and FE's and
/// the ZS instances' activity in those probes, and `joint`: those probes by FE's state and the
/// ZS instances' (`UnitStates::joint`).
fn unit_states(r: &MixResult) -> Value {
    use warpforge_gfx::pipeline::probe::Cause;
    let s = &r.unit_states;
    let mut m: Map<String, Value> = UNITS
        .iter()
        .enumerate()
        .map(|(u, name)| {
            let n = s.samples[u].max(1) as f64;
            let f = |x: u64| json!(round(x as f64 / n));
            let v = json!({
                "busy": f(s.busy[u]),
                "starved": f(s.starved[u]),
                "blocked": f(s.blocked[u]),
                "wait_read": f(s.wait_read[u]),
                "throughput": round(s.done[u] / s.peak[u].max(1e-9)),
                "done_per_cycle": round(s.done[u] / s.cycles.max(1) as f64),
                "peak_per_cycle": round(s.peak[u] / s.cycles.max(1) as f64),
            });
            (name.to_string(), v)
        })
        .collect();
    let n = s.sh_starved.max(1) as f64;
    let causes: Map<String, Value> = Cause::ALL
        .iter()
        .map(|&c| {
            (
                c.name().into(),
                json!(round(s.cause[c as usize] as f64 / n)),
            )
        })
        .collect();
    let flagged: Map<String, Value> = Cause::ALL
        .iter()
        .filter(|&&c| c.unit().is_some())
        .map(|&c| {
            let k = s.cause[c as usize].max(1) as f64;
            (
                c.name().into(),
                json!(round(s.cause_flagged[c as usize] as f64 / k)),
            )
        })
        .collect();
    const FE: [&str; 4] = ["fe_busy", "fe_starved", "fe_blocked", "fe_wait_read"];
    const ZS: [&str; 4] = ["zs_wait_read", "zs_blocked", "zs_busy", "zs_starved"];
    let joint: Map<String, Value> = FE
        .iter()
        .zip(&s.joint)
        .map(|(f, row)| {
            let v: Map<String, Value> = ZS
                .iter()
                .zip(row)
                .map(|(z, x)| (z.to_string(), json!(round(*x as f64 / n))))
                .collect();
            (f.to_string(), Value::Object(v))
        })
        .collect();
    m.insert(
        "sh_feed".into(),
        json!({
            "sh_starved": round(s.sh_starved as f64 / s.probes.max(1) as f64),
            "causes": causes,
            "cause_flagged": flagged,
            "sh_flagged": round(s.sh_flagged as f64 / n),
            "joint": joint,
            "fe": activity(&s.fe_when_starved),
            "zs": activity(&s.zs_when_starved),
        }),
    );
    let a = &s.fe_ahead;
    let per = |x: u64| json!(round(x as f64 / a.samples.max(1) as f64));
    let of_missing = |x: u64| json!(round(x as f64 / a.head_missing.max(1) as f64));
    m.insert(
        "fe_lookahead".into(),
        json!({
            "samples": a.samples,
            "head_missing": per(a.head_missing),
            "head_missing_draw_start": of_missing(a.head_missing_draw_start),
            "head_missing_next_queued": of_missing(a.head_missing_next_queued),
            "window_blocks": per(a.window),
            "present_blocks": per(a.present),
            "pending_blocks": per(a.pending),
            "missing_blocks": per(a.missing),
            "lead_blocks": per(a.lead),
            "window_cut": per(a.window_cut),
            "draw_blocks": per(a.draw_blocks),
            "reads_in_flight": per(a.in_flight),
        }),
    );
    Value::Object(m)
}

/// Sampled activity as fractions of the samples (diagnostic of claims 3-4).
fn activity(w: &warpforge_gfx::pipeline::probe::Waits) -> Value {
    let n = w.samples.max(1) as f64;
    let f = |x: u64| json!(round(x as f64 / n));
    json!({
        "busy": f(w.busy),
        "wait_critical": f(w.wait_critical),
        "wait_noncritical": f(w.wait_noncritical),
        "wait_both": f(w.wait_both),
        "wait_unsent": f(w.wait_unsent),
        "blocked": f(w.blocked),
    })
}

/// Each unit's sampled activity, and the whole GPU's (`gpu`).
fn unit_activity(r: &MixResult) -> Value {
    let mut m: Map<String, Value> = UNITS
        .iter()
        .zip(&r.waits)
        .map(|(u, w)| (u.to_string(), activity(w)))
        .collect();
    m.insert("gpu".into(), activity(&r.gpu_waits));
    // Per unit, the share of the samples in which the GPU stood still (nothing worked) while
    // one of the unit's instances waited for a non-critical / a critical read.
    let n = r.gpu_waits.samples.max(1) as f64;
    let per = |v: &[u64; 5]| per_unit(v, n);
    m.insert(
        "stalled_on".into(),
        json!({"noncritical": per(&r.stalls.noncritical), "critical": per(&r.stalls.critical)}),
    );
    Value::Object(m)
}

/// Per stream with DRAM reads, the mean DRAM latency (memory-side cycles) and the count of its
/// non-critical and critical reads (`MixResult::gpu_dram_latency_by_stream`).
fn latency_by_stream(r: &MixResult) -> Value {
    let m: Map<String, Value> = Stream::ALL
        .iter()
        .filter_map(|&s| {
            let [ng, cg] = r.gpu_dram_latency_by_stream[s as usize];
            (ng.1 + cg.1 > 0).then(|| {
                let v = json!({
                    "noncritical": round(ng.0), "noncritical_reads": ng.1,
                    "critical": round(cg.0), "critical_reads": cg.1,
                });
                (s.name().to_string(), v)
            })
        })
        .collect();
    Value::Object(m)
}

/// The mean FPS the frame-rate estimator predicted over the measured frames of `r` (its signed
/// error is the mean of predicted / measured FPS − 1).
fn predicted_fps(r: &MixResult) -> Option<f64> {
    r.estimate_error.map(|e| r.fps * (1.0 + e))
}

/// The critical share of all GPU accesses to the LLC (hits included).
fn critical_fraction_llc(r: &MixResult) -> f64 {
    r.counts.total_critical() as f64 / r.counts.total().max(1) as f64
}

/// A seed's (seed, FPS ratio, CPU weighted-speedup ratio, equal weight), geomeans over titles.
type SeedFigures = (u64, Option<f64>, Option<f64>, Option<f64>);

/// Per title of `titles` (those with every seed's ratio) the geomean over the seeds of `kind`
/// of `ratio_at(kind, title, seed)`; and per seed `{seed, gain, titles}` (the gain: geomean
/// over titles − 1).
fn over_seeds(
    plan: &Plan,
    kind: &Kind,
    titles: &[&str],
    ratio_at: &dyn Fn(&Kind, &str, u64) -> Option<f64>,
) -> (Vec<f64>, Vec<Value>) {
    let seeds = plan.seeds_of(kind);
    let mut per_seed: Vec<Vec<f64>> = vec![Vec::new(); seeds.len()];
    let mut per_title = Vec::new();
    for t in titles {
        let v: Vec<f64> = seeds.iter().filter_map(|&s| ratio_at(kind, t, s)).collect();
        if v.len() < seeds.len() {
            continue;
        }
        for (k, x) in v.iter().enumerate() {
            per_seed[k].push(*x);
        }
        per_title.extend(geomean_positive(&v));
    }
    let rows = seeds
        .iter()
        .zip(&per_seed)
        .map(|(s, v)| json!({"seed": s, "gain": opt(geomean_positive(v).map(|x| x - 1.0)), "titles": v.len()}))
        .collect();
    (per_title, rows)
}

fn round(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

fn opt(x: Option<f64>) -> Value {
    x.map_or(Value::Null, |v| json!(round(v)))
}

/// The DRAM side of a run as each requester saw it (diagnostic of claims 7-8, session 20):
/// bus utilisation, row-hit rate, the write drain's share of the channel cycles, and per class
/// the DRAM reads, their row-hit rate, the mean memory cycles they waited in front of
/// the controller and in its read queue, the mean DRAM cycles of write drain they sat through
/// in the queue, and the mean reads of each class (CG, NG, CPU) served while they were queued;
/// per class: `cg` and `ng` (the GPU's reads by their critical bit) and `cpu`.
fn dram_side(r: &MixResult) -> Value {
    let side = |w: &warpforge_hetero::mem::WaitStats| {
        let n = w.reads.max(1) as f64;
        json!({
            "reads": w.reads,
            "row_hit_rate": round(w.row_hits as f64 / n),
            "front": round(w.front_cycles as f64 / n),
            "queue": round(w.queue_cycles as f64 / n),
            "drain": round(w.drain_dram_cycles as f64 / n),
            "passed_by": {
                "cg": round(w.passed_by[0] as f64 / n),
                "ng": round(w.passed_by[1] as f64 / n),
                "cpu": round(w.passed_by[2] as f64 / n),
            },
        })
    };
    json!({
        "util": round(r.dram_util),
        "row_hits": round(r.dram_row_hits),
        "write_share": round(r.dram_write_share),
        "cg": side(&r.dram_wait[0]),
        "ng": side(&r.dram_wait[1]),
        "cpu": side(&r.dram_wait[2]),
    })
}

/// A run's purpose and policy as `failed_runs` names them.
fn variant(j: &Job) -> &'static str {
    match j.kind {
        Kind::Base => "base",
        Kind::IdealCritical => "ideal_critical",
        Kind::IdealNonCritical => "ideal_noncritical",
        Kind::RandomIm => "random_marking",
        Kind::Policy(_) => "policy",
        Kind::Llc8(_) => "llc_8mb",
    }
}

/// The runs that hit the frame cap (`RunOpts::max_frame_cycles` per frame) before finishing
/// their frames: a reported failure, left out of every mean (a 0-FPS run would otherwise drop
/// out of a geometric mean silently).
fn failed_runs(plan: &Plan, results: &[(Job, MixResult)]) -> Vec<Value> {
    results
        .iter()
        .filter(|(_, r)| !r.complete)
        .map(|(j, r)| {
            json!({
                "title": j.title.name,
                "mix": j.mix,
                "variant": variant(j),
                "policy": j.run.policy,
                "seed": j.seed,
                "llc_kb": j.run.llc_kb,
                "frames_done": r.frames_done,
                "frames_wanted": plan.opts.warmup + plan.opts.frames,
                "gpu_cycles": r.gpu_cycles,
                "max_frame_cycles": j.run.opts.max_frame_cycles,
            })
        })
        .collect()
}

/// Per seed of the plan, the geomean over the titles of `set` that both `x` and `y` have at
/// every seed: (x per seed, y per seed, the number of those titles); empty when no title has
/// both at every seed.
fn per_seed_pair(
    plan: &Plan,
    set: &[&Title],
    x: &dyn Fn(&Title, u64) -> Option<f64>,
    y: &dyn Fn(&Title, u64) -> Option<f64>,
) -> (Vec<f64>, Vec<f64>, usize) {
    let seeds = &plan.seeds.list;
    let common: Vec<&Title> = set
        .iter()
        .copied()
        .filter(|t| {
            seeds
                .iter()
                .all(|&s| x(t, s).is_some() && y(t, s).is_some())
        })
        .collect();
    if common.is_empty() {
        return (Vec::new(), Vec::new(), 0);
    }
    let over = |f: &dyn Fn(&Title, u64) -> Option<f64>, s: u64| {
        let v: Vec<f64> = common.iter().filter_map(|t| f(t, s)).collect();
        geomean_positive(&v).unwrap_or(f64::NAN)
    };
    let xs = seeds.iter().map(|&s| over(x, s)).collect();
    let ys = seeds.iter().map(|&s| over(y, s)).collect();
    (xs, ys, common.len())
}

/// The summary's line of the `paired` object (empty when it is null).
fn paired_summary(p: &Value) -> String {
    let line = |v: &Value| {
        format!(
            "{:+.4} [{:+.4}, {:+.4}] {}",
            v["mean"].as_f64().unwrap_or(f64::NAN),
            v["interval"][0].as_f64().unwrap_or(f64::NAN),
            v["interval"][1].as_f64().unwrap_or(f64::NAN),
            v["verdict"].as_str().unwrap_or("?")
        )
    };
    let mut out = String::new();
    let ew = &p["equal_weight"];
    if let Some(b) = ew["best_other"].as_str() {
        out += &format!(
            "\npaired over {} seeds (95%): IM - {b} equal weight {} (vs every other: {})",
            p["seeds"],
            line(&ew["versus"][b]),
            ew["verdict"].as_str().unwrap_or("?")
        );
    }
    if !p["marking"].is_null() {
        out += &format!(
            "\npaired over {} seeds (95%): algorithm - random marking FPS ratio {}",
            p["seeds"],
            line(&p["marking"])
        );
    }
    out
}

/// The policy whose equal weight claim 14 ranks first (the document's IM).
const CLAIM14_POLICY: &str = "im";

/// The `paired` object (README "Paired comparisons"; null with fewer than 2 seeds): per seed
/// of the plan the geomean over the titles of `set` (the evaluated titles) of each side, and
/// the paired comparison of the two series ([`paired::paired`], 95% Student-t interval of the
/// mean difference). `equal_weight`: IM against every other compared policy (`versus.<name>`;
/// `ew(policy, title, seed)` is the title's equal weight over FR-FCFS), `best_other` the one
/// with the highest mean, `verdict` `leads` if IM leads each of them, `trails` if it trails
/// one, else `undecided` (claim 14). `marking`: the algorithm's marking (IM's FPS ratio over
/// FR-FCFS) against random marking's (`fps(kind, title, seed)`, the HL mix; claim 5).
fn paired_comparisons(
    plan: &Plan,
    set: &[&Title],
    ew: &dyn Fn(&str, &Title, u64) -> Option<f64>,
    fps: &dyn Fn(&Kind, &Title, u64) -> Option<f64>,
) -> Value {
    if plan.seeds.list.len() < 2 {
        return Value::Null;
    }
    let im_planned = plan.policies.iter().any(|p| p == CLAIM14_POLICY);
    let im_ew = |t: &Title, s: u64| ew(CLAIM14_POLICY, t, s);
    let mut versus = Map::new();
    let mut best: Option<(String, f64)> = None;
    let mut verdicts = Vec::new();
    for q in plan
        .policies
        .iter()
        .filter(|p| im_planned && *p != CLAIM14_POLICY)
    {
        let (xs, ys, n) = per_seed_pair(plan, set, &im_ew, &|t, s| ew(q, t, s));
        let Some(p) = paired::paired(&xs, &ys) else {
            versus.insert(q.clone(), Value::Null);
            continue;
        };
        if best.as_ref().is_none_or(|b| p.y_mean > b.1) {
            best = Some((q.clone(), p.y_mean));
        }
        verdicts.push(p.verdict);
        let mut v = p.json(CLAIM14_POLICY, q);
        v["titles"] = json!(n);
        versus.insert(q.clone(), v);
    }
    let equal_weight = match best {
        Some((name, _)) => {
            let verdict = if verdicts.contains(&Verdict::Trails) {
                Verdict::Trails
            } else if verdicts.iter().all(|v| *v == Verdict::Leads) {
                Verdict::Leads
            } else {
                Verdict::Undecided
            };
            json!({
                "policy": CLAIM14_POLICY,
                "best_other": name,
                "verdict": verdict.name(),
                "versus": versus,
            })
        }
        None => Value::Null,
    };
    let alg = Kind::Policy(CLAIM14_POLICY.into());
    let (xs, ys, n) = per_seed_pair(plan, set, &|t, s| fps(&alg, t, s), &|t, s| {
        fps(&Kind::RandomIm, t, s)
    });
    let marking = match paired::paired(&xs, &ys) {
        Some(p) => {
            let mut v = p.json("algorithm", "random");
            v["titles"] = json!(n);
            v
        }
        None => Value::Null,
    };
    json!({
        "confidence": paired::CONFIDENCE,
        "seeds": plan.seeds.list.len(),
        "definition": "per seed, each side's geometric mean over the evaluated titles that both \
                       sides have at every seed; differences = policy - other per seed (a side \
                       without draws has the same figure at every seed); mean, std_error = sd / \
                       sqrt(n), interval = mean -/+ t(0.975, n-1) x std_error; verdict leads / \
                       trails / undecided: the interval above 0 / below 0 / containing 0. \
                       equal_weight (claim 14): IM's equal weight over FR-FCFS against each other \
                       compared policy's (versus.<name>; verdict leads only if it leads each, \
                       trails if it trails one); marking (claim 5): FPS ratio over FR-FCFS of \
                       IM with the algorithm's marking against IM with random marking (HL mix)",
        "equal_weight": equal_weight,
        "marking": marking,
    })
}

impl Report {
    /// Builds the report from the plan's results.
    pub fn build(plan: &Plan, out: &Outcome) -> Report {
        let results: &[(Job, MixResult)] = &out.runs;
        // Only runs that finished their frames: a run that hit the frame cap is listed in
        // `failed_runs` and counts as missing in every figure.
        // The run of `kind` standing for seed `seed` (`--seeds`; the one run of a kind
        // without draws stands for every seed).
        let job_at = |kind: &Kind, t: &str, mix: &str, seed: u64| {
            let seed = plan.run_seed(kind, seed);
            results.iter().find(|(j, r)| {
                &j.kind == kind && j.title.name == t && j.mix == mix && j.seed == seed && r.complete
            })
        };
        let s0 = plan.seeds.list[0];
        // The diagnostics of a run come from the first seed's.
        let job_of = |kind: &Kind, t: &str, mix: &str| job_at(kind, t, mix, s0);
        let find_mix = |kind: &Kind, t: &str, mix: &str| job_of(kind, t, mix).map(|(_, r)| r);
        // Per-title figures come from the HL mix.
        let find = |kind: &Kind, t: &str| find_mix(kind, t, "HL");
        // FPS ratio of `kind` over the baseline on title `t`'s HL mix, seed `seed`.
        let ratio_at = |kind: &Kind, t: &str, seed: u64| -> Option<f64> {
            let b = job_at(&Kind::Base, t, "HL", seed)?.1.fps;
            let r = job_at(kind, t, "HL", seed)?.1.fps;
            (b > 0.0).then(|| r / b)
        };
        let ratio = |kind: &Kind, t: &str| ratio_at(kind, t, s0);
        // Weighted speedup of a run: sum of shared IPC over alone IPC (section 8.5).
        let ws = |j: &Job, r: &MixResult| -> Option<f64> {
            if r.cpu_ipc.is_empty() {
                return None;
            }
            let mut sum = 0.0;
            for (a, ipc) in j.run.cpu.iter().zip(&r.cpu_ipc) {
                sum += ipc / out.alone(a, j.run.llc_kb).filter(|x| *x > 0.0)?;
            }
            Some(sum)
        };
        // Whether a run of `kind` (or of its `base`) on title `t` was planned and hit the cap.
        let failed = |kind: &Kind, base: &Kind, t: &str| {
            results.iter().any(|(j, r)| {
                (&j.kind == kind || &j.kind == base) && j.title.name == t && !r.complete
            })
        };
        // (FPS ratio, CPU weighted-speedup ratio) of `kind` over `base` with seed `seed`,
        // geomean over a title's mixes (the document's per-workload geometric mean over its
        // three mixes).
        let versus =
            |kind: &Kind, base: &Kind, t: &Title, seed: u64| -> Option<(f64, Option<f64>)> {
                let (mut f, mut c) = (Vec::new(), Vec::new());
                for (m, _) in plan.mixes_of(t) {
                    let (jb, b) = job_at(base, t.name, m, seed)?;
                    let (jr, r) = job_at(kind, t.name, m, seed)?;
                    if b.fps > 0.0 {
                        f.push(r.fps / b.fps);
                    }
                    if let (Some(x), Some(y)) = (ws(jr, r), ws(jb, b)) {
                        c.push(x / y);
                    }
                }
                Some((geomean_positive(&f)?, geomean_positive(&c)))
            };
        // Titles (claim 19), stream mix (Fig. 2), critical fraction (Fig. 9), estimator (Fig. 10).
        let mut titles = Map::new();
        let mut title_rows = Vec::new();
        let mut errors = Vec::new();
        let mut errors_plain = Vec::new();
        for t in &plan.titles {
            let Some(b) = find(&Kind::Base, t.name) else {
                continue;
            };
            let c = &b.counts;
            let total = c.total().max(1) as f64;
            let mut mix = Map::new();
            for cat in Category::ALL {
                let n: u64 = Stream::ALL
                    .iter()
                    .filter(|s| s.category() == cat)
                    .map(|&s| c.reads[s as usize] + c.writes[s as usize])
                    .sum();
                mix.insert(cat.name().into(), json!(round(n as f64 / total)));
            }
            // The stream mix of the GPU's DRAM reads (Fig. 2's categories).
            let d = &b.dram;
            let mut dram_mix = Map::new();
            for cat in Category::ALL {
                let n: u64 = Stream::ALL
                    .iter()
                    .filter(|s| s.category() == cat)
                    .map(|&s| d.reads[s as usize])
                    .sum();
                dram_mix.insert(
                    cat.name().into(),
                    json!(round(n as f64 / d.total().max(1) as f64)),
                );
            }
            let mut crit = Map::new();
            for s in Stream::ALL {
                let n = c.reads[s as usize] + c.writes[s as usize];
                if n > 0 {
                    crit.insert(
                        s.name().into(),
                        json!(round(c.critical[s as usize] as f64 / n as f64)),
                    );
                }
            }
            if let Some(e) = b.estimate_error {
                errors.push((t.name, e));
            }
            if let Some(e) = b.estimate_error_plain {
                errors_plain.push(e);
            }
            title_rows.push((t.name.to_string(), t.doc_fps, b.fps));
            titles.insert(
                t.name.into(),
                json!({
                    "fps": round(b.fps),
                    "doc_fps": t.doc_fps,
                    "below_target": t.below_target(),
                    "critical_fraction": round(critical_fraction(b)),
                    "critical_fraction_llc": round(critical_fraction_llc(b)),
                    "critical_fraction_ungated": round(critical_fraction_ungated(b)),
                    "dram_reads_by_stream": dram_reads_by_stream(b),
                    "algorithm": algorithm(b),
                    "unit_activity": unit_activity(b),
                    "sh_contexts": sh_contexts(b),
                    "unit_states": unit_states(b),
                    "dram_reads": b.dram.total(),
                    "dram_util": round(b.dram_util),
                    "dram_row_hits": round(b.dram_row_hits),
                    "dram_bank_busy": round(b.dram_bank_busy),
                    "dram": dram_side(b),
                    "raised_reads": b.raised_reads,
                    "gpu_dram_latency": {
                        "noncritical": round(b.gpu_dram_latency[0]),
                        "critical": round(b.gpu_dram_latency[1]),
                    },
                    "critical_fraction_by_stream": crit,
                    "bottleneck_share": {
                        "fe": round(b.bottleneck_share[0]),
                        "zs": round(b.bottleneck_share[1]),
                        "sh": round(b.bottleneck_share[2]),
                        "cw": round(b.bottleneck_share[3]),
                        "bt": round(b.bottleneck_share[4]),
                    },
                    "access_mix": mix,
                    "dram_read_mix": dram_mix,
                    "gate_share": round(b.gate_share),
                    "estimator_error": opt(b.estimate_error),
                    "predicted_fps": opt(predicted_fps(b)),
                    "estimator_error_plain": opt(b.estimate_error_plain),
                    "complete": b.complete,
                }),
            );
        }
        let low: Vec<&str> = plan.low().map(|t| t.name).collect();
        // Ideal LLC for the critical / non-critical accesses (claim 3, Fig. 8).
        let mut ideal_rows = Vec::new();
        let (mut ic, mut inc) = (Vec::new(), Vec::new());
        let mut per_title = Map::new();
        for &t in &low {
            let (Some(c), Some(n)) = (
                ratio(&Kind::IdealCritical, t),
                ratio(&Kind::IdealNonCritical, t),
            ) else {
                continue;
            };
            ic.push(c);
            inc.push(n);
            ideal_rows.push((t.to_string(), c - 1.0, n - 1.0));
            per_title.insert(
                t.into(),
                json!({"critical": round(c - 1.0), "noncritical": round(n - 1.0)}),
            );
        }
        let cf: Vec<f64> = low
            .iter()
            .filter_map(|t| find(&Kind::Base, t))
            .map(critical_fraction)
            .collect();
        let cf_ungated: Vec<f64> = low
            .iter()
            .filter_map(|t| find(&Kind::Base, t))
            .map(critical_fraction_ungated)
            .collect();
        let cf_all: Vec<f64> = plan
            .titles
            .iter()
            .filter_map(|t| find(&Kind::Base, t.name))
            .map(critical_fraction_ungated)
            .collect();
        // Claim 5: per title the geomean over seeds, and per seed over titles.
        let (random, random_seeds) = over_seeds(plan, &Kind::RandomIm, &low, &ratio_at);
        let (im_alg, im_alg_seeds) = over_seeds(plan, &Kind::Policy("im".into()), &low, &ratio_at);
        // Policies (claims 7-14): FPS and CPU weighted speedup over FR-FCFS, geomean over mixes
        // then over the evaluated titles; equal weight = sqrt(FPS ratio x CPU ratio).
        let low_titles: Vec<&Title> = plan.low().collect();
        let high_titles: Vec<&Title> = plan.titles.iter().filter(|t| !t.below_target()).collect();
        let summarize_over = |kind: &Kind, base: &Kind, set: &[&Title]| -> Value {
            let (mut f, mut c, mut e) = (Vec::new(), Vec::new(), Vec::new());
            let mut per_title = Map::new();
            let mut failed_titles = Vec::new();
            // The seeds of `kind` (its base's runs stand for each) and per seed the titles'
            // (FPS ratio, CPU ratio, equal weight).
            let seeds = plan.seeds_of(kind);
            let mut by_seed: Vec<(Vec<f64>, Vec<f64>, Vec<f64>)> =
                vec![Default::default(); seeds.len()];
            for t in set {
                if failed(kind, base, t.name) {
                    failed_titles.push(t.name);
                    per_title.insert(t.name.into(), json!({"failed": true}));
                    continue;
                }
                let vs: Vec<(u64, f64, Option<f64>)> = seeds
                    .iter()
                    .filter_map(|&s| versus(kind, base, t, s).map(|(fr, cr)| (s, fr, cr)))
                    .collect();
                if vs.len() < seeds.len() {
                    continue;
                }
                for (k, (_, fr, cr)) in vs.iter().enumerate() {
                    by_seed[k].0.push(*fr);
                    if let Some(cr) = cr {
                        by_seed[k].1.push(*cr);
                        by_seed[k].2.push((fr * cr).sqrt());
                    }
                }
                // Per title: the geomean over seeds of the mixes' geomean.
                let fr_s: Vec<f64> = vs.iter().map(|v| v.1).collect();
                let cr_s: Vec<f64> = vs.iter().filter_map(|v| v.2).collect();
                let cr = (cr_s.len() == vs.len())
                    .then(|| geomean_positive(&cr_s))
                    .flatten();
                if let Some(fr) = geomean_positive(&fr_s) {
                    f.push(fr);
                    if let Some(cr) = cr {
                        c.push(cr);
                        e.push((fr * cr).sqrt());
                    }
                    let title_seeds: Vec<Value> = vs
                        .iter()
                        .map(|(s, fr, cr)| {
                            json!({"seed": s, "fps_gain": round(fr - 1.0), "cpu_weighted_speedup": opt(*cr)})
                        })
                        .collect();
                    let run = find(kind, t.name);
                    let gate = run.map(|r| round(r.gate_share));
                    let base_gate = find(base, t.name).map(|r| round(r.gate_share));
                    // What the estimator told the policy (spec §2.6/§5.4: the GPU gets priority
                    // only while its predicted FPS is below target): the measured FPS of the
                    // HL run and the mean FPS the estimator predicted during it.
                    let (fps, predicted) = match run {
                        Some(r) => (opt(Some(r.fps)), opt(predicted_fps(r))),
                        None => (Value::Null, Value::Null),
                    };
                    let counters: Map<String, Value> = run
                        .map(|r| {
                            r.policy_counters
                                .iter()
                                .map(|(k, v)| (k.to_string(), json!(round(*v))))
                                .collect()
                        })
                        .unwrap_or_default();
                    per_title.insert(
                        t.name.into(),
                        json!({
                            "fps_gain": round(fr - 1.0),
                            "cpu_weighted_speedup": opt(cr),
                            "seeds": title_seeds,
                            "gate_share": gate,
                            "base_gate_share": base_gate,
                            "fps": fps,
                            "predicted_fps": predicted,
                            "critical_fraction": opt(run.map(critical_fraction)),
                            "dram_bank_busy": opt(run.map(|r| r.dram_bank_busy)),
                            "gpu_dram_latency": run.map(|r| json!({
                                "noncritical": round(r.gpu_dram_latency[0]),
                                "critical": round(r.gpu_dram_latency[1]),
                            })),
                            "read_latency": run.map(|r| json!({
                                "cpu": round(r.read_latency[0]),
                                "gpu": round(r.read_latency[1]),
                            })),
                            "llc_hit_rate": run.map(|r| json!({
                                "cpu": round(r.llc_hit_rate[0]),
                                "gpu": round(r.llc_hit_rate[1]),
                            })),
                            "policy_counters": counters,
                            "dram": run.map(dram_side),
                            "raised_reads": run.map(|r| r.raised_reads),
                            "gpu_activity": run.map(|r| activity(&r.gpu_waits)),
                            "unit_activity": run.map(unit_activity),
                            "unit_states": run.map(unit_states),
                            "gpu_dram_latency_by_stream": run.map(latency_by_stream),
                        }),
                    );
                }
            }
            let seed_rows: Vec<SeedFigures> = seeds
                .iter()
                .zip(&by_seed)
                .map(|(s, (f, c, e))| {
                    (
                        *s,
                        geomean_positive(f),
                        geomean_positive(c),
                        geomean_positive(e),
                    )
                })
                .collect();
            json!({
                "fps_gain": opt(geomean_positive(&f).map(|x| x - 1.0)),
                "cpu_weighted_speedup": opt(geomean_positive(&c)),
                "equal_weight": opt(geomean_positive(&e)),
                "seeds": seed_rows.iter().map(|(s, f, c, e)| json!({
                    "seed": s,
                    "fps_gain": opt(f.map(|x| x - 1.0)),
                    "cpu_weighted_speedup": opt(*c),
                    "equal_weight": opt(*e),
                })).collect::<Vec<Value>>(),
                "spread": {
                    "fps_gain": spread(seed_rows.iter().filter_map(|r| r.1.map(|x| x - 1.0)), round),
                    "cpu_weighted_speedup": spread(seed_rows.iter().filter_map(|r| r.2), round),
                    "equal_weight": spread(seed_rows.iter().filter_map(|r| r.3), round),
                },
                "titles": f.len(),
                "failed_titles": failed_titles,
                "per_title": per_title,
            })
        };
        let summarize = |kind: &Kind, base: &Kind| summarize_over(kind, base, &low_titles);
        let mut policies = Map::new();
        let mut policy_rows = Vec::new();
        for p in &plan.policies {
            let mut v = summarize(&Kind::Policy(p.clone()), &Kind::Base);
            policy_rows.push((
                p.clone(),
                v["fps_gain"].as_f64().unwrap_or(0.0),
                v["cpu_weighted_speedup"].as_f64(),
            ));
            if super::plan::ABOVE_TARGET_POLICIES.contains(&p.as_str()) && !high_titles.is_empty() {
                // Where the GPU meets its target (section 10.4 item 22): nothing is critical,
                // so IM ranks every GPU access below the CPU's and GPU-favoring is FR-FCFS.
                v["above_target"] =
                    summarize_over(&Kind::Policy(p.clone()), &Kind::Base, &high_titles);
            }
            policies.insert(p.clone(), v);
        }
        // 8 MB LLC (claim 15): IM over FR-FCFS, both at 8 MB.
        let llc8 = summarize(&Kind::Llc8("im".into()), &Kind::Llc8("frfcfs".into()));
        // Paired comparisons over the seeds (session 24): claims 14 and 5.
        let paired = paired_comparisons(
            plan,
            &low_titles,
            &|p: &str, t: &Title, s: u64| {
                let (fr, cr) = versus(&Kind::Policy(p.into()), &Kind::Base, t, s)?;
                Some((fr * cr?).sqrt())
            },
            &|kind: &Kind, t: &Title, s: u64| ratio_at(kind, t.name, s),
        );
        let mut mixes = Map::new();
        for t in &plan.titles {
            let m: Map<String, Value> = plan
                .mixes_of(t)
                .into_iter()
                .map(|(n, apps)| (n.to_string(), json!(apps)))
                .collect();
            mixes.insert(t.name.into(), Value::Object(m));
        }
        let alone: Map<String, Value> = out
            .alone
            .iter()
            .filter(|((_, l), _)| *l == 16384)
            .map(|((a, _), v)| (a.to_string(), json!(round(*v))))
            .collect();
        let mae = (!errors.is_empty())
            .then(|| errors.iter().map(|(_, e)| e.abs()).sum::<f64>() / errors.len() as f64);
        let max = errors
            .iter()
            .max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()))
            .map(|&(t, e)| json!({"title": t, "error": round(e)}));
        // Run time (not a statistic: depends on the machine and its load).
        let mut per_title_s = Map::new();
        for t in &plan.titles {
            let s: f64 = results
                .iter()
                .zip(&out.cpu_s)
                .filter(|((j, _), _)| j.title.name == t.name)
                .map(|(_, s)| s)
                .sum();
            per_title_s.insert(t.name.into(), json!((s * 10.0).round() / 10.0));
        }
        let total_s: f64 = out.cpu_s.iter().sum();
        let json = json!({
            "document": "004 (Rai & Chaudhuri 2017), 3D rendering: sections 2, 4, 8.1; claims 1-15, 19",
            "substitute": "synthetic per-title frame profiles on the warpforge_gfx pipeline model (no Attila traces)",
            "size": plan.size,
            "sets": plan.sets,
            "resolution_divisor": plan.opts.res_div,
            "frames": {"warmup": plan.opts.warmup, "measured": plan.opts.frames},
            "evaluated_titles": low,
            "titles": titles,
            "ideal_fps_gain": {
                "critical": opt(geomean_positive(&ic).map(|x| x - 1.0)),
                "noncritical": opt(geomean_positive(&inc).map(|x| x - 1.0)),
                "titles": ic.len(),
                "per_title": per_title,
            },
            "critical_fraction": opt(mean(&cf)),
            "critical_fraction_ungated": opt(mean(&cf_ungated)),
            "critical_fraction_all_titles": opt(mean(&cf_all)),
            "random_marking_gain": opt(geomean_positive(&random).map(|x| x - 1.0)),
            "random_marking_titles": random.len(),
            "random_marking_seeds": random_seeds,
            "algorithm_marking_gain": opt(geomean_positive(&im_alg).map(|x| x - 1.0)),
            "algorithm_marking_titles": im_alg.len(),
            "algorithm_marking_seeds": im_alg_seeds,
            "seeding": {
                "seeds": plan.seeds.list,
                "policies_drawing": plan.policies.iter().filter(|p| plan.draws(&Kind::Policy((*p).clone()))).collect::<Vec<_>>(),
                "definition": "the runs with random draws (a policy that draws: compared, above \
                               target, IM at 8 MB; random marking, whose marking draws use the same \
                               seed) run once per seed (policy.seed = each of `seeds`), the others \
                               once (the baseline's run stands for every seed); fps_gain, \
                               cpu_weighted_speedup, equal_weight, random_marking_gain and \
                               algorithm_marking_gain: per title the geometric mean over seeds x \
                               mixes, then over titles (= the geomean of the per-seed figures in \
                               `seeds`); `spread`: their min and max over seeds; per_title.<t> \
                               .fps_gain and .cpu_weighted_speedup: geomean over seeds, .seeds per \
                               seed; every other per-title figure is the first seed's HL run",
            },
            "estimator_mae": opt(mae),
            "estimator_max_error": max.unwrap_or(Value::Null),
            "estimator_mae_plain": opt((!errors_plain.is_empty()).then(|| {
                errors_plain.iter().map(|e: &f64| e.abs()).sum::<f64>() / errors_plain.len() as f64
            })),
            "policies": policies,
            "paired": paired,
            "llc_8mb": {"im": llc8},
            "failed_runs": failed_runs(plan, results),
            "mixes": mixes,
            "cpu_alone_ipc": alone,
            "run_time": {
                "runs": results.len(),
                "cpu_s": (total_s * 10.0).round() / 10.0,
                "cpu_s_per_title": per_title_s,
            },
        });
        Report {
            json,
            titles: title_rows,
            ideal: ideal_rows,
            policies: policy_rows,
        }
    }

    /// One line per headline figure, then a warning naming each run that hit the frame cap.
    pub fn summary(&self) -> String {
        let j = &self.json;
        let mut warn = String::new();
        if let Some(f) = j["failed_runs"].as_array().filter(|f| !f.is_empty()) {
            let runs: Vec<String> = f
                .iter()
                .map(|r| {
                    format!(
                        "{} {} {} {} seed {} ({} KB LLC, {} of {} frames in {} GPU cycles)",
                        r["title"].as_str().unwrap_or("?"),
                        r["mix"].as_str().unwrap_or("?"),
                        r["variant"].as_str().unwrap_or("?"),
                        r["policy"].as_str().unwrap_or("?"),
                        r["seed"],
                        r["llc_kb"],
                        r["frames_done"],
                        r["frames_wanted"],
                        r["gpu_cycles"]
                    )
                })
                .collect();
            warn = format!(
                "\nwarning: {} run(s) hit the frame cap and are left out of every mean (failed_runs): {}",
                runs.len(),
                runs.join("; ")
            );
        }
        format!(
            "ideal critical {} vs non-critical {}; critical fraction {}; random marking {} (algorithm {}); estimator MAE {} max {}",
            j["ideal_fps_gain"]["critical"],
            j["ideal_fps_gain"]["noncritical"],
            j["critical_fraction"],
            j["random_marking_gain"],
            j["algorithm_marking_gain"],
            j["estimator_mae"],
            j["estimator_max_error"]
        ) + &paired_summary(&j["paired"])
            + &warn
    }

    /// The SVG charts: (file name, document).
    pub fn charts(&self) -> anyhow::Result<Vec<(String, String)>> {
        let mut out = Vec::new();
        let cats: Vec<String> = self.titles.iter().map(|r| r.0.clone()).collect();
        let vals: Vec<Vec<f64>> = self.titles.iter().map(|r| vec![r.1, r.2]).collect();
        out.push((
            "frame_fps.svg".to_string(),
            Chart {
                title: "Baseline FPS per title (Table 2 vs. model, FR-FCFS)",
                y_desc: "frames per second",
                categories: &cats,
                series: &["document".to_string(), "model".to_string()],
                values: &vals,
                stacked: false,
                reference: Some(40.0),
            }
            .svg()?,
        ));
        let cats: Vec<String> = self.ideal.iter().map(|r| r.0.clone()).collect();
        let vals: Vec<Vec<f64>> = self
            .ideal
            .iter()
            .map(|r| vec![r.1.max(0.0), r.2.max(0.0)])
            .collect();
        out.push((
            "frame_ideal.svg".to_string(),
            Chart {
                title: "FPS gain with ideal LLC for critical / non-critical accesses (Fig. 8)",
                y_desc: "FPS gain (fraction)",
                categories: &cats,
                series: &["critical".to_string(), "non-critical".to_string()],
                values: &vals,
                stacked: false,
                reference: None,
            }
            .svg()?,
        ));
        let cats: Vec<String> = self.policies.iter().map(|r| r.0.clone()).collect();
        let vals: Vec<Vec<f64>> = self
            .policies
            .iter()
            .map(|r| vec![1.0 + r.1, r.2.unwrap_or(0.0)])
            .collect();
        out.push((
            "frame_policies.svg".to_string(),
            Chart {
                title: "FPS and CPU weighted speedup over FR-FCFS (Figs. 11, 13)",
                y_desc: "ratio over FR-FCFS",
                categories: &cats,
                series: &["FPS".to_string(), "CPU weighted speedup".to_string()],
                values: &vals,
                stacked: false,
                reference: Some(1.0),
            }
            .svg()?,
        ));
        Ok(out)
    }
}
