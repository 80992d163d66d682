//! ZS: the depth/stencil test of one ROP (section 2.1). In order, one quad per cycle; a quad needs
//! its HiZ and depth blocks. Rejected quads leave the pipeline; passing quads write depth (when
//! enabled) and go to SH (early-Z) or to the CW of the ROP (late-Z).

use std::collections::VecDeque;
use std::ops::Range;

use super::Gpu;
use crate::scene::{Quad, Region};
use crate::stream::{Stream, Unit};

/// One ZS unit: its input queue.
#[derive(Default)]
pub(super) struct Zs {
    pub queue: VecDeque<Quad>,
    /// The look-ahead that last found every HiZ and depth block present or pending: the frame,
    /// the two caches' epochs and the quads looked at. While all are the same, looking again
    /// would find the same (no request, no effect) and is skipped.
    seen: Option<(u64, u64, u64)>,
    seen_quads: Vec<Quad>,
}

/// Deterministic per-quad uniform in [0, 1) (the depth-test outcome of a quad).
pub(super) fn unit_hash(q: Quad, frame: u64) -> f64 {
    let mut x = (q.qx as u64) | (q.qy as u64) << 16 | (q.draw as u64) << 32;
    x ^= frame.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^= x >> 31;
    (x >> 11) as f64 / (1u64 << 53) as f64
}

impl Gpu {
    /// The HiZ block and the depth blocks of quad `q` (several with a scaled render target).
    fn zs_blocks(&self, q: Quad) -> Option<(u64, Range<u64>)> {
        let d = &self.frame.draws[q.draw as usize];
        d.depth_test.then(|| {
            (
                self.layout.hiz_block(d.depth, q),
                self.layout.pixel_blocks(Region::Depth(d.depth), q),
            )
        })
    }

    pub(super) fn tick_zs(&mut self) -> f64 {
        let mut total = 0.0;
        for r in 0..self.cfg.rops {
            let depth_cache = self.ids.depth0 + r;
            let pending = self.zs[r].queue.len() as f64;
            let n = self.zs[r].queue.len().min(self.cfg.lookahead);
            let key = (
                self.frame_index,
                self.mem.epoch(self.ids.hiz),
                self.mem.epoch(depth_cache),
            );
            let z = &self.zs[r];
            let same = z.seen == Some(key)
                && z.seen_quads.len() == n
                && z.queue.iter().zip(&z.seen_quads).all(|(a, b)| a == b);
            if !same {
                let mut miss = false;
                self.mem.window_start();
                for i in 0..n {
                    let q = self.zs[r].queue[i];
                    if let Some((h, zs)) = self.zs_blocks(q) {
                        miss |= self.mem.ensure_window(self.ids.hiz, h..h + 1, Stream::HiZ);
                        miss |= self.mem.ensure_window(depth_cache, zs, Stream::Depth);
                    }
                }
                // No miss: nothing was requested, so the epochs are still `key`'s.
                let z = &mut self.zs[r];
                z.seen = (!miss).then_some(key);
                z.seen_quads.clear();
                z.seen_quads.extend(z.queue.iter().take(n));
            }
            let mut completed = 0.0;
            if let Some(&q) = self.zs[r].queue.front() {
                let blocks = self.zs_blocks(q);
                let ready = blocks.as_ref().is_none_or(|(h, zs)| {
                    self.mem.caches[self.ids.hiz].contains(*h)
                        && zs.clone().all(|z| self.mem.caches[depth_cache].contains(z))
                });
                if ready {
                    let d = &self.frame.draws[q.draw as usize];
                    let reject = blocks.is_some() && unit_hash(q, self.frame_index) < d.z_reject;
                    let early = self.route_after_zs(q);
                    let room = reject
                        || if early {
                            self.sh.queue.len() < self.cfg.sh_queue
                        } else {
                            self.cw[r].queue.len() < self.cfg.rop_queue
                        };
                    if room {
                        let zw = d.z_write;
                        self.zs[r].queue.pop_front();
                        if let Some((h, zs)) = blocks {
                            self.mem.caches[self.ids.hiz].access(h, !reject && zw);
                            for z in zs {
                                self.mem.caches[depth_cache].access(z, !reject && zw);
                            }
                        }
                        if reject {
                            self.inflight -= 1;
                        } else if early {
                            self.sh.queue.push_back(q);
                        } else {
                            self.cw[r].queue.push_back(q);
                        }
                        completed = 1.0;
                    }
                }
            }
            total += completed;
            self.counters.units[Unit::Zs as usize][r].observe(pending, completed, 1.0, 1.0);
        }
        total
    }
}

impl Gpu {
    /// What ZS `r` is doing (the wait probe, a diagnostic): the head quad's missing HiZ and
    /// depth blocks, else whether its destination has room.
    pub(super) fn zs_activity(&self, r: usize) -> super::probe::Activity {
        use super::probe::{self, Activity};
        let Some(&q) = self.zs[r].queue.front() else {
            return Activity::Idle;
        };
        let blocks = self.zs_blocks(q);
        if let Some((h, zs)) = &blocks {
            let (hiz, depth) = (self.ids.hiz, self.ids.depth0 + r);
            let missing = std::iter::once((hiz, *h))
                .chain(zs.clone().map(|z| (depth, z)))
                .filter(|&(c, b)| !self.mem.caches[c].contains(b));
            if let Some(a) = probe::waiting_for(self, missing) {
                return a;
            }
        }
        let d = &self.frame.draws[q.draw as usize];
        let reject = blocks.is_some() && unit_hash(q, self.frame_index) < d.z_reject;
        let room = reject
            || if self.route_after_zs(q) {
                self.sh.queue.len() < self.cfg.sh_queue
            } else {
                self.cw[r].queue.len() < self.cfg.rop_queue
            };
        if room {
            Activity::Busy
        } else {
            Activity::Blocked
        }
    }
}
