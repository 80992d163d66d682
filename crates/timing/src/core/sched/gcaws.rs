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
    fn reads_criticality(&self) -> bool {
        true
    }

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

#[cfg(test)]
mod tests {
    use super::super::find;
    use super::SchedView;
    use crate::core::cpl::Cpl;

    /// A toy SM scheduler slot, cycle by cycle: one TB of three warps (slots 0-2, dispatched at
    /// cycle 0, ages 2, 1, 0: slot 2 is the oldest), each a straight line of three instructions
    /// with the given issue-to-ready latencies; CPL's counters are updated at each issue as the
    /// SM does (`Sm::issue`) and handed to the scheduler. Returns the warp issued at each cycle.
    fn trace(policy: &str) -> Vec<Option<usize>> {
        let lat: [[u64; 3]; 3] = [[1, 1, 1], [4, 1, 1], [1, 5, 1]];
        let age = [2u64, 1, 0];
        let mut s = find(policy).unwrap()(&crate::GpuConfig::preset("gtx480").unwrap().core);
        let mut cpl = Cpl::default();
        for w in 0..3 {
            cpl.start(w, 0);
        }
        let (mut next, mut ready_at, mut live) = ([0usize; 3], [0u64; 3], 0b111u64);
        let mut out = vec![];
        for now in 0..9u64 {
            let ready = (0..3)
                .filter(|&w| live & (1 << w) != 0 && ready_at[w] <= now)
                .fold(0u64, |m, w| m | 1 << w);
            let mut crit = [0i64; 64];
            crit[..3].copy_from_slice(&cpl.crit[..3]);
            let v = SchedView {
                valid: live,
                ready,
                long_wait: 0,
                age: &age,
                crit: &crit,
            };
            let pick = if ready != 0 { s.pick(&v) } else { None };
            if let Some(w) = pick {
                s.on_issue(w);
                cpl.on_issue(w, next[w] as u32, now, live);
                ready_at[w] = now + lat[w][next[w]];
                next[w] += 1;
                if next[w] == 3 {
                    live &= !(1 << w);
                }
            }
            out.push(pick);
        }
        out
    }

    /// Lee 2017 §4.2.2, word by word, against GTO on the same hand-built case:
    ///
    /// * cycle 0, all counters 0 (nobody has issued): the tie goes to the oldest warp, slot 2
    ///   (age 0), not the lowest slot ("the oldest one based on the GTO algorithm");
    /// * cycle 1: greedy, slot 2 again ("greedily executes instructions from the selected
    ///   critical warp until this particular warp has no further available instructions");
    /// * cycle 2: slot 2 waits 5 cycles; slots 0 and 1 are tied at 0: the older, slot 1. Its
    ///   first issue brings in its 2 stall cycles since dispatch and 1 instruction behind slot 2
    ///   at CPI 3: counter 1 * 3 / 1 + 2 = 5;
    /// * cycles 3-5: slot 0 (the only ready warp), then greedily to its end;
    /// * cycle 6: slots 1 (counter 5) and 2 (counter 0, as of its last issue at cycle 1: its
    ///   4 waiting cycles enter the counter at its next issue, Algorithm 6 line 7) are ready:
    ///   gCAWS takes the more critical slot 1 although slot 2 is older; GTO takes slot 2;
    /// * cycles 7-8: each greedy on its choice, then the other warp.
    ///
    /// The ranking is re-read at every pick that is not greedy (the counters of the cycle), and
    /// a warp of a TB about to finish has no special rank: the document says nothing of it.
    #[test]
    fn gcaws_follows_section_4_2_2_cycle_by_cycle() {
        let s = Some;
        assert_eq!(
            trace("gcaws"),
            vec![s(2), s(2), s(1), s(0), s(0), s(0), s(1), s(1), s(2)]
        );
        assert_eq!(
            trace("gto"),
            vec![s(2), s(2), s(1), s(0), s(0), s(0), s(2), s(1), s(1)]
        );
    }
}
