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
}

impl Gpu {
    pub(super) fn tick_cw(&mut self) -> f64 {
        let mut total = 0.0;
        for r in 0..self.cfg.rops {
            let cache = self.ids.colour0 + r;
            let pending = self.cw[r].queue.len() as f64;
            for i in 0..self.cw[r].queue.len().min(self.cfg.lookahead) {
                let q = self.cw[r].queue[i];
                let d = &self.frame.draws[q.draw as usize];
                if d.colour_write && d.blend {
                    for b in self.layout.pixel_blocks(Region::Colour(d.target), q) {
                        self.mem.ensure(cache, b, Stream::Colour);
                    }
                }
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
