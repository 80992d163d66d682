//! FE: fetches vertex indices and attributes and rasterises draw calls into quads (section 2.1).
//! It emits up to `fe_rate` quads per cycle in order; a quad waits for its vertex block, and for
//! room in its destination queue (ZS of its ROP with early-Z, SH otherwise).
//!
//! Flow counters \[INTERP\]: FE's pending requests are its vertex/index reads in flight
//! (`th_in` = 1, one block per cycle of input), its completions the quads emitted (`th_out` =
//! `fe_rate`). An FE blocked only by a full downstream queue has no reads pending, so it is not
//! taken for a bottleneck; one waiting for vertex data is.

use std::collections::VecDeque;

use super::Gpu;
use crate::cache::State as Line;
use crate::scene::{Quad, Region};
use crate::stream::{Stream, Unit};

/// FE state: queued draw calls and the one being rasterised.
#[derive(Default)]
pub(super) struct Fe {
    pub queue: VecDeque<u32>,
    cur: Option<(u32, u32)>,
    order: Vec<Quad>,
    /// The vertex look-ahead that last found every block present or pending: (frame, draw,
    /// first vertex block, vertex-cache epoch, queued draws the window reached into with
    /// `Config::fe_cross_draw`, else 0). While the same, looking again is skipped.
    seen: Option<(u64, u32, u32, u64, u32)>,
}

impl Fe {
    pub fn idle(&self) -> bool {
        self.queue.is_empty() && self.cur.is_none()
    }
}

impl Gpu {
    pub(super) fn tick_fe(&mut self) -> f64 {
        if self.fe.cur.is_none() {
            if let Some(d) = self.fe.queue.pop_front() {
                self.fe.cur = Some((d, 0));
                self.fe.order = self.frame.draws[d as usize].raster_order(d);
                self.early_z = self.frame.draws[d as usize].early_z;
            }
        }
        let mut emitted = 0usize;
        if let Some((d, mut next)) = self.fe.cur {
            let draw = &self.frame.draws[d as usize];
            let total = draw.quads();
            let vbuf = draw.vbuf;
            let (early, ztest) = (draw.early_z, draw.depth_test);
            // Prefetch the vertex and index blocks of the next quads (a streaming vertex fetcher,
            // 4 × lookahead blocks deep).
            let need = |i: u32| self.frame.draws[d as usize].vblock_of(i);
            let first = need(next.min(total.saturating_sub(1)));
            let depth = 4 * self.cfg.lookahead as u32;
            let end = (first + depth).min(vbuf.1);
            // With `fe_cross_draw`, the window's blocks beyond this draw's end go to the draws
            // queued behind it, in order (each from its first vertex block).
            let mut reach = 0u32;
            if self.cfg.fe_cross_draw {
                let mut left = depth - (end - first.min(end));
                for &q in &self.fe.queue {
                    if left == 0 {
                        break;
                    }
                    reach += 1;
                    left -= left.min(self.frame.draws[q as usize].vbuf.1);
                }
            }
            let key = (
                self.frame_index,
                d,
                first,
                self.mem.epoch(self.ids.vertex),
                reach,
            );
            if self.fe.seen != Some(key) {
                let mut miss = false;
                let v = self.ids.vertex;
                // Across draws the window's buffers all start on the same sets (each region is
                // 64 MB aligned), so a fill for a queued draw may evict the head's blocks; it
                // spares the window ahead of it (`MemIf::ensure_window`, the ZS/CW rule), else
                // FE livelocks (L4D stood still at its first frame). The default keeps the
                // plain requests.
                let cross = self.cfg.fe_cross_draw;
                if cross {
                    self.mem.window_start();
                }
                let mut fetch = |buf: u16, blocks: std::ops::Range<u32>| {
                    for vb in blocks {
                        let vblock = Region::Vertex(buf).base() + vb as u64;
                        let iblock = Region::Index(buf).base() + vb as u64 / 4;
                        if cross {
                            miss |= self.mem.ensure_window(v, iblock..iblock + 1, Stream::Index);
                            miss |= self
                                .mem
                                .ensure_window(v, vblock..vblock + 1, Stream::Vertex);
                        } else {
                            miss |= self.mem.ensure_state(v, iblock, Stream::Index) == Line::Miss;
                            miss |= self.mem.ensure_state(v, vblock, Stream::Vertex) == Line::Miss;
                        }
                    }
                };
                fetch(vbuf.0, first..end);
                let mut left = depth - (end - first.min(end));
                for &q in self.fe.queue.iter().take(reach as usize) {
                    let nb = self.frame.draws[q as usize].vbuf;
                    fetch(nb.0, 0..left.min(nb.1));
                    left -= left.min(nb.1);
                }
                // No miss: nothing requested, the epoch is still `key`'s.
                self.fe.seen = (!miss).then_some(key);
            }
            while emitted < self.cfg.fe_rate && next < total {
                let draw = &self.frame.draws[d as usize];
                let vb = draw.vblock_of(next) as u64;
                let vblock = Region::Vertex(vbuf.0).base() + vb;
                let iblock = Region::Index(vbuf.0).base() + vb / 4;
                let cache = &self.mem.caches[self.ids.vertex];
                if vbuf.1 > 0 && !(cache.contains(vblock) && cache.contains(iblock)) {
                    break;
                }
                let q = self.fe.order[next as usize];
                let to_zs = early && ztest;
                let dest_full = if to_zs {
                    self.zs[self.layout.rop(q)].queue.len() >= self.cfg.rop_queue
                } else {
                    self.sh.queue.len() >= self.cfg.sh_queue
                };
                if dest_full {
                    break;
                }
                if vbuf.1 > 0 {
                    self.mem.caches[self.ids.vertex].access(vblock, false);
                    self.mem.caches[self.ids.vertex].access(iblock, false);
                }
                if to_zs {
                    self.zs[self.layout.rop(q)].queue.push_back(q);
                } else {
                    self.sh.queue.push_back(q);
                }
                self.inflight += 1;
                next += 1;
                emitted += 1;
            }
            self.fe.cur = (next < total).then_some((d, next));
        }
        let pending = self.mem.pending(self.ids.vertex) as f64;
        let th = self.cfg.fe_rate as f64;
        self.counters.units[Unit::Fe as usize][0].observe(pending, emitted as f64, 1.0, th);
        emitted as f64
    }
}

impl Gpu {
    /// FE's vertex look-ahead now, one sample of [`super::probe::FeAhead`] (a diagnostic that
    /// reads the caches' states only): `None` when FE holds no draw with vertex data.
    pub(super) fn fe_ahead(&self) -> Option<super::probe::FeAhead> {
        let (d, next) = self.fe.cur?;
        let draw = &self.frame.draws[d as usize];
        let vbuf = draw.vbuf;
        if vbuf.1 == 0 {
            return None;
        }
        let c = &self.mem.caches[self.ids.vertex];
        let head = draw.vblock_of(next.min(draw.quads().saturating_sub(1)));
        let depth = 4 * self.cfg.lookahead as u32;
        let end = (head + depth).min(vbuf.1);
        let vblock = |vb: u32| Region::Vertex(vbuf.0).base() + vb as u64;
        let iblock = |vb: u32| Region::Index(vbuf.0).base() + vb as u64 / 4;
        let mut a = super::probe::FeAhead {
            samples: 1,
            window: (end - head) as u64,
            window_cut: (head + depth > vbuf.1) as u64,
            draw_blocks: vbuf.1 as u64,
            in_flight: self.mem.pending(self.ids.vertex) as u64,
            ..Default::default()
        };
        let mut run = true;
        for vb in head..end {
            let st = c.state(vblock(vb));
            match st {
                Line::Hit => a.present += 1,
                Line::Pending => a.pending += 1,
                Line::Miss => a.missing += 1,
            }
            run &= st == Line::Hit && c.state(iblock(vb)) == Line::Hit;
            a.lead += run as u64;
        }
        if !(c.contains(vblock(head)) && c.contains(iblock(head))) {
            a.head_missing = 1;
            a.head_missing_draw_start = (head < depth) as u64;
            a.head_missing_next_queued = !self.fe.queue.is_empty() as u64;
        }
        Some(a)
    }

    /// What FE is doing (the wait probe, a diagnostic): the next quad's missing vertex and index
    /// blocks, else whether its destination queue has room.
    pub(super) fn fe_activity(&self) -> super::probe::Activity {
        use super::probe::{self, Activity};
        let Some((d, next)) = self.fe.cur else {
            return if self.fe.queue.is_empty() {
                Activity::Idle
            } else {
                Activity::Busy
            };
        };
        let draw = &self.frame.draws[d as usize];
        let vbuf = draw.vbuf;
        if vbuf.1 > 0 {
            let vb = draw.vblock_of(next) as u64;
            let c = self.ids.vertex;
            let blocks = [
                Region::Vertex(vbuf.0).base() + vb,
                Region::Index(vbuf.0).base() + vb / 4,
            ];
            let missing = blocks
                .into_iter()
                .filter(|&b| !self.mem.caches[c].contains(b))
                .map(|b| (c, b));
            if let Some(a) = probe::waiting_for(self, missing) {
                return a;
            }
        }
        let q = self.fe.order[next as usize];
        let full = if draw.early_z && draw.depth_test {
            self.zs[self.layout.rop(q)].queue.len() >= self.cfg.rop_queue
        } else {
            self.sh.queue.len() >= self.cfg.sh_queue
        };
        if full {
            Activity::Blocked
        } else {
            Activity::Busy
        }
    }
}
