//! CPL, the Criticality Prediction Logic of CAWA (spec 000 §4.3, Lee 2017 §4.2.1, Eq. 4.1 and
//! Algorithms 5-6): one criticality counter per warp slot of an SM,
//!
//! ```text
//! nCriticality = nInst * CPI_avg + nStall
//! ```
//!
//! * `nInst`, the warp's relative instruction-count disparity, changes at every issue: when the
//!   issued instruction does not follow the previous one (a taken branch), a backward jump adds
//!   the re-executed basic block (`prev - next + 1` instructions) and a forward jump subtracts
//!   the skipped one (`next - prev - 1`); every issued instruction then subtracts 1 (commit).
//!   Instruction indices (`DynInst::static_idx`), not byte PCs, are used; a divergent warp's
//!   next instruction is the reconvergence-ordered one the functional model delivers. Eq. 4.1
//!   uses it *relative to the other warps* of the thread block: `nInst − min over the TB's live
//!   warps`, the instructions this warp is behind the TB's leader (never negative, so that a
//!   higher CPI always means "more critical").
//! * `CPI_avg` = core cycles since the warp's dispatch / instructions issued (at least 1).
//! * `nStall` accumulates the cycles between consecutive issues of the warp minus one (the
//!   `Δ − 1` reading of Algorithm 6), the first issue counting from dispatch, except the wait
//!   at a barrier: after a barrier's release the gap counts from the release ([`Cpl::release`];
//!   §4.2.1: "`nStall` is the stall cycles incurred by shared resource contention and the
//!   scheduler"; session 15). *When* the gap
//!   enters the counter is `core.cpl_stall` ([`Stall`]). By default ([`Stall::AtIssue`]) it is
//!   added when the warp issues, as Algorithm 6 places it: lines 4-8 of `WARPSCHEDULER` are
//!   `w ← findNextWarp(); if w.isReady() then w.nStall ← w.nStall + stallCycles;
//!   InstructionExecute(w)`, so the counter of a warp that waits keeps its value until the
//!   scheduler issues it again. This is what lets gCAWS, "like GTO", "limit the number of
//!   active warps such that the aggregate working set can well fit into the L1 data cache"
//!   (§4.3.2, the KMN explanation): a warp passed over does not climb the order while it
//!   waits. [`Stall::Accruing`] (the reading of earlier sessions, from §4.2.1's "CPL monitors
//!   the stall cycles between the current and the next instruction execution for each warp and
//!   increment the criticality counter accordingly for all warps") adds every waiting cycle at
//!   once; the most critical ready warp is then the one that has waited longest, and gCAWS
//!   rotates over all warps like RR (its L1D footprint spreads: PTH 0.884x under gCAWS, GTO
//!   1.084x, in the session that measured it). Session 12 re-read both places: §4.2.1's
//!   sentence counts "the stall cycles between the current and the next instruction
//!   execution", a gap that exists only once the next instruction executes, and Algorithm 6
//!   adds it there; neither counts a gap still under way, so `AtIssue` stays the default
//!   (`small`, 3.2.0 preset: CPL accuracy 0.51 at issue vs 0.58 accruing, CAWA over RR on
//!   Sens 1.122 vs 1.086, GTO 1.106).
//!
//! Under the self-consistent reading above `nInst` telescopes to minus one minus the static
//! index of the last issued instruction: it locates the warp, it does not count its work, so it
//! cannot see loop iterations still to run (test
//! `ninst_is_a_function_of_the_current_instruction_only`; issue #12, session 15).
//!
//! Decisions (§4.3 ambiguities): `nInst` starts at 0 for every warp (all warps of a TB start
//! equal) and enters Eq. 4.1 relative to the TB's minimum (an absolute counter starting at 0
//! goes negative, and a negative `nInst` times a larger CPI would rank slower warps *less*
//! critical); instructions "commit" at issue (the pipeline is in order); the
//! counter is recomputed at each issue of the warp (integer arithmetic, deterministic).
//!
//! The critical warp (`IsCriticalWarp` of CACP's Algorithm 8, §4.3 (c)): the document never
//! defines it, but it keeps two words apart. A TB's *critical warp* is its slowest one (Chapter
//! 3: "the critical warp is Warp 15", CAWS-blk boosts "the single most critical warp in each
//! TB"), and CPL's job is to find it; a *slow warp* is any warp whose criticality "is larger
//! than 50% of warps in a thread-block", a looser predicate §4.3.3 introduces only to score CPL
//! ("the frequency that the critical warp is identified as a slow warp"). CACP reserves its
//! critical ways for "data that will be used by the critical warps". So by default
//! ([`Critical::Slowest`]) one warp per TB is critical, the one with the highest counter (ties:
//! the lowest warp slot); [`Critical::TopHalf`] (`core.cpl_critical = "top_half"`) labels every
//! slow warp critical, which makes half of the warps' hits train CCBP up. A TB of one warp has
//! that warp critical under both rules. The accuracy samples always use the slow-warp predicate.
//!
//! CPL is a signal of the SM that runs when something consumes it (a scheduler, insertion or
//! replacement policy whose `reads_criticality` is true, or `sim.cpl = true`; otherwise its
//! counters stay 0 and only dispatch and exit reach it, for the TB spread statistics):
//! schedulers read it through `SchedView::crit`, the L1D receives it as the criticality bit
//! of each access, [`Cpl::is_critical`] asked when the access reaches the L1D (Algorithm 8's
//! `IsCriticalWarp(req.WarpID)` inside `ATHIT`; until session 16 the bit was taken when the
//! load issued), and its accuracy
//! is sampled every [`SAMPLE_PERIOD`] core cycles into `CoreStats::cpl_samples`/`cpl_correct`
//! as §8.2 defines it (Lee 2017 §4.3.3): per resident TB and sample, whether the TB's oracle
//! critical warp — its warp with the longest execution time, known when the TB finishes — has
//! a counter at least those of half of the TB's other warps. The TB's warps are all of them:
//! a warp that has exited keeps, for the comparison, the counter it exited with ([`Cpl::exit`],
//! [`Cpl::sample`], [`Cpl::tb_done`]). (Until session 12 the oracle was the TB's last warp to
//! exit and exited warps left the comparison, so that the last live warp was trivially "slow".)
//! [`Cpl::tb_done`] also returns the TB's warp execution-time spread and lifetime
//! ([`TbRecord`]; diagnostics of issue #12: the accuracy over TBs whose warps finish within 1% of
//! each other is expected to be about one half whatever the counter, so the simulator also sums
//! the samples of the TBs with a real spread separately).

/// Core cycles between two accuracy samples (the document does not give its period).
pub const SAMPLE_PERIOD: u64 = 128;

/// The accuracy sample points (multiples of [`SAMPLE_PERIOD`]) in core cycles `from..to`.
pub fn sample_points(from: u64, to: u64) -> impl Iterator<Item = u64> {
    (from.div_ceil(SAMPLE_PERIOD)..to.div_ceil(SAMPLE_PERIOD)).map(|k| k * SAMPLE_PERIOD)
}

/// Which warps of a thread block CPL reports as critical ([`Cpl::is_critical`];
/// `core.cpl_critical`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Critical {
    /// The warp with the highest criticality counter of its TB (ties: the lowest slot).
    #[default]
    Slowest,
    /// Every warp whose counter exceeds those of at least half of the TB's other warps.
    TopHalf,
}

impl Critical {
    /// The configuration names, in the order of the variants.
    pub const NAMES: [&'static str; 2] = ["slowest", "top_half"];

    /// The rule named `name` (`core.cpl_critical`).
    pub fn parse(name: &str) -> Option<Critical> {
        match name {
            "slowest" => Some(Critical::Slowest),
            "top_half" => Some(Critical::TopHalf),
            _ => None,
        }
    }
}

/// When a warp's stall cycles enter its criticality counter (`core.cpl_stall`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Stall {
    /// At the warp's next issue (Algorithm 6, line 7): the counter changes only when the warp
    /// issues.
    #[default]
    AtIssue,
    /// Every cycle the warp waits: the counter grows by one per cycle without an issue.
    Accruing,
}

impl Stall {
    /// The configuration names, in the order of the variants.
    pub const NAMES: [&'static str; 2] = ["at_issue", "accruing"];

    /// The rule named `name` (`core.cpl_stall`).
    pub fn parse(name: &str) -> Option<Stall> {
        match name {
            "at_issue" => Some(Stall::AtIssue),
            "accruing" => Some(Stall::Accruing),
            _ => None,
        }
    }
}

/// Per-warp CPL state of one SM (indexed by warp slot, at most 64).
#[derive(Debug, Clone)]
pub struct Cpl {
    /// The critical-warp rule of [`Cpl::is_critical`].
    pub rule: Critical,
    /// When stall cycles enter the counters.
    pub stall: Stall,
    n_inst: [i64; 64],
    issued: [u64; 64],
    born: [u64; 64],
    last_issue: [u64; 64],
    n_stall: [u64; 64],
    last_idx: [u32; 64],
    /// The ranking key of each warp slot (higher = more critical). [`Stall::AtIssue`]: the
    /// criticality counter as of the warp's last issue. [`Stall::Accruing`]: the counter minus
    /// the current core cycle; the counter of a warp that does not issue grows by one stall
    /// cycle per cycle, so `counter(now) = crit + now` ([`Cpl::value`]); storing it relative to
    /// the clock keeps every comparison between warps exact without touching each warp every
    /// cycle.
    pub crit: [i64; 64],
    /// This warp's accuracy samples so far ([`Marks`]).
    marks: [Marks; 64],
    /// Per CTA slot: the accuracy state of its resident thread block.
    tbs: Vec<TbAccuracy>,
    /// The `nInst * CPI_avg` term of each warp slot's counter as of its last issue (the rest
    /// of [`Cpl::value`] is `nStall`).
    inst_term: [i64; 64],
    /// The rank-correlation diagnostic's history (`sim.cpl_rank`), when it is on.
    rank: Option<Box<RankTrace>>,
}

impl Default for Cpl {
    fn default() -> Self {
        Self {
            rule: Critical::default(),
            stall: Stall::default(),
            n_inst: [0; 64],
            issued: [0; 64],
            born: [0; 64],
            last_issue: [0; 64],
            n_stall: [0; 64],
            last_idx: [u32::MAX; 64],
            crit: [0; 64],
            marks: [Marks::default(); 64],
            tbs: Vec::new(),
            inst_term: [0; 64],
            rank: None,
        }
    }
}

impl Cpl {
    /// Fresh state reporting critical warps by `rule`.
    pub fn new(rule: Critical) -> Self {
        Self {
            rule,
            ..Self::default()
        }
    }

    /// The same state, recording the rank-correlation diagnostic ([`TbRecord::rho`]) if `on`.
    pub fn with_rank(mut self, on: bool) -> Self {
        self.rank = on.then(Box::default);
        self
    }

    /// The same state with stall rule `stall`.
    pub fn with_stall(mut self, stall: Stall) -> Self {
        self.stall = stall;
        self
    }

    /// Warp slot `w` was dispatched at core cycle `now`: its counters start from zero.
    pub fn start(&mut self, w: usize, now: u64) {
        self.n_inst[w] = 0;
        self.issued[w] = 0;
        self.born[w] = now;
        self.last_issue[w] = now;
        self.n_stall[w] = 0;
        self.last_idx[w] = u32::MAX;
        self.inst_term[w] = 0;
        // No issue yet: every cycle since dispatch is a stall cycle (counted at the first issue
        // under `AtIssue`).
        self.crit[w] = match self.stall {
            Stall::AtIssue => 0,
            Stall::Accruing => -(now as i64),
        };
        self.marks[w] = Marks::default();
    }

    /// Warp slot `w`, of the thread block whose live warps are `tb`, issued the instruction of
    /// static index `idx` at core cycle `now`.
    pub fn on_issue(&mut self, w: usize, idx: u32, now: u64, tb: u64) {
        let prev = self.last_idx[w];
        if prev != u32::MAX && idx != prev.wrapping_add(1) {
            let (p, n) = (prev as i64, idx as i64);
            if n <= p {
                // Backward (loop) branch: the block n..=p runs again.
                self.n_inst[w] += p - n + 1;
            } else {
                // Forward branch: n - p - 1 instructions skipped.
                self.n_inst[w] -= n - p - 1;
            }
        }
        self.n_inst[w] -= 1;
        self.last_idx[w] = idx;
        let gap = if self.issued[w] == 0 {
            now - self.born[w]
        } else {
            (now - self.last_issue[w]).saturating_sub(1)
        };
        self.n_stall[w] += gap;
        self.issued[w] += 1;
        self.last_issue[w] = now;
        let mut lead = self.n_inst[w];
        let mut m = tb;
        while m != 0 {
            let v = m.trailing_zeros() as usize;
            m &= m - 1;
            lead = lead.min(self.n_inst[v]);
        }
        let behind = self.n_inst[w] - lead;
        let cycles = (now - self.born[w] + 1) as i64;
        // The leading warp (`behind == 0`, the usual case) needs no division.
        let ahead = if behind == 0 {
            0
        } else {
            behind * cycles / self.issued[w] as i64
        };
        let value = ahead + self.n_stall[w] as i64;
        self.inst_term[w] = ahead;
        self.crit[w] = match self.stall {
            Stall::AtIssue => value,
            // From the next cycle on, every cycle without an issue is one more stall cycle.
            Stall::Accruing => value - now as i64 - 1,
        };
    }

    /// Warp slot `w`, waiting at a barrier since its last issue (the barrier instruction), was
    /// released at core cycle `now`. The wait is synchronization, not one of the stalls that
    /// Eq. 4.1's `nStall` counts: "`nStall` is the stall cycles incurred by shared resource
    /// contention and the scheduler" (Lee 2017 §4.2.1; Chapter 3 keeps Sync apart from those
    /// stall factors). The next issue's gap therefore counts from the release, not from the
    /// barrier's issue. (Counting the wait made the warps that reach a barrier first, the fast
    /// ones, the most critical: issue #12, session 15.) Under [`Stall::Accruing`] the cycles
    /// accrued while waiting are taken back.
    pub fn release(&mut self, w: usize, now: u64) {
        let from = self.last_issue[w];
        if now > from {
            if self.stall == Stall::Accruing {
                self.crit[w] -= (now - from) as i64;
            }
            self.last_issue[w] = now;
        }
    }

    /// The three parts of warp slot `w`'s counter at core cycle `now`: [counter, `nInst *
    /// CPI_avg` term, `nStall` term].
    fn terms(&self, w: usize, now: u64) -> [i64; 3] {
        let v = self.value(w, now);
        [v, self.inst_term[w], v - self.inst_term[w]]
    }

    /// The criticality counter (Eq. 4.1) of warp slot `w` at core cycle `now` (after its last
    /// issue): under [`Stall::Accruing`] the stall cycles since its last issue included, under
    /// [`Stall::AtIssue`] its value at that issue.
    pub fn value(&self, w: usize, now: u64) -> i64 {
        match self.stall {
            Stall::AtIssue => self.crit[w],
            Stall::Accruing => self.crit[w] + now as i64,
        }
    }

    /// `nInst` of warp slot `w` (for tests and diagnostics).
    pub fn n_inst(&self, w: usize) -> i64 {
        self.n_inst[w]
    }

    /// `nStall` of warp slot `w`.
    pub fn n_stall(&self, w: usize) -> u64 {
        self.n_stall[w]
    }

    /// Whether warp `w` is critical among the live warps `tb` of its thread block, by
    /// [`Cpl::rule`]: [`Critical::Slowest`], no other warp has a higher counter nor an equal one
    /// in a lower slot; [`Critical::TopHalf`], its counter exceeds those of at least half of the
    /// others (`2 * lower >= others`).
    pub fn is_critical(&self, w: usize, tb: u64) -> bool {
        let others = tb & !(1u64 << w);
        let mut m = others;
        let mut lower = 0u32;
        while m != 0 {
            let v = m.trailing_zeros() as usize;
            m &= m - 1;
            match self.rule {
                Critical::Slowest => {
                    if self.crit[v] > self.crit[w] || (self.crit[v] == self.crit[w] && v < w) {
                        return false;
                    }
                }
                Critical::TopHalf => {
                    if self.crit[v] < self.crit[w] {
                        lower += 1;
                    }
                }
            }
        }
        self.rule == Critical::Slowest || 2 * lower >= others.count_ones()
    }

    /// One accuracy sample at core cycle `now` of the thread block in CTA slot `slot` whose live
    /// warps are `live` (spec 000 §8.2, Lee 2017 §4.3.3: a warp is slow if "its criticality is
    /// larger than 50% of warps in a thread-block"): every live warp whose counter is at least
    /// those of half of the TB's other warps (`2 * not_above >= others`, ties in its favour; a
    /// lone warp trivially) is "slow" now. The TB's warps are all of its warps: the live ones
    /// and those that have exited, with the counters they had when they exited ([`Cpl::exit`]:
    /// CPL stops updating a warp that leaves the scheduler's pool, and its slot keeps its
    /// last value).
    pub fn sample(&mut self, live: u64, slot: usize, now: u64) {
        let frozen: &[[i64; 3]] = self.tbs.get(slot).map_or(&[], |t| &t.frozen);
        let others = (live.count_ones() as usize + frozen.len()).saturating_sub(1);
        let mut m = live;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            let mine = self.terms(w, now);
            // Per part of the counter: the TB's other warps whose part is not above this one's.
            let mut not_above = [0usize; 3];
            for f in frozen {
                for (i, n) in not_above.iter_mut().enumerate() {
                    *n += usize::from(f[i] <= mine[i]);
                }
            }
            let mut o = live & !(1u64 << w);
            while o != 0 {
                let v = o.trailing_zeros() as usize;
                o &= o - 1;
                let theirs = self.terms(v, now);
                for (i, n) in not_above.iter_mut().enumerate() {
                    *n += usize::from(theirs[i] <= mine[i]);
                }
            }
            if let Some(r) = self.rank.as_mut() {
                r.sample(slot, now, w, mine);
            }
            let [not_above, inst_not_above, stall_not_above] = not_above;
            let n = others as u64 + 1;
            let k = &mut self.marks[w];
            k.samples += 1;
            if 2 * not_above >= others {
                k.top += 1;
            }
            if 2 * inst_not_above >= others {
                k.top_inst += 1;
            }
            if 2 * stall_not_above >= others {
                k.top_stall += 1;
            }
            if 2 * not_above + 1 >= others {
                k.top_inclusive += 1;
            }
            // A random order without ties puts the warp at each of the n ranks equally often:
            // the strict rule counts the top floor((n + 1) / 2) ranks, the inclusive one the top
            // floor(n / 2) + 1 (at most n).
            k.chance_ppm += n.div_ceil(2) * 1_000_000 / n;
            k.chance_inclusive_ppm += (n / 2 + 1).min(n) * 1_000_000 / n;
        }
    }

    /// Warp slot `w` of the thread block in CTA slot `slot` exited at core cycle `now`: its
    /// counter is frozen for the TB's later accuracy samples, and it becomes the TB's oracle
    /// critical warp if no warp of the TB ran longer (§8.2: "the warp with the longest final
    /// execution time"; ties: the later to exit).
    pub fn exit(&mut self, w: usize, slot: usize, now: u64) {
        if self.tbs.len() <= slot {
            self.tbs.resize_with(slot + 1, TbAccuracy::default);
        }
        let terms = self.terms(w, now);
        let exec = now - self.born[w];
        let born = self.born[w];
        if let Some(r) = self.rank.as_mut() {
            r.exit(slot, w, exec, now, terms);
        }
        let t = &mut self.tbs[slot];
        t.frozen.push(terms);
        if t.oracle.is_none_or(|(e, _)| exec >= e) {
            t.oracle = Some((exec, self.marks[w]));
        }
        t.fastest = Some(t.fastest.map_or(exec, |f| f.min(exec)));
        t.first_born = Some(t.first_born.map_or(born, |b| b.min(born)));
        t.last_exit = t.last_exit.max(now);
    }

    /// The thread block in CTA slot `slot` finished: the accuracy record of its oracle
    /// critical warp and the spread of its warps' execution times ([`TbRecord`]); the slot's
    /// record is cleared for the next TB.
    pub fn tb_done(&mut self, slot: usize) -> TbRecord {
        let Some(t) = self.tbs.get_mut(slot) else {
            return TbRecord::default();
        };
        t.frozen.clear();
        let (slowest, marks) = t.oracle.take().unwrap_or_default();
        let fastest = t.fastest.take().unwrap_or(0);
        let first_born = t.first_born.take().unwrap_or(t.last_exit);
        let last_exit = t.last_exit;
        t.last_exit = 0;
        let spread_ppm = ((slowest - fastest) * 1_000_000)
            .checked_div(slowest)
            .unwrap_or(0);
        let rho = self
            .rank
            .as_mut()
            .and_then(|r| r.tb_done(slot, first_born, last_exit, spread_ppm >= SPREAD_MIN_PPM));
        TbRecord {
            marks,
            spread_ppm,
            lifetime: last_exit - first_born,
            rho,
        }
    }

    /// The accuracy record of warp `w` so far: (samples in the slow half, samples). The
    /// simulator reads a TB's record through [`Cpl::tb_done`]; this is for the unit tests.
    #[cfg(test)]
    pub fn record(&self, w: usize) -> (u64, u64) {
        (self.marks[w].top, self.marks[w].samples)
    }

    /// The full accuracy record of warp `w` so far (for the unit tests).
    #[cfg(test)]
    pub fn marks(&self, w: usize) -> Marks {
        self.marks[w]
    }
}

/// The accuracy state of one CTA slot (§8.2): the counters of its exited warps and its oracle
/// critical warp so far.
#[derive(Debug, Clone, Default)]
struct TbAccuracy {
    /// Criticality counters of the TB's exited warps as they were at exit ([`Cpl::terms`]:
    /// the counter and its two parts).
    frozen: Vec<[i64; 3]>,
    /// The longest-running exited warp: (execution time, its accuracy samples).
    oracle: Option<(u64, Marks)>,
    /// The shortest execution time (core cycles) of the TB's exited warps.
    fastest: Option<u64>,
    /// The earliest dispatch (core cycle) of the TB's exited warps.
    first_born: Option<u64>,
    /// The latest exit (core cycle) of the TB's warps.
    last_exit: u64,
}

/// A finished thread block's CPL record ([`Cpl::tb_done`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TbRecord {
    /// The accuracy samples of the TB's oracle critical warp.
    pub marks: Marks,
    /// Spread of the TB's warp execution times, (slowest - fastest) / slowest, in parts per
    /// million (0 for a TB of one warp). Below [`SPREAD_MIN_PPM`] the oracle critical warp is
    /// a matter of noise.
    pub spread_ppm: u64,
    /// Core cycles from the TB's first warp dispatch to its last warp exit.
    pub lifetime: u64,
    /// The rank-correlation diagnostic (`sim.cpl_rank`, the private `RankTrace`): Spearman's
    /// rho, parts per million, between the warps' final execution times and, by row, their
    /// counters at 25%, 50% and 75% of the TB's lifetime; by column the counter, its
    /// `nInst * CPI_avg` term and its `nStall` term. `None` when the diagnostic is off, or for a TB of fewer
    /// than 3 warps or without a 1% spread of warp times (its order is noise).
    pub rho: Option<[[i64; 3]; 3]>,
}

impl TbRecord {
    /// Whether the TB's warps differ by at least [`SPREAD_MIN_PPM`] in execution time.
    pub fn has_spread(&self) -> bool {
        self.spread_ppm >= SPREAD_MIN_PPM
    }
}

/// The accuracy samples (spec 000 §8.2) of one warp: how often it ranked in the slow half of its
/// TB, by two readings of "slow", and what a random ranking would have scored.
///
/// Lee 2017 §4.3.3 calls a warp slow "if a warp's criticality is larger than 50% of warps in a
/// thread-block" and reports NW at 100% "because ... a thread-block has only one or two warps"
/// (footnote 2). The two readings differ only for TBs with an even number of warps, at the rank
/// just below the median: [`Marks::top`] counts the others only (at least half of the *other*
/// warps have a counter not above the warp's, ties in its favour: a lone warp trivially, a warp
/// of two only if it is not below the other); [`Marks::top_inclusive`] counts the warp itself
/// among the TB's warps (at least half of *all* the TB's warps, itself included, are not above
/// it: in a TB of two warps both are always slow, which is the only reading under which the
/// footnote's 100% for one- or two-warp TBs follows from the TB size alone). Each reading's
/// chance level is recorded beside it: with `n` warps and no ties, a random order scores
/// `floor((n + 1) / 2) / n` (strict: 1/2 for `n` = 8) or `(floor(n / 2) + 1) / n` (inclusive:
/// 5/8 for `n` = 8).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Marks {
    /// Samples taken while the warp was live.
    pub samples: u64,
    /// Samples in which it ranked in the slow half, the others-only reading (`cpl_accuracy`).
    pub top: u64,
    /// The same by the counter's `nInst * CPI_avg` term alone.
    pub top_inst: u64,
    /// The same by the counter's `nStall` term alone.
    pub top_stall: u64,
    /// Samples in which it ranked in the slow half counting itself among the TB's warps.
    pub top_inclusive: u64,
    /// Sum over the samples of the strict reading's chance level, parts per million.
    pub chance_ppm: u64,
    /// Sum over the samples of the inclusive reading's chance level, parts per million.
    pub chance_inclusive_ppm: u64,
}

/// The execution-time spread (parts per million of the slowest warp's time) from which a TB's
/// oracle critical warp is more than noise: 1%. Below it, which warp finishes last is decided by
/// a few cycles and the expected accuracy of any counter is about one half (issue #12, task 3).
pub const SPREAD_MIN_PPM: u64 = 10_000;

/// The rank-correlation diagnostic of issue #12 (session 15; `sim.cpl_rank`): every accuracy
/// sample's counter parts per warp, kept per CTA slot until the TB finishes, then reduced to
/// Spearman's rho between the warps' final execution times (the oracle, §8.2) and their counter
/// at 25%, 50% and 75% of the TB's lifetime ([`TbRecord::rho`]). A warp that has exited by then
/// enters with the values it exited with, as in the accuracy samples.
#[derive(Debug, Clone, Default)]
struct RankTrace {
    /// Per CTA slot: (core cycle, warp slot, [`Cpl::terms`]) of each live warp at each sample.
    samples: Vec<Vec<(u64, u8, [i64; 3])>>,
    /// Per CTA slot: its exited warps.
    exits: Vec<Vec<Exit>>,
}

/// One exited warp of the rank diagnostic.
#[derive(Debug, Clone, Copy)]
struct Exit {
    /// Warp slot.
    w: u8,
    /// Execution time, core cycles (dispatch to exit).
    exec: u64,
    /// The core cycle it exited.
    at: u64,
    /// [`Cpl::terms`] at its exit.
    terms: [i64; 3],
}

impl RankTrace {
    fn slot(&mut self, slot: usize) {
        if self.samples.len() <= slot {
            self.samples.resize_with(slot + 1, Vec::new);
            self.exits.resize_with(slot + 1, Vec::new);
        }
    }

    fn sample(&mut self, slot: usize, now: u64, w: usize, terms: [i64; 3]) {
        self.slot(slot);
        self.samples[slot].push((now, w as u8, terms));
    }

    fn exit(&mut self, slot: usize, w: usize, exec: u64, now: u64, terms: [i64; 3]) {
        self.slot(slot);
        self.exits[slot].push(Exit {
            w: w as u8,
            exec,
            at: now,
            terms,
        });
    }

    /// The TB of CTA slot `slot` (first dispatch `born`, last exit `end`) finished: its rho
    /// table if it has at least 3 warps and a real spread; the history is cleared.
    fn tb_done(&mut self, slot: usize, born: u64, end: u64, spread: bool) -> Option<[[i64; 3]; 3]> {
        self.slot(slot);
        let samples = std::mem::take(&mut self.samples[slot]);
        let exits = std::mem::take(&mut self.exits[slot]);
        if exits.len() < 3 || !spread {
            return None;
        }
        let times: Vec<f64> = exits.iter().map(|e| e.exec as f64).collect();
        let mut rho = [[0i64; 3]; 3];
        for (q, row) in rho.iter_mut().enumerate() {
            let at = born + (q as u64 + 1) * (end - born) / 4;
            // The first sample point at or after that moment.
            let Some(t) = samples.iter().map(|s| s.0).filter(|&t| t >= at).min() else {
                continue;
            };
            let mut live = [None; 64];
            for s in samples.iter().filter(|s| s.0 == t) {
                live[s.1 as usize] = Some(s.2);
            }
            let vals: Option<Vec<[i64; 3]>> = exits
                .iter()
                .map(|e| {
                    if e.at <= t {
                        Some(e.terms)
                    } else {
                        live[e.w as usize]
                    }
                })
                .collect();
            let Some(vals) = vals else { continue };
            for (i, r) in row.iter_mut().enumerate() {
                let x: Vec<f64> = vals.iter().map(|v| v[i] as f64).collect();
                *r = (spearman(&x, &times) * 1e6).round() as i64;
            }
        }
        Some(rho)
    }
}

/// Average ranks (0-based; ties share the mean of their ranks).
fn ranks(v: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut r = vec![0.0; v.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && v[order[j + 1]] == v[order[i]] {
            j += 1;
        }
        for &k in &order[i..=j] {
            r[k] = (i + j) as f64 / 2.0;
        }
        i = j + 1;
    }
    r
}

/// Spearman's rank correlation of `x` and `y` (Pearson's of their average ranks); 0 when
/// either is constant (no order to correlate).
pub fn spearman(x: &[f64], y: &[f64]) -> f64 {
    let (rx, ry) = (ranks(x), ranks(y));
    let n = rx.len() as f64;
    let (mx, my) = (rx.iter().sum::<f64>() / n, ry.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in rx.iter().zip(&ry) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    if sxx == 0.0 || syy == 0.0 {
        0.0
    } else {
        sxy / (sxx * syy).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ninst_follows_basic_block_deltas() {
        let mut c = Cpl::default();
        c.start(0, 0);
        // Straight line 0, 1, 2: -3.
        for (t, i) in [0u32, 1, 2].iter().enumerate() {
            c.on_issue(0, *i, t as u64, 1);
        }
        assert_eq!(c.n_inst(0), -3);
        // Loop back-edge 2 -> 0 (block 0..=2 re-executed, +3), then 0 issued (-1).
        c.on_issue(0, 0, 3, 1);
        assert_eq!(c.n_inst(0), -1);
        // Algorithm 5: a forward branch from PC1 to PC4 skips PC2, PC3.
        c.on_issue(0, 3, 4, 1);
        assert_eq!(c.n_inst(0), -1 - 2 - 1);
    }

    /// The self-consistent reading of §4.3 (a) (back-edge `+(cur - tgt) + 1`, forward skip
    /// `-((tgt - cur) - 1)`, `-1` per commit) telescopes: after any path, `nInst` is minus one
    /// minus the static index of the last instruction issued. It is a function of where the
    /// warp is, not of how much it has run: a warp on its fifth loop iteration and one on its
    /// first, at the same instruction, hold the same `nInst`, and a divergent warp that ran
    /// both sides of Algorithm 5's if-else holds the same `nInst` at PC5 as one that ran one
    /// side. (Issue #12, session 15: why `nInst` cannot see the extra iterations that make our
    /// critical warps critical.)
    #[test]
    fn ninst_is_a_function_of_the_current_instruction_only() {
        let paths: [&[u32]; 4] = [
            // Algorithm 5: taken at PC1 (-> PC4), not taken (PC2, PC3 -> PC5), divergent.
            &[0, 3, 4],
            &[0, 1, 2, 4],
            &[0, 1, 2, 3, 4],
            // A loop 1..=4 run five times, then the exit.
            &[
                0, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 5,
            ],
        ];
        for path in paths {
            let mut c = Cpl::default();
            c.start(0, 0);
            for (t, &i) in path.iter().enumerate() {
                c.on_issue(0, i, t as u64, 1);
                assert_eq!(c.n_inst(0), -(i as i64) - 1, "{path:?} at {t}");
            }
        }
        // Two warps at instruction 3 of the loop, one on its first iteration and one on its
        // third: no disparity.
        let mut c = Cpl::default();
        c.start(0, 0);
        c.start(1, 0);
        for (t, &i) in [0u32, 1, 2, 3].iter().enumerate() {
            c.on_issue(0, i, t as u64, 0b11);
        }
        for (t, &i) in [0u32, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3].iter().enumerate() {
            c.on_issue(1, i, t as u64, 0b11);
        }
        assert_eq!(c.n_inst(0), c.n_inst(1));
    }

    /// Eq. 4.1's `nStall` is "the stall cycles incurred by shared resource contention and the
    /// scheduler" (Lee 2017 §4.2.1): a wait at a barrier is not one of them. A warp that issues
    /// its barrier at cycle 10, is released at 50 and issues again at 53 stalled 2 cycles (51
    /// and 52), not 42; under the accruing rule the wait is taken back at the release.
    #[test]
    fn nstall_does_not_count_barrier_waits() {
        for stall in [Stall::AtIssue, Stall::Accruing] {
            let mut c = Cpl::default().with_stall(stall);
            c.start(0, 0);
            c.on_issue(0, 0, 0, 1);
            c.on_issue(0, 1, 10, 1); // the barrier, after 9 stall cycles
            assert_eq!(c.n_stall(0), 9);
            if stall == Stall::Accruing {
                assert_eq!(c.value(0, 50), 9 + 39, "accrues while it waits");
            }
            c.release(0, 50);
            // (The accruing counter is kept as the next cycle will find it.)
            assert_eq!(c.value(0, 51), 9, "{stall:?}: the wait is not a stall");
            c.on_issue(0, 2, 53, 1);
            assert_eq!(c.n_stall(0), 9 + 2, "{stall:?}");
            assert_eq!(c.value(0, 54) - c.inst_term[0], 11, "{stall:?}");
        }
        // Without a release the same gap counts whole.
        let mut c = Cpl::default();
        c.start(0, 0);
        c.on_issue(0, 0, 0, 1);
        c.on_issue(0, 1, 10, 1);
        c.on_issue(0, 2, 53, 1);
        assert_eq!(c.n_stall(0), 9 + 42);
    }

    #[test]
    fn spearman_ranks_with_ties() {
        let y = [10.0, 20.0, 30.0, 40.0];
        assert!((spearman(&[1.0, 2.0, 3.0, 4.0], &y) - 1.0).abs() < 1e-12);
        assert!((spearman(&[9.0, 5.0, 2.0, -1.0], &y) + 1.0).abs() < 1e-12);
        assert_eq!(
            spearman(&[3.0, 3.0, 3.0, 3.0], &y),
            0.0,
            "constant: no order"
        );
        // Ties share their mean rank: ranks 0.5 0.5 2 3 against 0 1 2 3.
        let r = spearman(&[1.0, 1.0, 2.0, 3.0], &y);
        assert!((r - 0.9486832980505138).abs() < 1e-12, "{r}");
        assert_eq!(ranks(&[5.0, 1.0, 5.0]), vec![1.5, 0.0, 1.5]);
    }

    /// The rank diagnostic and the per-term accuracy on a TB of three warps whose stall cycles
    /// order them like their final execution times while their `nInst` term does not: rho is
    /// 1 for the counter and the stall term at every moment, and the term samples say which
    /// part found the critical warp.
    #[test]
    fn rank_trace_correlates_each_term_with_the_final_warp_times() {
        let mut c = Cpl::default().with_rank(true);
        let tb = 0b111;
        for w in 0..3 {
            c.start(w, 0);
        }
        // Warp w issues instruction k at cycle k * (w + 1) + w: the later warps stall more,
        // all run the same straight-line code (no nInst term).
        for k in 0..100u32 {
            for w in 0..3usize {
                let t = k as u64 * (w as u64 + 1) + w as u64;
                c.on_issue(w, k, t, tb);
            }
        }
        for t in super::sample_points(0, 300) {
            let live = (0..3).filter(|&w| 99 * (w as u64 + 1) + w as u64 >= t);
            let live = live.fold(0u64, |m, w| m | 1 << w);
            if live != 0 {
                c.sample(live, 0, t);
            }
        }
        for w in 0..3 {
            c.exit(w, 0, 99 * (w as u64 + 1) + w as u64 + 1);
        }
        let m = c.marks[2];
        assert_eq!(
            (m.top, m.top_stall, m.top_inst),
            (m.samples, m.samples, m.samples)
        );
        let r = c.tb_done(0);
        let rho = r.rho.expect("3 warps with a spread");
        for row in rho {
            assert_eq!(row[0], 1_000_000, "counter: {rho:?}");
            assert_eq!(row[1], 0, "nInst term constant: {rho:?}");
            assert_eq!(row[2], 1_000_000, "nStall term: {rho:?}");
        }
        // Off by default; and no table for a TB of two warps.
        let mut c = Cpl::default();
        c.start(0, 0);
        c.exit(0, 0, 10);
        assert_eq!(c.tb_done(0).rho, None);
        let mut c = Cpl::default().with_rank(true);
        c.start(0, 0);
        c.start(1, 0);
        c.exit(0, 0, 10);
        c.exit(1, 0, 20);
        assert_eq!(c.tb_done(0).rho, None);
    }

    #[test]
    fn nstall_counts_gaps_between_issues() {
        let mut c = Cpl::default();
        c.start(1, 10);
        c.on_issue(1, 0, 12, 2); // 2 cycles since dispatch
        c.on_issue(1, 1, 13, 2); // back to back: 0
        c.on_issue(1, 2, 20, 2); // 6 idle cycles
        assert_eq!(c.n_stall(1), 8);
    }

    #[test]
    fn a_warp_that_stalls_becomes_more_critical() {
        let mut c = Cpl::default().with_stall(Stall::Accruing);
        c.start(0, 0);
        c.start(1, 0);
        // Same code, warp 1 issues every 10 cycles, warp 0 every cycle up to cycle 95.
        for i in 0..10u32 {
            c.on_issue(1, i, 10 * i as u64 + 5, 0b11);
        }
        for i in 0..96u32 {
            c.on_issue(0, i, i as u64, 0b11);
        }
        assert!(c.crit[1] > c.crit[0], "{} vs {}", c.crit[1], c.crit[0]);
        assert!(c.is_critical(1, 0b11));
        assert!(!c.is_critical(0, 0b11));
        // A warp that lags behind (fewer instructions, same time) is more critical too.
        c.start(2, 0);
        c.start(3, 0);
        for i in 0..10u32 {
            c.on_issue(2, i, 2 * i as u64, 0b1100);
        }
        for i in 0..5u32 {
            c.on_issue(3, i, 4 * i as u64 + 2, 0b1100);
        }
        assert!(c.crit[3] > c.crit[2], "{} vs {}", c.crit[3], c.crit[2]);
        // 5 instructions behind at CPI 19/5 plus 14 stall cycles, as of its last issue (18).
        assert_eq!(c.value(3, 19), 5 * 19 / 5 + 14);
        // Each cycle without an issue adds a stall cycle.
        assert_eq!(c.value(3, 29), 5 * 19 / 5 + 14 + 10);
    }

    /// Algorithm 6 (the default): a warp's stall cycles enter its counter when it issues (line
    /// 7), so between two issues its counter holds; at each of its issues it equals the
    /// counter of the accruing rule (the same gaps, only added later).
    #[test]
    fn at_issue_counters_hold_between_issues_and_match_accruing_at_each_issue() {
        assert_eq!(Cpl::default().stall, Stall::AtIssue);
        let mut lit = Cpl::default();
        let mut acc = Cpl::default().with_stall(Stall::Accruing);
        for c in [&mut lit, &mut acc] {
            c.start(0, 0);
            c.start(1, 0);
        }
        // Warp 0 issues every cycle, warp 1 every 7th with a loop back-edge each time.
        let mut held = None;
        for t in 0..70u64 {
            for c in [&mut lit, &mut acc] {
                c.on_issue(0, t as u32, t, 0b11);
            }
            if t % 7 == 3 {
                for c in [&mut lit, &mut acc] {
                    c.on_issue(1, 5 + (t % 2) as u32, t, 0b11);
                }
                // (The accruing counter is kept as the next cycle will find it.)
                assert_eq!(
                    lit.value(1, t),
                    acc.value(1, t + 1),
                    "at its issue, cycle {t}"
                );
                held = Some((lit.value(1, t), t));
            } else if let Some((h, at)) = held {
                assert_eq!(lit.value(1, t), h, "held between issues, cycle {t}");
                let waited = (t - at - 1) as i64;
                assert_eq!(acc.value(1, t), h + waited, "accruing grows while it waits");
            }
        }
        assert_eq!(lit.n_stall(1), acc.n_stall(1));
        assert!(lit.is_critical(1, 0b11) && acc.is_critical(1, 0b11));
        assert_eq!(Stall::parse("at_issue"), Some(Stall::AtIssue));
        assert_eq!(Stall::parse("accruing"), Some(Stall::Accruing));
        assert_eq!(Stall::parse("never"), None, "{:?}", Stall::NAMES);
    }

    /// §4.2.1: the stall cycles between two issues count for every warp while they accrue. A warp
    /// that stops issuing (waiting on memory, or passed over by the scheduler) overtakes one that
    /// keeps issuing, before it issues again.
    #[test]
    fn a_waiting_warp_gains_criticality_before_it_issues_again() {
        let mut c = Cpl::default().with_stall(Stall::Accruing);
        c.start(0, 0);
        c.start(1, 0);
        c.on_issue(0, 0, 0, 0b11);
        c.on_issue(1, 0, 1, 0b11);
        // Warp 0 runs straight on; warp 1 waits.
        for t in 2..40u64 {
            c.on_issue(0, t as u32, t, 0b11);
        }
        assert_eq!(
            c.value(1, 40),
            39,
            "1 stall cycle before its first issue, 38 since"
        );
        assert!(c.is_critical(1, 0b11));
        assert!(!c.is_critical(0, 0b11));
        // The waiting warp ranks in the slower half of every sample.
        c.sample(0b11, 0, 40);
        assert_eq!(c.record(1), (1, 1));
        assert_eq!(c.record(0), (0, 1));
    }

    /// CACP's `IsCriticalWarp(req.WarpID)` (Lee 2017 Algorithm 8) is evaluated inside
    /// `ATHIT(req)`, when the request reaches the L1D, on the counters of that cycle: the
    /// answer for the warp that issued a load can change before the load's access, because the
    /// other warps of its TB issue in between (Algorithm 6 updates each at its issue). The SM
    /// therefore asks [`Cpl::is_critical`] at every L1D access (`Sm::ldst_step`), not once when
    /// the load issues (the departure of sessions 11-15).
    #[test]
    fn is_critical_warp_is_read_at_the_access_not_at_the_loads_issue() {
        let mut c = Cpl::default();
        for w in 0..3 {
            c.start(w, 0);
        }
        // Cycle 10: warp 0 issues a load after waiting since dispatch (warp 2 issued at 5):
        // nStall 10, the TB's most critical warp at the load's issue.
        c.on_issue(2, 0, 5, 0b111);
        c.on_issue(0, 0, 10, 0b111);
        assert!(c.is_critical(0, 0b111), "critical when its load issues");
        // Cycle 14: warp 1 issues its first instruction (14 stall cycles) while warp 0's load
        // waits for the LD/ST unit.
        c.on_issue(1, 0, 14, 0b111);
        // Cycle 15: the load's access. Algorithm 8 reads the counters of now: warp 0 is no
        // longer the critical warp, so a hit of that load sets `nc_reuse` and leaves CCBP.
        assert!(!c.is_critical(0, 0b111), "not critical at its access");
        assert!(c.is_critical(1, 0b111));
        assert_eq!((c.value(0, 15), c.value(1, 15)), (10, 14));
    }

    #[test]
    fn top_half_rule_marks_the_slower_half_of_the_tb() {
        let mut c = Cpl::new(Critical::TopHalf);
        c.crit[..4].copy_from_slice(&[5, 1, 9, 3]);
        let tb = 0b1111;
        let crit: Vec<bool> = (0..4).map(|w| c.is_critical(w, tb)).collect();
        assert_eq!(crit, vec![true, false, true, false]);
        assert!(
            c.is_critical(0, 0b1),
            "a lone warp is its TB's critical warp"
        );
        c.crit[1] = 5;
        assert!(
            !c.is_critical(1, 0b11) && !c.is_critical(0, 0b11),
            "ties: neither"
        );
    }

    /// The default rule: one critical warp per TB, the slowest by CPL's counter, whatever the
    /// TB's size; the slow-warp (top-half) accuracy samples are unaffected by the rule.
    #[test]
    fn slowest_rule_marks_one_warp_per_tb() {
        let mut c = Cpl::default();
        assert_eq!(c.rule, Critical::Slowest);
        c.crit[..6].copy_from_slice(&[5, 1, 9, 3, 7, 7]);
        let crit: Vec<bool> = (0..4).map(|w| c.is_critical(w, 0b1111)).collect();
        assert_eq!(crit, vec![false, false, true, false]);
        // Two TBs of the same SM: each has its own critical warp.
        assert!(c.is_critical(0, 0b0011) && !c.is_critical(1, 0b0011));
        // Ties go to the lowest slot: exactly one critical warp.
        let crit: Vec<bool> = (4..6).map(|w| c.is_critical(w, 0b110000)).collect();
        assert_eq!(crit, vec![true, false]);
        assert!(c.is_critical(3, 0b1000), "a lone warp is critical");
        // Top half would have marked warps 0 and 2 of the four.
        c.sample(0b1111, 0, 0);
        assert_eq!(c.record(0), (1, 1));
        assert_eq!(
            Critical::parse("top_half"),
            Some(Critical::TopHalf),
            "{:?}",
            Critical::NAMES
        );
        assert_eq!(Critical::parse("slowest"), Some(Critical::Slowest));
        assert_eq!(Critical::parse("fastest"), None);
    }

    #[test]
    fn accuracy_samples_rank_each_warp() {
        let mut c = Cpl::default();
        c.crit[..4].copy_from_slice(&[5, 1, 9, 3]);
        c.sample(0b1111, 0, 0);
        c.sample(0b1111, 0, 128);
        assert_eq!(c.record(0), (2, 2));
        assert_eq!(c.record(2), (2, 2));
        assert_eq!(c.record(1), (0, 2));
        assert_eq!(c.record(3), (0, 2));
        // Two warps: only the higher (or a tie); a lone warp always.
        c.sample(0b0011, 0, 256);
        assert_eq!(c.record(0), (3, 3));
        assert_eq!(c.record(1), (0, 3));
        c.sample(0b0010, 0, 384);
        assert_eq!(c.record(1), (1, 4));
    }

    /// The two readings of "slow" (Lee 2017 §4.3.3 and its footnote 2) part only in TBs with an
    /// even number of warps, at the rank just below the median; each sample also records the
    /// chance level of its reading.
    #[test]
    fn inclusive_reading_counts_the_warp_itself_and_chance_follows_the_tb_size() {
        let mut c = Cpl::default();
        // Four warps, counters 5 1 9 3: ranks 9 > 5 > 3 > 1.
        c.crit[..4].copy_from_slice(&[5, 1, 9, 3]);
        c.sample(0b1111, 0, 0);
        let m: Vec<(u64, u64)> = (0..4)
            .map(|w| (c.marks(w).top, c.marks(w).top_inclusive))
            .collect();
        // Strict: the top two (9, 5). Inclusive: the top three (itself and one other of four
        // are half the TB): 3 counts too, 1 never.
        assert_eq!(m, vec![(1, 1), (0, 0), (1, 1), (0, 1)]);
        // Chance with four warps: 2/4 strict, 3/4 inclusive.
        assert_eq!(c.marks(3).chance_ppm, 500_000);
        assert_eq!(c.marks(3).chance_inclusive_ppm, 750_000);
        // Two warps: the lower one is slow only under the inclusive reading (footnote 2: a TB of
        // one or two warps scores 100%); both readings give the higher one.
        let mut c = Cpl::default();
        c.crit[..2].copy_from_slice(&[4, 2]);
        c.sample(0b11, 0, 0);
        assert_eq!((c.marks(1).top, c.marks(1).top_inclusive), (0, 1));
        assert_eq!((c.marks(0).top, c.marks(0).top_inclusive), (1, 1));
        assert_eq!(c.marks(1).chance_ppm, 500_000);
        assert_eq!(c.marks(1).chance_inclusive_ppm, 1_000_000);
        // Odd sizes: the readings agree (three warps: the top two; chance 2/3 both).
        let mut c = Cpl::default();
        c.crit[..3].copy_from_slice(&[1, 2, 3]);
        c.sample(0b111, 0, 0);
        for w in 0..3 {
            assert_eq!(c.marks(w).top, c.marks(w).top_inclusive);
            assert_eq!(c.marks(w).chance_ppm, 666_666);
            assert_eq!(c.marks(w).chance_inclusive_ppm, 666_666);
        }
        assert_eq!([c.marks(0).top, c.marks(1).top, c.marks(2).top], [0, 1, 1]);
        // A lone warp: slow under both, chance 1.
        let mut c = Cpl::default();
        c.sample(0b1, 0, 0);
        assert_eq!(
            c.marks(0),
            Marks {
                samples: 1,
                top: 1,
                top_inst: 1,
                top_stall: 1,
                top_inclusive: 1,
                chance_ppm: 1_000_000,
                chance_inclusive_ppm: 1_000_000
            }
        );
    }

    /// Replays `events` (core cycle, warp slot, static instruction index) in time order (same
    /// cycle: lower slot first) for a TB of warp slots `tb`, all dispatched at cycle 0.
    fn replay(c: &mut Cpl, tb: u64, events: &[(u64, usize, u32)]) {
        let mut m = tb;
        while m != 0 {
            c.start(m.trailing_zeros() as usize, 0);
            m &= m - 1;
        }
        let mut ev = events.to_vec();
        ev.sort_unstable();
        for (t, w, idx) in ev {
            c.on_issue(w, idx, t, tb);
        }
    }

    /// A hand-built history of one TB of three warps over Algorithm 5's code with a loop
    /// around it, ranked by Eq. 4.1 worked out by hand (spec 000 §4.3):
    ///
    /// ```text
    /// 0: PC1  @p0 bra L2 (-> 3)    3: PC4  sub           6: exit
    /// 1: PC2  add                  4: PC5  mov
    /// 2: PC3  bra L3 (-> 4)        5: @p1 bra L0 (-> 0, the loop's back-edge)
    /// ```
    ///
    /// * warp 1, not taken at PC1, leaves the loop: 0 1 2 4 5 6 at cycles 0 1 2 7 8 11. nInst:
    ///   six commits (-6) and the skipped PC4 (-1) = -7; nStall = (7-2-1) + (11-8-1) = 6.
    /// * warp 2, divergent (both paths), leaves the loop: 0..=6 at cycles 1..=6 and 9; nInst =
    ///   -7 (no skip); nStall = 1 (dispatch to first issue) + (9-6-1) = 3.
    /// * warp 0, taken at PC1, loops once more: 0 3 4 5 0 at cycles 12 13 14 15 20. nInst: five
    ///   commits (-5), PC2..PC3 skipped (-2), the back-edge re-runs 0..=5 (+6) = -1; nStall =
    ///   12 + (20-15-1) = 16.
    ///
    /// Relative to the TB's leader (-7) warp 0 is 6 instructions behind at CPI 21/5 (cycle 20
    /// is its 21st since dispatch, 5 issued): nCriticality = 6 * 21 / 5 + 16 = 25 + 16 = 41.
    /// Warps 1 and 2 lead (nInst -7): their counters are their nStall, 6 and 3. The ranking is
    /// 0, 1, 2: the warp that started last and still has a loop iteration to run is the
    /// critical one, then the warp with more stall cycles.
    #[test]
    fn eq_4_1_ranks_a_hand_built_tb() {
        let events = [
            (0, 1, 0),
            (1, 1, 1),
            (2, 1, 2),
            (7, 1, 4),
            (8, 1, 5),
            (11, 1, 6),
            (1, 2, 0),
            (2, 2, 1),
            (3, 2, 2),
            (4, 2, 3),
            (5, 2, 4),
            (6, 2, 5),
            (9, 2, 6),
            (12, 0, 0),
            (13, 0, 3),
            (14, 0, 4),
            (15, 0, 5),
            (20, 0, 0),
        ];
        let tb = 0b111;
        for stall in [Stall::AtIssue, Stall::Accruing] {
            let mut c = Cpl::default().with_stall(stall);
            replay(&mut c, tb, &events);
            assert_eq!([c.n_inst(0), c.n_inst(1), c.n_inst(2)], [-1, -7, -7]);
            assert_eq!([c.n_stall(0), c.n_stall(1), c.n_stall(2)], [16, 6, 3]);
            // At cycle 21: as of the last issues (at issue), plus the cycles each warp has
            // waited since (accruing: 0, 9 and 11).
            let want = match stall {
                Stall::AtIssue => [41, 6, 3],
                Stall::Accruing => [41, 6 + 9, 3 + 11],
            };
            let got: Vec<i64> = (0..3).map(|w| c.value(w, 21)).collect();
            assert_eq!(got, want, "{stall:?}");
            assert!(c.is_critical(0, tb) && !c.is_critical(1, tb) && !c.is_critical(2, tb));
            // The slow half at cycle 21: warp 0 is above both others, warp 1 above one of two.
            c.sample(tb, 0, 21);
            assert_eq!(
                [c.record(0), c.record(1), c.record(2)],
                [(1, 1), (1, 1), (0, 1)]
            );
        }
    }

    /// §8.2's accuracy: the oracle critical warp is the TB's longest-running warp (not simply
    /// its last to exit), and the TB's exited warps keep the counters they exited with in the
    /// later samples (a lone live warp is not slow by default).
    #[test]
    fn accuracy_scores_the_longest_running_warp_against_all_of_its_tb() {
        let mut c = Cpl::default();
        // Warp 2 was dispatched later (cycle 50) than warps 0 and 1 (cycle 0).
        c.start(0, 0);
        c.start(1, 0);
        c.start(2, 50);
        c.crit[..3].copy_from_slice(&[10, 20, 30]);
        c.sample(0b111, 0, 128);
        // Warp 1 exits (after 300 cycles) with its counter at 20.
        c.exit(1, 0, 300);
        c.crit[0] = 25;
        // Live: warp 0 (25) and warp 2 (30); exited: warp 1 (20). Warp 0 is now above one of
        // its two others: slow.
        c.sample(0b101, 0, 256);
        assert_eq!(c.record(0), (1, 2));
        assert_eq!(c.record(2), (2, 2));
        c.exit(0, 0, 400);
        c.exit(2, 0, 420);
        // Execution times 300, 400 and 370: warp 0 is the oracle, though warp 2 exits last.
        let r = c.tb_done(0);
        assert_eq!((r.marks.top, r.marks.samples), (1, 2));
        // Spread (400 - 300) / 400; lifetime from the first dispatch (0) to the last exit (420).
        assert_eq!((r.spread_ppm, r.lifetime), (250_000, 420));
        assert!(r.has_spread());
        assert_eq!(
            c.tb_done(0),
            TbRecord::default(),
            "the record is cleared with the TB"
        );
        // Another TB (CTA slot 1): once warp 4 has exited with counter 9, warp 3 alone is
        // slow only while its counter is at least 9.
        c.start(3, 1000);
        c.start(4, 1000);
        c.crit[3] = 8;
        c.crit[4] = 9;
        c.exit(4, 1, 1100);
        c.sample(0b01000, 1, 1152);
        assert_eq!(c.record(3), (0, 1), "below the exited warp's 9");
        c.crit[3] = 12;
        c.sample(0b01000, 1, 1280);
        c.exit(3, 1, 1300);
        let r = c.tb_done(1);
        assert_eq!((r.marks.top, r.marks.samples), (1, 2));
        // Execution times 100 and 300; dispatched at 1000, last exit 1300.
        assert_eq!((r.spread_ppm, r.lifetime), (666_666, 300));
    }

    /// Issue #12 task 3: a TB whose warps finish within 1% of each other has no real critical
    /// warp; the record says so, and a lone warp has no spread.
    #[test]
    fn tb_record_measures_the_spread_of_warp_times() {
        let mut c = Cpl::default();
        c.start(0, 100);
        c.start(1, 100);
        c.exit(0, 0, 1100);
        c.exit(1, 0, 1109);
        let r = c.tb_done(0);
        assert_eq!(r.spread_ppm, 9 * 1_000_000 / 1009);
        assert!(!r.has_spread(), "0.9% is noise");
        c.start(0, 2000);
        c.start(1, 2000);
        c.exit(1, 0, 2990);
        c.exit(0, 0, 3000);
        let r = c.tb_done(0);
        assert_eq!(r.spread_ppm, SPREAD_MIN_PPM, "exactly 1%");
        assert!(r.has_spread());
        assert_eq!(r.lifetime, 1000);
        c.start(5, 0);
        c.exit(5, 3, 50);
        let r = c.tb_done(3);
        assert_eq!((r.spread_ppm, r.lifetime), (0, 50));
        assert!(!r.has_spread());
    }
}
