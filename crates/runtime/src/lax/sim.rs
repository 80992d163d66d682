//! The WG-level discrete-event simulation of a GPU running latency-sensitive jobs (§6.2 of the
//! digest): host, command processor, WG dispatcher, compute units and the contention model.
//!
//! - **Host.** CP policies enqueue a whole job on its stream at arrival. CPU-side policies pay
//!   their per-job cost, decide admission on the host, may hold jobs back, and launch each kernel
//!   themselves (4 µs round trip); BAT fuses launches of the same kernel into batches.
//! - **Command processor.** Streams with new work are inspected 4 at a time every 2 µs. For CP
//!   policies the inspected job enters the Job Table in `init` and goes through admission.
//! - **Dispatcher.** Ready kernels are ordered by the policy key, ties oldest-first; the dispatcher
//!   issues as many WGs of the first kernel as fit, then moves to the next, until no WG fits.
//!   Kernel `k+1` of a job becomes ready only when kernel `k` has completed. No preemption.
//! - **Contention.** All resident WGs share DRAM bandwidth in a processor-sharing server: each
//!   progresses at `1 / max(1, Σ bw)` of its isolated speed, so measured completion rates depend
//!   on what else is resident.
//! - **Epochs.** Every 100 µs the Kernel Profiling Table closes a window and dynamic policies
//!   recompute their keys.

use crate::engine::{EventQueue, PsServer, Time};
use crate::lax::gpu::{Cus, GpuConfig, WgFootprint};
use crate::lax::policy::{HostCosts, Policy, View};
use crate::lax::tables::{AdmissionRecord, Job, JobState, ProfilingTable};
use crate::lax::workload::{JobSpec, KernelCost};
use std::collections::{BTreeMap, VecDeque};

#[derive(Debug, Clone, Copy)]
enum Ev {
    Arrive(usize),
    HostDone(usize),
    Launch(usize),
    BatchWindow,
    CpTick,
    Epoch,
    Rekey,
}

#[derive(Debug, Clone, Copy)]
enum Parse {
    Stream(usize),
    Launch(usize),
}

#[derive(Debug, Clone)]
struct Group {
    kernel: usize,
    members: Vec<usize>,
    total: u32,
    dispatched: u32,
    done: u32,
    stamp: u64,
    key: f64,
}

#[derive(Debug, Clone, Copy)]
struct KernelRt {
    fp: WgFootprint,
    wg_ns: f64,
    bw: f64,
    nj_per_wg: f64,
}

/// Everything a run produced.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Final state of every job.
    pub jobs: Vec<Job>,
    /// Every admission decision (LAX-family, BAY).
    pub admissions: Vec<AdmissionRecord>,
    /// Time of the last event (ns).
    pub end: Time,
    /// Total energy (static + dynamic), nJ.
    pub energy_nj: f64,
    /// Completed WGs.
    pub wgs_completed: f64,
}

/// One simulation of a job set under one policy.
pub struct LaxSim<'p> {
    gpu: GpuConfig,
    host: HostCosts,
    policy: &'p mut dyn Policy,
    krt: Vec<KernelRt>,
    jobs: Vec<Job>,
    q: EventQueue<Ev>,
    server: PsServer,
    cus: Cus,
    groups: Vec<Group>,
    active: Vec<usize>,
    order_dirty: bool,
    need_dispatch: bool,
    wgs: Vec<(usize, usize, Time)>,
    free_wgs: Vec<usize>,
    parse_q: VecDeque<Parse>,
    tick_pending: bool,
    host_wait: Vec<usize>,
    in_flight: usize,
    pool: Vec<usize>,
    window_pending: bool,
    job_order: Vec<usize>,
    prof: ProfilingTable,
    stamp: u64,
    now: Time,
    admissions: Vec<AdmissionRecord>,
    dyn_nj: f64,
    wgs_completed: f64,
    terminal: usize,
}

impl<'p> LaxSim<'p> {
    /// Prepares a run of `specs` (kernel ids index `kernels`) under `policy`.
    pub fn new(
        gpu: GpuConfig,
        kernels: &[&KernelCost],
        specs: &[JobSpec],
        policy: &'p mut dyn Policy,
    ) -> Self {
        let krt = kernels
            .iter()
            .map(|k| {
                let fp = gpu.footprint(k.wg_threads, k.vgprs, k.lds_bytes);
                KernelRt {
                    fp,
                    wg_ns: k.wg_ns as f64,
                    bw: k.bw,
                    nj_per_wg: gpu.nj_per_wf_us * fp.wf as f64 * k.wg_ns as f64 / 1000.0,
                }
            })
            .collect();
        let prof = ProfilingTable::seeded(&gpu, kernels);
        let jobs: Vec<Job> = specs
            .iter()
            .map(|s| Job::new(s.arrival, s.deadline, s.kernels.clone()))
            .collect();
        let mut q = EventQueue::new();
        for (i, s) in specs.iter().enumerate() {
            q.push(s.arrival, Ev::Arrive(i));
        }
        q.push(0, Ev::Epoch);
        let host = policy.host();
        Self {
            cus: Cus::new(&gpu),
            gpu,
            host,
            policy,
            krt,
            jobs,
            q,
            server: PsServer::new(1.0),
            groups: Vec::new(),
            active: Vec::new(),
            order_dirty: false,
            need_dispatch: false,
            wgs: Vec::new(),
            free_wgs: Vec::new(),
            parse_q: VecDeque::new(),
            tick_pending: false,
            host_wait: Vec::new(),
            in_flight: 0,
            pool: Vec::new(),
            window_pending: false,
            job_order: Vec::new(),
            prof,
            stamp: 0,
            now: 0,
            admissions: Vec::new(),
            dyn_nj: 0.0,
            wgs_completed: 0.0,
            terminal: 0,
        }
    }

    fn cp_side(&self) -> bool {
        self.host.per_kernel == 0
    }

    /// Calls `f` with the policy and what it may read now.
    fn consult<R>(&mut self, f: impl FnOnce(&mut dyn Policy, &View) -> R) -> R {
        let view = View {
            now: self.now,
            jobs: &self.jobs,
            prof: &self.prof,
            gpu: &self.gpu,
            in_flight: self.in_flight,
        };
        f(&mut *self.policy, &view)
    }

    fn key_of(&mut self, job: usize) -> f64 {
        self.consult(|p, view| p.key(view, job))
    }

    /// Runs to completion.
    pub fn run(mut self) -> Outcome {
        let first = self.jobs.iter().map(|j| j.arrival).min().unwrap_or(0);
        loop {
            let te = self.q.peek_time();
            let tw = self.server.next_finish();
            match (te, tw) {
                (None, None) => break,
                (Some(t), Some(w)) if w <= t => self.complete_wg(w),
                (None, Some(w)) => self.complete_wg(w),
                (Some(_), _) => {
                    let (t, ev) = self.q.pop().expect("peeked");
                    self.now = t;
                    self.handle(ev);
                }
            }
            if self.need_dispatch {
                self.dispatch();
            }
        }
        let static_nj = self.gpu.static_w * self.now.saturating_sub(first) as f64;
        Outcome {
            jobs: self.jobs,
            admissions: self.admissions,
            end: self.now,
            energy_nj: static_nj + self.dyn_nj,
            wgs_completed: self.wgs_completed,
        }
    }

    fn handle(&mut self, ev: Ev) {
        match ev {
            Ev::Arrive(j) => {
                if self.cp_side() {
                    self.parse_q.push_back(Parse::Stream(j));
                    self.ensure_tick();
                } else {
                    self.q.push(self.now + self.host.per_job, Ev::HostDone(j));
                }
            }
            Ev::HostDone(j) => {
                self.jobs[j].state = JobState::Init;
                self.job_order.push(j);
                self.run_admission();
                if self.jobs[j].state == JobState::Ready {
                    self.host_wait.push(j);
                    self.try_issue();
                }
            }
            Ev::Launch(j) => {
                let g = self.new_group(self.jobs[j].kernels[self.jobs[j].next].kernel, vec![j]);
                self.parse_q.push_back(Parse::Launch(g));
                self.ensure_tick();
            }
            Ev::BatchWindow => {
                self.window_pending = false;
                let mut by_kernel: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
                for j in self.pool.drain(..) {
                    let k = self.jobs[j].kernels[self.jobs[j].next].kernel;
                    by_kernel.entry(k).or_default().push(j);
                }
                for (k, members) in by_kernel {
                    let g = self.new_group(k, members);
                    self.parse_q.push_back(Parse::Launch(g));
                }
                self.ensure_tick();
            }
            Ev::CpTick => self.cp_tick(),
            Ev::Epoch => {
                self.prof.roll(self.now);
                self.consult(|p, view| p.on_epoch(view));
                match self.policy.rekey_delay() {
                    Some(0) => self.rekey(),
                    Some(d) => self.q.push(self.now + d, Ev::Rekey),
                    None => {}
                }
                if self.terminal < self.jobs.len() {
                    self.q.push(self.now + self.gpu.epoch, Ev::Epoch);
                }
            }
            Ev::Rekey => self.rekey(),
        }
    }

    fn ensure_tick(&mut self) {
        if !self.tick_pending && !self.parse_q.is_empty() {
            let p = self.gpu.cp_period;
            let at = self.now.div_ceil(p) * p;
            self.q.push(at, Ev::CpTick);
            self.tick_pending = true;
        }
    }

    fn cp_tick(&mut self) {
        self.tick_pending = false;
        let mut new_jobs = false;
        for _ in 0..self.gpu.cp_streams {
            match self.parse_q.pop_front() {
                Some(Parse::Stream(j)) => {
                    self.jobs[j].state = JobState::Init;
                    self.job_order.push(j);
                    new_jobs = true;
                }
                Some(Parse::Launch(g)) => self.activate(g),
                None => break,
            }
        }
        if new_jobs {
            let before: Vec<usize> = self
                .job_order
                .iter()
                .copied()
                .filter(|&j| self.jobs[j].state == JobState::Init)
                .collect();
            self.run_admission();
            for j in before {
                if self.jobs[j].state == JobState::Ready {
                    self.in_flight += 1;
                    let g = self.new_group(self.jobs[j].kernels[0].kernel, vec![j]);
                    self.activate(g);
                }
            }
        }
        if !self.parse_q.is_empty() {
            self.q.push(self.now + self.gpu.cp_period, Ev::CpTick);
            self.tick_pending = true;
        }
    }

    fn run_admission(&mut self) {
        self.job_order.retain(|&j| self.jobs[j].active());
        let order = std::mem::take(&mut self.job_order);
        let before = self.admissions.len();
        self.policy.admit(
            &mut self.jobs,
            &order,
            self.now,
            &self.prof,
            &mut self.admissions,
        );
        for r in &self.admissions[before..] {
            if !r.accepted {
                self.terminal += 1;
            }
        }
        self.job_order = order;
        self.job_order.retain(|&j| self.jobs[j].active());
    }

    fn try_issue(&mut self) {
        while !self.host_wait.is_empty() {
            // smallest key first among the jobs held on the host
            let mut best = 0;
            let mut best_key = f64::INFINITY;
            for (i, &j) in self.host_wait.clone().iter().enumerate() {
                let k = self.key_of(j);
                if i == 0 || k < best_key {
                    best = i;
                    best_key = k;
                }
            }
            let j = self.host_wait[best];
            let limit = self.consult(|p, view| p.max_in_flight(view, j));
            if limit.is_some_and(|l| self.in_flight >= l) {
                return;
            }
            self.host_wait.remove(best);
            self.in_flight += 1;
            self.need_kernel(j);
        }
    }

    fn need_kernel(&mut self, j: usize) {
        if self.host.batching {
            self.pool.push(j);
            if !self.window_pending {
                self.window_pending = true;
                self.q
                    .push(self.now + self.host.per_kernel, Ev::BatchWindow);
            }
        } else {
            self.q.push(self.now + self.host.per_kernel, Ev::Launch(j));
        }
    }

    fn new_group(&mut self, kernel: usize, members: Vec<usize>) -> usize {
        let total = members.iter().map(|&j| self.jobs[j].cur_left).sum();
        self.groups.push(Group {
            kernel,
            members,
            total,
            dispatched: 0,
            done: 0,
            stamp: 0,
            key: 0.0,
        });
        self.groups.len() - 1
    }

    fn activate(&mut self, g: usize) {
        self.stamp += 1;
        let lead = self.groups[g].members[0];
        let key = self.key_of(lead);
        let grp = &mut self.groups[g];
        grp.stamp = self.stamp;
        grp.key = key;
        for &j in &grp.members {
            self.jobs[j].state = JobState::Ready;
            self.jobs[j].prio = key;
        }
        self.active.push(g);
        self.order_dirty = true;
        self.need_dispatch = true;
    }

    fn rekey(&mut self) {
        for idx in 0..self.active.len() {
            let g = self.active[idx];
            let lead = self.groups[g].members[0];
            let key = self.key_of(lead);
            self.groups[g].key = key;
            self.jobs[lead].prio = key;
        }
        self.order_dirty = true;
        self.need_dispatch = true;
    }

    fn dispatch(&mut self) {
        self.need_dispatch = false;
        if self.order_dirty {
            let groups = &self.groups;
            self.active.sort_by(|&a, &b| {
                let (ga, gb) = (&groups[a], &groups[b]);
                ga.key.total_cmp(&gb.key).then(ga.stamp.cmp(&gb.stamp))
            });
            self.order_dirty = false;
        }
        for idx in 0..self.active.len() {
            if self.cus.full() {
                break;
            }
            let g = self.active[idx];
            let rt = self.krt[self.groups[g].kernel];
            while self.groups[g].dispatched < self.groups[g].total {
                let Some(cu) = self.cus.place(rt.fp) else {
                    break;
                };
                let id = match self.free_wgs.pop() {
                    Some(id) => {
                        self.wgs[id] = (g, cu, self.now);
                        id
                    }
                    None => {
                        self.wgs.push((g, cu, self.now));
                        self.wgs.len() - 1
                    }
                };
                self.server.enter(self.now, id, rt.wg_ns, rt.bw);
                self.prof.wg_start(self.groups[g].kernel, self.now);
                self.groups[g].dispatched += 1;
            }
            if self.groups[g].dispatched == self.groups[g].total {
                for &j in &self.groups[g].members {
                    self.jobs[j].state = JobState::Running;
                }
            }
        }
    }

    fn complete_wg(&mut self, at: Time) {
        self.now = at;
        let wgs = &self.wgs;
        let groups = &self.groups;
        let krt = &self.krt;
        let id = self
            .server
            .finish_next(at, |id| krt[groups[wgs[id].0].kernel].bw)
            .expect("a resident WG");
        let (g, cu, started) = self.wgs[id];
        self.free_wgs.push(id);
        let rt = self.krt[self.groups[g].kernel];
        self.cus.release(cu, rt.fp);
        self.need_dispatch = true;
        self.prof.wg_end(self.groups[g].kernel, at, at - started);
        self.dyn_nj += rt.nj_per_wg;
        self.wgs_completed += 1.0;
        let grp = &mut self.groups[g];
        grp.done += 1;
        if grp.members.len() == 1 {
            let j = grp.members[0];
            self.jobs[j].cur_left -= 1;
            self.jobs[j].wgs_done += 1.0;
            self.jobs[j].energy_nj += rt.nj_per_wg;
        }
        if grp.done < grp.total {
            return;
        }
        // kernel (group) complete
        let members = std::mem::take(&mut self.groups[g].members);
        let total = self.groups[g].total as f64;
        self.active.retain(|&x| x != g);
        let share = total / members.len() as f64;
        for &j in &members {
            let job = &mut self.jobs[j];
            if members.len() > 1 {
                job.wgs_done += share;
                job.energy_nj += share * rt.nj_per_wg;
            }
            job.next += 1;
            if job.next == job.kernels.len() {
                job.state = JobState::Done;
                job.finish = Some(self.now);
                job.cur_left = 0;
                self.in_flight -= 1;
                self.terminal += 1;
            } else {
                job.cur_left = job.kernels[job.next].wgs;
                job.state = JobState::Ready;
                if self.cp_side() {
                    let g2 =
                        self.new_group(self.jobs[j].kernels[self.jobs[j].next].kernel, vec![j]);
                    self.activate(g2);
                } else {
                    self.need_kernel(j);
                }
            }
        }
        if !self.cp_side() {
            self.try_issue();
        }
    }
}
