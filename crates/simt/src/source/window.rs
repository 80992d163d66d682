//! Window mode of [`ExecSource`] ([`WindowFronts`]): every SM executes its own warps' instructions
//! with a per-SM view of global memory ([`GlobalMem::view_of`]), concurrently with the other SMs;
//! at the window's end [`WindowFronts::commit`] applies the views' stores to global memory and
//! executes the deferred global atomics, merged in (cycle, SM, issue) order.

use std::cell::UnsafeCell;

use warpforge_core::{DynInst, SourceError, WarpStep, WindowFronts};

use super::{ExecSource, NONE};
use crate::exec::{step, Cta, Env, Flow};
use crate::memory::GlobalMem;
use crate::program::{Space, K};

/// A global atomic whose warp waits for the commit.
struct Deferred {
    cycle: u64,
    cta: u32,
    warp: u32,
    /// Stores of the view issued before it.
    at: usize,
}

/// One SM's front-end state in window mode.
struct Part {
    gmem: GlobalMem,
    deferred: Vec<Deferred>,
    /// Atomics executed by the commit, handed out at the warp's next fetch: (CTA, warp, inst).
    ready: Vec<(u32, u32, DynInst)>,
    /// With an observer: the window's executed instructions (cycle, CTA, warp, inst), shown
    /// to it at the commit in (cycle, SM, issue) order.
    seen: Vec<(u64, u32, u32, DynInst)>,
}

/// Window-mode state of a source.
pub(super) struct Win {
    parts: Vec<UnsafeCell<Part>>,
    /// Per slot of `ExecSource::live`: its CTA (null for a free slot); rebuilt when `dirty`.
    slots: Vec<*mut Cta>,
    pub(super) dirty: bool,
}

// SAFETY: the CTA pointers point into the owning source's `live`, which moves with it; the
// parts are plain data.
unsafe impl Send for Win {}

/// A merged commit event: (cycle, SM, issue index in the SM's events, store index or atomic).
type Event = (u64, u32, usize, Result<usize, usize>);

impl ExecSource<'_, '_> {
    /// The step environment with `gmem` as global memory.
    fn env_with<'g>(&'g self, gmem: &'g mut GlobalMem) -> Env<'g> {
        Env {
            code: self.env.code,
            gmem,
            cbank: self.env.cbank,
            params: self.env.params,
            tex: self.env.tex,
            grid: self.env.grid,
            block: self.env.block,
            dyn_shared: self.env.dyn_shared,
            nsm: self.env.nsm,
        }
    }

    pub(super) fn open_window(&mut self, sms: u32) -> Option<&mut dyn WindowFronts> {
        if self.obs.0.as_deref().is_some_and(|o| o.wants_values()) {
            // Register values cannot be replayed at the commit.
            return None;
        }
        let base: *const GlobalMem = &*self.env.gmem;
        let win = self.win.get_or_insert_with(|| {
            Box::new(Win {
                parts: Vec::new(),
                slots: Vec::new(),
                dirty: true,
            })
        });
        while win.parts.len() < sms as usize {
            win.parts.push(UnsafeCell::new(Part {
                // SAFETY: the base is the launch's global memory, which outlives the source;
                // it is written only by `commit` and by `next`/`start_cta` on the main thread,
                // never while a view is used (the `WindowFronts::next_on` contract).
                gmem: unsafe { GlobalMem::view_of(base) },
                deferred: Vec::new(),
                ready: Vec::new(),
                seen: Vec::new(),
            }));
        }
        if win.dirty {
            win.slots.clear();
            win.slots.extend(self.live.iter_mut().map(|c| match c {
                Some(c) => c as *mut Cta,
                None => std::ptr::null_mut(),
            }));
            win.dirty = false;
        }
        Some(self)
    }
}

// SAFETY: the only `&self` method that mutates is `WindowFronts::next_on`, whose contract
// (one call at a time per SM, CTAs on their own SM, no other method meanwhile) keeps every
// mutable access disjoint: a call touches only its SM's `Part` and the CTAs running on that SM.
// The observer is only called by `commit` (`&mut self`); `next_on` only checks it is there.
unsafe impl Sync for ExecSource<'_, '_> {}

impl WindowFronts for ExecSource<'_, '_> {
    unsafe fn next_on(
        &self,
        sm: u32,
        cycle: u64,
        cta: u32,
        warp: u32,
        out: &mut DynInst,
    ) -> Result<WarpStep, SourceError> {
        let win = self.win.as_deref().expect("window opened");
        // SAFETY: calls for one SM do not overlap (contract), so this is the only reference to
        // the SM's part.
        let part = unsafe { &mut *win.parts[sm as usize].get() };
        if let Some(k) = part.ready.iter().position(|r| r.0 == cta && r.1 == warp) {
            *out = part.ready.swap_remove(k).2;
            return Ok(WarpStep::Inst);
        }
        if part.deferred.iter().any(|d| d.cta == cta && d.warp == warp) {
            return Ok(WarpStep::Wait);
        }
        let slot = self.index.get(cta as usize).copied().unwrap_or(NONE);
        let c = win
            .slots
            .get(slot as usize)
            .copied()
            .unwrap_or(std::ptr::null_mut());
        if c.is_null() {
            return Err(SourceError::new(format!(
                "kernel `{}`: next() for CTA {cta}, which is not running",
                self.info.name
            )));
        }
        // SAFETY: the CTA runs on `sm` (contract); only this SM's calls touch it, and `slots`
        // was rebuilt after the last change of `live`.
        let c = unsafe { &mut *c };
        let Some(w) = c.warps.get_mut(warp as usize) else {
            return Err(SourceError::new(format!(
                "kernel `{}`: CTA {cta} has no warp {warp}",
                self.info.name
            )));
        };
        let Some(top) = w.stack.last() else {
            return Ok(WarpStep::Done);
        };
        w.waiting = None;
        if let Some(i) = self.env.code.insts.get(top.pc as usize) {
            if i.k == K::Atom && i.space != Space::Shared {
                // A global atomic returns what the other SMs' commits leave: it runs at the
                // commit, and the warp waits until then.
                part.deferred.push(Deferred {
                    cycle,
                    cta,
                    warp,
                    at: part.gmem.view_log().len(),
                });
                return Ok(WarpStep::Wait);
            }
        }
        part.gmem.view_set_cycle(cycle);
        let mut env = self.env_with(&mut part.gmem);
        let f = step::<true>(&mut env, c, warp as usize, out)
            .map_err(|f| SourceError::new(env.describe(c, &f)))?;
        if f == Flow::Exited {
            out.warp_exits = true;
        }
        if self.obs.0.is_some() {
            part.seen.push((cycle, cta, warp, *out));
        }
        Ok(WarpStep::Inst)
    }

    fn commit(&mut self) -> Result<(), SourceError> {
        let Some(win) = self.win.as_deref_mut() else {
            return Ok(());
        };
        let mut ev: Vec<Event> = Vec::new();
        // Parts with nothing to commit (most, on a large machine) cost one test each.
        let busy = |p: &mut Part| {
            !(p.deferred.is_empty() && p.seen.is_empty() && p.gmem.view_log().is_empty())
        };
        for (sm, p) in win.parts.iter_mut().enumerate() {
            let p = p.get_mut();
            if !busy(p) {
                continue;
            }
            let log = p.gmem.view_log();
            let (mut s, mut seq) = (0usize, 0usize);
            for (k, d) in p.deferred.iter().enumerate() {
                while s < d.at {
                    ev.push((log[s].cycle, sm as u32, seq, Ok(s)));
                    s += 1;
                    seq += 1;
                }
                ev.push((d.cycle, sm as u32, seq, Err(k)));
                seq += 1;
            }
            for (i, st) in log.iter().enumerate().skip(s) {
                ev.push((st.cycle, sm as u32, seq, Ok(i)));
                seq += 1;
            }
        }
        ev.sort_unstable_by_key(|e| (e.0, e.1, e.2));
        if let Some(o) = self.obs.0.as_deref_mut() {
            let mut seen: Vec<(u64, u32, usize)> = Vec::new();
            for (sm, p) in win.parts.iter_mut().enumerate() {
                if !busy(p.get_mut()) {
                    continue;
                }
                let n = p.get_mut().seen.len();
                seen.extend((0..n).map(|i| (p.get_mut().seen[i].0, sm as u32, i)));
            }
            seen.sort_unstable();
            for (_, sm, i) in seen {
                let (_, cta, warp, inst) = &win.parts[sm as usize].get_mut().seen[i];
                o.on_inst(*cta, *warp, inst);
            }
        }
        let mut result = Ok(());
        for &(_, sm, _, what) in &ev {
            let p = win.parts[sm as usize].get_mut();
            match what {
                Ok(i) => {
                    let st = p.gmem.view_log()[i];
                    // In bounds: checked against the same allocations when it was issued.
                    let _ = self.env.gmem.store(st.addr, st.size, st.value);
                }
                Err(k) => {
                    if result.is_err() {
                        continue;
                    }
                    let d = &p.deferred[k];
                    let (cta, warp) = (d.cta, d.warp);
                    let slot = self.index[cta as usize];
                    let c = self.live[slot as usize].as_mut().expect("a running CTA");
                    let mut inst = DynInst::default();
                    match step::<true>(&mut self.env, c, warp as usize, &mut inst) {
                        Ok(f) => {
                            inst.warp_exits = f == Flow::Exited;
                            if let Some(o) = self.obs.0.as_deref_mut() {
                                o.on_inst(cta, warp, &inst);
                            }
                            p.ready.push((cta, warp, inst));
                        }
                        Err(f) => result = Err(SourceError::new(self.env.describe(c, &f))),
                    }
                }
            }
        }
        for p in &mut win.parts {
            let p = p.get_mut();
            if !busy(p) {
                continue;
            }
            p.gmem.view_clear();
            p.deferred.clear();
            p.seen.clear();
        }
        result
    }
}
