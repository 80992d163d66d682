//! The runs of `experiment frame` and their parallel execution (deterministic: every run is
//! independent and seeded, results are kept in plan order whatever the thread count).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use anyhow::{anyhow, bail, Result};
use warpforge_gfx::mem::Ideal;
use warpforge_gfx::mix::{self, MixResult, MixRun};
use warpforge_gfx::pipeline::memif::Marking;
use warpforge_gfx::sim::RunOpts;
use warpforge_gfx::title::{self, Title, TITLES};

use super::FrameArgs;

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
}

impl Plan {
    /// The plan of the arguments; errors name the bad value.
    pub fn new(a: &FrameArgs) -> Result<Plan> {
        let Some(opts) = RunOpts::sized(&a.size) else {
            bail!("unknown --size `{}` (expected tiny or small)", a.size);
        };
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
        Ok(Plan {
            size: a.size.clone(),
            opts,
            titles,
            policies,
            mixes,
            alone_cycles: 2_000_000,
        })
    }

    /// The mixes of title `t` run by this plan.
    pub fn mixes_of(&self, t: &Title) -> Vec<(&'static str, [&'static str; 4])> {
        let i = TITLES.iter().position(|x| x.name == t.name).unwrap_or(0);
        mixes(i).into_iter().take(self.mixes).collect()
    }

    fn job(
        &self,
        kind: Kind,
        t: &Title,
        mix: (&'static str, [&'static str; 4]),
        policy: &str,
        llc_kb: u64,
    ) -> Job {
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
        Job {
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
                sets: Vec::new(),
                seed: 11,
            },
        }
    }

    /// The titles below the 40-FPS target in the document (the evaluated set of Figs. 8-14).
    pub fn low(&self) -> impl Iterator<Item = &Title> {
        self.titles.iter().filter(|t| t.below_target())
    }

    /// Runs the plan: alone IPCs, the baselines (random marking needs their per-stream
    /// critical fractions), then everything else. Results are in plan order.
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
        let alone = run_parallel(&apps, jobs, |&(a, llc)| {
            mix::alone_ipc(a, llc, self.opts.mem_div, self.alone_cycles, 11)
        })?;
        let alone = apps.into_iter().zip(alone).collect();
        let mut base = Vec::new();
        for t in &self.titles {
            for m in self.mixes_of(t) {
                base.push(self.job(Kind::Base, t, m, "frfcfs", 16384));
            }
        }
        let base_res = run_all(&base, jobs)?;
        let mut rest = Vec::new();
        for (j, b) in base.iter().zip(&base_res) {
            let b = &b.0;
            if !j.title.below_target() {
                for p in ABOVE_TARGET_POLICIES {
                    if self.policies.iter().any(|x| x == p) {
                        let m = (j.mix, j.run.cpu.clone().try_into().expect("4 CPU cores"));
                        rest.push(self.job(Kind::Policy(p.into()), &j.title, m, p, 16384));
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
                rest.push(self.job(Kind::Policy(p.clone()), t, mix, p, 16384));
            }
            for p in ["frfcfs", "im"] {
                rest.push(self.job(Kind::Llc8(p.into()), t, mix, p, 8192));
            }
            if j.mix != "HL" {
                continue;
            }
            // Claims 3 and 5 on the HL mix only.
            rest.push(self.job(Kind::IdealCritical, t, mix, "frfcfs", 16384));
            rest.push(self.job(Kind::IdealNonCritical, t, mix, "frfcfs", 16384));
            let mut r = self.job(Kind::RandomIm, t, mix, "im", 16384);
            let c = &b.counts;
            let p = std::array::from_fn(|s| {
                let n = c.reads[s] + c.writes[s];
                if n == 0 {
                    0.0
                } else {
                    c.critical[s] as f64 / n as f64
                }
            });
            r.run.marking = Marking::Random(p);
            rest.push(r);
        }
        let rest_res = run_all(&rest, jobs)?;
        let (runs, cpu_s) = base
            .into_iter()
            .zip(base_res)
            .chain(rest.into_iter().zip(rest_res))
            .map(|(j, (r, s))| ((j, r), s))
            .unzip();
        Ok(Outcome { runs, cpu_s, alone })
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

/// Runs `list` on `jobs` threads; results, with each run's CPU seconds, in list order.
fn run_all(list: &[Job], jobs: usize) -> Result<Vec<(MixResult, f64)>> {
    run_parallel(list, jobs, |j| {
        let t0 = thread_cpu_s();
        let r = mix::run(&j.run)?;
        let s = thread_cpu_s() - t0;
        eprintln!(
            "frame: {} {} {:?} done ({s:.1} CPU-s, {:.2} FPS)",
            j.title.name, j.mix, j.kind, r.fps
        );
        Ok((r, s))
    })
}

/// Applies `f` to every item on `jobs` threads; results in item order (independent of `jobs`).
fn run_parallel<T: Sync, R: Send>(
    list: &[T],
    jobs: usize,
    f: impl Fn(&T) -> Result<R, String> + Sync,
) -> Result<Vec<R>> {
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<Option<Result<R, String>>>> =
        Mutex::new((0..list.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..jobs.min(list.len()).max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = list.get(i) else { break };
                let r = f(item);
                out.lock().expect("no panic while holding the lock")[i] = Some(r);
            });
        }
    });
    out.into_inner()
        .expect("threads joined")
        .into_iter()
        .enumerate()
        .map(|(i, r)| match r {
            Some(Ok(r)) => Ok(r),
            Some(Err(e)) => Err(anyhow!("run {i}: {e}")),
            None => Err(anyhow!("run {i} did not complete")),
        })
        .collect()
}
