//! A two-partition L2 (`l2.far_latency`, issue 14 item 3): the slices form two halves, each
//! joined directly to half of the SMs (slice `s` of `n` is in half `2s / n`, SM `m` of `k` in
//! half `2m / k`); a request that crosses to the other half pays `far_latency` more L2 cycles
//! before its tag access. H100 (shared/reference/h100-microbench.md): an L2 hit costs about
//! 290 cycles near and 400-500 when the line is in the far half.
//!
//! The far half's lines are localised: as on A100/H100, where each L2 partition also caches
//! the data its own SMs read from the other partition, a read that crossed leaves a copy in
//! the requester's half, and later reads of the line from that half pay nothing extra while
//! the copy lasts. The copies are a tag array kept at the home slice (half its sets, same ways:
//! each half holds copies of at most a quarter of the L2, so a footprint up to about half the
//! L2 stays near, the H100 measurement's knee between 16 and 32 MiB of its 50 MiB). A store
//! from the home half drops the copy (coherence); a store or atomic from the other half pays
//! the far latency (it goes to the home slice) and keeps the copy. Decisions: the copy's
//! capacity does not take lines from the requester's own slices, and a read served by a copy
//! still reaches the home slice's tags (its hits, misses and DRAM traffic are counted there),
//! only without the far latency.

use super::cache::{Cache, Lookup};
use super::req::{MemReq, ReqKind};
use crate::config::CacheConfig;

/// The far-half state of one slice.
pub struct FarHalf {
    /// Extra L2 cycles of a crossing request.
    extra: u64,
    /// This slice's half (0 or 1).
    half: u32,
    /// SMs in the GPU.
    sms: u32,
    /// Lines of this slice the other half holds a copy of (slice-local line addresses).
    copies: Cache,
    /// Requests that paid the far latency.
    pub crossings: u64,
}

impl FarHalf {
    /// Slice `slice` of `slices`, in a GPU of `sms` SMs, whose cache is `cache`; `None` when
    /// `extra` is 0 (a single-partition L2).
    pub fn new(extra: u32, slice: u32, slices: u32, sms: u32, cache: &CacheConfig) -> Option<Self> {
        if extra == 0 {
            return None;
        }
        let copies = CacheConfig {
            sets: (cache.sets / 2).max(1),
            replacement: "lru".into(),
            insertion: "always".into(),
            ..cache.clone()
        };
        Some(Self {
            extra: extra as u64,
            half: 2 * slice / slices.max(1),
            sms: sms.max(1),
            copies: Cache::new(&copies),
            crossings: 0,
        })
    }

    /// Forgets every copy (an L2 flush).
    pub fn flush(&mut self) {
        self.copies.invalidate_all();
    }

    /// The extra L2 cycles request `r` (of slice-local line `line`) pays, with the copies
    /// updated.
    pub fn delay(&mut self, r: &MemReq, line: u64) -> u64 {
        let near = 2 * r.sm as u32 / self.sms == self.half;
        let hit = match self.copies.lookup(line, 0) {
            Lookup::Hit(w) | Lookup::Pending(w) | Lookup::SectorMiss(w) => Some(w),
            Lookup::Miss => None,
        };
        if near {
            if r.kind != ReqKind::Read && hit.is_some() {
                self.copies.invalidate(line);
            }
            return 0;
        }
        if r.kind == ReqKind::Read {
            if let Some(w) = hit {
                self.copies.touch(line, w);
                return 0;
            }
            if self.copies.allocate(line, false).is_some() {
                self.copies.fill(line, self.copies.full_mask());
            }
        }
        self.crossings += 1;
        self.extra
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GpuConfig;

    fn req(sm: u16, kind: ReqKind) -> MemReq {
        MemReq {
            sm,
            kind,
            ..Default::default()
        }
    }

    /// Slice 3 of 4 (the upper half) in a GPU of 4 SMs: SMs 2 and 3 are near, 0 and 1 far.
    #[test]
    fn crossings_pay_until_copied_and_home_stores_drop_the_copy() {
        let g = GpuConfig::preset("h100").unwrap();
        assert!(FarHalf::new(0, 3, 4, 4, &g.l2.cache).is_none());
        let mut f = FarHalf::new(100, 3, 4, 4, &g.l2.cache).unwrap();
        assert_eq!(f.delay(&req(2, ReqKind::Read), 7), 0, "near");
        assert_eq!(f.delay(&req(0, ReqKind::Read), 7), 100, "far, first read");
        assert_eq!(
            f.delay(&req(1, ReqKind::Read), 7),
            0,
            "far half holds a copy"
        );
        assert_eq!(
            f.delay(&req(0, ReqKind::Write), 7),
            100,
            "far store goes home"
        );
        assert_eq!(f.delay(&req(0, ReqKind::Read), 7), 0, "and keeps the copy");
        assert_eq!(f.delay(&req(3, ReqKind::Write), 7), 0, "home store");
        assert_eq!(f.delay(&req(0, ReqKind::Read), 7), 100, "copy dropped");
        assert_eq!(f.crossings, 3);
    }
}
