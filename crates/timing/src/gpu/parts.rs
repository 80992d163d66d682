//! The window engine's memory side split by memory partition (`sim.window_partitions`): a
//! partition (one DRAM channel and its `l2.slices_per_channel` L2 slices) runs a window's span on
//! its own, on any thread of the team, so that the memory side is no longer one sequential job.
//!
//! Partitions interact only through the two networks, and both couple them every interconnect
//! cycle: the request network admits a packet to a slice only while that slice's buffer has room
//! (`icnt.output_buffer`, freed when the slice takes a request), and the reply network arbitrates
//! among the slices heading for the same SM (its port and ejection buffer) while a slice stalls
//! when its reply queue (`l2.output_queue`) is full. No exact split exists at window granularity,
//! so the split is a model change with window-granular credits at the partition boundary, as the
//! SMs already have at theirs. A window span `[t0, t_end)` runs in three phases, the same for
//! every thread count:
//! 1. sequential ([`Parts::inject`]): the request network runs every interconnect tick of the span
//!    in order (the SMs' requests under the usual `born` rule), seeing each slice's buffer room
//!    as of the span's start less what it admitted during the span;
//! 2. parallel, one job per partition ([`PartJob::run`]): DRAM and L2 ticks in the usual order, and
//!    at each interconnect tick the slices take the requests that have arrived (as the one-piece
//!    memory side does); a slice's replies stay in its reply queue, stamped with the time they
//!    entered it, so the slice sees that queue's room as of the span's start less its own replies;
//! 3. sequential ([`Parts::finish`]): the reply network runs every interconnect tick of the span in
//!    order, taking a slice's reply only at a tick at or after its stamp (as the one-piece memory
//!    side could have).
//!
//! A job touches only its partition's channel, slices and request buffers, so results do not
//! depend on which thread ran it.
//!
//! Inside a team phase ([`TeamSpan`], the overlapped window): phases 1 and 3 need not hold the
//! team up. Phase 1 runs on the calling thread while the others step SMs; a partition job waits
//! until phase 1 is done; the job that completes the last partition runs phase 3 on its thread,
//! while the others are still stepping SMs. The three phases keep their order and their inputs,
//! so the statistics are those of running them one after the other.
//!
//! Phases 1 and 2 of a span overlap where the lookahead allows it ([`Parts::lend`]): a request
//! the network delivers at interconnect cycle `i` arrives at `i + icnt.latency` or later, so when
//! the span has at most `icnt.latency` interconnect ticks (counted on the interconnect's clock:
//! 4 for `sim.window = 4` on `gtx480`, 8 with the 3.2.0 presets' 1400 MHz interconnect), no
//! request delivered during the span arrives within it, and the partitions need only what was
//! queued before it. The network lends those queues to the partitions (still counting their
//! packets against the slices' buffers, [`Network::lend_queues`]) and runs the span's ticks
//! while the partitions run theirs; the span's close appends the span's deliveries behind what
//! the partitions left. Phase 3's reply network needs nothing of phase 1 (it reads the slices'
//! reply queues), so in a team phase it starts when the last partition ends, beside phase 1's
//! request network if that still runs: the chain of a span is `max(I, P + F)` (request network,
//! longest partition, reply network) instead of `I + P + F`. Each phase sees the inputs it sees
//! in order, so the statistics are the same.

use super::{Mem, DRAM, ICNT, L2};
use crate::dram::Channel;
use crate::mem::icnt::{Network, Sources};
use crate::mem::l2::L2Slice;
use crate::mem::req::MemReq;
use std::cell::UnsafeCell;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The clock state of the memory side: per domain, the cycle count and the next tick's time.
type Clocks = ([u64; 4], [u64; 4]);

/// The split memory side's state between the phases of a span.
#[derive(Default)]
pub(super) struct Parts {
    /// Per slice: the times (femtoseconds) at which the replies it queued during this span's
    /// phase 2 entered its reply queue (the last `len` entries of `out_q`; older entries are
    /// ready).
    stamps: Vec<VecDeque<u64>>,
    /// Per slice: the request network's buffer towards it, moved out for phase 2.
    queues: Vec<VecDeque<(u64, MemReq)>>,
    /// The span's interconnect ticks: (time, interconnect cycle).
    ticks: Vec<(u64, u64)>,
    /// The clocks at the span's start and end.
    start: Clocks,
    end: Clocks,
    t_end: u64,
    /// The request network lent `queues` ([`Parts::lend`]) rather than gave them up after its
    /// ticks ([`Parts::inject`]).
    lent: bool,
}

/// Phase 2 of one partition: its channel, slices, request buffers and reply stamps.
pub(super) struct PartJob<'a> {
    channel: &'a mut Channel,
    slices: &'a mut [L2Slice],
    queues: &'a mut [VecDeque<(u64, MemReq)>],
    stamps: &'a mut [VecDeque<u64>],
    /// Global index of `slices[0]`.
    base: usize,
    start: Clocks,
    period: [u64; 4],
    t_end: u64,
}

impl Parts {
    /// Phase 1 of the span ending before time `t_end` (clocks `cyc`, `next`, `period`):
    /// `take(net, cycle, time)` runs the request network's interconnect cycle at each tick.
    /// Then moves the request buffers out for phase 2.
    #[inline(never)]
    pub(super) fn inject(
        &mut self,
        mem: &mut Mem,
        cyc: &[u64; 4],
        next: &[u64; 4],
        period: &[u64; 4],
        t_end: u64,
        take: impl FnMut(&mut Network, u64, u64),
    ) {
        self.plan(cyc, next, period, t_end);
        Self::request_ticks(&self.ticks, &mut mem.req_net, take);
        self.queues = mem.req_net.take_queues();
        self.lent = false;
        self.size_stamps(mem.slices.len());
    }

    /// Phase 1 overlapped with phase 2, where the lookahead allows it (module docs): plans the
    /// span ending before `t_end` and, if its interconnect ticks number at most the request
    /// network's latency, moves the request buffers out for phase 2 ([`Network::lend_queues`])
    /// and returns true; the caller then runs [`Parts::request_ticks`] beside the partitions.
    /// Otherwise changes nothing and returns false.
    pub(super) fn lend(
        &mut self,
        mem: &mut Mem,
        cyc: &[u64; 4],
        next: &[u64; 4],
        period: &[u64; 4],
        t_end: u64,
    ) -> bool {
        self.plan(cyc, next, period, t_end);
        if self.ticks.len() as u64 > mem.req_net.latency() {
            return false;
        }
        self.queues = mem.req_net.lend_queues();
        self.lent = true;
        self.size_stamps(mem.slices.len());
        true
    }

    /// The span ending before `t_end`: its interconnect ticks and its clocks at both ends.
    fn plan(&mut self, cyc: &[u64; 4], next: &[u64; 4], period: &[u64; 4], t_end: u64) {
        self.start = (*cyc, *next);
        self.t_end = t_end;
        self.ticks.clear();
        let (mut c, mut n) = (*cyc, *next);
        loop {
            let t = n[DRAM].min(n[L2]).min(n[ICNT]);
            if t >= t_end {
                break;
            }
            for d in [DRAM, L2, ICNT] {
                if n[d] == t {
                    if d == ICNT {
                        self.ticks.push((t, c[ICNT]));
                    }
                    c[d] += 1;
                    n[d] += period[d];
                }
            }
        }
        self.end = (c, n);
    }

    /// The request network's ticks of the planned span: `take(net, cycle, time)` at each.
    #[inline(never)]
    pub(super) fn request_ticks(
        ticks: &[(u64, u64)],
        net: &mut Network,
        mut take: impl FnMut(&mut Network, u64, u64),
    ) {
        for &(t, icnt) in ticks {
            take(net, icnt, t);
        }
    }

    fn size_stamps(&mut self, n_slices: usize) {
        if self.stamps.len() < n_slices {
            self.stamps.resize_with(n_slices, VecDeque::new);
        }
    }

    /// Phase 2's jobs, one per partition (after [`Parts::inject`]).
    pub(super) fn jobs<'a>(&'a mut self, mem: &'a mut Mem, period: &[u64; 4]) -> Vec<PartJob<'a>> {
        let spc = mem.spc;
        mem.channels
            .iter_mut()
            .zip(mem.slices.chunks_mut(spc))
            .zip(self.queues.chunks_mut(spc))
            .zip(self.stamps.chunks_mut(spc))
            .enumerate()
            .map(|(p, (((channel, slices), queues), stamps))| PartJob {
                channel,
                slices,
                queues,
                stamps,
                base: p * spc,
                start: self.start,
                period: *period,
                t_end: self.t_end,
            })
            .collect()
    }

    /// Phase 3 (after every job): the reply network runs the span's ticks, the request buffers
    /// go back to the network, and the clocks move to the span's end.
    pub(super) fn finish(&mut self, mem: &mut Mem, cyc: &mut [u64; 4], next: &mut [u64; 4]) {
        Self::reply_ticks(
            &self.ticks,
            &mut self.stamps,
            &mut mem.reply_net,
            &mut mem.slices,
        );
        self.close(&mut mem.req_net, cyc, next);
    }

    /// Phase 3's reply network (after every partition; it needs nothing of phase 1): the
    /// span's ticks `ticks` over the slices' stamped reply queues.
    #[inline(never)]
    pub(super) fn reply_ticks(
        ticks: &[(u64, u64)],
        stamps: &mut [VecDeque<u64>],
        net: &mut Network,
        slices: &mut [L2Slice],
    ) {
        for &(t, icnt) in ticks {
            net.cycle(
                icnt,
                &mut Stamped {
                    slices: &mut *slices,
                    stamps: &mut *stamps,
                    t,
                },
            );
            net.release_held();
        }
        // Replies left in the queues are ready at the next span.
        for s in stamps {
            s.clear();
        }
    }

    /// The span's end (after phase 1 and phase 3's reply ticks): the request buffers go back to
    /// the request network `req_net` and the clocks move to the span's end.
    pub(super) fn close(&mut self, req_net: &mut Network, cyc: &mut [u64; 4], next: &mut [u64; 4]) {
        let queues = std::mem::take(&mut self.queues);
        if self.lent {
            req_net.return_queues(queues);
        } else {
            req_net.restore_queues(queues);
        }
        for d in [ICNT, L2, DRAM] {
            cyc[d] = self.end.0[d];
            next[d] = self.end.1[d];
        }
    }
}

/// The reply network's sources in phase 3: each slice's reply queue, whose head is taken only at
/// a tick at or after the time it entered the queue.
struct Stamped<'a> {
    slices: &'a mut [L2Slice],
    stamps: &'a mut [VecDeque<u64>],
    t: u64,
}

impl Sources for Stamped<'_> {
    fn head(&self, s: usize) -> Option<&MemReq> {
        let q = &self.slices[s].out_q;
        let st = &self.stamps[s];
        // The first `len - stamps` entries are older than the span (ready).
        if q.len() > st.len() || st.front().is_some_and(|&at| at <= self.t) {
            q.front()
        } else {
            None
        }
    }
    fn pop(&mut self, s: usize) -> MemReq {
        let q = &mut self.slices[s].out_q;
        if q.len() == self.stamps[s].len() {
            self.stamps[s].pop_front();
        }
        q.pop_front().expect("head")
    }
}

impl PartJob<'_> {
    /// Phase 2: the partition's DRAM and L2 ticks of the span, and at each interconnect tick its
    /// slices take the requests that have arrived (the order of `Mem::l2_tick` and
    /// `Mem::icnt_mid`, restricted to this partition).
    #[inline(never)]
    pub(super) fn run(&mut self) {
        let (mut c, mut n) = self.start;
        let p = self.period;
        if self.idle() {
            // Nothing to do in the span: each DRAM tick would only count its cycle (an idle
            // slice's L2 tick and an empty request buffer's interconnect tick do nothing).
            let ticks = self.t_end.saturating_sub(n[DRAM]).div_ceil(p[DRAM]);
            self.channel.skip_cycles(ticks);
            return;
        }
        loop {
            let t = n[DRAM].min(n[L2]).min(n[ICNT]);
            if t >= self.t_end {
                break;
            }
            if n[DRAM] == t {
                self.channel.cycle(c[DRAM]);
                c[DRAM] += 1;
                n[DRAM] += p[DRAM];
            }
            if n[L2] == t {
                self.l2_tick(c[L2], c[DRAM], t);
                c[L2] += 1;
                n[L2] += p[L2];
            }
            if n[ICNT] == t {
                for (s, q) in self.slices.iter_mut().zip(self.queues.iter_mut()) {
                    while q.front().is_some_and(|&(at, _)| at <= c[ICNT]) && s.can_accept() {
                        let (_, r) = q.pop_front().expect("arrived");
                        s.accept(c[L2], r);
                    }
                }
                c[ICNT] += 1;
                n[ICNT] += p[ICNT];
            }
        }
    }

    /// Whether the partition has nothing to do in its span: no DRAM request queued or data
    /// returning, no slice with work or replies queued ([`L2Slice::busy`]), no request
    /// arrived or in flight towards its slices. Its span then changes only the channel's cycle
    /// count, so the job costs nothing, whatever the number of partitions.
    fn idle(&self) -> bool {
        !self.channel.busy()
            && self.queues.iter().all(VecDeque::is_empty)
            && self.slices.iter().all(|s| !s.busy())
    }

    /// One L2 cycle `now` of this partition at time `t` (`dnow`: the DRAM cycle count).
    fn l2_tick(&mut self, now: u64, dnow: u64, t: u64) {
        while let Some(r) = self.channel.peek_return(dnow) {
            self.slices[r.slice as usize - self.base].dram_return(now, r);
            self.channel.pop_return();
        }
        for (s, st) in self.slices.iter_mut().zip(self.stamps.iter_mut()) {
            let before = s.out_q.len();
            s.cycle(now);
            for _ in before..s.out_q.len() {
                st.push_back(t);
            }
            // Critical-miss upgrades matter only to an installed memory port (never split).
            s.crit_upgrades.clear();
            if let Some(d) = s.to_dram.front() {
                if self.channel.can_accept(d.write) {
                    self.channel.push(*d);
                    s.to_dram.pop_front();
                }
            }
        }
    }
}

/// Where phase 2's jobs find their partitions, published by [`TeamSpan::inject`].
struct Published {
    channels: *mut Channel,
    slices: *mut L2Slice,
    queues: *mut VecDeque<(u64, MemReq)>,
    stamps: *mut VecDeque<u64>,
    spc: usize,
    start: Clocks,
    t_end: u64,
}

/// One span of the split memory side run inside a team phase (module docs): phase 1
/// ([`TeamSpan::inject`]) on one thread, each partition ([`TeamSpan::part`]) on any thread once
/// phase 1 has published them (after its ticks, or before them where the lookahead allows:
/// [`Parts::lend`]), phase 3's reply network on the thread that completes the last partition
/// (beside phase 1 if that still runs), and the span's close on whichever of the two ends last.
pub(super) struct TeamSpan {
    mem: *mut Mem,
    parts: *mut Parts,
    cyc: *mut [u64; 4],
    next: *mut [u64; 4],
    period: [u64; 4],
    n_parts: usize,
    /// Set (release) when phase 1 has published the partitions (or panicked); `ok` says it
    /// published them (a panic before leaves the partitions undone, and the team re-raises
    /// the panic).
    ready: AtomicBool,
    ok: AtomicBool,
    published: UnsafeCell<Option<Published>>,
    /// Partitions completed (the last runs the reply network's ticks).
    parts_done: AtomicUsize,
    /// Of phase 1 and the reply network's ticks, those completed (the last closes the span).
    done: AtomicUsize,
}

// SAFETY: the memory side is reached only through the phases' order: `inject` alone (nothing
// else may use `mem`, `parts`, `cyc` or `next` until it has published), then each partition's
// disjoint channel, slices, request buffers and stamps (published with release, read after an
// acquire of `ready`), beside `inject`'s request network ticks when lent (the request network
// and the tick list only, which no partition touches), then the reply network's ticks (reply
// network, slices, stamps; after every partition's release of `parts_done`), still beside the
// request network's ticks, then `Parts::close` alone (after both releases of `done`).
unsafe impl Sync for TeamSpan {}

impl TeamSpan {
    /// A span over the memory side `mem` with the split state `parts` and the memory side's
    /// clocks (`cyc`, `next`, `period`). Until the last partition has run, nothing but this
    /// span may use `mem`, `parts`, `cyc` or `next`.
    pub(super) fn new(
        mem: &mut Mem,
        parts: &mut Parts,
        cyc: &mut [u64; 4],
        next: &mut [u64; 4],
        period: &[u64; 4],
    ) -> Self {
        Self {
            n_parts: mem.channels.len(),
            mem,
            parts,
            cyc,
            next,
            period: *period,
            ready: AtomicBool::new(false),
            ok: AtomicBool::new(false),
            published: UnsafeCell::new(None),
            parts_done: AtomicUsize::new(0),
            done: AtomicUsize::new(0),
        }
    }

    /// The partitions (phase 2's jobs): `part(0..n_parts())`.
    pub(super) fn n_parts(&self) -> usize {
        self.n_parts
    }

    /// Phase 1 of the span ending before `t_end`, and the partitions published to their jobs:
    /// before the request network's ticks where the lookahead allows it ([`Parts::lend`]: the
    /// partitions run beside them), after them otherwise ([`Parts::inject`]). If the reply
    /// network's ticks are done by then, it closes the span.
    ///
    /// # Safety
    /// Called once, before any call of [`TeamSpan::part`] can pass its wait (those wait for
    /// this), with nothing else using the memory side (see [`TeamSpan::new`]).
    pub(super) unsafe fn inject(&self, t_end: u64, take: impl FnMut(&mut Network, u64, u64)) {
        struct Open<'a>(&'a AtomicBool);
        impl Drop for Open<'_> {
            fn drop(&mut self) {
                self.0.store(true, Ordering::Release);
            }
        }
        // Opens the partitions even if phase 1 panics (they then do nothing).
        let open = Open(&self.ready);
        {
            // SAFETY: the caller's contract: this thread alone uses the memory side now. These
            // borrows end before the partitions are opened.
            let (mem, parts) = unsafe { (&mut *self.mem, &mut *self.parts) };
            let (cyc, next) = unsafe { (&*self.cyc, &*self.next) };
            if !parts.lend(mem, cyc, next, &self.period, t_end) {
                parts.inject(mem, cyc, next, &self.period, t_end, take);
                // SAFETY: as below.
                unsafe { self.publish(mem, parts) };
                drop(open);
                self.complete();
                return;
            }
            // SAFETY: no job reads `published` before `ready` is set.
            unsafe { self.publish(mem, parts) };
        }
        drop(open);
        // SAFETY: the partitions now use the channels, the slices, the lent request buffers and
        // the reply stamps; this thread uses only the request network and the span's tick
        // list, which no partition touches, until `complete`.
        let (net, ticks) = unsafe {
            (
                &mut *std::ptr::addr_of_mut!((*self.mem).req_net),
                &*std::ptr::addr_of!((*self.parts).ticks),
            )
        };
        Parts::request_ticks(ticks, net, take);
        self.complete();
    }

    /// Publishes the partitions of the memory side `mem` and the split state `parts` to their
    /// jobs; `ok` says that phase 1 has got this far.
    ///
    /// # Safety
    /// Before `ready` is set (no job reads `published` until then).
    unsafe fn publish(&self, mem: &mut Mem, parts: &mut Parts) {
        // SAFETY: the caller's contract.
        unsafe {
            *self.published.get() = Some(Published {
                channels: mem.channels.as_mut_ptr(),
                slices: mem.slices.as_mut_ptr(),
                queues: parts.queues.as_mut_ptr(),
                stamps: parts.stamps.as_mut_ptr(),
                spc: mem.spc,
                start: parts.start,
                t_end: parts.t_end,
            });
        }
        self.ok.store(true, Ordering::Relaxed);
    }

    /// Counts phase 1 or the reply network's ticks as complete; the call that completes the
    /// second closes the span ([`Parts::close`]: request buffers back, clocks to the span's end).
    fn complete(&self) {
        if self.done.fetch_add(1, Ordering::AcqRel) == 1 {
            // SAFETY: phase 1, every partition and the reply network's ticks have completed
            // (acquired through `done`, and `parts_done` before it): this thread alone uses the
            // memory side now.
            unsafe {
                (*self.parts).close(
                    &mut *std::ptr::addr_of_mut!((*self.mem).req_net),
                    &mut *self.cyc,
                    &mut *self.next,
                )
            };
        }
    }

    /// Phase 2 of partition `p` once phase 1 has published it; the call that completes the last
    /// partition then runs the reply network's ticks (phase 3, beside phase 1's request network
    /// ticks if those still run) and, if phase 1 is done, closes the span.
    ///
    /// # Safety
    /// Called once for each `p < n_parts()` (any threads), with [`TeamSpan::inject`] called once
    /// on some thread that is not waiting for a partition.
    pub(super) unsafe fn part(&self, p: usize) {
        let mut k = 0u32;
        while !self.ready.load(Ordering::Acquire) {
            if k < 4096 {
                std::hint::spin_loop();
                k += 1;
            } else {
                std::thread::yield_now();
            }
        }
        if !self.ok.load(Ordering::Relaxed) {
            return;
        }
        // SAFETY: published before `ready` (acquired above) and not written again.
        let q = unsafe { (*self.published.get()).as_ref().expect("published") };
        let spc = q.spc;
        // The job's borrows end with this block, before phase 3 may take the whole side.
        {
            // SAFETY: partition `p`'s channel, slices, request buffers and stamps, used by this
            // call alone (each `p` runs once); phase 1 touches no partition any more (it has
            // published them) and phase 3 waits for this call.
            let mut job = unsafe {
                PartJob {
                    channel: &mut *q.channels.add(p),
                    slices: std::slice::from_raw_parts_mut(q.slices.add(p * spc), spc),
                    queues: std::slice::from_raw_parts_mut(q.queues.add(p * spc), spc),
                    stamps: std::slice::from_raw_parts_mut(q.stamps.add(p * spc), spc),
                    base: p * spc,
                    start: q.start,
                    period: self.period,
                    t_end: q.t_end,
                }
            };
            job.run();
        }
        if self.parts_done.fetch_add(1, Ordering::AcqRel) + 1 == self.n_parts {
            // SAFETY: every partition has completed (acquired through `parts_done`); phase 1,
            // which may still run its request network's ticks, touches neither the reply
            // network, the slices nor the stamps, and reads the tick list only.
            unsafe {
                Parts::reply_ticks(
                    &*std::ptr::addr_of!((*self.parts).ticks),
                    &mut *std::ptr::addr_of_mut!((*self.parts).stamps),
                    &mut *std::ptr::addr_of_mut!((*self.mem).reply_net),
                    &mut *std::ptr::addr_of_mut!((*self.mem).slices),
                )
            };
            self.complete();
        }
    }
}
