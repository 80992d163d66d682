//! `warpforge sweep SPEC.toml --out DIR`: runs the cross product of a sweep specification
//! (workloads x configs x named variants x `[grid]` values x seeds x repetitions, see [`spec`])
//! locally in parallel processes (`--jobs N`) or as a Slurm job array (`--slurm`), and writes
//! the results as `DIR/results.parquet` and `DIR/results.csv` (one row per point, see
//! [`table`]). Points that need another point's product (`[needs]`, see [`product`]) run in a
//! second phase: locally after the first, under Slurm as a second array that depends on the
//! first.
//!
//! Directory layout: `DIR/sweep.json` (the manifest: name, axes, points), `DIR/points/<id>.json`
//! (one record per finished point, written atomically), `DIR/logs/<id>.log` (the output of the
//! point's `warpforge run`), `DIR/slurm/` (batch scripts, task lists, Slurm output). A second run
//! over the same DIR skips every point whose record says `ok` (failed points are run again), so
//! an interrupted or killed sweep is resumed by running the same command.

pub mod point;
pub mod product;
#[cfg(test)]
mod shipped;
pub mod slurm;
pub mod spec;
pub mod table;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};

use point::Record;
use spec::{Point, Spec};
use table::Table;

/// Arguments of `warpforge sweep`.
#[derive(clap::Args)]
pub struct Args {
    /// Sweep specification (TOML; see README "Sweeps").
    pub spec: Option<PathBuf>,
    /// Output directory (created; an existing one is resumed).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Run every point at this size instead of the spec's (e.g. `tiny` to try a shipped
    /// experiment quickly).
    #[arg(long, value_parser = super::run::parse_size)]
    pub size: Option<warpforge_workloads::Size>,
    /// Keep only the points whose column KEY (`workload`, `config`, `variant` or a grid key)
    /// is one of the values (repeatable), e.g. `--only workload=bfs,kmn --only variant=rr,cawa`;
    /// the points they need (`[needs]`) are kept too.
    #[arg(long, value_name = "KEY=V1,V2")]
    pub only: Vec<String>,
    /// Points run at once locally (default: the number of cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Submit the points as one Slurm job array (`sbatch`) instead of running them here; DIR
    /// and this executable must be visible to the compute nodes.
    #[arg(long)]
    pub slurm: bool,
    /// Slurm: partition (`sbatch --partition`).
    #[arg(long, requires = "slurm")]
    pub partition: Option<String>,
    /// Slurm: time limit of each array task (`sbatch --time`, e.g. `10:00`).
    #[arg(long, requires = "slurm")]
    pub time: Option<String>,
    /// Slurm: account (`sbatch --account`).
    #[arg(long, requires = "slurm")]
    pub account: Option<String>,
    /// Slurm: points per array task (default: 1, or more to stay within 1000 tasks).
    #[arg(long, requires = "slurm")]
    pub chunk: Option<usize>,
    /// Slurm: extra `sbatch` argument (repeatable), e.g. `--sbatch-arg=--qos=short`.
    #[arg(
        long = "sbatch-arg",
        value_name = "ARG",
        requires = "slurm",
        allow_hyphen_values = true
    )]
    pub sbatch_args: Vec<String>,
    /// Slurm: submit and return at once; collect later with `warpforge sweep --collect DIR`.
    #[arg(long, requires = "slurm")]
    pub no_wait: bool,
    /// Write the tables of an existing sweep directory from the points finished so far.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["spec", "out", "slurm"])]
    pub collect: Option<PathBuf>,
    /// Internal: run the points of Slurm batch B, task T (`B:T`) of sweep `--out DIR`.
    #[arg(long, hide = true, value_name = "B:T", requires = "out")]
    pub worker: Option<String>,
}

/// `DIR/sweep.json`: what a sweep directory holds.
#[derive(Serialize, Deserialize)]
pub struct Manifest {
    /// The sweep's name.
    pub name: String,
    /// The spec file it was made from.
    pub spec: String,
    /// Grid axes (the table's parameter columns).
    pub axes: Vec<String>,
    /// Every point, in order.
    pub points: Vec<Point>,
}

impl Manifest {
    /// Reads `DIR/sweep.json`.
    pub fn load(dir: &Path) -> anyhow::Result<Manifest> {
        let p = dir.join("sweep.json");
        let text = std::fs::read_to_string(&p)
            .with_context(|| format!("reading {} (not a sweep directory?)", p.display()))?;
        serde_json::from_str(&text).with_context(|| format!("parsing {}", p.display()))
    }

    /// The records of the points (`None` where a point has not finished).
    pub fn records(&self, dir: &Path) -> Vec<Option<Record>> {
        self.points
            .iter()
            .map(|p| point::read_record(dir, &p.id))
            .collect()
    }

    /// The results table of `dir` as it stands.
    pub fn table(&self, dir: &Path) -> Table {
        Table::build(&self.axes, &self.points, &self.records(dir))
    }
}

/// The `warpforge` executable to run points with.
pub fn current_exe() -> anyhow::Result<PathBuf> {
    std::env::current_exe().context("locating the warpforge executable")
}

/// A progress bar over `n` points with an ETA (drawn only on a terminal).
pub fn progress_bar(n: usize) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(n as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{wide_bar} {pos}/{len} points [{elapsed_precise}, ETA {eta_precise}] {msg}",
        )
        .expect("template"),
    );
    bar
}

/// Runs `points` in `dir` with up to `jobs` processes at once; returns the records in the
/// order the points finished.
pub fn run_local(dir: &Path, points: &[Point], jobs: usize) -> anyhow::Result<Vec<Record>> {
    let exe = current_exe()?;
    let next = AtomicUsize::new(0);
    let bar = progress_bar(points.len());
    let (tx, rx) = mpsc::channel::<anyhow::Result<Record>>();
    let mut out = Vec::new();
    let mut first_err = None;
    std::thread::scope(|s| {
        for _ in 0..jobs.clamp(1, points.len().max(1)) {
            let tx = tx.clone();
            let (next, exe) = (&next, &exe);
            s.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(p) = points.get(i) else { break };
                if tx.send(point::run_point(exe, dir, p)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        for r in rx {
            bar.inc(1);
            match r {
                Ok(rec) => {
                    if rec.status != "ok" {
                        bar.suspend(|| {
                            eprintln!(
                                "point {} failed: {}",
                                rec.point.id,
                                rec.error.as_deref().unwrap_or("")
                            )
                        });
                    }
                    out.push(rec);
                }
                Err(e) => {
                    // Cannot write records: stop handing out points.
                    next.store(usize::MAX / 2, Ordering::Relaxed);
                    first_err.get_or_insert(e);
                }
            }
        }
    });
    bar.finish_and_clear();
    match first_err {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// Writes `DIR/results.csv` and `DIR/results.parquet` and prints the summary and the failed
/// points; an error when points failed or are missing.
pub fn collect(dir: &Path) -> anyhow::Result<()> {
    let m = Manifest::load(dir)?;
    let records = m.records(dir);
    let table = Table::build(&m.axes, &m.points, &records);
    table.write_csv(&dir.join("results.csv"))?;
    table.write_parquet(&dir.join("results.parquet"))?;
    let ok = records
        .iter()
        .filter(|r| r.as_ref().is_some_and(|r| r.status == "ok"))
        .count();
    let failed: Vec<&Record> = records
        .iter()
        .flatten()
        .filter(|r| r.status != "ok")
        .collect();
    let pending = records.iter().filter(|r| r.is_none()).count();
    println!(
        "sweep `{}`: {} points: {ok} ok, {} failed, {pending} not run; tables: {} and {}",
        m.name,
        m.points.len(),
        failed.len(),
        dir.join("results.parquet").display(),
        dir.join("results.csv").display()
    );
    for r in &failed {
        let params: Vec<String> = r
            .point
            .params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        println!(
            "  failed: {} ({} {} {}): {}",
            r.point.id,
            r.point.workload,
            r.point.config,
            params.join(" "),
            r.error.as_deref().unwrap_or("")
        );
    }
    if !failed.is_empty() || pending > 0 {
        bail!(
            "{} point(s) failed and {pending} did not run (the tables list them with their status)",
            failed.len()
        );
    }
    Ok(())
}

/// The points matching every `--only KEY=V1,V2` filter, with the points they need.
pub fn only(spec: &Spec, points: Vec<Point>, filters: &[String]) -> anyhow::Result<Vec<Point>> {
    let mut keep = vec![true; points.len()];
    for f in filters {
        let (k, vs) = f
            .split_once('=')
            .with_context(|| format!("--only `{f}`: expected KEY=V1,V2"))?;
        let axes = spec.axes();
        if !["workload", "config"].contains(&k) && !axes.iter().any(|a| a == k) {
            bail!(
                "--only `{f}`: no column `{k}` (workload, config{})",
                axes.iter().map(|a| format!(", {a}")).collect::<String>()
            );
        }
        let vs: Vec<&str> = vs.split(',').map(str::trim).collect();
        let value = |p: &Point| -> Option<String> {
            match k {
                "workload" => Some(p.workload.clone()),
                "config" => Some(p.config.clone()),
                _ => p.axis_value(k).map(str::to_string),
            }
        };
        for v in &vs {
            if !points.iter().any(|p| value(p).as_deref() == Some(*v)) {
                bail!("--only `{f}`: no point has {k} = `{v}`");
            }
        }
        for (i, p) in points.iter().enumerate() {
            keep[i] &= value(p).is_some_and(|x| vs.contains(&x.as_str()));
        }
    }
    for i in 0..points.len() {
        if let (true, Some(n)) = (keep[i], &points[i].needs) {
            if let Some(j) = points.iter().position(|q| q.id == n.point) {
                keep[j] = true;
            }
        }
    }
    Ok(points
        .into_iter()
        .zip(keep)
        .filter_map(|(p, k)| k.then_some(p))
        .collect())
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    if let Some(w) = &args.worker {
        let dir = args.out.as_deref().expect("clap: --worker requires --out");
        return slurm::worker(dir, w);
    }
    if let Some(dir) = &args.collect {
        return collect(dir);
    }
    let (Some(spec_path), Some(dir)) = (&args.spec, &args.out) else {
        bail!("usage: warpforge sweep SPEC.toml --out DIR (or --collect DIR)");
    };
    let mut spec = Spec::load(spec_path)?;
    if let Some(size) = args.size {
        spec.size = size;
    }
    let points = only(&spec, spec.points(), &args.only)?;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let dir = &std::fs::canonicalize(dir)?;
    let manifest = Manifest {
        name: spec.name.clone(),
        spec: spec_path.display().to_string(),
        axes: spec.axes(),
        points: points.clone(),
    };
    point::write_atomic(
        &dir.join("sweep.json"),
        (serde_json::to_string_pretty(&manifest)? + "\n").as_bytes(),
    )?;
    let pending: Vec<Point> = points
        .iter()
        .filter(|p| !point::is_done(dir, &p.id))
        .cloned()
        .collect();
    println!(
        "sweep `{}`: {} points, {} already done, {} to run",
        spec.name,
        points.len(),
        points.len() - pending.len(),
        pending.len()
    );
    // Points that need another's product run in a second phase, after every provider.
    let (first, second): (Vec<Point>, Vec<Point>) =
        pending.into_iter().partition(|p| p.needs.is_none());
    if args.slurm {
        let job1 = slurm::submit(dir, &spec, &first, &args, None)?;
        let job2 = slurm::submit(
            dir,
            &spec,
            &second,
            &args,
            Some(job1.as_str()).filter(|j| !j.is_empty()),
        )?;
        let jobs: Vec<&str> = [job1.as_str(), job2.as_str()]
            .into_iter()
            .filter(|j| !j.is_empty())
            .collect();
        if args.no_wait {
            println!(
                "submitted Slurm job(s) {}; collect with: warpforge sweep --collect {}",
                jobs.join(", "),
                dir.display()
            );
            return Ok(());
        }
        slurm::wait(dir, &job1, &first)?;
        slurm::wait(dir, &job2, &second)?;
    } else if !first.is_empty() || !second.is_empty() {
        point::remove_stale_temps(dir);
        let jobs = args.jobs.unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        });
        if jobs == 0 {
            bail!("--jobs must be at least 1");
        }
        let t0 = std::time::Instant::now();
        let mut recs = run_local(dir, &first, jobs)?;
        recs.extend(run_local(dir, &second, jobs)?);
        println!(
            "ran {} point(s) with {jobs} job(s) in {:.2} s",
            recs.len(),
            t0.elapsed().as_secs_f64()
        );
    }
    collect(dir)
}
