//! Memory-scheduling policies (spec 004 §5): the DRAM read scheduler of every controller and the
//! policy's LLC hooks (bypass, per-application miss rates). A policy sees a request's class only
//! through its [`Source`] and criticality bit, so the GPGPU and the 3D pipeline share them.
//!
//! Adding a policy: one file with a constructor `fn(&PolicyConfig) -> Box<dyn MemPolicy>`, one
//! row in [`POLICIES`].

mod all_gpu;
mod dash;
mod dynprio;
mod frfcfs;
mod gpu_favoring;
mod helm;
mod im;
mod sms;

use crate::config::PolicyConfig;
use crate::dram::DramEntry;
use crate::req::{Request, Source};

/// What the GPU side reports to the memory policies (set through
/// [`crate::MemSystem::gpu_status_mut`]); fields a GPU kind does not have stay at their defaults.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct GpuStatus {
    /// GPU instructions retired so far (cumulative; GPGPU warp instructions). All-GPU probe.
    pub insts: u64,
    /// Fraction of the GPU's resident warps ready to issue, recent average, 0..1 (HeLM's
    /// latency tolerance).
    pub ready_fraction: f64,
    /// Warps ready to issue per shader core (SM) per GPU cycle, recent average (HeLM's
    /// thread-level parallelism, "the average number of threads available for issuing"); 0
    /// when the GPU kind does not report it.
    pub ready_warps: f64,
    /// A 3D frame is in progress: `Some((elapsed, progress))` with `elapsed` the fraction of
    /// the target frame period elapsed and `progress` the estimated fraction of the frame
    /// rendered (spec 004 §4 λ). DynPrio and DASH use it; `None` for GPGPU.
    pub frame: Option<(f64, f64)>,
}

/// The context of a scheduling decision.
pub struct Ctx<'a> {
    /// Memory-side (CPU) cycle.
    pub now: u64,
    /// DRAM cycle.
    pub dram_now: u64,
    /// The GPU's latest report.
    pub gpu: &'a GpuStatus,
}

/// A read whose next DRAM command may issue now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cand {
    /// Position in the controller's read queue.
    pub pos: usize,
    /// The next command is the column access (the row is open).
    pub row_hit: bool,
    /// Requester.
    pub source: Source,
    /// Criticality bit.
    pub critical: bool,
    /// CPU cycle of arrival at the controller.
    pub arrival: u64,
    /// Bank.
    pub bank: u32,
    /// Token (unique while queued; increasing with arrival).
    pub tok: u64,
}

impl Cand {
    /// FR-FCFS order key: row hits first, then oldest.
    pub fn frfcfs_key(&self) -> (bool, u64, u64) {
        (!self.row_hit, self.arrival, self.tok)
    }

    /// Critical GPU request (CG of §5.2).
    pub fn is_cg(&self) -> bool {
        self.source.is_gpu() && self.critical
    }
}

/// Index of the candidate with the smallest key.
pub fn best_by<K: Ord>(c: &[Cand], key: impl Fn(&Cand) -> K) -> Option<usize> {
    (0..c.len()).min_by_key(|&i| key(&c[i]))
}

/// A memory policy. Every hook but [`MemPolicy::pick`] has a neutral default.
pub trait MemPolicy: Send {
    /// Chooses one of `cands` (non-empty) of channel `ch`'s read queue; `None` idles the channel.
    fn pick(&mut self, ctx: &Ctx, cands: &[Cand]) -> Option<usize>;
    /// Whether a queued read may be scheduled at all yet (SMS holds requests in its batching
    /// stage).
    fn eligible(&self, _e: &DramEntry) -> bool {
        true
    }
    /// Whether [`MemPolicy::eligible`] can ever answer false (a policy that overrides it says
    /// so): when not, the controllers skip asking it for every queued read every cycle.
    fn holds_reads(&self) -> bool {
        false
    }
    /// Which of the reads waiting for a free entry of channel `ch`'s read queue enters next
    /// (an index into `waiting`, non-empty; each [`Cand::row_hit`] says whether its row is open
    /// now). The document's controllers rank every pending request (spec 004 §5.3: "the oldest
    /// CG request wins over the globally oldest request"), so admission follows the policy's
    /// own order: by default its [`MemPolicy::pick`] over the waiting reads.
    fn admit(&mut self, ctx: &Ctx, _ch: usize, waiting: &[Cand]) -> usize {
        self.pick(ctx, waiting).unwrap_or(0)
    }
    /// A read arrived at channel `ch`'s controller (it waits in front of the read queue until
    /// [`MemPolicy::admit`] lets it in; then [`MemPolicy::on_enqueue`]).
    fn on_arrival(&mut self, _ctx: &Ctx, _ch: usize, _e: &DramEntry) {}
    /// A read entered channel `ch`'s queue.
    fn on_enqueue(&mut self, _ctx: &Ctx, _ch: usize, _e: &DramEntry) {}
    /// A command was issued for `chosen` among `cands`.
    fn on_issue(&mut self, _ctx: &Ctx, _ch: usize, _chosen: &Cand, _cands: &[Cand]) {}
    /// A read's column access issued (it is served).
    fn on_served(&mut self, _ctx: &Ctx, _e: &DramEntry) {}
    /// An LLC read lookup by `src` hit or missed.
    fn on_llc(&mut self, _ctx: &Ctx, _src: Source, _hit: bool) {}
    /// The same read lookup with its block number (for set-sampling policies such as HeLM).
    fn on_llc_block(&mut self, _ctx: &Ctx, _src: Source, _line: u64, _hit: bool) {}
    /// Whether a request that missed the LLC must not allocate there (in addition to the
    /// request's own [`Request::bypass`]).
    fn llc_bypass(&mut self, _ctx: &Ctx, _r: &Request) -> bool {
        false
    }
    /// Whether [`MemPolicy::on_llc`], [`MemPolicy::on_llc_block`] or
    /// [`MemPolicy::llc_bypass`] keep state for read lookups of `src`'s kind (CPU, GPGPU or 3D
    /// GPU; the answer must not change during a run). A lookup that finds every LLC MSHR busy
    /// looks up again every cycle, and each of those look-ups calls the three; the memory side
    /// skips the calls of the look-ups known to fail when this is false. The default, false,
    /// fits the policies whose three are the defaults or pure; a policy that counts in them
    /// returns true for the sources it counts (`mem::tests` checks every registered policy).
    fn observes_waiting_lookups(&self, _src: Source) -> bool {
        false
    }
    /// Called once per DRAM cycle before the controllers schedule.
    fn tick(&mut self, _ctx: &Ctx) {}
    /// Whether the GPU should mark criticality (spec 004 §3) and bypass non-critical fills
    /// under this policy.
    fn uses_criticality(&self) -> bool {
        false
    }
    /// Whether the policy draws random numbers from `policy.seed` (IM-SCHED's Bernoulli draws,
    /// SMS's shortest-job-first draw), so that its results depend on the seed and an experiment
    /// reports it over several seeds (`experiment hetero|frame --seeds N`). The default, false,
    /// declares the policy deterministic: its results are the same for every seed (`mem::tests`
    /// checks it for every registered policy that says so).
    fn draws_random(&self) -> bool {
        false
    }
    /// Named counters for the report (e.g. IM-SCHED intervals at the cap).
    fn counters(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
}

/// Constructor of a registered policy.
pub type Ctor = fn(&PolicyConfig) -> Box<dyn MemPolicy>;

/// Registry: (name, description, constructor).
pub const POLICIES: &[(&str, &str, Ctor)] = &[
    (
        "frfcfs",
        "FR-FCFS baseline: row hits first, then oldest (spec 004 §5.1)",
        frfcfs::new,
    ),
    (
        "gpu_favoring",
        "critical GPU first among row hits and among activates (spec 004 §5.3)",
        gpu_favoring::new,
    ),
    (
        "im",
        "IM-SCHED + IM-LLC, all-GPU probe, GPGPU non-critical LLC bypass (spec 004 §5.4, §5.6, §3)",
        im::new,
    ),
    (
        "im_sched",
        "IM-SCHED alone on IM's order (CG > CPU > NG) (spec 004 §5.4 ablation)",
        im::new_sched_only,
    ),
    (
        "im_llc",
        "IM-LLC alone on IM's order (CG > CPU > NG) (spec 004 §5.4 ablation)",
        im::new_llc_only,
    ),
    (
        "im_bypass",
        "the GPGPU non-critical LLC read bypass alone on IM's order (CG > CPU > NG) (spec 004 §3 ablation)",
        im::new_bypass_only,
    ),
    (
        "im_no_read_bypass",
        "IM with non-critical GPGPU read misses allocating in the LLC (spec 004 §3 bypass split)",
        im::new_no_read_bypass,
    ),
    (
        "im_no_store_bypass",
        "IM with non-critical GPGPU store misses allocating in the LLC (spec 004 §3 bypass split)",
        im::new_no_store_bypass,
    ),
    (
        "im_no_probe",
        "IM without the all-GPU probe (spec 004 §5.6 ablation)",
        im::new_no_probe,
    ),
    (
        "all_gpu",
        "every GPU request above every CPU request (the probe's mode, spec 004 §5.6)",
        all_gpu::new,
    ),
    (
        "sms_09",
        "staged memory scheduling, shortest-job-first with p = 0.9 (spec 004 §5.7)",
        sms::new_09,
    ),
    (
        "sms_0",
        "staged memory scheduling, round-robin batches, p = 0 (spec 004 §5.7)",
        sms::new_0,
    ),
    (
        "dash",
        "DASH: urgent GPU, light CPU, GPU, heavy CPU (spec 004 §5.7)",
        dash::new,
    ),
    (
        "helm",
        "HeLM: GPU misses bypass the LLC while latency tolerant (spec 004 §5.7)",
        helm::new,
    ),
    (
        "dynprio",
        "DynPrio: GPU equal when late, first in the last 10% of the frame (spec 004 §5.7)",
        dynprio::new,
    ),
];

/// The registered name, if any.
pub fn find(name: &str) -> Option<&'static str> {
    POLICIES.iter().find(|p| p.0 == name).map(|p| p.0)
}

/// Registered names.
pub fn names() -> Vec<&'static str> {
    POLICIES.iter().map(|p| p.0).collect()
}

/// The policy `c.name` with its parameters.
pub fn create(c: &PolicyConfig) -> Option<Box<dyn MemPolicy>> {
    POLICIES.iter().find(|p| p.0 == c.name).map(|p| (p.2)(c))
}

/// Whether the policy configured by `c` draws random numbers ([`MemPolicy::draws_random`]);
/// false for an unregistered name.
pub fn draws_random(c: &PolicyConfig) -> bool {
    create(c).is_some_and(|p| p.draws_random())
}

/// Priority level of a request under the digest's §5.5 ordering (GPU-favoring's, with its
/// default `gpu_favoring_cpu_over_ng = true`; IM ranks its own levels on the same classes):
/// 0 = critical GPU, 1 = CPU, 2 = non-critical GPU.
pub fn level(c: &Cand) -> u8 {
    match (c.source.is_gpu(), c.critical) {
        (true, true) => 0,
        (false, _) => 1,
        (true, false) => 2,
    }
}
