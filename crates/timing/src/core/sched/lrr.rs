//! Loose round robin (GPGPU-Sim `lrr`): the first ready warp after the one issued last.

use super::{cyclic_range, next_from, SchedView, WarpScheduler};
use crate::config::CoreConfig;

struct Lrr {
    last: usize,
}

pub(super) fn new(_: &CoreConfig) -> Box<dyn WarpScheduler> {
    Box::new(Lrr { last: 63 })
}

impl WarpScheduler for Lrr {
    fn pick(&mut self, v: &SchedView<'_>) -> Option<usize> {
        next_from(v.ready, self.last + 1)
    }
    fn on_issue(&mut self, warp: usize) {
        self.last = warp;
    }
    fn visited_before(&self, v: &SchedView<'_>, pick: usize) -> u64 {
        cyclic_range(self.last + 1, pick) & v.valid
    }
}
