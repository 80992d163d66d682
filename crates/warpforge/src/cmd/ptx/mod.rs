//! `warpforge ptx`: work with PTX files directly.
//!
//! - `check FILE.ptx`: parses the module and decodes every kernel and every function for
//!   execution; prints a one-line summary, or `error: file:line:col: ...` and exits 2.
//! - `run FILE.ptx --kernel K --grid X[,Y,Z] --block X[,Y,Z] [--shared BYTES] --arg ...
//!   [--out NAME=PATH.npy] [--launches N] [--max-warp-insts N]`: allocates the argument
//!   buffers, launches the kernel and writes chosen buffers back as `.npy` files;
//!   `run --script FILE.toml` runs a launch script instead (buffers once, then a sequence of
//!   kernels: [`program`]); `run --bundle DIR` replays a launch bundle (`warpforge run
//!   WORKLOAD --dump-launches DIR`: every launch of a built-in workload).
//! - `run ... --mode timing [--config NAME|FILE] [--gpgpusim-config FILE]... [--set K=V]...
//!   [--threads N|auto]`: the same launches on the cycle-level model (issue 14), with the
//!   same functional results; `--json FILE` writes `cycles` and the other totals at the top
//!   level and the timing model's `stats` (per kernel and total), as `warpforge run` does.
//!
//! `--arg` forms: a scalar `u32:5`, `s32:-1`, `u64:..`, `s64:..`, `f32:1.5`, `f64:..`, or a device
//! buffer `buf:NAME:TYPE:COUNT:INIT` with TYPE one of u8 i8 u16 i16 u32 s32 u64 s64 f32 f64 and
//! INIT one of `zeros`, `range` (0, 1, 2, ...), `rand:SEED` (integers uniform over the type,
//! floats uniform in [0, 1), ChaCha8 seeded) or `file:PATH.npy` (dtype and element count must
//! match). Every input is validated before anything runs; outputs are written to a temporary file
//! and renamed, so a failure never leaves a half-written `.npy` or JSON file.

mod buffers;
mod program;

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{anyhow, bail, Context};
use serde_json::json;
use warpforge_core::Dim3;
use warpforge_simt::npy;
use warpforge_simt::{Device, LaunchConfig};
use warpforge_timing::TimingRunner;

use super::write_atomically;
use program::Program;

use super::run::Mode;
use super::threads::Threads;

/// Subcommands of `warpforge ptx`.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Parse a PTX file and check that every kernel decodes for execution.
    Check {
        /// The PTX file.
        file: PathBuf,
    },
    /// Run a kernel of a PTX file (or a launch script), functionally or on the timing model.
    Run(Box<RunArgs>),
}

/// Arguments of `warpforge ptx run`.
#[derive(clap::Args)]
pub struct RunArgs {
    /// The PTX file (not with `--script`).
    #[arg(required_unless_present_any = ["script", "bundle"])]
    pub file: Option<PathBuf>,
    /// Kernel (entry) name.
    #[arg(long, required_unless_present_any = ["script", "bundle"])]
    pub kernel: Option<String>,
    /// Grid in CTAs: `X`, `X,Y` or `X,Y,Z`.
    #[arg(long, value_parser = parse_dim, required_unless_present_any = ["script", "bundle"])]
    pub grid: Option<Dim3>,
    /// CTA in threads: `X`, `X,Y` or `X,Y,Z`.
    #[arg(long, value_parser = parse_dim, required_unless_present_any = ["script", "bundle"])]
    pub block: Option<Dim3>,
    /// Dynamic shared memory per CTA in bytes.
    #[arg(long, default_value_t = 0)]
    pub shared: u32,
    /// Kernel argument, in parameter order (repeatable): `u32:5` or `buf:NAME:TYPE:COUNT:INIT`.
    #[arg(long = "arg", value_name = "ARG")]
    pub args: Vec<String>,
    /// Write buffer NAME to a `.npy` file after the run (repeatable): `NAME=PATH.npy`.
    #[arg(long = "out", value_name = "NAME=PATH")]
    pub outs: Vec<String>,
    /// Number of back-to-back launches.
    #[arg(long, default_value_t = 1)]
    pub launches: u32,
    /// A launch script (TOML, or JSON for `.json`): the PTX file, buffers, then a sequence of
    /// kernel launches; replaces FILE, `--kernel`, `--grid`, `--block`, `--shared`, `--arg`
    /// and `--launches`.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["file", "kernel", "grid", "block", "args"])]
    pub script: Option<PathBuf>,
    /// A launch bundle directory written by `warpforge run WORKLOAD --dump-launches DIR`:
    /// replays its `launches.toml` (every launch of the workload, on the recorded memory).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["file", "kernel", "grid", "block", "args", "script"])]
    pub bundle: Option<PathBuf>,
    /// Stop a launch after this many warp instructions (catches livelocks and spin-waits on
    /// other CTAs, which functional mode runs one after another).
    #[arg(long)]
    pub max_warp_insts: Option<u64>,
    /// Endless-kernel guard: a number, or `off`. Functional mode: warp instructions a CTA may
    /// execute without forward progress (no warp exits, no store or atomic), default 2^28.
    /// Timing mode: core cycles without a warp exiting or a CTA starting (`sim.watchdog_cycles`).
    /// Past it the run stops with exit status 2 naming kernel, CTA, warp and pc.
    #[arg(long, value_parser = parse_limit, value_name = "N|off")]
    pub stall_limit: Option<Limit>,
    /// Execution mode: functional, or the cycle-level timing model.
    #[arg(long, value_enum, default_value = "functional")]
    pub mode: Mode,
    /// Timing mode: configuration preset name or TOML file (default gtx480).
    #[arg(long)]
    pub config: Option<String>,
    /// Timing mode: GPGPU-Sim option file(s) imported over `--config` (repeatable).
    #[arg(long = "gpgpusim-config", value_name = "FILE")]
    pub gpgpusim_config: Vec<PathBuf>,
    /// Timing mode: override one configuration key (repeatable), e.g. `--set l1d.sets=64`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Timing mode: simulation worker threads, a number or `auto` (the default).
    #[arg(long, value_parser = super::threads::parse_threads)]
    pub threads: Option<Threads>,
    /// Write the run's statistics as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

/// A bound that can be lifted: a number or `off`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit(pub Option<u64>);

/// Parses `N` or `off` (also `none`, `0`).
pub fn parse_limit(s: &str) -> Result<Limit, String> {
    match s {
        "off" | "none" | "0" => Ok(Limit(None)),
        _ => s
            .parse::<u64>()
            .map(|n| Limit(Some(n)))
            .map_err(|_| format!("`{s}`: expected a positive integer or `off`")),
    }
}

/// Parses `X[,Y[,Z]]`.
pub fn parse_dim(s: &str) -> Result<Dim3, String> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("`{s}`: expected X, X,Y or X,Y,Z"));
    }
    let mut v = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        v[i] = p
            .trim()
            .parse()
            .map_err(|_| format!("`{s}`: `{p}` is not a non-negative integer"))?;
        if v[i] == 0 {
            return Err(format!("`{s}`: extents must be at least 1"));
        }
    }
    Ok(Dim3::new(v[0], v[1], v[2]))
}

/// Runs the subcommand.
pub fn run(cmd: Command) -> anyhow::Result<()> {
    match cmd {
        Command::Check { file } => check(&file),
        Command::Run(a) => run_program(*a),
    }
}

fn read_ptx(file: &Path) -> anyhow::Result<String> {
    std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))
}

fn check(file: &Path) -> anyhow::Result<()> {
    let text = read_ptx(file)?;
    let mut dev = Device::new();
    let m = dev
        .load_ptx(&text, &file.display().to_string())
        .map_err(|e| anyhow!("{e}"))?;
    dev.validate_all(m).map_err(|e| anyhow!("{e}"))?;
    let md = dev.module(m).expect("loaded module");
    let kernels: Vec<&str> = md.kernels().map(|k| k.name.as_str()).collect();
    let funcs = md
        .functions
        .iter()
        .filter(|f| !f.is_entry && !f.is_decl)
        .count();
    let insts: usize = md.functions.iter().map(|f| f.insts.len()).sum();
    println!(
        "{}: ok: {} kernel{} ({}), {} function{}, {} instructions",
        file.display(),
        kernels.len(),
        if kernels.len() == 1 { "" } else { "s" },
        kernels.join(", "),
        funcs,
        if funcs == 1 { "" } else { "s" },
        insts
    );
    Ok(())
}

/// Builds the program of the command line or script, runs it (functionally or on the timing
/// model), then writes the `--out` buffers and the `--json` statistics.
fn run_program(a: RunArgs) -> anyhow::Result<()> {
    let script = a.bundle.as_ref().map(|d| d.join("launches.toml"));
    let program = match script.as_ref().or(a.script.as_ref()) {
        Some(script) => {
            if a.launches != 1 || a.shared != 0 {
                bail!("--launches and --shared do not apply with --script (the script sets them per launch)");
            }
            Program::from_script(script)?
        }
        None => {
            let (Some(file), Some(kernel), Some(grid), Some(block)) =
                (&a.file, &a.kernel, a.grid, a.block)
            else {
                bail!("FILE, --kernel, --grid and --block are required without --script");
            };
            let cfg = LaunchConfig {
                grid,
                block,
                shared_bytes: a.shared,
            };
            Program::from_cli(file, kernel, cfg, &a.args, a.launches)?
        }
    };
    // Outputs, validated before running.
    let mut outs = Vec::new();
    for o in &a.outs {
        let (name, path) = o
            .split_once('=')
            .ok_or_else(|| anyhow!("--out `{o}`: expected NAME=PATH.npy"))?;
        let idx = program
            .buffers
            .iter()
            .position(|b| b.name == name)
            .ok_or_else(|| {
                let names: Vec<&str> = program.buffers.iter().map(|b| b.name.as_str()).collect();
                anyhow!(
                    "--out `{o}`: no buffer named `{name}` (buffers: {})",
                    names.join(", ")
                )
            })?;
        outs.push((idx, PathBuf::from(path)));
    }
    let mut dev = Device::new();
    dev.set_instruction_limit(a.max_warp_insts);
    let timing = match a.mode {
        Mode::Functional => {
            if a.config.is_some()
                || !a.set.is_empty()
                || a.threads.is_some()
                || !a.gpgpusim_config.is_empty()
            {
                bail!("--config, --gpgpusim-config, --set and --threads need --mode timing");
            }
            if let Some(Limit(l)) = a.stall_limit {
                dev.set_stall_limit(l);
            }
            None
        }
        Mode::Timing => {
            let mut cfg = super::config::resolve(a.config.as_deref(), &a.gpgpusim_config, &a.set)?;
            if let Some(Limit(l)) = a.stall_limit {
                cfg.sim.watchdog_cycles = l.unwrap_or(u64::MAX);
            }
            let sms = cfg.core.num_sms;
            let name = cfg.name.clone();
            let mut runner = a.threads.unwrap_or(Threads::Auto).runner(cfg);
            let threads = runner.threads();
            if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
                let bar = indicatif::ProgressBar::new_spinner();
                runner.set_progress(move |p| {
                    bar.set_message(format!(
                        "{}: {} cycles, {} warp insts, CTAs {}/{}",
                        p.kernel, p.cycles, p.warp_insts, p.ctas_done, p.ctas_total
                    ));
                    bar.tick();
                });
            }
            dev.set_runner(Box::new(runner));
            Some((name, threads, sms))
        }
    };
    let loaded = program.load(&mut dev)?;
    let t = Instant::now();
    for (k, (l, args)) in program.launches.iter().zip(&loaded.args).enumerate() {
        program.apply_inputs(k, &mut dev, &loaded)?;
        for _ in 0..l.repeat {
            dev.launch(loaded.module, &l.kernel, l.cfg, args)
                .map_err(|e| anyhow!("{e}"))?;
        }
    }
    let secs = t.elapsed().as_secs_f64();
    let st = dev.total_stats();
    let plural = |n: u32| if n == 1 { "" } else { "es" };
    let totals = format!(
        "{} warp instructions, {} thread instructions, {:.3} s",
        st.warp_insts, st.thread_insts, secs
    );
    if let [l] = program.launches.as_slice() {
        let (g, b, n) = (l.cfg.grid, l.cfg.block, l.repeat);
        println!(
            "{} grid {g} block {b}: {n} launch{}, {totals}",
            l.kernel,
            plural(n)
        );
    } else {
        for l in &program.launches {
            let (g, b, n) = (l.cfg.grid, l.cfg.block, l.repeat);
            println!("{} grid {g} block {b}: {n} launch{}", l.kernel, plural(n));
        }
        println!("{totals}");
    }
    let mut json = json!({
        "ptx": program.ptx.display().to_string(),
        "mode": if timing.is_some() { "timing" } else { "functional" },
        "launches": program.launches_json(),
        "warp_insts": st.warp_insts,
        "thread_insts": st.thread_insts,
        "wall_s": secs,
    });
    if let Some((cfg_name, threads, sms)) = &timing {
        let mut boxed = dev.take_runner().expect("runner installed");
        let runner = boxed
            .as_any_mut()
            .downcast_mut::<TimingRunner>()
            .expect("a timing runner");
        print!("{}", runner.summary());
        let cycles = runner.stats().total.cycles;
        let sm_cycles_per_s = cycles as f64 * *sms as f64 / secs.max(1e-9);
        println!(
            "timing on {cfg_name}, {threads} thread(s): {cycles} cycles, {:.0} SM-cycles/s",
            sm_cycles_per_s
        );
        json["config"] = json!(cfg_name);
        json["threads"] = json!(threads);
        json["sm_cycles_per_s"] = json!(sm_cycles_per_s);
        json["stats"] = runner.stats_json();
        super::run::add_top_level_totals(&mut json);
    }
    let (compared, bad) = program.check_expected(&mut dev, &loaded)?;
    if compared > 0 {
        json["check"] = json!(if bad.is_empty() { "passed" } else { "failed" });
        if bad.is_empty() {
            println!("check: the final bytes of {compared} buffer(s) match the recorded run");
        }
    }
    for (idx, path) in outs {
        let b = &loaded.buffers[idx];
        let data: Vec<u8> = dev.read(b.ptr, (b.count as usize) * b.dtype.size())?;
        write_atomically(&path, npy::write(b.dtype, &data))?;
        println!(
            "wrote {} ({} x {})",
            path.display(),
            b.count,
            b.dtype.descr()
        );
    }
    if let Some(path) = &a.json {
        write_atomically(
            path,
            (serde_json::to_string_pretty(&json)? + "\n").as_bytes(),
        )?;
    }
    if !bad.is_empty() {
        bail!(
            "check failed: the replay's final memory differs from the recorded run:\n  {}",
            bad.join("\n  ")
        );
    }
    Ok(())
}
