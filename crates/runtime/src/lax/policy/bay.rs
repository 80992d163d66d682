//! Baymax (BAY, §6.5.1): CPU-side QoS-headroom scheduling with a regression model.
//!
//! Each job pays a 50 µs model call on the host before it can be issued. The model predicts job
//! time from offline rates; a job whose predicted completion (elapsed + predicted work of the
//! jobs already issued + its own) misses the deadline is not offloaded. Issued jobs are ordered by
//! QoS headroom (deadline - elapsed - predicted remaining, smallest first) and the number of
//! concurrent jobs is capped by the offline co-location limit. 4 µs per kernel launch.

use super::deadline::{DeadlinePolicy, Rates};
use super::HostCosts;
use crate::engine::{Time, US};
use crate::lax::tables::{remaining_time, Job};

/// QoS headroom of `job` at `now`: deadline - elapsed - predicted remaining time (ns).
fn headroom(job: &Job, rates: &[f64], now: Time) -> f64 {
    let elapsed = now.saturating_sub(job.arrival) as f64;
    job.deadline as f64 - elapsed - remaining_time(job, rates)
}

/// Baymax-style scheduling: offline rates, a 50 µs model call per job, static keys, jobs in
/// flight capped at the offline co-location limit.
pub(super) const BAY: DeadlinePolicy = DeadlinePolicy {
    name: "BAY",
    rates: Rates::Seed,
    host: HostCosts::host_launched(50 * US),
    rekey: None,
    key: headroom,
    offline_cap: true,
};
