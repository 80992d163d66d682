//! A batch of timing simulations for the experiments: points run in parallel worker threads
//! (one simulation per thread, each single-threaded inside, so a batch of `jobs` workers keeps
//! `jobs` cores busy), results come back in the order of the points, and every result is kept
//! in an on-disk cache so that a repeated experiment (or a second experiment sharing a
//! baseline) simulates nothing twice.
//!
//! Cache key: the workload, the size, the full configuration (every key, as JSON, so any
//! `--set` changes the key), the content of the files the configuration names (the CAWS oracle
//! `core.caws.oracle`: rewriting the file under the same name changes the key) and the identity
//! of the running executable (path, length and modification time): a rebuilt binary never reads
//! results of the previous one. A point whose key cannot be formed (a named file unreadable)
//! is simulated and not cached. The cache directory is
//! `$WARPFORGE_CACHE`, else `$XDG_CACHE_HOME/warpforge`, else `$HOME/.cache/warpforge`; each
//! entry is one JSON file written atomically (temporary file + rename), so a killed
//! experiment leaves only whole entries. A point whose simulation fails (bad workload, stuck
//! kernel, failed CPU check) fails the batch with the point named; nothing is cached for it.
//!
//! ```ignore
//! let points = vec![Point::new("bfs", Size::Small, cfg_rr), Point::new("bfs", Size::Small, cfg_gto)];
//! let out = batch::run(&points, &Options::default())?;
//! let speedup = out[0].cycles() as f64 / out[1].cycles() as f64;
//! ```

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::Value;
use warpforge_timing::GpuConfig;
use warpforge_workloads::{Check, Size};

use crate::cmd::run::{find_workload, simulate};
use crate::cmd::threads::Threads;

/// One simulation of a batch: a built-in workload at a size on a configuration.
#[derive(Debug, Clone)]
pub struct Point {
    /// Workload name (`warpforge list`).
    pub workload: String,
    /// Input size.
    pub size: Size,
    /// The full timing configuration (preset plus overrides).
    pub config: GpuConfig,
}

impl Point {
    /// A point for `workload` at `size` on `config`.
    pub fn new(workload: &str, size: Size, config: GpuConfig) -> Point {
        Point {
            workload: workload.to_string(),
            size,
            config,
        }
    }

    /// A short description for messages: `workload (size) on config [+N overrides]`.
    pub fn describe(&self) -> String {
        format!(
            "{} ({}) on {}",
            self.workload,
            self.size.name(),
            self.config.name
        )
    }
}

/// The result of one point.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The timing model's statistics, exactly what `run --mode timing --json` writes under
    /// `stats` (`total`, `kernels[]`, ...).
    pub stats: Value,
    /// Wall time of the simulation in seconds (of the original run when read from the cache).
    pub wall_s: f64,
    /// CPU time of the simulation in seconds: the worker thread's own CPU clock, which other
    /// processes on a loaded machine do not inflate (of the original run when read from the
    /// cache; 0 for entries written before it was recorded, and where no thread clock exists).
    pub cpu_s: f64,
    /// Whether the result came from the cache.
    pub cached: bool,
}

impl Outcome {
    /// Total simulated core cycles over all kernels of the run.
    pub fn cycles(&self) -> u64 {
        self.stats["total"]["cycles"].as_u64().unwrap_or(0)
    }

    /// A number under `stats.total` by dotted path (`"l1d.mpki"`), if present.
    pub fn total(&self, path: &str) -> Option<f64> {
        let mut v = &self.stats["total"];
        for part in path.split('.') {
            v = v.get(part)?;
        }
        v.as_f64()
    }
}

/// How a batch runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// Worker threads (simulations at once); at least 1.
    pub jobs: usize,
    /// Cache directory; `None` disables the cache.
    pub cache: Option<PathBuf>,
    /// Show a progress bar (points done, ETA) on stderr.
    pub progress: bool,
}

impl Default for Options {
    /// One worker per available core, the default cache directory, progress on a terminal.
    fn default() -> Options {
        Options {
            jobs: default_jobs(),
            cache: default_cache_dir(),
            progress: std::io::IsTerminal::is_terminal(&std::io::stderr()),
        }
    }
}

/// The number of cores available to this process (at least 1).
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The default cache directory (see the module documentation), if one can be named.
pub fn default_cache_dir() -> Option<PathBuf> {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    env("WARPFORGE_CACHE")
        .or_else(|| env("XDG_CACHE_HOME").map(|d| d.join("warpforge")))
        .or_else(|| env("HOME").map(|d| d.join(".cache").join("warpforge")))
}

/// Identity of the running executable: results of another build are never reused.
fn exe_identity() -> String {
    let exe = std::env::current_exe().ok();
    let meta = exe.as_ref().and_then(|p| std::fs::metadata(p).ok());
    let mtime = meta
        .as_ref()
        .and_then(|m| m.modified().ok())
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    format!(
        "{}|{}|{}|{}",
        env!("CARGO_PKG_VERSION"),
        exe.map(|p| p.display().to_string()).unwrap_or_default(),
        meta.map_or(0, |m| m.len()),
        mtime
    )
}

/// The cache file name of `p`: a 64-bit hash of everything the result depends on (module
/// documentation), plus the workload and size for people looking at the directory; `None` when
/// that cannot be read (the point is then simulated and not cached).
fn cache_name(p: &Point, exe: &str) -> Option<String> {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    // Every field of the configuration (serialisation is fallible; a key of "" for every
    // configuration would mix their results).
    let config = serde_json::to_string(&p.config).ok()?;
    // Files the configuration names by path: their content decides the run, not the name.
    let oracle = &p.config.core.caws.oracle;
    let oracle_text = if oracle.is_empty() {
        String::new()
    } else {
        std::fs::read_to_string(oracle).ok()?
    };
    (exe, &p.workload, p.size.name(), config, oracle_text).hash(&mut h);
    Some(format!(
        "{}-{}-{:016x}.json",
        p.workload,
        p.size.name(),
        h.finish()
    ))
}

fn read_cached(path: &Path) -> Option<Outcome> {
    let text = std::fs::read_to_string(path).ok()?;
    let v: Value = serde_json::from_str(&text).ok()?;
    Some(Outcome {
        stats: v.get("stats")?.clone(),
        wall_s: v.get("wall_s")?.as_f64()?,
        cpu_s: v.get("cpu_s").and_then(Value::as_f64).unwrap_or(0.0),
        cached: true,
    })
}

fn write_cached(path: &Path, p: &Point, o: &Outcome) -> Result<()> {
    let dir = path.parent().expect("cache file has a directory");
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let v = serde_json::json!({
        "workload": p.workload,
        "size": p.size.name(),
        "config": p.config.name,
        "wall_s": o.wall_s,
        "cpu_s": o.cpu_s,
        "stats": o.stats,
    });
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, serde_json::to_string(&v)?)
        .with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))
}

/// CPU seconds consumed so far by the calling thread (a point is simulated on one thread).
#[cfg(unix)]
fn thread_cpu_s() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the call only writes it.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return 0.0;
    }
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// No per-thread CPU clock: CPU times read 0.
#[cfg(not(unix))]
fn thread_cpu_s() -> f64 {
    0.0
}

/// Simulates one point (no cache).
fn simulate_point(p: &Point) -> Result<Outcome> {
    let w = find_workload(&p.workload)?;
    let t0 = Instant::now();
    let c0 = thread_cpu_s();
    let (mut runner, check, _, _) =
        simulate(w, p.size, p.config.clone(), Threads::Fixed(1), false, None);
    match check.with_context(|| p.describe())? {
        Check::Passed => runner.set_check("passed"),
        Check::Failed(m) => bail!("{}: output check failed: {m}", p.describe()),
    }
    if runner.stats().total.interrupted {
        bail!("{}: interrupted", p.describe());
    }
    Ok(Outcome {
        stats: runner.stats_json(),
        wall_s: t0.elapsed().as_secs_f64(),
        cpu_s: thread_cpu_s() - c0,
        cached: false,
    })
}

/// Runs every point (cached ones are read, the others simulated on `opts.jobs` workers) and
/// returns the outcomes in the order of `points`. The first failing point fails the batch
/// (the points already finished stay cached).
pub fn run(points: &[Point], opts: &Options) -> Result<Vec<Outcome>> {
    for p in points {
        find_workload(&p.workload)?;
        p.config
            .validate()
            .map_err(|e| anyhow!("{}: {e}", p.describe()))?;
    }
    let exe = exe_identity();
    let files: Vec<Option<PathBuf>> = points
        .iter()
        .map(|p| {
            let d = opts.cache.as_ref()?;
            Some(d.join(cache_name(p, &exe)?))
        })
        .collect();
    let results: Vec<Mutex<Option<Result<Outcome>>>> =
        points.iter().map(|_| Mutex::new(None)).collect();
    let mut todo = Vec::new();
    for (i, f) in files.iter().enumerate() {
        match f.as_deref().and_then(read_cached) {
            Some(o) => *results[i].lock().expect("lock") = Some(Ok(o)),
            None => todo.push(i),
        }
    }
    let bar = if opts.progress && !todo.is_empty() {
        let b = ProgressBar::new(todo.len() as u64);
        b.set_style(
            ProgressStyle::with_template(
                "{spinner} {elapsed_precise} [{bar:30}] {pos}/{len} simulations, ETA {eta} {msg}",
            )
            .expect("template")
            .progress_chars("=> "),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    let next = AtomicUsize::new(0);
    let failed = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        for _ in 0..opts.jobs.max(1).min(todo.len().max(1)) {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k >= todo.len() || failed.load(Ordering::Relaxed) {
                    break;
                }
                let i = todo[k];
                let p = &points[i];
                let r = simulate_point(p).and_then(|o| {
                    if let Some(f) = &files[i] {
                        write_cached(f, p, &o)?;
                    }
                    Ok(o)
                });
                if r.is_err() {
                    failed.store(true, Ordering::Relaxed);
                }
                bar.set_message(p.describe());
                bar.inc(1);
                *results[i].lock().expect("lock") = Some(r);
            });
        }
    });
    bar.finish_and_clear();
    let results: Vec<Option<Result<Outcome>>> = results
        .into_iter()
        .map(|r| r.into_inner().expect("lock"))
        .collect();
    // Points left unrun (None) only exist because some point failed: report that failure.
    if let Some(e) = results.iter().position(|r| matches!(r, Some(Err(_)))) {
        let Some(Some(Err(err))) = results.into_iter().nth(e) else {
            unreachable!("position found an error")
        };
        return Err(err);
    }
    let out: Vec<Outcome> = results
        .into_iter()
        .map(|r| r.expect("ran").expect("ok"))
        .collect();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(sched: &str) -> GpuConfig {
        let mut c = GpuConfig::preset("gtx480").unwrap();
        c.set("core.scheduler", sched).unwrap();
        c
    }

    #[test]
    fn batch_matches_single_runs_and_reuses_its_cache() {
        let dir = tempfile::tempdir().unwrap();
        let opts = Options {
            jobs: 2,
            cache: Some(dir.path().to_path_buf()),
            progress: false,
        };
        let points = vec![
            Point::new("bfs", Size::Tiny, cfg("lrr")),
            Point::new("bfs", Size::Tiny, cfg("gto")),
            Point::new("nw", Size::Tiny, cfg("lrr")),
        ];
        let first = run(&points, &opts).unwrap();
        assert!(first.iter().all(|o| !o.cached));
        // Same order as the points, and identical to a lone simulation of each point.
        for (p, o) in points.iter().zip(&first) {
            let lone = simulate_point(p).unwrap();
            assert!(
                o.stats == lone.stats,
                "{} differs from a lone run",
                p.describe()
            );
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
        let second = run(&points, &opts).unwrap();
        assert!(second.iter().all(|o| o.cached));
        for (a, b) in first.iter().zip(&second) {
            assert!(
                a.stats == b.stats,
                "a cached result differs from the simulated one"
            );
        }
        // A different configuration is a different entry.
        let mut other = points[0].clone();
        other.config.set("l1d.sets", "64").unwrap();
        assert!(!run(&[other], &opts).unwrap()[0].cached);
    }

    /// Task of issue 12: the cache key covers every configuration value. Each leaf of the
    /// configuration (numbers, booleans, strings, list entries) is changed in turn; every
    /// change must give another cache file.
    #[test]
    fn every_configuration_key_is_part_of_the_cache_key() {
        fn leaves(v: &Value, path: String, out: &mut Vec<String>) {
            match v {
                Value::Object(m) => {
                    for (k, x) in m {
                        leaves(x, format!("{path}/{k}"), out);
                    }
                }
                Value::Array(a) => {
                    for (i, x) in a.iter().enumerate() {
                        leaves(x, format!("{path}/{i}"), out);
                    }
                }
                _ => out.push(path),
            }
        }
        let base = Point::new(
            "bfs",
            Size::Small,
            GpuConfig::preset("gtx480-caws").unwrap(),
        );
        let exe = "exe";
        let name = cache_name(&base, exe).unwrap();
        let json = serde_json::to_value(&base.config).unwrap();
        let mut paths = Vec::new();
        leaves(&json, String::new(), &mut paths);
        let mut changed = 0;
        for path in &paths {
            let mut v = json.clone();
            let leaf = v.pointer_mut(path).unwrap();
            *leaf = match leaf.take() {
                Value::Bool(b) => Value::Bool(!b),
                Value::Number(n) if n.is_u64() => Value::from(n.as_u64().unwrap() + 1),
                Value::Number(n) if n.is_i64() => Value::from(n.as_i64().unwrap() + 1),
                Value::Number(n) => Value::from(n.as_f64().unwrap() + 0.5),
                Value::String(s) => Value::String(format!("{s}x")),
                Value::Null => continue,
                other => panic!("{path}: unexpected leaf {other}"),
            };
            let c: GpuConfig = serde_json::from_value(v)
                .unwrap_or_else(|e| panic!("{path}: the changed value does not load: {e}"));
            let p = Point::new("bfs", Size::Small, c);
            // `None` (not cached: e.g. an oracle path that names no file) also never reads
            // another configuration's entry.
            assert_ne!(
                cache_name(&p, exe),
                Some(name.clone()),
                "{path} is not in the key"
            );
            changed += 1;
        }
        assert!(changed > 150, "only {changed} configuration values found");
        // The workload, the size and the executable are in the key too.
        let mut p = base.clone();
        p.workload = "nw".into();
        assert_ne!(cache_name(&p, exe).unwrap(), name);
        let mut p = base.clone();
        p.size = Size::Tiny;
        assert_ne!(cache_name(&p, exe).unwrap(), name);
        assert_ne!(cache_name(&base, "other exe").unwrap(), name);
    }

    /// The CAWS oracle is named by path in the configuration: its content is in the key, and a
    /// point whose oracle cannot be read is not cached.
    #[test]
    fn the_oracle_file_content_is_part_of_the_cache_key() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("oracle.json");
        std::fs::write(&f, r#"{"kernels": []}"#).unwrap();
        let mut c = cfg("caws");
        c.set("core.caws.oracle", &f.display().to_string()).unwrap();
        let p = Point::new("bfs", Size::Tiny, c);
        let a = cache_name(&p, "exe").unwrap();
        assert_eq!(cache_name(&p, "exe").unwrap(), a);
        std::fs::write(&f, r#"{"kernels": [{"ctas": [[100, 120]]}]}"#).unwrap();
        assert_ne!(cache_name(&p, "exe").unwrap(), a, "same path, other oracle");
        std::fs::remove_file(&f).unwrap();
        assert_eq!(cache_name(&p, "exe"), None);
    }

    /// A `--set` override, through the command line's configuration path, misses the cache
    /// entry of the plain configuration (and its result differs: a hit would have been wrong);
    /// the same override a second time hits its own entry.
    #[test]
    fn a_set_override_misses_the_cache() {
        let dir = tempfile::tempdir().unwrap();
        let opts = Options {
            jobs: 2,
            cache: Some(dir.path().to_path_buf()),
            progress: false,
        };
        let resolve = |sets: &[&str]| {
            let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
            crate::cmd::config::resolve(Some("gtx480-caws"), &[], &sets).unwrap()
        };
        let plain = Point::new("nw", Size::Tiny, resolve(&[]));
        let over = Point::new("nw", Size::Tiny, resolve(&["l2.rop_latency=240"]));
        assert_eq!(plain.config.name, over.config.name, "same preset name");
        let a = run(std::slice::from_ref(&plain), &opts).unwrap();
        assert!(!a[0].cached);
        let b = run(std::slice::from_ref(&over), &opts).unwrap();
        assert!(
            !b[0].cached,
            "the override read the plain configuration's entry"
        );
        assert_ne!(a[0].cycles(), b[0].cycles());
        let again = run(&[plain, over], &opts).unwrap();
        assert!(again.iter().all(|o| o.cached));
        assert_eq!(again[1].cycles(), b[0].cycles());
    }

    #[test]
    fn unknown_workload_fails_before_simulating() {
        let err = run(
            &[Point::new("nope", Size::Tiny, cfg("lrr"))],
            &Options {
                jobs: 1,
                cache: None,
                progress: false,
            },
        )
        .unwrap_err();
        assert!(format!("{err:#}").contains("nope"), "{err:#}");
    }
}
