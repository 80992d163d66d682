//! Window mode of [`ExecSource`] ([`WindowFronts`]): every SM executes its own warps' instructions
//! with a per-SM view of global memory ([`GlobalMem::view_of`]), concurrently with the other SMs;
//! at the window's end [`WindowFronts::commit`] applies the views' stores to global memory and
//! executes the deferred global atomics, merged in (cycle, SM, issue) order.

use std::cell::UnsafeCell;

use warpforge_core::{DynInst, ParallelFor, SourceError, WarpStep, WindowFronts};

use super::{ExecSource, NONE};
use crate::exec::{step, Cta, Env, Flow};
use crate::memory::{GlobalMem, Store};
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
    seen: Vec<Seen>,
}

/// An instruction executed in a window, for the observer: (cycle, CTA, warp, instruction).
type Seen = (u64, u32, u32, DynInst);

/// Window-mode state of a source.
pub(super) struct Win {
    parts: Vec<UnsafeCell<Part>>,
    /// Per slot of `ExecSource::live`: its CTA (null for a free slot); rebuilt when `dirty`.
    slots: Vec<*mut Cta>,
    pub(super) dirty: bool,
    /// Scratch of the commit: the SMs with something to commit.
    busy: Vec<u32>,
}

// SAFETY: the CTA pointers point into the owning source's `live`, which moves with it; the
// parts are plain data.
unsafe impl Send for Win {}

/// A merged commit event: (cycle, SM, issue index in the SM's events, store index or atomic).
type Event = (u64, u32, usize, Result<usize, usize>);

/// Bytes (log2) of the lines by which a window's stores are spread over the team: every line
/// belongs to one job, so stores to one address stay in one job, in order, and the jobs write
/// disjoint cache lines.
const LINE_BITS: u32 = 7;

/// Fewest stores in a window that the commit spreads over the team (fewer are applied on the
/// calling thread: a team phase costs about as much as a few hundred stores).
const PAR_MIN_STORES: usize = 256;

/// The job (of `n`) that applies the stores to the line of `addr`.
fn line_job(addr: u64, n: usize) -> usize {
    (((addr >> LINE_BITS).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) % n as u64) as usize
}

/// Calls `f` on the entries of `logs` in (cycle, SM, issue) order without sorting: `logs` holds
/// the SMs' logs in ascending SM order, each in issue order, so with non-decreasing cycles (an
/// SM steps its window's cycles in order); `cycle` reads an entry's cycle.
fn merged<T>(logs: &[&[T]], cycle: impl Fn(&T) -> u64, at: &mut Vec<usize>, mut f: impl FnMut(&T)) {
    at.clear();
    at.resize(logs.len(), 0);
    loop {
        let mut c = u64::MAX;
        for (l, &k) in logs.iter().zip(at.iter()) {
            if let Some(e) = l.get(k) {
                c = c.min(cycle(e));
            }
        }
        if c == u64::MAX {
            return;
        }
        for (l, k) in logs.iter().zip(at.iter_mut()) {
            while let Some(e) = l.get(*k).filter(|e| cycle(e) == c) {
                f(e);
                *k += 1;
            }
        }
    }
}

/// The parts of the SMs `sms`, read-only, in that order.
fn parts_of<'p>(parts: &'p mut [UnsafeCell<Part>], sms: &[u32]) -> Vec<&'p Part> {
    let parts: &'p [UnsafeCell<Part>] = parts;
    // SAFETY: `parts` is borrowed exclusively for `'p`, and only shared references are made.
    sms.iter()
        .map(|&s| unsafe { &*parts[s as usize].get() })
        .collect()
}

/// Applies the stores of `logs` (the SMs' logs in ascending SM order) to `gmem` in (cycle, SM,
/// issue) order per address: on the calling thread for a few stores, else spread over `par`'s
/// threads by line ([`line_job`]), each job applying its lines' stores in that order. The bytes
/// written are the same either way, so nothing depends on the thread count.
fn apply_stores(logs: &[&[Store]], gmem: &mut GlobalMem, par: &mut dyn ParallelFor) {
    let n: usize = logs.iter().map(|l| l.len()).sum();
    let t = par.threads();
    let line = 1u64 << LINE_BITS;
    let spread = t > 1
        && n >= PAR_MIN_STORES
        && logs
            .iter()
            .flat_map(|l| l.iter())
            .all(|s| (s.addr & (line - 1)) + u64::from(s.size) <= line);
    if !spread {
        merged(
            logs,
            |s| s.cycle,
            &mut Vec::new(),
            |s| {
                // In bounds: checked against the same allocations when it was issued.
                let _ = gmem.store(s.addr, s.size, s.value);
            },
        );
        return;
    }
    let image = gmem.raw_image();
    let job = |j: usize| {
        let mut last = 0usize;
        merged(
            logs,
            |s| s.cycle,
            &mut Vec::new(),
            |s| {
                if line_job(s.addr, t) == j {
                    // SAFETY: each line belongs to one job, and no store crosses a line (`spread`),
                    // so the jobs write disjoint bytes; `gmem` is borrowed until they have finished.
                    unsafe { image.store(&mut last, s.addr, s.size, s.value) };
                }
            },
        );
    };
    par.run(t, &job);
}

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
                busy: Vec::new(),
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

    unsafe fn pending_on(&self, sm: u32) -> bool {
        let Some(win) = self.win.as_deref() else {
            return false;
        };
        // SAFETY: not concurrently with a call for the same SM (contract), so this is the only
        // reference to the SM's part.
        win.parts.get(sm as usize).is_some_and(|p| {
            let p = unsafe { &*p.get() };
            !(p.deferred.is_empty() && p.seen.is_empty() && p.gmem.view_log().is_empty())
        })
    }

    fn commit(&mut self, sms: &[u32], par: &mut dyn ParallelFor) -> Result<(), SourceError> {
        let Some(win) = self.win.as_deref_mut() else {
            return Ok(());
        };
        if sms.is_empty() {
            // Nothing to commit (the engine asked `pending_on`): no allocation, no work.
            return Ok(());
        }
        // The SMs with something to commit, ascending: the others cost nothing.
        let mut busy = std::mem::take(&mut win.busy);
        busy.clear();
        busy.extend(sms.iter().copied().filter(|&s| {
            win.parts.get_mut(s as usize).is_some_and(|p| {
                let p = p.get_mut();
                !(p.deferred.is_empty() && p.seen.is_empty() && p.gmem.view_log().is_empty())
            })
        }));
        debug_assert!(busy.windows(2).all(|w| w[0] < w[1]), "SMs ascending");
        if busy.is_empty() {
            win.busy = busy;
            return Ok(());
        }
        let parts = &mut win.parts;
        if let Some(o) = self.obs.0.as_deref_mut() {
            let seen: Vec<&[Seen]> = parts_of(parts, &busy).iter().map(|p| &*p.seen).collect();
            merged(
                &seen,
                |e| e.0,
                &mut Vec::new(),
                |(_, cta, warp, inst)| o.on_inst(*cta, *warp, inst),
            );
        }
        let mut result = Ok(());
        if busy
            .iter()
            .all(|&s| parts[s as usize].get_mut().deferred.is_empty())
        {
            // Only the order of the stores to each address matters.
            let logs: Vec<&[Store]> = parts_of(parts, &busy)
                .iter()
                .map(|p| p.gmem.view_log())
                .filter(|l| !l.is_empty())
                .collect();
            apply_stores(&logs, self.env.gmem, par);
        } else {
            // With atomics, one merged list of events runs on this thread.
            let mut ev: Vec<Event> = Vec::new();
            for &sm in &busy {
                let p = parts[sm as usize].get_mut();
                let log = p.gmem.view_log();
                let (mut s, mut seq) = (0usize, 0usize);
                for (k, d) in p.deferred.iter().enumerate() {
                    while s < d.at {
                        ev.push((log[s].cycle, sm, seq, Ok(s)));
                        s += 1;
                        seq += 1;
                    }
                    ev.push((d.cycle, sm, seq, Err(k)));
                    seq += 1;
                }
                for (i, st) in log.iter().enumerate().skip(s) {
                    ev.push((st.cycle, sm, seq, Ok(i)));
                    seq += 1;
                }
            }
            ev.sort_unstable_by_key(|e| (e.0, e.1, e.2));
            for &(_, sm, _, what) in &ev {
                let p = parts[sm as usize].get_mut();
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
        }
        for &s in &busy {
            let p = parts[s as usize].get_mut();
            p.gmem.view_clear();
            p.deferred.clear();
            p.seen.clear();
        }
        win.busy = busy;
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Runs each phase's jobs on `.0` scoped threads, taking indices from the top down; counts
    /// the phases in `.1`.
    struct Threads(usize, usize);

    impl ParallelFor for Threads {
        fn threads(&self) -> usize {
            self.0
        }
        fn run(&mut self, n: usize, job: &(dyn Fn(usize) + Sync)) {
            self.1 += 1;
            let next = AtomicUsize::new(n);
            std::thread::scope(|s| {
                for _ in 0..self.0 {
                    s.spawn(|| loop {
                        let i = next.fetch_sub(1, Ordering::Relaxed);
                        if i == 0 || i > n {
                            break;
                        }
                        job(i - 1);
                    });
                }
            });
        }
    }

    /// `sms` parts viewing `base`, each with stores at cycles 10..14 from a fixed pseudo-random
    /// sequence: most to a 64-byte hot spot (every SM writes the same words, with different
    /// sizes), the rest spread over the allocation `a` of 4096 bytes; `cross`: one store
    /// crosses a 128-byte line.
    fn parts(base: &GlobalMem, a: u64, sms: usize, cross: bool) -> Vec<UnsafeCell<Part>> {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        (0..sms)
            .map(|sm| {
                // SAFETY: `base` is not written while the views exist.
                let mut gmem = unsafe { GlobalMem::view_of(base) };
                for c in 10..14u64 {
                    gmem.view_set_cycle(c);
                    for _ in 0..(rnd() % 12) {
                        let size = 1u32 << (rnd() % 4);
                        let span = if rnd() % 4 == 0 { 4096 } else { 64 };
                        let off = (rnd() % span) & !(u64::from(size) - 1);
                        gmem.store(a + off, size, rnd()).unwrap();
                    }
                }
                if cross && sm == sms / 2 {
                    gmem.store(a + 126, 4, rnd()).unwrap();
                }
                UnsafeCell::new(Part {
                    gmem,
                    deferred: Vec::new(),
                    ready: Vec::new(),
                    seen: Vec::new(),
                })
            })
            .collect()
    }

    /// A fresh memory with one 4096-byte allocation of known bytes.
    fn memory() -> (GlobalMem, u64) {
        let mut m = GlobalMem::new();
        let a = m.alloc(4096, "a").unwrap();
        for i in 0..512 {
            m.store(a + 8 * i, 8, i.wrapping_mul(0x0101_0101_0101_0101))
                .unwrap();
        }
        (m, a)
    }

    #[test]
    fn stores_spread_over_threads_leave_the_bytes_of_the_merged_order() {
        let (base, a) = memory();
        for cross in [false, true] {
            let mut ps = parts(&base, a, 24, cross);
            // The reference: every store in (cycle, SM, issue) order, on a copy of the bytes.
            let mut all: Vec<(u64, usize, usize, Store)> = Vec::new();
            for (sm, p) in ps.iter_mut().enumerate() {
                let log = p.get_mut().gmem.view_log();
                assert!(log.windows(2).all(|w| w[0].cycle <= w[1].cycle));
                all.extend(log.iter().enumerate().map(|(i, s)| (s.cycle, sm, i, *s)));
            }
            assert!(all.len() >= PAR_MIN_STORES, "{} stores", all.len());
            all.sort_by_key(|e| (e.0, e.1, e.2));
            let mut want = base.allocs()[0].data.clone();
            for (_, _, _, s) in &all {
                let o = (s.addr - a) as usize;
                want[o..o + s.size as usize]
                    .copy_from_slice(&s.value.to_le_bytes()[..s.size as usize]);
            }
            let sms: Vec<u32> = (0..ps.len() as u32).collect();
            let logs: Vec<&[Store]> = parts_of(&mut ps, &sms)
                .iter()
                .map(|p| p.gmem.view_log())
                .collect();
            let (mut m1, _) = memory();
            apply_stores(&logs, &mut m1, &mut warpforge_core::Sequential);
            assert!(m1.allocs()[0].data == want, "one thread, cross {cross}");
            for t in [2, 3, 8] {
                let (mut m, _) = memory();
                let mut par = Threads(t, 0);
                apply_stores(&logs, &mut m, &mut par);
                assert!(m.allocs()[0].data == want, "{t} threads, cross {cross}");
                // A store across a line keeps the window on one thread.
                assert_eq!(par.1, usize::from(!cross), "{t} threads, cross {cross}");
            }
        }
    }
}
