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
    if args.what == "scaling" {
        report.insert("scaling".into(), scaling::run()?);
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
