//! IM, the proposal's interference-mitigation policy (spec 004 §5.4-§5.6, §3), on IM's order:
//! row hit, then CG / CPU-E above CPU above NG, then age. The CPU above the non-critical GPU is
//! the document's §4.3 rule ("The CPU accesses are given higher priority than the non-critical
//! GPU accesses except in one situation", the exception being the all-GPU probe), which
//! GPU-favoring applies too by default (`gpu_favoring.rs`, `policy.gpu_favoring_cpu_over_ng`),
//! so IM is GPU-favoring plus its two components (§6.1.3) and the probe; IM keeps the rule
//! whatever GPU-favoring's key says (`policy.im_cpu_over_ng` drops it, an ablation):
//! * **IM-SCHED**: per interval, `f` = fraction of the CPU reads pending at the controllers
//!   during the interval (pending at its start or arrived in it; `policy.
//!   im_sched_pending_denominator`, the default since session 19; `false`, an ablation: of the
//!   CPU reads served in it) that a younger critical GPU
//!   (CG) request went ahead of, in the read queue (a command issued) or on entering it (a full
//!   queue's admission); next interval, each CPU read arriving at a controller
//!   (`policy.im_sched_draw_on_arrival`, the default since session 19, so a winner also wins
//!   admission to a full read queue; `false`, an ablation: on entering the read queue) wins a
//!   draw with probability `min(f, cap)` (§5.4: the probability is "that a given CPU access" is
//!   prioritised; `policy.im_sched_per_request`, the default), and a read that wins ranks
//!   **above** CG (and CPU-E) for the interval, row hits still first; at each interval start
//!   every CPU read still pending draws again with the new probability (§5.4: "In an
//!   interval, a CPU request is prioritized over a pending critical GPU request with this
//!   probability"; `policy.im_sched_redraw_each_interval`, the default since session 24;
//!   `false`, an ablation, sessions 17-23: one draw per read, a winner promoted until served
//!   and a loser never) (§5.4: "a CPU request is
//!   prioritized over a pending critical GPU request with this probability";
//!   `policy.im_sched_above_cg`, the default since session 18; `false`, an ablation, ranks it
//!   with CG by age, sessions 16-17). In an all-GPU window (§5.6: all GPU accesses get "the
//!   highest DRAM priority") a winner ranks with the GPU reads by age.
//!   `policy.im_sched_per_request = false` (an ablation, the GPGPU mixes' rule until session
//!   16) draws instead at each decision whose best candidate is CG, swapping in the best CPU
//!   read.
//! * **IM-LLC**: per interval each CPU application is classed by LLC miss rate (L <= 10% < M <=
//!   70% < H); an L->M or L->H move enters emergency mode (its reads rank with CG); at an interval
//!   end an emergency application back in L stays, one still in M or H leaves.
//! * **All-GPU probe** (GPGPU only, no frame in progress): after the first window (a baseline
//!   IPC), then `probe_period` cycles after each probe ends, all GPU requests get the top level
//!   for a `probe_window`; the mode is kept for one more window while the GPU's IPC of a window
//!   beats the previous window's by more than `probe_tolerance`. The preset scales the window
//!   to 10K GPU cycles (the document's 100K is longer than most of our runs) \[INTERP\].
//! * **LLC bypass** (§3, "The non-critical shader accesses that miss in the LLC bypass the
//!   LLC"): a non-critical GPGPU read miss is served without allocating, a non-critical GPGPU
//!   store miss is written around the LLC to DRAM (`policy.gpgpu_store_bypass`, on in the
//!   preset since session 15: each store reaches the LLC with the bit its instruction was
//!   marked with, `hetero-gpu`'s thin L2 being write-through);
//!   in all-GPU windows too (§5.6's mode changes DRAM priority only, the document exempts
//!   nothing from §3). A later access to a bypassed block misses the LLC again (the GPU side is
//!   non-inclusive: its L1D may still hold it) and allocates only if it is critical.
//!   `policy.gpgpu_read_bypass = false` / `gpgpu_store_bypass = false` turn either part off
//!   (ablations).
//!
//! Ablations (registered policies): `im_sched`, `im_llc` (each alone, no bypass, no probe) and
//! `im_bypass` (the §3 bypass alone), all on IM's order (CG above CPU above NG).
//!
//! \[INTERP\] choices (§10.4 items 12-16): counting and intervals as above, the Bernoulli draw
//! per CPU read on arriving at the controller and again at each interval start while pending;
//! IM-SCHED stays on for non-emergency CPU reads while IM-LLC is active.

use super::{best_by, Cand, Ctx, MemPolicy};
use crate::config::PolicyConfig;
use crate::dram::DramEntry;
use crate::fasthash::FastSet;
use crate::req::{Request, Source};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const MAX_APPS: usize = 64;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Class {
    L,
    M,
    H,
}

struct Im {
    bypass: bool,
    sched: bool,
    llc: bool,
    probe: bool,
    c: PolicyConfig,
    rng: ChaCha8Rng,
    // IM-SCHED.
    p: f64,
    /// CPU reads in the read queues that won their IM-SCHED draw
    /// (`policy.im_sched_per_request`), by token.
    promoted: FastSet<u64>,
    /// CPU reads that met IM-SCHED's per-request draw (`im_sched_per_request`; outside
    /// emergency mode) and those that won it (a diagnostic: the share of CPU reads promoted).
    drawn: u64,
    won: u64,
    /// `im_sched_redraw_each_interval`: the CPU reads that had their draw and are still
    /// pending, by token (ordered, so that the redraws take the generator's numbers in a fixed
    /// order), and the redraws made and won.
    drawable: std::collections::BTreeMap<u64, Source>,
    redrawn: u64,
    rewon: u64,
    /// Never iterated: fast deterministic hashing (docs/PERFORMANCE.md, "Session 14").
    deprio: FastSet<u64>,
    served_cpu: u64,
    deprio_cpu: u64,
    /// `im_sched_pending_denominator`: the CPU reads at the controllers now (arrived, not
    /// served), those pending during this interval (pending at its start or arrived in it),
    /// and those de-prioritised during it (each once).
    pending_now: u64,
    pending_iv: u64,
    deprio_iv: FastSet<u64>,
    /// Where each de-prioritisation counted in `f` was first seen (a diagnostic): a younger CG
    /// entering a full read queue ahead of the CPU read (admission, [`MemPolicy::admit`]) or a
    /// younger CG's command issued ahead of it in the queue ([`MemPolicy::on_issue`]). Each CPU
    /// read counts once per interval (`im_sched_pending_denominator`) or once per stay (the
    /// served-denominator ablation), as in `f`'s numerator.
    deprio_at_admission: u64,
    deprio_at_issue: u64,
    /// A diagnostic shadow of `f` (`im_sched_pending_denominator` only) that counts the
    /// de-prioritisations at command issue alone, as if admission did not count: the CPU reads
    /// a younger CG's command went ahead of during this interval (each once), and the
    /// intervals in which that fraction exceeds the cap, with the sum of its capped values.
    deprio_issue_iv: FastSet<u64>,
    capped_issue_only: u64,
    p_issue_only_sum: f64,
    interval_end: u64,
    intervals: u64,
    capped: u64,
    /// IM-SCHED intervals in which no CPU read was served (f taken as 0).
    empty: u64,
    p_sum: f64,
    // IM-LLC.
    acc: Vec<u64>,
    miss: Vec<u64>,
    prev: Vec<Option<Class>>,
    emergency: u64,
    emergency_intervals: u64,
    // Probe.
    all_gpu: bool,
    window_end: u64,
    window_insts: u64,
    last_ipc: f64,
    next_probe: u64,
    windows: u64,
    all_gpu_windows: u64,
    /// Probes started (a normal window followed by an all-GPU one).
    probes: u64,
    /// All-GPU windows extended by one more because their IPC beat the previous window's.
    kept: u64,
    /// Memory cycles ticked, and those spent in all-GPU mode.
    ticked: u64,
    all_gpu_cycles: u64,
    last_tick: u64,
    /// The probe's IPC comparisons (diagnostics, §5.6): each all-GPU window's IPC over the
    /// previous window's, `probe_tolerance` the band. Above the band (the mode is kept), within
    /// it ("equal": the mode ends), below it (worse: the mode ends).
    cmp_above: u64,
    cmp_equal: u64,
    cmp_below: u64,
    /// Of the comparisons above, those of a probe's first all-GPU window against the normal
    /// window before it; the sums of the ratios of first and of later all-GPU windows.
    first_above: u64,
    first_ratio_sum: f64,
    first_cmps: u64,
    later_ratio_sum: f64,
    later_cmps: u64,
    /// Windows the current probe has been extended by, and the most any probe was.
    cur_ext: u64,
    max_ext: u64,
    /// The same comparison between two consecutive normal windows (no all-GPU mode in
    /// either): how often IPC rises above the band with no change of priority (the noise a
    /// probe's comparison sees).
    normal_pairs: u64,
    normal_above: u64,
    /// Whether the window that just ended was a normal window (no all-GPU mode).
    last_normal: bool,
    /// The run's first probe (it follows window 0, the GPU's start-up): its first window's
    /// IPC over window 0's, and its all-GPU windows (1 + its extensions).
    startup_ratio: f64,
    startup_windows: u64,
    /// Window 0's IPC and the instructions of all completed windows (window 0's IPC over the
    /// run's mean shows how far the start-up is from a steady window).
    window0_ipc: f64,
    windows_insts: u64,
    /// The CPU reads served over the run, those served in all-GPU mode and those in the normal
    /// window right after a probe ends (whose cycles `after_cycles` counts): how much of the
    /// CPUs' DRAM service the probe's windows take and whether it comes back after them.
    cpu_served_total: u64,
    cpu_served_in_mode: u64,
    cpu_served_after: u64,
    after_probe: bool,
    after_cycles: u64,
}

impl Im {
    fn make(c: &PolicyConfig, sched: bool, llc: bool, probe: bool) -> Self {
        Self::with_bypass(c, sched, llc, probe, sched && llc && probe)
    }

    fn with_bypass(c: &PolicyConfig, sched: bool, llc: bool, probe: bool, bypass: bool) -> Self {
        Self {
            bypass,
            sched,
            llc,
            probe,
            c: c.clone(),
            rng: ChaCha8Rng::seed_from_u64(c.seed),
            p: 0.0,
            promoted: FastSet::default(),
            drawn: 0,
            won: 0,
            drawable: std::collections::BTreeMap::new(),
            redrawn: 0,
            rewon: 0,
            deprio: FastSet::default(),
            served_cpu: 0,
            deprio_cpu: 0,
            pending_now: 0,
            pending_iv: 0,
            deprio_iv: FastSet::default(),
            deprio_at_admission: 0,
            deprio_at_issue: 0,
            deprio_issue_iv: FastSet::default(),
            capped_issue_only: 0,
            p_issue_only_sum: 0.0,
            interval_end: c.interval,
            intervals: 0,
            empty: 0,
            capped: 0,
            p_sum: 0.0,
            acc: vec![0; MAX_APPS],
            miss: vec![0; MAX_APPS],
            prev: vec![None; MAX_APPS],
            emergency: 0,
            emergency_intervals: 0,
            all_gpu: false,
            window_end: c.probe_window,
            window_insts: 0,
            last_ipc: 0.0,
            // The first probe follows the first window (a baseline IPC), later ones come
            // `probe_period` after the previous one ends: a probe only after a whole period
            // would never run in our short runs (\[INTERP\] §10.4 item 16: no cadence given).
            next_probe: c.probe_window,
            windows: 0,
            all_gpu_windows: 0,
            probes: 0,
            kept: 0,
            ticked: 0,
            all_gpu_cycles: 0,
            last_tick: 0,
            cmp_above: 0,
            cmp_equal: 0,
            cmp_below: 0,
            first_above: 0,
            first_ratio_sum: 0.0,
            first_cmps: 0,
            later_ratio_sum: 0.0,
            later_cmps: 0,
            cur_ext: 0,
            max_ext: 0,
            normal_pairs: 0,
            normal_above: 0,
            last_normal: false,
            startup_ratio: 0.0,
            startup_windows: 0,
            window0_ipc: 0.0,
            windows_insts: 0,
            cpu_served_total: 0,
            cpu_served_in_mode: 0,
            cpu_served_after: 0,
            after_probe: false,
            after_cycles: 0,
        }
    }

    /// IM-SCHED's event (§5.4): `chosen`, a CG request, goes ahead of the older CPU requests
    /// among `others`; each of them counts once towards `f` when it is served. `admission`:
    /// `chosen` enters a full read queue (else its command issued).
    fn mark_deprioritised(&mut self, chosen: &Cand, others: &[Cand], admission: bool) {
        if self.sched && chosen.is_cg() {
            for x in others {
                let overtaken = if self.c.im_sched_overtake {
                    x.frfcfs_key() < chosen.frfcfs_key()
                } else {
                    x.arrival < chosen.arrival
                };
                if !x.source.is_gpu() && overtaken {
                    let first = if self.c.im_sched_pending_denominator {
                        self.deprio_iv.insert(x.tok)
                    } else {
                        self.deprio.insert(x.tok)
                    };
                    if first && admission {
                        self.deprio_at_admission += 1;
                    } else if first {
                        self.deprio_at_issue += 1;
                    }
                    if !admission && self.c.im_sched_pending_denominator {
                        self.deprio_issue_iv.insert(x.tok);
                    }
                }
            }
        }
    }

    /// IM-SCHED's per-read draw (`im_sched_per_request`): at the read's arrival at the
    /// controller (`im_sched_draw_on_arrival`, the default) or on entering the read queue.
    fn draw(&mut self, e: &DramEntry) {
        if !self.sched || !self.c.im_sched_per_request || e.source.is_gpu() {
            return;
        }
        if self.c.im_sched_redraw_each_interval {
            self.drawable.insert(e.tok, e.source);
        }
        if self.emergency_of(e.source) {
            return;
        }
        self.drawn += 1;
        // The generator is asked only when p > 0 (as before the counters existed), so the
        // draws and every result stay those of the rule without them.
        if self.p > 0.0 && self.rng.gen_bool(self.p) {
            self.won += 1;
            self.promoted.insert(e.tok);
        }
    }

    /// `im_sched_redraw_each_interval` (§5.4, "In an interval, a CPU request is prioritized over
    /// a pending critical GPU request with this probability"): at an interval's start every CPU
    /// read still pending draws with the new probability; a winner is promoted for the interval,
    /// a loser (or any read while p = 0) is not. Reads of emergency-mode applications rank with
    /// CG anyway and draw nothing.
    fn redraw(&mut self) {
        let toks: Vec<(u64, Source)> = self.drawable.iter().map(|(&t, &s)| (t, s)).collect();
        for (tok, src) in toks {
            if self.emergency_of(src) {
                continue;
            }
            self.redrawn += 1;
            if self.p > 0.0 && self.rng.gen_bool(self.p) {
                self.rewon += 1;
                self.promoted.insert(tok);
            } else {
                self.promoted.remove(&tok);
            }
        }
    }

    fn emergency_of(&self, s: Source) -> bool {
        s.cpu().is_some_and(|i| self.emergency >> i & 1 == 1)
    }

    /// 0 = a CPU read that won its per-request IM-SCHED draw (`im_sched_above_cg`, outside
    /// all-GPU windows); 1 = CG, CPU-E (and every GPU request in an all-GPU window, and a
    /// promoted CPU read with `im_sched_above_cg = false` or in such a window); 2 = CPU; 3 = NG
    /// (2 with `policy.im_cpu_over_ng = false`, an ablation).
    fn level(&self, c: &Cand) -> u8 {
        if c.source.is_gpu() {
            if c.critical || self.all_gpu {
                1
            } else if self.c.im_cpu_over_ng {
                3
            } else {
                2
            }
        } else if self.emergency_of(c.source) {
            1
        } else if self.promoted.contains(&c.tok) {
            if self.c.im_sched_above_cg && !self.all_gpu {
                0
            } else {
                1
            }
        } else {
            2
        }
    }

    fn class(&self, i: usize) -> Option<Class> {
        if self.acc[i] == 0 {
            return None;
        }
        let r = self.miss[i] as f64 / self.acc[i] as f64;
        Some(if r <= self.c.im_llc_low {
            Class::L
        } else if r <= self.c.im_llc_high {
            Class::M
        } else {
            Class::H
        })
    }

    fn end_interval(&mut self) {
        self.intervals += 1;
        if self.sched {
            let (num, den) = if self.c.im_sched_pending_denominator {
                (self.deprio_iv.len() as u64, self.pending_iv)
            } else {
                (self.deprio_cpu, self.served_cpu)
            };
            let f = if den == 0 {
                self.empty += 1;
                0.0
            } else {
                num as f64 / den as f64
            };
            if f > self.c.im_sched_cap {
                self.capped += 1;
            }
            self.p = f.min(self.c.im_sched_cap);
            self.p_sum += self.p;
            if den > 0 && self.c.im_sched_pending_denominator {
                let f_issue = self.deprio_issue_iv.len() as f64 / den as f64;
                self.capped_issue_only += (f_issue > self.c.im_sched_cap) as u64;
                self.p_issue_only_sum += f_issue.min(self.c.im_sched_cap);
            }
            self.deprio_issue_iv.clear();
            if self.c.im_sched_per_request && self.c.im_sched_redraw_each_interval {
                self.redraw();
            }
            self.served_cpu = 0;
            self.deprio_cpu = 0;
            self.deprio_iv.clear();
            self.pending_iv = self.pending_now;
        }
        if self.llc {
            for i in 0..MAX_APPS {
                let Some(cl) = self.class(i) else {
                    continue;
                };
                let bit = 1u64 << i;
                if self.emergency & bit != 0 {
                    if cl != Class::L {
                        self.emergency &= !bit;
                    }
                } else if self.prev[i] == Some(Class::L) && cl != Class::L {
                    self.emergency |= bit;
                }
                self.prev[i] = Some(cl);
                self.acc[i] = 0;
                self.miss[i] = 0;
            }
            if self.emergency != 0 {
                self.emergency_intervals += 1;
            }
        }
    }

    fn end_window(&mut self, insts: u64) {
        self.windows += 1;
        let ipc = (insts - self.window_insts) as f64 / self.c.probe_window as f64;
        self.windows_insts += insts - self.window_insts;
        if self.windows == 1 {
            self.window0_ipc = ipc;
        }
        self.window_insts = insts;
        let tol = self.c.probe_tolerance;
        let ratio = if self.last_ipc > 0.0 {
            ipc / self.last_ipc
        } else if ipc > 0.0 {
            f64::INFINITY
        } else {
            1.0
        };
        let above = ipc > self.last_ipc * (1.0 + tol);
        if self.all_gpu {
            self.all_gpu_windows += 1;
            // Diagnostics of the comparison (they decide nothing).
            if above {
                self.cmp_above += 1;
            } else if ipc >= self.last_ipc * (1.0 - tol) {
                self.cmp_equal += 1;
            } else {
                self.cmp_below += 1;
            }
            if self.probes == 1 {
                self.startup_windows += 1;
                if self.last_normal {
                    self.startup_ratio = ratio.min(10.0);
                }
            }
            if self.last_normal {
                self.first_cmps += 1;
                self.first_ratio_sum += ratio.min(10.0);
                self.first_above += above as u64;
            } else {
                self.later_cmps += 1;
                self.later_ratio_sum += ratio.min(10.0);
            }
            if !above {
                self.all_gpu = false;
                self.after_probe = true;
                self.next_probe = self.window_end + self.c.probe_period;
                self.cur_ext = 0;
            } else {
                self.kept += 1;
                self.cur_ext += 1;
                self.max_ext = self.max_ext.max(self.cur_ext);
            }
            self.last_normal = false;
        } else {
            if self.last_normal {
                self.normal_pairs += 1;
                self.normal_above += above as u64;
            }
            self.last_normal = true;
            self.after_probe = false;
            if self.window_end >= self.next_probe {
                self.all_gpu = true;
                self.probes += 1;
            }
        }
        self.last_ipc = ipc;
    }
}

impl MemPolicy for Im {
    fn pick(&mut self, _: &Ctx, c: &[Cand]) -> Option<usize> {
        let best = best_by(c, |x| (!x.row_hit, self.level(x), x.arrival, x.tok))?;
        let b = &c[best];
        let per_decision = !self.c.im_sched_per_request;
        if per_decision && self.sched && self.p > 0.0 && b.is_cg() && !self.all_gpu {
            let cpu = best_by(c, |x| {
                (
                    x.source.is_gpu() || self.emergency_of(x.source),
                    !x.row_hit,
                    x.arrival,
                    x.tok,
                )
            })?;
            let x = &c[cpu];
            let overtaken = !self.c.im_sched_overtake || x.frfcfs_key() < b.frfcfs_key();
            if !x.source.is_gpu()
                && !self.emergency_of(x.source)
                && overtaken
                && self.rng.gen_bool(self.p)
            {
                return Some(cpu);
            }
        }
        Some(best)
    }

    fn admit(&mut self, ctx: &Ctx, _: usize, waiting: &[Cand]) -> usize {
        let k = if self.c.im_admit_cpu_over_ng {
            self.pick(ctx, waiting).unwrap_or(0)
        } else {
            // `policy.im_admit_cpu_over_ng = false` (ablation): the CPU and NG reads enter by
            // row hit and age; the classes above them keep their rank (no per-decision draw of
            // `im_sched_per_request = false` is made at admission).
            best_by(waiting, |x| {
                (!x.row_hit, self.level(x).min(2), x.arrival, x.tok)
            })
            .unwrap_or(0)
        };
        // A younger CG entering the read queue ahead of older waiting CPU reads de-prioritises
        // them as much as a younger CG command issued ahead of them (§5.4: both are pending
        // at this controller); `policy.im_sched_count_admission = false` (ablation) counts the
        // command issue only.
        if self.c.im_sched_count_admission {
            self.mark_deprioritised(&waiting[k], waiting, true);
        }
        k
    }

    fn on_issue(&mut self, _: &Ctx, _: usize, chosen: &Cand, cands: &[Cand]) {
        self.mark_deprioritised(chosen, cands, false);
    }

    fn on_arrival(&mut self, _: &Ctx, _: usize, e: &DramEntry) {
        if !e.source.is_gpu() {
            self.pending_now += 1;
            self.pending_iv += 1;
        }
        if self.c.im_sched_draw_on_arrival {
            self.draw(e);
        }
    }

    fn on_enqueue(&mut self, _: &Ctx, _: usize, e: &DramEntry) {
        if !self.c.im_sched_draw_on_arrival {
            self.draw(e);
        }
    }

    fn on_served(&mut self, _: &Ctx, e: &DramEntry) {
        if !e.source.is_gpu() {
            self.promoted.remove(&e.tok);
            self.drawable.remove(&e.tok);
            self.pending_now = self.pending_now.saturating_sub(1);
            self.served_cpu += 1;
            if self.deprio.remove(&e.tok) {
                self.deprio_cpu += 1;
            }
            self.cpu_served_total += 1;
            if self.all_gpu {
                self.cpu_served_in_mode += 1;
            } else if self.after_probe {
                self.cpu_served_after += 1;
            }
        }
    }

    fn on_llc(&mut self, _: &Ctx, src: Source, hit: bool) {
        if let Some(i) = src.cpu() {
            if i < MAX_APPS {
                self.acc[i] += 1;
                self.miss[i] += !hit as u64;
            }
        }
    }

    /// IM-LLC counts the CPU applications' LLC accesses and misses in `on_llc`.
    fn observes_waiting_lookups(&self, src: Source) -> bool {
        src.cpu().is_some()
    }

    fn llc_bypass(&mut self, _: &Ctx, r: &Request) -> bool {
        self.bypass
            && self.c.criticality
            && if r.write {
                self.c.gpgpu_store_bypass
            } else {
                self.c.gpgpu_read_bypass
            }
            && r.source == Source::Gpgpu
            && !r.critical
    }

    fn tick(&mut self, ctx: &Ctx) {
        let dt = ctx.now.saturating_sub(self.last_tick);
        self.last_tick = ctx.now;
        self.ticked += dt;
        if self.all_gpu {
            self.all_gpu_cycles += dt;
        } else if self.after_probe {
            self.after_cycles += dt;
        }
        if ctx.now >= self.interval_end {
            self.end_interval();
            self.interval_end += self.c.interval;
        }
        if ctx.now >= self.window_end {
            if self.probe && ctx.gpu.frame.is_none() {
                self.end_window(ctx.gpu.insts);
            } else {
                self.window_insts = ctx.gpu.insts;
                self.all_gpu = false;
            }
            self.window_end += self.c.probe_window;
        }
    }

    fn uses_criticality(&self) -> bool {
        true
    }

    /// IM-SCHED's Bernoulli draws (per CPU read or per decision, §5.4); IM-LLC, the probe and
    /// the bypass draw nothing, so `im_llc` and `im_bypass` are deterministic.
    fn draws_random(&self) -> bool {
        self.sched
    }

    fn counters(&self) -> Vec<(&'static str, f64)> {
        let frac = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        vec![
            (
                "im_sched_capped_fraction",
                frac(self.capped, self.intervals),
            ),
            ("im_sched_last_probability", self.p),
            ("im_sched_win_fraction", frac(self.won, self.drawn)),
            ("im_sched_redraws", self.redrawn as f64),
            (
                "im_sched_redraw_win_fraction",
                frac(self.rewon, self.redrawn),
            ),
            (
                "im_sched_empty_interval_fraction",
                frac(self.empty, self.intervals),
            ),
            (
                "im_sched_mean_probability",
                if self.intervals == 0 {
                    0.0
                } else {
                    self.p_sum / self.intervals as f64
                },
            ),
            (
                "im_llc_emergency_fraction",
                frac(self.emergency_intervals, self.intervals),
            ),
            (
                "all_gpu_window_fraction",
                frac(self.all_gpu_windows, self.windows),
            ),
            ("probes_fired", self.probes as f64),
            ("probe_windows_kept", self.kept as f64),
            (
                "all_gpu_cycle_fraction",
                frac(self.all_gpu_cycles, self.ticked),
            ),
            (
                "im_sched_deprio_at_admission",
                self.deprio_at_admission as f64,
            ),
            ("im_sched_deprio_at_issue", self.deprio_at_issue as f64),
            (
                "im_sched_deprio_admission_share",
                frac(
                    self.deprio_at_admission,
                    self.deprio_at_admission + self.deprio_at_issue,
                ),
            ),
            (
                "im_sched_capped_fraction_issue_only",
                frac(self.capped_issue_only, self.intervals),
            ),
            (
                "im_sched_mean_probability_issue_only",
                if self.intervals == 0 {
                    0.0
                } else {
                    self.p_issue_only_sum / self.intervals as f64
                },
            ),
            ("probe_windows", self.windows as f64),
            ("probe_all_gpu_windows", self.all_gpu_windows as f64),
            ("probe_cmp_above", self.cmp_above as f64),
            ("probe_cmp_equal", self.cmp_equal as f64),
            ("probe_cmp_below", self.cmp_below as f64),
            (
                "probe_first_kept_fraction",
                frac(self.first_above, self.first_cmps),
            ),
            (
                "probe_first_ipc_ratio_mean",
                if self.first_cmps == 0 {
                    0.0
                } else {
                    self.first_ratio_sum / self.first_cmps as f64
                },
            ),
            (
                "probe_later_ipc_ratio_mean",
                if self.later_cmps == 0 {
                    0.0
                } else {
                    self.later_ratio_sum / self.later_cmps as f64
                },
            ),
            ("probe_extension_max", self.max_ext as f64),
            (
                "probe_cpu_served_in_mode_share",
                frac(self.cpu_served_in_mode, self.cpu_served_total),
            ),
            (
                "probe_cpu_served_after_share",
                frac(self.cpu_served_after, self.cpu_served_total),
            ),
            (
                "probe_after_cycle_fraction",
                frac(self.after_cycles, self.ticked),
            ),
            ("probe_startup_ipc_ratio", self.startup_ratio),
            ("probe_startup_windows", self.startup_windows as f64),
            (
                "probe_window0_ipc_over_mean",
                if self.windows_insts == 0 {
                    0.0
                } else {
                    self.window0_ipc * (self.windows * self.c.probe_window) as f64
                        / self.windows_insts as f64
                },
            ),
            (
                "probe_normal_pairs_above_fraction",
                frac(self.normal_above, self.normal_pairs),
            ),
        ]
    }
}

/// Full IM (IM-SCHED + IM-LLC + all-GPU probe + §3 bypass).
pub fn new(c: &PolicyConfig) -> Box<dyn MemPolicy> {
    Box::new(Im::make(c, true, true, true))
}

/// IM-SCHED alone on IM's order (CG > CPU > NG) (ablation of §5.4; no LLC bypass).
pub fn new_sched_only(c: &PolicyConfig) -> Box<dyn MemPolicy> {
    Box::new(Im::make(c, true, false, false))
}

/// IM-LLC alone on IM's order (CG > CPU > NG) (ablation of §5.4; no LLC bypass).
pub fn new_llc_only(c: &PolicyConfig) -> Box<dyn MemPolicy> {
    Box::new(Im::make(c, false, true, false))
}

/// The §3 LLC bypass of non-critical GPGPU reads alone on IM's order (CG > CPU > NG) (no IM-SCHED,
/// IM-LLC or probe): the bypass's share of IM's result.
pub fn new_bypass_only(c: &PolicyConfig) -> Box<dyn MemPolicy> {
    Box::new(Im::with_bypass(c, false, false, false, true))
}

/// Full IM with non-critical GPGPU read misses allocating (`policy.gpgpu_read_bypass = false`
/// whatever the config says): the read half of the §3 bypass's share, in one run beside `im`.
pub fn new_no_read_bypass(c: &PolicyConfig) -> Box<dyn MemPolicy> {
    let mut c = c.clone();
    c.gpgpu_read_bypass = false;
    Box::new(Im::make(&c, true, true, true))
}

/// Full IM with non-critical GPGPU store misses allocating (`policy.gpgpu_store_bypass =
/// false` whatever the config says): the store write-around's share.
pub fn new_no_store_bypass(c: &PolicyConfig) -> Box<dyn MemPolicy> {
    let mut c = c.clone();
    c.gpgpu_store_bypass = false;
    Box::new(Im::make(&c, true, true, true))
}

/// Full IM (IM-SCHED, IM-LLC, §3 bypass) without the §5.6 all-GPU probe: the probe's share.
pub fn new_no_probe(c: &PolicyConfig) -> Box<dyn MemPolicy> {
    Box::new(Im::with_bypass(c, true, true, false, true))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::HeteroConfig;
    use crate::policy::GpuStatus;

    fn cfg() -> PolicyConfig {
        HeteroConfig::preset("hetero").unwrap().policy
    }

    /// The preset with sessions 17-18's IM-SCHED counting and draw (ablations since session
    /// 19): f over the served CPU reads, the draw on entering the read queue. The tests written
    /// for those rules use it; the document's rules have their own tests below.
    fn served_cfg() -> PolicyConfig {
        let mut c = cfg();
        c.im_sched_pending_denominator = false;
        c.im_sched_draw_on_arrival = false;
        c
    }

    /// `im_sched_empty_interval_fraction` of `p`'s counters.
    fn empty_fraction(p: &Im) -> f64 {
        p.counters()
            .iter()
            .find(|k| k.0 == "im_sched_empty_interval_fraction")
            .unwrap()
            .1
    }

    fn cand(tok: u64, row_hit: bool, source: Source, critical: bool, arrival: u64) -> Cand {
        Cand {
            pos: tok as usize,
            row_hit,
            source,
            critical,
            arrival,
            bank: 0,
            tok,
        }
    }

    /// The policy's view at memory-side cycle `now` (DRAM cycle 0) with the GPU report `gpu`.
    fn at(now: u64, gpu: &GpuStatus) -> Ctx<'_> {
        Ctx {
            now,
            dram_now: 0,
            gpu,
        }
    }

    fn entry(tok: u64, source: Source) -> DramEntry {
        DramEntry {
            tok,
            line: 0,
            source,
            critical: false,
            arrival: 0,
            bank: 0,
            row: 0,
            activated: false,
        }
    }

    #[test]
    fn im_sched_probability_is_the_deprioritised_fraction_capped() {
        let g = GpuStatus::default();
        let c = served_cfg();
        let mut p = Im::make(&c, true, false, false);
        let ctx = at(0, &g);
        // Interval 1: 4 CPU reads served, 3 of them overtaken by a younger CG.
        let cg = cand(100, true, Source::Gpgpu, true, 50);
        for t in 0..4u64 {
            let cpu = cand(t, true, Source::Cpu(0), false, 10);
            if t < 3 {
                p.on_issue(&ctx, 0, &cg, &[cg, cpu]);
            }
            p.on_served(&ctx, &entry(t, Source::Cpu(0)));
        }
        let end = at(c.interval, &g);
        p.tick(&end);
        assert_eq!(p.p, 0.5, "0.75 capped at 0.5");
        assert_eq!(p.counters()[0].1, 1.0);
        // With p = 0.5 about half of the CPU reads entering the queue win their draw and go
        // ahead of a younger CG request (the preset draws per CPU read).
        assert!(c.im_sched_per_request, "the preset draws once per CPU read");
        let n = (0..2000u64)
            .filter(|&t| {
                let e = entry(1000 + t, Source::Cpu(1));
                p.on_enqueue(&ctx, 0, &e);
                let c2 = [
                    cand(1, true, Source::Gpgpu, true, 5),
                    cand(1000 + t, true, Source::Cpu(1), false, 1),
                ];
                let won = p.pick(&ctx, &c2) == Some(1);
                p.on_served(&ctx, &e);
                won
            })
            .count();
        assert!((800..1200).contains(&n), "{n}");
        // No CG on top: plain order, no draw.
        let c3 = [
            cand(1, true, Source::Gpgpu, false, 0),
            cand(2, true, Source::Cpu(1), false, 1),
        ];
        assert_eq!(p.pick(&ctx, &c3), Some(1));
    }

    /// The split ablations are full IM with exactly one part off.
    #[test]
    fn split_ablations_turn_off_one_part_each() {
        let g = GpuStatus::default();
        let ctx = at(0, &g);
        let c = cfg();
        let rd = Request::read(0, 0, Source::Gpgpu);
        let mut st = rd;
        st.write = true;
        let by = |mut p: Box<dyn MemPolicy>| (p.llc_bypass(&ctx, &rd), p.llc_bypass(&ctx, &st));
        assert_eq!(by(new(&c)), (true, true));
        assert_eq!(by(new_no_read_bypass(&c)), (false, true));
        assert_eq!(by(new_no_store_bypass(&c)), (true, false));
        assert_eq!(by(new_no_probe(&c)), (true, true));
        // The probe: full IM enters an all-GPU window after the first window, the ablation not.
        let fire = |mut p: Box<dyn MemPolicy>| {
            let g = GpuStatus {
                insts: 100,
                ..GpuStatus::default()
            };
            // The end of the first (baseline) window starts the probe.
            p.tick(&at(c.probe_window, &g));
            let cands = [
                cand(1, false, Source::Gpgpu, false, 10),
                cand(2, false, Source::Cpu(0), false, 5),
            ];
            p.pick(&at(0, &g), &cands) == Some(0)
        };
        assert!(fire(new(&c)), "IM: NG above CPU in the all-GPU window");
        assert!(!fire(new_no_probe(&c)), "no probe: CPU above NG");
        assert!(fire(new_no_read_bypass(&c)) && fire(new_no_store_bypass(&c)));
    }

    /// §5.4, "a CPU request is prioritized over a pending critical GPU request with this
    /// probability": a CPU read that won its draw goes above every pending CG read, older ones
    /// included (`im_sched_above_cg`, the preset); the ablation ranks it with them by age. Row
    /// hits still go first, and in an all-GPU window the GPU keeps "the highest DRAM priority".
    #[test]
    fn a_promoted_cpu_read_goes_above_older_critical_gpu_reads() {
        let g = GpuStatus::default();
        let ctx = at(0, &g);
        let mut c = cfg();
        assert!(c.im_sched_above_cg, "preset: the document's order");
        // A hand-built read queue, all row misses: the oldest is an NG read, then a plain CPU
        // read, an older CG read, an emergency (CPU-E) read, and the youngest, a CPU read that
        // won its IM-SCHED draw.
        let q = [
            cand(1, false, Source::Gpgpu, false, 1),   // NG
            cand(2, false, Source::Cpu(0), false, 5),  // CPU
            cand(3, false, Source::Gpgpu, true, 10),   // CG, older than the winner
            cand(4, false, Source::Cpu(2), false, 20), // CPU-E
            cand(5, false, Source::Cpu(1), false, 30), // the winner
        ];
        let order = |p: &mut Im| {
            // Serve the queue to the end: the document's order is the sequence of picks.
            let mut left = q.to_vec();
            let mut out = vec![];
            while let Some(i) = p.pick(&ctx, &left) {
                out.push(left[i].tok);
                left.remove(i);
                if left.is_empty() {
                    break;
                }
            }
            out
        };
        for above in [true, false] {
            c.im_sched_above_cg = above;
            let mut p = Im::make(&c, true, true, false);
            p.emergency = 1 << 2;
            p.promoted.insert(5);
            let want: &[u64] = if above {
                &[5, 3, 4, 2, 1] // winner, then CG and CPU-E by age, CPU, NG
            } else {
                &[3, 4, 5, 2, 1] // the winner waits for the older CG and CPU-E
            };
            assert_eq!(order(&mut p), want, "above = {above}");
            // A CG row hit still goes before the winner's row miss (row hit first, §5.3/§5.5).
            let hit = [q[4], cand(6, true, Source::Gpgpu, true, 40)];
            assert_eq!(p.pick(&ctx, &hit), Some(1), "above = {above}");
            // All-GPU window: the winner ranks with every GPU read, by age.
            p.all_gpu = true;
            assert_eq!(p.pick(&ctx, &[q[4], q[0]]), Some(1), "above = {above}");
            assert_eq!(
                p.pick(&ctx, &[q[4], cand(7, false, Source::Gpgpu, false, 35)]),
                Some(0),
                "above = {above}"
            );
        }
    }

    /// IM-SCHED's f in an interval in which no CPU read is served is taken as 0, and the
    /// interval is counted (`im_sched_empty_interval_fraction`).
    #[test]
    fn an_interval_without_served_cpu_reads_gives_p_0_and_counts_as_empty() {
        let g = GpuStatus::default();
        let c = served_cfg();
        let mut p = Im::make(&c, true, false, false);
        p.tick(&at(c.interval, &g));
        assert_eq!((p.p, empty_fraction(&p)), (0.0, 1.0));
        let cg = cand(100, true, Source::Gpgpu, true, 50);
        let cpu = cand(1, true, Source::Cpu(0), false, 10);
        p.on_issue(&at(c.interval, &g), 0, &cg, &[cg, cpu]);
        p.on_served(&at(c.interval, &g), &entry(1, Source::Cpu(0)));
        p.tick(&at(2 * c.interval, &g));
        assert_eq!((p.p, empty_fraction(&p)), (0.5, 0.5));
    }

    /// `policy.im_sched_overtake`: only a CPU read that FR-FCFS would have served first (same
    /// row-hit status, older) counts as de-prioritised, and only such a read is swapped in (the
    /// swap of the per-decision ablation, `im_sched_per_request = false`).
    #[test]
    fn im_sched_overtake_counts_and_swaps_only_reads_the_class_overtook() {
        let g = GpuStatus::default();
        let mut c = served_cfg();
        c.im_sched_per_request = false;
        let ctx = at(0, &g);
        for overtake in [false, true] {
            c.im_sched_overtake = overtake;
            let mut p = Im::make(&c, true, false, false);
            // A CG row hit issued ahead of an older CPU row miss (FR-FCFS would issue the
            // hit too) and ahead of an older CPU row hit (FR-FCFS would issue the CPU read).
            let cg = cand(100, true, Source::Gfx(2), true, 50);
            let miss = cand(1, false, Source::Cpu(0), false, 10);
            let hit = cand(2, true, Source::Cpu(1), false, 20);
            p.on_issue(&ctx, 0, &cg, &[cg, miss, hit]);
            // Four CPU reads served: the two candidates and two that never met a CG.
            for t in 1..=4 {
                p.on_served(&ctx, &entry(t, Source::Cpu(0)));
            }
            p.tick(&at(c.interval, &g));
            let want = if overtake { 0.25 } else { 0.5 };
            assert_eq!(p.p, want, "overtake {overtake}: deprioritised fraction");
            // Swap: with only the row-missing CPU read beside the CG hit, the overtake rule
            // never swaps (FR-FCFS would serve the hit); the plain rule swaps with p.
            let swaps = (0..400)
                .filter(|_| p.pick(&ctx, &[cg, miss]) == Some(1))
                .count();
            if overtake {
                assert_eq!(swaps, 0);
            } else {
                assert!(swaps > 100, "{swaps}");
            }
            let swaps = (0..400)
                .filter(|_| p.pick(&ctx, &[cg, hit]) == Some(1))
                .count();
            assert!(
                swaps > 40,
                "overtake {overtake}: an older CPU hit is swapped in ({swaps})"
            );
        }
    }

    /// §5.4: "a CPU request is prioritized over a pending critical GPU request with this
    /// probability", the probability "that a given CPU access is de-prioritized": with
    /// `im_sched_per_request` (the preset) a share p of the CPU reads wins its one draw and keeps
    /// the answer for its whole stay (it ranks above CG, row hits first); the per-decision
    /// draw (the ablation) lets a read that meets ten CG-first decisions win 1 - 0.75^10 = 94%
    /// of the time.
    #[test]
    fn per_request_draw_promotes_a_share_p_of_cpu_reads_for_their_whole_stay() {
        let g = GpuStatus::default();
        let ctx = at(0, &g);
        let mut c = served_cfg();
        c.im_sched_overtake = true;
        for per_request in [true, false] {
            c.im_sched_per_request = per_request;
            let mut p = Im::make(&c, true, false, false);
            p.p = 0.25;
            let (mut won, mut changed) = (0u32, 0u32);
            for t in 0..4000u64 {
                let e = entry(t, Source::Cpu(0));
                p.on_enqueue(&ctx, 0, &e);
                let cpu = cand(t, true, Source::Cpu(0), false, 10);
                let cg = |k: u64| cand(100_000 + k, true, Source::Gfx(2), true, 50);
                let picks: Vec<_> = (0..10).map(|k| p.pick(&ctx, &[cg(k), cpu])).collect();
                won += picks.contains(&Some(1)) as u32;
                changed += picks.iter().any(|x| *x != picks[0]) as u32;
                if per_request && picks[0] == Some(1) {
                    // Ranked above CG (the preset's `im_sched_above_cg`): an older CG does not
                    // go first either.
                    let old_cg = cand(200_000, true, Source::Gfx(2), true, 5);
                    assert_eq!(p.pick(&ctx, &[old_cg, cpu]), Some(1));
                }
                p.on_served(&ctx, &e);
            }
            if per_request {
                assert!((850..1150).contains(&won), "share p = 0.25 of 4000: {won}");
                assert_eq!(changed, 0, "one answer per read");
                assert!(p.promoted.is_empty(), "served reads are forgotten");
            } else {
                assert!(won > 3600, "per decision: {won} of 4000");
            }
        }
    }

    /// §5.4, "In an interval, a CPU request is prioritized over a pending critical GPU request
    /// with this probability": the draw happens when the CPU read arrives at the controller
    /// (`im_sched_draw_on_arrival`, the preset), so a winner waiting in front of a full read
    /// queue also enters it ahead of an older critical GPU read; with the draw on entering the
    /// queue (the ablation) the older CG read always enters first.
    #[test]
    fn a_cpu_read_that_wins_its_draw_on_arrival_enters_a_full_queue_ahead_of_cg() {
        let g = GpuStatus::default();
        let ctx = at(0, &g);
        for on_arrival in [true, false] {
            let mut c = cfg();
            assert!(c.im_sched_draw_on_arrival, "preset: the document's draw");
            c.im_sched_draw_on_arrival = on_arrival;
            let mut p = Im::make(&c, true, false, false);
            p.p = 0.5;
            let mut first = 0u32;
            for t in 0..2000u64 {
                // Waiting in front of a full read queue: an older CG read, then a CPU read.
                let e = entry(10 + 2 * t, Source::Cpu(0));
                p.on_arrival(&ctx, 0, &e);
                let w = [
                    cand(11 + 2 * t, false, Source::Gpgpu, true, 5),
                    cand(e.tok, false, Source::Cpu(0), false, 9),
                ];
                let k = p.admit(&ctx, 0, &w);
                first += (k == 1) as u32;
                p.on_enqueue(&ctx, 0, &e);
                p.on_served(&ctx, &e);
            }
            if on_arrival {
                assert!((850..1150).contains(&first), "share p = 0.5: {first}");
            } else {
                assert_eq!(first, 0, "ablation: no draw before admission");
            }
            assert!(p.promoted.is_empty(), "served reads are forgotten");
        }
    }

    /// §5.4, "the fraction of CPU requests de-prioritized by younger critical GPU requests
    /// during the interval": with `im_sched_pending_denominator` (the preset) the CPU reads
    /// pending at the controller in the interval are the denominator, served or not, so an
    /// interval in which the waiting CPU reads are all overtaken and none is served gives
    /// f = 1 (capped to 0.5), not an empty interval (the ablation: p = 0).
    #[test]
    fn im_sched_counts_the_pending_cpu_reads_not_only_the_served_ones() {
        let g = GpuStatus::default();
        let ctx = at(0, &g);
        for pending in [true, false] {
            let mut c = cfg();
            assert!(
                c.im_sched_pending_denominator,
                "preset: the document's count"
            );
            c.im_sched_pending_denominator = pending;
            let mut p = Im::make(&c, true, false, false);
            // Interval 1: four CPU reads arrive; a younger CG read enters the full queue ahead
            // of the two oldest (twice: each counts once); none is served.
            for t in 1..=4 {
                p.on_arrival(&ctx, 0, &entry(t, Source::Cpu(0)));
            }
            let w = [
                cand(1, false, Source::Cpu(0), false, 10),
                cand(2, false, Source::Cpu(0), false, 20),
                cand(9, false, Source::Gpgpu, true, 30),
                cand(3, false, Source::Cpu(0), false, 40),
                cand(4, false, Source::Cpu(0), false, 50),
            ];
            assert_eq!(p.admit(&ctx, 0, &w), 2);
            assert_eq!(p.admit(&ctx, 0, &w), 2);
            p.tick(&at(c.interval, &g));
            if pending {
                assert_eq!(
                    (p.p, empty_fraction(&p)),
                    (0.5, 0.0),
                    "f = 2/4 of the pending reads"
                );
            } else {
                assert_eq!(
                    (p.p, empty_fraction(&p)),
                    (0.0, 1.0),
                    "none served: empty, p = 0"
                );
            }
            // Interval 2: the four still pending plus one arrival; one served, none overtaken.
            p.on_arrival(&ctx, 0, &entry(5, Source::Cpu(0)));
            p.on_served(&ctx, &entry(1, Source::Cpu(0)));
            if pending {
                assert_eq!(p.pending_iv, 5);
            }
            p.tick(&at(2 * c.interval, &g));
            // The ablation counts read 1, overtaken in interval 1, when it is served: f = 1/1.
            assert_eq!(p.p, if pending { 0.0 } else { 0.5 });
            assert_eq!(p.pending_now, 4, "four still at the controller");
            if pending {
                assert_eq!(p.pending_iv, 4, "carried into interval 3");
            }
        }
    }

    #[test]
    fn im_llc_enters_emergency_on_l_to_h_and_leaves_unless_back_in_l() {
        let g = GpuStatus::default();
        let c = cfg();
        let mut p = Im::make(&c, false, true, false);
        let now = std::cell::Cell::new(0);
        let interval = |p: &mut Im, hits: u64, misses: u64| {
            let now0 = now.get();
            let ctx = at(now0, &g);
            for _ in 0..hits {
                p.on_llc(&ctx, Source::Cpu(2), true);
            }
            for _ in 0..misses {
                p.on_llc(&ctx, Source::Cpu(2), false);
            }
            now.set(now0 + c.interval);
            p.tick(&at(now.get(), &g));
        };
        interval(&mut p, 95, 5); // L
        assert_eq!(p.emergency, 0);
        interval(&mut p, 10, 90); // H: L -> H
        assert_eq!(p.emergency, 1 << 2);
        let e = cand(1, false, Source::Cpu(2), false, 9);
        let cg = cand(2, false, Source::Gpgpu, true, 5);
        let cpu = cand(3, false, Source::Cpu(0), false, 1);
        let ctx = at(now.get(), &g);
        assert_eq!(
            p.pick(&ctx, &[cpu, e, cg]),
            Some(2),
            "CG and CPU-E tie on level, older wins"
        );
        interval(&mut p, 98, 2); // back in L: stays
        assert_eq!(p.emergency, 1 << 2);
        interval(&mut p, 50, 50); // M: leaves
        assert_eq!(p.emergency, 0);
    }

    #[test]
    fn probe_keeps_all_gpu_priority_while_ipc_improves() {
        let mut c = cfg();
        c.probe_window = 100;
        c.probe_period = 300;
        let mut p = Im::make(&c, true, true, true);
        let mut g = GpuStatus::default();
        let mut modes = vec![];
        // IPC per window: 1.0 (baseline), then probing 1.5, 2.0, 2.0 (equal) -> off until the
        // next probe one period after that window.
        for (w, ipc) in [1.0, 1.5, 2.0, 2.0, 1.0, 1.0, 1.0].iter().enumerate() {
            g.insts += (ipc * 100.0) as u64;
            let ctx = at((w as u64 + 1) * 100, &g);
            p.tick(&ctx);
            modes.push(p.all_gpu);
        }
        assert_eq!(modes, vec![true, true, true, false, false, false, true]);
        let ng = cand(1, false, Source::Gpgpu, false, 9);
        let cpu = cand(2, false, Source::Cpu(0), false, 1);
        let g2 = GpuStatus::default();
        let ctx = at(0, &g2);
        p.all_gpu = true;
        assert_eq!(p.pick(&ctx, &[ng, cpu]), Some(0));
        assert!(
            p.llc_bypass(&ctx, &Request::read(0, 0, Source::Gpgpu)),
            "§3's bypass holds in the window"
        );
        p.all_gpu = false;
        assert_eq!(p.pick(&ctx, &[ng, cpu]), Some(1));
        assert!(p.llc_bypass(&ctx, &Request::read(0, 0, Source::Gpgpu)));
        assert!(
            !p.llc_bypass(&ctx, &Request::read(0, 0, Source::Gfx(1))),
            "no 3D bypass"
        );
    }

    /// The counter `name` of `p`.
    fn counter(p: &Im, name: &str) -> f64 {
        p.counters()
            .iter()
            .find(|k| k.0 == name)
            .unwrap_or_else(|| panic!("no counter {name}"))
            .1
    }

    /// The probe's diagnostics count each all-GPU window's comparison with the previous
    /// window (above the band, equal, below), a probe's first window apart from the later
    /// ones, the longest extension and the normal-window pairs.
    #[test]
    fn probe_counters_sort_the_ipc_comparisons() {
        let mut c = cfg();
        c.probe_window = 100;
        c.probe_period = 300;
        c.probe_tolerance = 0.02;
        let mut p = Im::make(&c, true, true, true);
        let mut g = GpuStatus::default();
        // Windows: 1.0 (normal), probe 1.5 (first, above), 2.0 (above), 2.0 (equal: ends),
        // normal 1.0, 1.0, 1.03 (a normal pair above the band; the next probe fires), probe
        // 1.0 (first, below: ends at once).
        for (w, ipc) in [1.0, 1.5, 2.0, 2.0, 1.0, 1.0, 1.03, 1.0].iter().enumerate() {
            g.insts += (ipc * 100.0f64).round() as u64;
            p.tick(&at((w as u64 + 1) * 100, &g));
        }
        assert!(!p.all_gpu);
        assert_eq!(p.probes, 2);
        assert_eq!(counter(&p, "probe_cmp_above"), 2.0);
        assert_eq!(counter(&p, "probe_cmp_equal"), 1.0);
        assert_eq!(counter(&p, "probe_cmp_below"), 1.0);
        assert_eq!(counter(&p, "probe_first_kept_fraction"), 0.5);
        let first = counter(&p, "probe_first_ipc_ratio_mean");
        assert!((first - (1.5 + 1.0 / 1.03) / 2.0).abs() < 1e-9, "{first}");
        let later = counter(&p, "probe_later_ipc_ratio_mean");
        assert!((later - (2.0 / 1.5 + 1.0) / 2.0).abs() < 1e-9, "{later}");
        assert_eq!(counter(&p, "probe_extension_max"), 2.0);
        assert_eq!(counter(&p, "probe_windows"), 8.0);
        assert_eq!(counter(&p, "probe_all_gpu_windows"), 4.0);
        // Normal pairs: (1.0, 1.0) equal, (1.0, 1.03) above; the pair across a probe's end
        // does not count.
        assert_eq!(counter(&p, "probe_normal_pairs_above_fraction"), 0.5);
        // The run's first probe: 1.5 over window 0's 1.0, three all-GPU windows; window 0's
        // IPC over the mean of the 8 windows (10.53 / 8).
        assert_eq!(counter(&p, "probe_startup_ipc_ratio"), 1.5);
        assert_eq!(counter(&p, "probe_startup_windows"), 3.0);
        let w0 = counter(&p, "probe_window0_ipc_over_mean");
        assert!((w0 - 8.0 / 10.53).abs() < 1e-9, "{w0}");
        // The window after the first probe (cycles 400-500) is the only "after" window so
        // far (the second probe's after window has not begun its cycles).
        assert!((counter(&p, "probe_after_cycle_fraction") - 100.0 / 800.0).abs() < 1e-12);
        // CPU reads served: two in all-GPU mode, one right after, one later.
        let ctx = at(800, &g);
        p.all_gpu = true;
        p.on_served(&ctx, &entry(1, Source::Cpu(0)));
        p.on_served(&ctx, &entry(2, Source::Cpu(0)));
        p.all_gpu = false;
        p.after_probe = true;
        p.on_served(&ctx, &entry(3, Source::Cpu(1)));
        p.on_served(&ctx, &entry(4, Source::Gpgpu));
        p.after_probe = false;
        p.on_served(&ctx, &entry(5, Source::Cpu(1)));
        assert_eq!(counter(&p, "probe_cpu_served_in_mode_share"), 0.5);
        assert_eq!(counter(&p, "probe_cpu_served_after_share"), 0.25);
    }

    /// §5.4, "In an interval, a CPU request is prioritized over a pending critical GPU request
    /// with this probability": CPU reads that lost their draw (p = 0 on arrival) draw again at
    /// the next interval with its p (about half win at the cap); an interval with p = 0 demotes
    /// them all; served reads draw no more. With `im_sched_redraw_each_interval = false` the
    /// losers stay losers.
    #[test]
    fn pending_cpu_reads_draw_again_each_interval() {
        let g = GpuStatus::default();
        let ctx = at(0, &g);
        let run = |redraw: bool| {
            let mut c = cfg();
            c.im_sched_redraw_each_interval = redraw;
            let mut p = Im::make(&c, true, false, false);
            let reads: Vec<Cand> = (0..1000u64)
                .map(|t| cand(t, false, Source::Cpu((t % 4) as u8), false, 10))
                .collect();
            for r in &reads {
                p.on_arrival(&ctx, 0, &entry(r.tok, r.source));
            }
            assert!(p.promoted.is_empty(), "p = 0 on arrival: every draw lost");
            // A younger CG goes ahead of all of them: f = 1, p = the cap next interval.
            let mut cands = reads.clone();
            let cg = cand(5000, false, Source::Gpgpu, true, 20);
            cands.push(cg);
            p.on_issue(&ctx, 0, &cg, &cands);
            p.tick(&at(c.interval, &g));
            assert_eq!(p.p, c.im_sched_cap);
            let won = p.promoted.len();
            // Serve half of them; the next interval has nothing de-prioritised: p = 0.
            for r in &reads[..500] {
                p.on_served(&ctx, &entry(r.tok, r.source));
            }
            p.tick(&at(2 * c.interval, &g));
            assert_eq!(p.p, 0.0);
            (won, p.promoted.len(), p.drawable.len(), p)
        };
        let (won, after, left, p) = run(true);
        assert!(
            (400..600).contains(&won),
            "about half win at p = 0.5: {won}"
        );
        assert_eq!(after, 0, "p = 0: no read stays promoted");
        assert_eq!(left, 500, "served reads draw no more");
        assert_eq!(counter(&p, "im_sched_redraws"), 1500.0);
        let (won, after, left, _) = run(false);
        assert_eq!(
            (won, after, left),
            (0, 0, 0),
            "draw once: the losers stay losers"
        );
    }

    /// Each de-prioritisation that `f` counts is attributed once, to the admission or the
    /// command issue that first showed it; together they are `f`'s numerator.
    #[test]
    fn deprioritisations_split_between_admission_and_issue() {
        let g = GpuStatus::default();
        let c = cfg();
        assert!(c.im_sched_pending_denominator);
        let mut p = Im::make(&c, true, false, false);
        let ctx = at(0, &g);
        for t in 1..=3 {
            p.on_arrival(&ctx, 0, &entry(t, Source::Cpu(0)));
        }
        // Admission: a younger CG enters ahead of CPU reads 1 and 2 (read 3 is younger).
        let w = [
            cand(1, false, Source::Cpu(0), false, 10),
            cand(2, false, Source::Cpu(1), false, 20),
            cand(9, false, Source::Gpgpu, true, 30),
            cand(3, false, Source::Cpu(2), false, 40),
        ];
        assert_eq!(p.admit(&ctx, 0, &w), 2);
        // Issue: a younger CG's command goes ahead of reads 2 (already counted) and 3.
        let cg = cand(10, false, Source::Gpgpu, true, 50);
        p.on_issue(
            &ctx,
            0,
            &cg,
            &[
                cand(2, false, Source::Cpu(1), false, 20),
                cand(3, false, Source::Cpu(2), false, 40),
                cg,
            ],
        );
        assert_eq!(counter(&p, "im_sched_deprio_at_admission"), 2.0);
        assert_eq!(counter(&p, "im_sched_deprio_at_issue"), 1.0);
        let share = counter(&p, "im_sched_deprio_admission_share");
        assert!((share - 2.0 / 3.0).abs() < 1e-12);
        // f = 3 de-prioritised of 3 pending, capped; counting the issue alone, 2 of 3 (reads
        // 2 and 3, read 2 again at issue), capped too.
        p.tick(&at(c.interval, &g));
        assert_eq!(p.p, c.im_sched_cap);
        assert_eq!(counter(&p, "im_sched_capped_fraction_issue_only"), 1.0);
        assert_eq!(
            counter(&p, "im_sched_mean_probability_issue_only"),
            c.im_sched_cap
        );
        // Next interval: the same reads still pending are counted again, once each.
        p.on_issue(
            &ctx,
            0,
            &cg,
            &[cand(1, false, Source::Cpu(0), false, 10), cg],
        );
        p.on_issue(
            &ctx,
            0,
            &cg,
            &[cand(1, false, Source::Cpu(0), false, 10), cg],
        );
        assert_eq!(counter(&p, "im_sched_deprio_at_issue"), 2.0);
        // Interval 2: f = 1/3 by either count (read 1 at issue), below the cap.
        p.tick(&at(2 * c.interval, &g));
        assert!((p.p - 1.0 / 3.0).abs() < 1e-12, "{}", p.p);
        assert_eq!(counter(&p, "im_sched_capped_fraction_issue_only"), 0.5);
        let mean = counter(&p, "im_sched_mean_probability_issue_only");
        assert!(
            (mean - (c.im_sched_cap + 1.0 / 3.0) / 2.0).abs() < 1e-12,
            "{mean}"
        );
    }

    /// An NG read, a younger CPU read and a still younger CG read, none a row hit (the order
    /// tests of session 22's IM keys).
    fn ng_cpu_cg() -> [Cand; 3] {
        [
            cand(1, false, Source::Gfx(2), false, 10),
            cand(2, false, Source::Cpu(0), false, 20),
            cand(3, false, Source::Gfx(2), true, 30),
        ]
    }

    /// `policy.im_cpu_over_ng = false` (session 22 ablation): IM without its CPU-over-NG rank,
    /// the CPU and NG reads by row hit and age in the queue and at admission, CG and IM-SCHED's
    /// winners still above them.
    #[test]
    fn without_cpu_over_ng_the_cpu_and_ng_reads_go_by_age() {
        let g = GpuStatus::default();
        let ctx = at(0, &g);
        let [ng, cpu, cg] = ng_cpu_cg();
        let mut c = cfg();
        assert!(c.im_cpu_over_ng, "the preset");
        let mut p = Im::make(&c, true, true, false);
        assert_eq!(p.pick(&ctx, &[ng, cpu]), Some(1), "preset: CPU above NG");
        c.im_cpu_over_ng = false;
        let mut p = Im::make(&c, true, true, false);
        assert_eq!(p.pick(&ctx, &[ng, cpu]), Some(0), "by age");
        assert_eq!(p.admit(&ctx, 0, &[ng, cpu]), 0, "by age at admission");
        assert_eq!(p.pick(&ctx, &[ng, cpu, cg]), Some(2), "CG first");
        p.promoted.insert(2);
        assert_eq!(p.pick(&ctx, &[ng, cpu, cg]), Some(1), "a winner above CG");
    }

    /// `policy.im_admit_cpu_over_ng` (session 22): with the preset's `true` a younger CPU read
    /// enters a full read queue before an older non-critical GPU read (IM's CPU-over-NG rank at
    /// admission); with `false` the older NG read enters first and a CG read still first of all;
    /// the read-queue order (`pick`) is IM's either way.
    #[test]
    fn admission_ranks_cpu_over_ng_only_when_told() {
        let g = GpuStatus::default();
        let ctx = at(0, &g);
        let [ng, cpu, cg] = ng_cpu_cg();
        let mut c = cfg();
        assert!(c.im_admit_cpu_over_ng, "the preset");
        for (sched, llc) in [(true, true), (true, false), (false, true)] {
            let mut p = Im::make(&c, sched, llc, false);
            assert_eq!(p.admit(&ctx, 0, &[ng, cpu]), 1, "CPU above NG at admission");
            assert_eq!(p.admit(&ctx, 0, &[ng, cpu, cg]), 2, "CG first");
        }
        c.im_admit_cpu_over_ng = false;
        for (sched, llc) in [(true, true), (true, false), (false, true)] {
            let mut p = Im::make(&c, sched, llc, false);
            assert_eq!(p.admit(&ctx, 0, &[ng, cpu]), 0, "NG and CPU by age");
            let cpu_old = cand(5, false, Source::Cpu(1), false, 5);
            assert_eq!(
                p.admit(&ctx, 0, &[ng, cpu_old]),
                1,
                "by age, the CPU read older"
            );
            let ng_hit = cand(4, true, Source::Gfx(2), false, 40);
            assert_eq!(p.admit(&ctx, 0, &[ng, cpu, ng_hit]), 2, "row hit first");
            assert_eq!(p.admit(&ctx, 0, &[ng, cpu, cg]), 2, "CG first");
            assert_eq!(
                p.pick(&ctx, &[ng, cpu]),
                Some(1),
                "the queue keeps CPU > NG"
            );
        }
    }

    #[test]
    fn a_younger_cg_admitted_ahead_of_waiting_cpu_reads_counts_for_im_sched() {
        let g = GpuStatus::default();
        let c = served_cfg();
        let mut p = Im::make(&c, true, false, false);
        let ctx = at(0, &g);
        // Waiting for a full read queue: two older CPU reads, a younger CG, a younger CPU read.
        let w = [
            cand(1, false, Source::Cpu(0), false, 10),
            cand(2, false, Source::Cpu(1), false, 20),
            cand(3, false, Source::Gpgpu, true, 30),
            cand(4, false, Source::Cpu(2), false, 40),
        ];
        assert_eq!(p.admit(&ctx, 0, &w), 2, "CG enters first (p = 0)");
        for t in 1..=4 {
            p.on_served(&ctx, &entry(t, Source::Cpu(0)));
        }
        assert_eq!(
            p.deprio_cpu, 2,
            "the two older CPU reads, not the younger one"
        );
        // A non-critical GPU read admitted first (it cannot be: CPU is above NG) or a CPU
        // read admitted first marks nothing.
        let w2 = [
            cand(5, false, Source::Gpgpu, false, 1),
            cand(6, false, Source::Cpu(0), false, 2),
        ];
        assert_eq!(p.admit(&ctx, 0, &w2), 1);
        p.on_served(&ctx, &entry(6, Source::Cpu(0)));
        assert_eq!((p.deprio_cpu, p.served_cpu), (2, 5));
        p.tick(&at(c.interval, &g));
        assert!((p.p - 0.4).abs() < 1e-12, "f = 2/5 below the cap: {}", p.p);
        // `policy.im_sched_count_admission = false`: the same admission counts nothing.
        let mut c2 = served_cfg();
        c2.im_sched_count_admission = false;
        let mut q = Im::make(&c2, true, false, false);
        assert_eq!(q.admit(&ctx, 0, &w), 2, "CG still enters first");
        for t in 1..=4 {
            q.on_served(&ctx, &entry(t, Source::Cpu(0)));
        }
        assert_eq!((q.deprio_cpu, q.served_cpu), (0, 4));
        assert_eq!(counter(&q, "im_sched_deprio_at_admission"), 0.0);
    }

    #[test]
    fn preset_probe_fires_within_the_shortest_small_kernel() {
        // The shortest GPU run of `experiment hetero` at `small` is ~36K GPU cycles = 72K CPU
        // cycles, shorter than the document's 100K-GPU-cycle window: the preset's scaled probe
        // (\[INTERP\]) must fit a baseline window and a probe window in it.
        let c = cfg();
        let run = 72_000u64;
        let mut p = Im::make(&c, true, true, true);
        let mut g = GpuStatus::default();
        let mut on = vec![];
        for t in (1000..=run).step_by(1000) {
            g.insts = t; // constant IPC
            p.tick(&at(t, &g));
            on.push(p.all_gpu);
        }
        assert_eq!(p.probes, 1, "one probe");
        assert_eq!(p.kept, 0, "constant IPC: not kept");
        let first_on = on.iter().position(|&x| x).expect("all-GPU mode ran") as u64;
        assert_eq!(
            (first_on + 1) * 1000,
            c.probe_window,
            "after one baseline window"
        );
        let f = p
            .counters()
            .iter()
            .find(|k| k.0 == "all_gpu_cycle_fraction")
            .unwrap()
            .1;
        let want = c.probe_window as f64 / run as f64;
        assert!(
            (f - want).abs() < 0.02,
            "all-GPU share {f} vs one window {want}"
        );
    }

    /// §3 with `gpgpu_store_bypass`: every non-critical shader access (load or store) that
    /// misses the LLC bypasses it; critical ones and CPU requests allocate; `false` keeps stores.
    #[test]
    fn non_critical_loads_and_stores_bypass_critical_ones_allocate() {
        let g = GpuStatus::default();
        let ctx = at(0, &g);
        let mut st = Request::read(0, 0, Source::Gpgpu);
        st.write = true;
        let mut crit = Request::read(0, 0, Source::Gpgpu);
        crit.critical = true;
        let mut crit_st = st;
        crit_st.critical = true;
        let mut cpu_st = Request::read(0, 0, Source::Cpu(1));
        cpu_st.write = true;
        let mut c = cfg();
        assert!(
            c.gpgpu_store_bypass,
            "preset: the document's bypass covers the stores (they carry their bit)"
        );
        let mut p = Im::make(&c, true, true, true);
        assert!(p.llc_bypass(&ctx, &Request::read(0, 0, Source::Gpgpu)));
        assert!(p.llc_bypass(&ctx, &st), "non-critical store written around");
        assert!(!p.llc_bypass(&ctx, &crit), "critical fills allocate");
        assert!(!p.llc_bypass(&ctx, &crit_st), "critical stores allocate");
        assert!(!p.llc_bypass(&ctx, &cpu_st), "CPU stores allocate");
        c.gpgpu_store_bypass = false;
        let mut p = Im::make(&c, true, true, true);
        assert!(!p.llc_bypass(&ctx, &st), "stores allocate with the key off");
    }

    /// §5.6's all-GPU mode raises every GPU request's DRAM priority; §3's bypass still holds.
    #[test]
    fn bypass_holds_in_all_gpu_windows() {
        let g = GpuStatus::default();
        let ctx = at(0, &g);
        let mut p = Im::make(&cfg(), true, true, true);
        p.all_gpu = true;
        let nc = Request::read(0, 0, Source::Gpgpu);
        let mut crit = nc;
        crit.critical = true;
        assert!(
            p.llc_bypass(&ctx, &nc),
            "non-critical read bypasses in the window"
        );
        assert!(!p.llc_bypass(&ctx, &crit));
        // And the mode does raise the non-critical read above a CPU read (row hits equal).
        let cands = [
            cand(1, true, Source::Gpgpu, false, 10),
            cand(2, true, Source::Cpu(0), false, 5),
        ];
        assert_eq!(p.pick(&ctx, &cands), Some(0));
    }

    #[test]
    fn read_bypass_key_and_bypass_only_ablation() {
        let g = GpuStatus::default();
        let ctx = at(0, &g);
        let nc = Request::read(0, 0, Source::Gpgpu);
        let mut crit = Request::read(0, 0, Source::Gpgpu);
        crit.critical = true;
        let cpu = Request::read(0, 0, Source::Cpu(0));
        let mut c = cfg();
        assert!(c.gpgpu_read_bypass, "preset: the document's bypass");
        // The bypass alone: non-critical GPGPU reads only, and no IM-SCHED swap or probe.
        let mut b = Im::with_bypass(&c, false, false, false, true);
        assert!(b.llc_bypass(&ctx, &nc));
        assert!(!b.llc_bypass(&ctx, &crit) && !b.llc_bypass(&ctx, &cpu));
        b.p = 0.5; // even with a probability IM-SCHED is off
        let cands = [
            cand(1, true, Source::Gpgpu, true, 10),
            cand(2, true, Source::Cpu(0), false, 5),
        ];
        for _ in 0..32 {
            assert_eq!(b.pick(&ctx, &cands), Some(0), "CG above CPU, never swapped");
        }
        // IM-SCHED and IM-LLC alone do not bypass.
        assert!(!Im::make(&c, true, false, false).llc_bypass(&ctx, &nc));
        assert!(!Im::make(&c, false, true, false).llc_bypass(&ctx, &nc));
        // Full IM with the read key off keeps reads allocating.
        c.gpgpu_read_bypass = false;
        let mut p = Im::make(&c, true, true, true);
        assert!(!p.llc_bypass(&ctx, &nc), "read bypass off");
        c.gpgpu_store_bypass = true;
        let mut p2 = Im::make(&c, true, true, true);
        let mut st = Request::read(0, 0, Source::Gpgpu);
        st.write = true;
        assert!(
            p2.llc_bypass(&ctx, &st) && !p2.llc_bypass(&ctx, &nc),
            "keys independent"
        );
    }
}
