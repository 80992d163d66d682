//! Baymax (BAY, §6.5.1): CPU-side QoS-headroom scheduling with a regression model.
//!
//! Each job pays a 50 µs model call on the host before it can be issued. The model predicts job
//! time from offline rates; a job whose predicted completion (elapsed + predicted work of the
//! jobs already issued + its own) misses the deadline is not offloaded. Issued jobs are ordered by
//! QoS headroom (deadline - elapsed - predicted remaining, smallest first) and the number of
//! concurrent jobs is capped by the offline co-location limit. 4 µs per kernel launch.

use super::{offline_concurrency, HostCosts, Policy, View};
use crate::engine::{Time, US};
use crate::lax::tables::{
    admit_by_queueing_delay, remaining_time, AdmissionRecord, Job, ProfilingTable,
};

/// Baymax-style scheduling.
#[derive(Default)]
pub struct Baymax;

impl Policy for Baymax {
    fn name(&self) -> &'static str {
        "BAY"
    }
    fn host(&self) -> HostCosts {
        HostCosts {
            per_job: 50 * US,
            per_kernel: 4 * US,
            batching: false,
        }
    }
    fn admit(
        &mut self,
        jobs: &mut [Job],
        order: &[usize],
        now: Time,
        prof: &ProfilingTable,
        log: &mut Vec<AdmissionRecord>,
    ) {
        admit_by_queueing_delay(jobs, order, &prof.seed, now, log);
    }
    fn key(&mut self, view: &View, job: usize) -> f64 {
        let j = &view.jobs[job];
        let elapsed = view.now.saturating_sub(j.arrival) as f64;
        j.deadline as f64 - elapsed - remaining_time(j, &view.prof.seed)
    }
    fn max_in_flight(&self, view: &View, job: usize) -> Option<usize> {
        Some(offline_concurrency(&view.jobs[job], view.prof))
    }
}
