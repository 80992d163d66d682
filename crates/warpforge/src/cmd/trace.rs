//! `warpforge trace`: Accel-Sim traces.
//!
//! * `warpforge trace run DIR/kernelslist.g [--config NAME | --gpgpusim-config FILE ...]` replays
//!   a trace on the timing model and writes the same statistics as `warpforge run --mode timing`.
//! * `warpforge trace record WORKLOAD -o DIR` runs a workload execution-driven and writes its
//!   dynamic instructions as an Accel-Sim trace (warpforge PTX pseudo-ISA); with `--config` or
//!   `--gpgpusim-config` it also runs on the timing model and reports the cycle count, which a
//!   replay of the recorded trace reproduces.
//! * `warpforge trace info DIR/kernelslist.g` checks every line and prints instruction counts.

use anyhow::Context;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Instant;
use warpforge_simt::Device;
use warpforge_timing::TimingRunner;
use warpforge_trace::{count, replay, KernelList, OpcodeTable, TraceRecorder};
use warpforge_workloads::Size;

/// Subcommands of `warpforge trace`.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Replay an Accel-Sim trace on the timing model.
    Run(RunArgs),
    /// Record a workload's execution as an Accel-Sim trace.
    Record(RecordArgs),
    /// Check a trace and print its instruction counts.
    Info(InfoArgs),
}

/// Timing-configuration arguments shared by `run` and `record`.
#[derive(clap::Args)]
pub struct ConfigArgs {
    /// Configuration preset name or TOML file (the base when --gpgpusim-config is given).
    #[arg(long)]
    pub config: Option<String>,
    /// GPGPU-Sim option file(s) (gpgpusim.config, trace.config), in order; repeatable.
    #[arg(long = "gpgpusim-config", value_name = "FILE")]
    pub gpgpusim_config: Vec<PathBuf>,
    /// Override one configuration key (repeatable), e.g. `--set l1d.sets=64`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Simulation worker threads, a number or `auto` (free cores, capped where measurements
    /// show no gain; statistics never depend on it).
    #[arg(long, default_value = "auto", value_parser = super::threads::parse_threads)]
    pub threads: super::threads::Threads,
}

/// Arguments of `warpforge trace run`.
#[derive(clap::Args)]
pub struct RunArgs {
    /// `kernelslist.g` (or the directory holding it).
    pub list: PathBuf,
    #[command(flatten)]
    pub cfg: ConfigArgs,
    /// Extra opcode table (TOML, same layout as crates/trace/opcodes/*.toml) added to the built-in one.
    #[arg(long)]
    pub opcodes: Option<PathBuf>,
    /// Write the statistics as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Also write the statistics in GPGPU-Sim / Accel-Sim's report layout (`gpu_sim_cycle = ...`
    /// lines) to this file, for scripts that parse Accel-Sim logs.
    #[arg(long, value_name = "FILE")]
    pub accelsim_stats: Option<PathBuf>,
}

/// Arguments of `warpforge trace record`.
#[derive(clap::Args)]
pub struct RecordArgs {
    /// Workload name (see `warpforge list`).
    pub workload: String,
    /// Output directory (kernelslist.g and kernel-N.traceg).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Input size: tiny, small or paper.
    #[arg(long, default_value = "tiny", value_parser = super::run::parse_size)]
    pub size: Size,
    #[command(flatten)]
    pub cfg: ConfigArgs,
    /// Write the timing statistics of the recorded run as JSON (needs a timing configuration).
    #[arg(long)]
    pub json: Option<PathBuf>,
}

/// Arguments of `warpforge trace info`.
#[derive(clap::Args)]
pub struct InfoArgs {
    /// `kernelslist.g` (or the directory holding it).
    pub list: PathBuf,
    /// Extra opcode table.
    #[arg(long)]
    pub opcodes: Option<PathBuf>,
}

fn timing_requested(c: &ConfigArgs) -> bool {
    c.config.is_some() || !c.gpgpusim_config.is_empty() || !c.set.is_empty()
}

fn runner(c: &ConfigArgs) -> anyhow::Result<TimingRunner> {
    let cfg = super::config::resolve(c.config.as_deref(), &c.gpgpusim_config, &c.set)?;
    Ok(c.threads.runner(cfg))
}

fn write_json(path: &std::path::Path, v: &serde_json::Value) -> anyhow::Result<()> {
    warpforge_core::output::write_atomic(path, serde_json::to_string_pretty(v)? + "\n")
        .with_context(|| format!("writing {}", path.display()))
}

/// Opens `list` (a `kernelslist.g` or its directory) and refuses a list without kernels.
fn open_list(list: &Path) -> anyhow::Result<KernelList> {
    let kl = KernelList::open(list)?;
    if kl.kernels().next().is_none() {
        let file = if list.is_dir() {
            list.join("kernelslist.g")
        } else {
            list.to_path_buf()
        };
        anyhow::bail!(
            "{}: no kernels (the list names no kernel trace)",
            file.display()
        );
    }
    Ok(kl)
}

/// A fresh temporary directory beside `target` (same file system, so it can be renamed).
fn temp_dir_beside(target: &Path) -> anyhow::Result<PathBuf> {
    let parent = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).with_context(|| format!("creating {}", parent.display()))?;
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "trace".into());
    for i in 0..1000u32 {
        let dir = parent.join(format!(".{name}.partial-{}-{i}", std::process::id()));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e).with_context(|| format!("creating {}", dir.display())),
        }
    }
    anyhow::bail!(
        "could not create a temporary directory beside {}",
        target.display()
    )
}

/// Moves the recorded files of `tmp` into `target` (created if needed; files of the same name
/// are replaced) and removes `tmp`.
fn publish(tmp: &Path, target: &Path) -> anyhow::Result<()> {
    if !target.exists() && std::fs::rename(tmp, target).is_ok() {
        return Ok(());
    }
    std::fs::create_dir_all(target).with_context(|| format!("creating {}", target.display()))?;
    for entry in std::fs::read_dir(tmp).with_context(|| format!("reading {}", tmp.display()))? {
        let entry = entry?;
        let to = target.join(entry.file_name());
        std::fs::rename(entry.path(), &to)
            .with_context(|| format!("moving {} to {}", entry.path().display(), to.display()))?;
    }
    std::fs::remove_dir(tmp).with_context(|| format!("removing {}", tmp.display()))
}

/// Records workload run `a` into the directory `dir`; fails on a failed output check.
fn record_into(a: &RecordArgs, dir: &Path) -> anyhow::Result<()> {
    let w = super::run::find_workload(&a.workload)?;
    let mut dev = Device::new();
    let timing = timing_requested(&a.cfg);
    if timing {
        dev.set_runner(Box::new(runner(&a.cfg)?));
    }
    let rec = TraceRecorder::new(dir).with_context(|| format!("creating {}", dir.display()))?;
    dev.set_observer(Some(Box::new(rec)));
    let check = w
        .run(&mut dev, a.size)
        .with_context(|| format!("running workload `{}`", a.workload))?;
    let mut obs = dev.take_observer().context("the recorder disappeared")?;
    let rec = obs
        .as_any_mut()
        .downcast_mut::<TraceRecorder>()
        .context("the observer is not the trace recorder")?;
    rec.finish().map_err(anyhow::Error::msg)?;
    println!(
        "recorded {} kernel(s), {} warp instructions into {}",
        rec.kernels().len(),
        rec.warp_insts(),
        a.output.join("kernelslist.g").display()
    );
    if timing {
        let r = dev
            .runner_mut()
            .and_then(|r| r.as_any_mut().downcast_mut::<TimingRunner>())
            .context("the timing runner disappeared")?;
        r.set_check(super::run::check_word(&check));
        print!("{}", r.summary());
        if let Some(p) = &a.json {
            let mut v = json!({
                "workload": a.workload,
                "size": a.size.name(),
                "mode": "timing",
                "config": r.config().name,
                "threads": r.threads(),
                "stats": r.stats_json(),
            });
            super::run::add_top_level_totals(&mut v);
            write_json(p, &v)?;
        }
    }
    if let warpforge_workloads::Check::Failed(m) = check {
        anyhow::bail!("{}: output check failed: {m}", a.workload);
    }
    Ok(())
}

/// Replays `list` on a runner built from `cfg`; returns the runner (statistics inside) and the
/// wall time in seconds. Used by `trace run` and the benchmark.
pub fn replay_list(
    list: &std::path::Path,
    cfg: &ConfigArgs,
    opcodes: Option<&std::path::Path>,
) -> anyhow::Result<(TimingRunner, f64)> {
    let kl = open_list(list)?;
    let extra = opcodes.map(OpcodeTable::from_file).transpose()?;
    let mut r = runner(cfg)?;
    let t0 = Instant::now();
    replay(&kl, &mut r, extra.as_ref())?;
    Ok((r, t0.elapsed().as_secs_f64()))
}

/// Runs the subcommand.
pub fn run(cmd: Command) -> anyhow::Result<()> {
    match cmd {
        Command::Run(a) => {
            let (r, wall) = replay_list(&a.list, &a.cfg, a.opcodes.as_deref())?;
            print!("{}", r.summary());
            let stats = r.stats();
            let sm_cycles_per_s =
                stats.total.cycles as f64 * f64::from(r.config().core.num_sms) / wall.max(1e-9);
            println!(
                "{} on {}, {} thread(s): {wall:.2} s, {sm_cycles_per_s:.0} SM-cycles/s",
                a.list.display(),
                stats.config,
                r.threads()
            );
            if let Some(p) = &a.json {
                // The layout of `warpforge run --mode timing --json`, with `trace` for `workload`.
                let mut v = json!({
                    "trace": a.list.display().to_string(),
                    "mode": "trace",
                    "config": stats.config,
                    "threads": r.threads(),
                    "wall_s": wall,
                    "sm_cycles_per_s": sm_cycles_per_s,
                    "stats": r.stats_json(),
                });
                super::run::add_top_level_totals(&mut v);
                write_json(p, &v)?;
            }
            if let Some(p) = &a.accelsim_stats {
                let text =
                    warpforge_trace::accelsim_stats::render(&stats, r.config().core.max_warps);
                warpforge_core::output::write_atomic(p, text)
                    .with_context(|| format!("writing {}", p.display()))?;
            }
            Ok(())
        }
        Command::Record(a) => {
            if !timing_requested(&a.cfg) && a.json.is_some() {
                anyhow::bail!(
                    "--json needs a timing configuration (--config or --gpgpusim-config)"
                );
            }
            // Record into a temporary directory beside the target and move the files in only
            // when the whole run succeeded: a failed recording leaves no partial trace.
            let tmp = temp_dir_beside(&a.output)?;
            let r = record_into(&a, &tmp).and_then(|()| publish(&tmp, &a.output));
            if r.is_err() {
                let _ = std::fs::remove_dir_all(&tmp);
            }
            r
        }
        Command::Info(a) => {
            let kl = open_list(&a.list)?;
            let extra = a
                .opcodes
                .as_deref()
                .map(OpcodeTable::from_file)
                .transpose()?;
            for k in kl.kernels() {
                let c = count(k, extra.as_ref())?;
                println!(
                    "{}: {} CTAs, {} warp instructions, {} thread instructions, {} memory instructions",
                    k.display(),
                    c.ctas,
                    c.warp_insts,
                    c.thread_insts,
                    c.mem_insts
                );
            }
            Ok(())
        }
    }
}
