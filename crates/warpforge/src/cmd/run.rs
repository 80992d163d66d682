//! `warpforge run WORKLOAD`: runs a built-in workload and writes its statistics.
//!
//! `--mode functional` executes every launch on the functional SIMT executor, counts dynamic
//! warp and thread instructions, and checks the output against the workload's CPU reference
//! (a failed check exits non-zero). `--mode timing` (with `--config`, `--set`, `--threads`) runs
//! every launch on the cycle-level model (`warpforge-timing`), shows a progress bar, stops
//! cleanly on Ctrl-C with the statistics so far, and prints per-kernel and total statistics
//! (JSON: `workload`, `size`, `mode`, `config`, `threads`, `wall_s`, `sm_cycles_per_s`, and
//! `stats` = the timing model's `RunStats`: `kernels[]` and `total` with `cycles`, `ipc`,
//! `l1d`, `l2`, `dram`, `icnt`, `stalls`, `check`...; the totals `cycles`, `warp_insts`,
//! `thread_insts`, `ipc`, `occupancy`, `l1d`, `l2`, `dram`, `icnt`, `stalls`, `check` and `power`
//! are repeated at the top level, as in functional mode and `trace run`). Timing mode also reports power and
//! energy from the simulation's activity counters (document 002's power model, shared with
//! `predict --simulate` through `warpforge_models::activity`): a `power` object in every
//! `stats.kernels[]` entry and in `stats.total` (`avg_power_w`, `dynamic_power_w`,
//! `static_power_w`, `energy_j`, `runtime_s`, `cycles`, `active_sms`, `units_w`, `params`), and
//! a top-level `power_params` (the parameter set, or `null` with `power_note` saying why power
//! is omitted). The parameter set is `--power-params NAME|FILE`, by default the built-in set
//! named like the timing configuration (`gtx480`); `--power-params none` turns it off.
//!
//! Functional-mode JSON (`--json FILE`) fields: `workload`, `size`, `mode`, `warp_insts`,
//! `thread_insts`, `launches`, `check` (`passed` / `failed`), `check_message` (failures only),
//! `wall_s`. A run that fails (bad input, fault, deadlock) writes no JSON.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context};
use serde_json::json;
use warpforge_core::InstObserver;
use warpforge_models::activity::{
    simulated_power, total_power, LaunchUnits, SimActivity, SimMachine, SimPower, UnitCounter,
};
use warpforge_models::options::RegFileRow;
use warpforge_models::params::{self, DeviceParams};
use warpforge_models::power::UnitCounts;
use warpforge_simt::Device;
use warpforge_timing::KernelStats;
use warpforge_workloads::profile::InstCounter;
use warpforge_workloads::{find, registry, Check, Size, Workload};

use super::threads::Threads;

/// How a workload is executed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    /// Functional execution only: instruction counts and the output check.
    Functional,
    /// Cycle-level timing simulation.
    Timing,
}

/// Arguments of `warpforge run`.
#[derive(clap::Args)]
pub struct Args {
    /// Workload name (see `warpforge list`).
    pub workload: String,
    /// Execution mode.
    #[arg(long, value_enum, default_value = "functional")]
    pub mode: Mode,
    /// Input size: tiny, small or paper.
    #[arg(long, default_value = "small", value_parser = parse_size)]
    pub size: Size,
    /// Write the statistics as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Timing mode: configuration preset name or TOML file.
    #[arg(long)]
    pub config: Option<String>,
    /// Timing mode: GPGPU-Sim option file(s) (gpgpusim.config, trace.config), imported over
    /// `--config` (default gtx480); repeatable, later files override earlier ones.
    #[arg(long = "gpgpusim-config", value_name = "FILE")]
    pub gpgpusim_config: Vec<PathBuf>,
    /// Timing mode: override one configuration key (repeatable), e.g. `--set l1d.sets=64`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Timing mode: simulation worker threads, a number or `auto` (the default: free cores,
    /// capped where measurements show no gain; statistics never depend on it).
    #[arg(long, value_parser = super::threads::parse_threads)]
    pub threads: Option<Threads>,
    /// Timing mode: power-model parameter set (name as in `predict --gpu`, or a `*.toml` file)
    /// for power and energy from the activity counters; default: the built-in set named like
    /// the timing configuration (`gtx480`), else power is omitted; `none` turns power off.
    #[arg(long = "power-params", value_name = "NAME|FILE")]
    pub power_params: Option<String>,
    /// Functional mode: also write every launch as a launch bundle into this (new or empty)
    /// directory: `kernel.ptx`, `launches.toml` and the buffers as `.npy`, replayable with
    /// `warpforge ptx run --bundle DIR` and `scripts/replay-bundle.py` (on a GPU).
    #[arg(long, value_name = "DIR")]
    pub dump_launches: Option<PathBuf>,
    /// Timing mode: also write the statistics in GPGPU-Sim / Accel-Sim's report layout
    /// (`gpu_sim_cycle = ...` lines) to this file, for scripts that parse Accel-Sim logs.
    #[arg(long, value_name = "FILE")]
    pub accelsim_stats: Option<PathBuf>,
    /// Endless-kernel guard, a number or `off`. Functional mode: warp instructions a CTA may
    /// execute without forward progress (no warp exits, no store or atomic), default 2^28.
    /// Timing mode: core cycles without a warp exiting or a CTA starting (sets
    /// `sim.watchdog_cycles`). Past it the run stops with exit status 2 naming kernel, CTA, warp
    /// and pc.
    #[arg(long, value_parser = super::ptx::parse_limit, value_name = "N|off")]
    pub stall_limit: Option<super::ptx::Limit>,
}

/// Parses a `--size` value (clap value parser).
pub fn parse_size(s: &str) -> Result<Size, String> {
    s.parse()
}

/// The registered workload `name`, or an error listing the valid names.
pub fn find_workload(name: &str) -> anyhow::Result<&'static dyn Workload> {
    find(name).with_context(|| {
        let names: Vec<&str> = registry().iter().map(|w| w.info().name).collect();
        format!("unknown workload `{name}` (known: {})", names.join(", "))
    })
}

/// `"passed"` or `"failed"`.
pub fn check_word(c: &Check) -> &'static str {
    match c {
        Check::Passed => "passed",
        Check::Failed(_) => "failed",
    }
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    let w = find_workload(&args.workload)?;
    if let Some(super::ptx::Limit(l)) = args.stall_limit {
        warpforge_simt::run::set_default_stall_limit(l);
    }
    match args.mode {
        Mode::Functional => {
            if args.config.is_some()
                || !args.set.is_empty()
                || args.threads.is_some()
                || !args.gpgpusim_config.is_empty()
                || args.power_params.is_some()
                || args.accelsim_stats.is_some()
            {
                bail!(
                    "--config, --gpgpusim-config, --set, --threads, --power-params and --accelsim-stats apply to --mode timing only"
                );
            }
            run_functional(
                w,
                args.size,
                args.json.as_deref(),
                args.dump_launches.as_deref(),
            )
        }
        Mode::Timing if args.dump_launches.is_some() => {
            bail!("--dump-launches records in functional mode (the launches are the same in timing mode); drop --mode timing")
        }
        Mode::Timing => run_timing(w, &args),
    }
}

fn run_functional(
    w: &dyn Workload,
    size: Size,
    json_path: Option<&std::path::Path>,
    dump: Option<&std::path::Path>,
) -> anyhow::Result<()> {
    let name = w.info().name;
    let staging = dump.map(super::bundle::staging_dir).transpose()?;
    let hook: Option<Box<dyn warpforge_simt::LaunchHook>> = staging
        .as_deref()
        .map(|d| Box::new(super::bundle::Recorder::new(d)) as _);
    let run = super::observed::run_hooked(w, size, InstCounter::default(), hook, |c| *c);
    let (counts, check, wall, hook) = match run {
        Ok(r) => r,
        Err(e) => {
            if let Some(d) = &staging {
                let _ = std::fs::remove_dir_all(d);
            }
            return Err(e);
        }
    };
    if let (Some(tmp), Some(dir), Some(mut hook)) = (&staging, dump, hook) {
        let rec = hook
            .as_any_mut()
            .downcast_mut::<super::bundle::Recorder>()
            .expect("the bundle recorder");
        let written = rec
            .finish()
            .and_then(|r| super::bundle::publish(tmp, dir).map(|_| r));
        let (launches, bufs, bytes) = match written {
            Ok(r) => r,
            Err(e) => {
                let _ = std::fs::remove_dir_all(tmp);
                return Err(e);
            }
        };
        println!(
            "wrote launch bundle {}: {launches} launches, {bufs} buffers, {bytes} bytes of buffer data",
            dir.display()
        );
    }
    println!(
        "{name} ({}) functional: {} launches, {} warp instructions, {} thread instructions, {:.2} s",
        size.name(),
        counts.launches,
        counts.warp_insts,
        counts.thread_insts,
        wall
    );
    match &check {
        Check::Passed => println!("check: passed"),
        Check::Failed(m) => println!("check: FAILED: {m}"),
    }
    if let Some(path) = json_path {
        let mut v = json!({
            "workload": name,
            "size": size.name(),
            "mode": "functional",
            "warp_insts": counts.warp_insts,
            "thread_insts": counts.thread_insts,
            "launches": counts.launches,
            "check": check_word(&check),
            "wall_s": wall,
        });
        if let Check::Failed(m) = &check {
            v["check_message"] = json!(m);
        }
        warpforge_core::output::write_atomic(path, serde_json::to_string_pretty(&v)? + "\n")
            .with_context(|| format!("writing {}", path.display()))?;
    }
    if let Check::Failed(m) = check {
        bail!("{name}: output check failed: {m}");
    }
    Ok(())
}

/// What [`simulate`] returns: the runner (with statistics, also when the run failed or was
/// interrupted), the check, the wall time and the observer given to it.
pub type Simulation = (
    warpforge_timing::TimingRunner,
    anyhow::Result<Check>,
    f64,
    Option<Box<dyn InstObserver>>,
);

/// Runs workload `w` at `size` on a fresh timing runner on `threads` ([`Threads::runner`]:
/// under `auto` a team of two may run windows on one thread by the host's placement), with
/// `observer` (if any) watching the executed instructions.
pub fn simulate(
    w: &dyn Workload,
    size: Size,
    cfg: warpforge_timing::GpuConfig,
    threads: Threads,
    progress: bool,
    observer: Option<Box<dyn InstObserver>>,
) -> Simulation {
    use warpforge_timing::TimingRunner;
    let mut runner = threads.runner(cfg);
    let stop = runner.stop_flag();
    // Ctrl-C raises the stop flag; a second handler registration (another run in the same
    // process) is harmless and ignored.
    let _ = ctrlc::set_handler(move || stop.store(true, std::sync::atomic::Ordering::Relaxed));
    if progress {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.set_style(
            indicatif::ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
                .expect("template"),
        );
        runner.set_progress(move |p| {
            bar.set_message(format!(
                "{}: {} cycles, {} warp insts, CTAs {}/{}",
                p.kernel, p.cycles, p.warp_insts, p.ctas_done, p.ctas_total
            ));
            bar.tick();
        });
    }
    let mut dev = Device::new();
    dev.set_runner(Box::new(runner));
    dev.set_observer(observer);
    let t0 = Instant::now();
    let check = w.run(&mut dev, size).with_context(|| {
        format!(
            "running workload `{}` at size {} in timing mode",
            w.info().name,
            size.name()
        )
    });
    let wall = t0.elapsed().as_secs_f64();
    // Taken back by value: replacing it in place would build a second machine (a second copy of
    // every SM's caches and tables) only to drop it.
    let boxed: Box<dyn std::any::Any> = dev.take_runner().expect("runner installed");
    let runner = *boxed.downcast::<TimingRunner>().expect("a timing runner");
    (runner, check, wall, dev.take_observer())
}

/// The simulated machine of configuration `cfg` (SM count, SM clock) for the power model.
pub fn sim_machine(cfg: &warpforge_timing::GpuConfig) -> SimMachine {
    SimMachine {
        num_sms: cfg.core.num_sms,
        core_clock_hz: cfg.clocks.core_mhz * 1e6,
    }
}

/// Power-model activity of one simulated launch: instruction-side `units` and `blocks` from an
/// observer, memory-side counts and cycles from the timing statistics `k`.
pub fn activity(units: UnitCounts, blocks: u64, k: &KernelStats) -> SimActivity {
    SimActivity {
        units,
        blocks,
        cycles: k.cycles,
        l1_accesses: k.l1d.accesses,
        l2_accesses: k.l2.accesses,
        dram_accesses: k.dram.reads + k.dram.writes,
    }
}

/// The power parameter set for a timing run on configuration `cfg_name`: `Ok(Some)` with power
/// parameters, `Ok(None)` with the reason power is omitted.
fn power_params(arg: Option<&str>, cfg_name: &str) -> anyhow::Result<Result<DeviceParams, String>> {
    match arg {
        Some("none") => Ok(Err("power off (--power-params none)".into())),
        Some(name) => {
            let p =
                params::load(name).with_context(|| format!("loading --power-params `{name}`"))?;
            if p.power.is_none() {
                bail!(
                    "--power-params `{name}`: parameter set `{}` has no [power] section",
                    p.name
                );
            }
            Ok(Ok(p))
        }
        None => {
            // The set named like the configuration, else like its family prefix
            // (`gtx480-cawa` -> `gtx480`: same card, other L1/scheduler).
            let family = cfg_name.split('-').next().unwrap_or(cfg_name);
            match [cfg_name, family]
                .into_iter()
                .filter_map(|n| params::builtin(n).ok())
                .find(|p| p.power.is_some())
            {
                Some(p) => Ok(Ok(p)),
                None => Ok(Err(format!(
                "no power parameter set matches configuration `{cfg_name}`; pass --power-params NAME|FILE (built-in: {})",
                params::names().join(", ")
            ))),
            }
        }
    }
}

/// Per-launch power (one per kernel in `stats`) and the run total, or `None` when the counts do
/// not line up with the launches (interrupted run).
fn run_power(
    dev: &DeviceParams,
    machine: SimMachine,
    launches: &[LaunchUnits],
    stats: &warpforge_timing::RunStats,
) -> Option<(Vec<SimPower>, SimPower)> {
    if launches.len() != stats.kernels.len() {
        return None;
    }
    let per: Vec<SimPower> = launches
        .iter()
        .zip(&stats.kernels)
        .map(|(l, k)| simulated_power(dev, machine, &activity(l.units, l.blocks, k)))
        .collect::<Option<_>>()?;
    let total = total_power(&per)?;
    Some((per, total))
}

/// The run totals that the JSON convention puts at the top level of a timing result, copied
/// from `stats.total` (the nested layout is kept as well).
pub const TOP_LEVEL_TOTALS: [&str; 12] = [
    "cycles",
    "warp_insts",
    "thread_insts",
    "ipc",
    "occupancy",
    "l1d",
    "l2",
    "dram",
    "icnt",
    "stalls",
    "check",
    "power",
];

/// Copies the [`TOP_LEVEL_TOTALS`] present in `v["stats"]["total"]` to the top level of `v`.
pub fn add_top_level_totals(v: &mut serde_json::Value) {
    let total = v["stats"]["total"].clone();
    for key in TOP_LEVEL_TOTALS {
        if let Some(x) = total.get(key) {
            v[key] = x.clone();
        }
    }
}

fn run_timing(w: &dyn Workload, args: &Args) -> anyhow::Result<()> {
    let name = w.info().name;
    let mut cfg = super::config::resolve(args.config.as_deref(), &args.gpgpusim_config, &args.set)?;
    if let Some(super::ptx::Limit(l)) = args.stall_limit {
        cfg.sim.watchdog_cycles = l.unwrap_or(u64::MAX);
    }
    let sms = cfg.core.num_sms as f64;
    let cfg_name = cfg.name.clone();
    let tty = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let power_dev = power_params(args.power_params.as_deref(), &cfg_name)?;
    let machine = sim_machine(&cfg);
    let max_warps = cfg.core.max_warps;
    let observer: Option<Box<dyn InstObserver>> = match &power_dev {
        Ok(_) => Some(Box::new(UnitCounter::new(RegFileRow::default()))),
        Err(_) => None,
    };
    let (mut runner, check, wall, mut observer) = simulate(
        w,
        args.size,
        cfg,
        args.threads.unwrap_or(Threads::Auto),
        tty,
        observer,
    );
    let threads = runner.threads();
    match &check {
        Ok(c) => runner.set_check(check_word(c)),
        Err(_) => runner.set_check("none"),
    }
    let stats = runner.stats();
    // A failed run (bad configuration, stuck kernel, functional fault) writes no statistics;
    // only an interrupted run (Ctrl-C) keeps its partial statistics, as documented.
    let check = match check {
        Err(e) if !stats.total.interrupted => return Err(e),
        c => c,
    };
    let launches = observer
        .as_deref_mut()
        .and_then(|o| o.as_any_mut().downcast_mut::<UnitCounter>())
        .map(|c| c.take_launches())
        .unwrap_or_default();
    let power = match &power_dev {
        Ok(dev) => run_power(dev, machine, &launches, &stats)
            .ok_or_else(|| "launch counts do not match the simulated kernels".to_string()),
        Err(why) => Err(why.clone()),
    };
    print!("{}", runner.summary());
    match &power {
        Ok((_, t)) => println!(
            "power ({} parameters): {:.1} W average ({:.1} W dynamic + {:.1} W static), energy {:.6} J over {:.6} s",
            t.params, t.avg_power_w, t.dynamic_power_w, t.static_power_w, t.energy_j, t.runtime_s
        ),
        Err(why) => println!("power: omitted: {why}"),
    }
    let sm_cycles_per_s = stats.total.cycles as f64 * sms / wall.max(1e-9);
    println!(
        "{name} ({}) timing on {cfg_name}, {threads} thread(s): {:.2} s, {:.0} SM-cycles/s",
        args.size.name(),
        wall,
        sm_cycles_per_s
    );
    let team = runner.team_report();
    if let Some(t) = &team {
        println!(
            "--threads auto: {} window(s) on two threads, {} alone ({} switch(es)); {} probe(s), one-way {}/{}/{} ns min/median/max, {} near, {} far, {} unanswered ({} suspect), {} stalled, worker moved {}x; probes {:.3} ms; {} phase(s) judged, {} without the worker; {} period(s) absent ({} starved of CPU), {} present, median CPU share {:.1}%",
            t.windows_team,
            t.windows_alone,
            t.switches,
            t.probes,
            t.one_way_ns_min,
            t.one_way_ns_median,
            t.one_way_ns_max,
            t.probes_near,
            t.probes_far,
            t.probes_unanswered,
            t.probes_suspect,
            t.probes_stalled,
            t.worker_moves,
            t.probe_ns as f64 / 1e6,
            t.phases_judged,
            t.phases_absent,
            t.periods_absent,
            t.periods_starved,
            t.periods_present,
            f64::from(t.cpu_share_median_permille) / 10.0
        );
    }
    if let Some(path) = &args.json {
        let mut v = json!({
            "workload": name,
            "size": args.size.name(),
            "mode": "timing",
            "config": cfg_name,
            "threads": threads,
            "wall_s": wall,
            "sm_cycles_per_s": sm_cycles_per_s,
            "stats": runner.stats_json(),
        });
        if let Some(t) = &team {
            v["team"] = serde_json::to_value(t)?;
        }
        match &power {
            Ok((per, total)) => {
                v["power_params"] = json!(total.params);
                for (i, p) in per.iter().enumerate() {
                    v["stats"]["kernels"][i]["power"] = serde_json::to_value(p)?;
                }
                v["stats"]["total"]["power"] = serde_json::to_value(total)?;
            }
            Err(why) => {
                v["power_params"] = serde_json::Value::Null;
                v["power_note"] = json!(why);
            }
        }
        add_top_level_totals(&mut v);
        warpforge_core::output::write_atomic(path, serde_json::to_string_pretty(&v)? + "\n")
            .with_context(|| format!("writing {}", path.display()))?;
    }
    if let Some(path) = &args.accelsim_stats {
        let text = warpforge_trace::accelsim_stats::render(&stats, max_warps);
        warpforge_core::output::write_atomic(path, text)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    match check? {
        Check::Passed => {
            println!("check: passed");
            Ok(())
        }
        Check::Failed(m) => {
            println!("check: FAILED: {m}");
            bail!("{name}: output check failed: {m}")
        }
    }
}
