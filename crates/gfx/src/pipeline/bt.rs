//! BT: the blitter (section 2.1, footnote 3). Copies colour blocks of a render target into a
//! texture: one read and one write per block, one block per cycle at peak.

use std::collections::VecDeque;

use super::Gpu;
use crate::scene::Region;
use crate::stream::{Stream, Unit};

/// The blitter: queued blits and the progress of the current one.
#[derive(Default)]
pub(super) struct Bt {
    pub queue: VecDeque<u32>,
    cur: Option<(u32, u32)>,
}

impl Bt {
    pub fn idle(&self) -> bool {
        self.queue.is_empty() && self.cur.is_none()
    }
}

impl Gpu {
    pub(super) fn tick_bt(&mut self) -> f64 {
        if self.bt.cur.is_none() {
            if let Some(b) = self.bt.queue.pop_front() {
                self.bt.cur = Some((b, 0));
            }
        }
        let mut completed = 0.0;
        let mut pending = 0.0;
        if let Some((b, next)) = self.bt.cur {
            let blit = self.frame.blits[b as usize].clone();
            pending = (blit.blocks - next) as f64;
            let src = Region::Colour(blit.src).base();
            for i in next..(next + self.cfg.lookahead as u32 * 2).min(blit.blocks) {
                self.mem.ensure(self.ids.blit, src + i as u64, Stream::Blit);
            }
            let mut next = next;
            if next < blit.blocks && self.mem.caches[self.ids.blit].access(src + next as u64, false)
            {
                self.mem
                    .write(Region::Texture(blit.dst).base() + next as u64, Stream::Blit);
                next += 1;
                completed = 1.0;
            }
            self.bt.cur = (next < blit.blocks).then_some((b, next));
        }
        self.counters.units[Unit::Bt as usize][0].observe(pending, completed, 1.0, 1.0);
        completed
    }
}

impl Gpu {
    /// What BT is doing (the wait probe, a diagnostic): its next source block.
    pub(super) fn bt_activity(&self) -> super::probe::Activity {
        use super::probe::{self, Activity};
        let Some((b, next)) = self.bt.cur else {
            return if self.bt.queue.is_empty() {
                Activity::Idle
            } else {
                Activity::Busy
            };
        };
        let src = Region::Colour(self.frame.blits[b as usize].src).base() + next as u64;
        let c = self.ids.blit;
        if self.mem.caches[c].contains(src) {
            Activity::Busy
        } else {
            probe::waiting_for(self, [(c, src)]).unwrap_or(Activity::Busy)
        }
    }
}
