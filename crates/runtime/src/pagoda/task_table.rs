//! The CPU/GPU-mirrored TaskTable and the continuous spawning protocol (§5.2; digest §3.4–3.5).
//!
//! Each MTB owns one column of `rows` entries. The CPU writes only entries whose `ready == 0`; the
//! GPU touches only entries whose `ready != 0`. A spawn writes one entry and copies it with one
//! `cudaMemcpyAsync` on a single FIFO stream; its `ready` names the *previously* spawned task, so
//! when the GPU sees entry B it knows the copy of its predecessor A has landed, and B's scheduler
//! hands A over: A becomes `(ready, sched) = (1, 1)` and B waits as `(-1, 0)` for its own
//! successor or a CPU flush.
//!
//! Decisions (docs/RUNTIME.md): task IDs are `2 + column * rows + row` (always > 1); the CPU picks
//! columns round-robin and takes the first free row; one host thread and one stream carry the
//! whole chain; a flush restarts the chain (the next spawn gets `ready = -1`); the scheduler does
//! not spin on a predecessor that is not yet `(-1, 0)` but retries at its next scan; copy-backs
//! travel on the same FIFO stream, so they never see a spawn copy that has not landed; a flush
//! that finds the last task not yet handed over is repeated (the `wait` timeout) and so takes
//! effect right after that hand-off.

/// Task parameters (TaskTable fields 1–6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Params {
    /// Number of threadblocks.
    pub num_tb: u32,
    /// Threads per threadblock.
    pub threads: u32,
    /// Task kernel "pointer" (index of the `__device__` function).
    pub func: u32,
    /// Shared memory bytes per threadblock.
    pub sm_bytes: u32,
    /// Threadblock-level synchronisation needed.
    pub sync: bool,
    /// Task inputs (an opaque argument word; the simulator stores the task's serial number).
    pub args: u64,
}

/// One TaskTable entry (8 fields).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Entry {
    /// Fields 1–6.
    pub p: Params,
    /// `0` free; `-1` parameters present; `1` being scheduled; `> 1` predecessor's task ID.
    pub ready: i32,
    /// Ready to be scheduled on its MTB.
    pub sched: bool,
}

/// A task ID (always > 1).
pub type TaskId = i32;

/// A transfer on the single FIFO stream between CPU and GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Msg {
    /// A spawned entry's copy to the GPU table.
    Write(TaskId, Entry),
    /// CPU flush of the last spawned task: if it is `(-1, 0)` on the GPU, make it `(1, 1)`.
    Flush(TaskId),
    /// Bulk copy-back issued after `n` spawns: the CPU mirror learns which entries the GPU has
    /// freed (entries spawned after the copy-back was issued keep their mirror state).
    CopyBack(u64),
}

/// What one scan of a column by its scheduler warp produced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scan {
    /// Tasks of this column to schedule now (their `sched` was 1 and is now 0).
    pub scheduled: Vec<TaskId>,
    /// Columns in which an entry became schedulable (hand-off to a predecessor elsewhere).
    pub woke: Vec<usize>,
    /// A hand-off waited on a predecessor not yet `(-1, 0)`: scan again later.
    pub retry: bool,
}

/// The mirrored TaskTable.
#[derive(Debug, Clone)]
pub struct TaskTable {
    cols: usize,
    rows: usize,
    cpu: Vec<Entry>,
    gpu: Vec<Entry>,
    last: Option<TaskId>,
    next_col: usize,
    flush_pending: Vec<TaskId>,
    spawns: u64,
    spawned_at: Vec<u64>,
}

impl TaskTable {
    /// A table of `cols` MTB columns with `rows` entries each, all free.
    pub fn new(cols: usize, rows: usize) -> Self {
        let n = cols * rows;
        Self {
            cols,
            rows,
            cpu: vec![Entry::default(); n],
            gpu: vec![Entry::default(); n],
            last: None,
            next_col: 0,
            flush_pending: Vec::new(),
            spawns: 0,
            spawned_at: vec![0; n],
        }
    }

    fn idx(id: TaskId) -> usize {
        (id - 2) as usize
    }

    /// The column (MTB) an ID belongs to.
    pub fn column(&self, id: TaskId) -> usize {
        Self::idx(id) / self.rows
    }

    /// The GPU copy of an entry.
    pub fn gpu_entry(&self, id: TaskId) -> &Entry {
        &self.gpu[Self::idx(id)]
    }

    /// CPU `taskSpawn`: writes a free mirror entry and returns its ID and the one copy to send,
    /// or `None` when the mirror shows no free entry (the CPU must copy back first).
    pub fn spawn(&mut self, p: Params) -> Option<(TaskId, Msg)> {
        for k in 0..self.cols {
            let c = (self.next_col + k) % self.cols;
            let base = c * self.rows;
            if let Some(r) = (0..self.rows).find(|&r| self.cpu[base + r].ready == 0) {
                let id = (base + r) as TaskId + 2;
                let ready = self.last.unwrap_or(-1);
                let e = Entry {
                    p,
                    ready,
                    sched: false,
                };
                self.cpu[base + r] = e;
                self.spawned_at[base + r] = self.spawns;
                self.spawns += 1;
                self.last = Some(id);
                self.next_col = (c + 1) % self.cols;
                return Some((id, Msg::Write(id, e)));
            }
        }
        None
    }

    /// CPU flush of the last spawned task (when no more tasks arrive, or on a `wait` timeout).
    pub fn flush(&mut self) -> Option<Msg> {
        self.last.take().map(Msg::Flush)
    }

    /// A bulk copy-back request (sent on the same FIFO stream).
    pub fn copy_back(&self) -> Msg {
        Msg::CopyBack(self.spawns)
    }

    /// Applies a transfer when it lands (FIFO order).
    pub fn deliver(&mut self, m: Msg) {
        match m {
            Msg::Write(id, e) => self.gpu[Self::idx(id)] = e,
            Msg::Flush(id) => {
                let g = &mut self.gpu[Self::idx(id)];
                if g.ready == -1 && !g.sched {
                    g.ready = 1;
                    g.sched = true;
                } else if g.ready > 1 {
                    // its own hand-off has not happened yet: the CPU repeats the flush on its
                    // wait timeout; modelled as a flush applied right after the hand-off
                    self.flush_pending.push(id);
                }
            }
            Msg::CopyBack(issued) => {
                for i in 0..self.cpu.len() {
                    if self.gpu[i].ready == 0 && self.spawned_at[i] < issued {
                        self.cpu[i].ready = 0;
                    }
                }
            }
        }
    }

    /// One pass of column `col`'s scheduler warp over its rows (Algorithm 1, lines 3–11).
    pub fn scan(&mut self, col: usize) -> Scan {
        let mut out = Scan::default();
        for r in 0..self.rows {
            let i = col * self.rows + r;
            let e = self.gpu[i];
            if e.ready > 1 {
                let p = Self::idx(e.ready);
                if self.gpu[p].ready == -1 && !self.gpu[p].sched {
                    self.gpu[p].ready = 1;
                    self.gpu[p].sched = true;
                    self.gpu[i].ready = -1;
                    self.gpu[i].sched = false;
                    if let Some(k) = self
                        .flush_pending
                        .iter()
                        .position(|&f| f == i as TaskId + 2)
                    {
                        self.flush_pending.swap_remove(k);
                        self.gpu[i].ready = 1;
                        self.gpu[i].sched = true;
                    }
                    let pc = p / self.rows;
                    if pc != col {
                        out.woke.push(pc);
                    }
                } else {
                    out.retry = true;
                }
            }
            // Re-read: a hand-off above may have made an earlier row of this column schedulable.
        }
        for r in 0..self.rows {
            let i = col * self.rows + r;
            if self.gpu[i].sched {
                self.gpu[i].sched = false;
                out.scheduled.push(i as TaskId + 2);
            }
        }
        out
    }

    /// The last warp of a task frees its entry (`ready := 0`).
    pub fn finish(&mut self, id: TaskId) {
        let g = &mut self.gpu[Self::idx(id)];
        debug_assert!(
            g.ready == 1 && !g.sched,
            "finishing a task that was not scheduled"
        );
        g.ready = 0;
    }

    /// Entries the CPU mirror believes free.
    pub fn cpu_free(&self) -> usize {
        self.cpu.iter().filter(|e| e.ready == 0).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(serial: u64) -> Params {
        Params {
            num_tb: 1,
            threads: 128,
            args: serial,
            ..Params::default()
        }
    }

    #[test]
    fn entry_state_progression() {
        let mut t = TaskTable::new(2, 2);
        let (a, ma) = t.spawn(p(0)).unwrap();
        let (b, mb) = t.spawn(p(1)).unwrap();
        assert_eq!((a, b), (2, 4)); // round-robin over columns
        assert_eq!(t.gpu_entry(a).ready, 0);
        t.deliver(ma);
        assert_eq!((t.gpu_entry(a).ready, t.gpu_entry(a).sched), (-1, false));
        assert!(t.scan(0).scheduled.is_empty()); // A waits for its successor
        t.deliver(mb);
        assert_eq!(t.gpu_entry(b).ready, a); // B names A
        let s = t.scan(1); // B's scheduler hands A over
        assert_eq!(s.woke, vec![0]);
        assert_eq!((t.gpu_entry(a).ready, t.gpu_entry(a).sched), (1, true));
        assert_eq!((t.gpu_entry(b).ready, t.gpu_entry(b).sched), (-1, false));
        assert_eq!(t.scan(0).scheduled, vec![a]);
        t.finish(a);
        // B (the last of the burst) runs only after the CPU flush.
        assert!(t.scan(1).scheduled.is_empty());
        let f = t.flush().unwrap();
        t.deliver(f);
        assert_eq!(t.scan(1).scheduled, vec![b]);
        t.finish(b);
        assert_eq!(t.cpu_free(), 2);
        t.deliver(t.copy_back());
        assert_eq!(t.cpu_free(), 4);
    }

    #[test]
    fn full_mirror_refuses_until_copy_back() {
        let mut t = TaskTable::new(1, 2);
        assert!(t.spawn(p(0)).is_some());
        assert!(t.spawn(p(1)).is_some());
        assert!(t.spawn(p(2)).is_none());
    }
}
