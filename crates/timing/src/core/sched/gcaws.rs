//! gCAWS, the greedy Criticality-Aware Warp Scheduler of CAWA (spec 000 §4.4, Lee 2017
//! §4.2.2): keep issuing from the warp issued last while it is ready (greedy, as GTO);
//! otherwise pick the ready warp with the highest CPL criticality counter
//! ([`SchedView::crit`]), ties broken by age (oldest first). Criticality is not re-evaluated
//! while the greedy warp can issue (§8.3 item 5: the text implies it is not).

use super::{SchedView, WarpScheduler};
use crate::config::CoreConfig;

struct Gcaws {
    last: Option<usize>,
}

pub(super) fn new(_: &CoreConfig) -> Box<dyn WarpScheduler> {
    Box::new(Gcaws { last: None })
}

/// Whether warp `a` comes before warp `b` in gCAWS's order: more critical, then older.
#[inline]
fn before(v: &SchedView<'_>, a: usize, b: usize) -> bool {
    (v.crit[a], v.age[b]) > (v.crit[b], v.age[a])
}

impl WarpScheduler for Gcaws {
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
            if best.is_none_or(|b| before(v, w, b)) {
                best = Some(w);
            }
        }
        best
    }
    fn on_issue(&mut self, warp: usize) {
        self.last = Some(warp);
    }
    fn visited_before(&self, v: &SchedView<'_>, pick: usize) -> u64 {
        // The greedy warp first (unless it is the pick), then by criticality up to the pick.
        let mut m = match self.last {
            Some(l) if l != pick => 1 << l,
            _ => 0,
        };
        if self.last != Some(pick) {
            let mut valid = v.valid;
            while valid != 0 {
                let w = valid.trailing_zeros() as usize;
                valid &= valid - 1;
                if before(v, w, pick) {
                    m |= 1 << w;
                }
            }
        }
        m & v.valid
    }
}
