//! `warpforge run WORKLOAD`: runs a built-in workload and writes its statistics.
//!
//! `--mode functional` executes every launch on the functional SIMT executor, counts dynamic
//! warp and thread instructions, and checks the output against the workload's CPU reference
//! (a failed check exits non-zero). `--mode timing` (with `--config`, `--set`, `--threads`) runs
//! every launch on the cycle-level model (`warpforge-timing`), shows a progress bar, stops
//! cleanly on Ctrl-C with the statistics so far, and prints per-kernel and total statistics
//! (JSON: `workload`, `size`, `mode`, `config`, `threads`, `wall_s`, `sm_cycles_per_s`, and
//! `stats` = the timing model's `RunStats`: `kernels[]` and `total` with `cycles`, `ipc`,
//! `l1d`, `l2`, `dram`, `icnt`, `stalls`, `check`...).
//!
//! JSON output (`--json FILE`) fields: `workload`, `size`, `mode`, `warp_insts`, `thread_insts`,
//! `launches`, `check` (`passed` / `failed`), `check_message` (failures only), `wall_s`.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context};
use serde_json::json;
use warpforge_simt::Device;
use warpforge_workloads::profile::InstCounter;
use warpforge_workloads::{find, registry, Check, Size, Workload};

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
    /// Timing mode: simulation worker threads.
    #[arg(long)]
    pub threads: Option<usize>,
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
    match args.mode {
        Mode::Functional => {
            if args.config.is_some()
                || !args.set.is_empty()
                || args.threads.is_some()
                || !args.gpgpusim_config.is_empty()
            {
                bail!(
                    "--config, --gpgpusim-config, --set and --threads apply to --mode timing only"
                );
            }
            run_functional(w, args.size, args.json.as_deref())
        }
        Mode::Timing => run_timing(w, &args),
    }
}

fn run_functional(
    w: &dyn Workload,
    size: Size,
    json_path: Option<&std::path::Path>,
) -> anyhow::Result<()> {
    let name = w.info().name;
    let mut dev = Device::new();
    dev.set_observer(Some(Box::new(InstCounter::default())));
    let t0 = Instant::now();
    let check = w
        .run(&mut dev, size)
        .with_context(|| format!("running workload `{name}` at size {}", size.name()))?;
    let wall = t0.elapsed().as_secs_f64();
    let counts = dev
        .observer_mut()
        .and_then(|o| o.as_any_mut().downcast_ref::<InstCounter>().copied())
        .unwrap_or_default();
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
        std::fs::write(path, serde_json::to_string_pretty(&v)? + "\n")
            .with_context(|| format!("writing {}", path.display()))?;
    }
    if let Check::Failed(m) = check {
        bail!("{name}: output check failed: {m}");
    }
    Ok(())
}

/// Runs workload `w` at `size` on a fresh timing runner; returns the runner (with statistics,
/// also when the run failed or was interrupted), the check and the wall time.
pub fn simulate(
    w: &dyn Workload,
    size: Size,
    cfg: warpforge_timing::GpuConfig,
    threads: usize,
    progress: bool,
) -> (warpforge_timing::TimingRunner, anyhow::Result<Check>, f64) {
    use warpforge_timing::TimingRunner;
    let mut runner = TimingRunner::new(cfg, threads);
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
    let t0 = Instant::now();
    let check = w.run(&mut dev, size).with_context(|| {
        format!(
            "running workload `{}` at size {} in timing mode",
            w.info().name,
            size.name()
        )
    });
    let wall = t0.elapsed().as_secs_f64();
    let mut boxed = dev.take_runner().expect("runner installed");
    let runner = boxed
        .as_any_mut()
        .downcast_mut::<TimingRunner>()
        .map(|r| std::mem::replace(r, TimingRunner::new(r.config().clone(), 1)))
        .expect("a timing runner");
    (runner, check, wall)
}

fn run_timing(w: &dyn Workload, args: &Args) -> anyhow::Result<()> {
    let name = w.info().name;
    let cfg = super::config::resolve(args.config.as_deref(), &args.gpgpusim_config, &args.set)?;
    let threads = args.threads.unwrap_or(1).max(1);
    let sms = cfg.core.num_sms as f64;
    let cfg_name = cfg.name.clone();
    let tty = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let (mut runner, check, wall) = simulate(w, args.size, cfg, threads, tty);
    match &check {
        Ok(c) => runner.set_check(check_word(c)),
        Err(_) => runner.set_check("none"),
    }
    let stats = runner.stats();
    print!("{}", runner.summary());
    let sm_cycles_per_s = stats.total.cycles as f64 * sms / wall.max(1e-9);
    println!(
        "{name} ({}) timing on {cfg_name}, {threads} thread(s): {:.2} s, {:.0} SM-cycles/s",
        args.size.name(),
        wall,
        sm_cycles_per_s
    );
    if let Some(path) = &args.json {
        let v = json!({
            "workload": name,
            "size": args.size.name(),
            "mode": "timing",
            "config": cfg_name,
            "threads": threads,
            "wall_s": wall,
            "sm_cycles_per_s": sm_cycles_per_s,
            "stats": runner.stats_json(),
        });
        std::fs::write(path, serde_json::to_string_pretty(&v)? + "\n")
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
