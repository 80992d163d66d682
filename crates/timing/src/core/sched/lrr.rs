//! Loose round robin (GPGPU-Sim `lrr`): the first ready warp after the one issued last.

use super::{next_from, SchedView, WarpScheduler};
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
}
