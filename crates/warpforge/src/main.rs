//! `warpforge`: the command line of the warpforge GPU architecture simulator.
//!
//! Each subcommand lives in its own module under `cmd/` with an `Args` struct (clap) and a
//! `run(args)` function; this file only dispatches. Errors print as `error: ...` with their
//! causes and exit with status 2.

use clap::{Parser, Subcommand};

mod cmd;

/// warpforge: a fast, deterministic, cycle-level GPU simulator with analytical, power and runtime
/// models around it.
#[derive(Parser)]
#[command(name = "warpforge", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Refuse timing-model machines whose estimated memory exceeds this size (`512M`, `16G`);
    /// default: the host's physical memory.
    #[arg(long, global = true, value_name = "SIZE", value_parser = cmd::config::parse_bytes)]
    max_memory: Option<u64>,
}

#[derive(Subcommand)]
enum Command {
    /// List the built-in workloads.
    List(cmd::list::Args),
    /// Run a workload functionally or on the timing model and write its statistics.
    Run(cmd::run::Args),
    /// Characterise a workload from a functional run (instruction mix, divergence, coalescing...).
    Characterize(cmd::characterize::Args),
    /// Work with PTX files directly: check, run.
    #[command(subcommand)]
    Ptx(cmd::ptx::Command),
    /// Predict performance, power and energy with the analytical models.
    Predict(cmd::predict::Args),
    /// HeteroPDP: choose the CPU or the GPU for a workload's kernels, alone or with co-runners.
    PredictTarget(cmd::heteropdp::Args),
    /// Accel-Sim traces: record a workload, run a trace.
    #[command(subcommand)]
    Trace(cmd::trace::Command),
    /// Configuration presets: import GPGPU-Sim configs, show presets.
    #[command(subcommand)]
    Config(cmd::config::Command),
    /// Reproduce the documents' experiments.
    #[command(subcommand)]
    Experiment(cmd::experiment::Command),
    /// Measure simulation speed.
    Bench(cmd::bench::Args),
    /// Run a grid of points (workloads x configs x `--set` values) locally or on Slurm.
    Sweep(cmd::sweep::Args),
    /// Write an HTML report with SVG plots of a sweep directory.
    Report(cmd::report::Args),
    /// Print the statistics that differ between two runs' JSON, with ratios.
    Compare(cmd::compare::Args),
}

/// Gives SIGPIPE back its default action, which the Rust runtime ignores: `warpforge list | head`
/// then ends quietly when `head` closes the pipe, as Unix tools do, instead of panicking on the
/// failed write to stdout.
fn quiet_on_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in `main`, before any other thread exists; SIG_DFL is a valid
    // disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() {
    quiet_on_closed_pipe();
    let cli = Cli::parse();
    if let Some(b) = cli.max_memory {
        cmd::config::set_max_memory(b);
    }
    let result = match cli.command {
        Command::List(a) => cmd::list::run(a),
        Command::Run(a) => cmd::run::run(a),
        Command::Characterize(a) => cmd::characterize::run(a),
        Command::Ptx(c) => cmd::ptx::run(c),
        Command::Predict(a) => cmd::predict::run(a),
        Command::PredictTarget(a) => cmd::heteropdp::run(a),
        Command::Trace(c) => cmd::trace::run(c),
        Command::Config(c) => cmd::config::run(c),
        Command::Experiment(c) => cmd::experiment::run(c),
        Command::Bench(a) => cmd::bench::run(a),
        Command::Sweep(a) => cmd::sweep::run(a),
        Command::Compare(a) => cmd::compare::run(a),
        Command::Report(a) => cmd::report::run(a),
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        for cause in e.chain().skip(1) {
            eprintln!("  caused by: {cause}");
        }
        std::process::exit(2);
    }
}
