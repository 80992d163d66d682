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
//! a partner that does not answer two probes in a row (another program holds its core) counts
//! as busy. A probe lasts tens of microseconds and a time slice milliseconds, so a worker that
//! shares its core with a busy program still answers most probes (docs/PERFORMANCE.md,
//! "Session 21: auto"): a team at work therefore also checks its own evidence every
//! [`PERIOD_WINDOWS`] windows ([`Period`]: the share of two CPUs its threads had, by their CPU
//! clocks, and the phases its worker missed), and two absent periods in a row count as a busy
//! partner too ("Session 22: auto"). [`Placement::observe`] turns those samples into the
//! choice, with hysteresis: alone above [`FAR_NS`], back to the team only below [`NEAR_NS`]
//! (and only after [`REJOIN_AFTER_BUSY`] near samples in a row once the partner was found busy,
//! twice as many each time it is found busy again before a present period). Which thread runs
//! a job never changes its result, so the statistics do not depend on any of this.

/// One-way cache-line latency (ns) above which the two threads count as far apart: the team
/// runs alone. Session 20's `pp` measured 180-266 ns in far stretches, 42-90 ns in near ones
/// (its `summ.py` split rounds at 120 and 150 ns).
pub const FAR_NS: u32 = 150;
/// One-way latency (ns) below which an alone team rejoins (the gap to [`FAR_NS`] is the
/// hysteresis: a sample between the two keeps the current choice).
pub const NEAR_NS: u32 = 120;
/// After a busy partner ([`Sample::Absent`], or a confirmed [`Sample::Unanswered`]), this many
/// near samples in a row before the team runs together again (a worker that has just been woken
/// answers a probe promptly even when it then has to share its core); doubled for each time the
/// team was found busy again before a check period proved the partner present
/// ([`MAX_RELAPSES`] times at most).
pub const REJOIN_AFTER_BUSY: u32 = 3;
/// How often [`REJOIN_AFTER_BUSY`] doubles at most (24 near samples, about 2.4 s of probes).
pub const MAX_RELAPSES: u32 = 3;
/// Wall time between two probes, nanoseconds (the placement moves within seconds; a probe costs
/// some tens of microseconds, so this keeps it near 0.1% of a run). Doubled after each probe
/// the partner did not answer (up to 8 times; `team.rs`).
pub const PROBE_EVERY_NS: u64 = 100_000_000;
/// Windows between two reads of the clock (whether a probe is due), and the length of the
/// trial the team runs together before a probe taken while alone (`team.rs`: the parked worker
/// wakes and settles on a core first); a window is a few microseconds.
pub const CHECK_EVERY: u64 = 64;
/// A team phase counts towards a check period's [`Period::judged`] only if the worker's home
/// range is expected to take at least this long, nanoseconds (by the jobs' measured costs): a
/// shorter range may be taken over by the calling thread before a worker that is there has
/// seen the phase.
pub const JUDGE_MIN_NS: u64 = 2_000;
/// Windows on the team per check period ([`Period`]): with windows of 5-15 us a period lasts
/// 5-15 ms, a few of the time slices for which another program may hold a core.
pub const PERIOD_WINDOWS: u64 = 1024;
/// A period in which the team's two threads ran less than this share of two CPUs (percent of
/// twice its wall time) is [`Sample::Absent`]: another program took turns with them. (On the
/// development VM: 99.7-100% on `kmn` and 90-100% on `bfs` with the other core idle, 67-80%
/// with a busy loop beside them; docs/PERFORMANCE.md, "Session 22: auto".)
pub const MIN_CPU_PCT: u64 = 85;
/// A period in which the worker ran none of the jobs of at least one judged phase in
/// `ABSENT_DIV` (of at least [`MIN_JUDGED`]) is [`Sample::Absent`] too.
pub const ABSENT_DIV: u64 = 8;
/// Judged phases a period needs before its absent phases count.
pub const MIN_JUDGED: u64 = 256;

/// One observation of the two threads' placement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sample {
    /// A probe's one-way cache-line latency, nanoseconds (median of its batches).
    OneWay(u32),
    /// The partner did not answer a probe in time: its core may be busy, or it was descheduled
    /// for a moment. On the team one such probe only raises a suspicion ([`Placement::suspect`]:
    /// the next probe comes at once); a second in a row counts as a busy partner.
    Unanswered,
    /// A check period ([`Period`]) in which the team's threads did not have their two CPUs, or
    /// the worker missed too many phases: another program takes turns with them for whole time
    /// slices (even if the worker answers some probes). On the team one such period only raises
    /// a doubt (a launch's start, or another program's moment); a second in a row counts as a
    /// busy partner.
    Absent,
    /// A check period in which the worker took part in the phases.
    Present,
}

/// The team-or-alone choice with hysteresis (see the module documentation).
#[derive(Clone, Debug, Default)]
pub struct Placement {
    alone: bool,
    /// Near samples in a row while alone, and how many are needed to rejoin.
    good: u32,
    need: u32,
    /// On the team: the last probe went unanswered (one more and the partner counts as busy).
    suspect: bool,
    /// On the team: the last check period was absent (one more and the partner counts as busy).
    doubt: bool,
    /// Rejoined after a busy partner, and no [`Sample::Present`] period since.
    unproven: bool,
    /// Times the team was found busy again while unproven (each doubles the rejoin count).
    relapses: u32,
}

impl Placement {
    /// Folds in one sample; returns whether the team now runs alone.
    pub fn observe(&mut self, s: Sample) -> bool {
        match s {
            Sample::Absent if self.alone || self.doubt => self.busy(),
            Sample::Absent => self.doubt = true,
            Sample::Unanswered if self.alone => {
                self.need = self.need.max(REJOIN_AFTER_BUSY);
                self.good = 0;
            }
            Sample::Unanswered if self.suspect => self.busy(),
            Sample::Unanswered => self.suspect = true,
            Sample::Present => {
                self.doubt = false;
                self.unproven = false;
                self.relapses = 0;
            }
            Sample::OneWay(ns) if ns > FAR_NS => {
                if !self.alone {
                    self.need = 1;
                }
                self.alone = true;
                self.good = 0;
                self.suspect = false;
            }
            Sample::OneWay(ns) if ns < NEAR_NS => {
                self.suspect = false;
                if self.alone {
                    self.good += 1;
                    if self.good >= self.need.max(1) {
                        self.unproven = self.need > 1;
                        self.alone = false;
                        self.good = 0;
                        self.need = 0;
                    }
                }
            }
            Sample::OneWay(_) => {
                self.good = 0;
                self.suspect = false;
            }
        }
        self.alone
    }

    /// The partner is busy: alone, and [`REJOIN_AFTER_BUSY`] near samples (doubled per relapse)
    /// to rejoin.
    fn busy(&mut self) {
        if self.unproven && !self.alone {
            self.relapses = (self.relapses + 1).min(MAX_RELAPSES);
        }
        self.alone = true;
        self.good = 0;
        self.suspect = false;
        self.doubt = false;
        self.need = self.need.max(REJOIN_AFTER_BUSY << self.relapses);
    }

    /// Whether the team runs alone.
    pub fn alone(&self) -> bool {
        self.alone
    }

    /// Whether the last probe went unanswered on the team (the next one is due at once).
    pub fn suspect(&self) -> bool {
        self.suspect
    }
}

/// A check period of a team at work ([`PERIOD_WINDOWS`] windows): the team's own evidence of
/// whether its threads had their cores.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Period {
    /// Wall time of the period, nanoseconds.
    pub wall_ns: u64,
    /// CPU time both threads of the team ran in it, nanoseconds (`None` where the host cannot
    /// tell a thread's CPU time).
    pub cpu_ns: Option<u64>,
    /// Phases judged (the worker's home range expected to last [`JUDGE_MIN_NS`] or more), and
    /// those whose jobs all ran on the calling thread (the worker did not show up).
    pub judged: u64,
    /// Judged phases without the worker.
    pub absent: u64,
}

impl Period {
    /// The share of two CPUs the team's threads had, per mille (`None` where the host cannot
    /// tell a thread's CPU time).
    pub fn cpu_share_permille(&self) -> Option<u32> {
        let c = self.cpu_ns?;
        Some(
            u32::try_from(u128::from(c) * 500 / u128::from(self.wall_ns.max(1)))
                .unwrap_or(u32::MAX),
        )
    }

    /// Whether the threads were starved of CPU ([`MIN_CPU_PCT`]).
    pub fn starved(&self) -> bool {
        self.cpu_ns.is_some_and(|c| {
            u128::from(c) * 100 < 2 * u128::from(self.wall_ns) * u128::from(MIN_CPU_PCT)
        })
    }

    /// Whether the worker missed too many judged phases ([`ABSENT_DIV`], [`MIN_JUDGED`]).
    pub fn missing(&self) -> bool {
        self.judged >= MIN_JUDGED && self.absent * ABSENT_DIV >= self.judged
    }

    /// The period's sample: [`Sample::Absent`] if starved or missing, else [`Sample::Present`].
    pub fn verdict(&self) -> Sample {
        if self.starved() || self.missing() {
            Sample::Absent
        } else {
            Sample::Present
        }
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
    /// wake-up slow), suspects included.
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
    /// Unanswered (or stalled) probes on the team that only raised a suspicion: the next
    /// probe, at once, decides (two in a row: a busy partner).
    pub probes_suspect: u64,
    /// Team phases judged (the worker's home range expected to last at least `JUDGE_MIN_NS`,
    /// 2 us, by the jobs' measured costs).
    pub phases_judged: u64,
    /// Judged phases whose jobs all ran on the calling thread (the worker ran none).
    pub phases_absent: u64,
    /// Check periods (`PERIOD_WINDOWS`, 1024 windows on the team) found absent (starved of CPU
    /// or missing the worker; two in a row send the team alone).
    pub periods_absent: u64,
    /// Absent periods in which the team's threads had less than `MIN_CPU_PCT` (85%) of two CPUs.
    pub periods_starved: u64,
    /// Median share of two CPUs the team's threads had over its periods, per mille (0 if none).
    pub cpu_share_median_permille: u32,
    /// Check periods found present.
    pub periods_present: u64,
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
        use Sample::{Absent, OneWay as W};
        // (Two absent periods in a row: a busy partner.)
        let mut want = vec![true; 2 + REJOIN_AFTER_BUSY as usize];
        want[0] = false;
        want[1 + REJOIN_AFTER_BUSY as usize] = false;
        let mut s = vec![Absent, Absent];
        s.extend(std::iter::repeat_n(W(50), REJOIN_AFTER_BUSY as usize));
        assert_eq!(run(&s), want);
        // A sample in the band (or a far one) restarts the count.
        assert_eq!(
            run(&[Absent, Absent, W(50), W(130), W(50), W(50), W(50)]),
            [false, true, true, true, true, true, false]
        );
        assert_eq!(
            run(&[Absent, Absent, W(50), W(50), W(300), W(50)]),
            [false, true, true, true, true, true]
        );
        // Once back, a far sample needs only one near sample again.
        assert_eq!(
            run(&[Absent, Absent, W(50), W(50), W(50), W(200), W(50)]),
            [false, true, true, true, false, true, false]
        );
    }

    #[test]
    fn one_unanswered_probe_on_the_team_is_only_a_suspicion() {
        use Sample::{OneWay as W, Unanswered as U};
        // One unanswered probe keeps the team; the next one decides.
        assert_eq!(run(&[W(50), U, W(60)]), [false, false, false]);
        let mut p = Placement::default();
        p.observe(U);
        assert!(p.suspect() && !p.alone());
        p.observe(W(60));
        assert!(!p.suspect());
        // Two in a row: busy, and the rejoin needs REJOIN_AFTER_BUSY near samples.
        let mut s = vec![U, U];
        s.extend(std::iter::repeat_n(W(50), REJOIN_AFTER_BUSY as usize));
        let mut want = vec![false, true];
        want.extend(std::iter::repeat_n(true, REJOIN_AFTER_BUSY as usize - 1));
        want.push(false);
        assert_eq!(run(&s), want);
        // Answered probes in between (even far ones) clear the suspicion.
        assert_eq!(run(&[U, W(130), U, W(200)]), [false, false, false, true]);
        // Alone, an unanswered probe restarts the count towards rejoining.
        assert_eq!(
            run(&[W(200), W(50), U, W(50), W(50), W(50)]),
            [true, false, false, false, false, false]
        );
        assert_eq!(
            run(&[W(200), U, W(50), W(50), W(50)]),
            [true, true, true, true, false]
        );
    }

    #[test]
    fn one_absent_period_on_the_team_is_only_a_doubt() {
        use Sample::{Absent, OneWay as W, Present};
        // A present period between two absent ones clears the doubt; answered probes do not.
        assert_eq!(
            run(&[Absent, Present, Absent, Present]),
            [false, false, false, false]
        );
        assert_eq!(run(&[Absent, W(50), Absent]), [false, false, true]);
        // Alone (after a far probe), one absent period is enough to need the busy count.
        assert_eq!(
            run(&[W(200), Absent, W(50), W(50), W(50)]),
            [true, true, true, true, false]
        );
    }

    #[test]
    fn a_team_found_absent_again_before_a_present_period_waits_longer() {
        use Sample::{Absent, OneWay as W, Present};
        let near = |k: u32| std::iter::repeat_n(W(50), k as usize);
        let mut p = Placement::default();
        let absent = |p: &mut Placement| {
            p.observe(Absent);
            p.observe(Absent)
        };
        // Found busy: rejoin after REJOIN_AFTER_BUSY near samples.
        assert!(absent(&mut p));
        let back = |p: &mut Placement, k: u32| {
            let v: Vec<bool> = near(k).map(|s| p.observe(s)).collect();
            v.iter().position(|&a| !a).map(|i| i as u32 + 1)
        };
        assert_eq!(
            back(&mut p, 10 * REJOIN_AFTER_BUSY),
            Some(REJOIN_AFTER_BUSY)
        );
        // Busy again before a present period: twice as many, then four times.
        absent(&mut p);
        assert_eq!(
            back(&mut p, 10 * REJOIN_AFTER_BUSY),
            Some(2 * REJOIN_AFTER_BUSY)
        );
        absent(&mut p);
        assert_eq!(
            back(&mut p, 10 * REJOIN_AFTER_BUSY),
            Some(4 * REJOIN_AFTER_BUSY)
        );
        for _ in 0..MAX_RELAPSES {
            absent(&mut p);
            back(&mut p, 100 * REJOIN_AFTER_BUSY);
        }
        absent(&mut p);
        assert_eq!(
            back(&mut p, 100 * REJOIN_AFTER_BUSY),
            Some(REJOIN_AFTER_BUSY << MAX_RELAPSES),
            "capped"
        );
        // A present period forgives: the next busy spell needs the base count again.
        assert!(!p.observe(Present));
        absent(&mut p);
        assert_eq!(
            back(&mut p, 10 * REJOIN_AFTER_BUSY),
            Some(REJOIN_AFTER_BUSY)
        );
        // More absent periods while alone do not count as relapses.
        let mut q = Placement::default();
        absent(&mut q);
        q.observe(Absent);
        assert_eq!(
            back(&mut q, 10 * REJOIN_AFTER_BUSY),
            Some(REJOIN_AFTER_BUSY)
        );
    }

    #[test]
    fn a_period_is_absent_when_starved_of_cpu_or_missing_its_worker() {
        let p = |wall_ns: u64, cpu_ns: Option<u64>, judged: u64, absent: u64| {
            Period {
                wall_ns,
                cpu_ns,
                judged,
                absent,
            }
            .verdict()
        };
        let ms = 1_000_000;
        // Two threads that ran all along: present; no CPU time known: present.
        assert_eq!(p(10 * ms, Some(20 * ms), 1000, 0), Sample::Present);
        assert_eq!(p(10 * ms, None, 1000, 0), Sample::Present);
        // Just at MIN_CPU_PCT of two CPUs: present; below: absent (another program).
        let at = 2 * 10 * ms * MIN_CPU_PCT / 100;
        assert_eq!(p(10 * ms, Some(at), 1000, 0), Sample::Present);
        assert_eq!(p(10 * ms, Some(at - 1), 1000, 0), Sample::Absent);
        // One judged phase in ABSENT_DIV without the worker: absent; fewer: present.
        assert_eq!(
            p(10 * ms, None, 1000, 1000 / ABSENT_DIV + 1),
            Sample::Absent
        );
        assert_eq!(
            p(10 * ms, None, 1000, 1000 / ABSENT_DIV - 1),
            Sample::Present
        );
        // ... but only with MIN_JUDGED phases judged.
        assert_eq!(
            p(10 * ms, None, MIN_JUDGED - 1, MIN_JUDGED - 1),
            Sample::Present
        );
        assert_eq!(p(10 * ms, None, MIN_JUDGED, MIN_JUDGED), Sample::Absent);
    }
}
