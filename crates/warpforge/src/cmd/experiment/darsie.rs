//! `warpforge experiment darsie` (document 003 Ch. 7, claims 23-31): DARSIE and its baselines
//! UV and DAC-IDEAL on the timing model, over the 2D-TB applications of Table 7.1 (and the 1D
//! ones the suite has), plus the redundancy limit study of §2.
//!
//! Every point is a timing simulation through [`super::batch`] (parallel, cached): each workload
//! on the base configuration with `core.elim.policy` = `none`, `darsie`, `uv`, `dac_ideal`.
//! Base: `qv100` with Table 7.2's Pascal shape (`core.num_sms = 28`, GTO schedulers; 64 warps,
//! 32 TBs, 4 schedulers, 96 KB shared and 64K registers per SM are qv100's already); `--set`
//! overrides apply on top.
//!
//! Reported (JSON keys; ratios are baseline/policy cycles, fractions are 0..1):
//! `speedup.<policy>.<workload>`, `geomean_2d.<policy>`, `geomean_1d.<policy>`,
//! `inst_reduction.<policy>` (1 - geomean over the 2D workloads of issued warp instructions
//! relative to the baseline; per workload under `inst_reduction_by_workload`),
//! `energy_change.<policy>` (2D geomean energy ratio - 1, negative = saved; the power model of
//! `crates/models` on each run's activity, minus the units of the instructions the policy
//! removed), `shared_loads_removed.mm` (the share of `mmt`'s dynamic shared loads DARSIE
//! skipped), `storage_bytes` (claim 30's area arithmetic for this configuration) and
//! `limit_study` (the §2 table per workload). Diagnosis and claims 28-29: `baseline_bound`
//! (what bounds each baseline run), `shared_bandwidth_saving` and `alu_inst_reduction` (2D,
//! DARSIE), and DARSIE's §5.6 variants IGNORE-STORE, NO-CF-SYNC and no-bank-conflicts on the
//! 2D workloads (`variant_speedup`, `variant_geomean_2d`, `variant_change`).

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};
use warpforge_models::activity::{simulated_power, SimActivity};
use warpforge_models::options::RegFileRow;
use warpforge_models::params;
use warpforge_models::power::{Unit, UnitCounts};
use warpforge_simt::record::{LaunchHook, LaunchRecord};
use warpforge_simt::Device;
use warpforge_timing::mem::carveout::ctas_per_sm;
use warpforge_timing::GpuConfig;
use warpforge_workloads::darsie::{TABLE_7_1_1D, TABLE_7_1_2D};
use warpforge_workloads::Size;

use super::batch::{self, Options, Point};
use super::chart::{write_atomic, Chart};
use crate::cmd::experiment::stats::{geomean_positive, mean};

/// The policies compared, baseline first.
pub(crate) const POLICIES: [&str; 4] = ["none", "darsie", "uv", "dac_ideal"];

/// Overrides of the base configuration before `--set` (the Table 7.2 machine: 28 SMs, GTO).
pub(crate) const BASE_SETS: [&str; 2] = ["core.num_sms=28", "core.scheduler=gto"];

/// The configuration of each policy of [`POLICIES`] over `base`, in that order.
pub(crate) fn policy_configs(base: &GpuConfig) -> Result<Vec<GpuConfig>> {
    POLICIES
        .iter()
        .map(|p| {
            let mut c = base.clone();
            c.set("core.elim.policy", p)
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            c.name = format!("{}+{p}", base.name);
            Ok(c)
        })
        .collect()
}

/// DARSIE's variants of §5.6 (claim 29), run on the 2D workloads: (label, key, value).
/// `darsie_no_wb_wait` is a diagnostic bound, not a document variant: followers do not wait for
/// their leader's write-back (what the LeaderWB waits cost).
const VARIANTS: [(&str, &str, &str); 4] = [
    ("darsie_ignore_store", "core.elim.ignore_stores", "true"),
    ("darsie_no_cf_sync", "core.elim.branch_sync", "false"),
    (
        "darsie_no_bank_conflicts",
        "core.elim.rename_banks",
        "false",
    ),
    ("darsie_no_wb_wait", "core.elim.leader_wb_wait", "false"),
];

/// Arguments of `experiment darsie`.
#[derive(clap::Args)]
pub struct DarsieArgs {
    /// Input size: tiny, small, fill or paper. `fill` (the default) is DARSIE's operating point:
    /// each 2D input scaled until every launch fills the 28-SM GPU at least twice.
    #[arg(long, default_value = "fill")]
    size: Size,
    /// Write the report (JSON) to this file (atomically).
    #[arg(long)]
    json: PathBuf,
    /// Also write SVG charts (speed-up, instruction reduction, energy) into this directory.
    #[arg(long)]
    svg: Option<PathBuf>,
    /// Workloads (comma-separated; default: the 2D and 1D Table 7.1 applications in the suite).
    #[arg(long, value_delimiter = ',')]
    workload: Vec<String>,
    /// Base configuration (preset name or TOML file).
    #[arg(long, default_value = "qv100")]
    config: String,
    /// Override a configuration key of every run (repeatable), e.g. `--set core.elim.skip_entries=4`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Power-model parameter set for the energy figures.
    #[arg(long, default_value = "gtx480")]
    power_params: String,
    /// Simulations at once (default: one per core).
    #[arg(long)]
    jobs: Option<usize>,
    /// Do not read or write the simulation cache.
    #[arg(long)]
    no_cache: bool,
    /// Skip the §5.6 DARSIE variants (and the LeaderWB diagnostic bound): 4 policies only.
    #[arg(long)]
    no_variants: bool,
}

/// Claim 30's storage arithmetic (document 003 §7.7.4) for `entries_per_tb` skip-table entries,
/// `tbs` resident TBs per SM, `warps_per_tb` majority-mask bits and `rename_per_tb` rename
/// entries: (skip table, majority mask, rename/version tables) in bits.
pub fn storage_bits(
    entries_per_tb: u64,
    tbs: u64,
    warps_per_tb: u64,
    rename_per_tb: u64,
) -> (u64, u64, u64) {
    // 48-bit PC + warp mask + IsLoad + LeaderWB.
    let entry = 48 + warps_per_tb + 1 + 1;
    // 8-bit named register + 8-bit physical tag + 5-bit version.
    let rename = 8 + 8 + 5;
    (
        entry * entries_per_tb * tbs,
        warps_per_tb * tbs,
        rename * rename_per_tb * tbs,
    )
}

/// `a / b`, 0 when `b` is 0.
fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

fn u(v: &Value, path: &[&str]) -> u64 {
    let mut x = v;
    for p in path {
        x = &x[*p];
    }
    x.as_u64().unwrap_or(0)
}

/// The instruction-side units a policy removed in one launch (timing counters `elim_*`).
fn eliminated_units(k: &Value) -> UnitCounts {
    let c = |f: &str| u(k, &["raw", "core", f]) as f64;
    let mut e = UnitCounts::default();
    for (unit, f) in [
        (Unit::Int, "elim_int"),
        (Unit::Fp, "elim_fp"),
        (Unit::Sfu, "elim_sfu"),
        (Unit::Alu, "elim_alu"),
        (Unit::Shared, "elim_shared"),
        (Unit::GlobalMem, "elim_global"),
        (Unit::ConstCache, "elim_const"),
        (Unit::Reg, "elim_reg"),
        (Unit::Fds, "elim_fds"),
    ] {
        e.add(unit, c(f));
    }
    e
}

/// Energy (J) of a run: per launch, the functional unit counts minus what the policy removed,
/// with the run's own cycles and memory-side counters.
fn energy(
    dev: &params::DeviceParams,
    cfg: &GpuConfig,
    launches: &[warpforge_models::activity::LaunchUnits],
    stats: &Value,
) -> Option<f64> {
    let kernels = stats["kernels"].as_array()?;
    if kernels.len() != launches.len() {
        return None;
    }
    let machine = crate::cmd::run::sim_machine(cfg);
    let mut total = 0.0;
    for (l, k) in launches.iter().zip(kernels) {
        let elim = eliminated_units(k);
        let mut units = l.units;
        for unit in Unit::ALL {
            let v = (units.get(unit) - elim.get(unit)).max(0.0);
            units.add(unit, v - units.get(unit));
        }
        let act = SimActivity {
            units,
            blocks: l.blocks,
            cycles: u(k, &["cycles"]),
            l1_accesses: u(k, &["l1d", "accesses"]),
            l2_accesses: u(k, &["l2", "accesses"]),
            dram_accesses: u(k, &["dram", "reads"]) + u(k, &["dram", "writes"]),
        };
        total += simulated_power(dev, machine, &act)?.energy_j;
    }
    Some(total)
}

/// Shares of a run's issue-stall scheduler-cycles per reason (`stats.total.stalls`), plus
/// `issued`: the share of scheduler-cycles that issued (all reasons and issues sum to 1).
fn stall_shares(o: &batch::Outcome) -> Value {
    let s = &o.stats["total"]["stalls"];
    let issued = u(&o.stats, &["total", "warp_insts"]) as f64;
    let mut total = issued;
    if let Some(m) = s.as_object() {
        total += m.values().filter_map(Value::as_f64).sum::<f64>();
    }
    let mut out = serde_json::Map::new();
    if total > 0.0 {
        out.insert("issued".into(), json!(issued / total));
        if let Some(m) = s.as_object() {
            for (k, v) in m {
                out.insert(k.clone(), json!(v.as_f64().unwrap_or(0.0) / total));
            }
        }
    }
    Value::Object(out)
}

/// The product of a kernel's `grid` or `block` shape (written "(x,y,z)"), at least 1.
fn grid_dim(k: &Value, d: &str) -> f64 {
    k[d].as_str()
        .unwrap_or("")
        .trim_matches(|c| c == '(' || c == ')')
        .split(',')
        .filter_map(|x| x.trim().parse::<f64>().ok())
        .product::<f64>()
        .max(1.0)
}

/// Core cycles of a run before each launch's first CTA (`core.launch_latency`, plus
/// `core.cta_launch_latency` per CTA): the same under every policy, so they bound a run's
/// speed-up when its kernels are short.
fn launch_cycles(o: &batch::Outcome, cfg: &GpuConfig) -> f64 {
    o.stats["kernels"].as_array().map_or(0.0, |ks| {
        ks.iter()
            .map(|k| {
                cfg.core.launch_latency as f64
                    + grid_dim(k, "grid") * cfg.core.cta_launch_latency as f64
            })
            .sum()
    })
}

/// What bounds a baseline run (document 003 §5.7: DARSIE helps issue/fetch-bound kernels):
/// its stall shares, its warp instructions per SM-cycle out of the fetch and issue limits
/// (`fetch_per_cycle` x `ibuffer_entries`, `schedulers`), and how many of the GPU's CTA
/// slots its grid fills (warp and CTA limits only; `waves` < 1: some SMs idle; a fractional
/// last wave: a tail).
fn bound(o: &batch::Outcome, cfg: &GpuConfig) -> Value {
    let cycles = o.cycles().max(1) as f64;
    let sms = cfg.core.num_sms as f64;
    let ipc = u(&o.stats, &["total", "warp_insts"]) as f64 / cycles / sms;
    let k = &o.stats["kernels"][0];
    let dim = |d: &str| grid_dim(k, d);
    let (ctas, threads) = (dim("grid"), dim("block"));
    let warps_per_cta = (threads / 32.0).ceil().max(1.0);
    let per_sm = (cfg.core.max_warps as f64 / warps_per_cta)
        .floor()
        .min(cfg.core.max_ctas as f64)
        .max(1.0);
    let launches = o.stats["kernels"].as_array().map_or(0, |v| v.len());
    json!({
        "ipc_per_sm": ipc,
        "issue_limit": cfg.core.schedulers,
        "fetch_limit": cfg.core.fetch_per_cycle * cfg.core.ibuffer_entries,
        "first_kernel_waves": ctas / (per_sm * sms),
        "first_kernel_ctas_per_sm": ctas / sms,
        "resident_ctas_per_sm": per_sm,
        "launches": launches,
        "launch_latency_fraction": (launch_cycles(o, cfg) / cycles).min(1.0),
        "stall_shares": stall_shares(o),
    })
}

/// The launches of a functional run, seen by a [`LaunchHook`]: per launch (kernel, CTAs, CTAs
/// an SM of `cfg` holds by warps, registers, shared memory and the CTA limit — the timing
/// model's own [`ctas_per_sm`]).
struct Occupancy {
    cfg: GpuConfig,
    launches: Vec<(String, u64, u32)>,
}

impl LaunchHook for Occupancy {
    fn before_launch(&mut self, dev: &Device, l: &LaunchRecord<'_>) {
        let per_sm = dev
            .kernel_info(l.module, l.kernel, l.cfg)
            .map_or(1, |k| ctas_per_sm(&self.cfg, &k));
        self.launches
            .push((l.kernel.to_string(), l.cfg.grid.size(), per_sm));
    }
    fn after_launch(&mut self, _: &Device) {}
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

/// Waves of a launch of `ctas` CTAs on `sms` SMs that hold `per_sm` each: the CTA slots of the
/// GPU it fills (< 1: some SMs idle throughout; the operating-point rule wants >= 2).
pub fn waves(ctas: u64, sms: u32, per_sm: u32) -> f64 {
    ctas as f64 / (sms.max(1) as f64 * per_sm.max(1) as f64)
}

/// Core cycles of one launch in which at least half of the `sms` SMs held a warp, from its
/// `warp_times` records (`sim.warp_times`: SM, dispatch and retirement cycle of every warp).
/// An SM is busy from the dispatch to the retirement of any of its warps.
pub fn half_busy_cycles(warps: &[(usize, u64, u64)], sms: usize) -> u64 {
    let mut per_sm: Vec<Vec<(u64, u64)>> = vec![Vec::new(); sms.max(1)];
    for &(sm, start, end) in warps {
        if let Some(v) = per_sm.get_mut(sm) {
            v.push((start, end + 1));
        }
    }
    // +1 / -1 events of each SM's busy intervals (merged, so an SM counts once).
    let mut events: Vec<(u64, i64)> = Vec::new();
    for v in &mut per_sm {
        v.sort_unstable();
        let mut cur: Option<(u64, u64)> = None;
        for &(a, b) in v.iter() {
            match &mut cur {
                Some((_, e)) if a <= *e => *e = (*e).max(b),
                _ => {
                    if let Some((s, e)) = cur {
                        events.push((s, 1));
                        events.push((e, -1));
                    }
                    cur = Some((a, b));
                }
            }
        }
        if let Some((s, e)) = cur {
            events.push((s, 1));
            events.push((e, -1));
        }
    }
    events.sort_unstable();
    let (mut busy, mut last, mut total) = (0i64, 0u64, 0u64);
    for (t, d) in events {
        if 2 * busy >= sms as i64 {
            total += t - last;
        }
        busy += d;
        last = t;
    }
    total
}

/// The share of a baseline run's cycles (every launch's, launch latency included) in which
/// fewer than half of the SMs held a warp; `None` without `warp_times`.
fn low_sm_fraction(o: &batch::Outcome, sms: usize) -> Option<f64> {
    let ks = o.stats["kernels"].as_array()?;
    let (mut cycles, mut filled) = (0u64, 0u64);
    for k in ks {
        let wt = k["warp_times"].as_array()?;
        let warps: Vec<(usize, u64, u64)> = wt
            .iter()
            .map(|w| (u(w, &["sm"]) as usize, u(w, &["start"]), u(w, &["end"])))
            .collect();
        cycles += u(k, &["cycles"]);
        filled += half_busy_cycles(&warps, sms);
    }
    Some(1.0 - ratio(filled.min(cycles), cycles))
}

/// Runs the experiment.
pub fn run(a: DarsieArgs) -> Result<()> {
    let known: Vec<&str> = TABLE_7_1_2D.iter().chain(&TABLE_7_1_1D).copied().collect();
    let workloads: Vec<String> = if a.workload.is_empty() {
        known.iter().map(|w| w.to_string()).collect()
    } else {
        for w in &a.workload {
            if warpforge_workloads::find(w).is_none() {
                bail!(
                    "unknown workload `{w}` (Table 7.1 set: {})",
                    known.join(", ")
                );
            }
        }
        a.workload.clone()
    };
    let workloads: Vec<&str> = workloads.iter().map(|w| w.as_str()).collect();
    if a.jobs == Some(0) {
        bail!("--jobs must be at least 1");
    }
    let mut sets: Vec<String> = BASE_SETS.iter().map(|s| s.to_string()).collect();
    sets.extend(a.set.iter().cloned());
    let base = crate::cmd::config::resolve(Some(&a.config), &[], &sets)?;
    let dev = params::load(&a.power_params)
        .with_context(|| format!("loading --power-params `{}`", a.power_params))?;
    let mut configs = policy_configs(&base)?;
    // The baseline records every warp's dispatch and retirement (statistics only) for the
    // busy-SM profile of the operating point.
    configs[0]
        .set("sim.warp_times", "true")
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut variant_configs = Vec::new();
    let variants_run: &[(&str, &str, &str)] = if a.no_variants { &[] } else { &VARIANTS };
    for &(label, key, value) in variants_run {
        let mut c = configs[1].clone();
        c.set(key, value).map_err(|e| anyhow::anyhow!("{e}"))?;
        c.name = format!("{}+{label}", base.name);
        variant_configs.push(c);
    }
    let is_2d = |w: &str| TABLE_7_1_2D.contains(&w);
    let mut points = Vec::new();
    for w in &workloads {
        for c in &configs {
            points.push(Point::new(w, a.size, c.clone()));
        }
    }
    // The variants after the main grid, 2D workloads only.
    let first_variant = points.len();
    let two_d: Vec<&str> = workloads.iter().copied().filter(|w| is_2d(w)).collect();
    for w in &two_d {
        for c in &variant_configs {
            points.push(Point::new(w, a.size, c.clone()));
        }
    }
    let opts = Options {
        jobs: a.jobs.unwrap_or_else(batch::default_jobs),
        cache: if a.no_cache {
            None
        } else {
            batch::default_cache_dir()
        },
        progress: true,
    };
    eprintln!(
        "experiment darsie: {} workloads x {} policies (+ {} DARSIE variants on the 2D ones) at size {}",
        workloads.len(),
        POLICIES.len(),
        variants_run.len(),
        a.size.name()
    );
    let out = batch::run(&points, &opts)?;

    // Functional passes: the limit study and the unit counts for power.
    let mut limit_rows = Vec::new();
    let mut units = BTreeMap::new();
    let mut shared_loads = BTreeMap::new();
    let mut occupancy: BTreeMap<&str, Vec<(String, u64, u32)>> = BTreeMap::new();
    for w in &workloads {
        let wl = crate::cmd::list::find_workload(w)?;
        let (rows, _) = crate::cmd::redundancy::study(wl, a.size)?;
        shared_loads.insert(
            *w,
            rows.first()
                .map_or(0, |r: &crate::cmd::redundancy::Row| r.shared_loads),
        );
        limit_rows.extend(rows);
        let hook = Occupancy {
            cfg: base.clone(),
            launches: Vec::new(),
        };
        let (l, _, _, hook) = crate::cmd::observed::run_hooked(
            wl,
            a.size,
            warpforge_models::activity::UnitCounter::new(RegFileRow::default()),
            Some(Box::new(hook)),
            |c| c.take_launches(),
        )?;
        units.insert(*w, l);
        let mut hook = hook.context("launch hook lost")?;
        let occ = hook
            .as_any_mut()
            .downcast_mut::<Occupancy>()
            .context("launch hook of another type")?;
        occupancy.insert(*w, std::mem::take(&mut occ.launches));
    }

    let mut speedup: BTreeMap<&str, BTreeMap<&str, f64>> = BTreeMap::new();
    let mut inst_ratio: BTreeMap<&str, BTreeMap<&str, f64>> = BTreeMap::new();
    let mut energy_ratio: BTreeMap<&str, BTreeMap<&str, f64>> = BTreeMap::new();
    let mut details: BTreeMap<&str, BTreeMap<&str, Value>> = BTreeMap::new();
    let mut mm_shared_removed = None;
    let mut diagnosis: BTreeMap<&str, Value> = BTreeMap::new();
    let mut claim_28: BTreeMap<&str, BTreeMap<&str, f64>> = BTreeMap::new();
    for (wi, w) in workloads.iter().enumerate() {
        let base_o = &out[wi * POLICIES.len()];
        let base_e = energy(&dev, &configs[0], &units[w], &base_o.stats);
        diagnosis.insert(w, bound(base_o, &base));
        for (pi, p) in POLICIES.iter().enumerate().skip(1) {
            let o = &out[wi * POLICIES.len() + pi];
            speedup
                .entry(p)
                .or_default()
                .insert(w, base_o.cycles() as f64 / o.cycles().max(1) as f64);
            let wi_base = u(&base_o.stats, &["total", "warp_insts"]) as f64;
            let wi_p = u(&o.stats, &["total", "warp_insts"]) as f64;
            inst_ratio
                .entry(p)
                .or_default()
                .insert(w, wi_p / wi_base.max(1.0));
            if let (Some(b), Some(e)) = (base_e, energy(&dev, &configs[pi], &units[w], &o.stats)) {
                energy_ratio.entry(p).or_default().insert(w, e / b);
            }
            let t = &o.stats["total"]["raw"]["core"];
            let g = |f: &str| t[f].as_u64().unwrap_or(0);
            if *p == "darsie" && is_2d(w) {
                let base_t = &base_o.stats["total"]["raw"]["core"];
                let sh_base = base_t["shared_accesses"].as_u64().unwrap_or(0);
                if sh_base > 0 {
                    claim_28
                        .entry("shared_bandwidth_saving")
                        .or_default()
                        .insert(w, 1.0 - g("shared_accesses") as f64 / sh_base as f64);
                }
                let alu_units = [Unit::Int, Unit::Fp, Unit::Sfu, Unit::Alu];
                let alu_base: f64 = units[w]
                    .iter()
                    .map(|l| alu_units.iter().map(|x| l.units.get(*x)).sum::<f64>())
                    .sum();
                let alu_removed =
                    (g("elim_int") + g("elim_fp") + g("elim_sfu") + g("elim_alu")) as f64;
                if alu_base > 0.0 {
                    claim_28
                        .entry("alu_inst_reduction")
                        .or_default()
                        .insert(w, alu_removed / alu_base);
                }
            }
            if *p == "darsie" && *w == "mmt" {
                let sl = shared_loads[w];
                mm_shared_removed = Some(if sl == 0 {
                    0.0
                } else {
                    g("elim_shared") as f64 / sl as f64
                });
            }
            let l = launch_cycles(base_o, &base);
            let excl_launch = (base_o.cycles() as f64 - l) / (o.cycles() as f64 - l).max(1.0);
            details.entry(p).or_default().insert(
                w,
                json!({
                    "cycles": o.cycles(),
                    "warp_insts": wi_p as u64,
                    "skipped": g("elim_skipped"),
                    "reused": g("elim_reused"),
                    "leaders": g("elim_leaders"),
                    "branch_syncs": g("elim_branch_syncs"),
                    "majority_exits": g("elim_majority_exits"),
                    "table_full": g("elim_table_full"),
                    "load_invalidations": g("elim_load_invalidations"),
                    "hold_cycles": g("elim_hold_cycles"),
                    "hold_wb_cycles": g("elim_hold_wb_cycles"),
                    "hold_wb_unissued_cycles": g("elim_hold_wb_unissued_cycles"),
                    "hold_branch_cycles": g("elim_hold_branch_cycles"),
                    "skips_waited": g("elim_skips_waited"),
                    "skips_waited_fraction": ratio(g("elim_skips_waited"), g("elim_skipped")),
                    "wait_per_waited_skip": ratio(g("elim_hold_wb_cycles"), g("elim_skips_waited")),
                    "arrival_gap_mean": ratio(g("elim_arrival_gap_cycles"), g("elim_follower_arrivals")),
                    "slotless_fetches": g("elim_slotless_fetches"),
                    "speedup_excl_launch": excl_launch,
                    "stall_shares": stall_shares(o),
                    "timeouts": g("elim_timeouts"),
                    "shared_loads_skipped": g("elim_shared"),
                    "check": o.stats["total"]["check"].clone(),
                }),
            );
        }
    }
    // The operating point: per workload its launches' waves on this GPU, and the share of the
    // baseline's cycles in which fewer than half of the SMs had work.
    let sms = base.core.num_sms;
    let mut operating_point = serde_json::Map::new();
    for (wi, w) in workloads.iter().enumerate() {
        let launches = &occupancy[w];
        let wv: Vec<f64> = launches
            .iter()
            .map(|(_, c, p)| waves(*c, sms, *p))
            .collect();
        let kernels: BTreeMap<&str, Value> = launches
            .iter()
            .map(|(k, c, p)| {
                (
                    k.as_str(),
                    json!({"ctas": c, "resident_ctas_per_sm": p, "waves": waves(*c, sms, *p)}),
                )
            })
            .collect();
        operating_point.insert(
            w.to_string(),
            json!({
                "input": crate::cmd::list::find_workload(w)?.input(a.size),
                "launches": launches.len(),
                "kernels": kernels,
                "min_waves": wv.iter().copied().fold(f64::INFINITY, f64::min),
                "fills_twice": wv.iter().all(|x| *x >= 2.0),
                "low_sm_cycle_fraction": low_sm_fraction(&out[wi * POLICIES.len()], sms as usize),
                "baseline_cycles": out[wi * POLICIES.len()].cycles(),
            }),
        );
    }
    let mut variants: BTreeMap<&str, BTreeMap<&str, f64>> = BTreeMap::new();
    for (wi, w) in two_d.iter().enumerate() {
        let base_i = workloads.iter().position(|x| x == w).expect("listed") * POLICIES.len();
        let base_c = out[base_i].cycles() as f64;
        for (vi, (label, _, _)) in variants_run.iter().enumerate() {
            let o = &out[first_variant + wi * variants_run.len() + vi];
            variants
                .entry(label)
                .or_default()
                .insert(w, base_c / o.cycles().max(1) as f64);
            let t = &o.stats["total"]["raw"]["core"];
            let g = |f: &str| t[f].as_u64().unwrap_or(0);
            details.entry(label).or_default().insert(
                w,
                json!({
                    "cycles": o.cycles(),
                    "skipped": g("elim_skipped"),
                    "branch_syncs": g("elim_branch_syncs"),
                    "load_invalidations": g("elim_load_invalidations"),
                    "hold_wb_cycles": g("elim_hold_wb_cycles"),
                    "hold_branch_cycles": g("elim_hold_branch_cycles"),
                    "timeouts": g("elim_timeouts"),
                    "check": o.stats["total"]["check"].clone(),
                }),
            );
        }
    }
    let gm = |m: &BTreeMap<&str, f64>, two_d: bool| -> Option<f64> {
        let v: Vec<f64> = m
            .iter()
            .filter(|(w, _)| is_2d(w) == two_d)
            .map(|(_, x)| *x)
            .collect();
        geomean_positive(&v)
    };
    let mut geomean_2d = BTreeMap::new();
    let mut geomean_1d = BTreeMap::new();
    let mut inst_reduction = BTreeMap::new();
    let mut energy_change = BTreeMap::new();
    for p in &POLICIES[1..] {
        geomean_2d.insert(*p, speedup.get(p).and_then(|m| gm(m, true)));
        geomean_1d.insert(*p, speedup.get(p).and_then(|m| gm(m, false)));
        inst_reduction.insert(
            *p,
            inst_ratio.get(p).and_then(|m| gm(m, true)).map(|r| 1.0 - r),
        );
        energy_change.insert(
            *p,
            energy_ratio
                .get(p)
                .and_then(|m| gm(m, true))
                .map(|r| r - 1.0),
        );
    }
    let by_w = |m: &BTreeMap<&str, BTreeMap<&str, f64>>, f: fn(f64) -> f64| -> Value {
        let mut o = serde_json::Map::new();
        for (p, ws) in m {
            let inner: serde_json::Map<String, Value> = ws
                .iter()
                .map(|(w, x)| (w.to_string(), json!(f(*x))))
                .collect();
            o.insert(p.to_string(), Value::Object(inner));
        }
        Value::Object(o)
    };
    let e = base.core.elim.skip_entries as u64;
    let tbs = base.core.max_ctas as u64;
    let (skip, maj, ren) = storage_bits(e, tbs, 32, 32);
    let storage_bytes = (skip + maj + ren) / 8;
    let rf_bytes = base.core.registers as u64 * 4;
    let removable: Vec<f64> = limit_rows
        .iter()
        .filter(|r| r.kernel == "*")
        .map(|r| r.tb_removable_fraction)
        .collect();
    let report = json!({
        "experiment": "darsie",
        "document": "003 Ch. 7 (claims 23-31)",
        "size": a.size.name(),
        "operating_point_rule": warpforge_workloads::darsie::FILL_RULE,
        "operating_point": operating_point,
        "config": base.name,
        "power_params": a.power_params,
        "workloads_2d": workloads.iter().filter(|w| is_2d(w)).collect::<Vec<_>>(),
        "workloads_1d": workloads.iter().filter(|w| !is_2d(w)).collect::<Vec<_>>(),
        "speedup": by_w(&speedup, |x| x),
        "geomean_2d": geomean_2d,
        "geomean_1d": geomean_1d,
        "inst_reduction": {
            "darsie": inst_reduction["darsie"],
            "dac_ideal": inst_reduction["dac_ideal"],
            "uv": inst_reduction["uv"],
        },
        "inst_reduction_by_workload": by_w(&inst_ratio, |r| 1.0 - r),
        "energy_change": energy_change,
        "energy_change_by_workload": by_w(&energy_ratio, |r| r - 1.0),
        "shared_loads_removed": {"mm": mm_shared_removed},
        "storage_bytes": storage_bytes,
        "storage": {
            "skip_table_bytes": skip / 8,
            "majority_mask_bytes": maj / 8,
            "rename_bytes": ren / 8,
            "register_file_fraction": storage_bytes as f64 / rf_bytes as f64,
        },
        "limit_study": limit_rows,
        "limit_study_mean_removable_fraction":
            mean(&removable).unwrap_or(0.0),
        "policy_stats": details,
        "baseline_bound": diagnosis,
        "shared_bandwidth_saving": claim_28.get("shared_bandwidth_saving"),
        "alu_inst_reduction": claim_28.get("alu_inst_reduction"),
        "variant_speedup": by_w(&variants, |x| x),
        "variant_geomean_2d": variants
            .iter()
            .map(|(v, m)| (v.to_string(), json!(gm(m, true))))
            .collect::<serde_json::Map<String, Value>>(),
        "variant_change": variants
            .iter()
            .map(|(v, m)| {
                let change = gm(m, true)
                    .zip(geomean_2d["darsie"])
                    .map(|(x, d)| x / d - 1.0);
                (v.to_string(), json!(change))
            })
            .collect::<serde_json::Map<String, Value>>(),
        "document_values": {
            "geomean_2d": {"darsie": 1.30, "uv": 1.02, "dac_ideal": 1.11},
            "inst_reduction": {"darsie": 0.17, "dac_ideal": 0.11},
            "energy_change": {"darsie": -0.25, "uv": -0.07, "dac_ideal": -0.20},
            "shared_loads_removed": {"mm": 0.90},
            "storage_bytes": 5440,
            "shared_bandwidth_saving": [0.45, 0.90],
            "alu_inst_reduction": [0.12, 0.19],
            "variant_change": {"darsie_ignore_store": 0.0, "darsie_no_bank_conflicts": 0.01},
            "limit_study_mean_removable_fraction": 0.33,
        },
    });
    write_atomic(
        &a.json,
        (serde_json::to_string_pretty(&report)? + "\n").as_bytes(),
    )?;
    if let Some(dir) = &a.svg {
        let cats: Vec<String> = workloads.iter().map(|w| w.to_string()).collect();
        let series: Vec<String> = ["uv", "dac_ideal", "darsie"].map(String::from).to_vec();
        let pick = |m: &BTreeMap<&str, BTreeMap<&str, f64>>, f: fn(f64) -> f64| -> Vec<Vec<f64>> {
            workloads
                .iter()
                .map(|w| {
                    series
                        .iter()
                        .map(|p| {
                            m.get(p.as_str())
                                .and_then(|x| x.get(w))
                                .map_or(0.0, |x| f(*x))
                        })
                        .collect()
                })
                .collect()
        };
        for (file, title, y, vals, reference) in [
            (
                "darsie_speedup.svg",
                "Speed-up over the baseline (Fig. 7.4)",
                "baseline cycles / cycles",
                pick(&speedup, |x| x),
                Some(1.0),
            ),
            (
                "darsie_inst_reduction.svg",
                "Dynamic warp-instruction reduction (Figs. 7.5/7.6)",
                "fraction of issued warp instructions removed",
                pick(&inst_ratio, |r| 1.0 - r),
                None,
            ),
            (
                "darsie_energy.svg",
                "Energy relative to the baseline (Fig. 7.7)",
                "energy / baseline energy",
                pick(&energy_ratio, |x| x),
                Some(1.0),
            ),
        ] {
            let svg = Chart {
                title,
                y_desc: y,
                categories: &cats,
                series: &series,
                values: &vals,
                stacked: false,
                reference,
            }
            .svg()?;
            write_atomic(&dir.join(file), svg.as_bytes())?;
        }
    }
    // One line per set that ran (a 1D-only run has no 2D figures, and the reverse).
    for (set, g) in [("2D", &geomean_2d), ("1D", &geomean_1d)] {
        if let (Some(d), Some(u), Some(c)) = (g["darsie"], g["uv"], g["dac_ideal"]) {
            println!("DARSIE {set} geomean speed-up {d:.3} (UV {u:.3}, DAC-IDEAL {c:.3})");
        }
    }
    if let (Some(d), Some(c)) = (inst_reduction["darsie"], inst_reduction["dac_ideal"]) {
        println!(
            "2D instruction reduction {:.1}% (DAC-IDEAL {:.1}%)",
            100.0 * d,
            100.0 * c
        );
    }
    println!("report in {}", a.json.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn storage_matches_claim_30() {
        let (skip, maj, ren) = storage_bits(8, 32, 32, 32);
        assert_eq!(skip, 20_992, "82-bit entries x 256");
        assert_eq!(skip / 8, 2624);
        assert_eq!(maj / 8, 128);
        assert_eq!(ren, 21_504);
        assert_eq!(ren / 8, 2688);
        let total = (skip + maj + ren) / 8;
        assert_eq!(total, 5440);
        assert!((total as f64 / 1024.0 - 5.31).abs() < 0.01);
        // About 2.1 % of Pascal's 256 KB register file per SM.
        assert!((total as f64 / (65536.0 * 4.0) - 0.021).abs() < 0.001);
    }

    #[test]
    fn half_busy_counts_cycles_with_half_the_sms_holding_a_warp() {
        // 4 SMs. SM 0: warps over 0..=9 and 5..=19 (merged: 0..20); SM 1: 10..=29; SM 2:
        // 15..=16; SM 3 idle. Two or more busy: 10..20 (SMs 0, 1; 2 too in 15..17).
        let w = [(0, 0, 9), (0, 5, 19), (1, 10, 29), (2, 15, 16)];
        assert_eq!(half_busy_cycles(&w, 4), 10);
        // With 2 SMs one busy SM is half: 0..30 (SM 2 is outside the GPU and ignored).
        assert_eq!(half_busy_cycles(&w, 2), 30);
        // Overlapping warps of one SM count that SM once: never 2 of 3 busy.
        assert_eq!(half_busy_cycles(&[(0, 0, 9), (0, 0, 9)], 3), 0);
        assert_eq!(half_busy_cycles(&[], 28), 0);
    }

    #[test]
    fn waves_are_ctas_over_the_gpus_cta_slots() {
        // mmt at fill: 11 x 11 CTAs of 32 warps, 2 per SM on 28 SMs.
        assert!((waves(121, 28, 2) - 121.0 / 56.0).abs() < 1e-12);
        assert!(waves(121, 28, 2) >= 2.0 && waves(100, 28, 2) < 2.0);
    }

    /// The fill inputs of [`warpforge_workloads::darsie::FILL_RULE`] give every launch of the
    /// 2D workloads at least two waves on Table 7.2's GPU and pass their CPU checks.
    #[test]
    #[ignore = "functional runs of the fill inputs: about a minute in release"]
    fn fill_inputs_fill_table_7_2_twice() {
        let mut sets: Vec<String> = BASE_SETS.iter().map(|s| s.to_string()).collect();
        sets.push("core.elim.policy=none".into());
        let base = crate::cmd::config::resolve(Some("qv100"), &[], &sets).unwrap();
        for w in TABLE_7_1_2D {
            let wl = crate::cmd::list::find_workload(w).unwrap();
            let hook = Occupancy {
                cfg: base.clone(),
                launches: Vec::new(),
            };
            let (_, check, _, hook) = crate::cmd::observed::run_hooked(
                wl,
                Size::Fill,
                warpforge_models::activity::UnitCounter::new(RegFileRow::default()),
                Some(Box::new(hook)),
                |_| (),
            )
            .unwrap();
            assert_eq!(check, warpforge_workloads::Check::Passed, "{w}");
            let mut hook = hook.unwrap();
            let occ = hook.as_any_mut().downcast_mut::<Occupancy>().unwrap();
            assert!(!occ.launches.is_empty());
            for (k, c, p) in &occ.launches {
                let x = waves(*c, base.core.num_sms, *p);
                assert!(x >= 2.0, "{w} {k}: {c} CTAs, {p} per SM: {x:.2} waves");
            }
        }
    }
}
