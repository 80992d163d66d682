//! Pagoda (and Pagoda-batch) on the simulated GPU, driving the real [`TaskTable`],
//! [`WarpTable`], [`Buddy`] and [`BarrierPool`] structures.
//!
//! One host thread spawns tasks: each spawn is two `cudaMemcpyAsync` calls (the task's data and
//! its TaskTable entry) on the single FIFO stream served by one copy engine. When its mirror shows
//! no free entry the host flushes its last task and copies the table back. Each MTB's scheduler
//! warp is a serial server: a scan of its 32 rows costs `scan`, each threadblock placement
//! `place`. A scheduled task's threadblocks are placed in order; when shared memory, a barrier
//! ID or executor warps run out, the scheduler warp blocks on that task (head-of-line) until
//! executor warps finish. All warps of a task run in its MTB, on that MTB's SM.
//!
//! Pagoda-batch spawns `pagoda_batch` tasks, flushes, and spawns the next batch only once the
//! host, polling every `poll` ns, sees all of them done.

use super::barrier::BarrierPool;
use super::buddy::{Block, Buddy};
use super::machine::{Fifo, Recorder, RunStats, Sms};
use super::master::PagodaConfig;
use super::task_table::{Msg, Params, TaskId, TaskTable};
use super::warp_table::WarpTable;
use super::workload::TaskSet;
use crate::engine::{EventQueue, Time, US};
use std::collections::VecDeque;

#[derive(Debug, Clone, Copy)]
enum Ev {
    Host,
    Land(Msg),
    Scan(usize),
    Poll,
}

#[derive(Debug, Clone, Copy)]
struct Pend {
    id: TaskId,
    task: usize,
    tb: u32,
    placed: u32,
    block: Option<Block>,
    bar: Option<u8>,
    ready: bool,
}

#[derive(Debug)]
struct Mtb {
    warps: WarpTable,
    buddy: Buddy,
    bars: BarrierPool,
    marked: Vec<Block>,
    pending: VecDeque<Pend>,
    sched: Fifo,
    scan_pending: bool,
}

#[derive(Debug, Clone, Copy)]
struct WarpRec {
    task: usize,
    unit: usize,
    slot: usize,
    col: usize,
    start: Time,
}

/// Execution trace of a run, for invariant tests.
#[derive(Debug, Clone, Default)]
pub struct Trace {
    /// How many times each task started executing.
    pub runs: Vec<u32>,
    /// Largest number of barrier IDs live at once in any MTB, and whether two live TBs of one
    /// MTB ever held the same ID.
    pub barrier_clash: bool,
    /// Every buddy tree was all-free at the end.
    pub smem_all_free: bool,
}

struct Sim<'a> {
    c: &'a PagodaConfig,
    set: &'a TaskSet,
    q: EventQueue<Ev>,
    table: TaskTable,
    mtbs: Vec<Mtb>,
    sms: Sms,
    copy: Fifo,
    host: Fifo,
    rec: Recorder,
    warps: Vec<WarpRec>,
    free_warps: Vec<usize>,
    // per task: warps not finished; per (task, tb) unit: warps not finished + its resources
    task_left: Vec<u32>,
    units: Vec<(u32, Option<Block>, Option<u8>)>,
    unit_of: Vec<usize>,
    spawn_at: Vec<Time>,
    next: usize,
    batch: Option<usize>,
    batch_end: usize,
    done: usize,
    trace: Trace,
    live_bars: Vec<Vec<u8>>,
}

/// Runs `set` under Pagoda; `batch` = Some(n) gives Pagoda-batch.
pub fn run(c: &PagodaConfig, set: &TaskSet, batch: Option<usize>) -> (RunStats, Trace) {
    let n = set.tasks.len();
    let mut unit_of = Vec::with_capacity(n);
    let mut nunits = 0;
    for t in &set.tasks {
        unit_of.push(nunits);
        nunits += t.tbs as usize;
    }
    let mut s = Sim {
        c,
        set,
        q: EventQueue::new(),
        table: TaskTable::new(c.mtbs(), c.rows),
        mtbs: (0..c.mtbs())
            .map(|_| Mtb {
                warps: WarpTable::new(),
                buddy: Buddy::new(),
                bars: BarrierPool::new(),
                marked: Vec::new(),
                pending: VecDeque::new(),
                sched: Fifo::default(),
                scan_pending: false,
            })
            .collect(),
        sms: Sms::new(c),
        copy: Fifo::default(),
        host: Fifo::default(),
        rec: Recorder::default(),
        warps: Vec::new(),
        free_warps: Vec::new(),
        task_left: set.tasks.iter().map(|t| t.warps()).collect(),
        units: vec![(0, None, None); nunits],
        unit_of,
        spawn_at: vec![0; n],
        next: 0,
        batch,
        batch_end: batch.map_or(n, |b| b.min(n)),
        done: 0,
        trace: Trace {
            runs: vec![0; n],
            ..Trace::default()
        },
        live_bars: vec![Vec::new(); c.mtbs()],
    };
    s.q.push(0, Ev::Host);
    s.run();
    s.trace.smem_all_free = s.mtbs.iter_mut().all(|m| {
        for b in m.marked.drain(..) {
            m.buddy.free(b);
        }
        m.buddy.all_free()
    });
    (s.rec.stats(c.sms), s.trace)
}

impl Sim<'_> {
    fn run(&mut self) {
        loop {
            let te = self.q.peek_time();
            let tw = self.sms.next_finish();
            match (te, tw) {
                (None, None) => break,
                (Some(t), Some((w, sm))) if w <= t => self.warp_done(w, sm),
                (None, Some((w, sm))) => self.warp_done(w, sm),
                (Some(_), _) => {
                    let (t, ev) = self.q.pop().expect("peeked");
                    self.handle(t, ev);
                }
            }
        }
    }

    fn send(&mut self, at: Time, cost: Time, m: Msg) {
        let land = self.copy.serve(at, cost);
        self.q.push(land, Ev::Land(m));
    }

    fn handle(&mut self, now: Time, ev: Ev) {
        match ev {
            Ev::Host => self.host_step(now),
            Ev::Land(m) => {
                self.table.deliver(m);
                match m {
                    Msg::Write(id, _) | Msg::Flush(id) => {
                        let col = self.table.column(id);
                        self.want_scan(col, now);
                    }
                    Msg::CopyBack(_) => {}
                }
            }
            Ev::Scan(col) => self.scan(col, now),
            Ev::Poll => {
                if self.done >= self.batch_end {
                    // batch over: refresh the mirror, then spawn the next batch
                    let t = self.host.serve(now, self.c.api_copy);
                    let m = self.table.copy_back();
                    self.send(t, self.c.dma_setup + 2 * US, m);
                    self.batch_end =
                        (self.batch_end + self.batch.unwrap_or(0)).min(self.set.tasks.len());
                    self.q.push(self.copy.free_at(), Ev::Host);
                } else {
                    self.q.push(now + self.c.poll, Ev::Poll);
                }
            }
        }
    }

    fn host_step(&mut self, now: Time) {
        let n = self.set.tasks.len();
        if self.next >= self.batch_end {
            // burst over: flush so the last task runs
            if let Some(m) = self.table.flush() {
                let t = self.host.serve(now, self.c.api_copy);
                self.send(t, self.c.entry_copy, m);
            }
            if self.next < n {
                self.q.push(now + self.c.poll, Ev::Poll);
            }
            return;
        }
        let t = &self.set.tasks[self.next];
        let p = Params {
            num_tb: t.tbs,
            threads: t.threads,
            func: 0,
            sm_bytes: t.smem,
            sync: t.sync,
            args: self.next as u64,
        };
        match self.table.spawn(p) {
            Some((_id, msg)) => {
                self.spawn_at[self.next] = now;
                let th = self.host.serve(now, 2 * self.c.api_copy);
                let data = self.copy.serve(th, self.c.dma_setup + t.copy_ns as Time);
                self.send(data, self.c.entry_copy, msg);
                self.next += 1;
                self.q.push(th, Ev::Host);
            }
            None => {
                // mirror full: flush the last task and copy the table back
                let th = self.host.serve(now, self.c.api_copy);
                if let Some(m) = self.table.flush() {
                    self.send(th, self.c.entry_copy, m);
                }
                let m = self.table.copy_back();
                self.send(th, self.c.dma_setup + 2 * US, m);
                // poll: the next attempt once the copy-back has landed, at most every `poll`
                let retry = self.copy.free_at().max(now + self.c.poll);
                self.q.push(retry, Ev::Host);
            }
        }
    }

    fn want_scan(&mut self, col: usize, now: Time) {
        if !self.mtbs[col].scan_pending {
            self.mtbs[col].scan_pending = true;
            let at = self.mtbs[col].sched.free_at().max(now);
            self.q.push(at, Ev::Scan(col));
        }
    }

    fn scan(&mut self, col: usize, now: Time) {
        self.mtbs[col].scan_pending = false;
        let s = self.table.scan(col);
        let mut cost = self.c.scan;
        for id in s.scheduled {
            let task = self.table.gpu_entry(id).p.args as usize;
            self.mtbs[col].pending.push_back(Pend {
                id,
                task,
                tb: 0,
                placed: 0,
                block: None,
                bar: None,
                ready: false,
            });
        }
        for w in s.woke {
            self.want_scan(w, now);
        }
        cost += self.place(col, now);
        self.mtbs[col].sched.serve(now, cost);
        if s.retry {
            self.want_scan(col, now + cost);
        }
    }

    /// Places pending threadblocks of `col`; returns the scheduler time spent.
    fn place(&mut self, col: usize, now: Time) -> Time {
        let c = self.c;
        let mut cost = 0;
        let sm = col / c.mtbs_per_sm;
        while let Some(mut p) = self.mtbs[col].pending.front().copied() {
            let t = self.set.tasks[p.task];
            let per_tb = t.smem > 0 || t.sync;
            let (units, warps_per_unit) = if per_tb {
                (t.tbs, t.warps_per_tb())
            } else {
                (1, t.warps())
            };
            let m = &mut self.mtbs[col];
            if !p.ready {
                if t.smem > 0 {
                    for b in m.marked.drain(..) {
                        m.buddy.free(b); // deallocMarkedSM
                    }
                    match m.buddy.alloc(t.smem) {
                        Some(b) => p.block = Some(b),
                        None => break,
                    }
                }
                if t.sync {
                    match m.bars.acquire() {
                        Some(b) => {
                            if self.live_bars[col].contains(&b) {
                                self.trace.barrier_clash = true;
                            }
                            self.live_bars[col].push(b);
                            p.bar = Some(b);
                        }
                        None => {
                            if let Some(b) = p.block.take() {
                                m.buddy.free(b);
                            }
                            break;
                        }
                    }
                }
                p.ready = true;
                let u = self.unit_of[p.task] + p.tb as usize;
                self.units[u] = (warps_per_unit, p.block, p.bar);
                if p.tb == 0 {
                    self.trace.runs[p.task] += 1;
                }
            }
            let want = warps_per_unit - p.placed;
            let slots = m.warps.psched(
                p.tb * warps_per_unit + p.placed,
                want,
                p.id,
                p.block.map_or(0, |b| b.offset),
                p.bar.unwrap_or(0),
            );
            let placed = slots.len() as u32;
            let unit = self.unit_of[p.task] + p.tb as usize;
            let work = if t.regs > c.reg_cap {
                t.compute_ns * c.spill_penalty
            } else {
                t.compute_ns
            };
            for slot in slots {
                let rec = WarpRec {
                    task: p.task,
                    unit,
                    slot,
                    col,
                    start: now,
                };
                let id = match self.free_warps.pop() {
                    Some(i) => {
                        self.warps[i] = rec;
                        i
                    }
                    None => {
                        self.warps.push(rec);
                        self.warps.len() - 1
                    }
                };
                self.sms.start(now, sm, id, work);
            }
            p.placed += placed;
            if p.placed < warps_per_unit {
                self.mtbs[col].pending[0] = p;
                break; // executor warps exhausted: wait
            }
            cost += c.place;
            p.tb += 1;
            p.placed = 0;
            p.ready = false;
            p.block = None;
            p.bar = None;
            if p.tb >= units {
                self.mtbs[col].pending.pop_front();
            } else {
                self.mtbs[col].pending[0] = p;
            }
        }
        cost
    }

    fn warp_done(&mut self, now: Time, sm: usize) {
        let id = self.sms.finish(now, sm);
        self.free_warps.push(id);
        let w = self.warps[id];
        self.rec.warp_time(now - w.start);
        let m = &mut self.mtbs[w.col];
        m.warps.release(w.slot);
        let u = &mut self.units[w.unit];
        u.0 -= 1;
        if u.0 == 0 {
            if let Some(b) = u.1.take() {
                m.marked.push(b); // markSMForDealloc
            }
            if let Some(b) = u.2.take() {
                m.bars.release(b);
                self.live_bars[w.col].retain(|&x| x != b);
            }
        }
        self.task_left[w.task] -= 1;
        if self.task_left[w.task] == 0 {
            let tid = self.task_id_of(w.task, w.col);
            self.table.finish(tid);
            self.rec.task_done(self.spawn_at[w.task], now);
            self.done += 1;
        }
        if !self.mtbs[w.col].pending.is_empty() {
            self.want_scan(w.col, now);
        }
    }

    fn task_id_of(&self, task: usize, col: usize) -> TaskId {
        // the entry of a running task is in its column with ready == 1 and args == task
        let rows = self.c.rows;
        (0..rows)
            .map(|r| (col * rows + r) as TaskId + 2)
            .find(|&id| {
                let e = self.table.gpu_entry(id);
                e.ready == 1 && e.p.args == task as u64
            })
            .expect("running task has an entry")
    }
}
