//! `warpforge experiment frame`: the 3D-rendering half of document 004 (sections 2, 4, 8.1; claims
//! 1-15 and 19) on the `warpforge_gfx` pipeline model attached to the CPU-GPU machine's shared
//! memory side (`warpforge_hetero`).
//!
//! Every title co-runs with 4-way CPU mixes of SPEC CPU2006 substitutes (section 8.4: HL, and
//! with `--size small` also H and L). Runs, per title of Table 2 (the eight below-40-FPS titles
//! where the document's evaluation applies, all 14 for the baseline and the estimator): the
//! FR-FCFS baseline (FPS, critical fraction, estimator error); on the HL mix, the LLC made ideal
//! for the critical and for the non-critical accesses (claim 3) and IM with random marking at the
//! baseline's per-stream critical fractions (claim 5); every compared policy (claims 7-14) and IM
//! and FR-FCFS with an 8 MB LLC (claim 15) on every mix. CPU weighted speedup = sum of shared IPC
//! over alone IPC (one core alone, same warm-up); per title the geometric mean over its mixes,
//! then over titles; gains are ratio − 1.

mod plan;
mod report;

use std::path::PathBuf;

use anyhow::{bail, Context, Result};

use crate::cmd::write_atomically;

/// Arguments of `experiment frame`.
#[derive(clap::Args)]
pub struct FrameArgs {
    /// Write the report (JSON) to this file.
    #[arg(long)]
    pub json: PathBuf,
    /// Also write SVG charts into this directory.
    #[arg(long)]
    pub svg: Option<PathBuf>,
    /// Run size: `tiny` (1/16 resolution per axis, 1 measured frame) or `small` (1/8, 2 frames).
    #[arg(long, default_value = "tiny")]
    pub size: String,
    /// Titles (comma-separated; default: all 14 of Table 2).
    #[arg(long, value_delimiter = ',')]
    pub titles: Vec<String>,
    /// Policies compared with `frfcfs` (comma-separated; default: all of claims 7-14).
    #[arg(long, value_delimiter = ',')]
    pub policy: Vec<String>,
    /// GPU cycles a frame may take before its run is given up (default 50M): a run that hits
    /// it is listed in the report's `failed_runs` and left out of every mean.
    #[arg(long)]
    pub max_frame_cycles: Option<u64>,
    /// Simulations at once (default: available cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// A `KEY=VALUE` setting of the CPU-GPU machine's configuration (`warpforge_hetero`'s
    /// keys, e.g. `policy.im_sched_draw_on_arrival=false`), applied to every mixed run after
    /// the 3D mixes' own settings (the alone runs, the weighted-speedup denominators, keep the
    /// preset), or of the GPU pipeline (`gfx.raise_pending=false`, `gfx.contexts=N` quad
    /// contexts per shader core, default 16, `gfx.fe_cross_draw=true` FE's look-ahead across
    /// draws, default false); repeatable. Recorded in the report's `sets`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// Seeds of the runs with random draws: each policy that draws (IM-SCHED's draws in `im`
    /// and `im_sched`, SMS-0.9's; `warpforge_hetero::policy::draws_random`), on every title
    /// and mix, IM at 8 MB and the random-marking runs (claim 5; their marking draws use the
    /// same seed) run with `policy.seed` = s, s+1, ..., s+N-1, s the configured seed (the
    /// preset's 1, or `--set policy.seed=s`), so that seed s is the single-seed run; the other
    /// runs once. Each reported figure is the geometric mean over seeds x mixes x titles
    /// (`policies.<name>.seeds` per seed, `.spread` min and max).
    #[arg(long, default_value_t = 3)]
    pub seeds: usize,
}

/// Runs the experiment.
pub fn run(a: FrameArgs) -> Result<()> {
    let plan = plan::Plan::new(&a)?;
    let jobs = a
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if jobs == 0 {
        bail!("--jobs must be at least 1");
    }
    let outcome = plan.execute(jobs)?;
    let rep = report::Report::build(&plan, &outcome);
    let text = serde_json::to_string_pretty(&rep.json)? + "\n";
    if let Some(dir) = &a.svg {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        for (name, svg) in rep.charts()? {
            write_atomically(&dir.join(name), svg.as_bytes())?;
        }
    }
    write_atomically(&a.json, text.as_bytes())?;
    println!("{}", rep.summary());
    Ok(())
}
