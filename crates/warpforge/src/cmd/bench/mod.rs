//! `warpforge bench`: simulation-speed benchmarks in release mode. Each front end / engine has its
//! own module; `--what` picks one or runs them all. Figures go to `docs/PERFORMANCE.md`.

mod functional;
mod scaling;
mod timing;
mod trace;

/// Arguments of `warpforge bench`.
#[derive(clap::Args)]
pub struct Args {
    /// What to measure: `functional`, `timing`, `trace`, `all` (those three) or `scaling`
    /// (thread scaling of the timing model; minutes, not part of `all`).
    #[arg(long, default_value = "all")]
    pub what: String,
    /// Write the figures as JSON to this file as well.
    #[arg(long)]
    pub json: Option<std::path::PathBuf>,
    /// `scaling` only: override a configuration key of every run (repeatable), e.g.
    /// `--set sim.window=4`.
    #[arg(long)]
    pub set: Vec<String>,
    /// `scaling` only: the machine sizes in SMs (comma-separated; default 15,80,132).
    #[arg(long, value_delimiter = ',')]
    pub sms: Vec<u32>,
}

/// Runs the benchmarks.
pub fn run(args: Args) -> anyhow::Result<()> {
    let mut report = serde_json::Map::new();
    let all = args.what == "all";
    if !all && !["functional", "timing", "trace", "scaling"].contains(&args.what.as_str()) {
        anyhow::bail!(
            "unknown --what `{}` (expected functional, timing, trace, scaling or all)",
            args.what
        );
    }
    if (!args.set.is_empty() || !args.sms.is_empty()) && args.what != "scaling" {
        anyhow::bail!("--set and --sms apply to --what scaling only");
    }
    if args.what == "scaling" {
        let sms = if args.sms.is_empty() {
            scaling::MACHINES.to_vec()
        } else {
            args.sms.clone()
        };
        report.insert("scaling".into(), scaling::run(&args.set, &sms)?);
    }
    if all || args.what == "functional" {
        report.insert("functional".into(), functional::run()?);
    }
    if all || args.what == "timing" {
        report.insert("timing".into(), timing::run()?);
    }
    if all || args.what == "trace" {
        report.insert("trace".into(), trace::run()?);
    }
    if let Some(path) = args.json {
        warpforge_core::output::write_atomic(&path, serde_json::to_string_pretty(&report)?)?;
    }
    Ok(())
}
