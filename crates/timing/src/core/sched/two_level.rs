//! Two-level scheduling (GPGPU-Sim `two_level_active:N`, Narasiman et al.): an active pool of at
//! most `core.two_level_active` warps is scheduled round robin; an active warp that waits on a
//! long-latency (memory) result moves to the tail of the pending pool, and pending warps fill
//! the active pool in FIFO order. Warps at a barrier or finished count as long waiters too
//! (otherwise an active pool full of warps at a barrier starves the warps it waits for).

use super::{next_from, SchedView, WarpScheduler};
use crate::config::CoreConfig;

struct TwoLevel {
    max_active: usize,
    active: u64,
    /// Pending warps in FIFO order (fixed capacity, no allocation after construction).
    pending: Vec<u8>,
    last: usize,
}

pub(super) fn new(c: &CoreConfig) -> Box<dyn WarpScheduler> {
    Box::new(TwoLevel {
        max_active: c.two_level_active as usize,
        active: 0,
        pending: Vec::with_capacity(64),
        last: 63,
    })
}

impl WarpScheduler for TwoLevel {
    fn pick(&mut self, v: &SchedView<'_>) -> Option<usize> {
        // Drop exited warps, enqueue new ones.
        self.active &= v.valid;
        self.pending.retain(|&w| v.valid & (1 << w) != 0);
        let mut known = self.active;
        for &w in &self.pending {
            known |= 1 << w;
        }
        let mut fresh = v.valid & !known;
        while fresh != 0 {
            let w = fresh.trailing_zeros();
            fresh &= fresh - 1;
            self.pending.push(w as u8);
        }
        // Demote long-latency waiters.
        let mut demote = self.active & v.long_wait & !v.ready;
        while demote != 0 {
            let w = demote.trailing_zeros();
            demote &= demote - 1;
            self.active &= !(1 << w);
            self.pending.push(w as u8);
        }
        // Promote in FIFO order, skipping warps that still wait on memory where possible.
        while (self.active.count_ones() as usize) < self.max_active && !self.pending.is_empty() {
            let pos = self
                .pending
                .iter()
                .position(|&w| v.long_wait & (1 << w) == 0)
                .unwrap_or(0);
            let w = self.pending.remove(pos);
            self.active |= 1 << w;
        }
        next_from(v.ready & self.active, self.last + 1)
    }
    fn on_issue(&mut self, warp: usize) {
        self.last = warp;
    }
}
