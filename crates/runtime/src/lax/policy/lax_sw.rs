//! LAX-SW (§6.5.1): the laxity-aware algorithm run on the CPU.
//!
//! The host launches each kernel itself (4 µs host-device round trip per kernel), sees the
//! profiling data one epoch late (rates of the previous window), and can only set a job's priority
//! when it launches the job's next kernel: priorities do not change while a kernel waits.

use super::deadline::{DeadlinePolicy, Rates};
use super::HostCosts;
use crate::lax::tables::laxity_priority;

/// Laxity-aware scheduling on the host: stale rates, static keys.
pub(super) const LAX_SW: DeadlinePolicy = DeadlinePolicy {
    name: "LAX-SW",
    rates: Rates::Stale,
    host: HostCosts::host_launched(0),
    rekey: None,
    key: laxity_priority,
    offline_cap: false,
};
