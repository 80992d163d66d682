//! The window engine's job costs, for the thread team's home ranges ([`Team::run_balanced`]).
//!
//! A window's team phase has one job per memory partition (`sim.window_partitions`) and one per
//! awake SM, and the calling thread first runs the request network's ticks (the phase's
//! `after`). Their costs differ by an order of magnitude and more (on `kmn` `tiny` with 120 SMs,
//! one window of an awake SM is about 8,800 instructions, a partition's span about 900, the
//! request network's ticks about 1,700): home ranges by index put the whole memory side and a
//! fair share of the SMs on the calling thread, and SMs migrate between threads whenever the
//! awake list changes. Here each job's wall time is measured (only with a team) and smoothed per
//! SM and per partition, so that the ranges follow the expected work and a job keeps its thread
//! while the costs stay put. The costs decide which thread runs a job, never what it does:
//! statistics do not depend on them. Times are read from the time-stamp counter on x86-64 (a
//! few nanoseconds; a virtual machine's `clock_gettime` may be a system call), elsewhere from
//! [`Instant`]; only ratios of costs matter, so the unit is the counter's.
//!
//! [`Team::run_balanced`]: crate::team::Team::run_balanced

use std::sync::atomic::{AtomicU32, Ordering};
#[cfg(not(target_arch = "x86_64"))]
use std::time::Instant;

/// A job's cost before it has been measured, in ticks of [`now`] (about a microsecond).
const UNKNOWN_NS: u32 = 2_000;
/// Smoothing: each measurement moves the estimate by `1 / 2^SHIFT` of the difference.
const SHIFT: u32 = 3;

/// Smoothed wall times (ticks of [`now`]) of the window engine's jobs.
#[derive(Default)]
pub(super) struct JobCosts {
    /// Per SM (by index).
    sm: Vec<u32>,
    /// Per partition, and the partitions' measurements of the current phase.
    part: Vec<u32>,
    part_ns: Vec<Line>,
    /// The calling thread's work before its jobs (the request network's ticks).
    lead: u32,
    /// The current phase's costs in job order (partitions, then the awake SMs).
    jobs: Vec<u32>,
    /// The current phase's jobs (the partitions' count and the awake SMs), and whether they
    /// are the last phase's.
    ids: (usize, Vec<u32>),
    same: bool,
}

/// A partition's measurement, alone on its cache line: partitions run on any thread, and
/// adjacent counters written by two threads would share a line.
#[repr(align(64))]
#[derive(Default)]
struct Line(AtomicU32);

/// One smoothing step of `est` towards `ns`.
fn smooth(est: &mut u32, ns: u32) {
    let e = i64::from(*est);
    *est = (e + ((i64::from(ns) - e) >> SHIFT)).clamp(1, i64::from(u32::MAX)) as u32;
}

/// A point in time for [`since`]: the time-stamp counter on x86-64.
#[cfg(target_arch = "x86_64")]
pub(super) type Stamp = u64;
/// A point in time for [`since`].
#[cfg(not(target_arch = "x86_64"))]
pub(super) type Stamp = Instant;

/// Now, for [`since`].
#[cfg(target_arch = "x86_64")]
pub(super) fn now() -> Stamp {
    // SAFETY: `rdtsc` has no preconditions (x86-64 always has it).
    #[allow(unused_unsafe)]
    unsafe {
        std::arch::x86_64::_rdtsc()
    }
}

/// Now, for [`since`].
#[cfg(not(target_arch = "x86_64"))]
pub(super) fn now() -> Stamp {
    Instant::now()
}

/// Ticks (time-stamp counter, or nanoseconds) since `t`, saturated.
#[cfg(target_arch = "x86_64")]
pub(super) fn since(t: Stamp) -> u32 {
    now().saturating_sub(t).min(u64::from(u32::MAX)) as u32
}

/// Ticks (time-stamp counter, or nanoseconds) since `t`, saturated.
#[cfg(not(target_arch = "x86_64"))]
pub(super) fn since(t: Stamp) -> u32 {
    t.elapsed().as_nanos().min(u128::from(u32::MAX)) as u32
}

impl JobCosts {
    /// Prepares a phase of `n_parts` partition jobs followed by one job per SM of `awake` (on
    /// a machine of `n_sm` SMs): their expected costs ([`JobCosts::jobs`]) and the calling
    /// thread's lead ([`JobCosts::lead`]).
    pub(super) fn phase(&mut self, n_sm: usize, n_parts: usize, awake: &[u32]) {
        if self.sm.len() < n_sm {
            self.sm.resize(n_sm, UNKNOWN_NS);
        }
        if self.part.len() < n_parts {
            self.part.resize(n_parts, UNKNOWN_NS);
            self.part_ns.resize_with(n_parts, Line::default);
        }
        if self.lead == 0 {
            self.lead = UNKNOWN_NS;
        }
        for p in &self.part_ns[..n_parts] {
            p.0.store(0, Ordering::Relaxed);
        }
        self.same = self.ids.0 == n_parts && self.ids.1 == awake;
        if !self.same {
            self.ids.0 = n_parts;
            self.ids.1.clear();
            self.ids.1.extend_from_slice(awake);
        }
        self.jobs.clear();
        self.jobs.extend_from_slice(&self.part[..n_parts]);
        self.jobs.extend(awake.iter().map(|&s| self.sm[s as usize]));
    }

    /// The prepared phase's expected job costs, in job order.
    pub(super) fn jobs(&self) -> &[u32] {
        &self.jobs
    }

    /// Whether the prepared phase's jobs are the last phase's, in the same order.
    pub(super) fn same(&self) -> bool {
        self.same
    }

    /// The expected cost of the calling thread's lead.
    pub(super) fn lead(&self) -> u64 {
        u64::from(self.lead)
    }

    /// Records partition `p`'s wall time in the current phase (from any thread).
    pub(super) fn part_done(&self, p: usize, ns: u32) {
        self.part_ns[p].0.store(ns.max(1), Ordering::Relaxed);
    }

    /// After the phase (its jobs' writes acquired by the team): folds the measurements in, the
    /// lead's `lead_ns` and the SMs' `sm_ns` (in the order of `awake`; 0 = not measured).
    pub(super) fn update(&mut self, awake: &[u32], sm_ns: impl Iterator<Item = u32>, lead_ns: u32) {
        for (&s, ns) in awake.iter().zip(sm_ns) {
            if ns > 0 {
                smooth(&mut self.sm[s as usize], ns);
            }
        }
        for (est, ns) in self.part.iter_mut().zip(&self.part_ns) {
            let ns = ns.0.load(Ordering::Relaxed);
            if ns > 0 {
                smooth(est, ns);
            }
        }
        if lead_ns > 0 {
            smooth(&mut self.lead, lead_ns);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn costs_follow_the_measurements_per_sm_and_partition() {
        let mut c = JobCosts::default();
        c.phase(8, 2, &[1, 5]);
        assert!(!c.same());
        assert_eq!(
            c.jobs(),
            [UNKNOWN_NS; 4],
            "unmeasured jobs cost the default"
        );
        assert_eq!(c.lead(), u64::from(UNKNOWN_NS));
        for _ in 0..64 {
            c.phase(8, 2, &[1, 5]);
            c.part_done(0, 200);
            c.part_done(1, 300);
            c.update(&[1, 5], [9_000, 0].into_iter(), 2_000);
        }
        assert!(c.same(), "the same jobs as the last phase");
        c.phase(8, 2, &[1, 5, 6]);
        assert!(!c.same(), "an SM woke");
        let (jobs, lead) = (c.jobs(), c.lead());
        assert!((195..=205).contains(&jobs[0]) && (295..=305).contains(&jobs[1]));
        assert!(
            (8_900..=9_000).contains(&jobs[2]),
            "SM 1 measured: {}",
            jobs[2]
        );
        assert_eq!(jobs[3], UNKNOWN_NS, "SM 5 was never measured");
        assert_eq!(jobs[4], UNKNOWN_NS, "SM 6 is new");
        assert!((1_950..=2_000).contains(&lead));
        // Without partitions only the SMs remain.
        c.phase(8, 0, &[1]);
        assert_eq!(c.jobs().len(), 1);
    }
}
