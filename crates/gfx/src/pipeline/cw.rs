//! CW: colour blend and write of one ROP (section 2.1). In order, one quad per cycle. Blending
//! reads the colour block first; an opaque write allocates the block without a fetch. Writes to
//! the back buffer are the estimator's updates.

use std::collections::VecDeque;

use super::Gpu;
use crate::scene::{Quad, Region, QUAD_PX};
use crate::stream::{Stream, Unit};

/// One CW unit: its input queue.
#[derive(Default)]
pub(super) struct Cw {
    pub queue: VecDeque<Quad>,
    /// The look-ahead that last found every colour block present or pending (frame, cache
    /// epoch, quads looked at): while all are the same, looking again is skipped (as in ZS).
    seen: Option<(u64, u64)>,
    seen_quads: Vec<Quad>,
}

impl Gpu {
    pub(super) fn tick_cw(&mut self) -> f64 {
        let mut total = 0.0;
        for r in 0..self.cfg.rops {
            let cache = self.ids.colour0 + r;
            let pending = self.cw[r].queue.len() as f64;
            let n = self.cw[r].queue.len().min(self.cfg.lookahead);
            let key = (self.frame_index, self.mem.epoch(cache));
            let w = &self.cw[r];
            let same = w.seen == Some(key)
                && w.seen_quads.len() == n
                && w.queue.iter().zip(&w.seen_quads).all(|(a, b)| a == b);
            if !same {
                let mut miss = false;
                self.mem.window_start();
                for i in 0..n {
                    let q = self.cw[r].queue[i];
                    let d = &self.frame.draws[q.draw as usize];
                    if d.colour_write && d.blend {
                        let blocks = self.layout.pixel_blocks(Region::Colour(d.target), q);
                        miss |= self.mem.ensure_window(cache, blocks, Stream::Colour);
                    }
                }
                let w = &mut self.cw[r];
                w.seen = (!miss).then_some(key);
                w.seen_quads.clear();
                w.seen_quads.extend(w.queue.iter().take(n));
            }
            let mut completed = 0.0;
            if let Some(&q) = self.cw[r].queue.front() {
                let d = &self.frame.draws[q.draw as usize];
                let blocks = self.layout.pixel_blocks(Region::Colour(d.target), q);
                let ready = !(d.colour_write && d.blend)
                    || blocks.clone().all(|b| self.mem.caches[cache].contains(b));
                if ready {
                    if d.colour_write {
                        for b in blocks {
                            self.mem.write_allocate(cache, b);
                        }
                        if d.target == 0 {
                            let (x, y) = (q.qx as usize * QUAD_PX, q.qy as usize * QUAD_PX);
                            self.estimator.update(x, y, self.now);
                        }
                    }
                    self.cw[r].queue.pop_front();
                    self.inflight -= 1;
                    completed = 1.0;
                }
            }
            total += completed;
            self.counters.units[Unit::Cw as usize][r].observe(pending, completed, 1.0, 1.0);
        }
        total
    }
}

impl Gpu {
    /// What CW `r` is doing (the wait probe, a diagnostic): the head quad's missing colour
    /// blocks when it blends.
    pub(super) fn cw_activity(&self, r: usize) -> super::probe::Activity {
        use super::probe::{self, Activity};
        let Some(&q) = self.cw[r].queue.front() else {
            return Activity::Idle;
        };
        let d = &self.frame.draws[q.draw as usize];
        if d.colour_write && d.blend {
            let cache = self.ids.colour0 + r;
            let missing = self
                .layout
                .pixel_blocks(Region::Colour(d.target), q)
                .filter(|&b| !self.mem.caches[cache].contains(b))
                .map(|b| (cache, b));
            if let Some(a) = probe::waiting_for(self, missing) {
                return a;
            }
        }
        Activity::Busy
    }
}
