//! LAX-CPU (§6.5.1): CPU-side laxity-aware scheduling with an API that writes per-queue priorities
//! into memory-mapped CP registers.
//!
//! Kernels are still launched by the host (4 µs per kernel) and the host sees the previous
//! epoch's rates, but after every epoch it rewrites all priorities, which take effect 1.5 µs later
//! (the MMIO write latency; the document gives none, the digest suggests 1–2 µs).

use super::deadline::{DeadlinePolicy, Rates};
use super::HostCosts;
use crate::lax::tables::laxity_priority;

/// Laxity-aware scheduling on the host with MMIO priority writes: stale rates, keys refreshed
/// 1.5 µs after every epoch.
pub(super) const LAX_CPU: DeadlinePolicy = DeadlinePolicy {
    name: "LAX-CPU",
    rates: Rates::Stale,
    host: HostCosts::host_launched(0),
    rekey: Some(1500),
    key: laxity_priority,
    offline_cap: false,
};
