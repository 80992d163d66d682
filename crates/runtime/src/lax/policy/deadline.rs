//! The deadline-aware policies that admit by queueing delay (Algorithm 3): LAX and its CPU-side
//! variants LAX-SW and LAX-CPU, and Baymax (§6.5.1). They differ only in which Kernel Profiling
//! Table rates they read, where they run (host costs), how they key ready jobs and how often the
//! keys are refreshed; each of their files is one [`DeadlinePolicy`] value.

use super::{HostCosts, Policy, View};
use crate::engine::Time;
use crate::lax::tables::{admit_by_queueing_delay, AdmissionRecord, Job, ProfilingTable};

/// Which rates of the Kernel Profiling Table a policy reads (WGs/ns per kernel).
#[derive(Debug, Clone, Copy)]
pub(super) enum Rates {
    /// The live table (the CP sees it as it is updated).
    Live,
    /// The previous epoch's rates (what a host-side scheduler can see).
    Stale,
    /// The offline (seed) rates of a model trained before the run.
    Seed,
}

impl Rates {
    /// The rates this choice names in `prof`.
    fn of(self, prof: &ProfilingTable) -> &[f64] {
        match self {
            Rates::Live => &prof.rate,
            Rates::Stale => &prof.stale,
            Rates::Seed => &prof.seed,
        }
    }
}

/// A policy that admits new jobs by queueing-delay estimation (Algorithm 3) on `rates` and keys
/// ready jobs by `key(job, rates, now)` (smaller first).
pub(super) struct DeadlinePolicy {
    /// Registry name.
    pub name: &'static str,
    /// Rates used for admission and keys.
    pub rates: Rates,
    /// Host costs (none for the CP-resident LAX).
    pub host: HostCosts,
    /// Delay after each epoch at which keys are refreshed (ns); `None`: static keys.
    pub rekey: Option<Time>,
    /// Priority key of a job from the chosen rates at time `now` (ns).
    pub key: fn(&Job, &[f64], Time) -> f64,
    /// Caps concurrently issued jobs at the offline co-location limit
    /// ([`super::offline_concurrency`]).
    pub offline_cap: bool,
}

impl Policy for DeadlinePolicy {
    fn name(&self) -> &'static str {
        self.name
    }
    fn host(&self) -> HostCosts {
        self.host
    }
    fn admit(
        &mut self,
        jobs: &mut [Job],
        order: &[usize],
        now: Time,
        prof: &ProfilingTable,
        log: &mut Vec<AdmissionRecord>,
    ) {
        admit_by_queueing_delay(jobs, order, self.rates.of(prof), now, log);
    }
    fn key(&mut self, view: &View, job: usize) -> f64 {
        (self.key)(&view.jobs[job], self.rates.of(view.prof), view.now)
    }
    fn rekey_delay(&self) -> Option<Time> {
        self.rekey
    }
    fn max_in_flight(&self, view: &View, job: usize) -> Option<usize> {
        self.offline_cap
            .then(|| super::offline_concurrency(&view.jobs[job], view.prof))
    }
}
