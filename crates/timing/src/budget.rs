//! Memory estimate of a simulated machine, computed from its configuration before anything is
//! allocated, so that an absurd machine (`--set core.num_sms=100000`) is refused at once with
//! the estimate and the key that drives it instead of exhausting the host (issue 21 item 5).
//!
//! The estimate adds, per component, the bytes its constructor allocates plus what it holds
//! at its working size: every SM with all its warp slots allocated (they are allocated at an
//! SM's first CTA), each cache's tag store (tag, pc, valid, dirty and flag bytes, replacement
//! state) and MSHRs, the L2 slices' queues, the DRAM channels' queues and the interconnect's
//! ejection queues. Sizes are `size_of` of the model's own types; it is an upper estimate of the
//! simulator's state, not of workload data (device memory, traces), which grows with the input.

use std::mem::size_of;

use warpforge_core::DynInst;

use crate::config::{CacheConfig, GpuConfig};
use crate::core::sm::SmState;
use crate::core::warp::Warp;
use crate::dram::{Channel, DramReq};
use crate::mem::icnt::Network;
use crate::mem::l2::L2Slice;
use crate::mem::req::MemReq;

/// One component's share of the estimate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term {
    /// The configuration key whose value drives this share (what to lower).
    pub key: &'static str,
    /// What it is, e.g. `15 SMs x 118 KiB of SM state`.
    pub what: String,
    /// Bytes.
    pub bytes: u64,
}

/// The memory estimate of a machine: its terms, largest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Estimate {
    /// Shares, largest first.
    pub terms: Vec<Term>,
}

impl Estimate {
    /// Total bytes.
    pub fn total(&self) -> u64 {
        self.terms
            .iter()
            .fold(0u64, |a, t| a.saturating_add(t.bytes))
    }
    /// The largest share (the key to lower first).
    pub fn driver(&self) -> &Term {
        &self.terms[0]
    }
}

/// `n` as KiB / MiB / GiB with one decimal.
pub fn human(n: u64) -> String {
    let n = n as f64;
    if n >= (1u64 << 30) as f64 {
        format!("{:.1} GiB", n / (1u64 << 30) as f64)
    } else if n >= (1u64 << 20) as f64 {
        format!("{:.1} MiB", n / (1u64 << 20) as f64)
    } else {
        format!("{:.1} KiB", n / 1024.0)
    }
}

/// Bytes per line of a tag store: tag and insert-pc (u64 each), valid, dirty and flag bytes,
/// and up to 8 bytes of replacement state.
const LINE_BYTES: u64 = 8 + 8 + 1 + 1 + 1 + 8;

/// Bytes of one cache of geometry `c`: tag store and MSHRs (entry arrays, merge pool).
pub fn cache_bytes(c: &CacheConfig) -> u64 {
    let lines = c.sets as u64 * c.ways as u64;
    let e = c.mshr_entries as u64;
    let pool = (e * c.mshr_merge.min(255) as u64).min(1024);
    lines.saturating_mul(LINE_BYTES) + e * (8 + 2 + 4 + 4) + pool * 16
}

/// Bytes of one SM's own state (without its L1 caches): the struct, every warp slot, CTA slots,
/// collector units, load trackers, unit timers, queues and the scheduler's per-warp state.
pub fn sm_bytes(cfg: &GpuConfig) -> u64 {
    let c = &cfg.core;
    let req = size_of::<MemReq>() as u64;
    let collectors = (c.collectors_sp + c.collectors_sfu + c.collectors_mem) as u64;
    size_of::<SmState>() as u64
        + c.max_warps as u64 * size_of::<Warp>() as u64
        + c.max_ctas as u64 * (48 + 4)
        + collectors * (size_of::<DynInst>() as u64 + 32)
        + c.load_trackers as u64 * (24 + 4)
        + (c.sp_units + c.sfu_units + c.int_units) as u64 * 8
        + (cfg.icnt.input_buffer + cfg.icnt.ejection_buffer) as u64 * req
        + (cfg.l1d.miss_queue
            + cfg.const_cache.miss_queue
            + cfg.l1i.miss_queue
            + cfg.tex.miss_queue) as u64
            * req
        + c.schedulers as u64 * (64 + c.max_warps as u64 * 16)
        + 64 * 8
        + 4096
}

/// The estimate of a machine of configuration `cfg`.
pub fn estimate(cfg: &GpuConfig) -> Estimate {
    let n_sm = cfg.core.num_sms as u64;
    let n_slices = cfg.dram.channels as u64 * cfg.l2.slices_per_channel as u64;
    let req = size_of::<MemReq>() as u64;
    let mut terms = Vec::new();
    let mut per_sm = |key, what: &str, each: u64| {
        terms.push(Term {
            key,
            what: format!("{n_sm} SMs x {} of {what}", human(each)),
            bytes: n_sm.saturating_mul(each),
        })
    };
    per_sm("core.num_sms", "SM state", sm_bytes(cfg));
    per_sm(
        "l1d.sets",
        "L1D (l1d.sets x l1d.ways)",
        cache_bytes(&cfg.l1d),
    );
    per_sm(
        "l1i.sets",
        "L1I (l1i.sets x l1i.ways)",
        cache_bytes(&cfg.l1i),
    );
    per_sm(
        "const_cache.sets",
        "constant cache",
        cache_bytes(&cfg.const_cache),
    );
    per_sm("tex.sets", "texture cache", cache_bytes(&cfg.tex.cache()));
    let l2 = &cfg.l2;
    let slice = size_of::<L2Slice>() as u64
        + cache_bytes(&l2.cache)
        + (l2.input_queue + l2.output_queue + l2.dram_queue + l2.cache.mshr_entries) as u64 * req;
    terms.push(Term {
        key: "l2.cache.sets",
        what: format!(
            "{n_slices} L2 slices (dram.channels x l2.slices_per_channel) x {}",
            human(slice)
        ),
        bytes: n_slices.saturating_mul(slice),
    });
    let d = &cfg.dram;
    let channel = size_of::<Channel>() as u64
        + d.banks as u64 * 64
        + d.bank_groups as u64 * 8
        + (d.queue_size as u64 + d.write_watermarks().0 as u64) * size_of::<DramReq>() as u64
        + d.return_queue as u64 * req;
    terms.push(Term {
        key: "dram.channels",
        what: format!("{} DRAM channels x {}", d.channels, human(channel)),
        bytes: (d.channels as u64).saturating_mul(channel),
    });
    // Two networks (requests SM -> slice, replies slice -> SM): per-endpoint timers and heads,
    // and per-destination ejection queues of (cycle, request).
    let ends = n_sm + n_slices;
    let eject = cfg.icnt.ejection_buffer.max(cfg.icnt.output_buffer) as u64 * (8 + req) + 32;
    let icnt = 2 * size_of::<Network>() as u64
        + ends.saturating_mul(2 * (8 + 8 + 8 + 4))
        + ends.saturating_mul(eject);
    terms.push(Term {
        key: "icnt.ejection_buffer",
        what: format!(
            "interconnect: {ends} endpoints x {} ejection queues",
            human(eject)
        ),
        bytes: icnt,
    });
    terms.sort_by_key(|t| std::cmp::Reverse(t.bytes));
    Estimate { terms }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_scale_with_their_keys() {
        let g = GpuConfig::preset("gtx480").unwrap();
        let e = estimate(&g);
        // The GTX480 needs some MiB, not GiB, and the SMs drive it.
        assert!((1 << 20..1 << 30).contains(&e.total()), "{}", e.total());
        let mut big = g.clone();
        big.core.num_sms = 100_000;
        let b = estimate(&big);
        assert_eq!(b.driver().key, "core.num_sms");
        let per_sm = sm_bytes(&g);
        assert_eq!(b.driver().bytes, 100_000 * per_sm);
        let mut l1 = g.clone();
        l1.l1d.sets = 1 << 20;
        let l = estimate(&l1);
        assert_eq!(l.driver().key, "l1d.sets");
        assert!(l.total() > 15 * (1u64 << 20) * 4 * LINE_BYTES);
        let mut l2 = g;
        l2.l2.cache.sets = 1 << 22;
        assert_eq!(estimate(&l2).driver().key, "l2.cache.sets");
    }
}
