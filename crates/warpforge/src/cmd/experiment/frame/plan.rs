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

/// The policies compared with FR-FCFS (claims 7-14), in report order.
pub const POLICIES: [&str; 7] = [
    "gpu_favoring",
    "im",
    "sms_09",
    "sms_0",
    "dynprio",
    "dash",
    "helm",
];

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
}

impl Plan {
    /// The plan of the arguments; errors name the bad value.
    pub fn new(a: &FrameArgs) -> Result<Plan> {
        let (res_div, frames) = match a.size.as_str() {
            "tiny" => (16, 1),
            "small" => (8, 2),
            s => bail!("unknown --size `{s}` (expected tiny or small)"),
        };
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
        let opts = RunOpts {
            res_div,
            frames,
            ..RunOpts::default()
        };
        Ok(Plan {
            size: a.size.clone(),
            opts,
            titles,
            policies,
        })
    }

    fn job(&self, kind: Kind, t: &Title, policy: &str, llc_kb: u64) -> Job {
        let (marking, ideal) = match kind {
            Kind::IdealCritical => (Marking::Algorithm, Some(Ideal::Critical)),
            Kind::IdealNonCritical => (Marking::Algorithm, Some(Ideal::NonCritical)),
            _ => (Marking::Algorithm, None),
        };
        Job {
            kind,
            title: *t,
            run: MixRun {
                title: *t,
                policy: policy.to_string(),
                llc_kb,
                marking,
                ideal,
                opts: self.opts.clone(),
                sets: Vec::new(),
            },
        }
    }

    /// The titles below the 40-FPS target in the document (the evaluated set of Figs. 8-14).
    pub fn low(&self) -> impl Iterator<Item = &Title> {
        self.titles.iter().filter(|t| t.below_target())
    }

    /// Runs the plan: the baselines first (random marking needs their per-stream fractions),
    /// then everything else. Results are in plan order.
    pub fn execute(&self, jobs: usize) -> Result<Vec<(Job, MixResult)>> {
        let base: Vec<Job> = self
            .titles
            .iter()
            .map(|t| self.job(Kind::Base, t, "frfcfs", 16384))
            .collect();
        let base_res = run_all(&base, jobs)?;
        let mut rest = Vec::new();
        for (t, (_, b)) in self
            .titles
            .iter()
            .zip(&base_res)
            .filter(|(t, _)| t.below_target())
        {
            rest.push(self.job(Kind::IdealCritical, t, "frfcfs", 16384));
            rest.push(self.job(Kind::IdealNonCritical, t, "frfcfs", 16384));
            let mut r = self.job(Kind::RandomIm, t, "im", 16384);
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
            for p in &self.policies {
                rest.push(self.job(Kind::Policy(p.clone()), t, p, 16384));
            }
            for p in ["frfcfs", "im"] {
                rest.push(self.job(Kind::Llc8(p.into()), t, p, 8192));
            }
        }
        let rest_res = run_all(&rest, jobs)?;
        Ok(base
            .into_iter()
            .zip(base_res.into_iter().map(|(_, r)| r))
            .chain(rest.into_iter().zip(rest_res.into_iter().map(|(_, r)| r)))
            .collect())
    }
}

/// Runs `list` on `jobs` threads; results in list order.
fn run_all(list: &[Job], jobs: usize) -> Result<Vec<(usize, MixResult)>> {
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<Option<Result<MixResult, String>>>> = Mutex::new(vec![None; list.len()]);
    std::thread::scope(|s| {
        for _ in 0..jobs.min(list.len()).max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(j) = list.get(i) else { break };
                let r = mix::run(&j.run);
                eprintln!("frame: {} {:?} done", j.title.name, j.kind);
                out.lock().expect("no panic while holding the lock")[i] = Some(r);
            });
        }
    });
    out.into_inner()
        .expect("threads joined")
        .into_iter()
        .enumerate()
        .map(|(i, r)| match r {
            Some(Ok(r)) => Ok((i, r)),
            Some(Err(e)) => Err(anyhow!("{} ({:?}): {e}", list[i].title.name, list[i].kind)),
            None => Err(anyhow!("run {i} did not complete")),
        })
        .collect()
}
