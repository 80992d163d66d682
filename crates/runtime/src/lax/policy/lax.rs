//! LAX (Ch. 6): laxity-aware scheduling in the command processor.
//!
//! Admission by queueing-delay estimation (Algorithm 3) when the CP has inspected a new stream,
//! priority = Algorithm 4 (laxity, or predicted completion time for predicted misses, `INF` once
//! the deadline passed) from the live Kernel Profiling Table, refreshed every 100 µs. No host
//! overhead: the whole job sits on its stream and the CP resolves kernel dependencies.

use super::deadline::{DeadlinePolicy, Rates};
use super::HostCosts;
use crate::lax::tables::laxity_priority;

/// LAX in the CP: live rates, keys refreshed right after every epoch.
pub(super) const LAX: DeadlinePolicy = DeadlinePolicy {
    name: "LAX",
    rates: Rates::Live,
    host: HostCosts {
        per_job: 0,
        per_kernel: 0,
        batching: false,
    },
    rekey: Some(0),
    key: laxity_priority,
    offline_cap: false,
};
