//! Greedy-then-oldest (GPGPU-Sim `gto`, its GTX480 default): keep issuing from the warp issued
//! last while it is ready; otherwise the ready warp dispatched earliest.

use super::{SchedView, WarpScheduler};
use crate::config::CoreConfig;

struct Gto {
    last: Option<usize>,
}

pub(super) fn new(_: &CoreConfig) -> Box<dyn WarpScheduler> {
    Box::new(Gto { last: None })
}

impl WarpScheduler for Gto {
    fn pick(&mut self, v: &SchedView<'_>) -> Option<usize> {
        if let Some(l) = self.last {
            if v.ready & (1 << l) != 0 {
                return Some(l);
            }
        }
        let mut m = v.ready;
        let mut best: Option<usize> = None;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            if best.is_none_or(|b| v.age[w] < v.age[b]) {
                best = Some(w);
            }
        }
        best
    }
    fn on_issue(&mut self, warp: usize) {
        self.last = Some(warp);
    }
    fn visited_before(&self, v: &SchedView<'_>, pick: usize) -> u64 {
        // The greedy warp first (unless it is the pick), then oldest first up to the pick.
        let mut m = match self.last {
            Some(l) if l != pick => 1 << l,
            _ => 0,
        };
        if self.last != Some(pick) {
            let mut valid = v.valid;
            while valid != 0 {
                let w = valid.trailing_zeros() as usize;
                valid &= valid - 1;
                if v.age[w] < v.age[pick] {
                    m |= 1 << w;
                }
            }
        }
        m & v.valid
    }
}
