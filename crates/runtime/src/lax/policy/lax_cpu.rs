//! LAX-CPU (§6.5.1): CPU-side laxity-aware scheduling with an API that writes per-queue priorities
//! into memory-mapped CP registers.
//!
//! Kernels are still launched by the host (4 µs per kernel) and the host sees the previous
//! epoch's rates, but after every epoch it rewrites all priorities, which take effect 1.5 µs later
//! (the MMIO write latency; the document gives none, the digest suggests 1–2 µs).

use super::{HostCosts, Policy, View};
use crate::engine::{Time, US};
use crate::lax::tables::{
    admit_by_queueing_delay, laxity_priority, AdmissionRecord, Job, ProfilingTable,
};

/// Laxity-aware scheduling on the host with MMIO priority writes.
pub struct LaxCpu;

impl Policy for LaxCpu {
    fn name(&self) -> &'static str {
        "LAX-CPU"
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
    fn rekey_delay(&self) -> Option<Time> {
        Some(1500)
    }
}
