//! LAX's Job Table and Kernel Profiling Table (§6.2) and the estimators built on them:
//! remaining time, laxity (Eq. 6.1), queueing-delay admission (Algorithm 3) and the priority
//! update (Algorithm 4).
//!
//! Decisions on the digest's ambiguities (docs/RUNTIME.md):
//! - `WGCompRate[k]` is GPU-wide and follows Little's law over the last 100 µs epoch:
//!   (time-average number of resident WGs of kernel `k` while `k` is active) / (mean latency of
//!   the WGs of `k` that completed in the epoch). This is the drain rate of `k` under the current
//!   contention. (Completions / 100 µs measures the offered load instead: at light load every
//!   estimate inflates, admission rejects, load falls further and LAX starves itself; completions
//!   / active time is skewed by WGs that complete in bursts.) It is seeded with the kernel's
//!   saturated rate (the GPU full of its WGs, contention included) and keeps its last value when
//!   an epoch sees no completion.
//! - Admission runs when the CP has inspected a new stream; rejected jobs are never executed and
//!   count as missed. The check sits after the kernel loop (the printed indentation is a typo).
//! - StartTime is the host arrival time; the deadline is relative to it.

use crate::engine::Time;
use crate::lax::gpu::GpuConfig;
use crate::lax::workload::{KernelCost, Launch};

/// Lifecycle state of a job (Job Table `State`, plus host-side and terminal states).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobState {
    /// Not yet arrived, or held on the host by a CPU-side scheduler.
    Host,
    /// Inspected by the CP, waiting for admission (`init`).
    Init,
    /// Admitted; its current kernel may dispatch (`ready`).
    Ready,
    /// All WGs of its current kernel are issued (`running`).
    Running,
    /// Finished.
    Done,
    /// Refused by admission control (counted as a miss, never executed).
    Rejected,
}

/// One Job Table entry (one compute queue holds one job).
#[derive(Debug, Clone)]
pub struct Job {
    /// Host arrival time = StartTime (ns).
    pub arrival: Time,
    /// Relative deadline (ns).
    pub deadline: Time,
    /// The job's kernels (stream inspection reveals all of them).
    pub kernels: Vec<Launch>,
    /// Index of the first kernel not yet complete.
    pub next: usize,
    /// WGs of kernel `next` not yet completed (the WGCount of its WGList entry).
    pub cur_left: u32,
    /// State.
    pub state: JobState,
    /// Scheduling priority (smaller is higher).
    pub prio: f64,
    /// Completion time.
    pub finish: Option<Time>,
    /// Completed WGs attributed to this job (fractional for batched kernels).
    pub wgs_done: f64,
    /// Dynamic energy of its completed WGs (nJ).
    pub energy_nj: f64,
}

impl Job {
    /// A job in the `Host` state.
    pub fn new(arrival: Time, deadline: Time, kernels: Vec<Launch>) -> Self {
        let cur_left = kernels.first().map_or(0, |l| l.wgs);
        Self {
            arrival,
            deadline,
            kernels,
            next: 0,
            cur_left,
            state: JobState::Host,
            prio: 0.0,
            finish: None,
            wgs_done: 0.0,
            energy_nj: 0.0,
        }
    }

    /// The WGList: `(kernel, numWG)` of every kernel still to complete.
    pub fn wglist(&self) -> impl Iterator<Item = (usize, u32)> + '_ {
        self.kernels[self.next.min(self.kernels.len())..]
            .iter()
            .enumerate()
            .map(|(i, l)| (l.kernel, if i == 0 { self.cur_left } else { l.wgs }))
    }

    /// True while the job still occupies a queue (admitted or waiting, not finished).
    pub fn active(&self) -> bool {
        matches!(
            self.state,
            JobState::Init | JobState::Ready | JobState::Running
        )
    }

    /// Met its deadline.
    pub fn met(&self) -> bool {
        self.finish
            .is_some_and(|f| f - self.arrival <= self.deadline)
    }
}

/// Kernel Profiling Table: WG completion rate per kernel type (WGs per ns).
#[derive(Debug, Clone)]
pub struct ProfilingTable {
    /// Current `WGCompRate` per kernel id (WGs/ns).
    pub rate: Vec<f64>,
    /// Rates of the previous epoch (what CPU-side variants see).
    pub stale: Vec<f64>,
    /// Offline (seed) rates.
    pub seed: Vec<f64>,
    /// Offline isolated latency of one launch of each kernel (ns).
    pub iso_launch: Vec<f64>,
    window: Vec<u32>,
    lat_sum: Vec<f64>,
    active_ns: Vec<Time>,
    integral: Vec<f64>,
    resident: Vec<u32>,
    last: Vec<Time>,
}

impl ProfilingTable {
    /// Seeds every kernel with its saturated rate: the GPU full of this kernel's WGs.
    pub fn seeded(gpu: &GpuConfig, kernels: &[&KernelCost]) -> Self {
        let seed: Vec<f64> = kernels
            .iter()
            .map(|k| {
                let f = gpu.footprint(k.wg_threads, k.vgprs, k.lds_bytes);
                let n = (gpu.wgs_per_cu(f) * gpu.cus).max(1) as f64;
                n / (k.wg_ns as f64 * (n * k.bw).max(1.0))
            })
            .collect();
        let iso_launch = kernels
            .iter()
            .map(|k| {
                let f = gpu.footprint(k.wg_threads, k.vgprs, k.lds_bytes);
                let cap = (gpu.wgs_per_cu(f) * gpu.cus).max(1);
                let waves = k.wgs.div_ceil(cap) as f64;
                let wave = k.wgs.min(cap) as f64;
                waves * k.wg_ns as f64 * (wave * k.bw).max(1.0)
            })
            .collect();
        Self {
            rate: seed.clone(),
            stale: seed.clone(),
            window: vec![0; seed.len()],
            lat_sum: vec![0.0; seed.len()],
            active_ns: vec![0; seed.len()],
            integral: vec![0.0; seed.len()],
            resident: vec![0; seed.len()],
            last: vec![0; seed.len()],
            seed,
            iso_launch,
        }
    }

    fn settle(&mut self, k: usize, now: Time) {
        let dt = now - self.last[k];
        if self.resident[k] > 0 {
            self.active_ns[k] += dt;
            self.integral[k] += self.resident[k] as f64 * dt as f64;
        }
        self.last[k] = now;
    }

    /// A WG of `kernel` became resident at `now`.
    pub fn wg_start(&mut self, kernel: usize, now: Time) {
        self.settle(kernel, now);
        self.resident[kernel] += 1;
    }

    /// A WG of `kernel` that ran for `latency` ns completed at `now`.
    pub fn wg_end(&mut self, kernel: usize, now: Time, latency: Time) {
        self.settle(kernel, now);
        self.resident[kernel] -= 1;
        self.window[kernel] += 1;
        self.lat_sum[kernel] += latency as f64;
    }

    /// Closes the profiling epoch at `now`: refreshes every rate that saw completions.
    pub fn roll(&mut self, now: Time) {
        self.stale.copy_from_slice(&self.rate);
        for k in 0..self.rate.len() {
            self.settle(k, now);
            if self.window[k] > 0 && self.active_ns[k] > 0 && self.lat_sum[k] > 0.0 {
                let resident = self.integral[k] / self.active_ns[k] as f64;
                let latency = self.lat_sum[k] / self.window[k] as f64;
                self.rate[k] = resident / latency;
            }
            self.window[k] = 0;
            self.lat_sum[k] = 0.0;
            self.active_ns[k] = 0;
            self.integral[k] = 0.0;
        }
    }
}

/// Remaining time of a job (ns): Σ numWG / WGCompRate over its WGList (§6.2).
pub fn remaining_time(job: &Job, rates: &[f64]) -> f64 {
    job.wglist().map(|(k, n)| n as f64 / rates[k]).sum()
}

/// Algorithm 4 priority of one job (smaller is higher): laxity when the job is predicted to
/// meet its deadline, its predicted completion time otherwise, `INF` once the deadline passed.
pub fn laxity_priority(job: &Job, rates: &[f64], now: Time) -> f64 {
    let rem = remaining_time(job, rates);
    let dur = now.saturating_sub(job.arrival) as f64;
    let compl = rem + dur;
    let d = job.deadline as f64;
    let mut prio = if d > compl { d - compl } else { compl };
    if dur > d {
        prio = f64::INFINITY;
    }
    prio
}

/// What Algorithm 3 saw when it admitted or rejected a job (for tests and traces).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdmissionRecord {
    /// Job index.
    pub job: usize,
    /// Decision time (ns).
    pub now: Time,
    /// Remaining time of the admitted jobs ahead of it (ns).
    pub ahead: f64,
    /// Its own estimate (`holdJobTime`, ns).
    pub own: f64,
    /// Time since StartTime (ns).
    pub dur: f64,
    /// Relative deadline (ns).
    pub deadline: f64,
    /// Accepted?
    pub accepted: bool,
}

/// Algorithm 3 over the job queue `order` (insertion order; new jobs at the end). Jobs in `Init`
/// are admitted (`Ready`) or rejected; each decision is appended to `log`.
pub fn admit_by_queueing_delay(
    jobs: &mut [Job],
    order: &[usize],
    rates: &[f64],
    now: Time,
    log: &mut Vec<AdmissionRecord>,
) {
    let mut tot = 0.0;
    for &i in order {
        let job = &jobs[i];
        if !job.active() {
            continue;
        }
        let est = remaining_time(job, rates);
        if job.state != JobState::Init {
            tot += est;
            continue;
        }
        let dur = now.saturating_sub(job.arrival) as f64;
        let deadline = job.deadline as f64;
        let accepted = tot + est + dur < deadline;
        log.push(AdmissionRecord {
            job: i,
            now,
            ahead: tot,
            own: est,
            dur,
            deadline,
            accepted,
        });
        if accepted {
            jobs[i].state = JobState::Ready;
            tot += est;
        } else {
            jobs[i].state = JobState::Rejected;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(arrival: Time, deadline: Time, wgs: &[u32]) -> Job {
        let ks = wgs.iter().map(|&w| Launch { kernel: 0, wgs: w }).collect();
        Job::new(arrival, deadline, ks)
    }

    #[test]
    fn laxity_and_priority_follow_algorithm_4() {
        let rates = [0.01]; // 1 WG per 100 ns
        let j = job(0, 10_000, &[20, 30]); // 50 WGs -> 5000 ns remaining
        assert_eq!(remaining_time(&j, &rates), 5000.0);
        assert_eq!(laxity_priority(&j, &rates, 1000), 4000.0); // 10000 - (5000 + 1000)
        assert_eq!(laxity_priority(&j, &rates, 6000), 11000.0); // predicted miss: ComplTime
        assert_eq!(laxity_priority(&j, &rates, 10_001), f64::INFINITY);
    }

    #[test]
    fn admission_rejects_when_queue_ahead_is_too_long() {
        let rates = [0.01];
        let mut jobs = vec![
            job(0, 10_000, &[60]),
            job(0, 10_000, &[30]),
            job(0, 10_000, &[30]),
        ];
        jobs[0].state = JobState::Running; // 6000 ns ahead
        jobs[1].state = JobState::Init;
        jobs[2].state = JobState::Init;
        let mut log = Vec::new();
        admit_by_queueing_delay(&mut jobs, &[0, 1, 2], &rates, 0, &mut log);
        assert_eq!(jobs[1].state, JobState::Ready); // 6000 + 3000 < 10000
        assert_eq!(jobs[2].state, JobState::Rejected); // 9000 + 3000 >= 10000
        assert_eq!(log.len(), 2);
        assert_eq!(log[1].ahead, 9000.0);
    }

    #[test]
    fn profiling_keeps_last_nonzero_rate() {
        let g = GpuConfig::default();
        let k = KernelCost {
            wg_threads: 256,
            wgs: 4,
            vgprs: 16,
            lds_bytes: 0,
            wg_ns: 1000,
            bw: 0.0,
        };
        let mut p = ProfilingTable::seeded(&g, &[&k]);
        assert!((p.rate[0] - 80.0 / 1000.0).abs() < 1e-12); // 10 WGs/CU x 8 CUs per µs
                                                            // 4 WGs resident from 10 µs to 50 µs (latency 40 µs each): rate = 4 / 40 µs.
        for _ in 0..4 {
            p.wg_start(0, 10_000);
        }
        for _ in 0..4 {
            p.wg_end(0, 50_000, 40_000);
        }
        p.roll(100_000);
        assert!((p.rate[0] - 4.0 / 40_000.0).abs() < 1e-15);
        p.roll(200_000); // no completion: keep the last rate
        assert!((p.rate[0] - 4.0 / 40_000.0).abs() < 1e-15);
    }
}
