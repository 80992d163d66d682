//! Queue-scheduling policies of Table 6.2: one file each, registered by name in [`POLICIES`].
//!
//! A policy gives every ready kernel (a dispatch group) a priority key; the WG dispatcher issues
//! WGs of the smallest key first and breaks ties oldest-first (by when the kernel became ready),
//! which with equal keys is kernel-granular round-robin over the queues. CPU-side policies also
//! declare host costs ([`HostCosts`]) and may hold or reject jobs on the host.
//!
//! Adding one: a file here implementing [`Policy`], a `mod` line and a row in [`POLICIES`].

use crate::engine::Time;
use crate::lax::gpu::GpuConfig;
use crate::lax::tables::{AdmissionRecord, Job, ProfilingTable};
use crate::RuntimeError;

mod bat;
mod bay;
mod deadline;
mod lax;
mod lax_cpu;
mod lax_sw;
mod ljf;
mod mlfq;
mod prema;
mod pro;
mod rr;
mod sjf;
mod srf;

/// What a policy may read when it decides.
pub struct View<'a> {
    /// Current time (ns).
    pub now: Time,
    /// Every job of the run (indexed by job id).
    pub jobs: &'a [Job],
    /// The Kernel Profiling Table.
    pub prof: &'a ProfilingTable,
    /// GPU parameters.
    pub gpu: &'a GpuConfig,
    /// Jobs issued to the GPU and not finished.
    pub in_flight: usize,
}

/// Host-side costs of a CPU-side policy (§6.5.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HostCosts {
    /// Per-job cost before the job can be issued (BAY's 50 µs model call), ns.
    pub per_job: Time,
    /// Host-device round trip per kernel launch (4 µs), ns. Zero means the whole job is
    /// enqueued on its stream at arrival and the CP resolves kernel dependencies itself.
    pub per_kernel: Time,
    /// Dynamic batching of identical kernels across jobs (BatchMaker).
    pub batching: bool,
}

impl HostCosts {
    /// Costs of a CPU-side scheduler that launches each kernel itself: a 4 µs host-device
    /// round trip per kernel (§6.5.1), `per_job` ns before a job can be issued, no batching.
    pub const fn host_launched(per_job: Time) -> Self {
        HostCosts {
            per_job,
            per_kernel: 4 * crate::engine::US,
            batching: false,
        }
    }
}

/// A queue-scheduling policy.
pub trait Policy {
    /// Registry name.
    fn name(&self) -> &'static str;

    /// Host costs; CP policies have none.
    fn host(&self) -> HostCosts {
        HostCosts::default()
    }

    /// Admission of new jobs (`init` state, insertion order in `order`). Sets each to `Ready` or
    /// `Rejected`. Default: accept all.
    fn admit(
        &mut self,
        jobs: &mut [Job],
        order: &[usize],
        now: Time,
        prof: &ProfilingTable,
        log: &mut Vec<AdmissionRecord>,
    ) {
        let _ = (now, prof, log);
        for &i in order {
            if jobs[i].state == crate::lax::tables::JobState::Init {
                jobs[i].state = crate::lax::tables::JobState::Ready;
            }
        }
    }

    /// Priority key of job `job` (smaller first). Evaluated when one of its kernels becomes ready
    /// and, for dynamic policies, after every epoch.
    fn key(&mut self, view: &View, job: usize) -> f64;

    /// Delay after each 100 µs epoch at which dynamic keys are re-evaluated; `None` = static
    /// keys (evaluated only when a kernel becomes ready).
    fn rekey_delay(&self) -> Option<Time> {
        None
    }

    /// Host gating: the most jobs that may be issued to the GPU at once (`None` = no limit).
    fn max_in_flight(&self, view: &View, job: usize) -> Option<usize> {
        let _ = (view, job);
        None
    }

    /// Called at the start of every epoch (for policies with epoch state, e.g. PREMA tokens).
    fn on_epoch(&mut self, view: &View) {
        let _ = view;
    }
}

/// Constructor of a policy.
pub type PolicyCtor = fn() -> Box<dyn Policy>;

/// All policies by name, in the order the report prints them.
pub const POLICIES: &[(&str, PolicyCtor)] = &[
    ("RR", || Box::new(rr::RoundRobin)),
    ("MLFQ", || Box::new(mlfq::Mlfq)),
    ("BAT", || Box::new(bat::BatchMaker)),
    ("BAY", || Box::new(bay::BAY)),
    ("PRO", || Box::new(pro::Prophet)),
    ("LJF", || Box::new(ljf::LongestJobFirst)),
    ("SJF", || Box::new(sjf::ShortestJobFirst)),
    ("SRF", || Box::new(srf::ShortestRemainingFirst)),
    ("PREMA", || Box::new(prema::Prema::default())),
    ("LAX-SW", || Box::new(lax_sw::LAX_SW)),
    ("LAX-CPU", || Box::new(lax_cpu::LAX_CPU)),
    ("LAX", || Box::new(lax::LAX)),
];

/// Names of all policies.
pub fn policy_names() -> Vec<&'static str> {
    POLICIES.iter().map(|(n, _)| *n).collect()
}

/// Builds a policy by (case-insensitive) name; an unknown name lists the known ones.
pub fn policy_by_name(name: &str) -> Result<Box<dyn Policy>, RuntimeError> {
    POLICIES
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, c)| c())
        .ok_or_else(|| RuntimeError::UnknownName {
            what: "LAX policy",
            name: name.to_string(),
            known: policy_names().join(", "),
        })
}

/// Predicted total time of a whole job with offline (seed) rates, for static policies (ns).
pub(crate) fn predicted_total(job: &Job, prof: &ProfilingTable) -> f64 {
    job.kernels
        .iter()
        .map(|l| l.wgs as f64 / prof.seed[l.kernel])
        .sum()
}

/// Host concurrency limit from offline profiles (BAY, PRO): the most copies of the job that can
/// share the GPU while each is predicted to finish within its deadline.
pub(crate) fn offline_concurrency(job: &Job, prof: &ProfilingTable) -> usize {
    let drain = predicted_total(job, prof); // GPU time one job needs when it shares the GPU
    let latency: f64 = job
        .kernels
        .iter()
        .map(|l| prof.iso_launch[l.kernel])
        .sum::<f64>();
    let d = job.deadline as f64;
    let extra = ((d - latency.max(drain)) / drain).floor().max(0.0) as usize;
    1 + extra
}
