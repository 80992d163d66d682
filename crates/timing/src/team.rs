//! The worker team that steps the SM pipelines of one core cycle in parallel (phase 2 of
//! [`crate::gpu`]).
//!
//! A phase lasts a few microseconds, so handing it to a general-purpose pool each cycle costs as
//! much as the work itself. The team is a set of threads that live as long as the GPU. Per
//! phase, the main thread publishes the SM array and the cycle and opens a new *epoch* in the
//! `claim` word (epoch in the high 32 bits, next SM index in the low 32); every participant,
//! the main thread included, claims SMs one at a time by compare-and-swap on that word and steps
//! them; the main thread leaves the phase when every SM of it has been stepped. A worker that is
//! late (descheduled on a busy machine) never holds the phase up: its claim fails once the epoch
//! has moved on or every SM is taken, and the main thread simply steps more SMs itself. Idle
//! workers spin briefly, then park until the main thread unparks them at the next phase. Each
//! SM's step reads and writes only that SM, so the result does not depend on which thread
//! stepped which SM.
//!
//! The window engine's phases ([`Team::run`], [`Team::run_balanced`]) are claimed differently:
//! each participant owns a contiguous home range of the phase's jobs with a cursor on its own
//! cache line, runs it in order, reports its count, then helps with the others' leftovers. No
//! cache line is written by two threads per job, and a job (an SM, a memory partition) keeps
//! running on the same thread (its state stays in that core's caches) unless a thread falls
//! behind. Opening a phase costs the calling thread one store per participant's cursor (plain
//! release stores, which the store buffer overlaps) and one sequentially consistent store of the
//! phase word, the only line idle workers spin on; a phase needs no closing stores (an exhausted
//! cursor cannot be claimed, and a cursor is rewritten in one store: epoch, range end and next
//! index in one word). With [`Team::run_balanced`] the home ranges follow each job's expected
//! cost rather than its index, so that a few expensive jobs (the memory side's chain) do not
//! share a participant with a fair share of the SMs.

use crate::core::sm::Sm;
use crate::placement::{
    Period, Placement, Sample, TeamReport, CHECK_EVERY, FAR_NS, JUDGE_MIN_NS, NEAR_NS,
    PERIOD_WINDOWS, PROBE_EVERY_NS,
};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::{JoinHandle, Thread};

// The SMs are handed to other threads through raw pointers: they must be `Send`.
const _: fn() = || {
    fn send<T: Send>() {}
    send::<Sm>();
};

/// Spins this many times waiting for work (or for the last SMs) before parking or yielding.
const SPINS: u32 = 1 << 12;

/// The placement probe ([`Team::measure`]): how long the worker may take to answer the first
/// ping (it may be parked: a wake-up; the windows go on meanwhile), and any later round trip,
/// nanoseconds; longer means its core is busy with something else.
const PROBE_WAKE_NS: u64 = 20_000_000;
const PROBE_STALL_NS: u64 = 100_000;
/// Polls for a working team's worker to answer the first ping before the window goes on (a
/// few microseconds; a worker that is not parked and does not answer in that time is not
/// running: its core is busy).
const PROMPT_POLLS: u32 = 4096;
/// After this many unanswered or stalled probes in a row the probe interval stops doubling
/// (at most `2^PROBE_BACKOFF` times [`PROBE_EVERY_NS`]: a busy host is not pinged often).
const PROBE_BACKOFF: u32 = 3;
/// Round trips of a probe: a few not timed, then `PROBE_BATCHES` timed batches of
/// `PROBE_BATCH`; the one-way latency is the median batch's time over `2 * PROBE_BATCH`.
const PROBE_WARM: u64 = 16;
const PROBE_BATCHES: usize = 8;
const PROBE_BATCH: u64 = 32;
/// The worker leaves its answering loop after this many reads without a new ping (the calling
/// thread gave up on it); the reads after the first [`SPINS`] pause (about 6 ms in all on the
/// development VM, enough for the calling thread to come back from a window or a launch's end).
const PONG_SPINS: u32 = 1 << 18;
/// The low half of the probe word: 0 closed, odd a ping waiting for its answer, even (not 0)
/// answered; the high half is the probe's number.
const PROBE_STATE: u64 = 0xFFFF_FFFF;

struct Shared {
    /// Epoch (high 32 bits) and next SM index to claim (low 32 bits).
    claim: AtomicU64,
    /// Core cycle of the current phase.
    now: AtomicU64,
    /// The SM array of the current phase, the indices of the SMs to step (`order`) and their
    /// count.
    sms: AtomicPtr<Sm>,
    order: AtomicPtr<u32>,
    /// The job of a [`Team::run`] phase (a `Job` on the caller's stack).
    job: AtomicPtr<()>,
    len: AtomicUsize,
    /// How many SMs of `order` (a prefix) have been fetched and may be claimed; `<= len`.
    ready: AtomicUsize,
    /// SMs stepped in the current phase.
    completed: AtomicUsize,
    /// Workers parked waiting for a phase.
    parked: AtomicUsize,
    /// A worker panicked while stepping an SM (the main thread re-raises it).
    poisoned: AtomicBool,
    quit: AtomicBool,
    /// [`Team::run`] phases: one cursor per participant (the calling thread is participant 0),
    /// each on its own cache line: epoch, end of the participant's home range and next index
    /// to claim ([`cursor`]).
    cursors: Box<[Pad<AtomicU64>]>,
    /// The epoch of the last `run` phase opened (workers spin on this line alone).
    phase: Pad<AtomicU64>,
    /// Jobs completed in all `run` phases so far (each participant adds its home range's count
    /// once, and each job it takes from another range).
    done: Pad<AtomicUsize>,
    /// The placement probe's cache line ([`Team::post`]): probe number (high 32 bits) and
    /// state ([`PROBE_STATE`]); the calling thread pings, worker 1 answers.
    probe: Pad<AtomicU64>,
    /// The CPU the calling thread posted the current probe from (-1: unknown), and how often
    /// worker 1 found itself on that CPU and moved off it ([`leave_cpu`]).
    caller_cpu: AtomicI32,
    moves: AtomicU64,
}

/// The CPU the calling thread runs on (Linux), or -1.
fn current_cpu() -> i32 {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `sched_getcpu` has no preconditions.
        unsafe { libc::sched_getcpu() }
    }
    #[cfg(not(target_os = "linux"))]
    {
        -1
    }
}

/// Moves the calling thread off CPU `cpu` (Linux): sets its affinity to its allowed CPUs less
/// `cpu` (the kernel migrates it at once), then gives it its old affinity back (it stays where
/// it now is). Returns whether it moved. A worker woken on the calling thread's CPU while the
/// other CPU runs another program would otherwise stay there, taking turns with the calling
/// thread (docs/PERFORMANCE.md, "Session 21: auto").
fn leave_cpu(cpu: i32) -> bool {
    #[cfg(target_os = "linux")]
    {
        let Ok(c) = usize::try_from(cpu) else {
            return false;
        };
        let size = std::mem::size_of::<libc::cpu_set_t>();
        // SAFETY: plain system calls on this thread (pid 0) with a properly sized set.
        unsafe {
            let mut old: libc::cpu_set_t = std::mem::zeroed();
            if libc::sched_getaffinity(0, size, &mut old) != 0 || c >= 8 * size {
                return false;
            }
            let mut new = old;
            libc::CPU_CLR(c, &mut new);
            if libc::CPU_COUNT(&new) == 0 || libc::sched_setaffinity(0, size, &new) != 0 {
                return false;
            }
            libc::sched_setaffinity(0, size, &old);
        }
        true
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = cpu;
        false
    }
}

/// Bits of a cursor word for the next index and for the range end (so at most `2^20 - 1` jobs
/// per phase); the epoch takes the 24 bits above them.
const IDX_BITS: u32 = 20;
const IDX_MASK: u64 = (1 << IDX_BITS) - 1;
/// Epochs wrap at 24 bits.
const EPOCH_MASK: u64 = (1 << 24) - 1;

/// A `run` cursor word: `epoch` (24 bits), the range's end and the next index (20 bits each).
fn cursor(epoch: u64, end: usize, next: usize) -> u64 {
    ((epoch & EPOCH_MASK) << (2 * IDX_BITS)) | ((end as u64) << IDX_BITS) | next as u64
}

/// A cursor word's next index and range end.
fn unpack(c: u64) -> (usize, usize) {
    (
        (c & IDX_MASK) as usize,
        ((c >> IDX_BITS) & IDX_MASK) as usize,
    )
}

/// A value alone on its cache lines (two, for the adjacent-line prefetcher).
#[repr(align(128))]
struct Pad<T>(T);

/// Participant `p`'s home range of a [`Team::run`] phase of `n` jobs on `t` participants:
/// contiguous and the same in every phase of the same `n`, so that a job index (an SM) keeps
/// running on the same thread and its state stays in that core's caches.
fn home(p: usize, t: usize, n: usize) -> (usize, usize) {
    (p * n / t, (p + 1) * n / t)
}

/// The longest expected time of a participant with home ranges `bounds` ([`balanced`]'s
/// layout) over jobs of costs `cost`, participant 0 starting with `lead`.
fn longest(bounds: &[usize], cost: &[u32], lead: u64) -> u64 {
    bounds
        .windows(2)
        .enumerate()
        .map(|(p, r)| {
            let own: u64 = cost[r[0]..r[1]].iter().map(|&c| u64::from(c)).sum();
            own + if p == 0 { lead } else { 0 }
        })
        .max()
        .unwrap_or(0)
}

/// Whether the home ranges `bounds` keep the longest participant's expected time (over jobs
/// of costs `cost`, participant 0 starting with `lead`) within an eighth of the ideal share, the
/// ceiling of the total over the participants. No ranges do better than that share, so
/// [`balanced`]'s cannot either: ranges for which this holds pass [`Team::run_balanced`]'s
/// keep rule (within an eighth of a fresh balance) whatever the fresh balance is, and the
/// calling thread, which runs this before it opens a phase while the other threads wait, need
/// not search for it (one pass over the costs instead of three).
fn within_ideal(bounds: &[usize], cost: &[u32], lead: u64) -> bool {
    let t = bounds.len().saturating_sub(1).max(1) as u64;
    let total = lead + cost.iter().map(|&c| u64::from(c)).sum::<u64>();
    8 * longest(bounds, cost, lead) <= 9 * total.div_ceil(t)
}

/// Home ranges by expected cost: the start of each of `t` participants' ranges over jobs of
/// costs `cost` (in `bounds[0..t]`, `bounds[t] = n`), participant 0 starting with `lead` (the
/// cost of what it runs before its jobs). A job belongs to the participant whose equal share of
/// the total (lead included) holds the job's midpoint, so the ranges are contiguous, in job
/// order, and every participant's load is within one job of an equal share. Without any cost
/// the ranges are [`home`]'s.
fn balanced(t: usize, cost: &[u32], lead: u64, bounds: &mut Vec<usize>) {
    let n = cost.len();
    bounds.clear();
    let total = lead + cost.iter().map(|&c| u64::from(c)).sum::<u64>();
    if total == 0 || t <= 1 {
        bounds.extend((0..t).map(|p| home(p, t, n).0));
        bounds.push(n);
        return;
    }
    bounds.push(0);
    let mut acc = lead;
    // The owner of job `i` is `floor(mid2 * t / (2 * total))` (at most `t - 1`), `mid2` being
    // twice its midpoint; midpoints only grow, so the owner is found by stepping up from the
    // last one with multiplications (no 128-bit division per job on the calling thread, which
    // runs this before it opens every phase).
    let (t128, total2) = (t as u128, 2 * u128::from(total));
    let mut owner = 0usize;
    for (i, &c) in cost.iter().enumerate() {
        let mid2 = u128::from(2 * acc + u64::from(c)) * t128;
        while owner + 1 < t && mid2 >= total2 * (owner as u128 + 1) {
            owner += 1;
        }
        while bounds.len() <= owner {
            bounds.push(i);
        }
        acc += u64::from(c);
    }
    while bounds.len() <= t {
        bounds.push(n);
    }
}

impl Shared {
    /// Claims and steps SMs of the current phase until none is left to claim; returns whether
    /// it stepped any.
    fn work(&self) -> bool {
        let mut any = false;
        loop {
            let c = self.claim.load(Ordering::Acquire);
            let i = (c & 0xFFFF_FFFF) as usize;
            if i >= self.ready.load(Ordering::Acquire) {
                return any;
            }
            if self
                .claim
                .compare_exchange_weak(c, c + 1, Ordering::AcqRel, Ordering::Acquire)
                .is_err()
            {
                continue;
            }
            // SAFETY: the claim succeeded on (epoch, i) with i below the phase's length, so
            // the phase is still open (the main thread waits for claim i before it leaves it
            // and before it publishes another array, order, cycle or length), `order` is that
            // phase's list of `len` distinct, in-range indices into `sms` (checked by
            // `Team::cycle`), and no other participant claimed index i: this is the only
            // reference to SM `order[i]` until `completed` is incremented.
            let step = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe {
                let base = self.sms.load(Ordering::Acquire);
                let sm = *self.order.load(Ordering::Acquire).add(i) as usize;
                (*base.add(sm)).cycle(self.now.load(Ordering::Acquire));
            }));
            if step.is_err() {
                self.poisoned.store(true, Ordering::Release);
            }
            self.completed.fetch_add(1, Ordering::AcqRel);
            any = true;
        }
    }

    /// Whether the current `cycle` phase has an SM left to claim, or a `run` phase newer than
    /// epoch `seen` is open.
    fn open(&self, seen: u64) -> bool {
        let i = (self.claim.load(Ordering::SeqCst) & 0xFFFF_FFFF) as usize;
        i < self.len.load(Ordering::SeqCst)
            || self.phase.0.load(Ordering::SeqCst) != seen
            || self.probe.0.load(Ordering::SeqCst) & 1 == 1
    }

    /// Worker 1, if it runs on the CPU the calling thread last recorded (`caller_cpu`), moves
    /// off it ([`leave_cpu`]) and counts the move.
    fn leave_caller_cpu(&self) {
        let c = self.caller_cpu.load(Ordering::Relaxed);
        if c >= 0 && current_cpu() == c && leave_cpu(c) {
            self.moves.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Worker 1's side of a placement probe: answers each ping (an odd state) with the next
    /// state until the calling thread closes the probe, or stops pinging for a while.
    fn pong(&self) {
        let mut idle = 0u32;
        loop {
            let v = self.probe.0.load(Ordering::Acquire);
            if v & PROBE_STATE == 1 {
                // The first ping: if this worker is on the calling thread's CPU (woken there
                // while the other CPU was busy), it moves off it before answering.
                self.leave_caller_cpu();
            }
            if v & 1 == 1 {
                // A CAS, not a store: a late answer must not overwrite a newer ping or the close.
                let _ =
                    self.probe
                        .0
                        .compare_exchange(v, v + 1, Ordering::AcqRel, Ordering::Relaxed);
                idle = 0;
            } else if v & PROBE_STATE == 0
                || idle >= PONG_SPINS
                || (idle > SPINS && self.quit.load(Ordering::Relaxed))
            {
                return;
            } else {
                idle += 1;
                if idle > SPINS {
                    std::hint::spin_loop();
                }
            }
        }
    }

    /// Claims one index of participant `q`'s home range of the current `run` phase.
    fn run_claim(&self, q: usize) -> Option<usize> {
        self.claim(q, false)
    }

    /// Claims the last unclaimed index of participant `q`'s home range of the current `run`
    /// phase (a thief's claim: it shortens the range from its end, so that the owner, which
    /// claims from the front, keeps its first jobs and a stolen job is one the owner would have
    /// run last).
    fn steal_claim(&self, q: usize) -> Option<usize> {
        self.claim(q, true)
    }

    /// Claims an index of participant `q`'s range from its front (the owner) or its end (a
    /// thief). One word holds the range's end and the next index: owner and thieves move its
    /// two ends, so each index is claimed once, an exhausted cursor (every cursor of a finished
    /// phase) is never claimed, and a new phase's cursor is written whole.
    fn claim(&self, q: usize, from_end: bool) -> Option<usize> {
        let cur = &self.cursors[q].0;
        loop {
            let c = cur.load(Ordering::Acquire);
            let (i, end) = unpack(c);
            if i >= end {
                return None;
            }
            let (next, got) = if from_end {
                (c - (1 << IDX_BITS), end - 1)
            } else {
                (c + 1, i)
            };
            if cur
                .compare_exchange_weak(c, next, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                return Some(got);
            }
        }
    }

    /// Runs job `i` of the current `run` phase (claimed by this thread).
    fn run_job(&self, i: usize) {
        // SAFETY: the caller claimed `i` on a cursor of the open phase (`run` returns only
        // after every index completed, and wrote the job before the cursors, release; the
        // claim acquired the cursor); no other participant claimed `i`.
        let step = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe {
            let job = self.job.load(Ordering::Acquire);
            (*(job as *const Job)).0(i);
        }));
        if step.is_err() {
            self.poisoned.store(true, Ordering::Release);
        }
    }

    /// Participant `p` of a `run` phase: claims and runs its home range's jobs in order and
    /// reports their count, then takes what is left of the others' ranges (a late or slower
    /// participant's), reporting each; returns whether it ran any.
    fn work_run(&self, p: usize) -> bool {
        let mut ran = 0usize;
        while let Some(i) = self.run_claim(p) {
            self.run_job(i);
            ran += 1;
        }
        if ran > 0 {
            self.done.0.fetch_add(ran, Ordering::AcqRel);
        }
        (self.steal(p) > 0) | (ran > 0)
    }

    /// Runs what is left of the other participants' home ranges, each from its end (each job
    /// reported as it completes); returns how many it ran. When it returns, every cursor of
    /// the phase is exhausted (cursors never grow within a phase).
    fn steal(&self, p: usize) -> usize {
        let t = self.cursors.len();
        let mut ran = 0;
        for k in 1..t {
            while let Some(i) = self.steal_claim((p + k) % t) {
                self.run_job(i);
                self.done.0.fetch_add(1, Ordering::AcqRel);
                ran += 1;
            }
        }
        ran
    }
}

/// The job of a [`Team::run`] phase, with its lifetime erased (it lives on the stack of `run`,
/// which does not return before every index has been done).
struct Job(&'static (dyn Fn(usize) + Sync));

/// Worker threads for phase 2; dropping the team stops and joins them.
pub struct Team {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
    threads: Vec<Thread>,
    epoch: u64,
    /// Jobs completed by the end of the last `run` phase (`Shared::done`'s target).
    done: usize,
    /// The home ranges' starts of the current `run` phase (`bounds[t]` = its job count), and
    /// of the last balanced phase (kept while the jobs stay the same and it is nearly as
    /// balanced, so that jobs keep their threads).
    bounds: Vec<usize>,
    kept: Vec<usize>,
    /// `--threads auto` on a team of two: the placement judge ([`Team::set_adaptive`]).
    auto: Option<Box<Auto>>,
    /// The current phases run on the calling thread alone (only with `auto`).
    alone: bool,
    /// Worker 1's CPU-time clock (Linux; for an adaptive team's check periods).
    #[cfg(target_os = "linux")]
    worker_clock: Option<libc::clockid_t>,
}

/// What one placement probe found ([`Team::measure`], [`Team::judge`]).
enum Probe {
    /// The one-way latency, nanoseconds.
    OneWay(u32),
    /// The worker did not answer the first ping in time.
    Unanswered,
    /// It answered, then did not answer a later ping in time.
    Stalled,
}

/// The state of an adaptive team ([`Team::set_adaptive`], `crate::placement`).
#[derive(Default)]
struct Auto {
    judge: Placement,
    /// Windows so far.
    windows: u64,
    /// When the last probe was taken.
    last_probe: Option<std::time::Instant>,
    /// The answered probes' one-way latencies, ns (for the report's median).
    samples: Vec<u32>,
    /// The probe number of the last probe (the probe word's high half).
    id: u64,
    /// The probe posted and not answered yet, and when it was posted.
    pending: Option<(u64, std::time::Instant)>,
    /// The team runs together for a trial before a probe taken while alone ([`Team::judge`]).
    trial: bool,
    /// Unanswered or stalled probes in a row (the interval doubles with each, [`PROBE_BACKOFF`]).
    busy_streak: u32,
    /// The current check period on the team ([`Period`]): its phases so far
    /// ([`Team::run_balanced`]), its windows, and its start (wall clock, the team's CPU time).
    period: Period,
    period_windows: u64,
    period_start: Option<(std::time::Instant, Option<u64>)>,
    /// Each period's share of two CPUs, per mille (for the report's median).
    shares: Vec<u32>,
    report: TeamReport,
}

/// A thread's CPU time on clock `clock` (Linux), nanoseconds.
#[cfg(target_os = "linux")]
fn cpu_ns(clock: libc::clockid_t) -> Option<u64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a plain system call writing `ts`.
    if unsafe { libc::clock_gettime(clock, &mut ts) } != 0 {
        return None;
    }
    Some(u64::try_from(ts.tv_sec).ok()? * 1_000_000_000 + u64::try_from(ts.tv_nsec).ok()?)
}

impl Team {
    /// A team of `threads` participants: the calling thread and `threads - 1` workers.
    pub fn new(threads: usize) -> Self {
        let shared = Arc::new(Shared {
            claim: AtomicU64::new(0),
            now: AtomicU64::new(0),
            sms: AtomicPtr::new(std::ptr::null_mut()),
            order: AtomicPtr::new(std::ptr::null_mut()),
            job: AtomicPtr::new(std::ptr::null_mut()),
            len: AtomicUsize::new(0),
            ready: AtomicUsize::new(0),
            completed: AtomicUsize::new(0),
            parked: AtomicUsize::new(0),
            poisoned: AtomicBool::new(false),
            quit: AtomicBool::new(false),
            cursors: (0..threads.max(1))
                .map(|_| Pad(AtomicU64::new(cursor(0, 0, 0))))
                .collect(),
            phase: Pad(AtomicU64::new(0)),
            done: Pad(AtomicUsize::new(0)),
            probe: Pad(AtomicU64::new(0)),
            caller_cpu: AtomicI32::new(-1),
            moves: AtomicU64::new(0),
        });
        let workers: Vec<JoinHandle<()>> = (1..threads.max(1))
            .map(|p| {
                let s = Arc::clone(&shared);
                std::thread::spawn(move || {
                    let mut idle = 0u32;
                    // The last `run` phase this worker has taken part in.
                    let mut seen = 0u64;
                    while !s.quit.load(Ordering::Acquire) {
                        let e = s.phase.0.load(Ordering::Acquire);
                        let ran = if e != seen {
                            seen = e;
                            s.work_run(p);
                            true
                        } else {
                            false
                        };
                        // Worker 1 answers the calling thread's placement probes.
                        let pinged = p == 1 && s.probe.0.load(Ordering::Acquire) & 1 == 1;
                        if pinged {
                            s.pong();
                        }
                        if ran | pinged | s.work() {
                            idle = 0;
                        } else if idle < SPINS {
                            std::hint::spin_loop();
                            idle += 1;
                        } else if s.open(seen) {
                            // The phase's next SMs are still being fetched: let the fetching
                            // thread have the core on a busy machine.
                            std::thread::yield_now();
                        } else {
                            // SeqCst with `Team::wake`: either `open` sees the new phase or
                            // `wake` sees this worker parked and unparks it.
                            s.parked.fetch_add(1, Ordering::SeqCst);
                            if !s.open(seen) && !s.quit.load(Ordering::SeqCst) {
                                std::thread::park();
                            }
                            s.parked.fetch_sub(1, Ordering::SeqCst);
                            idle = 0;
                            // An adaptive team's worker woken on the calling thread's CPU
                            // (the other one busy) moves off it ([`leave_cpu`]).
                            if p == 1 {
                                s.leave_caller_cpu();
                            }
                        }
                    }
                })
            })
            .collect();
        let threads = workers.iter().map(|w| w.thread().clone()).collect();
        #[cfg(target_os = "linux")]
        let worker_clock = workers.first().and_then(|w| {
            use std::os::unix::thread::JoinHandleExt;
            let mut c: libc::clockid_t = 0;
            // SAFETY: the thread is alive (joined only when the team is dropped).
            (unsafe { libc::pthread_getcpuclockid(w.as_pthread_t(), &mut c) } == 0).then_some(c)
        });
        Self {
            shared,
            workers,
            threads,
            epoch: 0,
            done: 0,
            bounds: Vec::new(),
            kept: Vec::new(),
            auto: None,
            alone: false,
            #[cfg(target_os = "linux")]
            worker_clock,
        }
    }

    /// The CPU time the calling thread and worker 1 have run so far, nanoseconds (`None`
    /// where the host cannot tell).
    fn team_cpu_ns(&self) -> Option<u64> {
        #[cfg(target_os = "linux")]
        {
            Some(cpu_ns(libc::CLOCK_THREAD_CPUTIME_ID)? + cpu_ns(self.worker_clock?)?)
        }
        #[cfg(not(target_os = "linux"))]
        {
            None
        }
    }

    /// Lets a team of two run the window engine's phases on the calling thread alone while the
    /// host keeps the two threads far apart or the worker's core busy (`--threads auto`;
    /// `crate::placement`). A team of another size ignores it: the thresholds were measured
    /// on two vCPUs only. Which thread runs a job never changes a result.
    pub fn set_adaptive(&mut self, on: bool) {
        self.auto = (on && self.shared.cursors.len() == 2).then(Box::default);
        self.alone = false;
    }

    /// What the adaptive choice did so far (`None` without [`Team::set_adaptive`]).
    pub fn report(&self) -> Option<TeamReport> {
        let a = self.auto.as_ref()?;
        let mut r = a.report.clone();
        r.worker_moves = self.shared.moves.load(Ordering::Relaxed);
        let mut v = a.samples.clone();
        v.sort_unstable();
        if let (Some(&lo), Some(&hi)) = (v.first(), v.last()) {
            r.one_way_ns_min = lo;
            r.one_way_ns_max = hi;
            r.one_way_ns_median = v[v.len() / 2];
        }
        let mut v = a.shares.clone();
        v.sort_unstable();
        r.cpu_share_median_permille = v.get(v.len() / 2).copied().unwrap_or(0);
        Some(r)
    }

    /// The probe word's value `state` of probe `id`.
    fn probe_word(id: u64, state: u64) -> u64 {
        ((id & PROBE_STATE) << 32) | state
    }

    /// Posts probe `id`'s first ping (a cache-line ping-pong with worker 1, `crate::placement`)
    /// and wakes the worker if it is parked; [`Team::judge`] then looks for its answer at each
    /// window start without waiting for it (a parked worker on an idle vCPU can take a
    /// millisecond to wake on the development VM).
    fn post(&self, id: u64) {
        self.shared
            .caller_cpu
            .store(current_cpu(), Ordering::Relaxed);
        // SeqCst with the worker's park (as `Team::wake`): it sees the ping or is unparked.
        self.shared
            .probe
            .0
            .store(Self::probe_word(id, 1), Ordering::SeqCst);
        self.wake();
    }

    /// Whether worker 1 has answered probe `id`'s first ping, polling up to `polls` times.
    fn first_answer(&self, id: u64, polls: u32) -> bool {
        let want = Self::probe_word(id, 2);
        (0..polls.max(1)).any(|_| self.shared.probe.0.load(Ordering::Acquire) == want)
    }

    /// Closes probe `id` (the worker leaves its answering loop).
    fn close(&self, id: u64) {
        self.shared
            .probe
            .0
            .store(Self::probe_word(id, 0), Ordering::Release);
    }

    /// The timed part of probe `id`, once the worker has answered its first ping: a few round
    /// trips not timed, then [`PROBE_BATCHES`] timed batches of [`PROBE_BATCH`]; the one-way
    /// latency in nanoseconds is the median batch's time over `2 * PROBE_BATCH`, or
    /// [`Probe::Stalled`] if a round trip takes longer than [`PROBE_STALL_NS`] (the worker was
    /// descheduled: its core is busy). Runs between phases only; touches nothing the jobs
    /// touch; closes the probe.
    fn measure(&self, id: u64) -> Probe {
        use std::time::Instant;
        let line = &self.shared.probe.0;
        // Waits for `want`; false after about `limit` ns. The clock is read only every 256
        // polls (a prompt answer costs no clock read) and the loop has no `pause`, so that the
        // wait adds as little as possible to the latency measured.
        let answered = |want: u64, limit: u64| {
            let mut k = 0u32;
            let mut since: Option<Instant> = None;
            loop {
                if line.load(Ordering::Acquire) == want {
                    return true;
                }
                k = k.wrapping_add(1);
                if k.is_multiple_of(256) {
                    let now = Instant::now();
                    match since {
                        None => since = Some(now),
                        Some(t) if now.duration_since(t).as_nanos() > u128::from(limit) => {
                            return false
                        }
                        Some(_) => {}
                    }
                }
            }
        };
        let mut ok = true;
        let mut state = 2u64;
        let mut batch = [0u64; PROBE_BATCHES];
        let trip = |state: &mut u64| {
            line.store(Self::probe_word(id, *state + 1), Ordering::Release);
            *state += 2;
            answered(Self::probe_word(id, *state), PROBE_STALL_NS)
        };
        for _ in 0..PROBE_WARM {
            ok = ok && trip(&mut state);
        }
        for b in batch.iter_mut() {
            if !ok {
                break;
            }
            let t0 = Instant::now();
            for _ in 0..PROBE_BATCH {
                ok = ok && trip(&mut state);
            }
            *b = u64::try_from(t0.elapsed().as_nanos()).unwrap_or(u64::MAX);
        }
        self.close(id);
        if !ok {
            return Probe::Stalled;
        }
        batch.sort_unstable();
        let one_way = batch[PROBE_BATCHES / 2] / (2 * PROBE_BATCH);
        Probe::OneWay(u32::try_from(one_way).unwrap_or(u32::MAX))
    }

    /// At the start of a window of the window engine: whether this window's phases
    /// ([`Team::run_balanced`], [`Team::run`]) run on the calling thread alone. Always false
    /// unless the team is adaptive ([`Team::set_adaptive`]); then it also posts a placement
    /// probe when one is due, measures a posted probe once the worker has answered it (or
    /// gives up on it after [`PROBE_WAKE_NS`]), and folds the result into the choice.
    pub fn start_window(&mut self) -> bool {
        if self.auto.is_some() {
            self.alone = self.judge();
        }
        self.alone
    }

    /// [`Team::start_window`] of an adaptive team.
    fn judge(&mut self) -> bool {
        use std::time::Instant;
        let Some(mut a) = self.auto.take() else {
            return false;
        };
        let check = a.windows.is_multiple_of(CHECK_EVERY);
        if check {
            // Where the calling thread runs, for a worker that wakes there (`leave_cpu`).
            self.shared
                .caller_cpu
                .store(current_cpu(), Ordering::Relaxed);
        }
        let mut found = None;
        if let Some((id, posted)) = a.pending {
            if self.first_answer(id, 1) {
                let t0 = Instant::now();
                found = Some(self.measure(id));
                a.report.probe_ns += u64::try_from(t0.elapsed().as_nanos()).unwrap_or(u64::MAX);
            } else if check && posted.elapsed().as_nanos() > u128::from(PROBE_WAKE_NS) {
                self.close(id);
                found = Some(Probe::Unanswered);
            }
        } else if check && a.windows > 0 {
            // (Not at the first window: the worker has been parked since the team was made;
            // the first probe comes after `CHECK_EVERY` windows on the team.)
            let now = Instant::now();
            // After an unanswered probe on the team, the next one comes at once: it decides
            // whether the partner is busy (`Placement::suspect`).
            let every = if a.judge.suspect() {
                0
            } else {
                PROBE_EVERY_NS << a.busy_streak.min(PROBE_BACKOFF)
            };
            let due = a
                .last_probe
                .is_none_or(|t| now.duration_since(t).as_nanos() >= u128::from(every));
            if due && a.judge.alone() && !a.trial {
                // Alone, the worker is parked: woken by a probe it may land on the calling
                // thread's core (the other one being busy with another program) and stall the
                // probe. So the team first runs `CHECK_EVERY` windows together (a trial: the
                // worker wakes, settles and spins between phases), then the probe is taken.
                a.trial = true;
            } else if due {
                a.trial = false;
                a.id = (a.id + 1) & PROBE_STATE;
                if a.id == 0 {
                    a.id = 1;
                }
                let parked = self.shared.parked.load(Ordering::SeqCst) > 0;
                self.post(a.id);
                a.pending = Some((a.id, now));
                a.report.probes += 1;
                // A spinning worker (a team at work) answers within a microsecond: then the
                // probe is measured at once, and the worker is not left waiting in its
                // answering loop through the window. A team's worker that is not parked and
                // does not answer at once is not running: another program holds its core.
                if !self.alone {
                    if self.first_answer(a.id, PROMPT_POLLS) {
                        found = Some(self.measure(a.id));
                        a.report.probe_ns +=
                            u64::try_from(now.elapsed().as_nanos()).unwrap_or(u64::MAX);
                    } else if !parked {
                        self.close(a.id);
                        found = Some(Probe::Unanswered);
                    }
                }
            }
        }
        if let Some(p) = found {
            a.pending = None;
            a.last_probe = Some(Instant::now());
            let sample = match p {
                Probe::Unanswered => {
                    a.report.probes_unanswered += 1;
                    Sample::Unanswered
                }
                Probe::Stalled => {
                    a.report.probes_stalled += 1;
                    Sample::Unanswered
                }
                Probe::OneWay(ns) => {
                    a.samples.push(ns);
                    a.report.probes_near += u64::from(ns < NEAR_NS);
                    a.report.probes_far += u64::from(ns > FAR_NS);
                    Sample::OneWay(ns)
                }
            };
            a.busy_streak = if sample == Sample::Unanswered {
                a.busy_streak.saturating_add(1)
            } else {
                0
            };
            let was_alone = a.judge.alone();
            a.judge.observe(sample);
            if !was_alone && !a.judge.alone() && a.judge.suspect() {
                a.report.probes_suspect += 1;
            }
        }
        // The check periods of a team at work (not alone, not on a trial).
        if a.judge.alone() {
            a.period_start = None;
        } else if let Some((t0, c0)) = a.period_start {
            a.period_windows += 1;
            if a.period_windows >= PERIOD_WINDOWS {
                let now = Instant::now();
                let c1 = self.team_cpu_ns();
                let mut p = a.period;
                p.wall_ns = u64::try_from(now.duration_since(t0).as_nanos()).unwrap_or(u64::MAX);
                p.cpu_ns = c0.zip(c1).map(|(c0, c1)| c1.saturating_sub(c0));
                a.shares.extend(p.cpu_share_permille());
                let v = p.verdict();
                if v == Sample::Absent {
                    a.report.periods_absent += 1;
                    a.report.periods_starved += u64::from(p.starved());
                } else {
                    a.report.periods_present += 1;
                }
                a.judge.observe(v);
                a.period_start = (!a.judge.alone()).then_some((now, c1));
                a.period = Period::default();
                a.period_windows = 0;
            }
        } else {
            a.period_start = Some((Instant::now(), self.team_cpu_ns()));
            a.period = Period::default();
            a.period_windows = 0;
        }
        a.windows += 1;
        let alone = a.judge.alone() && !a.trial;
        if alone != self.alone && a.windows > 1 {
            a.report.switches += 1;
        }
        if alone {
            a.report.windows_alone += 1;
        } else {
            a.report.windows_team += 1;
        }
        self.auto = Some(a);
        alone
    }

    fn wake(&self) {
        if self.shared.parked.load(Ordering::SeqCst) > 0 {
            for t in &self.threads {
                t.unpark();
            }
        }
    }

    /// Steps the SMs `sms[order[0]], sms[order[1]], ...` for core cycle `now` on all
    /// participants; returns when all are done.
    ///
    /// Before SM `order[i]` may be stepped, the calling thread runs `prepare` on it (the
    /// sequential fetch through the functional front end), in `order`; the other participants
    /// step the SMs already prepared while it prepares the next ones, so the sequential and the
    /// parallel work overlap. If `prepare` fails on `order[i]`, the SMs before it are stepped,
    /// the others are not, and the error is returned (as a one-thread loop of "prepare, step"
    /// would leave them).
    ///
    /// The calling thread runs `after` once it has prepared every SM (or a `prepare` failed),
    /// while the other participants are still stepping SMs, and before it joins them. `after`
    /// cannot touch the SMs (the engine runs the memory side of the cycle there, which the
    /// SMs' steps do not read).
    ///
    /// # Panics
    /// If an index of `order` is out of range or repeated (two threads would step one SM).
    pub fn cycle<E>(
        &mut self,
        sms: &mut [Sm],
        order: &[u32],
        now: u64,
        mut prepare: impl FnMut(&mut Sm) -> Result<(), E>,
        after: impl FnOnce(),
    ) -> Result<(), E> {
        assert!(
            order.windows(2).all(|w| w[0] < w[1])
                && order.last().is_none_or(|&i| (i as usize) < sms.len()),
            "team order must be increasing SM indices in range"
        );
        let s = &self.shared;
        self.epoch = (self.epoch + 1) & 0xFFFF_FFFF;
        let base = sms.as_mut_ptr();
        // Closed while the phase's values are written: no index is below any length.
        s.claim
            .store((self.epoch << 32) | 0xFFFF_FFFF, Ordering::SeqCst);
        s.sms.store(base, Ordering::Release);
        s.order.store(order.as_ptr().cast_mut(), Ordering::Release);
        s.len.store(order.len(), Ordering::Release);
        s.ready.store(0, Ordering::Release);
        s.now.store(now, Ordering::Release);
        s.completed.store(0, Ordering::Release);
        s.claim.store(self.epoch << 32, Ordering::SeqCst);
        self.wake();
        let mut result = Ok(());
        for (i, &sm) in order.iter().enumerate() {
            // SAFETY: `order` holds distinct in-range indices (asserted above) and SM `order[i]`
            // is not claimable before `ready` exceeds `i`, so this is the only reference to it;
            // the other participants only touch the SMs of `order[..ready]`.
            let r = prepare(unsafe { &mut *base.add(sm as usize) });
            if let Err(e) = r {
                // Close the phase at `i`: the SMs already prepared are stepped, no other.
                s.len.store(i, Ordering::SeqCst);
                result = Err(e);
                break;
            }
            s.ready.store(i + 1, Ordering::Release);
        }
        after();
        s.work();
        let len = s.len.load(Ordering::Acquire);
        let mut n = 0u32;
        while s.completed.load(Ordering::Acquire) != len {
            if n < SPINS {
                std::hint::spin_loop();
                n += 1;
            } else {
                std::thread::yield_now();
            }
        }
        assert!(
            !s.poisoned.load(Ordering::Acquire),
            "an SM-stepping thread panicked (message above)"
        );
        result
    }
}

impl Team {
    /// Runs `job(i)` for every `i` in `0..n` on all participants, each index exactly once;
    /// returns when all are done (the window engine's SM phase: `job(i)` steps one SM through a
    /// whole window). A panic in a job is re-raised here.
    ///
    /// Participant `p` (the calling thread is 0) first runs the contiguous home range
    /// `p * n / T .. (p + 1) * n / T` in order, claiming from a cursor of its own (no shared
    /// counter per job), reports its count, then helps with what is left of the other ranges.
    /// With a stable `n` an index runs on the same thread window after window, unless that
    /// thread was late, so its state stays in one core's caches. Which thread ran which index
    /// must not matter to the caller (each job touches only its own data).
    ///
    /// `after` runs on the calling thread once the phase is open, before it joins the other
    /// participants (its home range is taken over by whoever is free); it must not touch what
    /// the jobs touch, unless those jobs wait for it (the window engine runs the memory side,
    /// or the request network's ticks that its partition jobs wait for, there).
    pub fn run(&mut self, n: usize, job: &(dyn Fn(usize) + Sync), after: impl FnOnce()) {
        self.run_balanced(&[], 0, false, n, job, after);
    }

    /// [`Team::run`] with home ranges by expected cost ([`balanced`]): `cost[i]` is job `i`'s
    /// (any unit), `lead` that of `after` in the same unit; an empty `cost` gives `run`'s
    /// ranges by index. `same`: the jobs are those of the last balanced phase, in the same
    /// order; its ranges are then kept unless the new ones shorten the longest participant's
    /// expected time by more than an eighth (so that a job does not flip between two threads
    /// on measurement noise). Only the distribution of the jobs over the threads depends on
    /// the costs, never what a job does.
    ///
    /// While an adaptive team ([`Team::set_adaptive`]) runs alone ([`Team::start_window`]),
    /// this and [`Team::run`] run on the calling thread: `after` first, then every job in index
    /// order.
    ///
    /// # Panics
    /// If `cost` is neither empty nor `n` long, or `n` is `2^20` or more.
    pub fn run_balanced(
        &mut self,
        cost: &[u32],
        lead: u64,
        same: bool,
        n: usize,
        job: &(dyn Fn(usize) + Sync),
        after: impl FnOnce(),
    ) {
        assert!(cost.is_empty() || cost.len() == n, "one cost per job");
        assert!((n as u64) <= IDX_MASK, "at most 2^20 - 1 jobs per phase");
        if self.alone {
            // No phase is opened: the worker spins out and parks.
            after();
            (0..n).for_each(job);
            return;
        }
        let s = &self.shared;
        let t = s.cursors.len();
        self.epoch = (self.epoch + 1) & EPOCH_MASK;
        if self.epoch == 0 {
            self.epoch = 1;
        }
        // SAFETY (lifetime erasure): the job is only called for claims of this phase, and this
        // function returns only after every index has completed; cursors of a finished phase
        // are exhausted (every index was claimed), so no claim succeeds before the next phase
        // rewrites them.
        let job: &'static (dyn Fn(usize) + Sync) = unsafe { std::mem::transmute(job) };
        let holder = Job(job);
        if cost.is_empty() {
            self.bounds.clear();
            self.bounds.extend((0..t).map(|p| home(p, t, n).0));
            self.bounds.push(n);
        } else if same
            && self.kept.len() == t + 1
            && self.kept[t] == n
            && within_ideal(&self.kept, cost, lead)
        {
            // The rule below keeps these ranges too (`within_ideal`), without the search.
            self.bounds.clone_from(&self.kept);
        } else {
            balanced(t, cost, lead, &mut self.bounds);
            let keep = same
                && self.kept.len() == t + 1
                && self.kept[t] == n
                && 8 * longest(&self.kept, cost, lead) <= 9 * longest(&self.bounds, cost, lead);
            if keep {
                self.bounds.clone_from(&self.kept);
            } else {
                self.kept.clone_from(&self.bounds);
            }
        }
        // The `cycle` claim word is exhausted after its phase (`claim` reached `ready`), so it
        // needs no store here. The job first, then each cursor whole (release: a successful
        // claim acquires the job), then the phase word the idle workers watch.
        s.job
            .store(&holder as *const Job as *mut (), Ordering::Release);
        for (p, c) in s.cursors.iter().enumerate() {
            c.0.store(
                cursor(self.epoch, self.bounds[p + 1], self.bounds[p]),
                Ordering::Release,
            );
        }
        s.phase.0.store(self.epoch, Ordering::SeqCst);
        self.done = self.done.wrapping_add(n);
        self.wake();
        // A panic in `after` is re-raised once the phase is over (the job must not outlive it).
        let after = std::panic::catch_unwind(std::panic::AssertUnwindSafe(after));
        let mut ran = 0usize;
        while let Some(i) = s.run_claim(0) {
            s.run_job(i);
            ran += 1;
        }
        if ran > 0 {
            s.done.0.fetch_add(ran, Ordering::AcqRel);
        }
        // Take over what is left of the others' ranges, from their ends (a participant that
        // finishes early helps at once: the per-window costs vary, and a worker descheduled on
        // a busy machine must not hold the phase up), then wait for the jobs in flight.
        ran += s.steal(0);
        let mut k = 0u32;
        while s.done.0.load(Ordering::Acquire) != self.done {
            if k < SPINS {
                std::hint::spin_loop();
                k += 1;
            } else {
                ran += s.steal(0);
                std::thread::yield_now();
            }
        }
        if let Err(p) = after {
            std::panic::resume_unwind(p);
        }
        assert!(
            !s.poisoned.load(Ordering::Acquire),
            "an SM-stepping thread panicked (message above)"
        );
        self.judge_phase(cost, ran == n);
    }

    /// An adaptive team on the team ([`Team::set_adaptive`], not alone nor on a trial): counts
    /// a phase whose worker's home range was expected to last [`JUDGE_MIN_NS`] or more (by
    /// `cost`, in nanoseconds) towards the check period ([`Period`]), `absent` if the calling
    /// thread ran all its jobs.
    fn judge_phase(&mut self, cost: &[u32], absent: bool) {
        let Some(a) = self.auto.as_mut() else {
            return;
        };
        if a.judge.alone() || cost.is_empty() || self.bounds.len() != 3 {
            return;
        }
        let home: u64 = cost[self.bounds[1]..self.bounds[2]]
            .iter()
            .map(|&c| u64::from(c))
            .sum();
        if home < JUDGE_MIN_NS {
            return;
        }
        a.report.phases_judged += 1;
        a.report.phases_absent += u64::from(absent);
        a.period.judged += 1;
        a.period.absent += u64::from(absent);
    }
}

/// The team lent to the window engine's commit ([`warpforge_core::WindowFronts::commit`]).
impl warpforge_core::ParallelFor for Team {
    /// One while an adaptive team runs alone ([`Team::start_window`]): the commit then applies
    /// its stores on the calling thread directly instead of as per-line jobs.
    fn threads(&self) -> usize {
        if self.alone {
            1
        } else {
            self.shared.cursors.len()
        }
    }
    fn run(&mut self, n: usize, job: &(dyn Fn(usize) + Sync)) {
        Team::run(self, n, job, || {});
    }
}

impl Drop for Team {
    fn drop(&mut self) {
        self.shared.quit.store(true, Ordering::SeqCst);
        for t in &self.threads {
            t.unpark();
        }
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::GpuConfig;
    use crate::dram::addrmap::AddrMap;

    fn sms(n: usize) -> Vec<Sm> {
        let cfg = GpuConfig::preset("gtx480").unwrap();
        let map = AddrMap::new(&cfg.dram, cfg.l2.slices_per_channel).unwrap();
        (0..n)
            .map(|i| Sm::new(i as u16, &cfg, map.clone()))
            .collect()
    }

    /// An idle SM's step counts one idle cycle per scheduler: that tells which SMs were
    /// stepped.
    fn stepped(s: &[Sm]) -> Vec<bool> {
        s.iter().map(|s| s.stalls.idle > 0).collect()
    }

    #[test]
    fn prepares_in_order_and_steps_every_listed_sm() {
        for threads in [1, 2, 3] {
            let mut team = Team::new(threads);
            let mut s = sms(9);
            let order = [0u32, 2, 3, 5, 8];
            let mut seen = Vec::new();
            let mut after = 0;
            let r: Result<(), ()> = team.cycle(
                &mut s,
                &order,
                0,
                |sm| {
                    // Not stepped before it is prepared.
                    assert_eq!(sm.stalls.idle, 0);
                    seen.push(sm.id());
                    Ok(())
                },
                || after += 1,
            );
            assert!(r.is_ok());
            assert_eq!(seen, [0, 2, 3, 5, 8], "prepared in order");
            assert_eq!(after, 1, "`after` runs once");
            let want: Vec<bool> = (0..9).map(|i| order.contains(&(i as u32))).collect();
            assert_eq!(stepped(&s), want, "{threads} threads");
        }
    }

    #[test]
    fn run_does_every_index_once() {
        use std::sync::atomic::AtomicU32;
        for threads in [1, 2, 3] {
            let mut team = Team::new(threads);
            for n in [0usize, 1, 5, 40] {
                let hits: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
                team.run(
                    n,
                    &|i| {
                        hits[i].fetch_add(1, Ordering::Relaxed);
                    },
                    || {},
                );
                assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
            }
            // A `cycle` phase after a `run` phase steps SMs again.
            let mut s = sms(3);
            let r: Result<(), ()> = team.cycle(&mut s, &[0, 1, 2], 0, |_| Ok(()), || {});
            assert!(r.is_ok() && stepped(&s).iter().all(|&b| b));
        }
    }

    #[test]
    fn run_runs_after_once_on_the_calling_thread() {
        use std::sync::atomic::AtomicU32;
        for threads in [1, 2, 3] {
            let mut team = Team::new(threads);
            let hits: Vec<AtomicU32> = (0..17).map(|_| AtomicU32::new(0)).collect();
            let me = std::thread::current().id();
            let mut after = 0;
            team.run(
                17,
                &|i| {
                    hits[i].fetch_add(1, Ordering::Relaxed);
                },
                || {
                    assert_eq!(std::thread::current().id(), me);
                    after += 1;
                },
            );
            assert_eq!(after, 1);
            assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
        }
    }

    #[test]
    fn balanced_ranges_follow_the_costs() {
        let mut b = Vec::new();
        // Without costs: `home`'s ranges.
        balanced(3, &[0; 7], 0, &mut b);
        assert_eq!(b, [0, 2, 4, 7]);
        // One expensive job alone; the lead counts for participant 0.
        balanced(2, &[1, 1, 1, 1, 1, 1, 10], 0, &mut b);
        assert_eq!(b, [0, 6, 7], "the six cheap jobs share a thread");
        balanced(2, &[1, 1, 1, 1, 1, 1, 10], 16, &mut b);
        assert_eq!(b, [0, 0, 7], "a lead of 16 leaves participant 0 no job");
        // The window engine's shape: six partitions (cheap), then SMs; a lead.
        let cost = [9, 9, 9, 9, 9, 9, 88, 88, 88, 88];
        balanced(4, &cost, 17, &mut b);
        assert_eq!(b.len(), 5);
        assert!(b.windows(2).all(|w| w[0] <= w[1]) && b[4] == cost.len());
        assert!(
            longest(&b, &cost, 17) <= (17 + cost.iter().sum::<u32>() as u64) / 4 + 88,
            "within one job of an equal share: {b:?}"
        );
        for t in 1..=6 {
            for n in [0usize, 1, 5, 40] {
                let cost: Vec<u32> = (0..n as u32).map(|i| 1 + i % 7 * 100).collect();
                balanced(t, &cost, 50, &mut b);
                assert_eq!(
                    (b[0], b[t], b.len()),
                    (0, n, t + 1),
                    "{t} threads, {n} jobs"
                );
                assert!(b.windows(2).all(|w| w[0] <= w[1]));
            }
        }
    }

    #[test]
    fn balanced_gives_each_job_to_the_share_holding_its_midpoint() {
        // The owner of a job is floor(2 * midpoint * t / (2 * total)), capped at t - 1: the
        // stepping search must agree with that division on any costs.
        let mut b = Vec::new();
        let mut x = 12345u64;
        for case in 0..500 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let t = 1 + (x >> 60) as usize % 6;
            let n = (x >> 40) as usize % 30;
            let lead = if case % 3 == 0 { 0 } else { (x >> 20) % 5000 };
            let cost: Vec<u32> = (0..n)
                .map(|i| ((x >> (i % 40)) % if case % 5 == 0 { 3 } else { 4000 }) as u32)
                .collect();
            balanced(t, &cost, lead, &mut b);
            let total = lead + cost.iter().map(|&c| u64::from(c)).sum::<u64>();
            if total == 0 || t <= 1 {
                continue;
            }
            let mut acc = lead;
            for (i, &c) in cost.iter().enumerate() {
                let mid2 = 2 * acc + u64::from(c);
                let want = ((u128::from(mid2) * t as u128) / (2 * u128::from(total))) as usize;
                let want = want.min(t - 1);
                let got = (0..t).find(|&p| b[p] <= i && i < b[p + 1]);
                let got = got.expect("a range holds job i");
                assert_eq!(
                    got, want,
                    "case {case}: job {i} of {cost:?}, lead {lead}, {t} threads: {b:?}"
                );
                acc += u64::from(c);
            }
        }
    }

    #[test]
    fn ranges_within_the_ideal_share_pass_the_keep_rule() {
        // `within_ideal` is a shortcut for the keep rule: whenever it holds, the ranges are
        // within an eighth of a fresh balance, so `run_balanced` keeps the same ranges either way.
        let mut fresh = Vec::new();
        let mut x = 987654321u64;
        let (mut held, mut cases) = (0, 0);
        for case in 0..3000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let t = 1 + (x >> 61) as usize % 4;
            let n = 1 + (x >> 40) as usize % 40;
            let lead = if case % 4 == 0 { 0 } else { (x >> 17) % 3000 };
            let cost: Vec<u32> = (0..n)
                .map(|i| 500 + ((x >> (i % 23)) % if case % 3 == 0 { 50 } else { 1500 }) as u32)
                .collect();
            // Kept ranges: a balance of slightly different costs (the last phase's).
            let old: Vec<u32> = cost
                .iter()
                .enumerate()
                .map(|(i, &c)| if (i + case) % 5 == 0 { c + c / 3 } else { c })
                .collect();
            let mut kept = Vec::new();
            balanced(t, &old, lead, &mut kept);
            balanced(t, &cost, lead, &mut fresh);
            cases += 1;
            if within_ideal(&kept, &cost, lead) {
                held += 1;
                assert!(
                    8 * longest(&kept, &cost, lead) <= 9 * longest(&fresh, &cost, lead),
                    "case {case}: {kept:?} against {fresh:?} over {cost:?}, lead {lead}"
                );
            }
        }
        // The shortcut is taken in most cases of this shape (as in the window engine, where
        // the costs move slowly), and not in all.
        assert!(held > cases / 2 && held < cases, "{held} of {cases}");
    }

    #[test]
    fn run_balanced_does_every_index_once_and_keeps_ranges() {
        use std::sync::atomic::AtomicU32;
        for threads in [1, 2, 3] {
            let mut team = Team::new(threads);
            for (n, same) in [
                (5usize, false),
                (5, true),
                (40, false),
                (40, true),
                (0, false),
            ] {
                let cost: Vec<u32> = (0..n as u32).map(|i| 1 + (i * 37) % 11).collect();
                let hits: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
                team.run_balanced(
                    &cost,
                    3,
                    same,
                    n,
                    &|i| {
                        hits[i].fetch_add(1, Ordering::Relaxed);
                    },
                    || {},
                );
                assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
            }
            // Nearly the same costs: the last ranges are kept.
            let cost = vec![100u32; 12];
            team.run_balanced(&cost, 0, false, 12, &|_| {}, || {});
            let first = team.bounds.clone();
            // (With 2 threads the new ranges would be [0, 5, 12]: 700 against 750.)
            let mut cost2 = cost.clone();
            cost2[0] = 250;
            team.run_balanced(&cost2, 0, true, 12, &|_| {}, || {});
            assert_eq!(team.bounds, first, "{threads} threads");
            // A large change moves them.
            if threads > 1 {
                let mut cost3 = cost.clone();
                cost3[0] = 1_000;
                team.run_balanced(&cost3, 0, true, 12, &|_| {}, || {});
                assert_ne!(team.bounds, first, "{threads} threads");
            }
        }
    }

    #[test]
    fn an_adaptive_team_runs_windows_alone_or_together_as_judged() {
        use std::sync::atomic::AtomicU32;
        let mut team = Team::new(2);
        team.set_adaptive(true);
        // No probe due for a while; the judge says alone (far apart).
        {
            let a = team.auto.as_mut().expect("a team of two is adaptive");
            a.last_probe = Some(std::time::Instant::now());
            a.windows = 1;
            a.judge.observe(Sample::OneWay(FAR_NS + 50));
        }
        team.alone = true;
        let me = std::thread::current().id();
        let n = 9;
        let cost = vec![5u32; n];
        for round in 0..2 {
            let hits: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
            let others = AtomicU32::new(0);
            let mut after = 0;
            let job = |i: usize| {
                hits[i].fetch_add(1, Ordering::Relaxed);
                if std::thread::current().id() != me {
                    others.fetch_add(1, Ordering::Relaxed);
                }
            };
            assert!(team.start_window(), "far apart: alone");
            team.run_balanced(&cost, 1, round > 0, n, &job, || after += 1);
            // A commit phase in between follows the window's choice.
            team.run(4, &job, || {});
            assert!(hits[..4].iter().all(|h| h.load(Ordering::Relaxed) == 2));
            assert!(hits[4..].iter().all(|h| h.load(Ordering::Relaxed) == 1));
            assert_eq!(after, 1);
            assert_eq!(
                others.load(Ordering::Relaxed),
                0,
                "alone: the calling thread only"
            );
        }
        let r = team.report().expect("report");
        assert_eq!((r.windows_alone, r.windows_team, r.switches), (2, 0, 0));
        // Near again: the windows run on the team (which thread runs which job is the team's
        // business; every index still runs once).
        team.auto
            .as_mut()
            .unwrap()
            .judge
            .observe(Sample::OneWay(NEAR_NS - 40));
        assert!(!team.start_window(), "near: the team");
        let hits: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
        team.run_balanced(
            &cost,
            1,
            true,
            n,
            &|i| {
                hits[i].fetch_add(1, Ordering::Relaxed);
            },
            || {},
        );
        assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
        let r = team.report().unwrap();
        assert_eq!((r.windows_alone, r.windows_team, r.switches), (2, 1, 1));
        // Only phases whose worker's home range is expected to last `JUDGE_MIN_NS` count as
        // evidence of its presence; a check period ends after `PERIOD_WINDOWS` windows on the
        // team, with a verdict (no probe comes due meanwhile).
        assert_eq!(r.phases_judged, 0, "5 ns jobs are not judged");
        team.auto.as_mut().unwrap().last_probe =
            Some(std::time::Instant::now() + std::time::Duration::from_secs(3600));
        let long = vec![u32::try_from(JUDGE_MIN_NS).unwrap(); n];
        team.run_balanced(&long, 1, false, n, &|_| {}, || {});
        let r = team.report().unwrap();
        assert_eq!(r.phases_judged, 1);
        assert!(r.phases_absent <= 1);
        assert_eq!(r.periods_absent + r.periods_present, 0);
        for _ in 0..PERIOD_WINDOWS {
            assert!(
                !team.start_window(),
                "one period never sends the team alone"
            );
            team.run_balanced(&long, 1, true, n, &|_| {}, || {});
        }
        let r = team.report().unwrap();
        assert_eq!(r.periods_absent + r.periods_present, 1);
        assert_eq!(r.phases_judged, 1 + PERIOD_WINDOWS);
        // A probe on a live team is answered (or not), and leaves the line closed; the team
        // works on afterwards. Other team sizes are never adaptive.
        team.post(7);
        if team.first_answer(7, 1 << 30) {
            let _ = team.measure(7);
        }
        team.close(7);
        assert_eq!(team.shared.probe.0.load(Ordering::SeqCst) & PROBE_STATE, 0);
        team.run(3, &|_| {}, || {});
        for t in [1, 3] {
            let mut other = Team::new(t);
            other.set_adaptive(true);
            assert!(other.report().is_none(), "{t} threads");
        }
    }

    #[test]
    fn owner_claims_from_the_front_and_thieves_from_the_end() {
        let team = Team::new(1);
        let s = &team.shared;
        s.cursors[0].0.store(cursor(5, 12, 3), Ordering::SeqCst);
        let mut got = Vec::new();
        for k in 0..4 {
            got.push(s.run_claim(0).expect("owner"));
            got.push(s.steal_claim(0).expect("thief"));
            assert_eq!((got[2 * k], got[2 * k + 1]), (3 + k, 11 - k));
        }
        // One index left, then none for either.
        assert_eq!(s.steal_claim(0), Some(7));
        assert_eq!((s.run_claim(0), s.steal_claim(0)), (None, None));
    }

    #[test]
    fn a_participant_that_finishes_early_takes_the_others_last_jobs() {
        use std::sync::atomic::AtomicU8;
        let mut team = Team::new(2);
        let n = 20;
        // Who ran each job: 1 = the calling thread, 2 = the worker.
        let by: Vec<AtomicU8> = (0..n).map(|_| AtomicU8::new(0)).collect();
        let me = std::thread::current().id();
        team.run(
            n,
            &|i| {
                let main = std::thread::current().id() == me;
                assert_eq!(by[i].swap(if main { 1 } else { 2 }, Ordering::SeqCst), 0);
                // The worker's jobs are slow: the calling thread finishes its range first.
                if !main {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
            },
            || {},
        );
        let by: Vec<u8> = by.iter().map(|b| b.load(Ordering::SeqCst)).collect();
        assert!(by.iter().all(|&b| b != 0), "every job ran: {by:?}");
        // Home ranges 0..10 (calling thread) and 10..20 (worker): in each, the owner's jobs
        // are a prefix and the thief's a suffix.
        for (range, owner) in [(0..10, 1u8), (10..20, 2)] {
            let r = &by[range];
            let k = r.iter().take_while(|&&b| b == owner).count();
            assert!(r[k..].iter().all(|&b| b != owner), "{by:?}");
        }
        assert!(
            by[10..].contains(&1),
            "the calling thread took some of the slow jobs: {by:?}"
        );
    }

    #[test]
    fn home_ranges_partition_the_jobs_in_order() {
        for t in 1..=5 {
            for n in [0usize, 1, 3, 32, 120] {
                let mut next = 0;
                for p in 0..t {
                    let (a, b) = home(p, t, n);
                    assert_eq!(a, next, "{t} participants, {n} jobs: ranges are contiguous");
                    assert!(b >= a && b - a <= n.div_ceil(t));
                    next = b;
                }
                assert_eq!(next, n);
            }
        }
    }

    #[test]
    fn a_failed_prepare_steps_exactly_the_sms_before_it() {
        for threads in [1, 2, 3] {
            let mut team = Team::new(threads);
            let mut s = sms(6);
            let order = [0u32, 1, 2, 3, 4, 5];
            let mut k = 0;
            let mut after = false;
            let r = team.cycle(
                &mut s,
                &order,
                0,
                |_| {
                    k += 1;
                    if k == 4 {
                        Err("fault")
                    } else {
                        Ok(())
                    }
                },
                || after = true,
            );
            assert!(after, "`after` runs after a failed prepare too");
            assert_eq!(r, Err("fault"));
            assert_eq!(
                stepped(&s),
                vec![true, true, true, false, false, false],
                "{threads} threads"
            );
            // The team is usable afterwards.
            let r: Result<(), ()> = team.cycle(&mut s, &order, 1, |_| Ok(()), || {});
            assert!(r.is_ok());
            assert!(stepped(&s).iter().all(|&b| b));
        }
    }
}
