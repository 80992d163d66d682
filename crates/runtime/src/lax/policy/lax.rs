//! LAX (Ch. 6): laxity-aware scheduling in the command processor.
//!
//! Admission by queueing-delay estimation (Algorithm 3) when the CP has inspected a new stream,
//! priority = Algorithm 4 (laxity, or predicted completion time for predicted misses, `INF` once
//! the deadline passed) from the live Kernel Profiling Table, refreshed every 100 µs. No host
//! overhead: the whole job sits on its stream and the CP resolves kernel dependencies.

use super::{Policy, View};
use crate::engine::Time;
use crate::lax::tables::{
    admit_by_queueing_delay, laxity_priority, AdmissionRecord, Job, ProfilingTable,
};

/// LAX in the CP.
pub struct Lax;

impl Policy for Lax {
    fn name(&self) -> &'static str {
        "LAX"
    }
    fn admit(
        &mut self,
        jobs: &mut [Job],
        order: &[usize],
        now: Time,
        prof: &ProfilingTable,
        log: &mut Vec<AdmissionRecord>,
    ) {
        admit_by_queueing_delay(jobs, order, &prof.rate, now, log);
    }
    fn key(&mut self, view: &View, job: usize) -> f64 {
        laxity_priority(&view.jobs[job], &view.prof.rate, view.now)
    }
    fn rekey_delay(&self) -> Option<Time> {
        Some(0)
    }
}
