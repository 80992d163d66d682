//! Front end of the SM: CTA dispatch (resource checks, warp slots) and instruction fetch
//! through the L1I (misses sent to the L2 through the interconnect, fills, re-fetch).

use super::*;

/// Redundant instructions one warp may skip in one fetch slot (document 003 §5.3 leaves the
/// number open, §6.3 ambiguity 4).
const MAX_SKIPS_PER_FETCH: u32 = 4;

impl SmState {
    /// Kernel boundary: flush the L1D, constant and texture caches (GPGPU-Sim
    /// `-gpgpu_flush_l1_cache 1`) and the L1I; the kernel's instructions live at `code_base` ([`code::code_base`]).
    pub fn start_kernel(&mut self, code_base: u64, launch: u32) {
        self.code_base = code_base;
        self.launch = launch;
        self.l1d.flush();
        self.cc.flush();
        self.tc.flush();
        self.l1i.invalidate_all();
        self.l1i_gen += 1;
    }

    /// Unified L1/shared array: the L1D of this launch has geometry `c`
    /// ([`crate::mem::carveout`]); called after [`SmState::start_kernel`], which flushed it.
    pub fn resize_l1d(&mut self, c: &crate::config::CacheConfig) {
        self.l1d.resize(c);
    }

    pub(super) fn cta_resources(k: &KernelInfo) -> (u32, u32, u32) {
        let warps = k.warps_per_cta();
        let regs = k.regs_per_thread * warps * WARP_SIZE as u32;
        (warps, regs, k.shared_bytes)
    }

    /// Whether a CTA of `k` could ever fit on an empty SM (error text if not).
    pub fn check_fits(cfg: &GpuConfig, k: &KernelInfo) -> Result<(), String> {
        let (w, r, s) = Self::cta_resources(k);
        let c = &cfg.core;
        if w > c.max_warps {
            return Err(format!(
                "a CTA of {} warps exceeds core.max_warps = {}",
                w, c.max_warps
            ));
        }
        if r > c.registers {
            return Err(format!(
                "a CTA needs {r} registers, core.registers = {}",
                c.registers
            ));
        }
        if s > c.shared_bytes {
            return Err(format!(
                "a CTA needs {s} B of shared memory, core.shared_bytes = {}",
                c.shared_bytes
            ));
        }
        Ok(())
    }

    /// Tries to place CTA `cta` here in core cycle `now`; returns whether it was placed.
    pub fn dispatch_cta(
        &mut self,
        now: u64,
        cta: u32,
        k: &KernelInfo,
        src: &mut dyn WarpSource,
    ) -> Result<bool, SourceError> {
        let (w, r, s) = Self::cta_resources(k);
        let free_warps = self.max_warps as u32 - self.used_warps.count_ones();
        let Some(slot) = self.ctas.iter().position(|c| !c.active) else {
            return Ok(false);
        };
        if w > free_warps
            || self.regs_used + r > self.regs_total
            || self.smem_used + s > self.smem_total
        {
            return Ok(false);
        }
        let n = src.start_cta(cta, self.id as u32)?;
        if self.warps.is_empty() {
            // First CTA on this SM: warp slots (with their instruction buffers, the bulk of an
            // SM's memory) are allocated only now, so SMs that never run a CTA cost nothing.
            self.warps = vec![Warp::default(); self.max_warps];
        }
        let mut mask = 0u64;
        let mut placed = 0;
        for ws in 0..self.max_warps {
            if placed == n {
                break;
            }
            if self.used_warps & (1 << ws) != 0 {
                continue;
            }
            mask |= 1 << ws;
            self.clear_blocked(ws);
            self.fetched_all &= !(1 << ws);
            let wp = &mut self.warps[ws];
            *wp = Warp {
                live: true,
                cta_slot: slot as u8,
                cta,
                warp_in_cta: placed,
                age: self.age_counter,
                born: now,
                probed: now.wrapping_sub(1),
                ..Warp::default()
            };
            self.ages[ws] = self.age_counter;
            self.cpl.start(ws, now);
            self.age_counter += 1;
            let info = WarpInfo {
                launch: self.launch,
                cta,
                warp: placed,
                cta_slot: slot as u8,
            };
            for (s, sch) in self.scheds.iter_mut().enumerate() {
                sch.warp_started(ws, &info, ws % self.n_sched == s);
            }
            placed += 1;
        }
        if self.elim_on {
            self.elim.start_kernel(k);
            self.elim.cta_started(slot, placed);
            if self.held.is_empty() {
                self.held = vec![DynInst::default(); self.max_warps];
            }
        }
        self.used_warps |= mask;
        self.touch(mask);
        self.regs_used += r;
        self.smem_used += s;
        self.ctas[slot] = CtaSlot {
            active: true,
            cta,
            warps: mask,
            live: placed,
            arrived: 0,
            regs: r,
            smem: s,
        };
        Ok(true)
    }

    /// Sequential phase: fetch for up to `fetch_per_cycle` warps.
    pub fn fetch(&mut self, now: u64, src: &mut dyn WarpSource) -> Result<(), SourceError> {
        if self.used_warps == 0 {
            return Ok(());
        }
        if self.held_mask != 0 {
            self.retry_held(now);
        }
        // Warps given a slot this cycle: a warp gets at most one fetch slot per cycle (as in
        // GPGPU-Sim, where a fetched warp's I-buffer is no longer empty). With elimination on, a
        // warp can come out of its slot with an empty I-buffer (everything skipped, or held);
        // a held warp must not fetch past its held instruction, and the mask is read live so
        // that a warp held in an earlier slot of this cycle is not picked again.
        //
        // A fetch attempt in which the policy only skipped instructions or held the warp (no
        // I-cache probe) uses no fetch slot: DARSIE's skip logic works beside the fetch
        // scheduler (document 003 §7.3.2: it skips "some instructions while initiating a fetch
        // for another"), so the slot goes to the next warp. Without a policy every attempt
        // probes the I-cache (or finds the warp done) and takes its slot, as before.
        let mut served = 0u64;
        let mut slots = 0u32;
        while slots < self.fetch_per_cycle {
            // Warps found unfetchable stay so until touched (`SmState::touch`): the scan skips them.
            self.nofetch &= !self.touched_fetch;
            self.touched_fetch = 0;
            let mut pick = None;
            // Round robin from fetch_rr.
            let mut m = (self.used_warps & !self.nofetch).rotate_right(self.fetch_rr as u32);
            while m != 0 {
                let k = m.trailing_zeros() as usize;
                m &= m - 1;
                let w = (k + self.fetch_rr) % 64;
                if served & (1 << w) != 0 {
                    // Not fetchable again this cycle only: not remembered.
                    continue;
                }
                let wp = &self.warps[w];
                if wp.live
                    && self.held_mask & (1 << w) == 0
                    && (wp.refetch
                        || (wp.len == 0
                            && !wp.fetch_done
                            && !wp.fetch_barrier
                            && !wp.branch_pending))
                {
                    pick = Some(w);
                    break;
                }
                self.nofetch |= 1 << w;
            }
            let Some(w) = pick else { return Ok(()) };
            served |= 1 << w;
            self.touch(1 << w);
            self.fetch_rr = (w + 1) % 64;
            if self.warps[w].refetch {
                self.refetch(w, now);
                slots += 1;
                let wp = &self.warps[w];
                if wp.fetch_done || wp.fetch_barrier || wp.branch_pending {
                    continue;
                }
                self.fetch_warp(w, now, src)?;
                continue;
            }
            if self.fetch_warp(w, now, src)? {
                slots += 1;
            } else {
                self.stats.elim_slotless_fetches += 1;
            }
        }
        Ok(())
    }

    /// Fetches for warp `w` (skipping or holding what the policy says) until its I-buffer is
    /// full or fetch stops; returns whether the attempt used a fetch slot: `false` when the
    /// policy only skipped instructions or held the warp (no I-cache probe).
    #[inline(always)]
    pub(super) fn fetch_warp(
        &mut self,
        w: usize,
        now: u64,
        src: &mut dyn WarpSource,
    ) -> Result<bool, SourceError> {
        let mut ready = now + self.decode;
        let cap = self.ibuf_cap;
        let mut skips = 0u32;
        let mut held = false;
        let mut probed = false;
        loop {
            let wp = &mut self.warps[w];
            if wp.len >= cap {
                break;
            }
            let slot = ((wp.head + wp.len) as usize) % MAX_IBUF;
            let step = src.next(wp.cta, wp.warp_in_cta, &mut wp.ibuf[slot])?;
            if step == WarpStep::Wait {
                // A window-mode front end holds the warp until the window's end.
                break;
            }
            if step == WarpStep::Done {
                wp.fetch_done = true;
                self.fetched_all |= 1 << w;
                if self.elim_on {
                    let (cs, wic) = (wp.cta_slot as usize, wp.warp_in_cta);
                    self.elim.warp_done(cs, wic);
                }
                break;
            }
            if self.elim_on {
                let at = At {
                    now,
                    cta_slot: wp.cta_slot as usize,
                    warp: wp.warp_in_cta,
                    retry: false,
                };
                match self.elim.fetched(&at, &self.warps[w].ibuf[slot]) {
                    Fetch::Keep => {}
                    Fetch::Skip => {
                        // Skipped before the I-cache (PC + 8); a few per fetch slot.
                        let inst = self.warps[w].ibuf[slot];
                        self.warps[w].last_pc = inst.pc;
                        self.count_eliminated(&inst, true);
                        skips += 1;
                        if skips >= MAX_SKIPS_PER_FETCH {
                            break;
                        }
                        continue;
                    }
                    Fetch::Hold => {
                        debug_assert!(self.held_mask & (1 << w) == 0, "warp {w} held twice");
                        self.held[w] = self.warps[w].ibuf[slot];
                        self.held_mask |= 1 << w;
                        held = true;
                        break;
                    }
                }
            }
            probed = true;
            if self.accept(w, slot, now, &mut ready) {
                break;
            }
        }
        let cs = self.warps[w].cta_slot as usize;
        if self.warps[w].fetch_done {
            self.check_barrier(cs, now);
        }
        Ok(probed || (skips == 0 && !held))
    }

    /// Retries the instructions policies hold in fetch (one attempt per held warp per cycle;
    /// the retry uses no fetch slot: it is the skip logic's comparison).
    fn retry_held(&mut self, now: u64) {
        let mut m = self.held_mask;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            self.stats.elim_hold_cycles += 1;
            self.touch(1 << w);
            let inst = self.held[w];
            let wp = &self.warps[w];
            let at = At {
                now,
                cta_slot: wp.cta_slot as usize,
                warp: wp.warp_in_cta,
                retry: true,
            };
            match self.elim.fetched(&at, &inst) {
                Fetch::Hold => {}
                Fetch::Skip => {
                    self.held_mask &= !(1 << w);
                    self.warps[w].last_pc = inst.pc;
                    self.count_eliminated(&inst, true);
                }
                Fetch::Keep => {
                    self.held_mask &= !(1 << w);
                    let wp = &mut self.warps[w];
                    let slot = ((wp.head + wp.len) as usize) % MAX_IBUF;
                    wp.ibuf[slot] = inst;
                    let mut ready = now + self.decode;
                    self.accept(w, slot, now, &mut ready);
                    let cs = self.warps[w].cta_slot as usize;
                    if self.warps[w].fetch_done {
                        self.check_barrier(cs, now);
                    }
                }
            }
        }
    }

    /// The instruction in I-buffer slot `slot` of warp `w` goes through the L1I and joins the
    /// buffer; returns whether fetching for this warp stops here (exit, barrier, branch, miss).
    #[inline(always)]
    fn accept(&mut self, w: usize, slot: usize, now: u64, ready: &mut u64) -> bool {
        let wp = &mut self.warps[w];
        let inst = &wp.ibuf[slot];
        let pc = inst.pc;
        wp.last_pc = pc;
        let line = self.l1i.line_of(code::code_addr(self.code_base, pc));
        self.l1i_stats.accesses += 1;
        let mut missed = false;
        // The line this warp last hit, with no fill, eviction or flush since: a hit in the
        // same way (the tag lookup reads only what those change; the replacement policy is
        // still told of every hit).
        let kept = wp.iline == line && wp.igen == self.l1i_gen;
        let way = wp.iway as usize;
        let found = if self.l1i_perfect {
            // `l1i.perfect`: every fetch hits, nothing is filled (no lookup needed).
            Lookup::Miss
        } else if kept {
            Lookup::Hit(way)
        } else {
            self.l1i.lookup(line, 1)
        };
        match found {
            _ if self.l1i_perfect => self.l1i_stats.hits += 1,
            Lookup::Hit(way) => {
                self.l1i.touch(line, way);
                self.l1i_stats.hits += 1;
                let wp = &mut self.warps[w];
                wp.iline = line;
                wp.iway = way as u32;
                wp.igen = self.l1i_gen;
            }
            _ if self.l1i_miss > 0 => {
                // Fixed-penalty mode (`l1i.miss_latency > 0`): fill at once, pay the penalty.
                self.l1i_stats.misses += 1;
                self.l1i_fill(line);
                *ready = (*ready).max(now + self.l1i_miss + self.decode);
            }
            _ => {
                // Realistic mode: the entry waits for the line from L2 (see `imiss_step`,
                // which counts the miss, or a merge into an outstanding miss).
                missed = true;
            }
        }
        let wp = &mut self.warps[w];
        let inst = &wp.ibuf[slot];
        let class = inst.class;
        let exits = inst.warp_exits;
        wp.ready_at[slot] = if missed { u64::MAX } else { *ready };
        wp.len += 1;
        if missed {
            wp.imiss = Some(line);
            self.imiss_unsent |= 1 << w;
        }
        if exits {
            wp.fetch_done = true;
            self.fetched_all |= 1 << w;
            if self.elim_on {
                let (cs, wic) = (wp.cta_slot as usize, wp.warp_in_cta);
                self.elim.warp_done(cs, wic);
            }
            return true;
        }
        if class == OpClass::Barrier {
            self.warps[w].fetch_barrier = true;
            return true;
        }
        if class == OpClass::Branch {
            self.warps[w].branch_pending = true;
            return true;
        }
        // Fetch resumes for this warp once the line has arrived and the entry issued.
        missed
    }

    /// The fetch slot re-accesses the L1I for warp `w` after its line arrived: the waiting
    /// entry becomes issuable after decode.
    pub(super) fn refetch(&mut self, w: usize, now: u64) {
        let ready = now + self.decode;
        let wp = &mut self.warps[w];
        wp.refetch = false;
        for k in 0..wp.len as usize {
            let slot = (wp.head as usize + k) % MAX_IBUF;
            if wp.ready_at[slot] == u64::MAX {
                wp.ready_at[slot] = ready;
            }
        }
    }

    /// Installs L1I line `line` (allocate, evicting as the policy says, and mark valid).
    pub(super) fn l1i_fill(&mut self, line: u64) {
        self.l1i_gen += 1;
        if let Some((_, ev)) = self.l1i.allocate(line, false) {
            if ev.is_some() {
                self.l1i_stats.evictions += 1;
            }
            let full = self.l1i.full_mask();
            self.l1i.fill(line, full);
        }
    }

    /// L1I misses to the memory system: every warp waiting for a line without an MSHR entry
    /// joins the entry of that line or opens one (when free), which queues a line-size read to
    /// the L2 slice owning the code address. Allocation-free: the MSHR and the queue are
    /// preallocated (`l1i.mshr_entries`).
    pub(super) fn imiss_step(&mut self) {
        let mut m = self.imiss_unsent;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            let Some(line) = self.warps[w].imiss else {
                self.imiss_unsent &= !(1 << w);
                continue;
            };
            if self.imshr.find(line).is_some() {
                self.l1i_stats.merged += 1;
                self.l1i_stats.misses += 1;
            } else {
                if !self.imshr.has_free() {
                    continue;
                }
                self.l1i_stats.misses += 1;
                self.imshr.open(line, w as u8);
                let addr = line * self.l1i.line_bytes();
                self.imiss_q.push_back(MemReq {
                    addr,
                    bytes: self.l1i.line_bytes() as u32,
                    kind: ReqKind::Read,
                    src: ReqSrc::L1i,
                    bypass: false,
                    sm: self.id,
                    slice: self.map.slice(addr) as u16,
                    id: u32::MAX,
                    born: 0,
                    crit: false,
                    miss_pc: 0,
                });
            }
            self.imiss_unsent &= !(1 << w);
        }
    }

    /// An L1I line arrived from L2: install it and mark every warp waiting for it for a
    /// re-fetch (the fetch unit then serves them one per fetch slot).
    pub(super) fn ifill(&mut self, r: &MemReq) {
        let line = self.l1i.line_of(r.addr);
        self.l1i_fill(line);
        self.imshr.close(line, |_| {});
        let mut m = self.used_warps;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            let wp = &mut self.warps[w];
            if wp.imiss != Some(line) {
                continue;
            }
            wp.imiss = None;
            wp.refetch = true;
            self.touched_fetch |= 1 << w;
            self.touched_issue.set(self.touched_issue.get() | 1 << w);
            if self.imiss_unsent & (1 << w) != 0 {
                // Missed on this line in the cycle it arrived: counted as a merge.
                self.l1i_stats.merged += 1;
                self.l1i_stats.misses += 1;
                self.imiss_unsent &= !(1 << w);
            }
        }
    }
}
