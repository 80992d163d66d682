//! The Slurm path of `warpforge sweep`: one job array per submission.
//!
//! `submit` writes `DIR/slurm/batch-B.json` (the ids of the points to run and the chunk size)
//! and `DIR/slurm/batch-B.sh` (an `sbatch` script whose array task T runs
//! `warpforge sweep --out DIR --worker B:T`, i.e. points `T*chunk .. (T+1)*chunk` of the batch,
//! each as its own `warpforge run` process with an atomic record, as locally), then calls
//! `sbatch --parsable`. Points that need another point's product (`[needs]`) form a second
//! array submitted with `--dependency=afterany:<first array>`. `wait` polls `squeue` once a second, showing the points finished so far,
//! until no task of the array is left.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};

use super::point;
use super::spec::{Point, Spec};
use super::{Args, Manifest};

/// `DIR/slurm/batch-B.json`: the points of one submission.
#[derive(Serialize, Deserialize)]
struct Batch {
    /// Points per array task.
    chunk: usize,
    /// Point ids, in order.
    ids: Vec<String>,
}

/// Quotes `s` for a POSIX shell.
fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Submits `pending` as a job array that starts after job `after` has ended (`afterany`: a
/// dependent point checks its provider's record itself); returns the job id.
pub fn submit(
    dir: &Path,
    spec: &Spec,
    pending: &[Point],
    args: &Args,
    after: Option<&str>,
) -> anyhow::Result<String> {
    if pending.is_empty() {
        return Ok(String::new());
    }
    let sdir = dir.join("slurm");
    std::fs::create_dir_all(&sdir).with_context(|| format!("creating {}", sdir.display()))?;
    let b = (1..)
        .find(|b| !sdir.join(format!("batch-{b}.json")).exists())
        .expect("a free batch number");
    let chunk = match args.chunk {
        Some(0) => bail!("--chunk must be at least 1"),
        Some(c) => c,
        None => pending.len().div_ceil(1000),
    };
    let tasks = pending.len().div_ceil(chunk);
    let batch = Batch {
        chunk,
        ids: pending.iter().map(|p| p.id.clone()).collect(),
    };
    point::write_atomic(
        &sdir.join(format!("batch-{b}.json")),
        serde_json::to_string_pretty(&batch)?.as_bytes(),
    )?;
    let exe = super::current_exe()?;
    let mut script = String::from("#!/bin/sh\n");
    let name: String = spec
        .name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    script += &format!("#SBATCH --job-name=wf-{name}\n");
    script += &format!("#SBATCH --array=0-{}\n", tasks - 1);
    script += &format!(
        "#SBATCH --output={}\n",
        sdir.join(format!("batch-{b}_%a.out")).display()
    );
    script += "#SBATCH --ntasks=1\n";
    script += &format!("#SBATCH --cpus-per-task={}\n", spec.threads);
    if let Some(j) = after {
        script += &format!("#SBATCH --dependency=afterany:{j}\n");
    }
    if let Some(p) = &args.partition {
        script += &format!("#SBATCH --partition={p}\n");
    }
    if let Some(t) = &args.time {
        script += &format!("#SBATCH --time={t}\n");
    }
    if let Some(a) = &args.account {
        script += &format!("#SBATCH --account={a}\n");
    }
    script += &format!(
        "exec {} sweep --out {} --worker {b}:\"$SLURM_ARRAY_TASK_ID\"\n",
        shell_quote(&exe.display().to_string()),
        shell_quote(&dir.display().to_string())
    );
    let script_path = sdir.join(format!("batch-{b}.sh"));
    point::write_atomic(&script_path, script.as_bytes())?;
    let out = Command::new("sbatch")
        .arg("--parsable")
        .args(&args.sbatch_args)
        .arg(&script_path)
        .output()
        .context("running sbatch (is Slurm installed and SLURM_CONF set?)")?;
    if !out.status.success() {
        bail!(
            "sbatch {} failed: {}",
            script_path.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let job = stdout
        .trim()
        .split(';')
        .next()
        .unwrap_or_default()
        .to_string();
    if job.is_empty() || !job.chars().all(|c| c.is_ascii_digit()) {
        bail!("sbatch printed no job id: `{}`", stdout.trim());
    }
    std::fs::write(sdir.join(format!("batch-{b}.job")), format!("{job}\n"))?;
    println!(
        "submitted {} point(s) as Slurm job array {job} ({tasks} task(s) of up to {chunk} point(s); script {})",
        pending.len(),
        script_path.display()
    );
    Ok(job)
}

/// Whether job `job` still has tasks queued or running (`squeue`).
fn job_active(job: &str) -> anyhow::Result<bool> {
    let out = Command::new("squeue")
        .args(["-h", "-o", "%i", "-j", job])
        .output()
        .context("running squeue")?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        // Finished jobs leave squeue after MinJobAge: "Invalid job id specified".
        if err.contains("Invalid job id") {
            return Ok(false);
        }
        bail!("squeue -j {job} failed: {}", err.trim());
    }
    Ok(!String::from_utf8_lossy(&out.stdout).trim().is_empty())
}

/// Waits until job `job` has left the queue, showing the points of `pending` finished so far.
pub fn wait(dir: &Path, job: &str, pending: &[Point]) -> anyhow::Result<()> {
    if job.is_empty() {
        return Ok(());
    }
    let bar = super::progress_bar(pending.len());
    let mut failures = 0;
    loop {
        let done = pending
            .iter()
            .filter(|p| point::record_path(dir, &p.id).exists())
            .count();
        bar.set_position(done as u64);
        match job_active(job) {
            Ok(false) => break,
            Ok(true) => failures = 0,
            Err(e) => {
                failures += 1;
                if failures >= 30 {
                    return Err(e);
                }
            }
        }
        std::thread::sleep(Duration::from_secs(1));
    }
    bar.finish_and_clear();
    Ok(())
}

/// The `--worker B:T` entry point: runs task T's points of batch B, skipping finished ones.
pub fn worker(dir: &Path, which: &str) -> anyhow::Result<()> {
    let (b, t) = which
        .split_once(':')
        .and_then(|(b, t)| Some((b.parse::<usize>().ok()?, t.parse::<usize>().ok()?)))
        .with_context(|| format!("--worker `{which}`: expected BATCH:TASK"))?;
    let bpath = dir.join("slurm").join(format!("batch-{b}.json"));
    let batch: Batch = serde_json::from_str(
        &std::fs::read_to_string(&bpath).with_context(|| format!("reading {}", bpath.display()))?,
    )
    .with_context(|| format!("parsing {}", bpath.display()))?;
    let m = Manifest::load(dir)?;
    let exe = super::current_exe()?;
    let lo = (t * batch.chunk).min(batch.ids.len());
    let hi = ((t + 1) * batch.chunk).min(batch.ids.len());
    for id in &batch.ids[lo..hi] {
        let p = m
            .points
            .iter()
            .find(|p| &p.id == id)
            .with_context(|| format!("point {id} of {} not in sweep.json", bpath.display()))?;
        if point::is_done(dir, id) {
            println!("{id}: already done");
            continue;
        }
        let r = point::run_point(&exe, dir, p)?;
        println!(
            "{id}: {} in {:.2} s{}",
            r.status,
            r.wall_s,
            r.error.map(|e| format!(": {e}")).unwrap_or_default()
        );
    }
    Ok(())
}
