//! The runs of `experiment frame` and their parallel execution (deterministic: every run is
//! independent and seeded, results are kept in plan order whatever the thread count).

use std::collections::BTreeMap;
use std::sync::Mutex;

use anyhow::{anyhow, bail, Result};
use warpforge_gfx::mem::Ideal;
use warpforge_gfx::mix::{self, MixResult, MixRun};
use warpforge_gfx::pipeline::memif::Marking;
use warpforge_gfx::sim::RunOpts;
use warpforge_gfx::title::{self, Title, TITLES};

use super::FrameArgs;
use crate::cmd::experiment::hetero::Seeds;

/// The 4-way CPU mixes of title number `i` (`warpforge_gfx::mix::cpu_mixes`): HL first.
pub fn mixes(i: usize) -> [(&'static str, [&'static str; 4]); 3] {
    mix::cpu_mixes(i)
}

/// The policies compared with FR-FCFS (claims 7-14), in report order; `im_sched` and `im_llc`
/// are IM's two halves alone (the decomposition of claim 8, spec §5.4).
pub const POLICIES: [&str; 9] = [
    "gpu_favoring",
    "im",
    "im_sched",
    "im_llc",
    "sms_09",
    "sms_0",
    "dynprio",
    "dash",
    "helm",
];

/// The policies also run on the titles above the FPS target (GPU-favoring and IM: what IM does
/// where the estimator says the GPU meets its target, spec §10.4 item 22).
pub const ABOVE_TARGET_POLICIES: [&str; 2] = ["gpu_favoring", "im"];

/// What a run is for.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// FR-FCFS, algorithm marking (16 MB).
    Base,
    /// FR-FCFS with the critical accesses ideal in the LLC.
    IdealCritical,
    /// FR-FCFS with the non-critical accesses ideal.
    IdealNonCritical,
    /// IM with random marking.
    RandomIm,
    /// A compared policy.
    Policy(String),
    /// 8 MB LLC under a policy (`frfcfs` or `im`).
    Llc8(String),
}

/// One planned run.
#[derive(Clone, Debug)]
pub struct Job {
    /// Purpose.
    pub kind: Kind,
    /// The title.
    pub title: Title,
    /// The CPU mix's name (HL, H, L).
    pub mix: &'static str,
    /// The run.
    pub run: MixRun,
    /// The seed of its random draws (`policy.seed`, and the random marking's): one of
    /// [`Plan::seeds`]; a run without draws has the first.
    pub seed: u64,
}

/// The experiment plan.
pub struct Plan {
    /// Size name.
    pub size: String,
    /// Frame scale and frame counts.
    pub opts: RunOpts,
    /// Titles run.
    pub titles: Vec<Title>,
    /// Policies compared.
    pub policies: Vec<String>,
    /// CPU mixes per title (1: HL only; 3: HL, H, L).
    pub mixes: usize,
    /// CPU cycles of the stand-alone runs that give each application's alone IPC.
    pub alone_cycles: u64,
    /// Extra `key=value` settings of every run's machine configuration (`--set`).
    pub sets: Vec<String>,
    /// The seeds of the runs with random draws (`--seeds N`): `policy.seed` s, s+1, ...,
    /// s+N-1 with s the configured one (the preset's 1 or `--set policy.seed=s`), and per
    /// policy run by the plan whether it draws random numbers.
    pub seeds: Seeds,
}

impl Plan {
    /// The plan of the arguments; errors name the bad value.
    pub fn new(a: &FrameArgs) -> Result<Plan> {
        let Some(mut opts) = RunOpts::sized(&a.size) else {
            bail!("unknown --size `{}` (expected tiny or small)", a.size);
        };
        match a.max_frame_cycles {
            Some(0) => bail!("--max-frame-cycles 0: a frame needs at least 1 GPU cycle"),
            Some(n) => opts.max_frame_cycles = n,
            None => {}
        }
        let mixes = if a.size == "tiny" { 1 } else { 3 };
        let titles = if a.titles.is_empty() {
            TITLES.to_vec()
        } else {
            a.titles
                .iter()
                .map(|n| {
                    title::by_name(n).copied().ok_or_else(|| {
                        let all: Vec<&str> = TITLES.iter().map(|t| t.name).collect();
                        anyhow!(
                            "unknown title `{n}` in --titles (known: {})",
                            all.join(", ")
                        )
                    })
                })
                .collect::<Result<_>>()?
        };
        let known = warpforge_hetero::policy::names();
        let policies: Vec<String> = if a.policy.is_empty() {
            POLICIES.iter().map(|s| s.to_string()).collect()
        } else {
            a.policy.clone()
        };
        for p in &policies {
            if !known.iter().any(|k| k == p) {
                bail!(
                    "unknown policy `{p}` in --policy (known: {})",
                    known.join(", ")
                );
            }
        }
        // A bad key or value is refused before anything runs (the same configuration every
        // run builds, with the settings applied last).
        for (i, s) in a.sets.iter().enumerate() {
            let mut pipe = opts.cfg.clone();
            let machine = warpforge_gfx::mix::apply_gfx_sets(&a.sets[..=i], &mut pipe)
                .map_err(|e| anyhow!("--set {s}: {e}"))?;
            warpforge_gfx::mix::config(16384, "frfcfs", opts.mem_div, 1, &machine)
                .map_err(|e| anyhow!("--set {s}: {e}"))?;
        }
        let machine = warpforge_gfx::mix::apply_gfx_sets(&a.sets, &mut opts.cfg.clone())
            .map_err(|e| anyhow!("--set {e}"))?;
        let draws_of = |p: &str| -> Result<bool> {
            let c = warpforge_gfx::mix::config(16384, p, opts.mem_div, 1, &machine)
                .map_err(|e| anyhow!("--policy {p}: {e}"))?;
            Ok(warpforge_hetero::policy::draws_random(&c.policy))
        };
        let mut draws = BTreeMap::new();
        for p in policies.iter().map(String::as_str).chain(["frfcfs", "im"]) {
            draws.insert(p.to_string(), draws_of(p)?);
        }
        let s0 = warpforge_gfx::mix::config(16384, "frfcfs", opts.mem_div, 1, &machine)
            .map_err(|e| anyhow!("--set {e}"))?
            .policy
            .seed;
        let seeds = Seeds::new(s0, a.seeds, draws)?;
        Ok(Plan {
            seeds,
            sets: a.sets.clone(),
            size: a.size.clone(),
            opts,
            titles,
            policies,
            mixes,
            alone_cycles: 2_000_000,
        })
    }

    /// Whether runs of `kind` draw random numbers: a drawing policy's runs (compared, above
    /// target, 8 MB) and random marking (its marking draws, and IM's).
    pub fn draws(&self, kind: &Kind) -> bool {
        match kind {
            Kind::Base | Kind::IdealCritical | Kind::IdealNonCritical => false,
            Kind::RandomIm => true,
            Kind::Policy(p) | Kind::Llc8(p) => self.seeds.draws(p),
        }
    }

    /// The seeds the runs of `kind` are made with: every seed if they draw, else the first.
    pub fn seeds_of(&self, kind: &Kind) -> &[u64] {
        self.seeds.for_runs(self.draws(kind))
    }

    /// The seed of the run of `kind` that stands for seed `s`.
    pub fn run_seed(&self, kind: &Kind, s: u64) -> u64 {
        self.seeds.stand_in(self.draws(kind), s)
    }

    /// The mixes of title `t` run by this plan.
    pub fn mixes_of(&self, t: &Title) -> Vec<(&'static str, [&'static str; 4])> {
        let i = TITLES.iter().position(|x| x.name == t.name).unwrap_or(0);
        mixes(i).into_iter().take(self.mixes).collect()
    }

    /// The run of `kind` with seed `seed` (a run without draws ignores it and gets the first).
    fn job(
        &self,
        kind: Kind,
        t: &Title,
        mix: (&'static str, [&'static str; 4]),
        policy: &str,
        llc_kb: u64,
        seed: u64,
    ) -> Job {
        let seed = self.run_seed(&kind, seed);
        let (marking, ideal) = match kind {
            Kind::IdealCritical => (Marking::Algorithm, Some(Ideal::Critical)),
            Kind::IdealNonCritical => (Marking::Algorithm, Some(Ideal::NonCritical)),
            _ => (Marking::Algorithm, None),
        };
        let mut opts = self.opts.clone();
        if ideal.is_some() {
            // Claim 3 idealises the baseline's classification: the frame-rate gate is held at
            // the title's side of the target, so that a faster frame does not turn every access
            // non-critical (and ideal) or every critical access off.
            opts.cfg.held_gate = Some(t.below_target());
        }
        let mut sets = self.sets.clone();
        if self.draws(&kind) {
            // The policy's draws, after `--set` (whose `policy.seed` is the first seed), and the
            // random marking's (`pipeline::Config::seed`, 1 until session 23, now the policy's
            // seed: the preset's seed 1 gives the same runs).
            sets.push(format!("policy.seed={seed}"));
            if kind == Kind::RandomIm {
                opts.cfg.seed = seed;
            }
        }
        Job {
            seed,
            kind,
            title: *t,
            mix: mix.0,
            run: MixRun {
                title: *t,
                policy: policy.to_string(),
                llc_kb,
                marking,
                ideal,
                opts,
                cpu: mix.1.to_vec(),
                sets,
                // The CPU streams' seed (the workload, the same in every run).
                seed: 11,
            },
        }
    }

    /// The titles below the 40-FPS target in the document (the evaluated set of Figs. 8-14).
    pub fn low(&self) -> impl Iterator<Item = &Title> {
        self.titles.iter().filter(|t| t.below_target())
    }

    /// Runs the plan: the alone IPCs, the baselines and every other run in one pool of `jobs`
    /// threads, the longest runs first ([`cost`]); a random-marking run (which needs its
    /// baseline's per-stream critical fractions) becomes ready when its baseline completes.
    /// Every run is independent and seeded, so the results (kept in plan order) do not depend
    /// on the order or the thread count.
    pub fn execute(&self, jobs: usize) -> Result<Outcome> {
        // Alone IPCs (weighted-speedup denominators) of every application in a mix, per LLC size.
        let mut apps: Vec<(&'static str, u64)> = Vec::new();
        for t in &self.titles {
            for (_, m) in self.mixes_of(t) {
                for a in m {
                    for llc in [16384, 8192] {
                        if !apps.contains(&(a, llc)) {
                            apps.push((a, llc));
                        }
                    }
                }
            }
        }
        let mut base = Vec::new();
        for t in &self.titles {
            for m in self.mixes_of(t) {
                base.push(self.job(Kind::Base, t, m, "frfcfs", 16384, self.seeds.list[0]));
            }
        }
        // The other runs, with the index in `base` of the baseline a random-marking run waits for.
        let mut rest = Vec::new();
        let mut deps: Vec<Option<usize>> = Vec::new();
        for (bi, j) in base.iter().enumerate() {
            if !j.title.below_target() {
                for p in ABOVE_TARGET_POLICIES {
                    if self.policies.iter().any(|x| x == p) {
                        let m = (j.mix, j.run.cpu.clone().try_into().expect("4 CPU cores"));
                        let k = Kind::Policy(p.into());
                        for &s in self.seeds_of(&k) {
                            rest.push(self.job(k.clone(), &j.title, m, p, 16384, s));
                            deps.push(None);
                        }
                    }
                }
                continue;
            }
            let t = &j.title;
            let mix = (
                j.mix,
                self.mixes_of(t)
                    .into_iter()
                    .find(|m| m.0 == j.mix)
                    .expect("planned mix")
                    .1,
            );
            for p in &self.policies {
                let k = Kind::Policy(p.clone());
                for &s in self.seeds_of(&k) {
                    rest.push(self.job(k.clone(), t, mix, p, 16384, s));
                    deps.push(None);
                }
            }
            for p in ["frfcfs", "im"] {
                let k = Kind::Llc8(p.into());
                for &s in self.seeds_of(&k) {
                    rest.push(self.job(k.clone(), t, mix, p, 8192, s));
                    deps.push(None);
                }
            }
            if j.mix != "HL" {
                continue;
            }
            // Claims 3 and 5 on the HL mix only.
            let s0 = self.seeds.list[0];
            rest.push(self.job(Kind::IdealCritical, t, mix, "frfcfs", 16384, s0));
            rest.push(self.job(Kind::IdealNonCritical, t, mix, "frfcfs", 16384, s0));
            deps.extend([None, None]);
            for &s in self.seeds_of(&Kind::RandomIm) {
                rest.push(self.job(Kind::RandomIm, t, mix, "im", 16384, s));
                deps.push(Some(bi));
            }
        }
        // One pool: tasks 0..A are the alone runs, then the baselines, then the rest.
        let (na, nb) = (apps.len(), base.len());
        let task_cost = |i: usize| {
            if i < na {
                0.0
            } else if i < na + nb {
                cost(&base[i - na])
            } else {
                cost(&rest[i - na - nb])
            }
        };
        let mut ready: Vec<usize> = (0..na + nb + rest.len())
            .filter(|&i| i < na + nb || deps[i - na - nb].is_none())
            .collect();
        // Popped from the back: the costliest last, ties in reverse plan order.
        ready.sort_by(|&a, &b| task_cost(a).total_cmp(&task_cost(b)).then(b.cmp(&a)));
        let pool = Pool {
            ready: Mutex::new((ready, 0)),
            wake: std::sync::Condvar::new(),
        };
        let total = na + nb + rest.len();
        let alone_out: Mutex<Vec<Option<Result<f64, String>>>> = Mutex::new(vec![None; na]);
        let run_out: Mutex<Vec<Slot<(MixResult, f64)>>> =
            Mutex::new((0..nb + rest.len()).map(|_| None).collect());
        let random: Mutex<Vec<Option<Job>>> = Mutex::new(vec![None; rest.len()]);
        std::thread::scope(|s| {
            for _ in 0..jobs.min(total).max(1) {
                s.spawn(|| {
                    while let Some(i) = pool.next(total) {
                        if i < na {
                            let (a, llc) = apps[i];
                            let r =
                                mix::alone_ipc(a, llc, self.opts.mem_div, self.alone_cycles, 11);
                            alone_out.lock().expect("no panic while holding the lock")[i] = Some(r);
                            pool.done(&[]);
                            continue;
                        }
                        let k = i - na;
                        let job = if k < nb {
                            base[k].clone()
                        } else {
                            let r = random.lock().expect("no panic while holding the lock")[k - nb]
                                .take();
                            r.unwrap_or_else(|| rest[k - nb].clone())
                        };
                        let r = run_one(&job);
                        // The random-marking runs of this baseline become ready.
                        let mut newly = Vec::new();
                        if k < nb {
                            for (ri, d) in deps.iter().enumerate() {
                                if *d != Some(k) {
                                    continue;
                                }
                                let mut j = rest[ri].clone();
                                if let Ok((b, _)) = &r {
                                    j.run.marking = Marking::Random(random_marking(b));
                                }
                                random.lock().expect("no panic while holding the lock")[ri] =
                                    Some(j);
                                newly.push(na + nb + ri);
                            }
                        }
                        run_out.lock().expect("no panic while holding the lock")[k] = Some(r);
                        pool.done(&newly);
                    }
                });
            }
        });
        let alone = alone_out
            .into_inner()
            .expect("threads joined")
            .into_iter()
            .enumerate()
            .map(|(i, r)| collect(i, r))
            .collect::<Result<Vec<f64>>>()?;
        let alone = apps.into_iter().zip(alone).collect();
        let results = run_out
            .into_inner()
            .expect("threads joined")
            .into_iter()
            .enumerate()
            .map(|(i, r)| collect(na + i, r))
            .collect::<Result<Vec<(MixResult, f64)>>>()?;
        let mut random = random.into_inner().expect("threads joined");
        let jobs_in_order = base.into_iter().chain(
            rest.into_iter()
                .enumerate()
                .map(|(i, j)| random[i].take().unwrap_or(j)),
        );
        let (runs, cpu_s) = jobs_in_order
            .zip(results)
            .map(|(j, (r, s))| ((j, r), s))
            .unzip();
        Ok(Outcome { runs, cpu_s, alone })
    }
}

/// A pool task's result, `None` until it ran.
type Slot<R> = Option<Result<R, String>>;

/// The result of pool task `i`, or an error naming it.
fn collect<R>(i: usize, r: Option<Result<R, String>>) -> Result<R> {
    match r {
        Some(Ok(r)) => Ok(r),
        Some(Err(e)) => Err(anyhow!("run {i}: {e}")),
        None => Err(anyhow!("run {i} did not complete")),
    }
}

/// The per-stream marking probabilities of a random-marking run: the baseline's critical
/// fraction of each stream's accesses (claim 5).
fn random_marking(b: &MixResult) -> [f64; 8] {
    let c = &b.counts;
    std::array::from_fn(|s| {
        let n = c.reads[s] + c.writes[s];
        if n == 0 {
            0.0
        } else {
            c.critical[s] as f64 / n as f64
        }
    })
}

/// The relative cost of a run, for ordering only: simulated GPU cycles grow with the title's
/// frame time, 1 / Table 2's FPS (GT1 and Crysis, the slowest titles, run first, so that no
/// long run starts last on a few cores). Alone runs (cost 0) fill in at the end.
fn cost(j: &Job) -> f64 {
    1.0 / j.title.doc_fps.max(0.1)
}

/// The ready queue of [`Plan::execute`]: task indices (costliest at the back) and the number
/// of tasks finished.
struct Pool {
    ready: Mutex<(Vec<usize>, usize)>,
    wake: std::sync::Condvar,
}

impl Pool {
    /// The next task to run, waiting while none is ready but some still run; `None` when all
    /// `total` are done or none can become ready.
    fn next(&self, total: usize) -> Option<usize> {
        let mut g = self.ready.lock().expect("no panic while holding the lock");
        loop {
            if let Some(i) = g.0.pop() {
                return Some(i);
            }
            if g.1 >= total {
                return None;
            }
            g = self.wake.wait(g).expect("no panic while holding the lock");
        }
    }

    /// A task finished; `newly` became ready (inserted by cost like the initial queue: they
    /// are random-marking runs, pushed to the back so they start next).
    fn done(&self, newly: &[usize]) {
        let mut g = self.ready.lock().expect("no panic while holding the lock");
        g.0.extend_from_slice(newly);
        g.1 += 1;
        self.wake.notify_all();
    }
}

/// The results of a plan.
pub struct Outcome {
    /// Every run with its result, in plan order.
    pub runs: Vec<(Job, MixResult)>,
    /// CPU seconds of each run (`runs`' order; the run time, not a statistic: 0 where the OS
    /// does not report a thread's CPU time).
    pub cpu_s: Vec<f64>,
    /// Alone IPC per (application, full-size LLC KB).
    pub alone: Vec<((&'static str, u64), f64)>,
}

impl Outcome {
    /// The alone IPC of `app` with an LLC of `llc_kb`.
    pub fn alone(&self, app: &str, llc_kb: u64) -> Option<f64> {
        self.alone
            .iter()
            .find(|((a, l), _)| *a == app && *l == llc_kb)
            .map(|(_, v)| *v)
    }
}

/// CPU seconds used so far by the calling thread (Linux `/proc/thread-self/schedstat`; 0
/// elsewhere).
fn thread_cpu_s() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |ns| ns / 1e9)
}

/// Runs one job; its result with the run's CPU seconds.
fn run_one(j: &Job) -> Result<(MixResult, f64), String> {
    let t0 = thread_cpu_s();
    let r = mix::run(&j.run)?;
    let s = thread_cpu_s() - t0;
    let ipc: Vec<String> = r.cpu_ipc.iter().map(|x| format!("{x:.4}")).collect();
    eprintln!(
        "frame: {} {} {:?} done ({s:.1} CPU-s, {:.2} FPS, CPU IPC {})",
        j.title.name,
        j.mix,
        j.kind,
        r.fps,
        ipc.join("/")
    );
    Ok((r, s))
}
