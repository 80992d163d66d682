//! `--threads auto` on a team of two: whether the window engine's phases run on the whole team
//! or on the calling thread alone, judged from where the host has put the two threads (issue 20
//! item 2: "never slower than one thread with `--threads auto`").
//!
//! Two threads gain only where they hand each other cache lines quickly. On the 2-vCPU
//! development VM (docs/PERFORMANCE.md, "Session 20: engine") the hypervisor places the two
//! vCPUs either near each other (a cache line crosses one way in 42-90 ns: `kmn` and `bfs` with
//! 120 SMs run 1.5-1.7x faster on two threads than on one) or far apart (180-266 ns: two threads
//! are no faster on `kmn` and up to 20% slower on `bfs`, at twice the CPU time), and moves them
//! from one placement to the other within seconds. Session 20's rules that judged from the
//! engine's own phase times picked "alone" in near stretches too; this one measures the
//! placement directly: a cache-line ping-pong between the calling thread and the worker
//! ([`crate::team`]'s probe) after the first [`CHECK_EVERY`] windows and then every
//! [`PROBE_EVERY_NS`] of wall time (while alone, after a short trial on the team);
//! a partner that does not answer in time (another program holds its core) counts as busy.
//! [`Placement::observe`] turns those samples into the choice, with hysteresis: alone above
//! [`FAR_NS`], back to the team only below [`NEAR_NS`] (and only after [`REJOIN_AFTER_BUSY`]
//! near samples in a row once the partner was found busy). Which thread runs a job never
//! changes its result, so the statistics do not depend on any of this.

/// One-way cache-line latency (ns) above which the two threads count as far apart: the team
/// runs alone. Session 20's `pp` measured 180-266 ns in far stretches, 42-90 ns in near ones
/// (its `summ.py` split rounds at 120 and 150 ns).
pub const FAR_NS: u32 = 150;
/// One-way latency (ns) below which an alone team rejoins (the gap to [`FAR_NS`] is the
/// hysteresis: a sample between the two keeps the current choice).
pub const NEAR_NS: u32 = 120;
/// After a busy partner ([`Sample::Busy`]), this many near samples in a row before the team
/// runs together again (a worker that has just been woken answers a probe promptly even when
/// it then has to share its core).
pub const REJOIN_AFTER_BUSY: u32 = 3;
/// Wall time between two probes, nanoseconds (the placement moves within seconds; a probe costs
/// some tens of microseconds, so this keeps it near 0.1% of a run). Doubled after each probe
/// the partner did not answer (up to 8 times; `team.rs`).
pub const PROBE_EVERY_NS: u64 = 100_000_000;
/// Windows between two reads of the clock (whether a probe is due), and the length of the
/// trial the team runs together before a probe taken while alone (`team.rs`: the parked worker
/// wakes and settles on a core first); a window is a few microseconds.
pub const CHECK_EVERY: u64 = 64;

/// One observation of the two threads' placement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sample {
    /// The probe's one-way cache-line latency, nanoseconds (median of its batches).
    OneWay(u32),
    /// The partner did not answer in time: its core is busy (or it was descheduled).
    Busy,
}

/// The team-or-alone choice with hysteresis (see the module documentation).
#[derive(Clone, Debug, Default)]
pub struct Placement {
    alone: bool,
    /// Near samples in a row while alone, and how many are needed to rejoin.
    good: u32,
    need: u32,
}

impl Placement {
    /// Folds in one sample; returns whether the team now runs alone.
    pub fn observe(&mut self, s: Sample) -> bool {
        match s {
            Sample::Busy => {
                self.alone = true;
                self.need = REJOIN_AFTER_BUSY;
                self.good = 0;
            }
            Sample::OneWay(ns) if ns > FAR_NS => {
                if !self.alone {
                    self.need = 1;
                }
                self.alone = true;
                self.good = 0;
            }
            Sample::OneWay(ns) if ns < NEAR_NS => {
                if self.alone {
                    self.good += 1;
                    if self.good >= self.need.max(1) {
                        self.alone = false;
                        self.good = 0;
                        self.need = 0;
                    }
                }
            }
            Sample::OneWay(_) => self.good = 0,
        }
        self.alone
    }

    /// Whether the team runs alone.
    pub fn alone(&self) -> bool {
        self.alone
    }
}

/// What an adaptive team did over a run (`--threads auto`; reported in `run --json`'s `team`).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct TeamReport {
    /// Window-engine SM phases (windows) run by the whole team.
    pub windows_team: u64,
    /// Windows run by the calling thread alone.
    pub windows_alone: u64,
    /// Changes between the two.
    pub switches: u64,
    /// Probes taken.
    pub probes: u64,
    /// Probes whose first ping the worker did not answer in time (its core busy, or its
    /// wake-up slow).
    pub probes_unanswered: u64,
    /// Probes in which the worker answered, then stopped answering for too long.
    pub probes_stalled: u64,
    /// One-way latency of the answered probes, nanoseconds: minimum, median, maximum (0 if
    /// none).
    pub one_way_ns_min: u32,
    /// Median over the answered probes.
    pub one_way_ns_median: u32,
    /// Maximum over the answered probes.
    pub one_way_ns_max: u32,
    /// Answered probes below the near threshold (`NEAR_NS`, 120 ns one-way).
    pub probes_near: u64,
    /// Answered probes above the far threshold (`FAR_NS`, 150 ns one-way).
    pub probes_far: u64,
    /// Wall time spent in probes, nanoseconds (the calling thread's cost).
    pub probe_ns: u64,
    /// Probes at which the worker found itself on the calling thread's CPU and moved off it.
    pub worker_moves: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(samples: &[Sample]) -> Vec<bool> {
        let mut p = Placement::default();
        samples.iter().map(|&s| p.observe(s)).collect()
    }

    #[test]
    fn far_goes_alone_near_rejoins_and_the_band_between_keeps_the_choice() {
        use Sample::OneWay as W;
        // Near: the team; far: alone at once; back on the first near sample.
        assert_eq!(
            run(&[W(60), W(230), W(200), W(70), W(65)]),
            [false, true, true, false, false]
        );
        // The band between NEAR_NS and FAR_NS keeps whatever was chosen: hysteresis.
        assert_eq!(
            run(&[W(135), W(140), W(210), W(135), W(149), W(110)]),
            [false, false, true, true, true, false]
        );
        // The thresholds themselves are in the band.
        assert_eq!(
            run(&[W(FAR_NS), W(FAR_NS + 1), W(NEAR_NS), W(NEAR_NS - 1)]),
            [false, true, true, false]
        );
    }

    #[test]
    fn a_busy_partner_needs_several_near_samples_in_a_row() {
        use Sample::{Busy, OneWay as W};
        let mut want = vec![true; 1 + REJOIN_AFTER_BUSY as usize];
        want[REJOIN_AFTER_BUSY as usize] = false;
        let mut s = vec![Busy];
        s.extend(std::iter::repeat_n(W(50), REJOIN_AFTER_BUSY as usize));
        assert_eq!(run(&s), want);
        // A sample in the band (or a far one) restarts the count.
        assert_eq!(
            run(&[Busy, W(50), W(130), W(50), W(50), W(50)]),
            [true, true, true, true, true, false]
        );
        assert_eq!(
            run(&[Busy, W(50), W(50), W(300), W(50)]),
            [true, true, true, true, true]
        );
        // Once back, a far sample needs only one near sample again.
        assert_eq!(
            run(&[Busy, W(50), W(50), W(50), W(200), W(50)]),
            [true, true, true, false, true, false]
        );
    }
}
