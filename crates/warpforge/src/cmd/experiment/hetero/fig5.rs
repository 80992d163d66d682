//! Fig. 5 of document 004 (spec 004 §1.4, claim 17): each GPGPU workload on the document's
//! 1C1G machine (one CPU core plus the GPU, FR-FCFS), its load/store PCs sorted by stall cycles
//! (the stall table's ranking, [`crit::stall_ranking`]).
//!
//! * Left: the share of the GPU's DRAM accesses (LLC misses attributed to the PC whose L1D miss
//!   caused them, [`warpforge_hetero::port::PcDram`]) of the top-n PCs, n = 1..8 and all.
//! * Right: the GPU speed-up (baseline GPU cycles / ideal GPU cycles) when the top-n PCs'
//!   accesses (n = 1, 2, 4) and all GPU accesses are made ideal in the LLC (spec 004 §1.3:
//!   non-compulsory misses charged the hit latency, not sent to DRAM). Two passes: the
//!   baseline run fixes the ranking, the ideal runs use it.
//!
//! The document does not name the co-runner: each workload runs with a high-MPKI one
//! (`bwaves`, §8.3's H group, the one co-runner Fig. 1 names for 1C1G) and a low-MPKI one
//! (`gcc`, the L group's lowest LLC intensity among our substitutes); `per_workload` is the
//! first's.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use anyhow::Result;
use serde_json::{json, Value};
use warpforge_hetero::crit;
use warpforge_hetero::port::IdealPcs;
use warpforge_hetero::HeteroConfig;
use warpforge_timing::GpuConfig;
use warpforge_workloads::Size;

use super::mixes::CpuApp;
use super::sim;

/// The co-runners of the 1C1G runs (high, then low LLC MPKI); the first is the reported one.
pub const CO_RUNNERS: [&str; 2] = ["bwaves", "gcc"];
/// Coverage is reported for the top n = 1..=`COVERAGE_N` PCs and all.
pub const COVERAGE_N: usize = 8;
/// The top-n PC sets made ideal (and "all").
pub const IDEAL_N: [usize; 3] = [1, 2, 4];

/// What Fig. 5 ran and measured, for the JSON.
pub struct Fig5 {
    /// The `fig5` block.
    pub json: Value,
    /// Summed seconds of its simulations.
    pub seconds: f64,
}

/// Runs `f` over `items` on `jobs` threads; results in the order of `items`.
fn par_map<T: Sync, R: Send>(jobs: usize, items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let out: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1).min(items.len()) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(t) = items.get(i) else { break };
                let r = f(t);
                *out[i].lock().expect("lock") = Some(r);
            });
        }
    });
    out.into_iter()
        .map(|m| m.into_inner().expect("lock").expect("every item ran"))
        .collect()
}

/// Spearman's rank correlation of the pairs (average ranks for ties,
/// [`warpforge_timing::core::cpl::spearman`]); NaN for fewer than 3 pairs or a constant side
/// (where that function gives 0).
pub fn spearman(pairs: &[(f64, f64)]) -> f64 {
    let x: Vec<f64> = pairs.iter().map(|p| p.0).collect();
    let y: Vec<f64> = pairs.iter().map(|p| p.1).collect();
    // A side is constant exactly when all its values tie (the ranks' test, `==`).
    let constant = |v: &[f64]| v.iter().all(|&a| a == v[0]);
    if pairs.len() < 3 || constant(&x) || constant(&y) {
        return f64::NAN;
    }
    warpforge_timing::core::cpl::spearman(&x, &y)
}

/// The DRAM accesses (reads served from DRAM plus stores that missed the LLC) of each tagged
/// PC of a run, and those of untagged requests.
pub fn dram_accesses(r: &sim::CoRun) -> (BTreeMap<u64, u64>, u64) {
    let mut by = BTreeMap::new();
    let mut none = 0;
    for (pc, k) in &r.dram_by_pc {
        match pc {
            Some(pc) => {
                by.insert(*pc, k.reads + k.store_misses);
            }
            None => none += k.reads + k.store_misses,
        }
    }
    (by, none)
}

/// Which ideal run: the top n PCs, or every GPU request.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Which {
    Top(usize),
    All,
}

impl Which {
    fn key(self) -> String {
        match self {
            Which::Top(n) => n.to_string(),
            Which::All => "all".to_string(),
        }
    }
}

/// Runs Fig. 5 for `workloads` at `size` on `hcfg` (an FR-FCFS machine) with `jobs` threads.
#[allow(clippy::too_many_arguments)]
pub fn run(
    workloads: &[String],
    size: Size,
    gcfg: &GpuConfig,
    hcfg: &HeteroConfig,
    warm: sim::Warmup,
    traces: &Path,
    jobs: usize,
) -> Result<Fig5> {
    let base_tasks: Vec<(usize, usize)> = (0..workloads.len())
        .flat_map(|w| (0..CO_RUNNERS.len()).map(move |c| (w, c)))
        .collect();
    let corun = |w: usize, c: usize, ideal: IdealPcs| -> Result<(sim::CoRun, f64)> {
        let t = Instant::now();
        let apps = [CpuApp::Spec(CO_RUNNERS[c].to_string())];
        let r = sim::corun(&workloads[w], size, gcfg, hcfg, &apps, warm, traces, ideal)?;
        Ok((r, t.elapsed().as_secs_f64()))
    };
    // Pass 1: the baseline runs fix each workload's ranking.
    let base: Vec<(sim::CoRun, f64)> =
        par_map(jobs, &base_tasks, |&(w, c)| corun(w, c, IdealPcs::Off))
            .into_iter()
            .collect::<Result<_>>()?;
    let rankings: Vec<Vec<u64>> = base
        .iter()
        .map(|(r, _)| crit::stall_ranking(&r.crit))
        .collect();
    // Pass 2: the ideal runs.
    let mut ideal_tasks = vec![];
    for (k, _) in base_tasks.iter().enumerate() {
        for n in IDEAL_N {
            ideal_tasks.push((k, Which::Top(n)));
        }
        ideal_tasks.push((k, Which::All));
    }
    let ideal: Vec<(sim::CoRun, f64)> = par_map(jobs, &ideal_tasks, |&(k, which)| {
        let (w, c) = base_tasks[k];
        let set = match which {
            Which::Top(n) => IdealPcs::Pcs(rankings[k].iter().take(n).copied().collect()),
            Which::All => IdealPcs::All,
        };
        corun(w, c, set)
    })
    .into_iter()
    .collect::<Result<_>>()?;
    let mut seconds: f64 = base.iter().map(|x| x.1).sum();
    seconds += ideal.iter().map(|x| x.1).sum::<f64>();
    let mut by_co: BTreeMap<&str, serde_json::Map<String, Value>> = BTreeMap::new();
    let mut pairs_by_co: BTreeMap<&str, Vec<Value>> = BTreeMap::new();
    let mut points_by_co: BTreeMap<&str, Vec<(f64, f64)>> = BTreeMap::new();
    for (k, &(w, c)) in base_tasks.iter().enumerate() {
        let (b, _) = &base[k];
        let ranking = &rankings[k];
        let (dram, untagged) = dram_accesses(b);
        let per = crit::per_pc(&b.crit);
        let mut cov = serde_json::Map::new();
        for n in 1..=COVERAGE_N {
            cov.insert(n.to_string(), json!(crit::dram_coverage(ranking, &dram, n)));
        }
        cov.insert(
            "all".into(),
            json!(crit::dram_coverage(ranking, &dram, usize::MAX)),
        );
        let mut speed = serde_json::Map::new();
        let mut cycles = serde_json::Map::new();
        let mut ideal_dram = serde_json::Map::new();
        cycles.insert("baseline".into(), json!(b.gpu_cycles));
        for (j, &(kk, which)) in ideal_tasks.iter().enumerate() {
            if kk != k {
                continue;
            }
            let r = &ideal[j].0;
            let s = b.gpu_cycles as f64 / r.gpu_cycles as f64;
            speed.insert(which.key(), json!(s));
            cycles.insert(which.key(), json!(r.gpu_cycles));
            ideal_dram.insert(which.key(), json!(r.gpu_dram_reads));
            let cv = match which {
                Which::Top(n) => crit::dram_coverage(ranking, &dram, n),
                Which::All => 1.0,
            };
            let co = CO_RUNNERS[c];
            pairs_by_co.entry(co).or_default().push(json!({
                "workload": workloads[w],
                "n": which.key(),
                "coverage": cv,
                "speedup": s,
            }));
            if let Which::Top(_) = which {
                points_by_co.entry(co).or_default().push((cv, s));
            }
        }
        let pcs: Vec<Value> = ranking
            .iter()
            .take(16)
            .map(|pc| {
                let (st, m) = per.get(pc).copied().unwrap_or_default();
                let d = b.dram_by_pc.get(&Some(*pc)).copied().unwrap_or_default();
                json!({
                    "pc": pc,
                    "stall_cycles": st,
                    "l1d_misses": m,
                    "dram_reads": d.reads,
                    "store_llc_misses": d.store_misses,
                })
            })
            .collect();
        let tagged_reads: u64 = b
            .dram_by_pc
            .iter()
            .filter(|(pc, _)| pc.is_some())
            .map(|(_, k)| k.reads)
            .sum();
        let all_reads: u64 = b.dram_by_pc.values().map(|k| k.reads).sum();
        by_co.entry(CO_RUNNERS[c]).or_default().insert(
            workloads[w].clone(),
            json!({
                "co_runner": CO_RUNNERS[c],
                "coverage_top_n": cov,
                "ideal_speedup": speed,
                "gpu_cycles": cycles,
                "ideal_gpu_dram_reads": ideal_dram,
                "pcs_ranked": ranking.len(),
                "pcs": pcs,
                "dram_accesses_tagged": dram.values().sum::<u64>(),
                "dram_accesses_untagged": untagged,
                "dram_reads_tagged": tagged_reads,
                "dram_reads_attributed": all_reads,
                "gpu_dram_reads": b.gpu_dram_reads,
                // With every request ideal only compulsory misses reach DRAM: their share of
                // the baseline's DRAM reads bounds what any ideal set can save.
                "compulsory_fraction": ideal_dram
                    .get("all")
                    .and_then(|x| x.as_u64())
                    .map(|x| x as f64 / b.gpu_dram_reads.max(1) as f64),
            }),
        );
    }
    let mut co_json = serde_json::Map::new();
    for (ci, co) in CO_RUNNERS.iter().enumerate() {
        let class = warpforge_hetero::cpu::synth::find(co).map(|a| format!("{:?}", a.class));
        co_json.insert(
            co.to_string(),
            json!({
                "class": class,
                "rank": ci,
                "per_workload": by_co.get(co).cloned().unwrap_or_default(),
                "pairs": pairs_by_co.get(co).cloned().unwrap_or_default(),
                "spearman_coverage_speedup_top_n":
                    spearman(points_by_co.get(co).map_or(&[][..], |v| &v[..])),
            }),
        );
    }
    let primary = CO_RUNNERS[0];
    Ok(Fig5 {
        json: json!({
            "definition": "spec 004 §1.4 Fig. 5 on the 1C1G machine (one CPU core, the GPU, \
                           FR-FCFS): PCs ranked by stall cycles (stall table, all SMs) in the \
                           baseline run; coverage_top_n = share of the GPU's DRAM accesses \
                           (LLC-missing reads, served from DRAM, plus LLC-missing stores) of the \
                           top n PCs, all = 1; ideal_speedup = baseline GPU cycles / GPU cycles \
                           with the top n PCs' requests (all: every GPU request) ideal in the \
                           LLC (spec §1.3); a fetch the GPU L2 merged for several PCs belongs to \
                           the first; untagged = instruction, constant and texture misses; \
                           per_workload = the co-runner `co_runner`'s; spearman over (coverage, \
                           speed-up) of n = 1, 2, 4",
            "co_runner": primary,
            "policy": "frfcfs",
            "cpu_cores": 1,
            "coverage_n": (1..=COVERAGE_N).collect::<Vec<_>>(),
            "ideal_n": IDEAL_N,
            "per_workload": by_co.get(primary).cloned().unwrap_or_default(),
            "co_runners": co_json,
            "document": "top 4 PCs cover almost all DRAM accesses except LBM and CFD; with all \
                         shader accesses ideal every application but BFS gains more than 10%; \
                         speed-up correlates with coverage",
            "seconds": seconds,
        }),
        seconds,
    })
}

/// The two panels of Fig. 5 as SVG: (coverage, speed-up).
pub fn svgs(f: &Value) -> Result<(String, String)> {
    let per = f["per_workload"].as_object().cloned().unwrap_or_default();
    let cats: Vec<String> = per.keys().cloned().collect();
    let cov_n = ["1", "2", "4", "8"];
    let cov_series: Vec<String> = cov_n.iter().map(|n| format!("T{n}PC")).collect();
    let cov: Vec<Vec<f64>> = per
        .values()
        .map(|w| {
            cov_n
                .iter()
                .map(|n| w["coverage_top_n"][n].as_f64().unwrap_or(f64::NAN))
                .collect()
        })
        .collect();
    let sp_n = ["1", "2", "4", "all"];
    let sp_series: Vec<String> = ["T1PC", "T2PC", "T4PC", "All"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let sp: Vec<Vec<f64>> = per
        .values()
        .map(|w| {
            sp_n.iter()
                .map(|n| w["ideal_speedup"][n].as_f64().unwrap_or(f64::NAN))
                .collect()
        })
        .collect();
    let title_l = format!(
        "Document 004 Fig. 5 left: GPU DRAM accesses of the top-n PCs by stall cycles (1C1G, {})",
        f["co_runner"].as_str().unwrap_or("?")
    );
    let left = super::super::chart::Chart {
        title: &title_l,
        y_desc: "share of the GPU's DRAM accesses",
        categories: &cats,
        series: &cov_series,
        values: &cov,
        stacked: false,
        reference: None,
    }
    .svg()?;
    let title_r = format!(
        "Document 004 Fig. 5 right: GPU speed-up, top-n PCs ideal in the LLC (1C1G, {})",
        f["co_runner"].as_str().unwrap_or("?")
    );
    let right = super::super::chart::Chart {
        title: &title_r,
        y_desc: "GPU speed-up over the baseline",
        categories: &cats,
        series: &sp_series,
        values: &sp,
        stacked: false,
        reference: Some(1.0),
    }
    .svg()?;
    Ok((left, right))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spearman_of_monotone_and_reversed_pairs() {
        let up = [(0.1, 1.0), (0.5, 1.2), (0.9, 1.5), (1.0, 1.6)];
        assert!((spearman(&up) - 1.0).abs() < 1e-12);
        let down: Vec<(f64, f64)> = up.iter().map(|&(a, b)| (a, -b)).collect();
        assert!((spearman(&down) + 1.0).abs() < 1e-12);
        assert!(spearman(&up[..2]).is_nan());
        assert!(spearman(&[(1.0, 1.0), (1.0, 2.0), (1.0, 3.0)]).is_nan());
        // Ties share the average rank.
        let tied = [(1.0, 1.0), (1.0, 1.0), (2.0, 2.0)];
        assert!((spearman(&tied) - 1.0).abs() < 1e-12);
    }
}
