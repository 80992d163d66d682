//! LAX-SW (§6.5.1): the laxity-aware algorithm run on the CPU.
//!
//! The host launches each kernel itself (4 µs host-device round trip per kernel), sees the
//! profiling data one epoch late (rates of the previous window), and can only set a job's priority
//! when it launches the job's next kernel: priorities do not change while a kernel waits.

use super::{HostCosts, Policy, View};
use crate::engine::{Time, US};
use crate::lax::tables::{
    admit_by_queueing_delay, laxity_priority, AdmissionRecord, Job, ProfilingTable,
};

/// Laxity-aware scheduling on the host.
pub struct LaxSw;

impl Policy for LaxSw {
    fn name(&self) -> &'static str {
        "LAX-SW"
    }
    fn host(&self) -> HostCosts {
        HostCosts {
            per_job: 0,
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
        admit_by_queueing_delay(jobs, order, &prof.stale, now, log);
    }
    fn key(&mut self, view: &View, job: usize) -> f64 {
        laxity_priority(&view.jobs[job], &view.prof.stale, view.now)
    }
}
