//! One run of a 3D title on the CPU-GPU machine's memory side under a memory-scheduling policy:
//! the unit of the section 8 experiments (baseline, ideal LLC for critical / non-critical
//! accesses, random marking, policy comparisons, LLC size).

use serde::Serialize;
use warpforge_hetero::{HeteroConfig, MemSystem};

use crate::mem::Ideal;
use crate::pipeline::memif::{Marking, StreamCounts};
use crate::shared::SharedMem;
use crate::sim::{self, RunOpts};
use crate::title::Title;

/// What to run.
#[derive(Clone, Debug)]
pub struct MixRun {
    /// The title.
    pub title: Title,
    /// Memory-scheduling policy (`warpforge_hetero::policy` registry name).
    pub policy: String,
    /// Full-size LLC capacity, KB (scaled down with the frame).
    pub llc_kb: u64,
    /// Marking of the critical bit.
    pub marking: Marking,
    /// Accesses made ideal in the LLC.
    pub ideal: Option<Ideal>,
    /// Frame scale and frame counts.
    pub opts: RunOpts,
    /// Extra `key=value` settings of the machine configuration.
    pub sets: Vec<String>,
}

/// What a run measured.
#[derive(Clone, Debug, Serialize)]
pub struct MixResult {
    /// Average FPS over the measured frames (real-frame scale).
    pub fps: f64,
    /// GPU accesses of the measured frames.
    pub counts: StreamCounts,
    /// Mean signed estimator error over the measured frames with a prediction.
    pub estimate_error: Option<f64>,
    /// All frames completed.
    pub complete: bool,
}

/// The machine configuration of a run: the `hetero` preset, the LLC scaled by the frame's work
/// scale (at least 64 KB), the policy and the extra settings.
pub fn config(run: &MixRun) -> Result<HeteroConfig, String> {
    let mut cfg = HeteroConfig::preset("hetero").map_err(|e| e.to_string())?;
    let k = (run.opts.res_div as u64).pow(2).max(1);
    cfg.set("llc.size_kb", &(run.llc_kb / k).max(64).to_string())
        .map_err(|e| e.to_string())?;
    cfg.set("policy.name", &run.policy)
        .map_err(|e| e.to_string())?;
    cfg.apply_overrides(&run.sets).map_err(|e| e.to_string())?;
    Ok(cfg)
}

/// Runs `run`.
pub fn run(run: &MixRun) -> Result<MixResult, String> {
    let cfg = config(run)?;
    let mut mem = SharedMem::new(MemSystem::new(&cfg), 4);
    mem.ideal = run.ideal;
    let mut opts = run.opts.clone();
    opts.cfg.marking = run.marking.clone();
    let r = sim::run(&run.title, &opts, &mut mem);
    Ok(MixResult {
        fps: r.fps,
        counts: r.counts,
        estimate_error: r.estimate_error,
        complete: r.complete,
    })
}
