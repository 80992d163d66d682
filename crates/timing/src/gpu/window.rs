//! The window engine (`sim.window = W` > 1): SMs advance `W` core cycles between
//! synchronisations, each on any thread of the team, and the memory side then runs the same `W`
//! cycles.
//!
//! A window `[c0, c0 + W)` has four steps, whatever the thread count:
//! 1. sequential: the replies that have arrived by `c0` enter their SMs' input queues (replies
//!    arriving later in the window wait in the network until the next window), then CTA dispatch
//!    for the window's `W` cycles (up to one CTA per SM per cycle, all placed at `c0`);
//! 2. parallel, per awake SM: `W` cycles of fetch and pipeline. The front end is split per SM
//!    ([`WindowFronts`]): an SM's loads see global memory as of `c0` plus its own stores, and its
//!    global atomics wait for the commit. Requests go to the SM's request queue, which the
//!    network does not drain during the window, so the SM sees the queue's room as of `c0` minus
//!    its own pushes (window-granular credits);
//! 3. sequential: the front end commits the window's stores and atomics in (cycle, SM, issue)
//!    order; finished CTAs are released; idle SMs go to sleep (each SM's job of step 2 has
//!    recorded at its end whether its SM finished a CTA, is still busy and queued a request, so
//!    this step reads flags, not SMs);
//! 4. sequential: DRAM, L2 and the interconnect run every tick of the window's time span in the
//!    usual order; the request network takes a request only at an interconnect tick after the
//!    core cycle that queued it (its `born` cycle), as the one-cycle engine would.
//!
//! With `sim.window_overlap`, step 4 of window `k` runs during step 2 of window `k + 1`, on the
//! calling thread while the team steps the SMs (then it helps with them): at each window start
//! the requests the SMs queued are handed to the memory side (`Outboxes`; an SM's queue room
//! stays reduced by those the network has not taken yet), and step 1 ejects the replies that
//! arrived by the end of window `k - 1`'s memory side, so replies reach the SMs one window later
//! than without overlap. An SM's job hands its own window's requests over at the window's end
//! once the phase's request network is done with the outboxes (else the next window start does
//! it); the result is the same either way ([`Outboxes`]). When every awake SM is quiet (idle
//! skipping) and at the launch's end,
//! the memory side catches up first and the network's untaken requests return to the SMs'
//! queues.
//!
//! With `sim.window_partitions`, the memory side of a span runs split by memory partition
//! (`parts.rs`): the request network's ticks first, then one job per partition, then the reply
//! network's ticks. Overlapped, all three run inside the SMs' team phase (`TeamSpan`): the
//! request network on the calling thread, the partitions on any thread once it is done, the
//! reply network on the thread that completes the last partition; without overlap, the
//! partitions are a team phase of their own between the two networks' ticks.
//!
//! No step reads another SM's state during step 2, so the statistics are identical for every
//! thread count; they differ from `W = 1` (the default, `Gpu::run_launch`'s per-cycle loop) by
//! the window semantics above. A source that cannot split its front end (a trace, an observer
//! attached) is fetched on the calling thread, SM by SM, each SM's `W` cycles in a row.

use super::balance::{now, since, JobCosts};
use super::parts::{PartJob, Parts, TeamSpan};
use super::{dram_l2_ticks, Gpu, Mem, RunError, SmPorts, CORE, DRAM, ICNT, L2};
use crate::core::sm::Sm;
use crate::gpu::Progress;
use crate::mem::icnt::{Network, Sources};
use crate::mem::req::MemReq;
use std::cell::Cell;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use warpforge_core::{
    DynInst, KernelInfo, Sequential, SourceError, WarpSource, WarpStep, WindowFronts,
};

/// One SM's view of a split front end, for [`SmState::fetch`](crate::core::sm::SmState::fetch).
struct OnSm<'f> {
    fronts: &'f dyn WindowFronts,
    info: &'f KernelInfo,
    sm: u32,
    cycle: u64,
}

impl WarpSource for OnSm<'_> {
    fn kernel(&self) -> &KernelInfo {
        self.info
    }
    fn start_cta(&mut self, cta: u32, _sm: u32) -> Result<u32, SourceError> {
        Err(SourceError::new(format!(
            "CTA {cta} started inside a synchronisation window"
        )))
    }
    fn next(&mut self, cta: u32, warp: u32, out: &mut DynInst) -> Result<WarpStep, SourceError> {
        // SAFETY: one `OnSm` per SM per window phase, used by the one thread stepping that SM;
        // the CTAs it fetches run on that SM; the source is not otherwise used during the phase.
        unsafe { self.fronts.next_on(self.sm, self.cycle, cta, warp, out) }
    }
    fn finish_cta(&mut self, _cta: u32) {}
}

/// What one SM's window left: the first error (core cycle, error), whether some cycle made
/// progress or retired a warp, and the SM's end-of-window bookkeeping, done by the SM's own job
/// so that the sequential part after the team phase only reads these flags: whether it is
/// still busy (it sleeps otherwise, [`Gpu::sleep_after_window`]), whether it finished a CTA
/// ([`Gpu::release_after_window`]) and whether it queued a request in the window (its request
/// queue was not empty at the window's end, before any hand-over: [`Outboxes::hand_over`]).
///
/// Kept small (24 bytes: the rare error boxed) so that the calling thread, which reads every
/// awake SM's outcome after the team phase, reads a few cache lines that the other threads
/// wrote rather than one or two per SM; the threads' home ranges are contiguous, so only the
/// lines at their boundaries are written by two threads. The vector is not reset between
/// windows: each job overwrites its whole entry ([`step_sm`]).
#[derive(Default)]
struct Outcome {
    err: Option<Box<(u64, SourceError)>>,
    progressed: bool,
    exited: bool,
    busy: bool,
    finished: bool,
    queued: bool,
    /// The SM's answer to the next window start's quiet test, taken at the window's end
    /// (`quiet_at`): it did not queue a request and [`Sm::quiet_until`] found it quiet.
    quiet: bool,
    /// The SM's split front has something to commit ([`WindowFronts::pending_on`]).
    commit: bool,
    /// The SM's job (or a later job on the same thread, [`Deferred`]) handed its requests over
    /// in this phase ([`hand_over`]'s state: 1 handed, 2 handed into an empty outbox; 0 not
    /// yet: [`Outboxes::take_from`] does it).
    handed: u8,
    /// The job's wall time in nanoseconds, with a team (0: not measured).
    ns: u32,
}

/// The front end an SM fetches through.
enum Front<'a> {
    /// Split per SM.
    Split {
        fronts: &'a dyn WindowFronts,
        info: &'a KernelInfo,
        sm: u32,
    },
    /// The whole source, on the calling thread.
    Whole(&'a mut dyn WarpSource),
}

/// Steps `sm` through core cycles `c0..c0 + w`, fetching through `front`; stops at a fetch
/// error.
fn step_sm(sm: &mut Sm, c0: u64, w: u64, mut front: Front<'_>) -> Outcome {
    let mut o = Outcome::default();
    for c in c0..c0 + w {
        let r = match &mut front {
            Front::Split {
                fronts,
                info,
                sm: id,
            } => sm.fetch(
                c,
                &mut OnSm {
                    fronts: *fronts,
                    info,
                    sm: *id,
                    cycle: c,
                },
            ),
            Front::Whole(s) => sm.fetch(c, &mut **s),
        };
        if let Err(e) = r {
            o.err = Some(Box::new((c, e)));
            return o;
        }
        sm.cycle(c);
        o.progressed |= sm.progressed;
        o.exited |= sm.exited_warp;
    }
    o
}

/// `sim.window_overlap`: the requests the SMs queued, handed to the memory side at window
/// starts (per SM, in queue order), and the SMs whose outbox is not empty (ascending).
///
/// An SM's job hands its own window's requests over at the window's end ([`hand_over`]) once
/// the memory side of its team phase no longer reads the outboxes (an SM whose job ended
/// before that is handed over by the next job its thread runs after it, [`Deferred`]) and
/// records it in its outcome, which the calling thread copies into `fresh` after the phase;
/// [`Outboxes::take_from`] at the next window start then only updates the list for it. An SM
/// that no job handed over (its thread ran no job after the memory side was done) is handed
/// over there, as before; either way the outbox and the queue room are the same.
#[derive(Default)]
struct Outboxes {
    boxes: Vec<VecDeque<MemReq>>,
    list: Vec<u32>,
    /// Per SM: (team phase, state) of the last hand-over by the SM's job: 1 = handed, 2 =
    /// handed and the outbox went from empty to non-empty; 0 = taken into account.
    fresh: Vec<(u64, u8)>,
    /// The last team phase's number ([`PHASES`]; `fresh` is valid only for it).
    phase: u64,
}

/// Team phases of every window engine in the process, so that a phase's number is unique
/// (the threads' [`Deferred`] lists outlive a launch).
static PHASES: AtomicU64 = AtomicU64::new(0);

impl Sources for Outboxes {
    fn head(&self, s: usize) -> Option<&MemReq> {
        self.boxes[s].front()
    }
    fn pop(&mut self, s: usize) -> MemReq {
        self.boxes[s].pop_front().expect("head")
    }
    fn active(&self) -> Option<&[u32]> {
        Some(&self.list)
    }
}

/// The outboxes as the request network sees them inside a team phase, through the same raw
/// pointer the SMs' jobs use after it ([`hand_over`]).
struct RawBoxes<'a> {
    base: *mut VecDeque<MemReq>,
    list: &'a [u32],
}

impl Sources for RawBoxes<'_> {
    fn head(&self, s: usize) -> Option<&MemReq> {
        // SAFETY: `base` points at one outbox per SM; while the request network runs, no SM job
        // touches an outbox ([`hand_over`] waits for the network's end).
        unsafe { (*self.base.add(s)).front() }
    }
    fn pop(&mut self, s: usize) -> MemReq {
        // SAFETY: as in `head`.
        unsafe { (*self.base.add(s)).pop_front().expect("head") }
    }
    fn active(&self) -> Option<&[u32]> {
        Some(self.list)
    }
}

/// The request network's sources at one tick of an overlapped memory span: the outboxes'
/// requests born before core cycle `.1`.
struct BornBefore<'a, S: Sources>(&'a mut S, u64);

impl<S: Sources> Sources for BornBefore<'_, S> {
    fn head(&self, s: usize) -> Option<&MemReq> {
        self.0.head(s).filter(|r| r.born < self.1)
    }
    fn pop(&mut self, s: usize) -> MemReq {
        self.0.pop(s)
    }
    fn active(&self) -> Option<&[u32]> {
        self.0.active()
    }
}

/// The request network's interconnect cycle `icnt` at time `t` of the overlapped memory span
/// starting at (time, core cycle) `(t0, c0)` (core period `pc`): it takes the outboxes'
/// requests born before the first core cycle at or after `t`, as the one-cycle engine could.
fn take_born<S: Sources>(
    net: &mut Network,
    boxes: &mut S,
    icnt: u64,
    t: u64,
    (t0, c0): (u64, u64),
    pc: u64,
) {
    net.cycle(icnt, &mut BornBefore(boxes, c0 + (t - t0).div_ceil(pc)));
}

/// SM `sm`'s hand-over at the end of its window, in its own job (`sim.window_overlap`): its
/// queued requests go behind those in its outbox `b` and its queue room becomes what the
/// network has not taken (`cap` less the outbox), as [`Outboxes::take_from`] would do at the
/// next window start (nothing changes either in between: the memory side of the next team
/// phase starts after that). Returns the `fresh` state (see [`Outboxes`]).
fn hand_over(sm: &mut Sm, b: &mut VecDeque<MemReq>, cap: usize) -> u8 {
    let mut f = 1;
    if !sm.out_q.is_empty() {
        if b.is_empty() {
            f = 2;
        }
        b.extend(sm.out_q.drain(..));
    }
    sm.set_out_cap(cap.saturating_sub(b.len()));
    f
}

impl Outboxes {
    /// One outbox and one `fresh` entry per SM of `n`.
    fn size(&mut self, n: usize) {
        if self.boxes.len() < n {
            self.boxes.resize_with(n, VecDeque::new);
            self.fresh.resize(n, (0, 0));
        }
    }

    /// Takes the requests the awake SMs queued (behind those not yet taken) and sets each awake
    /// SM's queue room to what the network has not taken (`cap` less its outbox); an SM its job
    /// handed over in the last team phase (`fresh`) is only listed.
    fn take_from(&mut self, sms: &mut [Sm], awake: &[u32], cap: usize) {
        self.size(sms.len());
        let mut added = false;
        for &s in awake {
            let f = &mut self.fresh[s as usize];
            if f.0 == self.phase && f.1 != 0 {
                added |= f.1 == 2;
                f.1 = 0;
                continue;
            }
            let (sm, b) = (&mut sms[s as usize], &mut self.boxes[s as usize]);
            if !sm.out_q.is_empty() {
                added |= b.is_empty();
                b.extend(sm.out_q.drain(..));
            }
            sm.set_out_cap(cap.saturating_sub(b.len()));
        }
        let boxes = &self.boxes;
        self.list.retain(|&s| !boxes[s as usize].is_empty());
        if added {
            self.list
                .extend(awake.iter().filter(|&&s| !boxes[s as usize].is_empty()));
            self.list.sort_unstable();
            self.list.dedup();
        }
    }

    /// After a team phase: records which of its SMs (`awake`, the phase's job order) their
    /// jobs handed over (`outcomes`), for [`Outboxes::take_from`].
    fn handed(&mut self, awake: &[u32], outcomes: &[Outcome]) {
        for (&s, o) in awake.iter().zip(outcomes) {
            self.fresh[s as usize] = (self.phase, o.handed);
        }
    }

    /// Hands the requests the network has not taken back to their SMs' queues (in front of
    /// anything queued since) and gives every SM its full queue room. (After
    /// [`Outboxes::take_from`], so that no hand-over is left `fresh`.)
    fn give_back(&mut self, sms: &mut [Sm], awake: &[u32], cap: usize) {
        self.size(sms.len());
        for &s in self.list.iter().chain(awake) {
            let (sm, b) = (&mut sms[s as usize], &mut self.boxes[s as usize]);
            while let Some(r) = b.pop_back() {
                sm.out_q.push_front(r);
            }
            sm.set_out_cap(cap);
        }
        self.list.clear();
    }
}

/// The memory side's ticks with times in `[.., t_end)`, taking requests from `boxes`: the
/// window starting at core cycle `c0`, time `t0`, as step 4 runs it (core period `pc`).
#[allow(clippy::too_many_arguments)]
fn mem_span<S: Sources>(
    mem: &mut Mem,
    cyc: &mut [u64; 4],
    next: &mut [u64; 4],
    period: &[u64; 4],
    boxes: &mut S,
    side: (u64, u64),
    t_end: u64,
    pc: u64,
) {
    loop {
        let t = next[DRAM].min(next[L2]).min(next[ICNT]);
        if t >= t_end {
            break;
        }
        dram_l2_ticks(mem, cyc, next, period, t);
        if next[ICNT] == t {
            take_born(&mut mem.req_net, boxes, cyc[ICNT], t, side, pc);
            mem.icnt_mid(cyc[ICNT], cyc[L2]);
            cyc[ICNT] += 1;
            next[ICNT] += period[ICNT];
        }
    }
}

/// The split memory side of the span starting at (time, core cycle) `(t0, c0)` and ending
/// before `t_end`, all on the calling thread, taking requests from `boxes`.
#[allow(clippy::too_many_arguments)]
fn split_span(
    parts: &mut Parts,
    mem: &mut Mem,
    cyc: &mut [u64; 4],
    next: &mut [u64; 4],
    period: &[u64; 4],
    boxes: &mut Outboxes,
    side: (u64, u64),
    t_end: u64,
    pc: u64,
) {
    parts.inject(mem, cyc, next, period, t_end, |net, icnt, t| {
        take_born(net, boxes, icnt, t, side, pc);
    });
    for mut j in parts.jobs(mem, period) {
        j.run();
    }
    parts.finish(mem, cyc, next);
}

/// The SMs' jobs' hand-over (`sim.window_overlap`): the outboxes of [`Outboxes`] (one per
/// SM), the team phase's number and the full queue room.
struct Hand {
    boxes: *mut VecDeque<MemReq>,
    phase: u64,
    cap: usize,
}
// SAFETY: each SM job touches only its own SM's outbox (`end_window`, `Deferred`).
unsafe impl Sync for Hand {}

/// Per thread: the SM jobs this thread ran in the current team phase before the request
/// network was done with the outboxes (`side_done`), so that they could not hand their
/// requests over: (team phase, SM, job index). The thread's next SM job of the same phase that
/// ends after it hands them over ([`Deferred::hand_over`]), with the SMs' state still in this
/// thread's caches; entries of an older phase are dropped. (The calling thread runs the request
/// network before its jobs, so only the other threads defer.)
struct Deferred;

thread_local! {
    static DEFERRED: std::cell::RefCell<Vec<(u64, u32, u32)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

impl Deferred {
    /// Records that SM `s` (job index `i`) could not hand over in `phase`.
    fn push(phase: u64, s: usize, i: usize) {
        DEFERRED.with(|d| {
            let mut d = d.borrow_mut();
            if d.first().is_some_and(|e| e.0 != phase) {
                d.clear();
            }
            d.push((phase, s as u32, i as u32));
        });
    }

    /// Hands over this thread's deferred SMs of `h`'s phase (after `side_done`).
    ///
    /// # Safety
    /// The request network of `h`'s phase is done with the outboxes (acquired); `slots` is
    /// that phase's; this thread ran the listed SMs' jobs in it, so nothing else touches those
    /// SMs, outcomes or outboxes until the phase ends.
    unsafe fn hand_over(h: &Hand, slots: &SmSlots) {
        DEFERRED.with(|d| {
            let mut d = d.borrow_mut();
            for &(phase, s, i) in d.iter() {
                if phase != h.phase {
                    continue;
                }
                // SAFETY: the caller's contract.
                let (sm, out, b) = unsafe {
                    (
                        &mut *slots.sms.add(s as usize),
                        &mut *slots.out.add(i as usize),
                        &mut *h.boxes.add(s as usize),
                    )
                };
                out.handed = hand_over(sm, b, h.cap);
            }
            d.clear();
        });
    }
}

/// The end of SM `s`'s window, in its job: records whether it queued a request, finished a CTA
/// or is still busy (what the sequential part after the team phase needs, [`Outcome`]), and
/// with `hand` hands its requests over ([`hand_over`]) if the request network of the phase is
/// done with the outboxes (`side_done`) and returns true; otherwise returns false (a later job
/// of this thread, [`Deferred`], or [`Outboxes::take_from`] at the next window start does it).
/// With `quiet_at` (the next window's first core cycle; `sim.window_overlap` on a team, with
/// idle skipping), it also answers that window start's quiet test for the SM
/// (`Outcome::quiet`): nothing the sequential part runs before that test changes what
/// [`Sm::quiet_until`] reads (the commit, the release of finished CTAs and sleeping touch
/// neither the SM's warps, queues nor units), so the answer is the one the calling thread
/// would compute there, without reading every awake SM's state on one thread.
///
/// # Safety
/// `sm` is SM `s`; `hand` (if any) points at one outbox per SM, of which no other thread uses
/// `s`'s once `side_done` is set.
unsafe fn end_window(
    sm: &mut Sm,
    s: usize,
    o: &mut Outcome,
    hand: Option<&Hand>,
    side_done: &AtomicBool,
    quiet_at: Option<u64>,
) -> bool {
    o.queued = !sm.out_q.is_empty();
    // With its queue handed over an SM that queued a request is still busy.
    o.busy = o.queued || sm.busy();
    o.finished = !sm.finished.is_empty();
    let mut handed = false;
    if let Some(h) = hand {
        if side_done.load(Ordering::Acquire) {
            // SAFETY: the caller's contract; the request network released the outboxes.
            let b = unsafe { &mut *h.boxes.add(s) };
            o.handed = hand_over(sm, b, h.cap);
            handed = true;
        }
    }
    if let Some(c) = quiet_at {
        o.quiet = !o.queued && sm.quiet_until(c).is_some();
    }
    handed
}

/// Raw access to the SMs and their outcomes from the team's threads (the window's SM jobs).
struct SmSlots {
    sms: *mut Sm,
    out: *mut Outcome,
}
// SAFETY: every SM job touches only `sms[order[i]]` and `out[i]` for its own job index `i`
// (`order` holds distinct SM indices).
unsafe impl Sync for SmSlots {}

/// Raw access to the partition jobs from the team's threads (`split_step4`, the partitions'
/// team phase without overlap).
struct PartSlots<'j>(*mut PartJob<'j>);
// SAFETY: every partition job touches only `parts[i]`, whose borrows are disjoint from the
// other jobs'.
unsafe impl Sync for PartSlots<'_> {}

impl Gpu {
    /// The window engine's launch loop (module docs); called by `Gpu::run_launch` after the
    /// launch's setup, with the same arguments and bookkeeping.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn run_windows(
        &mut self,
        src: &mut dyn WarpSource,
        stop: &AtomicBool,
        progress: &mut dyn FnMut(&Progress),
        k: &KernelInfo,
        dispatch_at: u64,
        start_cycle: u64,
        start_insts: u64,
    ) -> Result<(), RunError> {
        let w = u64::from(self.cfg.sim.window.max(1));
        let total = k.num_ctas();
        let (mut next_cta, mut done) = (0u64, 0u64);
        let mut last_progress = self.cyc[CORE];
        let mut last_exit = self.cyc[CORE];
        let n_sm = self.sms.len();
        let mut cta_rr = 0usize;
        let gap = u64::from(self.cfg.core.cta_dispatch_millicycles);
        let mut next_ok = 0u64;
        let pc = self.period[CORE];
        let mut outcomes: Vec<Outcome> = Vec::new();
        // The SMs whose fronts have something to commit (ascending).
        let mut to_commit: Vec<u32> = Vec::new();
        // With a team: the jobs' measured costs, for balanced home ranges (`balance.rs`).
        let mut costs = JobCosts::default();
        let has_team = self.team.is_some();
        // Whether the last window's SM jobs answered the next window start's quiet test
        // (`quiet_at`): a window run by a team, not by one thread (or a team's calling thread
        // alone, `Team::start_window`).
        let mut jobs_quiet = false;
        // `sim.window_overlap`: the window (time, core cycle) whose memory side has not run
        // yet, the requests handed to it, the interconnect tick of the last reply ejection,
        // and each SM's full request-queue room.
        let overlap = self.cfg.sim.window_overlap;
        let mut pending: Option<(u64, u64)> = None;
        let mut boxes = Outboxes::default();
        // Some SM queued a request in the last window (overlap: see `all_quiet`).
        let mut queued = false;
        // The last dispatch pass refused a CTA on every SM (`Gpu::wakes` then), and no warp
        // has exited since.
        let mut full: Option<u64> = None;
        let mut ejected = u64::MAX;
        let cap = self.cfg.icnt.input_buffer as usize;
        // `sim.window_partitions` (not with a memory port: it sees the whole memory side).
        let split_mem = self.cfg.sim.window_partitions && self.mem.port.is_none();
        let mut parts = Parts::default();
        loop {
            let c0 = self.cyc[CORE];
            let t0 = self.next[CORE];
            // An SM that queued a request in the last window is not quiet (its queue was not
            // empty at the window's end), even where its job has handed the queue over.
            let all_quiet = |g: &Self, queued: bool| {
                g.cfg.sim.skip_idle
                    && !queued
                    && g.mem.port.is_none()
                    && g.awake
                        .iter()
                        .all(|&s| g.sms[s as usize].quiet_until(c0).is_some())
            };
            // Right after an overlapped window (`pending`) on a team, its SM jobs have answered
            // the quiet test for this window start (`Outcome::quiet`; the awake SMs are those
            // jobs' SMs less the ones that went to sleep, which are quiet); on one thread the
            // SMs are asked here.
            let first_quiet = |g: &Self, queued: bool, outcomes: &[Outcome]| {
                if !jobs_quiet {
                    return all_quiet(g, queued);
                }
                g.cfg.sim.skip_idle
                    && !queued
                    && g.mem.port.is_none()
                    && outcomes.iter().all(|o| o.quiet)
            };
            if pending.is_some() && first_quiet(self, queued, &outcomes) {
                // Idle skipping needs the memory side at `t0`: catch up first.
                self.catch_up(&mut pending, &mut boxes, &mut parts, split_mem, w, cap);
                queued = false;
            }
            if pending.is_none() {
                // Idle skipping may stop the other clocks between core ticks: their ticks
                // before `t0` run now, as the one-cycle engine runs them (with ejection).
                loop {
                    let t = self.next[DRAM].min(self.next[L2]).min(self.next[ICNT]);
                    if t >= t0 {
                        break;
                    }
                    self.ticks_at_before(t, c0, true);
                }
            }
            // Every memory-side tick before `t0` (before the pending window's start) has run,
            // none at `t0` (there).
            let mut ticked = false;
            let mut skip = None;
            if pending.is_none() && all_quiet(self, queued) {
                // Idle skipping must see the memory side at `t0`: run its ticks there first
                // (an interconnect tick there ejects its arrived replies).
                ticked = self.next[ICNT] == t0;
                self.ticks_at(t0, true);
                let cap = self.skip_cap(c0, last_progress, last_exit, dispatch_at);
                skip = self.idle_span(c0, t0, k, next_cta < total && c0 >= dispatch_at, cap);
            }
            let span = skip.map_or(w, |(n, _)| n);
            if let Some((n, t_stop)) = skip {
                self.skip_span(c0, n, t_stop);
            } else {
                // The memory side's time: `t0`, or the pending window's start (overlap).
                let tm = pending.map_or(t0, |(t, _)| t);
                if !ticked && ejected != tm {
                    if self.next[ICNT] == tm {
                        // Replies that have arrived by `tm`, an interconnect tick; the rest of
                        // this tick runs in step 4 (its back-pressure still counts them,
                        // `Network::pop_held`).
                        self.icnt_eject(true);
                    } else if self.cyc[ICNT] > 0 {
                        // The interconnect on a clock of its own (`clocks.icnt_mhz`), `tm`
                        // between two of its ticks: replies that have arrived by the last tick
                        // before `tm`, which has run completely.
                        self.icnt_eject_at(self.cyc[ICNT] - 1, false);
                    }
                    ejected = tm;
                }
                // Step 1: dispatch for the window's cycles, all placed at `c0`. A pass over
                // every SM that places nothing (`full`) is not repeated until a warp exits or
                // an SM wakes: whether an SM takes a CTA depends only on its free CTA slots,
                // warp slots, registers and shared memory (which only exiting warps return: a
                // warp its slot, the last of a CTA the rest) and, asleep, on the launch's
                // shared-memory carve-out it adopts when it wakes; the skipped passes would
                // place nothing.
                if full.is_some_and(|n| n != self.wakes) {
                    full = None;
                }
                for i in 0..w {
                    let now = c0 + i;
                    if next_cta >= total || now < dispatch_at || full.is_some() {
                        continue;
                    }
                    let mut refused = 0;
                    // Visit the SMs from where the last placement left the rotation (fixed
                    // for this cycle, as in the one-cycle engine).
                    let rr0 = cta_rr;
                    for j in 0..n_sm {
                        if next_cta >= total {
                            break;
                        }
                        let s = (rr0 + j) % n_sm;
                        if gap > 0 && next_ok > now * 1000 {
                            break;
                        }
                        refused += 1;
                        if self.asleep[s].is_some() {
                            if !self.sms[s].can_take_cta(k) {
                                continue;
                            }
                            self.wake(s, c0);
                        }
                        if self.sms[s].dispatch_cta(c0, next_cta as u32, k, src)? {
                            if gap > 0 {
                                next_ok = next_ok.max(now * 1000) + gap;
                            }
                            next_cta += 1;
                            last_progress = c0;
                            last_exit = c0;
                            cta_rr = (s + 1) % n_sm;
                            refused = 0;
                        }
                    }
                    if refused == n_sm {
                        full = Some(self.wakes);
                    }
                }
                // Step 2: every awake SM through the window (overlap: and the memory side
                // through the pending window, on the calling thread).
                if overlap {
                    boxes.take_from(&mut self.sms, &self.awake, cap);
                }
                let side = pending.take();
                // `--threads auto`: whether the team runs this window on the calling thread
                // alone (the host keeps its two threads far apart, `Team::start_window`); the
                // window then runs exactly as on one thread, without measuring job costs or
                // answering the quiet test in the jobs.
                let solo = self.team.as_mut().is_some_and(|t| t.start_window());
                let timed = has_team && !solo;
                // The next window start's quiet test (overlap: it runs before anything changes
                // the SMs, `first_quiet`).
                // With one thread the calling thread's own scan is cheaper (it stops at the
                // first SM that is not quiet, and every SM is in its caches).
                let quiet_at =
                    (overlap && timed && self.cfg.sim.skip_idle && self.mem.port.is_none())
                        .then_some(c0 + w);
                jobs_quiet = quiet_at.is_some();
                let span_end = side.map(|(t, _)| t + w * pc);
                // Split (`sim.window_partitions`): the whole split memory side inside the team
                // phase (`TeamSpan`): the request network's ticks on the calling thread, the
                // partitions as jobs beside the SMs' once those ticks are done, the reply
                // network's ticks on the thread that completes the last partition.
                let split_side = side.filter(|_| split_mem);
                let (mem, cyc, next, period) =
                    (&mut self.mem, &mut self.cyc, &mut self.next, &self.period);
                let span = split_side.map(|_| TeamSpan::new(mem, &mut parts, cyc, next, period));
                let n_parts = span.as_ref().map_or(0, TeamSpan::n_parts);
                let span = span.as_ref();
                let whole = if span.is_none() {
                    Some((mem, cyc, next))
                } else {
                    None
                };
                // The outboxes, for the request network and then (`side_done`) for the SMs'
                // jobs' hand-over (`hand_over`), through one raw pointer.
                boxes.size(n_sm);
                boxes.phase = PHASES.fetch_add(1, Ordering::Relaxed) + 1;
                let hand = overlap.then_some(Hand {
                    boxes: boxes.boxes.as_mut_ptr(),
                    phase: boxes.phase,
                    cap,
                });
                let side_done = AtomicBool::new(false);
                let mut raw = RawBoxes {
                    base: boxes.boxes.as_mut_ptr(),
                    list: &boxes.list,
                };
                let side_done_ref = &side_done;
                let lead_ns = Cell::new(0u32);
                let lead_ref = &lead_ns;
                let mem_side = move || {
                    let t = timed.then(now);
                    match (span, whole, side, span_end) {
                        // SAFETY: once, before the partitions (they wait for it); nothing else
                        // uses the memory side during the phase.
                        (Some(sp), _, Some(side), Some(end)) => unsafe {
                            sp.inject(end, |net, i, t| take_born(net, &mut raw, i, t, side, pc));
                        },
                        (None, Some((mem, cyc, next)), Some(side), Some(end)) => {
                            mem_span(mem, cyc, next, period, &mut raw, side, end, pc);
                        }
                        _ => {}
                    }
                    // The request network is done with the outboxes.
                    side_done_ref.store(true, Ordering::Release);
                    if let Some(t) = t {
                        lead_ref.set(since(t));
                    }
                };
                // (Each job overwrites its entry whole: no reset, so that this thread does not
                // write lines the other threads' jobs wrote last.)
                outcomes.resize_with(self.awake.len(), Outcome::default);
                // (Only the SMs built so far can have a CTA.)
                let n_sm32 = self.built_span;
                let fronts = src.window_fronts(n_sm32);
                let split = fronts.is_some();
                if let Some(fronts) = fronts {
                    let fronts: &dyn WindowFronts = fronts;
                    let order = &self.awake;
                    let n_jobs = order.len() + n_parts;
                    if timed {
                        costs.phase(n_sm, n_parts, order);
                    }
                    let costs_ref = &costs;
                    let slots = SmSlots {
                        sms: self.sms.as_mut_ptr(),
                        out: outcomes.as_mut_ptr(),
                    };
                    // The partitions come first: they are the calling thread's home range, so
                    // the chain injection, partitions, reply network starts on the thread that
                    // injects while the others step SMs (any order gives the same results).
                    let job = |i: usize| {
                        let slots = &slots;
                        let t = timed.then(now);
                        if i < n_parts {
                            // SAFETY: each job index runs once (`Team::run`), and `mem_side`
                            // (the span's injection) runs once on the calling thread, which
                            // runs it before it takes any job.
                            unsafe { span.expect("split").part(i) };
                            if let Some(t) = t {
                                costs_ref.part_done(i, since(t));
                            }
                            return;
                        }
                        let i = i - n_parts;
                        let s = order[i] as usize;
                        // SAFETY: `order` holds distinct SM indices and each job index runs
                        // once (`Team::run`), so these are the only references to them.
                        let (sm, out) = unsafe { (&mut *slots.sms.add(s), &mut *slots.out.add(i)) };
                        *out = step_sm(
                            sm,
                            c0,
                            w,
                            Front::Split {
                                fronts,
                                info: k,
                                sm: s as u32,
                            },
                        );
                        // SAFETY: this thread stepped SM `s` and is done with its front.
                        out.commit = unsafe { fronts.pending_on(s as u32) };
                        // SAFETY: SM `s`'s own outbox, after the request network's last use of
                        // the outboxes (acquired through `side_done`).
                        let handed =
                            unsafe { end_window(sm, s, out, hand.as_ref(), &side_done, quiet_at) };
                        if let Some(t) = t {
                            out.ns = since(t).max(1);
                        }
                        if let Some(h) = hand.as_ref() {
                            if handed {
                                // SAFETY: `side_done` acquired in `end_window`; the deferred
                                // SMs' jobs ran on this thread in this phase.
                                unsafe { Deferred::hand_over(h, slots) };
                            } else {
                                Deferred::push(h.phase, s, i);
                            }
                        }
                    };
                    match &mut self.team {
                        Some(team) => {
                            if timed {
                                team.run_balanced(
                                    costs.jobs(),
                                    costs.lead(),
                                    costs.same(),
                                    n_jobs,
                                    &job,
                                    mem_side,
                                );
                                costs.update(
                                    &self.awake,
                                    outcomes.iter().map(|o| o.ns),
                                    lead_ns.get(),
                                );
                            } else {
                                // Alone (`solo`): `mem_side`, then every job in order.
                                team.run_balanced(&[], 0, false, n_jobs, &job, mem_side);
                            }
                        }
                        None => {
                            mem_side();
                            (0..n_jobs).for_each(job);
                        }
                    }
                } else {
                    mem_side();
                    if let Some(sp) = span {
                        for p in 0..n_parts {
                            // SAFETY: each partition once, after the injection above.
                            unsafe { sp.part(p) };
                        }
                    }
                    for (i, &s) in self.awake.iter().enumerate() {
                        let sm = &mut self.sms[s as usize];
                        let o = &mut outcomes[i];
                        *o = step_sm(sm, c0, w, Front::Whole(&mut *src));
                        if o.err.is_some() {
                            break;
                        }
                        // SAFETY: on this thread, after the request network (`mem_side`).
                        unsafe {
                            end_window(sm, s as usize, o, hand.as_ref(), &side_done, quiet_at)
                        };
                    }
                }
                if overlap {
                    // Which SMs' jobs handed over, for the next window start's `take_from`.
                    boxes.handed(&self.awake, &outcomes);
                }
                // The first failure in (cycle, SM) order, whichever thread met it.
                let mut first: Option<(u64, usize)> = None;
                for (i, o) in outcomes.iter().enumerate() {
                    if let Some((c, _)) = o.err.as_deref() {
                        if first.is_none_or(|(fc, _)| *c < fc) {
                            first = Some((*c, i));
                        }
                    }
                }
                if let Some((_, i)) = first {
                    let e = outcomes[i].err.take().expect("error").1;
                    return Err(e.into());
                }
                // Step 3: commit, release finished CTAs, sleep.
                // Only the SMs whose job found something to commit (`pending_on`), so that
                // this thread does not look at every awake SM's front.
                to_commit.clear();
                to_commit.extend(
                    self.awake
                        .iter()
                        .zip(&outcomes)
                        .filter(|(_, o)| o.commit)
                        .map(|(&s, _)| s),
                );
                if split && !to_commit.is_empty() {
                    let fronts = src.window_fronts(n_sm32).expect("split");
                    match &mut self.team {
                        Some(team) => fronts.commit(&to_commit, team)?,
                        None => fronts.commit(&to_commit, &mut Sequential)?,
                    }
                }
                let end = c0 + w - 1;
                for o in &outcomes {
                    if o.progressed {
                        last_progress = end;
                    }
                    if o.exited {
                        last_exit = end;
                        // A warp that exits frees its warp slot (a CTA its resources).
                        full = None;
                    }
                }
                // The SMs that queued requests: their queues were not empty at the window's
                // end, which the next window start's quiet test sees (`all_quiet`).
                queued = overlap && outcomes.iter().any(|o| o.queued);
                done += self.release_after_window(src, &outcomes);
                self.sleep_after_window(c0 + w, &outcomes);
                // Step 4: the memory side through the window's time span (overlap: during
                // the next window's step 2).
                if overlap {
                    pending = Some((t0, c0));
                } else if split_mem {
                    self.split_step4(&mut parts, (t0, c0), t0 + w * pc);
                } else {
                    let t_end = t0 + w * pc;
                    loop {
                        let t = self.next[DRAM].min(self.next[L2]).min(self.next[ICNT]);
                        if t >= t_end {
                            break;
                        }
                        // Core cycles whose requests the network may take at `t`: those before
                        // it.
                        let before = c0 + (t - t0).div_ceil(pc);
                        self.ticks_at_before(t, before, false);
                    }
                }
                self.cyc[CORE] += w;
                self.next[CORE] += w * pc;
            }
            if done == total {
                if overlap {
                    self.catch_up(&mut pending, &mut boxes, &mut parts, split_mem, w, cap);
                    for sm in &mut self.sms {
                        sm.set_out_cap(cap);
                    }
                }
                break;
            }
            let now = self.cyc[CORE];
            if self.memory_busy() || !boxes.list.is_empty() || now <= dispatch_at {
                last_progress = last_progress.max(now - 1);
            }
            if now <= dispatch_at {
                last_exit = last_exit.max(now - 1);
            }
            self.check_stuck(now, last_progress, last_exit)?;
            // The 4096-cycle checks, on the window that crosses a multiple of 4096.
            if now / 4096 != (now - span) / 4096 {
                self.poll(
                    &k.name,
                    now - start_cycle,
                    start_insts,
                    (done, total),
                    stop,
                    progress,
                )?;
            }
        }
        Ok(())
    }

    /// [`Gpu::release_finished`] after a window: only the SMs whose job saw a finished CTA
    /// (`outcomes`, in the order of `awake`), in SM order; returns how many.
    fn release_after_window(&mut self, src: &mut dyn WarpSource, outcomes: &[Outcome]) -> u64 {
        let mut n = 0;
        for (o, &i) in outcomes.iter().zip(&self.awake) {
            if o.finished {
                let s = &mut self.sms[i as usize];
                for &c in &s.finished {
                    src.finish_cta(c);
                    n += 1;
                }
                s.finished.clear();
            }
        }
        n
    }

    /// [`Gpu::sleep_idle`] after a window, from its SM jobs' answers (`outcomes`, in the order
    /// of `awake`): SMs left with nothing to do sleep from core cycle `from` on.
    fn sleep_after_window(&mut self, from: u64, outcomes: &[Outcome]) {
        if self.cfg.sim.skip_idle {
            let asleep = &mut self.asleep;
            let mut busy = outcomes.iter().map(|o| o.busy);
            self.awake.retain(|&i| {
                let b = busy.next().expect("an outcome per awake SM");
                if !b {
                    asleep[i as usize] = Some(from);
                }
                b
            });
        }
    }

    /// `sim.window_overlap`: runs the pending window's memory side now (with the requests the
    /// SMs have queued since), then hands the requests the network has not taken back to the
    /// SMs' queues, so that the memory side is at the core's time as without overlap.
    /// `split`: the memory side split by partition (`sim.window_partitions`).
    fn catch_up(
        &mut self,
        pending: &mut Option<(u64, u64)>,
        boxes: &mut Outboxes,
        parts: &mut Parts,
        split: bool,
        w: u64,
        cap: usize,
    ) {
        let Some(side) = pending.take() else {
            return;
        };
        boxes.take_from(&mut self.sms, &self.awake, cap);
        let pc = self.period[CORE];
        let (mem, cyc, next, period) = (&mut self.mem, &mut self.cyc, &mut self.next, &self.period);
        let end = side.0 + w * pc;
        if split {
            split_span(parts, mem, cyc, next, period, boxes, side, end, pc);
        } else {
            mem_span(mem, cyc, next, period, boxes, side, end, pc);
        }
        boxes.give_back(&mut self.sms, &self.awake, cap);
    }

    /// Step 4 without overlap, split by partition (`sim.window_partitions`): the span starting
    /// at (time, core cycle) `(t0, c0)` and ending before `t_end`, its partitions on the team.
    fn split_step4(&mut self, parts: &mut Parts, (t0, c0): (u64, u64), t_end: u64) {
        let pc = self.period[CORE];
        let (sms, awake) = (&mut self.sms, &self.awake);
        parts.inject(
            &mut self.mem,
            &self.cyc,
            &self.next,
            &self.period,
            t_end,
            |net, i, t| {
                net.cycle(i, &mut SmPorts(sms, awake, c0 + (t - t0).div_ceil(pc)));
            },
        );
        let mut jobs = parts.jobs(&mut self.mem, &self.period);
        match &mut self.team {
            Some(team) if jobs.len() > 1 => {
                let slots = PartSlots(jobs.as_mut_ptr());
                let job = |i: usize| {
                    let slots = &slots;
                    // SAFETY: each job index runs once (`Team::run`).
                    unsafe { (*slots.0.add(i)).run() };
                };
                team.run(jobs.len(), &job, || {});
            }
            _ => jobs.iter_mut().for_each(PartJob::run),
        }
        drop(jobs);
        parts.finish(&mut self.mem, &mut self.cyc, &mut self.next);
    }

    /// Every memory-side tick at time `t` (a core tick time, before the core's cycle there), in
    /// the one-cycle engine's order; `eject`: the interconnect tick ejects replies too.
    fn ticks_at(&mut self, t: u64, eject: bool) {
        self.ticks_at_before(t, self.cyc[CORE], eject);
    }

    /// The memory-side ticks at time `t`; the request network takes only requests born before
    /// core cycle `before`, and replies are ejected only if `eject` (step 4 of a window: not).
    fn ticks_at_before(&mut self, t: u64, before: u64, eject: bool) {
        self.dram_l2_ticks_at(t);
        if self.next[ICNT] == t {
            self.icnt_req_before(before);
            self.mem.icnt_mid(self.cyc[ICNT], self.cyc[L2]);
            if eject {
                self.icnt_eject(false);
            }
            self.cyc[ICNT] += 1;
            self.next[ICNT] += self.period[ICNT];
        }
    }
}
