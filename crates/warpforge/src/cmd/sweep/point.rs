//! Running one sweep point as its own `warpforge run ... --json` process and recording the
//! outcome atomically under `DIR/points/<id>.json`.
//!
//! A point runs in a child process (the current executable), so a crash, a panic or a
//! deadlock of one simulation never takes the sweep down; the child's output goes to
//! `DIR/logs/<id>.log`. A record is written with a temporary name and renamed into place, so a
//! killed sweep leaves either a complete record or none.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use super::spec::Point;

/// Outcome of a point.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Record {
    /// The point that ran.
    pub point: Point,
    /// `ok` or `failed`.
    pub status: String,
    /// Why the point failed (the run's `error:` lines, its exit status or signal).
    pub error: Option<String>,
    /// Wall time of the whole `warpforge run` process in seconds.
    pub wall_s: f64,
    /// The run's JSON statistics (successful points only).
    pub result: Option<serde_json::Value>,
}

/// Writes `bytes` to `path` whole or not at all ([`crate::cmd::write_atomically`]).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    crate::cmd::write_atomically(path, bytes)
}

/// Path of point `id`'s record in sweep directory `dir`.
pub fn record_path(dir: &Path, id: &str) -> PathBuf {
    dir.join("points").join(format!("{id}.json"))
}

/// The record of point `id`, if one was written and parses.
pub fn read_record(dir: &Path, id: &str) -> Option<Record> {
    let text = std::fs::read_to_string(record_path(dir, id)).ok()?;
    serde_json::from_str(&text).ok()
}

/// Whether point `id` already finished successfully (a resumed sweep skips it).
pub fn is_done(dir: &Path, id: &str) -> bool {
    read_record(dir, id).is_some_and(|r| r.status == "ok")
}

/// The `error:` line and its causes from a run's log, else its last non-empty line.
fn error_from_log(log: &str) -> Option<String> {
    let lines: Vec<&str> = log.lines().collect();
    if let Some(i) = lines.iter().rposition(|l| l.starts_with("error:")) {
        let mut msg = lines[i].trim_start_matches("error:").trim().to_string();
        for l in &lines[i + 1..] {
            match l.trim().strip_prefix("caused by:") {
                Some(c) => {
                    msg.push_str(": ");
                    msg.push_str(c.trim());
                }
                None => break,
            }
        }
        return Some(msg);
    }
    if let Some(i) = lines.iter().rposition(|l| l.contains("panicked at")) {
        return Some(lines[i..].join(" ").trim().to_string());
    }
    lines
        .iter()
        .rev()
        .find(|l| !l.trim().is_empty())
        .map(|l| l.trim().to_string())
}

/// Describes a child's exit status.
fn describe_exit(status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return format!("killed by signal {sig}");
        }
    }
    match status.code() {
        Some(c) => format!("exit status {c}"),
        None => "no exit status".into(),
    }
}

/// Runs point `p` with executable `exe` (a `warpforge` binary), writes its record into `dir`
/// atomically and returns it. Only failures to write the record are errors; a failed
/// simulation is a record with status `failed`.
pub fn run_point(exe: &Path, dir: &Path, p: &Point) -> anyhow::Result<Record> {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let points = dir.join("points");
    let logs = dir.join("logs");
    std::fs::create_dir_all(&points).with_context(|| format!("creating {}", points.display()))?;
    std::fs::create_dir_all(&logs).with_context(|| format!("creating {}", logs.display()))?;
    let tmp_json = points.join(format!(
        ".{}.run{}-{}.json",
        p.id,
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let log_path = logs.join(format!("{}.log", p.id));
    // A dependent point: its product first (a missing provider fails the point, not the sweep).
    let mut args = p.run_args();
    if let Some(n) = &p.needs {
        match super::product::ensure(dir, n) {
            Ok(path) => {
                args.push("--set".into());
                args.push(format!("{}={}", n.key, path.display()));
            }
            Err(e) => {
                let rec = Record {
                    point: p.clone(),
                    status: "failed".into(),
                    error: Some(format!("{e:#}")),
                    wall_s: 0.0,
                    result: None,
                };
                write_atomic(
                    &record_path(dir, &p.id),
                    (serde_json::to_string_pretty(&rec)? + "\n").as_bytes(),
                )?;
                return Ok(rec);
            }
        }
    }
    let log = std::fs::File::create(&log_path)
        .with_context(|| format!("creating {}", log_path.display()))?;
    let log2 = log.try_clone()?;
    let t0 = Instant::now();
    let status = Command::new(exe)
        .args(&args)
        .arg("--json")
        .arg(&tmp_json)
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(log2)
        .status();
    let wall_s = t0.elapsed().as_secs_f64();
    let log_text = std::fs::read_to_string(&log_path).unwrap_or_default();
    let (status, error, result) = match status {
        Err(e) => (
            "failed",
            Some(format!("cannot start {}: {e}", exe.display())),
            None,
        ),
        Ok(st) if st.success() => match std::fs::read_to_string(&tmp_json)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        {
            Some(v) if v["stats"]["total"]["interrupted"] == serde_json::json!(true) => (
                "failed",
                Some("interrupted (partial statistics discarded)".into()),
                None,
            ),
            Some(v) => ("ok", None, Some(v)),
            None => (
                "failed",
                Some("the run exited 0 but wrote no readable JSON".into()),
                None,
            ),
        },
        Ok(st) => {
            let why = describe_exit(st);
            let msg = match error_from_log(&log_text) {
                Some(m) => format!("{m} ({why})"),
                None => why,
            };
            ("failed", Some(msg), None)
        }
    };
    let _ = std::fs::remove_file(&tmp_json);
    let rec = Record {
        point: p.clone(),
        status: status.into(),
        error,
        wall_s,
        result,
    };
    write_atomic(
        &record_path(dir, &p.id),
        (serde_json::to_string_pretty(&rec)? + "\n").as_bytes(),
    )?;
    Ok(rec)
}

/// Removes temporary files left in `dir/points` by killed sweeps or runs.
pub fn remove_stale_temps(dir: &Path) {
    if let Ok(rd) = std::fs::read_dir(dir.join("points")) {
        for e in rd.flatten() {
            if e.file_name().to_string_lossy().starts_with('.') {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}
