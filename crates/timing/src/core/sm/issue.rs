//! Issue stage of the SM: the warp schedulers' choice (scoreboard, barriers, free units),
//! per-scheduler stall attribution, barrier release and warp/CTA retirement.

use super::*;

impl SmState {
    /// Releases the barrier of CTA slot `cs` when every warp has arrived or is done (at core
    /// cycle `now`: CPL does not count the wait as stall cycles, [`cpl::Cpl::release`]).
    pub(super) fn check_barrier(&mut self, cs: usize, now: u64) {
        let c = self.ctas[cs];
        if !c.active || c.arrived == 0 {
            return;
        }
        let mut m = c.warps;
        let mut all = true;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            let wp = &self.warps[w];
            if wp.live && !wp.at_barrier && !wp.fetch_done {
                all = false;
                break;
            }
        }
        if !all {
            return;
        }
        let mut m = c.warps;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            let wp = &mut self.warps[w];
            let waited = wp.at_barrier;
            wp.at_barrier = false;
            wp.fetch_barrier = false;
            if self.cpl_on && waited {
                self.cpl.release(w, now);
            }
        }
        self.touch(c.warps);
        self.ctas[cs].arrived = 0;
        if self.elim_on {
            self.elim.barrier_released(cs);
        }
    }

    /// The unit of operation class `c` (from the per-SM table).
    #[inline(always)]
    pub(super) fn unit_of(&self, c: OpClass) -> Unit {
        self.class_tab[c as usize].unit
    }

    /// Result latency and initiation interval of operation class `c`, core cycles (from the
    /// per-SM table).
    #[inline(always)]
    pub(super) fn lat_ii(&self, c: OpClass) -> (u32, u32) {
        let t = &self.class_tab[c as usize];
        (t.lat, t.ii)
    }

    /// The unit of operation class `c` with `core.dp_on_sfu` = `dp_on_sfu`.
    pub(super) fn unit_for(c: OpClass, dp_on_sfu: bool) -> Unit {
        match c {
            OpClass::Load | OpClass::Store | OpClass::Atomic | OpClass::Tex => Unit::Mem,
            OpClass::Sfu | OpClass::Conv => Unit::Sfu,
            OpClass::Dp if dp_on_sfu => Unit::Sfu,
            OpClass::Barrier | OpClass::Exit | OpClass::Nop | OpClass::Fence => Unit::None,
            _ => Unit::Sp,
        }
    }

    pub(super) fn class_cycles(t: &ClassCycles, c: OpClass) -> u32 {
        match c {
            OpClass::IntAlu => t.int_alu,
            OpClass::IntMul => t.int_mul,
            OpClass::IntDiv => t.int_div,
            OpClass::FpAlu => t.fp_alu,
            OpClass::FpDiv => t.fp_div,
            OpClass::Dp => t.dp,
            OpClass::Sfu => t.sfu,
            OpClass::Conv => t.conv,
            OpClass::Branch => t.branch,
            OpClass::WarpCollective => t.collective,
            _ => t.misc,
        }
    }

    /// Free collectors of each unit kind (SP, SFU, memory), per sub-core, at most the
    /// sub-core's issue slots of the kind this cycle (`core.pipe.issue`); kept in `free_now`
    /// as collectors are taken and freed.
    #[inline]
    pub(super) fn free_units(&self) -> Free {
        self.free_now
    }

    /// Why warp `w` cannot issue at `now` (`None`: it is ready). Reads state only.
    pub(super) fn warp_why(&self, w: usize, now: u64, free: &Free) -> Option<Why> {
        let bit = 1u64 << w;
        if self.blocked.get() & bit != 0 {
            return Some(if self.blocked_mem.get() & bit != 0 {
                Why::MemData
            } else {
                Why::DataHazard
            });
        }
        let wp = &self.warps[w];
        if let Some(r) = headless_why(wp) {
            return Some(r);
        }
        let h = wp.head as usize;
        let inst = &wp.ibuf[h];
        Some(if wp.ready_at[h] > now {
            Why::Fetch
        } else if wp.sb.hazard(inst).is_some() {
            self.blocked.set(self.blocked.get() | bit);
            if wp.pending_loads > 0 {
                self.blocked_mem.set(self.blocked_mem.get() | bit);
                Why::MemData
            } else {
                Why::DataHazard
            }
        } else {
            let free = &free[self.sub_of[w] as usize];
            match self.unit_of(inst.class) {
                Unit::Sp if free[0] == 0 => Why::Structural,
                Unit::Sfu if free[1] == 0 => Why::Structural,
                Unit::Mem if free[2] == 0 => Why::Ldst,
                _ => return None,
            }
        })
    }

    /// Scheduler `s`'s view of its warps at `now`: (mask of warps, ready warps, long-waiting
    /// warps, the stall reason closest to issuing). Reads state only.
    pub(super) fn classify(&self, s: usize, now: u64, free: &Free) -> (u64, u64, u64, Why) {
        if self.check_classes {
            return self.classify_checked(s, now, free, &mut [None; 64]);
        }
        self.classify_kept(s, now, free)
    }

    /// Latency attribution or a probe is on: the schedulers' classification leaves every live
    /// warp's reason ([`SmState::classify_into`]).
    #[inline]
    fn want_whys(&self) -> bool {
        self.attribute || self.probe.is_some()
    }

    /// [`SmState::classify`], also leaving each live warp's reason in `whys` (`None`: ready)
    /// when latency attribution or a probe is on (otherwise `whys` is not written). The view
    /// comes from the per-warp state kept by [`SmState::classify_kept`]; with
    /// `sim.check_classes` it is compared with [`SmState::classify_full`].
    #[inline]
    pub(super) fn classify_into(
        &self,
        s: usize,
        now: u64,
        free: &Free,
        whys: &mut [Option<Why>; 64],
    ) -> (u64, u64, u64, Why) {
        if self.check_classes {
            return self.classify_checked(s, now, free, whys);
        }
        let r = self.classify_kept(s, now, free);
        if self.want_whys() {
            self.kept_whys(r.0, free, whys);
        }
        r
    }

    /// `sim.check_classes`: the kept classification, compared (view and every live warp's
    /// reason) with a full read of the warps; panics on a difference. The full read's own
    /// marks of blocked warps are undone, so the check never steers the run.
    fn classify_checked(
        &self,
        s: usize,
        now: u64,
        free: &Free,
        whys: &mut [Option<Why>; 64],
    ) -> (u64, u64, u64, Why) {
        let kept = self.classify_kept(s, now, free);
        let mut kw = [None; 64];
        self.kept_whys(kept.0, free, &mut kw);
        let (b, bm) = (self.blocked.get(), self.blocked_mem.get());
        let mut fw = [None; 64];
        let full = self.classify_full(s, now, free, &mut fw);
        self.blocked.set(b);
        self.blocked_mem.set(bm);
        let mut m = full.0 | kept.0;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            assert_eq!(
                kw[w], fw[w],
                "SM {} scheduler {s} cycle {now}: warp {w}'s kept reason differs from a full read",
                self.id
            );
            whys[w] = kw[w];
        }
        assert_eq!(
            kept, full,
            "SM {} scheduler {s} cycle {now}: kept view (mask, ready, long wait, reason) differs \
             from a full read",
            self.id
        );
        kept
    }

    /// Scheduler `s`'s view read from every live warp with [`SmState::warp_why`], leaving each
    /// one's reason in `whys` (the reference for the kept classification, `sim.check_classes`).
    pub(super) fn classify_full(
        &self,
        s: usize,
        now: u64,
        free: &Free,
        whys: &mut [Option<Why>; 64],
    ) -> (u64, u64, u64, Why) {
        let mask = self.sched_masks[s] & self.used_warps;
        let mut ready = 0u64;
        let mut long_wait = 0u64;
        let mut why = Why::Idle;
        let mut m = mask;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            debug_assert!(self.warps[w].live, "used warp slots hold live warps");
            let r = self.warp_why(w, now, free);
            whys[w] = r;
            match r {
                None => ready |= 1 << w,
                Some(r) => {
                    if matches!(r, Why::Sync | Why::MemData) {
                        long_wait |= 1 << w;
                    }
                    why = why.min(r);
                }
            }
        }
        (mask, ready, long_wait, why)
    }

    /// Latency attribution: `n` probes of warp `w` in consecutive cycles from `now`, each
    /// finding it held by `why` (`None`: it issued). The cycles since its previous probe,
    /// minus one, were spent waiting for the scheduler.
    pub(super) fn probe(&mut self, w: usize, now: u64, n: u64, why: Option<Why>) {
        let wp = &mut self.warps[w];
        let l = &mut wp.lat;
        l.scheduling += now.wrapping_sub(wp.probed).saturating_sub(1);
        wp.probed = now + n - 1;
        match why {
            None => l.exec += n,
            Some(Why::Sync) => l.sync += n,
            Some(Why::Fetch) => l.fetch += n,
            Some(Why::Control) => l.control += n,
            Some(Why::DataHazard) => l.data_hazard += n,
            Some(Why::MemData) => {
                // Algorithm 2, exactly: a dependence on a register whose pending producer is a
                // load that missed in the L1D is charged one data-hazard cycle for the first
                // stall cycle on that load and data-cache-miss (`Data$`) cycles after; a
                // dependence on any other producer (an ALU result, a load that hit or has not
                // reached the L1D yet, shared memory) is a data hazard. The load is identified
                // by the missed register the instruction waits for and the loads the warp has
                // issued (the document's pending address: a warp stalled on a load issues no
                // other).
                match wp.sb.hazard_in(&wp.missed, &wp.ibuf[wp.head as usize]) {
                    Some(r) => {
                        let dep = (wp.loads_issued as u64) << 16 | (r as u64 + 1);
                        if dep != wp.pending_dep {
                            wp.pending_dep = dep;
                            l.data_hazard += 1;
                            l.data_miss += n - 1;
                        } else {
                            l.data_miss += n;
                        }
                    }
                    None => l.data_hazard += n,
                }
            }
            Some(Why::Structural) => l.structural += n,
            // The memory path cannot take the instruction: MSHRs, miss queue or load trackers
            // exhausted (`MSHR`), or the LD/ST unit busy with other accesses (a structural
            // hazard, §2.1: "functional unit unavailable").
            Some(Why::Ldst) if self.mem_blocked => l.mshr += n,
            Some(Why::Ldst) => l.structural += n,
            Some(Why::Idle) => {}
        }
    }

    /// Probes every live warp of `mask` (a scheduler that found no ready warp), `n` cycles;
    /// `whys` are their reasons from [`SmState::classify_into`].
    pub(super) fn probe_all(&mut self, mask: u64, now: u64, n: u64, whys: &[Option<Why>; 64]) {
        let mut m = mask;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            if self.warps[w].live {
                self.probe(w, now, n, whys[w]);
            }
        }
    }

    pub(super) fn count_stall(&mut self, why: Why, n: u64) {
        let st = &mut self.stalls;
        match why {
            Why::Idle => st.idle += n,
            Why::Fetch => st.fetch += n,
            Why::Control => st.control += n,
            Why::Sync => st.sync += n,
            Why::DataHazard => st.data_hazard += n,
            Why::MemData => st.mem_data += n,
            Why::Structural => st.structural += n,
            Why::Ldst => st.ldst += n,
        }
    }

    /// One issue cycle: every scheduler picks at most one warp. The schedulers claim the shared
    /// collectors and the LD/ST unit in a round-robin order: the scheduler that goes first
    /// keeps that place until it issues, then the next one goes first (a round-robin arbiter,
    /// as GPGPU-Sim 4's "fair round robin issue between schedulers"). A fixed order let
    /// scheduler 0's warps (the even slots) always win a freed unit, which made the odd slots
    /// of memory-bound kernels systematically slower and so decided which warp of a TB is
    /// critical; rotating with the cycle number instead is no fairer when a unit frees at a
    /// fixed period (an even period hands it to the same scheduler every time).
    pub(super) fn issue(&mut self, now: u64) {
        let mut free = self.free_units();
        let mut whys = [None; 64];
        let (mut issued, mut operand_wait) = (0u32, false);
        let first = self.issue_first;
        for k in 0..self.n_sched {
            let s = if first + k >= self.n_sched {
                first + k - self.n_sched
            } else {
                first + k
            };
            // Without per-warp reasons to leave, the cycle's reason is worked out only when
            // the scheduler issues nothing.
            let (mask, ready, long_wait, wanting, why) = if self.check_classes || self.want_whys() {
                let (m, r, l, y) = self.classify_into(s, now, &free, &mut whys);
                (m, r, l, 0, Some(y))
            } else {
                let (m, r, l, wa) = self.classify_masks(s, now, &free);
                (m, r, l, wa, None)
            };
            if self.probe.is_some() {
                self.probe_cycle.ready_warps += ready.count_ones();
            }
            let view = SchedView {
                valid: mask,
                ready,
                long_wait,
                age: &self.ages,
                crit: &self.cpl.crit,
            };
            // `core.pipe.in_ports`: the collectors take no more instructions this cycle.
            let ports_full = issued >= self.in_ports;
            let pick = if ready != 0 && !ports_full {
                self.scheds[s].pick(&view)
            } else {
                None
            };
            match pick {
                Some(w) if ready & (1 << w) != 0 => {
                    // The warps the scheduler examined before its pick (none of them ready).
                    let mut before = if self.attribute {
                        self.scheds[s].visited_before(&view, w) & mask & !ready
                    } else {
                        0
                    };
                    while before != 0 {
                        let v = before.trailing_zeros() as usize;
                        before &= before - 1;
                        if self.warps[v].live {
                            self.probe(v, now, 1, whys[v]);
                        }
                    }
                    if self.attribute {
                        self.probe(w, now, 1, None);
                    }
                    self.scheds[s].on_issue(w);
                    self.count_issuer(w, now);
                    if self.cpl_on {
                        let idx = self.warps[w].ibuf[self.warps[w].head as usize].static_idx;
                        let tb = self.tb_of(w);
                        self.cpl.on_issue(w, idx, now, tb);
                    }
                    let unit = self.unit_of(self.warps[w].ibuf[self.warps[w].head as usize].class);
                    self.issue_warp(w, &mut free, now);
                    issued += 1;
                    if self.issue_per_warp > 1 {
                        issued += self.issue_more(s, w, unit, issued, &mut free, now);
                    }
                    if k == 0 {
                        self.issue_first = if first + 1 == self.n_sched {
                            0
                        } else {
                            first + 1
                        };
                    }
                }
                _ => {
                    let why = if ready != 0 && ports_full {
                        Why::Structural
                    } else {
                        why.unwrap_or_else(|| self.kept_reason(mask, wanting))
                    };
                    operand_wait |= matches!(why, Why::DataHazard | Why::MemData);
                    self.count_stall(why, 1);
                    if self.attribute {
                        self.probe_all(mask, now, 1, &whys);
                    }
                }
            }
        }
        self.probe_cycle.issued = issued;
        self.probe_cycle.operand_stall = issued == 0 && operand_wait;
        if self.probe.is_some() {
            // `whys` holds every live warp's reason when a probe is installed.
            self.probe_cycle.operand_wait_any = issued == 0
                && whys
                    .iter()
                    .any(|w| matches!(w, Some(Why::DataHazard | Why::MemData)));
            // Nothing issued, so `free` is still the cycle's start: a waiting warp's own unit
            // had room iff its slot count there is non-zero.
            self.probe_cycle.operand_wait_unit_free = self.probe_cycle.operand_wait_any
                && whys.iter().enumerate().any(|(w, why)| {
                    matches!(why, Some(Why::DataHazard | Why::MemData))
                        && self.head_unit_free(w, &free)
                });
            self.probe_stalls(&whys);
        }
    }

    /// Whether the unit of warp `w`'s next instruction has room in `free` (its sub-core's
    /// slots; a class without a unit always has). A warp without a buffered instruction has
    /// none to place: false.
    fn head_unit_free(&self, w: usize, free: &Free) -> bool {
        let wp = &self.warps[w];
        if wp.len == 0 {
            return false;
        }
        let f = &free[self.sub_of[w] as usize];
        match self.unit_of(wp.ibuf[wp.head as usize].class) {
            Unit::Sp => f[0] > 0,
            Unit::Sfu => f[1] > 0,
            Unit::Mem => f[2] > 0,
            Unit::None => true,
        }
    }

    /// Warp slot `w` issued at `now`: counts it among the issue-spread window's warps
    /// (`CoreStats::issue_windows` / `issuing_warps`), closing the previous window first.
    #[inline]
    fn count_issuer(&mut self, w: usize, now: u64) {
        let win = now / ISSUE_WINDOW;
        if win != self.issue_win {
            if self.issue_win_mask != 0 {
                self.stats.issue_windows += 1;
                self.stats.issuing_warps += self.issue_win_mask.count_ones() as u64;
            }
            self.issue_win = win;
            self.issue_win_mask = 0;
        }
        self.issue_win_mask |= 1 << w;
    }

    /// `core.max_issue_per_warp`: after warp `w` of scheduler `s` issued an instruction to
    /// `unit`, its next buffered instructions issue in order while each is ready and (with
    /// `core.dual_issue_diff_units`) goes to another unit than the one before, up to the
    /// per-warp limit and the collectors' input ports (`issued` so far this cycle). Returns the
    /// instructions issued.
    fn issue_more(
        &mut self,
        s: usize,
        w: usize,
        mut unit: Unit,
        issued: u32,
        free: &mut Free,
        now: u64,
    ) -> u32 {
        let mut more = 0;
        while more + 1 < self.issue_per_warp && issued + more < self.in_ports {
            if !self.warps[w].live || self.warp_why(w, now, free).is_some() {
                break;
            }
            let next = self.unit_of(self.warps[w].ibuf[self.warps[w].head as usize].class);
            if self.issue_diff_units && next == unit {
                break;
            }
            // (Latency attribution already charged this cycle of `w` as execution.)
            self.scheds[s].on_issue(w);
            if self.cpl_on {
                let idx = self.warps[w].ibuf[self.warps[w].head as usize].static_idx;
                let tb = self.tb_of(w);
                self.cpl.on_issue(w, idx, now, tb);
            }
            self.issue_warp(w, free, now);
            unit = next;
            more += 1;
        }
        more
    }

    /// Reports to the probe every warp whose next instruction waits on an L1D-missing load.
    fn probe_stalls(&mut self, whys: &[Option<Why>; 64]) {
        let Some(p) = self.probe.as_mut() else {
            return;
        };
        for (w, why) in whys.iter().enumerate().take(self.warps.len()) {
            let wp = &self.warps[w];
            if *why != Some(Why::MemData) || !wp.live || wp.len == 0 {
                continue;
            }
            if let Some(r) = wp.sb.hazard_in(&wp.missed, &wp.ibuf[wp.head as usize]) {
                if let Some(&(_, pc)) = wp.miss_pcs.iter().find(|(x, _)| *x == r) {
                    p.stall_on_miss(pc);
                }
            }
        }
    }

    #[inline(always)]
    pub(super) fn issue_warp(&mut self, w: usize, free: &mut Free, now: u64) {
        self.progressed = true;
        self.touch(1 << w);
        let h = self.warps[w].head as usize;
        // The entry is read in place (a `DynInst` is 320 bytes): only a memory instruction's
        // collector gets a full copy, the others take the few fields their unit needs.
        let (class, lanes) = {
            let wp = &mut self.warps[w];
            wp.head = ((h + 1) % MAX_IBUF) as u8;
            wp.len -= 1;
            let inst = &wp.ibuf[h];
            (inst.class, inst.active_mask.count_ones())
        };
        self.stats.warp_insts += 1;
        self.stats.thread_insts += lanes as u64;
        if self.elim_on {
            let inst = self.warps[w].ibuf[h];
            let (cs, wic) = (self.warps[w].cta_slot as usize, self.warps[w].warp_in_cta);
            if self.elim.at_issue(cs, wic, &inst) {
                // Reused result: no operand read, no unit; the destination is ready next cycle.
                self.count_eliminated(&inst, false);
                let wp = &mut self.warps[w];
                for &r in inst.dsts() {
                    wp.sb.reserve(r);
                }
                wp.inflight += 1;
                self.push_ev(
                    now + 1,
                    Ev::Writeback {
                        warp: w as u8,
                        regs: inst.dst,
                        n: inst.n_dst,
                        branch: false,
                    },
                );
                return;
            }
        }
        let unit = self.unit_of(class);
        if unit == Unit::None {
            if class == OpClass::Barrier {
                let cs = self.warps[w].cta_slot as usize;
                self.warps[w].at_barrier = true;
                self.ctas[cs].arrived += 1;
                self.check_barrier(cs, now);
            }
            return;
        }
        let k = match unit {
            Unit::Sp => 0,
            Unit::Sfu => 1,
            _ => 2,
        };
        let sub = self.sub_of[w] as usize;
        free[sub][k] -= 1;
        let idle = self.cu_mask[sub][k] & !self.cu_busy;
        assert!(idle != 0, "free collector");
        let ci = idle.trailing_zeros() as usize;
        self.cu_busy |= 1 << ci;
        self.cu_idle[sub][k] -= 1;
        self.free_now[sub][k] = self.cu_idle[sub][k].min(self.issue_cap[k]);
        let wp = &mut self.warps[w];
        let (cs, wic) = (wp.cta_slot as usize, wp.warp_in_cta);
        let inst = &wp.ibuf[h];
        for &r in &inst.dst[..inst.n_dst as usize] {
            wp.sb.reserve(r);
        }
        wp.inflight += 1;
        if unit == Unit::Mem && inst.n_dst > 0 && class != OpClass::Store {
            wp.pending_loads += 1;
            wp.loads_issued = wp.loads_issued.wrapping_add(1);
        }
        self.cu_seq += 1;
        let c = &mut self.cus[ci];
        c.warp = w as u8;
        c.seq = self.cu_seq;
        c.reads = 0;
        for &r in &inst.src[..inst.n_src as usize] {
            // A register a redundancy policy renamed is read from its rename area; the bank
            // is one of the warp's sub-core's own (all of them with one sub-core).
            let phys = if self.elim_on {
                self.elim.renamed(cs, wic, r)
            } else {
                None
            };
            let (x, bps) = (phys.unwrap_or(r as u32 + w as u32), self.banks_per_sub);
            // The remainder without a division where the bank count is a power of two.
            let local = if bps.is_power_of_two() {
                x & (bps - 1)
            } else {
                x % bps
            };
            let b = (sub as u32 * bps + local) as u8;
            c.banks[c.reads as usize] = b;
            c.reads += 1;
        }
        if c.reads > 0 {
            self.cu_pending |= 1 << ci;
        }
        if unit == Unit::Sp
            && !self.int_free.is_empty()
            && !matches!(class, OpClass::FpAlu | OpClass::FpDiv | OpClass::Dp)
        {
            // Integer, logic, branch and other non-floating-point ALU work runs on the INT
            // pipelines where there are any (GPGPU-Sim issues every SP-unit op but SP_OP there).
            self.cu_int |= 1 << ci;
        }
        let ci_inst = &mut self.cu_insts[ci];
        if unit == Unit::Mem {
            *ci_inst = *inst;
        } else {
            // What `collect_and_dispatch` reads of an ALU instruction.
            ci_inst.class = class;
            ci_inst.n_dst = inst.n_dst;
            ci_inst.dst = inst.dst;
        }
    }

    /// Frees warps that have exited with nothing in flight, and CTAs whose warps all did; a
    /// retiring warp's cycles since its last probe are synchronisation (waiting for its stores
    /// and its CTA), and its lifetime is closed.
    pub(super) fn retire(&mut self, now: u64) {
        let mut m = self.used_warps & self.fetched_all;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            let wp = &self.warps[w];
            if !(wp.live && wp.exited() && wp.inflight == 0) {
                continue;
            }
            // A warp that has exited also leaves any pending barrier.
            let cs = wp.cta_slot as usize;
            let (born, probed) = (wp.born, wp.probed);
            if self.attribute {
                let l = &mut self.warps[w].lat;
                l.warps += 1;
                l.lifetime += now + 1 - born;
                l.sync += now.wrapping_sub(probed);
                self.latency.add(l);
            }
            if self.record_warps {
                let (l1d_reuse_served, l1d_reuse_lost) = self.l1d.take_warp_reuse(w);
                let wp = &self.warps[w];
                self.warp_log.push(WarpTime {
                    sm: self.id,
                    cta: wp.cta,
                    warp: wp.warp_in_cta,
                    start: born,
                    end: now,
                    critical: self.scheds[w % self.n_sched].was_critical(w),
                    latency: self.attribute.then_some(wp.lat),
                    l1d_reuse_served,
                    l1d_reuse_lost,
                });
            }
            for s in self.scheds.iter_mut() {
                s.warp_finished(w);
            }
            self.warps[w].live = false;
            self.clear_blocked(w);
            self.touch(1 << w);
            self.fetched_all &= !(1 << w);
            self.used_warps &= !(1 << w);
            self.exited_warp = true;
            self.cpl.exit(w, cs, now);
            let c = &mut self.ctas[cs];
            c.live -= 1;
            c.warps &= !(1u64 << w);
            if c.live == 0 {
                // The accuracy record of the TB's oracle critical warp (spec 000 §8.2).
                let r = self.cpl.tb_done(cs);
                self.stats.cpl_correct += r.marks.top;
                self.stats.cpl_correct_inst += r.marks.top_inst;
                self.stats.cpl_correct_stall += r.marks.top_stall;
                if let Some(rho) = r.rho {
                    let st = &mut self.stats;
                    st.cpl_rank_tbs += 1;
                    let sums = [
                        [
                            &mut st.cpl_rho_counter_25_ppm,
                            &mut st.cpl_rho_inst_25_ppm,
                            &mut st.cpl_rho_stall_25_ppm,
                        ],
                        [
                            &mut st.cpl_rho_counter_50_ppm,
                            &mut st.cpl_rho_inst_50_ppm,
                            &mut st.cpl_rho_stall_50_ppm,
                        ],
                        [
                            &mut st.cpl_rho_counter_75_ppm,
                            &mut st.cpl_rho_inst_75_ppm,
                            &mut st.cpl_rho_stall_75_ppm,
                        ],
                    ];
                    for (row, sum) in rho.iter().zip(sums) {
                        for (v, s) in row.iter().zip(sum) {
                            *s += (v + 1_000_000) as u64;
                        }
                    }
                }
                self.stats.cpl_samples += r.marks.samples;
                self.stats.cpl_correct_inclusive += r.marks.top_inclusive;
                self.stats.cpl_chance_ppm += r.marks.chance_ppm;
                self.stats.cpl_chance_inclusive_ppm += r.marks.chance_inclusive_ppm;
                if r.has_spread() {
                    self.stats.cpl_correct_spread += r.marks.top;
                    self.stats.cpl_samples_spread += r.marks.samples;
                    self.stats.tbs_spread += 1;
                }
                self.stats.tb_spread_ppm += r.spread_ppm;
                self.stats.tb_lifetime_cycles += r.lifetime;
                c.active = false;
                self.regs_used -= c.regs;
                self.smem_used -= c.smem;
                self.finished.push(c.cta);
                self.stats.ctas += 1;
            } else {
                self.check_barrier(cs, now);
            }
        }
    }
}

/// Why a warp with no instruction to look at waits: at a barrier or finished (`Sync`), a branch
/// being resolved (`Control`) or an empty instruction buffer (`Fetch`); `None` when an
/// instruction is at the head of its buffer. Shared by [`SmState::warp_why`] and the kept
/// per-warp classification.
pub(super) fn headless_why(wp: &Warp) -> Option<Why> {
    if wp.at_barrier {
        Some(Why::Sync)
    } else if wp.len > 0 {
        None
    } else if wp.fetch_done {
        Some(Why::Sync)
    } else if wp.branch_pending {
        Some(Why::Control)
    } else {
        Some(Why::Fetch)
    }
}
