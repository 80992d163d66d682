//! DRAM channels (spec 000 §8.1 item 6): one controller per channel with a bounded request
//! queue, a pluggable scheduler ([`sched`]), per-bank row-buffer state with GDDR5 timing
//! (tRCD, tRP, tRAS, tRC, tCL, tWL, tCCD/tCCDL with bank groups, tRRD, tWR, tWTR, tRTP), one
//! command per command cycle (or, with `dram.dual_bus`, one row command, activate or
//! precharge, and one column command), and a shared data bus. Cycles here are DRAM command
//! cycles.
//!
//! Decisions: a request of `n` bursts needs `n` column commands (a 128 B line = 2 bursts of 64 B);
//! the row-hit rate counts requests whose first column access needed no activate; read-to-write
//! turnaround is `tCL + burst + 2 - tWL` cycles after a read command (GPGPU-Sim's rule);
//! open-page policy (rows stay open until a conflicting request precharges them); reads and
//! writes wait in separate queues of `queue_size` entries each, and the controller serves reads
//! until the write queue is 3/4 full (or no read waits), then drains writes down to 1/4 full
//! (write batching, as GPGPU-Sim's separate write queue option: it avoids a bus turnaround and a
//! row conflict per write).

pub mod addrmap;
pub mod chanidx;
pub mod port;
pub mod sched;

use crate::config::DramConfig;
use crate::mem::req::MemReq;
use crate::stats::DramStats;
use sched::{DramScheduler, Policy};
use std::collections::VecDeque;

/// A request queued at a controller.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DramReq {
    /// Byte address (L2-line aligned).
    pub addr: u64,
    /// Data bytes.
    pub bytes: u32,
    /// Write (a dirty-line write-back, or a store sent on by the L2) or read (a line fill).
    pub write: bool,
    /// For a store the L2 sent on without keeping it (write-allocate `naive` or `none`): the
    /// acknowledgement the L2 returns to the SM once DRAM has written the data. The write is
    /// then returned like a read.
    pub ack: Option<MemReq>,
    /// Bank.
    pub bank: u32,
    /// Row.
    pub row: u32,
    /// L2 slice that asked.
    pub slice: u16,
    /// Column accesses still to issue.
    pub bursts_left: u8,
    /// Column accesses issued.
    pub bursts_done: u8,
    /// An activate was issued for this request.
    pub activated: bool,
    /// Criticality bit of the L1D miss that caused this request (see [`crate::core::probe`]).
    pub crit: bool,
    /// SM of that miss (0 for write-backs).
    pub sm: u16,
    /// [`MemReq::miss_pc`] of the L1D miss that caused this request: the first one where the
    /// L2 merged the misses of several loads into one fetch; 0 for write-backs and requests
    /// no probe marked.
    pub miss_pc: u32,
}

#[derive(Debug, Clone, Copy, Default)]
struct Bank {
    open: Option<u32>,
    next_act: u64,
    next_pre: u64,
    next_col: u64,
}

/// Command slots left in one DRAM cycle ((row, column); one shared slot without a dual bus),
/// the round-robin position after the first bank that issued, and the earliest cycle at which a
/// bank that could not issue may (see [`Channel::try_issue`]).
struct Slots {
    row: bool,
    col: bool,
    next_rr: Option<u32>,
    wake: u64,
}

/// What [`Channel::try_issue`] reads of a request.
struct Head {
    bank: u32,
    row: u32,
    write: bool,
    ack: bool,
}

/// One channel's controller, banks and data bus.
pub struct Channel {
    cfg: DramConfig,
    queue: Vec<DramReq>,
    wqueue: Vec<DramReq>,
    draining: bool,
    pending: Vec<u16>,
    wpending: Vec<u16>,
    banks: Vec<Bank>,
    group_next_col: Vec<u64>,
    next_act_any: u64,
    next_rd: u64,
    next_wr: u64,
    bus_free: u64,
    rr: u32,
    returns: VecDeque<(u64, DramReq)>,
    sched: Policy,
    /// Changes of the queues or of an open row so far: the scheduler's answers
    /// ([`DramScheduler::pick`]) stay valid while it is unchanged.
    ver: u64,
    /// Per bank: (`2 * ver + write` when asked, the scheduler's answer); with a bank-local
    /// policy ([`DramScheduler::bank_local`]) the bank's own `2 * bank_ver + write` instead;
    /// third, the cycle [`Channel::try_issue`] last named as the earliest at which that
    /// request's next command could issue (0: not asked). While the key is unchanged the
    /// request, the bank's open row and its own timers are unchanged, and every other
    /// constraint of `try_issue` (data bus, bank group, read/write turnaround, activate spacing)
    /// only moves later, so the cycle stays a lower bound and the bank is passed over until
    /// then without asking (statistics identical:
    /// `waking_when_a_command_can_issue_matches_trying_every_cycle`).
    picks: Vec<(u64, Option<usize>, u64)>,
    /// The policy's answer for a bank depends only on that bank's requests and row.
    bank_local: bool,
    /// Per bank: changes of its requests or of its open row so far.
    bank_ver: Vec<u64>,
    /// Banks with queued reads (`[0]`) and writes (`[1]`) as bit masks, kept when a channel has
    /// at most 64 banks: the command loop visits only those, in the same order.
    pend_mask: [u64; 2],
    /// No command can issue before this DRAM cycle: the last cycle stepped issued nothing, and
    /// this is the earliest cycle at which some bank's next command meets its timing
    /// constraints (`u64::MAX`: no bank had a request to try). Cycles before it are only
    /// counted. Reset by anything that changes the inputs: a new request, a return taken.
    wake: u64,
    /// `cfg.burst_cycles()`, kept (a division).
    burst_cycles: u64,
    /// Counters.
    pub stats: DramStats,
}

impl Channel {
    /// A channel as configured (validated).
    pub fn new(cfg: &DramConfig) -> Self {
        Self {
            cfg: cfg.clone(),
            queue: Vec::with_capacity(cfg.queue_size as usize),
            wqueue: Vec::with_capacity(cfg.queue_size as usize),
            draining: false,
            pending: vec![0; cfg.banks as usize],
            wpending: vec![0; cfg.banks as usize],
            banks: vec![Bank::default(); cfg.banks as usize],
            group_next_col: vec![0; cfg.bank_groups as usize],
            next_act_any: 0,
            next_rd: 0,
            next_wr: 0,
            bus_free: 0,
            rr: 0,
            returns: VecDeque::with_capacity(cfg.return_queue as usize),
            sched: Policy::new(&cfg.scheduler).expect("validated scheduler"),
            ver: 0,
            picks: vec![(u64::MAX, None, 0); cfg.banks as usize],
            bank_local: false,
            bank_ver: vec![0; cfg.banks as usize],
            pend_mask: [0; 2],
            wake: 0,
            burst_cycles: cfg.burst_cycles() as u64,
            stats: DramStats::default(),
        }
        .with_bank_local()
    }

    fn with_bank_local(mut self) -> Self {
        self.bank_local = self.sched.bank_local();
        self
    }

    /// Whether the read (or write) queue has room.
    pub fn can_accept(&self, write: bool) -> bool {
        if write {
            self.wqueue.len() < self.cfg.write_watermarks().0
        } else {
            self.queue.len() < self.cfg.queue_size as usize
        }
    }

    /// Queues a request (caller checked `can_accept`).
    pub fn push(&mut self, mut r: DramReq) {
        let bb = self.cfg.burst_bytes();
        r.bursts_left = r.bytes.div_ceil(bb).max(1) as u8;
        r.bursts_done = 0;
        r.activated = false;
        self.wake = 0;
        self.ver += 1;
        let b = r.bank as usize;
        let (w, old) = (r.write as u64, self.bank_ver[b] * 2);
        self.bank_ver[b] += 1;
        if r.bank < 64 {
            self.pend_mask[r.write as usize] |= 1 << r.bank;
        }
        if r.write {
            self.wpending[b] += 1;
            self.wqueue.push(r);
        } else {
            self.pending[b] += 1;
            self.queue.push(r);
        }
        if self.bank_local {
            // Keep the bank's answer where it can be carried over: the other queue's is
            // unchanged, this queue's the policy may derive from the old one.
            // The earliest cycle stays with the same request.
            let (key, p, at) = self.picks[b];
            let v = self.bank_ver[b] * 2;
            if key == old + (1 - w) {
                self.picks[b].0 = v + (1 - w);
            } else if key == old + w {
                let q = if r.write { &self.wqueue } else { &self.queue };
                if let Some(n) = self.sched.pick_after_push(q, r.bank, self.banks[b].open, p) {
                    self.picks[b] = (v + w, n, if n == p { at } else { 0 });
                }
            }
        }
    }

    /// Whether any work is queued or returning.
    pub fn busy(&self) -> bool {
        !self.queue.is_empty() || !self.wqueue.is_empty() || !self.returns.is_empty()
    }

    /// Idle skipping: whether a command could be scheduled (requests are queued). Decision:
    /// bank timing is not used to look ahead; a queued request keeps every cycle stepped.
    pub fn has_queued(&self) -> bool {
        !self.queue.is_empty() || !self.wqueue.is_empty()
    }

    /// Idle skipping: the DRAM cycle at which the oldest read return becomes visible.
    pub fn next_return(&self) -> Option<u64> {
        self.returns.front().map(|&(t, _)| t)
    }

    /// Idle skipping: accounts `n` cycles in which [`Channel::cycle`] would only count them
    /// (nothing queued).
    pub fn skip_cycles(&mut self, n: u64) {
        debug_assert!(!self.has_queued());
        self.stats.cycles += n;
    }

    /// The oldest completed read (or acknowledged write, see [`DramReq::ack`]) whose data has
    /// arrived by DRAM cycle `now`.
    pub fn peek_return(&self, now: u64) -> Option<&DramReq> {
        match self.returns.front() {
            Some((t, r)) if *t <= now => Some(r),
            _ => None,
        }
    }

    /// Removes the oldest completed read.
    pub fn pop_return(&mut self) {
        self.wake = 0;
        self.returns.pop_front();
    }

    /// One DRAM command cycle.
    #[inline]
    pub fn cycle(&mut self, now: u64) {
        self.stats.cycles += 1;
        // An idle channel only counts the cycle: answered here, inlined into the memory side's
        // loop, without the call.
        if !self.has_queued() {
            return;
        }
        self.schedule(now);
    }

    /// [`Channel::cycle`] of a channel with requests queued: one command.
    #[inline(never)]
    fn schedule(&mut self, now: u64) {
        let (_, high, low) = self.cfg.write_watermarks();
        if self.wqueue.len() >= high {
            self.draining = true;
        } else if self.wqueue.len() < low {
            self.draining = false;
        }
        let write = self.queue.is_empty() || (self.draining && !self.wqueue.is_empty());
        if now < self.wake {
            // Every bank would be asked again and refuse (the queues, rows, returns and
            // timing state are as when `wake` was computed).
            return;
        }
        let nb = self.cfg.banks;
        let mut slots = Slots {
            row: true,
            col: true,
            next_rr: None,
            wake: u64::MAX,
        };
        if nb <= 64 {
            // Banks with requests, from the round-robin position on (no division per bank).
            let pend = self.pend_mask[write as usize];
            let rr = self.rr;
            let from_rr = pend & (u64::MAX << rr);
            'banks: for mut m in [from_rr, pend & !from_rr] {
                while m != 0 {
                    let b = m.trailing_zeros();
                    m &= m - 1;
                    if !self.visit_bank(b, write, now, &mut slots) {
                        break 'banks;
                    }
                }
            }
        } else {
            for i in 0..nb {
                let b = (self.rr + i) % nb;
                let pend = if write { &self.wpending } else { &self.pending };
                if pend[b as usize] != 0 && !self.visit_bank(b, write, now, &mut slots) {
                    break;
                }
            }
        }
        match slots.next_rr {
            Some(rr) => {
                self.rr = rr;
                self.wake = 0;
            }
            None => self.wake = slots.wake,
        }
    }

    /// Bank `b` (with requests of the served queue) in the command loop of [`Channel::cycle`]:
    /// asks the scheduler for its request and tries to issue its next command into the free
    /// command slots. Returns `false` when the cycle has no command slot left.
    #[inline]
    fn visit_bank(&mut self, b: u32, write: bool, now: u64, slots: &mut Slots) -> bool {
        let nb = self.cfg.banks;
        let open = self.banks[b as usize].open;
        let v = if self.bank_local {
            self.bank_ver[b as usize]
        } else {
            self.ver
        };
        let key = v * 2 + write as u64;
        let memo = self.picks[b as usize];
        let pick = if memo.0 == key {
            if now < memo.2 {
                slots.wake = slots.wake.min(memo.2);
                return true;
            }
            memo.1
        } else {
            let q = if write { &self.wqueue } else { &self.queue };
            let p = self.sched.pick(q, b, open);
            self.picks[b as usize] = (key, p, 0);
            p
        };
        let Some(idx) = pick else {
            return true;
        };
        let r = if write {
            &self.wqueue[idx]
        } else {
            &self.queue[idx]
        };
        let column = open == Some(r.row);
        if (column && !slots.col) || (!column && !slots.row) {
            return true;
        }
        let queued = if write {
            self.wqueue.len()
        } else {
            self.queue.len()
        };
        let issued = self.try_issue(idx, write, now);
        if let Err(at) = issued {
            slots.wake = slots.wake.min(at);
            self.picks[b as usize].2 = at;
        }
        if issued.is_ok() {
            self.ver += 1;
            self.bank_ver[b as usize] += 1;
            let left = if write {
                self.wqueue.len()
            } else {
                self.queue.len()
            };
            if self.bank_local && left == queued {
                // The request stays queued: the policy may know its answer after the command.
                if let Some(p) = self.sched.pick_after_command(idx) {
                    self.picks[b as usize] = (self.bank_ver[b as usize] * 2 + write as u64, p, 0);
                }
            }
            slots
                .next_rr
                .get_or_insert(if b + 1 == nb { 0 } else { b + 1 });
            if !self.cfg.dual_bus {
                return false;
            }
            if column {
                slots.col = false;
            } else {
                slots.row = false;
            }
            if !slots.row && !slots.col {
                return false;
            }
        }
        true
    }

    /// Issues the next command of request `idx` if its timing constraints allow at `now`.
    /// `Err(t)`: they do not; `t > now` is a cycle before which they cannot (every constraint is
    /// a "not before" cycle, except room in the return queue: then `now + 1`), as long as
    /// nothing changes the channel's state.
    fn try_issue(&mut self, idx: usize, write: bool, now: u64) -> Result<(), u64> {
        let t = &self.cfg.timing;
        // The few fields used, not a copy of the request.
        let r = {
            let q = if write { &self.wqueue } else { &self.queue };
            let q = &q[idx];
            Head {
                bank: q.bank,
                row: q.row,
                write: q.write,
                ack: q.ack.is_some(),
            }
        };
        let bi = r.bank as usize;
        let g = self.cfg.bank_group(bi);
        let bank = self.banks[bi];
        let bc = self.burst_cycles;
        match bank.open {
            Some(row) if row == r.row => {
                let col_at = bank.next_col.max(self.group_next_col[g]);
                let (lat, next, full) = if r.write {
                    let full = r.ack && self.returns.len() >= self.cfg.return_queue as usize;
                    (t.t_wl as u64, self.next_wr, full)
                } else {
                    let full = self.returns.len() >= self.cfg.return_queue as usize;
                    (t.t_cl as u64, self.next_rd, full)
                };
                // The data burst must not start before the bus is free: now + lat >= bus_free.
                let at = col_at.max(next).max(self.bus_free.saturating_sub(lat));
                if now < at {
                    return Err(at);
                }
                if full {
                    return Err(now + 1);
                }
                let data_at = now + lat;
                let end = data_at + bc;
                self.bus_free = end;
                for (k, n) in self.group_next_col.iter_mut().enumerate() {
                    let gap = if k == g { t.t_ccdl } else { t.t_ccd };
                    *n = (*n).max(now + gap as u64);
                }
                let b = &mut self.banks[bi];
                if r.write {
                    self.next_rd = self.next_rd.max(end + t.t_wtr as u64);
                    b.next_pre = b.next_pre.max(end + t.t_wr as u64);
                } else {
                    let turn = (t.t_cl as u64 + bc + 2).saturating_sub(t.t_wl as u64);
                    self.next_wr = self.next_wr.max(now + turn);
                    b.next_pre = b.next_pre.max(now + t.t_rtp as u64);
                }
                self.stats.busy_cycles += bc;
                self.stats.bytes += self.cfg.burst_bytes() as u64;
                let q = if write {
                    &mut self.wqueue[idx]
                } else {
                    &mut self.queue[idx]
                };
                if q.bursts_done == 0 {
                    if q.activated {
                        self.stats.row_misses += 1;
                    } else {
                        self.stats.row_hits += 1;
                    }
                }
                q.bursts_done += 1;
                q.bursts_left -= 1;
                if q.bursts_left == 0 {
                    let (done, left) = if write {
                        self.wpending[bi] -= 1;
                        (self.wqueue.remove(idx), self.wpending[bi])
                    } else {
                        self.pending[bi] -= 1;
                        (self.queue.remove(idx), self.pending[bi])
                    };
                    if left == 0 && bi < 64 {
                        self.pend_mask[write as usize] &= !(1 << bi);
                    }
                    if self.bank_local {
                        // Kept answers of other banks for this queue name the same requests,
                        // one place earlier when behind the removed one.
                        for (k, p) in self.picks.iter_mut().enumerate() {
                            if k != bi && p.0 % 2 == write as u64 {
                                if let Some(j) = p.1.as_mut().filter(|j| **j > idx) {
                                    *j -= 1;
                                }
                            }
                        }
                    }
                    if done.write {
                        self.stats.writes += 1;
                        if done.ack.is_some() {
                            self.returns.push_back((end, done));
                        }
                    } else {
                        self.stats.reads += 1;
                        self.returns.push_back((end, done));
                    }
                }
                Ok(())
            }
            Some(_) => {
                if now < bank.next_pre {
                    return Err(bank.next_pre);
                }
                let b = &mut self.banks[bi];
                b.open = None;
                b.next_act = b.next_act.max(now + t.t_rp as u64);
                self.stats.precharges += 1;
                Ok(())
            }
            None => {
                if now < bank.next_act || now < self.next_act_any {
                    return Err(bank.next_act.max(self.next_act_any));
                }
                let b = &mut self.banks[bi];
                b.open = Some(r.row);
                b.next_col = now + t.t_rcd as u64;
                b.next_pre = now + t.t_ras as u64;
                b.next_act = now + t.t_rc as u64;
                self.next_act_any = now + t.t_rrd as u64;
                if write {
                    self.wqueue[idx].activated = true;
                } else {
                    self.queue[idx].activated = true;
                }
                self.stats.activates += 1;
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chan() -> Channel {
        Channel::new(&crate::GpuConfig::preset("gtx480").unwrap().dram)
    }

    fn run(c: &mut Channel, until: u64) -> Vec<u64> {
        let mut done = vec![];
        for now in 0..until {
            c.cycle(now);
            while c.peek_return(now).is_some() {
                c.pop_return();
                done.push(now);
            }
        }
        done
    }

    /// The per-bank reuse of FR-FCFS answers (`bank_local`) serves the same requests in the
    /// same cycles as asking again after every change of the queues, on a stream of reads
    /// and writes over few banks and rows (row hits, conflicts, removals ahead of kept picks,
    /// full queues).
    #[test]
    fn bank_local_answers_match_asking_again() {
        let go = |local: bool| {
            let mut c = chan();
            assert!(c.bank_local, "FR-FCFS reads only the bank's requests");
            c.bank_local = local;
            let mut x = 12345u64;
            let mut done = vec![];
            for now in 0..20_000u64 {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let write = (x >> 40).is_multiple_of(4);
                if !(x >> 33).is_multiple_of(3) && c.can_accept(write) {
                    c.push(DramReq {
                        addr: now,
                        bytes: 32 << ((x >> 50) % 3),
                        write,
                        bank: ((x >> 20) % 4) as u32,
                        row: ((x >> 10) % 3) as u32,
                        ..Default::default()
                    });
                }
                c.cycle(now);
                while let Some(r) = c.peek_return(now) {
                    done.push((now, r.addr));
                    c.pop_return();
                }
            }
            (done, c.stats.row_hits, c.stats.row_misses, c.stats.writes)
        };
        let (a, b) = (go(true), go(false));
        assert!(a.0.len() > 1000 && a.3 > 100, "a busy channel");
        assert_eq!(a, b);
    }

    /// Sleeping until the earliest cycle a bank's command meets its timing (`Channel::wake`)
    /// and passing over a bank until its own kept earliest cycle (`Channel::picks`) change
    /// nothing: random reads and writes over 8 banks and 4 rows, returns sometimes left waiting
    /// (a full return queue), with one and with two command buses, with the bank-local and the
    /// channel-wide keys of the kept answers, give the same returns, cycles and counters as
    /// trying every bank every cycle.
    #[test]
    fn waking_when_a_command_can_issue_matches_trying_every_cycle() {
        for (dual, local) in [(false, true), (true, true), (false, false), (true, false)] {
            let go = |sleep: bool| {
                let mut cfg = crate::GpuConfig::preset("gtx480").unwrap().dram;
                cfg.dual_bus = dual;
                let mut c = Channel::new(&cfg);
                c.bank_local = local;
                let mut x = 99u64;
                let (mut done, mut slept) = (vec![], 0u64);
                for now in 0..30_000u64 {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let write = (x >> 40).is_multiple_of(3);
                    if (x >> 33).is_multiple_of(4) && c.can_accept(write) {
                        c.push(DramReq {
                            addr: now,
                            bytes: 32 << ((x >> 50) % 3),
                            write,
                            bank: ((x >> 20) % 8) as u32,
                            row: ((x >> 10) % 4) as u32,
                            ..Default::default()
                        });
                    }
                    if !sleep {
                        c.wake = 0;
                        c.picks.iter_mut().for_each(|p| p.2 = 0);
                    } else if now < c.wake {
                        slept += 1;
                    }
                    c.cycle(now);
                    // Returns taken in bursts: the return queue fills in between.
                    if (now / 500) % 2 == 0 {
                        while let Some(r) = c.peek_return(now) {
                            done.push((now, r.addr));
                            c.pop_return();
                        }
                    }
                }
                ((done, c.stats), slept)
            };
            let ((a, slept), (b, _)) = (go(true), go(false));
            assert_eq!(a, b);
            assert!(a.0.len() > 1000 && a.1.writes > 300, "a busy channel");
            assert!(slept > 1_000, "cycles skipped: {slept}");
        }
    }

    /// With `dual_bus` an activate and a column command share a cycle: two banks, one with its
    /// row open, one closed, finish sooner than with one command bus.
    #[test]
    fn dual_bus_issues_a_row_and_a_column_command_per_cycle() {
        let go = |dual: bool| {
            let mut cfg = crate::GpuConfig::preset("gtx480").unwrap().dram;
            cfg.dual_bus = dual;
            let mut c = Channel::new(&cfg);
            // Open bank 0's row 1 with a first request, then queue a row hit there and a
            // request for closed bank 1.
            c.push(DramReq {
                bytes: 64,
                bank: 0,
                row: 1,
                ..Default::default()
            });
            let mut t = 0;
            while c.stats.reads == 0 {
                c.cycle(t);
                t += 1;
            }
            // Let column-to-column and bus timing expire.
            t += 20;
            for (bank, row) in [(0, 1), (1, 5)] {
                c.push(DramReq {
                    bytes: 64,
                    bank,
                    row,
                    ..Default::default()
                });
            }
            c.cycle(t);
            (c.stats.activates, c.stats.row_hits)
        };
        // One bus: one command in that cycle (bank 1's activate, first in round-robin order);
        // dual: that activate and bank 0's row-hit read.
        assert_eq!(go(false), (2, 0));
        assert_eq!(go(true), (2, 1));
    }

    /// `dram.bank_group_high_bits` (GPGPU-Sim `-dram_bnkgrp_indexing_policy 0`): banks 0 and 1
    /// of 16 in 4 groups share group 0, so two row hits there are tCCDL apart; with the low
    /// bits (policy 1) they are in groups 0 and 1, tCCD apart.
    #[test]
    fn bank_group_indexing_decides_which_column_gap_applies() {
        let gap = |high: bool| {
            let mut cfg = crate::GpuConfig::preset("gtx480").unwrap().dram;
            cfg.bank_group_high_bits = high;
            cfg.timing.t_ccd = 1;
            cfg.timing.t_ccdl = 12;
            assert_eq!(cfg.bank_group(1), if high { 0 } else { 1 });
            assert_eq!(cfg.bank_group(5), 1);
            let mut c = Channel::new(&cfg);
            // Open row 1 of banks 0 and 1, let every timer expire, then two row hits.
            for bank in [0, 1] {
                c.push(DramReq {
                    bytes: 32,
                    bank,
                    row: 1,
                    ..Default::default()
                });
            }
            let mut t = 0;
            while c.stats.reads < 2 {
                c.cycle(t);
                t += 1;
            }
            t += 100;
            for bank in [0, 1] {
                c.push(DramReq {
                    bytes: 32,
                    bank,
                    row: 1,
                    ..Default::default()
                });
            }
            let mut at = vec![];
            while c.stats.reads < 4 {
                let before = c.stats.reads;
                c.cycle(t);
                if c.stats.reads > before {
                    at.push(t);
                }
                t += 1;
            }
            at[1] - at[0]
        };
        let (low, high) = (gap(false), gap(true));
        assert!(high >= 12, "same group: tCCDL, got {high}");
        assert!(low < 12, "different groups: tCCD (and the bus), got {low}");
    }

    /// Write drains (GPGPU-Sim's separate write queue, `-dram_write_queue_size
    /// <entries>:<high>:<low>`): with reads always queued, three queued writes wait while the
    /// high watermark is 4, are all written when it is 3 and the low one 1, and only one is
    /// written when the low watermark is 3 (the drain stops below it).
    #[test]
    fn write_watermarks_decide_when_writes_are_served() {
        let writes = |high: u32, low: u32| {
            let mut cfg = crate::GpuConfig::preset("gtx480").unwrap().dram;
            (cfg.write_queue, cfg.write_high, cfg.write_low) = (8, high, low);
            let mut c = Channel::new(&cfg);
            for i in 0..3 {
                c.push(DramReq {
                    addr: 1 << 20 | i,
                    bytes: 32,
                    write: true,
                    bank: 1,
                    row: 3,
                    ..Default::default()
                });
            }
            for now in 0..3000u64 {
                if c.can_accept(false) {
                    c.push(DramReq {
                        addr: now,
                        bytes: 32,
                        bank: 0,
                        row: 0,
                        ..Default::default()
                    });
                }
                c.cycle(now);
                while c.peek_return(now).is_some() {
                    c.pop_return();
                }
            }
            assert!(c.stats.reads > 100);
            c.stats.writes
        };
        assert_eq!(writes(4, 1), 0);
        assert_eq!(writes(3, 1), 3);
        assert_eq!(writes(3, 3), 1);
    }

    #[test]
    fn closed_row_read_latency_is_rcd_plus_cl_plus_bursts() {
        let mut c = chan();
        c.push(DramReq {
            bytes: 128,
            bank: 3,
            row: 9,
            ..Default::default()
        });
        let done = run(&mut c, 200);
        // ACT at 0, RD at 12 (tRCD) and 15 (tCCDL, same group), data ends 15 + 12 + 2 = 29.
        assert_eq!(done, vec![29]);
        assert_eq!(c.stats.row_misses, 1);
        assert_eq!(c.stats.activates, 1);
    }

    #[test]
    fn row_hits_stream_at_bus_rate_and_conflicts_pay_precharge() {
        let mut c = chan();
        for i in 0..8 {
            c.push(DramReq {
                addr: i,
                bytes: 64,
                bank: (i % 4) as u32,
                row: 1,
                ..Default::default()
            });
        }
        run(&mut c, 400);
        assert_eq!(c.stats.reads, 8);
        assert_eq!(c.stats.activates, 4);
        // Bus busy 16 cycles for 8 bursts of 2 cycles.
        assert_eq!(c.stats.busy_cycles, 16);
        let mut c = chan();
        c.push(DramReq {
            bytes: 64,
            bank: 0,
            row: 1,
            ..Default::default()
        });
        c.push(DramReq {
            bytes: 64,
            bank: 0,
            row: 2,
            ..Default::default()
        });
        let done = run(&mut c, 400);
        // Second: PRE at max(tRAS=28, RD+tRTP) = 28, ACT at 40 (tRC), RD at 52, data ends 66.
        assert_eq!(done, vec![26, 66]);
        assert_eq!(c.stats.row_misses, 2);
        assert_eq!(c.stats.precharges, 1);
    }
}
