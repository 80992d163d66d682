//! The closed-loop queueing model of the 3D pipeline (document 004 sections 2.1-2.2, Figure 6).
//!
//! Units and queues: FE (one queue of draw calls), ZS ×`rops`, SH (one queue feeding `cores`
//! shader cores), CW ×`rops` and BT (one queue of blits): 2n + 3 queues. Draw path FE → ZS → SH →
//! CW with early-Z, FE → SH → ZS → CW with late-Z; blit path BT → output. Every queue is finite and
//! a unit whose downstream queue is full stalls (back-pressure). Every unit fetches the blocks it
//! needs through its GPU-internal cache ([`memif`]); a unit waits for its data, so memory latency
//! and bandwidth feed back into frame time. Each GPU cycle the flow counters of every instance are
//! updated; every `period` cycles Algorithm 1 recomputes the bottleneck vector that, with the
//! estimator's below-target flag, gives the critical bit of every access.

mod bt;
mod cw;
mod fe;
pub mod memif;
pub mod probe;
mod sh;
mod zs;

use crate::bottleneck;
use crate::counters::FlowCounters;
use crate::estimator::Estimator;
use crate::mem::GpuMemory;
use crate::scene::{Command, Frame, Layout, Quad};
use crate::stream::Stream;
use memif::{Marking, MemIf, StreamCounts};

/// Pipeline parameters (document 004 Table 1 and section 2.3 derived rates; queue sizes
/// and cache sizes of the scaled frame are \[INTERP\]).
#[derive(Clone, Debug)]
pub struct Config {
    /// ROPs (ZS + CW pairs).
    pub rops: usize,
    /// Shader cores.
    pub cores: usize,
    /// SIMD units per core (one quad each).
    pub simd: usize,
    /// Quad contexts per core: the quads a core holds at once, fetching, ready, executing or
    /// waiting for their ROP queue. Table 1 does not give it; 16 is our choice \[INTERP\]
    /// (`--set gfx.contexts=N` of `experiment frame`; sensitivity study of session 25,
    /// docs/EXPERIMENTS.md).
    pub contexts: usize,
    /// FE rasterisation rate, quads per cycle.
    pub fe_rate: usize,
    /// Quads dispatched from the SH queue per cycle.
    pub sh_dispatch: usize,
    /// Capacity of each ZS and CW queue, quads.
    pub rop_queue: usize,
    /// Capacity of the SH queue, quads.
    pub sh_queue: usize,
    /// Draw calls queued at FE.
    pub fe_queue: usize,
    /// Queue entries that may fetch ahead of the head.
    pub lookahead: usize,
    /// Reads the GPU may queue towards the LLC.
    pub out_queue: usize,
    /// Cycles between runs of Algorithm 1 (section 10.4 item 1: 1K).
    pub period: u64,
    /// Target FPS (40 in the evaluation).
    pub target_fps: f64,
    /// Work scale: one simulated frame is 1/`work_scale` of the real frame, so reported FPS =
    /// 1e9 / (cycles × work_scale).
    pub work_scale: f64,
    /// GPU clock, Hz.
    pub clock_hz: f64,
    /// Texture cache bytes.
    pub tex_cache: u64,
    /// Vertex cache bytes.
    pub vertex_cache: u64,
    /// Per-ROP depth and colour cache bytes.
    pub rop_cache: u64,
    /// Real pixels stored per simulated render-target pixel ([`crate::scene::rt_scale`]).
    pub rt_scale: usize,
    /// HiZ cache bytes.
    pub hiz_cache: u64,
    /// Shader instruction cache bytes.
    pub instr_cache: u64,
    /// Render-target tile side for the estimator, pixels.
    pub rtt_px: usize,
    /// Frame with which the estimator starts learning (earlier frames warm the caches).
    pub estimator_start: u64,
    /// Marking rule of the critical bit.
    pub marking: Marking,
    /// The frame-rate gate of the critical bit (section 2.6: critical only while the predicted
    /// FPS is below target) held at this value instead of following the estimator. `None` (the
    /// mechanism): the estimator decides. Claim 3's ideal-LLC runs hold it at the baseline's side
    /// of the target, so that the classification being idealised is the one of the baseline and
    /// the idealisation cannot feed back into it (see docs/EXPERIMENTS.md, claim 3).
    pub held_gate: Option<bool>,
    /// Seed of the random marking.
    pub seed: u64,
    /// A read in flight issued non-critical becomes critical when an access that is critical
    /// now finds its block pending (section 4.1.1: every access of a bottlenecked unit is
    /// critical; section 4.3: the DRAM access carries the bit; `MemIf::merge`). `false` (the
    /// rule until session 20, an ablation): a read keeps the bit it was issued with.
    pub raise_pending: bool,
    /// FE's vertex look-ahead (4 x `lookahead` blocks) continues into the vertex blocks of the
    /// draws queued behind the current one when the current draw ends inside the window.
    /// Section 2.1 gives FE no prefetch rule; stopping at the end of the draw (`false`, the
    /// default) is our choice \[INTERP\]. `true` is the session-25 ablation (`--set
    /// gfx.fe_cross_draw=true`, docs/EXPERIMENTS.md, "Ablation: FE look-ahead across draws").
    pub fe_cross_draw: bool,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            rops: 16,
            cores: 64,
            simd: 4,
            contexts: 16,
            fe_rate: 16,
            sh_dispatch: 16,
            rop_queue: 16,
            sh_queue: 256,
            fe_queue: 4,
            lookahead: 8,
            out_queue: 256,
            period: 1000,
            target_fps: 40.0,
            work_scale: 1.0,
            clock_hz: 1e9,
            tex_cache: 384 << 10,
            vertex_cache: 16 << 10,
            rop_cache: 2 << 10,
            rt_scale: 1,
            hiz_cache: 16 << 10,
            instr_cache: 32 << 10,
            rtt_px: 8,
            estimator_start: 1,
            marking: Marking::Algorithm,
            held_gate: None,
            seed: 1,
            raise_pending: true,
            fe_cross_draw: false,
        }
    }
}

/// Cache ids in [`MemIf`].
struct CacheIds {
    vertex: usize,
    hiz: usize,
    tex: usize,
    instr: usize,
    blit: usize,
    depth0: usize,
    colour0: usize,
}

/// Statistics of one completed frame.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct FrameStats {
    /// GPU cycles of the (scaled) frame.
    pub cycles: u64,
    /// Reported frames per second (work scale applied).
    pub fps: f64,
    /// Mean signed relative error of the estimator's FPS prediction over the frame (prediction
    /// mode only).
    pub estimate_error: Option<f64>,
    /// The same with the plain `C_cur` reading (see [`crate::estimator`]).
    pub estimate_error_plain: Option<f64>,
    /// Accesses of the frame.
    pub counts: StreamCounts,
    /// Cycles in which each unit was marked bottlenecked.
    pub bottleneck_cycles: [u64; 5],
    /// Cycles in which the frame-rate gate was open (predicted FPS below target, or the gate
    /// held there): only then can an access be critical (section 2.6).
    pub gate_cycles: u64,
    /// Algorithm 1's runs in the frame (diagnostic of claim 4).
    pub walk: probe::WalkStats,
    /// Sampled activity of each unit's instances (diagnostic of claims 3-4; index = `Unit as
    /// usize`).
    pub waits: [probe::Waits; 5],
    /// Sampled activity of the whole GPU ([`probe::gpu_activity`]).
    pub gpu_waits: probe::Waits,
    /// Which units wait for which class of read while the GPU stands still.
    pub stalls: probe::Stalls,
    /// Sampled occupancy of the shader cores' context slots.
    pub sh_contexts: probe::ShContexts,
    /// Each unit's states and throughput, and why the SH queue was empty (session 25, shfeed).
    pub unit_states: probe::UnitStates,
}

/// Source of frames (the frame generator).
pub trait FrameSource {
    /// The frame with index `i`.
    fn frame(&mut self, i: u64) -> Frame;
}

/// The GPU: pipeline units, counters, estimator and memory interface.
pub struct Gpu {
    cfg: Config,
    layout: Layout,
    ids: CacheIds,
    mem: MemIf,
    counters: FlowCounters,
    estimator: Estimator,
    frame: Frame,
    frame_index: u64,
    next_cmd: usize,
    now: u64,
    frame_start: u64,
    inflight: u64,
    fe: fe::Fe,
    zs: Vec<zs::Zs>,
    sh: sh::Sh,
    cw: Vec<cw::Cw>,
    bt: bt::Bt,
    flushed_for_blit: bool,
    early_z: bool,
    last_fps: Option<f64>,
    samples: (f64, u64),
    samples_plain: (f64, u64),
    frame_counts: StreamCounts,
    bottleneck_cycles: [u64; 5],
    gate_cycles: u64,
    walk: probe::WalkStats,
    waits: [probe::Waits; 5],
    gpu_waits: probe::Waits,
    stalls: probe::Stalls,
    sh_contexts: probe::ShContexts,
    unit_states: probe::UnitStates,
    /// Completed frames.
    pub frames: Vec<FrameStats>,
}

/// What the memory schedulers may read of the GPU's progress (DynPrio and DASH use the
/// estimator's "time left in frame", section 4).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Status {
    /// Cycles elapsed in the current frame over the target frame time.
    pub elapsed_fraction: f64,
    /// Fraction of the frame rendered (λ of the estimator).
    pub progress: f64,
    /// Predicted FPS below target.
    pub below_target: bool,
    /// Fraction of the resident shader contexts ready or executing (latency tolerance, HeLM).
    pub ready_fraction: f64,
}

impl Gpu {
    /// Reads in flight raised to critical so far (`Config::raise_pending`; diagnostic).
    pub fn raised_reads(&self) -> u64 {
        self.mem.raised_reads
    }

    /// A GPU rendering frames of a `width`×`height`-pixel target, starting with `first`.
    pub fn new(cfg: Config, width: usize, height: usize, first: Frame) -> Self {
        let layout = Layout {
            qw: width.div_ceil(crate::scene::QUAD_PX),
            qh: height.div_ceil(crate::scene::QUAD_PX),
            rops: cfg.rops,
            rt_scale: cfg.rt_scale,
        };
        let mut mem = MemIf::new(cfg.out_queue, cfg.marking.clone(), cfg.seed);
        mem.raise_pending = cfg.raise_pending;
        if let Some(g) = cfg.held_gate {
            mem.below_target = g;
        }
        let ids = CacheIds {
            vertex: mem.add_cache(cfg.vertex_cache, 8, Stream::Vertex),
            hiz: mem.add_cache(cfg.hiz_cache, 8, Stream::HiZ),
            tex: mem.add_cache(cfg.tex_cache, 16, Stream::Texture),
            instr: mem.add_cache(cfg.instr_cache, 8, Stream::Shader),
            blit: mem.add_cache(4 << 10, 8, Stream::Blit),
            depth0: (0..cfg.rops)
                .map(|_| mem.add_cache(cfg.rop_cache, 4, Stream::Depth))
                .min()
                .unwrap_or(0),
            colour0: (0..cfg.rops)
                .map(|_| mem.add_cache(cfg.rop_cache, 4, Stream::Colour))
                .min()
                .unwrap_or(0),
        };
        let counters = FlowCounters::new(cfg.rops, cfg.cores);
        let estimator = Estimator::new(width, height, cfg.rtt_px);
        Self {
            fe: fe::Fe::default(),
            zs: (0..cfg.rops).map(|_| zs::Zs::default()).collect(),
            sh: sh::Sh::new(cfg.cores, cfg.contexts),
            cw: (0..cfg.rops).map(|_| cw::Cw::default()).collect(),
            bt: bt::Bt::default(),
            cfg,
            layout,
            ids,
            mem,
            counters,
            estimator,
            frame: first,
            frame_index: 0,
            next_cmd: 0,
            now: 0,
            frame_start: 0,
            inflight: 0,
            flushed_for_blit: false,
            early_z: true,
            last_fps: None,
            samples: (0.0, 0),
            samples_plain: (0.0, 0),
            frame_counts: StreamCounts::default(),
            bottleneck_cycles: [0; 5],
            gate_cycles: 0,
            walk: probe::WalkStats::default(),
            waits: [probe::Waits::default(); 5],
            gpu_waits: probe::Waits::default(),
            stalls: probe::Stalls::default(),
            sh_contexts: probe::ShContexts::default(),
            unit_states: probe::UnitStates::default(),
            frames: Vec::new(),
        }
    }

    /// The current GPU cycle.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// The estimator.
    pub fn estimator(&self) -> &Estimator {
        &self.estimator
    }

    /// Access counts over all frames so far.
    pub fn counts(&self) -> StreamCounts {
        self.mem.counts
    }

    /// Progress information for deadline-aware memory schedulers (reported to the memory side
    /// every 64 cycles).
    pub fn status(&self) -> Status {
        let target = self.cfg.clock_hz / (self.cfg.target_fps * self.cfg.work_scale);
        Status {
            elapsed_fraction: (self.now - self.frame_start) as f64 / target,
            progress: self.estimator.lambda(),
            below_target: self.mem.below_target,
            ready_fraction: self.sh.ready_fraction(),
        }
    }

    fn fps_of(&self, cycles: f64) -> f64 {
        self.cfg.clock_hz / (cycles.max(1.0) * self.cfg.work_scale)
    }

    fn drained(&self) -> bool {
        self.fe.idle() && self.inflight == 0
    }

    /// Command processor: feeds draws to FE and blits to BT in submission order.
    fn dispatch(&mut self) {
        while let Some(cmd) = self.frame.commands.get(self.next_cmd) {
            match *cmd {
                Command::Draw(d) => {
                    let draw = &self.frame.draws[d as usize];
                    if self.fe.queue.len() >= self.cfg.fe_queue
                        || (draw.after_blit && !self.bt.idle())
                    {
                        return;
                    }
                    self.fe.queue.push_back(d);
                }
                Command::Blit(b) => {
                    if !self.drained() {
                        return;
                    }
                    if !self.flushed_for_blit {
                        for r in 0..self.cfg.rops {
                            self.mem.flush(self.ids.colour0 + r);
                        }
                        self.flushed_for_blit = true;
                    }
                    if !self.bt.queue.is_empty() {
                        return;
                    }
                    self.bt.queue.push_back(b);
                    self.flushed_for_blit = false;
                }
            }
            self.next_cmd += 1;
        }
    }

    fn end_of_frame(&mut self, source: &mut dyn FrameSource) {
        for r in 0..self.cfg.rops {
            self.mem.flush(self.ids.colour0 + r);
        }
        let cycles = self.now - self.frame_start;
        let error = |s: (f64, u64)| (s.1 > 0).then(|| cycles as f64 * s.0 / s.1 as f64 - 1.0);
        let (err, err_plain) = (error(self.samples), error(self.samples_plain));
        let counts = self.mem.counts;
        let diff = |a: &[u64; 8], b: &[u64; 8]| std::array::from_fn(|i| a[i] - b[i]);
        let fc = StreamCounts {
            reads: diff(&counts.reads, &self.frame_counts.reads),
            writes: diff(&counts.writes, &self.frame_counts.writes),
            critical: diff(&counts.critical, &self.frame_counts.critical),
            marked: diff(&counts.marked, &self.frame_counts.marked),
        };
        self.frame_counts = counts;
        let fps = self.fps_of(cycles as f64);
        self.frames.push(FrameStats {
            cycles,
            fps,
            estimate_error: err,
            estimate_error_plain: err_plain,
            counts: fc,
            bottleneck_cycles: std::mem::take(&mut self.bottleneck_cycles),
            gate_cycles: std::mem::take(&mut self.gate_cycles),
            walk: std::mem::take(&mut self.walk),
            waits: std::mem::take(&mut self.waits),
            gpu_waits: std::mem::take(&mut self.gpu_waits),
            stalls: std::mem::take(&mut self.stalls),
            sh_contexts: std::mem::take(&mut self.sh_contexts),
            unit_states: std::mem::take(&mut self.unit_states),
        });
        self.last_fps = Some(fps);
        if self.frame_index + 1 < self.cfg.estimator_start {
            // Still warming up: the estimator's state is discarded below.
        } else if self.frame_index + 1 == self.cfg.estimator_start {
            self.estimator.restart(self.now);
        } else {
            self.estimator.end_frame(self.now);
        }
        self.samples = (0.0, 0);
        self.samples_plain = (0.0, 0);
        self.frame_index += 1;
        self.frame = source.frame(self.frame_index);
        self.next_cmd = 0;
        self.frame_start = self.now;
    }

    /// Estimator sample and below-target flag.
    fn estimate(&mut self) {
        let predicted = self.estimator.predict_cycles();
        if let Some(c) = self.estimator.predict_cycles_plain() {
            self.samples_plain.0 += 1.0 / c;
            self.samples_plain.1 += 1;
        }
        let fps = predicted.map(|c| self.fps_of(c)).or(self.last_fps);
        self.mem.below_target = self
            .cfg
            .held_gate
            .unwrap_or_else(|| fps.is_none_or(|f| f < self.cfg.target_fps));
        if let Some(c) = predicted {
            // Judged at frame end against the actual frame time: the signed FPS error of a
            // sample is actual_cycles / predicted − 1, so keep 1 / predicted.
            self.samples.0 += 1.0 / c;
            self.samples.1 += 1;
        }
    }

    /// Advances one GPU cycle against memory `mem`; a new frame is taken from `source` when the
    /// current one completes.
    pub fn tick(&mut self, mem: &mut dyn GpuMemory, source: &mut dyn FrameSource) {
        self.dispatch();
        // Back to front, so that space freed this cycle is seen upstream next cycle. Each unit
        // updates its instances' flow counters.
        let cw = self.tick_cw();
        let sh = self.tick_sh();
        let zs = self.tick_zs();
        let fe = self.tick_fe();
        let bt = self.tick_bt();
        // Completions against each unit's peak (a diagnostic, `probe::UnitStates`).
        let rops = self.cfg.rops as f64;
        let peak = [
            self.cfg.fe_rate as f64,
            rops,
            self.cfg.cores as f64 * self.sh.peak_per_core(self.cfg.simd),
            rops,
            1.0,
        ];
        self.unit_states.cycle([fe, zs, sh, cw, bt], peak);
        if self.now.is_multiple_of(64) {
            let s = self.status();
            mem.report(&s);
        }
        self.mem.tick(mem);
        for &(c, b) in self.mem.filled() {
            if c == self.ids.tex {
                self.sh.filled(b);
            }
        }
        self.now += 1;
        if self.now.is_multiple_of(self.cfg.period) {
            let bits = self.counters.bits();
            let walk = bottleneck::walk(&bits, self.early_z);
            self.walk.record(&bits, &walk);
            self.mem.bottleneck = walk.bottleneck;
            self.estimate();
        }
        if self.now.is_multiple_of(probe::PROBE_EVERY) {
            self.probe();
        }
        for (u, b) in self.mem.bottleneck.iter().enumerate() {
            self.bottleneck_cycles[u] += *b as u64;
        }
        self.gate_cycles += self.mem.below_target as u64;
        if self.next_cmd >= self.frame.commands.len() && self.drained() && self.bt.idle() {
            self.end_of_frame(source);
        }
    }

    /// Runs until `n` frames have completed (at most `max_cycles` cycles); returns their stats.
    pub fn run_frames(
        &mut self,
        n: usize,
        max_cycles: u64,
        mem: &mut dyn GpuMemory,
        source: &mut dyn FrameSource,
    ) -> &[FrameStats] {
        let limit = self.now + max_cycles;
        while self.frames.len() < n && self.now < limit {
            self.tick(mem, source);
        }
        &self.frames
    }

    pub(crate) fn route_after_zs(&self, q: Quad) -> bool {
        self.frame.draws[q.draw as usize].early_z
    }
}

impl Gpu {
    /// A one-line summary of the pipeline state (debugging aid): command, in-flight quads and
    /// queue occupancies.
    pub fn debug(&self) -> String {
        format!(
            "cmd {}/{} inflight {} fe_q {} zs {} sh_q {} cw {} bt_idle {} memif_busy {}",
            self.next_cmd,
            self.frame.commands.len(),
            self.inflight,
            self.fe.queue.len(),
            self.zs.iter().map(|z| z.queue.len()).sum::<usize>(),
            self.sh.queue.len(),
            self.cw.iter().map(|z| z.queue.len()).sum::<usize>(),
            self.bt.idle(),
            self.mem.busy()
        )
    }
}
