//! Diagnostics of claims 3-4 (issue 16; no mechanism reads them): what Algorithm 1 saw and did
//! at each run ([`WalkStats`]), and what each unit instance was doing, sampled every
//! [`PROBE_EVERY`] GPU cycles ([`Waits`]): idle, working, waiting for a read of a *critical* or
//! a *non-critical* access (its critical bit as issued, section 2.6), waiting for a block not yet
//! requested (the outgoing queue or the cache set was full), or blocked by a full downstream
//! queue. A unit that waits for a non-critical read in a frame-time-bound phase is where the
//! non-critical reads lie on the frame's critical path.

use serde::Serialize;

use super::Gpu;
use crate::bottleneck::Walk;
use crate::counters::Bits;
use crate::stream::Unit;

/// GPU cycles between two samples of the wait probe.
pub const PROBE_EVERY: u64 = 64;

/// Algorithm 1's runs: how often each unit's classification bit was set, how often the walk
/// reached each unit's bottleneck test, how often it flagged it, and how often Algorithm 2 fired
/// (index = `Unit as usize`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct WalkStats {
    /// Runs of Algorithm 1.
    pub runs: u64,
    /// Runs with IOccupancy = 1.
    pub io: [u64; 5],
    /// Runs with AOccupancy = 1.
    pub ao: [u64; 5],
    /// Runs with Throughput = 1.
    pub th: [u64; 5],
    /// Runs whose walk evaluated the unit's bottleneck test.
    pub examined: [u64; 5],
    /// Runs that flagged the unit (Algorithm 2's SH and ZS marks included).
    pub flagged: [u64; 5],
    /// Runs in which Algorithm 2 found FE bottlenecked.
    pub fe_rule: u64,
    /// Runs whose walk stopped at the unit because it was not underloaded
    /// ([`Walk::stopped`]); the runs that reached FE stopped nowhere (session 25).
    pub stopped: [u64; 5],
}

impl WalkStats {
    /// Records one run: the bits it read and its trace.
    pub fn record(&mut self, bits: &[Bits; 5], w: &Walk) {
        self.runs += 1;
        for (u, b) in bits.iter().enumerate() {
            self.io[u] += b.io as u64;
            self.ao[u] += b.ao as u64;
            self.th[u] += b.th as u64;
            self.examined[u] += w.examined[u] as u64;
            self.flagged[u] += w.bottleneck[u] as u64;
            self.stopped[u] += w.stopped[u] as u64;
        }
        self.fe_rule += w.fe_rule as u64;
    }

    /// Adds `o`.
    pub fn add(&mut self, o: &WalkStats) {
        self.runs += o.runs;
        for u in 0..5 {
            self.io[u] += o.io[u];
            self.ao[u] += o.ao[u];
            self.th[u] += o.th[u];
            self.examined[u] += o.examined[u];
            self.flagged[u] += o.flagged[u];
            self.stopped[u] += o.stopped[u];
        }
        self.fe_rule += o.fe_rule;
    }
}

/// What one unit instance was doing at a sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activity {
    /// No work.
    Idle,
    /// Working (or able to work this cycle).
    Busy,
    /// Waiting for data whose reads are in flight, all issued critical (`true`) or all
    /// non-critical (`false`).
    Wait(bool),
    /// Waiting for reads in flight of both kinds.
    WaitBoth,
    /// Waiting for data not requested yet (no room to send the read).
    Unsent,
    /// Done with its head, the downstream queue full.
    Blocked,
}

/// Sampled activity of one unit, in instance-samples (ZS, CW: per ROP; SH: per core).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Waits {
    /// Instance-samples.
    pub samples: u64,
    /// Working.
    pub busy: u64,
    /// Waiting for critical reads only.
    pub wait_critical: u64,
    /// Waiting for non-critical reads only.
    pub wait_noncritical: u64,
    /// Waiting for critical and non-critical reads.
    pub wait_both: u64,
    /// Waiting for a block not yet requested.
    pub wait_unsent: u64,
    /// Blocked by a full downstream queue.
    pub blocked: u64,
}

impl Waits {
    /// Counts one instance-sample.
    pub fn count(&mut self, a: Activity) {
        self.samples += 1;
        match a {
            Activity::Idle => {}
            Activity::Busy => self.busy += 1,
            Activity::Wait(true) => self.wait_critical += 1,
            Activity::Wait(false) => self.wait_noncritical += 1,
            Activity::WaitBoth => self.wait_both += 1,
            Activity::Unsent => self.wait_unsent += 1,
            Activity::Blocked => self.blocked += 1,
        }
    }

    /// Adds `o`.
    pub fn add(&mut self, o: &Waits) {
        self.samples += o.samples;
        self.busy += o.busy;
        self.wait_critical += o.wait_critical;
        self.wait_noncritical += o.wait_noncritical;
        self.wait_both += o.wait_both;
        self.wait_unsent += o.wait_unsent;
        self.blocked += o.blocked;
    }
}

/// In the samples where no instance of any unit works ([`gpu_activity`] not `Busy`): per unit
/// (index = `Unit as usize`), the samples in which one of its instances waits for a
/// non-critical read, and those in which one waits for a critical read. Where the frame stands
/// still, these are the units whose reads it waits for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Stalls {
    /// Samples with the GPU stalled and the unit waiting for a non-critical read.
    pub noncritical: [u64; 5],
    /// Samples with the GPU stalled and the unit waiting for a critical read.
    pub critical: [u64; 5],
}

/// The shader cores' context slots, sampled with the wait probe (diagnostic of the session-25
/// study of `Config::contexts`): how many quads the cores hold, how often a core holds as
/// many as it has contexts (only then can more contexts let it hide more latency), and how
/// often quads wait in the SH queue for a core.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ShContexts {
    /// Core-samples.
    pub samples: u64,
    /// Resident quads summed over the core-samples.
    pub resident: u64,
    /// Core-samples with every context of the core occupied.
    pub full: u64,
    /// Samples (one per probe, not per core) with quads waiting in the SH queue.
    pub queued: u64,
    /// Probes.
    pub probes: u64,
}

impl ShContexts {
    /// Adds `o`.
    pub fn add(&mut self, o: &ShContexts) {
        self.samples += o.samples;
        self.resident += o.resident;
        self.full += o.full;
        self.queued += o.queued;
        self.probes += o.probes;
    }
}

/// The state of one unit instance at a sample, as a partition (session 25, shfeed):
/// `Busy`, `Starved` (its input is empty: [`Activity::Idle`]), `Blocked` (done with its head,
/// the output queue full) or `WaitRead` (waiting for its own reads, in flight or not yet sent).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Working.
    Busy,
    /// Input empty.
    Starved,
    /// Output queue full.
    Blocked,
    /// Waiting for its own memory reads.
    WaitRead,
}

impl State {
    /// The state of an instance doing `a`.
    pub fn of(a: Activity) -> State {
        match a {
            Activity::Idle => State::Starved,
            Activity::Busy => State::Busy,
            Activity::Blocked => State::Blocked,
            Activity::Wait(_) | Activity::WaitBoth | Activity::Unsent => State::WaitRead,
        }
    }
}

/// Why the SH queue was empty at a sample (session 25, shfeed): the first of these, walking
/// upstream from SH. The ZS causes come first because on the early-Z path every quad reaches SH
/// through a ZS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    /// A ZS instance holds quads and waits for its HiZ/depth reads.
    ZsReads,
    /// A ZS instance is done with its head and its output queue (CW, late-Z) is full.
    ZsBlocked,
    /// Every ZS instance that holds quads works (at most one quad per cycle each, rejected
    /// quads included): upstream delivers at ZS's rate.
    ZsBusy,
    /// ZS holds nothing; FE waits for its vertex/index reads.
    FeReads,
    /// ZS holds nothing; FE's destination queue is full.
    FeBlocked,
    /// ZS holds nothing; FE works (emits quads at up to `fe_rate` a cycle).
    FeBusy,
    /// ZS and FE hold nothing and a blit is queued or running: the draws wait behind it.
    Blit,
    /// ZS, FE and BT hold nothing: the command stream gives no work (drain before a blit,
    /// draws waiting for a blit, the end of the frame).
    NoWork,
}

impl Cause {
    /// Every cause, in `Cause as usize` order.
    pub const ALL: [Cause; 8] = [
        Cause::ZsReads,
        Cause::ZsBlocked,
        Cause::ZsBusy,
        Cause::FeReads,
        Cause::FeBlocked,
        Cause::FeBusy,
        Cause::Blit,
        Cause::NoWork,
    ];

    /// JSON key.
    pub fn name(self) -> &'static str {
        match self {
            Cause::ZsReads => "zs_reads",
            Cause::ZsBlocked => "zs_blocked",
            Cause::ZsBusy => "zs_busy",
            Cause::FeReads => "fe_reads",
            Cause::FeBlocked => "fe_blocked",
            Cause::FeBusy => "fe_busy",
            Cause::Blit => "blit",
            Cause::NoWork => "no_work",
        }
    }

    /// The unit the cause lies in (`NoWork`: none).
    pub fn unit(self) -> Option<Unit> {
        match self {
            Cause::ZsReads | Cause::ZsBlocked | Cause::ZsBusy => Some(Unit::Zs),
            Cause::FeReads | Cause::FeBlocked | Cause::FeBusy => Some(Unit::Fe),
            Cause::Blit => Some(Unit::Bt),
            Cause::NoWork => None,
        }
    }

    /// The cause of an empty SH queue, from the states of the ZS instances, FE's and BT's.
    pub fn of(zs: &[State], fe: State, bt: State) -> Cause {
        let any = |s: State| zs.contains(&s);
        if any(State::WaitRead) {
            Cause::ZsReads
        } else if any(State::Blocked) {
            Cause::ZsBlocked
        } else if any(State::Busy) {
            Cause::ZsBusy
        } else {
            match fe {
                State::WaitRead => Cause::FeReads,
                State::Blocked => Cause::FeBlocked,
                State::Busy => Cause::FeBusy,
                State::Starved if bt != State::Starved => Cause::Blit,
                State::Starved => Cause::NoWork,
            }
        }
    }
}

/// Per-unit states and throughput, and what keeps SH's queue empty (session 25, shfeed; a
/// diagnostic of claims 4, 7 and 8: no mechanism reads it). States are sampled every
/// [`PROBE_EVERY`] GPU cycles per instance (ZS, CW: per ROP; SH: per core) and partition the
/// instance-samples; completions and the unit's peak completions are summed every cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct UnitStates {
    /// Instance-samples per unit (index = `Unit as usize`).
    pub samples: [u64; 5],
    /// Instance-samples working.
    pub busy: [u64; 5],
    /// Instance-samples with the input empty.
    pub starved: [u64; 5],
    /// Instance-samples with the output queue full.
    pub blocked: [u64; 5],
    /// Instance-samples waiting for the unit's own reads.
    pub wait_read: [u64; 5],
    /// GPU cycles summed.
    pub cycles: u64,
    /// Completions per unit summed over the cycles (quads; BT: blocks; ZS: rejected quads
    /// included).
    pub done: [f64; 5],
    /// The unit's peak completions per cycle summed over the cycles (`th_out` of section 2.3
    /// times the instances: FE `fe_rate`, ZS and CW one quad per ROP, SH `cores × simd /
    /// shader cycles` of the current draw, BT one block).
    pub peak: [f64; 5],
    /// Probes.
    pub probes: u64,
    /// Probes with the SH queue empty (quads reach SH no faster than the cores take them).
    pub sh_starved: u64,
    /// Of those, the probes attributed to each cause (index = `Cause as usize`).
    pub cause: [u64; 8],
    /// Of those, the probes in which Algorithm 1's current bottleneck vector flags the cause's
    /// unit (`NoWork`: never).
    pub cause_flagged: [u64; 8],
    /// Probes with the SH queue empty and SH flagged.
    pub sh_flagged: u64,
    /// Of those, the probes by FE's state (row, `State as usize`: busy, starved, blocked,
    /// waiting for reads) and the ZS instances' (column: some waits for its reads, else some
    /// is blocked, else some works, else all are starved), so that the causes' overlaps show.
    pub joint: [[u64; 4]; 4],
    /// FE's activity in the probes with the SH queue empty.
    pub fe_when_starved: Waits,
    /// The ZS instances' activity in the probes with the SH queue empty (instance-samples).
    pub zs_when_starved: Waits,
    /// FE's vertex look-ahead at each probe (session 25, fefeed).
    pub fe_ahead: FeAhead,
}

/// FE's vertex look-ahead, sampled at each probe in which FE holds a draw with vertex data
/// (session 25, fefeed; a diagnostic of claims 7-8: no mechanism reads it). FE prefetches the
/// vertex and index blocks of the `4 × lookahead` vertex blocks from its head quad's, within the
/// current draw only. Sums over the samples; block counts are vertex blocks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FeAhead {
    /// Probes with FE holding a draw with vertex data.
    pub samples: u64,
    /// Of those, the probes with the head quad's vertex or index block not present (FE waits).
    pub head_missing: u64,
    /// Of those, the ones with the head's vertex block in the draw's first look-ahead window
    /// (the draw's start: nothing was prefetched for it while FE worked on the previous draw).
    pub head_missing_draw_start: u64,
    /// Of the probes with the head missing, the ones with the next draw already queued at FE.
    pub head_missing_next_queued: u64,
    /// Vertex blocks in the look-ahead window, summed (short of `4 × lookahead` near the end of
    /// a draw).
    pub window: u64,
    /// Of those, the blocks present, pending (requested, in flight) and missing (not requested:
    /// the GPU's request queue full, or evicted), summed (vertex blocks only).
    pub present: u64,
    /// See [`FeAhead::present`].
    pub pending: u64,
    /// See [`FeAhead::present`].
    pub missing: u64,
    /// Consecutive vertex blocks present from the head's, summed: how far FE can run before it
    /// waits again.
    pub lead: u64,
    /// Probes with the window cut short by the end of the draw.
    pub window_cut: u64,
    /// The current draw's vertex blocks, summed.
    pub draw_blocks: u64,
    /// FE's vertex/index reads in flight (the vertex cache's pending requests), summed.
    pub in_flight: u64,
}

impl FeAhead {
    /// Adds `o`.
    pub fn add(&mut self, o: &FeAhead) {
        self.samples += o.samples;
        self.head_missing += o.head_missing;
        self.head_missing_draw_start += o.head_missing_draw_start;
        self.head_missing_next_queued += o.head_missing_next_queued;
        self.window += o.window;
        self.present += o.present;
        self.pending += o.pending;
        self.missing += o.missing;
        self.lead += o.lead;
        self.window_cut += o.window_cut;
        self.draw_blocks += o.draw_blocks;
        self.in_flight += o.in_flight;
    }
}

impl UnitStates {
    /// Counts one instance-sample of unit `u` doing `a`.
    pub fn count(&mut self, u: Unit, a: Activity) {
        let u = u as usize;
        self.samples[u] += 1;
        match State::of(a) {
            State::Busy => self.busy[u] += 1,
            State::Starved => self.starved[u] += 1,
            State::Blocked => self.blocked[u] += 1,
            State::WaitRead => self.wait_read[u] += 1,
        }
    }

    /// Adds one cycle's completions and peak completions per unit.
    pub fn cycle(&mut self, done: [f64; 5], peak: [f64; 5]) {
        self.cycles += 1;
        for u in 0..5 {
            self.done[u] += done[u];
            self.peak[u] += peak[u];
        }
    }

    /// Records one probe: whether the SH queue is empty and, if so, the activity of FE, the
    /// ZS instances and BT, and the bottleneck vector in force.
    pub fn probe(
        &mut self,
        sh_empty: bool,
        fe: Activity,
        zs: &[Activity],
        bt: Activity,
        flagged: &[bool; 5],
    ) {
        self.probes += 1;
        if !sh_empty {
            return;
        }
        self.sh_starved += 1;
        let states: Vec<State> = zs.iter().map(|&a| State::of(a)).collect();
        let c = Cause::of(&states, State::of(fe), State::of(bt));
        self.cause[c as usize] += 1;
        let any = |x: State| states.contains(&x);
        let col = if any(State::WaitRead) {
            0
        } else if any(State::Blocked) {
            1
        } else if any(State::Busy) {
            2
        } else {
            3
        };
        self.joint[State::of(fe) as usize][col] += 1;
        self.cause_flagged[c as usize] += c.unit().is_some_and(|u| flagged[u as usize]) as u64;
        self.sh_flagged += flagged[Unit::Sh as usize] as u64;
        self.fe_when_starved.count(fe);
        for &a in zs {
            self.zs_when_starved.count(a);
        }
    }

    /// Adds `o`.
    pub fn add(&mut self, o: &UnitStates) {
        for u in 0..5 {
            self.samples[u] += o.samples[u];
            self.busy[u] += o.busy[u];
            self.starved[u] += o.starved[u];
            self.blocked[u] += o.blocked[u];
            self.wait_read[u] += o.wait_read[u];
            self.done[u] += o.done[u];
            self.peak[u] += o.peak[u];
        }
        self.cycles += o.cycles;
        self.probes += o.probes;
        self.sh_starved += o.sh_starved;
        for c in 0..8 {
            self.cause[c] += o.cause[c];
            self.cause_flagged[c] += o.cause_flagged[c];
        }
        for (a, b) in self.joint.iter_mut().zip(&o.joint) {
            for (x, y) in a.iter_mut().zip(b) {
                *x += y;
            }
        }
        self.sh_flagged += o.sh_flagged;
        self.fe_when_starved.add(&o.fe_when_starved);
        self.zs_when_starved.add(&o.zs_when_starved);
        self.fe_ahead.add(&o.fe_ahead);
    }
}

impl Stalls {
    /// Records one sample of the units' instance counts `w`.
    pub fn record(&mut self, w: &[Waits; 5]) {
        if gpu_activity(w) == Activity::Busy {
            return;
        }
        for (u, x) in w.iter().enumerate() {
            self.noncritical[u] += (x.wait_noncritical + x.wait_both > 0) as u64;
            self.critical[u] += (x.wait_critical + x.wait_both > 0) as u64;
        }
    }

    /// Adds `o`.
    pub fn add(&mut self, o: &Stalls) {
        for u in 0..5 {
            self.noncritical[u] += o.noncritical[u];
            self.critical[u] += o.critical[u];
        }
    }
}

/// The activity of an instance waiting for the blocks `missing` (cache id, block): by the
/// critical bits of their reads in flight ([`classify`]), `Unsent` when none was requested yet;
/// `None` when nothing is missing.
pub(super) fn waiting_for(
    g: &Gpu,
    missing: impl IntoIterator<Item = (usize, u64)>,
) -> Option<Activity> {
    let (mut any, mut crit, mut non) = (false, false, false);
    for (c, b) in missing {
        any = true;
        match g.mem.awaited(c, b) {
            Some(true) => crit = true,
            Some(false) => non = true,
            None => {}
        }
    }
    any.then(|| classify(crit, non).unwrap_or(Activity::Unsent))
}

/// A wait for reads in flight, by whether critical (`crit`) and non-critical (`non`) ones are
/// among them; `None` if neither.
pub fn classify(crit: bool, non: bool) -> Option<Activity> {
    match (crit, non) {
        (true, true) => Some(Activity::WaitBoth),
        (true, false) => Some(Activity::Wait(true)),
        (false, true) => Some(Activity::Wait(false)),
        (false, false) => None,
    }
}

/// The whole GPU at one sample, from its units' instance counts `w`: `Busy` if any instance of
/// any unit works, else a wait for the reads the waiting instances await ([`classify`]: only
/// non-critical ones, only critical ones, or both), else `Unsent`, `Blocked` or `Idle` in that
/// order. A sample in which nothing works and only non-critical reads are awaited is one in
/// which the frame's progress waits on non-critical reads alone.
pub fn gpu_activity(w: &[Waits; 5]) -> Activity {
    let any = |f: fn(&Waits) -> u64| w.iter().any(|x| f(x) > 0);
    let crit = any(|x| x.wait_critical + x.wait_both);
    let non = any(|x| x.wait_noncritical + x.wait_both);
    if any(|x| x.busy) {
        Activity::Busy
    } else if let Some(a) = classify(crit, non) {
        a
    } else if any(|x| x.wait_unsent) {
        Activity::Unsent
    } else if any(|x| x.blocked) {
        Activity::Blocked
    } else {
        Activity::Idle
    }
}

impl Gpu {
    /// Samples every unit instance's activity into this frame's [`Waits`], and the whole GPU's
    /// ([`gpu_activity`]).
    pub(super) fn probe(&mut self) {
        let mut w = [Waits::default(); 5];
        let fe = self.fe_activity();
        if let Some(a) = self.fe_ahead() {
            self.unit_states.fe_ahead.add(&a);
        }
        w[Unit::Fe as usize].count(fe);
        self.unit_states.count(Unit::Fe, fe);
        let mut zs = Vec::with_capacity(self.cfg.rops);
        for r in 0..self.cfg.rops {
            let (z, c) = (self.zs_activity(r), self.cw_activity(r));
            zs.push(z);
            w[Unit::Zs as usize].count(z);
            w[Unit::Cw as usize].count(c);
            let u = &mut self.unit_states;
            u.count(Unit::Zs, z);
            u.count(Unit::Cw, c);
        }
        for c in 0..self.cfg.cores {
            let a = self.sh_activity(c);
            w[Unit::Sh as usize].count(a);
            self.unit_states.count(Unit::Sh, a);
        }
        let bt = self.bt_activity();
        w[Unit::Bt as usize].count(bt);
        let flagged = self.mem.bottleneck;
        let sh_empty = self.sh.queue.is_empty();
        let u = &mut self.unit_states;
        u.count(Unit::Bt, bt);
        u.probe(sh_empty, fe, &zs, bt, &flagged);
        for (acc, x) in self.waits.iter_mut().zip(&w) {
            acc.add(x);
        }
        self.gpu_waits.count(gpu_activity(&w));
        self.stalls.record(&w);
        let per_core = self.cfg.contexts;
        let s = &mut self.sh_contexts;
        for &r in self.sh.resident() {
            s.samples += 1;
            s.resident += r as u64;
            s.full += (r >= per_core) as u64;
        }
        s.queued += !self.sh.queue.is_empty() as u64;
        s.probes += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gpu_waits_on_a_non_critical_read_only_when_nothing_works() {
        let one = |a: Activity| {
            let mut w = Waits::default();
            w.count(a);
            w
        };
        let idle = Waits::default();
        let mut w = [idle; 5];
        assert_eq!(gpu_activity(&w), Activity::Idle);
        w[0] = one(Activity::Wait(true));
        assert_eq!(gpu_activity(&w), Activity::Wait(true));
        w[4] = one(Activity::Wait(false));
        assert_eq!(gpu_activity(&w), Activity::WaitBoth);
        w[0] = one(Activity::Blocked);
        assert_eq!(gpu_activity(&w), Activity::Wait(false));
        let mut s = Stalls::default();
        s.record(&w);
        assert_eq!(
            s.noncritical,
            [0, 0, 0, 0, 1],
            "BT waits for a non-critical read"
        );
        assert_eq!(s.critical, [0; 5]);
        w[2] = one(Activity::Busy);
        assert_eq!(gpu_activity(&w), Activity::Busy);
        s.record(&w);
        assert_eq!(
            s.noncritical,
            [0, 0, 0, 0, 1],
            "a working unit: not a stall"
        );
    }

    #[test]
    fn waits_count_each_activity_once() {
        let mut w = Waits::default();
        for a in [
            Activity::Idle,
            Activity::Busy,
            Activity::Wait(true),
            Activity::Wait(false),
            Activity::Wait(false),
            Activity::WaitBoth,
            Activity::Unsent,
            Activity::Blocked,
        ] {
            w.count(a);
        }
        assert_eq!(
            (w.samples, w.busy, w.wait_critical, w.wait_noncritical),
            (8, 1, 1, 2)
        );
        assert_eq!((w.wait_both, w.wait_unsent, w.blocked), (1, 1, 1));
    }

    #[test]
    fn states_partition_activities_and_the_cause_walks_upstream_from_sh() {
        use State::*;
        assert_eq!(State::of(Activity::Idle), Starved);
        assert_eq!(State::of(Activity::Busy), Busy);
        assert_eq!(State::of(Activity::Blocked), Blocked);
        for a in [
            Activity::Wait(true),
            Activity::Wait(false),
            Activity::WaitBoth,
            Activity::Unsent,
        ] {
            assert_eq!(State::of(a), WaitRead);
        }
        // A ZS waiting for its reads comes first, then a blocked ZS, then a working ZS.
        assert_eq!(Cause::of(&[Busy, WaitRead], Busy, Starved), Cause::ZsReads);
        assert_eq!(
            Cause::of(&[Busy, Blocked], WaitRead, Starved),
            Cause::ZsBlocked
        );
        assert_eq!(
            Cause::of(&[Starved, Busy], WaitRead, Starved),
            Cause::ZsBusy
        );
        // ZS empty: FE's state decides; FE empty too: a blit, or no work at all.
        let empty = [Starved; 16];
        assert_eq!(Cause::of(&empty, WaitRead, Busy), Cause::FeReads);
        assert_eq!(Cause::of(&empty, Blocked, Starved), Cause::FeBlocked);
        assert_eq!(Cause::of(&empty, Busy, Starved), Cause::FeBusy);
        assert_eq!(Cause::of(&empty, Starved, WaitRead), Cause::Blit);
        assert_eq!(Cause::of(&empty, Starved, Starved), Cause::NoWork);
        assert_eq!(Cause::NoWork.unit(), None);
        for (i, c) in Cause::ALL.iter().enumerate() {
            assert_eq!(*c as usize, i);
        }
        // A probe with SH's queue full of quads has no cause; an empty one has exactly one, and
        // the flag counted is the cause's unit's.
        let mut s = UnitStates::default();
        let zs = [Activity::Idle, Activity::Wait(false)];
        let flags = [false, true, false, false, false];
        s.probe(false, Activity::Busy, &zs, Activity::Idle, &flags);
        assert_eq!((s.probes, s.sh_starved), (1, 0));
        s.probe(true, Activity::Busy, &zs, Activity::Idle, &flags);
        s.probe(
            true,
            Activity::Wait(true),
            &[Activity::Idle; 2],
            Activity::Idle,
            &flags,
        );
        assert_eq!((s.probes, s.sh_starved), (3, 2));
        assert_eq!(s.cause[Cause::ZsReads as usize], 1);
        assert_eq!(s.cause[Cause::FeReads as usize], 1);
        assert_eq!(s.cause_flagged[Cause::ZsReads as usize], 1, "ZS flagged");
        assert_eq!(
            s.cause_flagged[Cause::FeReads as usize],
            0,
            "FE not flagged"
        );
        assert_eq!(s.joint[Busy as usize][0], 1, "FE busy, a ZS waits");
        assert_eq!(s.joint[WaitRead as usize][3], 1, "FE waits, ZS empty");
        assert_eq!(s.joint.iter().flatten().sum::<u64>(), 2);
        assert_eq!(s.zs_when_starved.wait_noncritical, 1);
        assert_eq!(s.fe_when_starved.wait_critical, 1);
        s.count(Unit::Zs, Activity::Idle);
        s.count(Unit::Zs, Activity::Unsent);
        assert_eq!((s.samples[1], s.starved[1], s.wait_read[1]), (2, 1, 1));
    }
}
