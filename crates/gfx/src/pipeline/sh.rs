//! SH: the shader cores with their texture samplers (section 2.1). Quads are dispatched from the
//! one SH queue to cores with a free context; a quad fetches its texture blocks (each consumed into
//! registers as it arrives), then occupies one of the core's SIMD units for the draw's shader
//! cycles, then goes to the CW (early-Z) or ZS (late-Z) of its ROP, waiting in its context while
//! that queue is full. Flow counters are per core with `th_in = th_out = simd / shader cycles`
//! (section 2.3: peak input rate over the cycles the program takes per quad, per draw call).

use std::collections::VecDeque;

use warpforge_hetero::fasthash::FastMap;

use super::Gpu;
use crate::cache::State as Line;
use crate::scene::{Quad, Region};
use crate::stream::{Stream, Unit};

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Fetch,
    Ready,
    Exec(u16),
    Done,
}

#[derive(Clone, Copy)]
struct Ctx {
    quad: Quad,
    state: State,
    /// Re-examine the fetches (new context, a block it waits for arrived, or a request could not
    /// be sent).
    wake: bool,
    /// Fetches whose data has arrived (bit j: fetch j).
    got: u8,
    /// Fetches last seen pending whose block has not been filled since (bit j: fetch j): their
    /// line is still pending (a pending line is never a victim and leaves that state only by
    /// its fill, which clears the bit through [`Sh::filled`]), so a re-examination skips their
    /// lookup; the context is already among the block's waiters.
    pend: u8,
    /// Fetches that last missed with every way of their texture-cache set pending (bit j:
    /// fetch j), at the set's epoch in [`Sh::full_epoch`]: while that epoch stands still, the
    /// block is still absent and the set still has no victim, so looking again would miss
    /// again without effect (the request cannot be sent) and is skipped.
    full: u8,
}

/// The shader array: its queue, cores (fixed context slots) and texture waiters.
pub(super) struct Sh {
    pub queue: VecDeque<Quad>,
    slots: Vec<Option<Ctx>>,
    resident: Vec<usize>,
    executing: Vec<usize>,
    /// Per texture block: the contexts waiting for it, each with the fetches (bit j: fetch j)
    /// that saw it pending.
    waiters: FastMap<u64, Vec<(u32, u8)>>,
    /// Per slot: the texture blocks of its quad's fetches (computed once, at dispatch).
    blocks: Vec<[u64; 8]>,
    /// Per slot: the texture-cache sets of those blocks.
    sets: Vec<[u32; 8]>,
    /// Per slot: the set epoch at which each fetch of [`Ctx::full`] missed.
    full_epoch: Vec<[u64; 8]>,
    /// Bit per slot: the slot must be stepped this cycle (occupied and not a fetching context
    /// asleep, whose step does nothing), so that each cycle visits only these slots, in slot
    /// order.
    live: Vec<u64>,
    /// Per ROP queue (ZS r = r, CW r = rops + r): the done contexts that found it full and
    /// sleep (not live) until it has room. A queue full when the contexts are stepped stays
    /// full while they are (quads only enter it then), so their steps would do nothing.
    sleepers: Vec<Vec<u32>>,
    /// Contexts with a request that could not be sent (queue full or set all pending), in order.
    retry: VecDeque<u32>,
    rr: usize,
    shader_cycles: u16,
    per_core: usize,
}

impl Sh {
    pub fn new(cores: usize, contexts: usize) -> Self {
        Self {
            queue: VecDeque::new(),
            slots: vec![None; cores * contexts],
            resident: vec![0; cores],
            executing: vec![0; cores],
            waiters: FastMap::default(),
            blocks: vec![[0; 8]; cores * contexts],
            sets: vec![[0; 8]; cores * contexts],
            full_epoch: vec![[0; 8]; cores * contexts],
            live: vec![0; (cores * contexts).div_ceil(64)],
            sleepers: Vec::new(),
            retry: VecDeque::new(),
            rr: 0,
            shader_cycles: 1,
            per_core: contexts,
        }
    }

    /// Resident quads of each core.
    pub fn resident(&self) -> &[usize] {
        &self.resident
    }

    /// A core's peak completions per cycle, `simd / shader cycles` of the current draw (the
    /// `th_out` of its flow counters, section 2.3).
    pub fn peak_per_core(&self, simd: usize) -> f64 {
        simd as f64 / self.shader_cycles as f64
    }

    /// Fraction of resident contexts ready or executing now.
    pub fn ready_fraction(&self) -> f64 {
        let r: usize = self.resident.iter().sum();
        let ready = self
            .slots
            .iter()
            .flatten()
            .filter(|c| matches!(c.state, State::Ready | State::Exec(_)))
            .count();
        if r == 0 {
            1.0
        } else {
            ready as f64 / r as f64
        }
    }

    /// Wakes the contexts waiting for texture block `b`.
    pub fn filled(&mut self, b: u64) {
        if let Some(w) = self.waiters.remove(&b) {
            for (s, m) in w {
                if let Some(c) = self.slots[s as usize].as_mut() {
                    c.wake = true;
                    c.pend &= !m;
                    self.live[s as usize / 64] |= 1 << (s % 64);
                }
            }
        }
    }
}

impl Gpu {
    fn dispatch_sh(&mut self) {
        let n = self.sh.resident.len();
        let mut sent = 0;
        let mut tried = 0;
        while sent < self.cfg.sh_dispatch && tried < n {
            let Some(&q) = self.sh.queue.front() else {
                break;
            };
            let c = self.sh.rr;
            self.sh.rr = (self.sh.rr + 1) % n;
            if self.sh.resident[c] >= self.sh.per_core {
                tried += 1;
                continue;
            }
            tried = 0;
            self.sh.queue.pop_front();
            let d = &self.frame.draws[q.draw as usize];
            self.sh.shader_cycles = d.shader_cycles.max(1);
            let prog = Region::Program(d.program).base() + (c % 8) as u64;
            self.mem.ensure(self.ids.instr, prog, Stream::Shader);
            let base = c * self.sh.per_core;
            let slot = (base..base + self.sh.per_core)
                .find(|&s| self.sh.slots[s].is_none())
                .expect("a core below its context count has a free slot");
            let blocks = &mut self.sh.blocks[slot];
            let sets = &mut self.sh.sets[slot];
            let tex = &self.mem.caches[self.ids.tex];
            for j in 0..d.tex_fetches as usize {
                blocks[j] = d.tex_block(q, j as u8);
                sets[j] = tex.set_index(blocks[j]) as u32;
            }
            self.sh.slots[slot] = Some(Ctx {
                quad: q,
                state: State::Fetch,
                wake: true,
                got: 0,
                pend: 0,
                full: 0,
            });
            self.sh.live[slot / 64] |= 1 << (slot % 64);
            self.sh.resident[c] += 1;
            sent += 1;
        }
    }

    /// Steps the context in `slot` of core `c`; returns true when its quad left the core.
    fn step_ctx(&mut self, c: usize, slot: usize) -> bool {
        let Some(Ctx {
            quad: q,
            state,
            wake,
            mut got,
            mut pend,
            mut full,
        }) = self.sh.slots[slot]
        else {
            return false;
        };
        let d = &self.frame.draws[q.draw as usize];
        match state {
            State::Fetch => {
                if !wake {
                    self.sh.live[slot / 64] &= !(1 << (slot % 64));
                    return false;
                }
                let mut retry = false;
                for j in 0..d.tex_fetches {
                    if (got | pend) & (1 << j) != 0 {
                        continue;
                    }
                    let bit = 1u8 << j;
                    let set = self.sh.sets[slot][j as usize] as usize;
                    if full & bit != 0
                        && self.mem.caches[self.ids.tex].set_epoch(set)
                            == self.sh.full_epoch[slot][j as usize]
                    {
                        // Still absent from a set with no victim: it would miss again.
                        retry = true;
                        continue;
                    }
                    full &= !bit;
                    let b = self.sh.blocks[slot][j as usize];
                    match self.mem.ensure_read(self.ids.tex, b, Stream::Texture) {
                        Line::Hit => got |= 1 << j,
                        Line::Miss => {
                            retry = true;
                            let tex = &self.mem.caches[self.ids.tex];
                            if tex.set_full(set) {
                                full |= bit;
                                self.sh.full_epoch[slot][j as usize] = tex.set_epoch(set);
                            }
                        }
                        Line::Pending => {
                            pend |= 1 << j;
                            self.sh
                                .waiters
                                .entry(b)
                                .or_default()
                                .push((slot as u32, 1 << j));
                        }
                    }
                }
                let all = got.count_ones() >= d.tex_fetches as u32;
                let ctx = self.sh.slots[slot].as_mut().expect("occupied");
                ctx.got = got;
                ctx.pend = pend;
                ctx.full = full;
                ctx.wake = false;
                if retry {
                    self.sh.retry.push_back(slot as u32);
                }
                if all {
                    ctx.state = State::Ready;
                } else {
                    // Asleep until a fill or a retry wakes it.
                    self.sh.live[slot / 64] &= !(1 << (slot % 64));
                }
                false
            }
            State::Ready => {
                if self.sh.executing[c] < self.cfg.simd {
                    self.sh.executing[c] += 1;
                    let sc = d.shader_cycles.max(1);
                    self.sh.slots[slot].as_mut().expect("occupied").state = State::Exec(sc);
                }
                false
            }
            State::Exec(left) => {
                let ctx = self.sh.slots[slot].as_mut().expect("occupied");
                if left <= 1 {
                    self.sh.executing[c] -= 1;
                    ctx.state = State::Done;
                } else {
                    ctx.state = State::Exec(left - 1);
                }
                false
            }
            State::Done => {
                let r = self.layout.rop(q);
                let to_cw = d.early_z || !d.depth_test;
                let dest = if to_cw {
                    &mut self.cw[r].queue
                } else {
                    &mut self.zs[r].queue
                };
                if dest.len() < self.cfg.rop_queue {
                    dest.push_back(q);
                    self.sh.slots[slot] = None;
                    self.sh.live[slot / 64] &= !(1 << (slot % 64));
                    self.sh.resident[c] -= 1;
                    true
                } else {
                    // Asleep until its queue has room when the contexts are stepped.
                    let id = if to_cw { self.cfg.rops + r } else { r };
                    self.sh.sleepers[id].push(slot as u32);
                    self.sh.live[slot / 64] &= !(1 << (slot % 64));
                    false
                }
            }
        }
    }

    pub(super) fn tick_sh(&mut self) -> f64 {
        self.dispatch_sh();
        // Contexts that could not send a request retry, oldest first, as far as the queue has room.
        for _ in 0..self.mem.room().min(self.sh.retry.len()) {
            let s = self.sh.retry.pop_front().expect("non-empty") as usize;
            if let Some(c) = self.sh.slots[s].as_mut() {
                c.wake = true;
                self.sh.live[s / 64] |= 1 << (s % 64);
            }
        }
        // Done contexts whose ROP queue has room now wake (stepped below in slot order).
        if self.sh.sleepers.len() != 2 * self.cfg.rops {
            self.sh.sleepers = vec![Vec::new(); 2 * self.cfg.rops];
        }
        for id in 0..self.sh.sleepers.len() {
            if self.sh.sleepers[id].is_empty() {
                continue;
            }
            let len = if id < self.cfg.rops {
                self.zs[id].queue.len()
            } else {
                self.cw[id - self.cfg.rops].queue.len()
            };
            if len < self.cfg.rop_queue {
                for s in self.sh.sleepers[id].drain(..) {
                    self.sh.live[s as usize / 64] |= 1 << (s % 64);
                }
            }
        }
        let th = self.cfg.simd as f64 / self.sh.shader_cycles as f64;
        let mut total = 0.0;
        for c in 0..self.sh.resident.len() {
            let pending = self.sh.resident[c] as f64;
            let mut completed = 0.0;
            if self.sh.resident[c] > 0 {
                // The live slots of the core in slot order (a skipped slot's step is a no-op;
                // a step changes only its own slot's bit).
                let (base, end) = (c * self.sh.per_core, (c + 1) * self.sh.per_core);
                let mut w = base / 64;
                while w * 64 < end {
                    let lo = base.max(w * 64) - w * 64;
                    let hi = end.min(w * 64 + 64) - w * 64;
                    let range = if hi - lo == 64 {
                        u64::MAX
                    } else {
                        ((1u64 << (hi - lo)) - 1) << lo
                    };
                    let mut bits = self.sh.live[w] & range;
                    while bits != 0 {
                        let slot = w * 64 + bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        if self.step_ctx(c, slot) {
                            completed += 1.0;
                        }
                    }
                    w += 1;
                }
            }
            total += completed;
            self.counters.units[Unit::Sh as usize][c].observe(pending, completed, th, th);
        }
        total
    }
}

impl Gpu {
    /// What shader core `c` is doing (the wait probe, a diagnostic): busy while a context
    /// executes or is ready, else waiting for the texture blocks its fetching contexts miss,
    /// else (only finished contexts) blocked by full ROP queues.
    pub(super) fn sh_activity(&self, c: usize) -> super::probe::Activity {
        use super::probe::{self, Activity};
        if self.sh.resident[c] == 0 {
            return Activity::Idle;
        }
        if self.sh.executing[c] > 0 {
            return Activity::Busy;
        }
        let base = c * self.sh.per_core;
        let ctxs = || {
            self.sh.slots[base..base + self.sh.per_core]
                .iter()
                .flatten()
        };
        if ctxs().any(|x| matches!(x.state, State::Ready | State::Exec(_))) {
            return Activity::Busy;
        }
        let tex = self.ids.tex;
        let missing = ctxs()
            .filter(|x| x.state == State::Fetch)
            .flat_map(|x| {
                let d = &self.frame.draws[x.quad.draw as usize];
                (0..d.tex_fetches)
                    .filter(move |j| x.got & (1 << j) == 0)
                    .map(move |j| d.tex_block(x.quad, j))
            })
            .filter(|&b| !self.mem.caches[tex].contains(b))
            .map(|b| (tex, b));
        if let Some(a) = probe::waiting_for(self, missing) {
            return a;
        }
        if ctxs().any(|x| x.state == State::Fetch) {
            Activity::Busy
        } else {
            Activity::Blocked
        }
    }
}
