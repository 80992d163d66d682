//! Per-warp issue classification kept between cycles: each live warp's reason for not issuing
//! (or the unit it needs) is re-read only when the warp was touched ([`SmState::touch`]) or its
//! I-buffer head finished decoding, so a scheduler's view costs a few mask operations per
//! cycle instead of a read of every warp. Latency attribution and probes read each warp's
//! reason from the same kept state (`sim.check_classes` compares it with a full read).

use super::*;

/// Slot of [`Classes::masks`] holding the warps whose reason is the fixed `Why` (index = the
/// reason's rank); `Structural` and `Ldst` depend on free collectors and are never fixed.
const NEED: usize = 8;
/// Slots `NEED + k`: head decoded, no hazard, needs unit kind `k` (0 SP, 1 SFU, 2 memory,
/// 3 none: always ready).
const DECODING: usize = NEED + 4;
/// Slots in all.
const SLOTS: usize = DECODING + 1;
/// After decoding: a scoreboard hazard without loads in flight (`DataHazard`).
const POST_DATA: u8 = 4;
/// After decoding: a scoreboard hazard with loads in flight (`MemData`).
const POST_MEM: u8 = 5;

/// The reason of each fixed slot below `NEED` (slot = the reason's rank).
const SLOT_WHY: [Why; NEED] = [
    Why::Structural,
    Why::Ldst,
    Why::MemData,
    Why::DataHazard,
    Why::Control,
    Why::Fetch,
    Why::Sync,
    Why::Idle,
];

/// The classification state (interior mutability: the schedulers read the SM through `&self`).
pub(super) struct Classes {
    /// Warps by state (see the slot constants); a warp is in exactly one slot while live.
    masks: [Cell<u64>; SLOTS],
    /// Each warp's slot.
    slot: [Cell<u8>; 64],
    /// Decoding warps: the cycle their head may issue.
    until: [Cell<u64>; 64],
    /// Decoding warps: their state once decoded (`0..4`: unit kind; `POST_DATA`, `POST_MEM`).
    post: [Cell<u8>; 64],
    /// Latest `now` classified (an earlier one re-reads every warp).
    last: Cell<u64>,
    /// Per scheduler (warp `w` belongs to scheduler `w % n_sched`): no decoding warp of its
    /// may issue before this cycle (a lower bound of their `until`; the scan of its decoding
    /// warps is skipped before it).
    dec_min: Vec<Cell<u64>>,
    /// Each warp's scheduler (`w % n_sched`, kept so that the per-warp update does not divide).
    sched_of: [u8; 64],
    /// Warps of each sub-core.
    pub(super) sub_masks: [u64; MAX_SUB],
}

impl Classes {
    pub(super) fn new(sub_cores: usize, n_sched: usize) -> Self {
        let mut sub_masks = [0u64; MAX_SUB];
        for w in 0..64 {
            sub_masks[w % sub_cores] |= 1 << w;
        }
        Self {
            masks: std::array::from_fn(|_| Cell::new(0)),
            slot: std::array::from_fn(|_| Cell::new(Why::Idle as u8)),
            until: std::array::from_fn(|_| Cell::new(0)),
            post: std::array::from_fn(|_| Cell::new(0)),
            last: Cell::new(0),
            dec_min: (0..n_sched.max(1)).map(|_| Cell::new(u64::MAX)).collect(),
            sched_of: std::array::from_fn(|w| (w % n_sched.max(1)) as u8),
            sub_masks,
        }
    }

    #[inline]
    fn mask(&self, i: usize) -> u64 {
        self.masks[i].get()
    }

    #[inline]
    fn put(&self, w: usize, i: usize) {
        let old = self.slot[w].get() as usize;
        self.masks[old].set(self.masks[old].get() & !(1u64 << w));
        self.masks[i].set(self.masks[i].get() | 1u64 << w);
        self.slot[w].set(i as u8);
    }
}

impl Classes {
    /// A lower bound of the cycle at which the earliest decoding head of any scheduler may
    /// issue (`u64::MAX`: none decoding); after a classification at `now`, above `now`.
    #[inline]
    pub(super) fn decode_bound(&self) -> u64 {
        self.dec_min.iter().map(Cell::get).min().unwrap_or(u64::MAX)
    }

    /// Whether warp `w`'s kept state reads its scoreboard or loads in flight: decoding with a
    /// hazard at its head ([`SmState::rehazard`]; a blocked warp is known from `SmState::blocked`).
    #[inline]
    pub(super) fn hazard_pending(&self, w: usize) -> bool {
        self.slot[w].get() as usize == DECODING && self.post[w].get() >= POST_DATA
    }
}

impl SmState {
    fn unit_kind(&self, c: OpClass) -> u8 {
        match self.unit_of(c) {
            Unit::Sp => 0,
            Unit::Sfu => 1,
            Unit::Mem => 2,
            Unit::None => 3,
        }
    }

    /// The state warp `wp`'s head instruction will be in once decoded: waiting on a register
    /// (a load in flight or not), else the unit kind it needs.
    #[inline]
    fn post_decode(&self, wp: &Warp) -> u8 {
        let inst = &wp.ibuf[wp.head as usize];
        if wp.sb.hazard(inst).is_some() {
            if wp.pending_loads > 0 {
                POST_MEM
            } else {
                POST_DATA
            }
        } else {
            self.unit_kind(inst.class)
        }
    }

    /// Places warp `w` by its decoded state `post` ([`SmState::warp_why`] past the decode check).
    #[inline(always)]
    fn settle(&self, w: usize, post: u8) {
        let c = &self.classes;
        if post < POST_DATA {
            c.put(w, NEED + post as usize);
        } else {
            let bit = 1u64 << w;
            self.blocked.set(self.blocked.get() | bit);
            if post == POST_MEM {
                self.blocked_mem.set(self.blocked_mem.get() | bit);
                c.put(w, Why::MemData as usize);
            } else {
                c.put(w, Why::DataHazard as usize);
            }
        }
    }

    /// Re-reads warp `w` at `now`: the decisions of [`SmState::warp_why`] that depend neither on
    /// later cycles nor on free collectors.
    fn reclassify(&self, w: usize, now: u64) {
        let c = &self.classes;
        let bit = 1u64 << w;
        if self.blocked.get() & bit != 0 {
            let r = if self.blocked_mem.get() & bit != 0 {
                Why::MemData
            } else {
                Why::DataHazard
            };
            c.put(w, r as usize);
            return;
        }
        let wp = &self.warps[w];
        if let Some(r) = super::issue::headless_why(wp) {
            c.put(w, r as usize);
            return;
        }
        let h = wp.head as usize;
        let post = self.post_decode(wp);
        if wp.ready_at[h] > now {
            let until = wp.ready_at[h];
            c.until[w].set(until);
            c.post[w].set(post);
            c.put(w, DECODING);
            let d = &c.dec_min[c.sched_of[w] as usize];
            if until < d.get() {
                d.set(until);
            }
        } else {
            self.settle(w, post);
        }
    }

    /// Warp `w`'s scoreboard or loads in flight changed (after the change: a register written
    /// back, a load completed): the kept state that reads them is brought up to date at once,
    /// as a re-read would find it. A blocked warp (its head decoded) stays blocked while a
    /// hazard remains, with the reason of its loads in flight, or is settled by the unit its
    /// head needs; a decoding warp with a hazard at its head gets its post-decode state
    /// again. Every other reason reads neither (a write only clears pending registers).
    #[inline(always)]
    pub(super) fn rehazard(&self, w: usize) {
        let c = &self.classes;
        let bit = 1u64 << w;
        if self.blocked.get() & bit != 0 {
            let wp = &self.warps[w];
            let inst = &wp.ibuf[wp.head as usize];
            if wp.sb.hazard(inst).is_some() {
                let mem = wp.pending_loads > 0;
                if mem != (self.blocked_mem.get() & bit != 0) {
                    if mem {
                        self.blocked_mem.set(self.blocked_mem.get() | bit);
                        c.put(w, Why::MemData as usize);
                    } else {
                        self.blocked_mem.set(self.blocked_mem.get() & !bit);
                        c.put(w, Why::DataHazard as usize);
                    }
                }
            } else {
                self.blocked.set(self.blocked.get() & !bit);
                self.blocked_mem.set(self.blocked_mem.get() & !bit);
                c.put(w, NEED + self.unit_kind(inst.class) as usize);
            }
        } else if c.hazard_pending(w) {
            c.post[w].set(self.post_decode(&self.warps[w]));
        }
    }

    /// [`SmState::classify`] from the kept per-warp state: (mask of warps, ready warps,
    /// long-waiting warps, the stall reason closest to issuing), identical to reading every
    /// warp with [`SmState::warp_why`].
    #[inline]
    pub(super) fn classify_kept(&self, s: usize, now: u64, free: &Free) -> (u64, u64, u64, Why) {
        let (live, ready, long_wait, wanting) = self.classify_masks(s, now, free);
        (live, ready, long_wait, self.kept_reason(live, wanting))
    }

    /// [`SmState::classify_kept`] without the reason: (mask of warps, ready warps,
    /// long-waiting warps, warps whose decoded head waits for a free collector); the reason,
    /// needed only in a cycle in which the scheduler issues nothing, is
    /// [`SmState::kept_reason`] of the first and last.
    #[inline(always)]
    pub(super) fn classify_masks(&self, s: usize, now: u64, free: &Free) -> (u64, u64, u64, u64) {
        let c = &self.classes;
        let smask = self.sched_masks[s];
        let live = smask & self.used_warps;
        let mut touched = self.touched_issue.get();
        if now < c.last.get() {
            touched = u64::MAX;
        }
        c.last.set(now);
        self.touched_issue.set(touched & !smask);
        let mut m = touched & live;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            debug_assert!(self.warps[w].live, "used warp slots hold live warps");
            self.reclassify(w, now);
        }
        // Decoding warps whose head is now decoded (none before `dec_min`); the bound is
        // tightened to the earliest of those left.
        let d = &c.dec_min[s];
        if d.get() <= now {
            let mut m = c.mask(DECODING) & live;
            let mut next = u64::MAX;
            while m != 0 {
                let w = m.trailing_zeros() as usize;
                m &= m - 1;
                let u = c.until[w].get();
                if u <= now {
                    self.settle(w, c.post[w].get());
                } else {
                    next = next.min(u);
                }
            }
            d.set(next);
        }
        let mut ready = c.mask(NEED + 3);
        let mut wanting = 0u64;
        for k in 0..3 {
            let need = c.mask(NEED + k) & live;
            if need == 0 {
                continue;
            }
            let avail = if self.sub_cores == 1 {
                // One sub-core: every warp sees the same collectors.
                0u64.wrapping_sub((free[0][k] > 0) as u64)
            } else {
                let mut avail = 0u64;
                for (j, f) in free.iter().enumerate().take(self.sub_cores) {
                    if f[k] > 0 {
                        avail |= c.sub_masks[j];
                    }
                }
                avail
            };
            ready |= need & avail;
            wanting |= need & !avail;
        }
        let ready = ready & live;
        let long_wait = (c.mask(Why::Sync as usize) | c.mask(Why::MemData as usize)) & live;
        (live, ready, long_wait, wanting)
    }

    /// The stall reason closest to issuing among the live warps `live` of a scheduler, given
    /// the warps `wanting` a free collector ([`SmState::classify_masks`]).
    #[inline]
    pub(super) fn kept_reason(&self, live: u64, wanting: u64) -> Why {
        let c = &self.classes;
        if (c.mask(NEED) | c.mask(NEED + 1)) & wanting & live != 0 {
            Why::Structural
        } else if c.mask(NEED + 2) & wanting & live != 0 {
            Why::Ldst
        } else if c.mask(Why::MemData as usize) & live != 0 {
            Why::MemData
        } else if c.mask(Why::DataHazard as usize) & live != 0 {
            Why::DataHazard
        } else if c.mask(Why::Control as usize) & live != 0 {
            Why::Control
        } else if (c.mask(Why::Fetch as usize) | c.mask(DECODING)) & live != 0 {
            Why::Fetch
        } else if c.mask(Why::Sync as usize) & live != 0 {
            Why::Sync
        } else {
            Why::Idle
        }
    }

    /// Each warp of `live` (just classified by [`SmState::classify_kept`]) with its reason in
    /// `whys` (`None`: ready), read from its kept state: what [`SmState::warp_why`] gives.
    pub(super) fn kept_whys(&self, live: u64, free: &Free, whys: &mut [Option<Why>; 64]) {
        let c = &self.classes;
        let mut m = live;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            let slot = c.slot[w].get() as usize;
            whys[w] = if slot < NEED {
                Some(SLOT_WHY[slot])
            } else if slot == DECODING {
                Some(Why::Fetch)
            } else {
                let k = slot - NEED;
                let f = &free[self.sub_of[w] as usize];
                match k {
                    0 | 1 if f[k] == 0 => Some(Why::Structural),
                    2 if f[2] == 0 => Some(Why::Ldst),
                    _ => None,
                }
            };
        }
    }
}
