//! Prophet (PRO, §6.5.1): CPU-side, offline-profiled co-location.
//!
//! Jobs are issued in arrival order (FCFS) while the number of co-running jobs stays within the
//! offline-predicted co-location limit ([`super::offline_concurrency`]): enough copies to keep the
//! GPU busy while each is predicted to meet its QoS in isolation of queueing. Prophet never
//! rejects: jobs wait on the host. 4 µs host round trip per kernel.

use super::{offline_concurrency, HostCosts, Policy, View};

/// Prophet-style co-location.
#[derive(Default)]
pub struct Prophet;

impl Policy for Prophet {
    fn name(&self) -> &'static str {
        "PRO"
    }
    fn host(&self) -> HostCosts {
        HostCosts::host_launched(0)
    }
    fn key(&mut self, view: &View, job: usize) -> f64 {
        view.jobs[job].arrival as f64
    }
    fn max_in_flight(&self, view: &View, job: usize) -> Option<usize> {
        Some(offline_concurrency(&view.jobs[job], view.prof))
    }
}
