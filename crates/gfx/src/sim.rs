//! Running a title: the pipeline, the frame generator and a memory side, for a number of warm-up
//! and measured frames.

use serde::Serialize;

use crate::generator::Generator;
use crate::mem::GpuMemory;
use crate::pipeline::memif::StreamCounts;
use crate::pipeline::{Config, FrameStats, Gpu};
use crate::title::Title;

/// How a title is run.
#[derive(Clone, Debug)]
pub struct RunOpts {
    /// Resolution divisor per axis (the frame is 1/`res_div²` of the real one).
    pub res_div: u32,
    /// Memory-hierarchy divisor: texture footprint and capacity-bound GPU caches (and, in
    /// [`crate::mix`], the LLC and the CPU caches) are divided by it.
    pub mem_div: u32,
    /// Frames run before measuring (the first warms the caches, the second is the estimator's
    /// learning frame).
    pub warmup: usize,
    /// Frames measured.
    pub frames: usize,
    /// Pipeline parameters (`work_scale` is set from the resolution divisor).
    pub cfg: Config,
    /// Seed of the scene.
    pub seed: u64,
    /// Cycle limit per frame (a guard against a stuck pipeline).
    pub max_frame_cycles: u64,
}

impl Default for RunOpts {
    fn default() -> Self {
        Self {
            res_div: 8,
            mem_div: 16,
            warmup: 2,
            frames: 2,
            cfg: Config::default(),
            seed: 7,
            max_frame_cycles: 50_000_000,
        }
    }
}

impl RunOpts {
    /// The options of a named run size of `experiment frame`: `tiny` (1/16 resolution per axis,
    /// one measured frame) or `small` (1/8, two measured frames); both warm up two frames.
    pub fn sized(size: &str) -> Option<RunOpts> {
        let (res_div, frames) = match size {
            "tiny" => (16, 1),
            "small" => (8, 2),
            _ => return None,
        };
        Some(RunOpts {
            res_div,
            frames,
            ..RunOpts::default()
        })
    }
}

/// The outcome of running a title.
#[derive(Clone, Debug, Serialize)]
pub struct RunResult {
    /// Title name.
    pub title: &'static str,
    /// Average FPS over the measured frames (frames / total time), real-frame scale.
    pub fps: f64,
    /// The measured frames.
    pub frames: Vec<FrameStats>,
    /// Accesses of the measured frames.
    pub counts: StreamCounts,
    /// Mean signed estimator error over the measured frames that had a prediction.
    pub estimate_error: Option<f64>,
    /// The same with the plain `C_cur` reading.
    pub estimate_error_plain: Option<f64>,
    /// Whether every frame completed within the cycle limit.
    pub complete: bool,
}

impl RunResult {
    /// Share of the measured cycles in which each unit was marked bottlenecked (index = `Unit as
    /// usize`).
    pub fn bottleneck_share(&self) -> [f64; 5] {
        let cycles: u64 = self.frames.iter().map(|f| f.cycles).sum();
        std::array::from_fn(|u| {
            let b: u64 = self.frames.iter().map(|f| f.bottleneck_cycles[u]).sum();
            b as f64 / cycles.max(1) as f64
        })
    }

    /// Algorithm 1's runs over the measured frames (diagnostic of claim 4).
    pub fn walk(&self) -> crate::pipeline::probe::WalkStats {
        let mut w = crate::pipeline::probe::WalkStats::default();
        for f in &self.frames {
            w.add(&f.walk);
        }
        w
    }

    /// The units' sampled activity over the measured frames (index = `Unit as usize`).
    pub fn waits(&self) -> [crate::pipeline::probe::Waits; 5] {
        let mut w = [crate::pipeline::probe::Waits::default(); 5];
        for f in &self.frames {
            for (a, x) in w.iter_mut().zip(&f.waits) {
                a.add(x);
            }
        }
        w
    }

    /// The whole GPU's sampled activity over the measured frames.
    pub fn gpu_waits(&self) -> crate::pipeline::probe::Waits {
        let mut w = crate::pipeline::probe::Waits::default();
        for f in &self.frames {
            w.add(&f.gpu_waits);
        }
        w
    }

    /// The shader cores' sampled context occupancy over the measured frames.
    pub fn sh_contexts(&self) -> crate::pipeline::probe::ShContexts {
        let mut w = crate::pipeline::probe::ShContexts::default();
        for f in &self.frames {
            w.add(&f.sh_contexts);
        }
        w
    }

    /// Each unit's states and throughput, and why the SH queue was empty, over the measured
    /// frames (session 25, shfeed).
    pub fn unit_states(&self) -> crate::pipeline::probe::UnitStates {
        let mut w = crate::pipeline::probe::UnitStates::default();
        for f in &self.frames {
            w.add(&f.unit_states);
        }
        w
    }

    /// Which units the GPU waited for while it stood still, over the measured frames.
    pub fn stalls(&self) -> crate::pipeline::probe::Stalls {
        let mut w = crate::pipeline::probe::Stalls::default();
        for f in &self.frames {
            w.add(&f.stalls);
        }
        w
    }

    /// Share of the measured cycles in which the frame-rate gate was open (predicted FPS below
    /// the target): the share in which the critical bit could be set at all.
    pub fn gate_share(&self) -> f64 {
        let cycles: u64 = self.frames.iter().map(|f| f.cycles).sum();
        let g: u64 = self.frames.iter().map(|f| f.gate_cycles).sum();
        g as f64 / cycles.max(1) as f64
    }
}

/// A pipeline and generator for `title`, with the configuration adjusted to the scaled frame.
pub fn build(title: &Title, opts: &RunOpts) -> (Gpu, Generator) {
    use crate::pipeline::FrameSource;
    let mut generator = Generator::new(*title, opts.res_div, opts.mem_div, opts.seed);
    let mut cfg = opts.cfg.clone();
    cfg.work_scale = generator.work_scale();
    // Capacity-bound GPU caches shrink with the memory hierarchy (the tile-local ROP caches
    // do not).
    let k = opts.mem_div.max(1) as f64;
    let scaled = |b: u64| ((b as f64 / k) as u64).max(16 << 10);
    cfg.tex_cache = scaled(cfg.tex_cache);
    cfg.vertex_cache = scaled(cfg.vertex_cache);
    cfg.hiz_cache = scaled(cfg.hiz_cache);
    // Consistent scaling: render targets store `rt_scale` real pixels per simulated pixel, and
    // the tile-local ROP caches grow with them, holding the same number of tiles as at full
    // size. \[INTERP\] Kept at Table 1's 2 KB they would hold half a tile at `tiny`; that
    // variant made every run several times slower (each quad's depth blocks re-read through
    // the LLC) and was not adopted (docs/EXPERIMENTS.md, "Scaling").
    cfg.rt_scale = crate::scene::rt_scale(opts.res_div, opts.mem_div);
    cfg.rop_cache *= cfg.rt_scale as u64;
    let (w, h) = Generator::size(title, opts.res_div);
    let first = generator.frame(0);
    (Gpu::new(cfg, w, h, first), generator)
}

/// Runs `title` against `mem`.
pub fn run(title: &Title, opts: &RunOpts, mem: &mut dyn GpuMemory) -> RunResult {
    let (mut gpu, mut generator) = build(title, opts);
    let n = opts.warmup + opts.frames;
    let max = opts.max_frame_cycles * n as u64;
    gpu.run_frames(n, max, mem, &mut generator);
    summarize(title, &gpu.frames, opts.warmup, n)
}

/// Summarises the frames after `warmup` of `n` wanted.
pub fn summarize(title: &Title, frames: &[FrameStats], warmup: usize, n: usize) -> RunResult {
    let measured: Vec<FrameStats> = frames.iter().skip(warmup).cloned().collect();
    let fps = if measured.is_empty() {
        0.0
    } else {
        measured.len() as f64 / measured.iter().map(|f| 1.0 / f.fps).sum::<f64>()
    };
    let mut counts = StreamCounts::default();
    for f in &measured {
        for s in 0..8 {
            counts.reads[s] += f.counts.reads[s];
            counts.writes[s] += f.counts.writes[s];
            counts.critical[s] += f.counts.critical[s];
            counts.marked[s] += f.counts.marked[s];
        }
    }
    let mean = |e: Vec<f64>| (!e.is_empty()).then(|| e.iter().sum::<f64>() / e.len() as f64);
    let errs: Vec<f64> = measured.iter().filter_map(|f| f.estimate_error).collect();
    let plain = mean(
        measured
            .iter()
            .filter_map(|f| f.estimate_error_plain)
            .collect(),
    );
    RunResult {
        title: title.name,
        fps,
        estimate_error: mean(errs),
        estimate_error_plain: plain,
        counts,
        complete: frames.len() >= n,
        frames: measured,
    }
}
