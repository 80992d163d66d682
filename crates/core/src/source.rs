//! The [`WarpSource`] trait: the timing model's view of a running kernel.

use crate::{Dim3, DynInst};
use serde::{Deserialize, Serialize};

/// Static description of one kernel launch, as the timing model needs it for CTA dispatch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct KernelInfo {
    /// Kernel (entry) name, mangled as in the module.
    pub name: String,
    /// Grid extent in CTAs.
    pub grid: Dim3,
    /// CTA extent in threads.
    pub block: Dim3,
    /// Registers per thread (from `ptxas` or a trace header; an estimate for raw PTX).
    pub regs_per_thread: u32,
    /// Shared memory per CTA in bytes, static plus dynamic.
    pub shared_bytes: u32,
    /// Local memory per thread in bytes.
    pub local_bytes: u32,
}

impl KernelInfo {
    /// Warps per CTA (threads rounded up to a multiple of 32).
    pub fn warps_per_cta(&self) -> u32 {
        (self.block.size() as u32).div_ceil(crate::WARP_SIZE as u32)
    }

    /// Number of CTAs in the grid.
    pub fn num_ctas(&self) -> u64 {
        self.grid.size()
    }
}

/// What [`WarpSource::next`] produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarpStep {
    /// `out` holds the warp's next instruction.
    Inst,
    /// The warp has no more instructions (it exited earlier).
    Done,
    /// No instruction now: the warp's next instruction waits for the end of the current
    /// synchronisation window ([`WindowFronts`]; only window-mode fronts return it). The warp
    /// is fetched again later; `out` is unchanged.
    Wait,
}

/// An error from a front end: a functional fault in the kernel (out-of-bounds access, trap,
/// deadlock) or malformed input (a bad trace line). The message names the place.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SourceError {
    /// Human-readable description naming kernel, CTA, warp, PC or file and line.
    pub message: String,
}

impl SourceError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

/// A running kernel seen one dynamic warp instruction at a time.
///
/// The timing model calls [`start_cta`](WarpSource::start_cta) when it dispatches a CTA onto an SM,
/// then [`next`](WarpSource::next) each time it fetches for a warp of that CTA, and
/// [`finish_cta`](WarpSource::finish_cta) when all its warps have exited. An execution-driven
/// source executes the instruction functionally inside `next`, so the order of `next` calls is the
/// order in which memory effects happen: the timing model must call it in a deterministic order
/// and must respect barriers (a warp past a `bar.sync` is not fetched until its CTA has arrived).
pub trait WarpSource: Send {
    /// The launch being simulated.
    fn kernel(&self) -> &KernelInfo;

    /// Prepares CTA `cta` (linear CTA id, x fastest) on SM `sm`; returns its number of warps.
    fn start_cta(&mut self, cta: u32, sm: u32) -> Result<u32, SourceError>;

    /// Produces the next instruction of warp `warp` (index within the CTA) of CTA `cta` into `out`.
    fn next(&mut self, cta: u32, warp: u32, out: &mut DynInst) -> Result<WarpStep, SourceError>;

    /// Releases the state of CTA `cta` once all its warps are done.
    fn finish_cta(&mut self, cta: u32);

    /// The per-SM front ends of window mode (`sim.window` > 1 in the timing model), or `None`
    /// (the default) where this source cannot run SMs' front ends concurrently; the timing
    /// model then fetches through [`next`](WarpSource::next) on one thread, in a fixed order.
    /// `sms`: one more than the highest index of an SM that may run a CTA (at most the number
    /// of SMs; it may grow from one window to the next, as the machine gives more SMs work).
    fn window_fronts(&mut self, _sms: u32) -> Option<&mut dyn WindowFronts> {
        None
    }
}

/// A front end split per SM for a timing model that advances SMs several cycles between
/// synchronisations (a *window*), each SM on any thread.
///
/// Global memory has window semantics: an SM's loads see global memory as it was at the start
/// of the window plus that SM's own stores of the window; every store is made visible to the
/// other SMs at the window's end, when [`commit`](WindowFronts::commit) applies all of them in
/// (cycle, SM, issue) order. A global atomic (or reduction) is not executed at fetch: its warp
/// gets [`WarpStep::Wait`] until the commit executes it, in (cycle, SM) order among the stores,
/// and is then handed out by the next fetch. The results therefore depend on the window length
/// and the cycles of the fetches, never on which thread fetched for which SM.
pub trait WindowFronts: Sync {
    /// Like [`WarpSource::next`] for warp `warp` of CTA `cta`, which runs on SM `sm`, fetched
    /// at core cycle `cycle` of the current window.
    ///
    /// # Safety
    /// Calls for one SM must not overlap; calls for different SMs may run concurrently, with
    /// no other method of the source running meanwhile. `cta` must have been started on `sm`.
    unsafe fn next_on(
        &self,
        sm: u32,
        cycle: u64,
        cta: u32,
        warp: u32,
        out: &mut DynInst,
    ) -> Result<WarpStep, SourceError>;

    /// Whether SM `sm`'s front has anything for [`commit`](WindowFronts::commit) (stores,
    /// deferred atomics, instructions for an observer) after its calls of
    /// [`next_on`](WindowFronts::next_on) in the current window, asked by the thread that
    /// stepped the SM at the window's end, so that the commit need not look at every SM's
    /// front on one thread. The default says yes (the commit then checks itself).
    ///
    /// # Safety
    /// As for [`next_on`](WindowFronts::next_on): not concurrently with a call for the same SM.
    unsafe fn pending_on(&self, _sm: u32) -> bool {
        true
    }

    /// Ends the window: makes its stores visible and executes its deferred atomics, in
    /// (cycle, SM, issue) order. `sms`: the SMs whose fronts were used in the window
    /// ([`next_on`](WindowFronts::next_on)), ascending, or of those at least every one for
    /// which [`pending_on`](WindowFronts::pending_on) said yes; the others have nothing to
    /// commit.
    /// Work on different addresses may be spread over `par`'s threads; the result must not
    /// depend on their number.
    fn commit(&mut self, sms: &[u32], par: &mut dyn ParallelFor) -> Result<(), SourceError>;
}

/// Runs independent jobs, possibly on several threads (the timing model's team of SM-stepping
/// threads, lent to [`WindowFronts::commit`]).
pub trait ParallelFor {
    /// How many jobs may run at once (1: one after the other on the calling thread).
    fn threads(&self) -> usize;
    /// Runs `job(i)` for every `i` in `0..n`, each exactly once, in any order and on any of
    /// the threads; returns when all have finished.
    fn run(&mut self, n: usize, job: &(dyn Fn(usize) + Sync));
}

/// [`ParallelFor`] on the calling thread alone, in index order.
#[derive(Debug, Default, Clone, Copy)]
pub struct Sequential;

impl ParallelFor for Sequential {
    fn threads(&self) -> usize {
        1
    }
    fn run(&mut self, n: usize, job: &(dyn Fn(usize) + Sync)) {
        (0..n).for_each(job);
    }
}

/// A timing engine that consumes a kernel launch one warp instruction at a time.
///
/// The host API (`warpforge_simt::Device`) runs kernels functionally by itself; when a runner is
/// installed it instead wraps each launch in a [`WarpSource`] and hands it to the runner, which
/// simulates it cycle by cycle and keeps its own per-kernel statistics. Runners are [`Any`]
/// (`std::any::Any`), so the owner can take a `Box<dyn KernelRunner>` back as its concrete type
/// (`Box<dyn Any>` by upcasting, then `downcast`) without building another runner in its place.
///
/// [`Any`]: std::any::Any
pub trait KernelRunner: std::any::Any {
    /// Simulates the launch to completion.
    fn run_kernel(&mut self, source: &mut dyn WarpSource) -> Result<(), SourceError>;

    /// Downcasting hook so the owner can read the runner's statistics back.
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any;
}

/// Watches dynamic instructions as a front end executes them (instruction-mix characterisation,
/// the analytical models' instruction analyser, trace recording). Observers sit outside the model:
/// with none installed, executing costs nothing extra.
pub trait InstObserver {
    /// A launch begins.
    fn on_launch(&mut self, _kernel: &KernelInfo) {}
    /// Warp `warp` of CTA `cta` executed `inst`.
    fn on_inst(&mut self, cta: u32, warp: u32, inst: &DynInst);
    /// Whether [`on_values`](InstObserver::on_values) should be called (value-level studies
    /// such as the redundancy limit study). Default: no, so other observers cost nothing more.
    fn wants_values(&self) -> bool {
        false
    }
    /// After [`on_inst`](InstObserver::on_inst), in functional runs only: the values of
    /// `inst`'s destination registers after it executed, one 32-lane array per destination in
    /// `inst.dsts()` order (lanes outside `inst.active_mask` hold their previous contents).
    fn on_values(&mut self, _cta: u32, _warp: u32, _inst: &DynInst, _values: &[[u64; 32]]) {}
    /// The launch finished.
    fn on_launch_end(&mut self, _kernel: &KernelInfo) {}
    /// Downcasting hook so the owner can read results back.
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any;
}
