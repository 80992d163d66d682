//! The fuzzing loop: seeds, mutation, outcome shapes, crash capture.

use std::collections::HashSet;
use std::io::Write;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::alloc;
use crate::mutate::mutate;
use crate::targets::Target;

/// What one input did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Accepted; the shape of the result.
    Ok(String),
    /// Refused with an error; the shape of the message.
    Err(String),
    /// Panicked (a bug), or asked for a single allocation above the bound (an unbounded
    /// allocation, also a bug): the message.
    Panic(String),
}

/// Name, in the crashes folder, of the copy of the input that was running when an allocation
/// was refused; left behind only when that refusal aborted the process.
pub const IN_FLIGHT: &str = "alloc-in-flight";

/// Runs one input, catching a panic.
///
/// An allocation refused by the bounded allocator while this input ran makes the outcome a
/// crash of this input, even when the code under test handled the failure (a fallible
/// reservation of a size read from the input and trusted is still an unbounded allocation).
pub fn run_input(t: &Target, data: &[u8]) -> Outcome {
    alloc::REFUSED.store(0, Ordering::Relaxed);
    let out = std::panic::catch_unwind(AssertUnwindSafe(|| (t.run)(data)));
    let refused = alloc::REFUSED.swap(0, Ordering::Relaxed);
    if refused != 0 {
        return Outcome::Panic(format!(
            "unbounded allocation: {refused} bytes requested at once"
        ));
    }
    match out {
        Ok(Ok(s)) => Outcome::Ok(s),
        Ok(Err(s)) => Outcome::Err(s),
        Err(p) => Outcome::Panic(
            p.downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "panic".into()),
        ),
    }
}

/// Settings of a fuzzing session.
#[derive(Debug, Clone)]
pub struct Options {
    /// Wall-clock budget.
    pub seconds: f64,
    /// Execution budget (stops at whichever comes first).
    pub max_execs: u64,
    /// RNG seed (sessions are reproducible for a given corpus and seed).
    pub seed: u64,
    /// Folders searched for seed files.
    pub corpus_dirs: Vec<PathBuf>,
    /// Where kept inputs (`OUT/corpus`) and crashes (`OUT/crashes`) go; `None`: nowhere.
    pub out: Option<PathBuf>,
    /// Largest input, bytes.
    pub max_len: usize,
    /// An input running longer than this is a hang.
    pub hang: Duration,
    /// Largest single allocation, bytes.
    pub max_alloc: usize,
}

/// What a session did.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Inputs executed.
    pub execs: u64,
    /// Seed files.
    pub seeds: usize,
    /// Corpus size at the end (seeds plus kept inputs).
    pub corpus: usize,
    /// Distinct outcome shapes seen.
    pub shapes: usize,
    /// Panicking inputs found: (message, saved path if any).
    pub crashes: Vec<(String, Option<PathBuf>)>,
    /// Seconds run.
    pub seconds: f64,
}

/// Seed files of `t`: files under `dirs` whose path ends with one of the target's suffixes
/// (build outputs and hidden folders skipped), each cut to `max_len` bytes, in path order.
pub fn seeds(t: &Target, dirs: &[PathBuf], max_len: usize) -> Vec<(PathBuf, Vec<u8>)> {
    fn walk(dir: &Path, t: &Target, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if p.is_dir() {
                if name != "target" && !name.starts_with('.') {
                    walk(&p, t, out);
                }
            } else {
                let s = p.to_string_lossy();
                if t.seed_suffixes.iter().any(|suf| s.ends_with(suf)) {
                    out.push(p);
                }
            }
        }
    }
    let mut paths = Vec::new();
    for d in dirs {
        walk(d, t, &mut paths);
    }
    paths.sort();
    paths.dedup();
    paths
        .into_iter()
        .filter_map(|p| {
            let mut b = std::fs::read(&p).ok()?;
            b.truncate(max_len);
            Some((p, b))
        })
        .collect()
}

/// The input being executed (for the hang watchdog and the allocation guard).
pub(crate) static CURRENT: Mutex<Vec<u8>> = Mutex::new(Vec::new());
/// Milliseconds since [`EPOCH`] at which the current input started (0: idle).
static STARTED: AtomicU64 = AtomicU64::new(0);
static EPOCH: OnceLock<Instant> = OnceLock::new();

fn now_ms() -> u64 {
    EPOCH.get_or_init(Instant::now).elapsed().as_millis() as u64 + 1
}

/// Saves `data` under `dir` as `KIND-HASH` and returns the path.
fn save(dir: &Path, kind: &str, data: &[u8]) -> Option<PathBuf> {
    std::fs::create_dir_all(dir).ok()?;
    let p = dir.join(format!("{kind}-{:016x}", fnv(data)));
    std::fs::write(&p, data).ok()?;
    Some(p)
}

/// FNV-1a, for file names.
pub fn fnv(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf29ce484222325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x100000001b3)
    })
}

/// Starts the watchdog: an input running past `hang` is saved under `crashes` and the process
/// exits with status 3. (A refused allocation is reported by [`run_input`] for the input that
/// caused it.)
fn watchdog(hang: Duration, crashes: Option<PathBuf>) {
    std::thread::spawn(move || loop {
        std::thread::sleep(Duration::from_millis(50));
        let s = STARTED.load(Ordering::Relaxed);
        let hung = s != 0 && now_ms() - s > hang.as_millis() as u64;
        if hung {
            let data = CURRENT.lock().map(|v| v.clone()).unwrap_or_default();
            let path = crashes.as_deref().and_then(|d| save(d, "hang", &data));
            eprintln!(
                "fuzz: an input ran longer than {} ms (hang), input saved as {}",
                hang.as_millis(),
                path.map_or("(nowhere)".into(), |p| p.display().to_string())
            );
            let _ = std::io::stderr().flush();
            std::process::exit(3);
        }
    });
}

/// Fuzzes target `t`.
pub fn fuzz(t: &Target, o: &Options) -> Report {
    let t0 = Instant::now();
    let crashes_dir = o.out.as_ref().map(|d| d.join("crashes").join(t.name));
    let corpus_dir = o.out.as_ref().map(|d| d.join("corpus").join(t.name));
    let mut corpus: Vec<Vec<u8>> = seeds(t, &o.corpus_dirs, o.max_len)
        .into_iter()
        .map(|s| s.1)
        .collect();
    if let Some(d) = &corpus_dir {
        if let Ok(rd) = std::fs::read_dir(d) {
            let mut kept: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
            kept.sort();
            corpus.extend(kept.iter().filter_map(|p| std::fs::read(p).ok()));
        }
    }
    let mut report = Report {
        seeds: corpus.len(),
        ..Default::default()
    };
    if corpus.is_empty() {
        corpus.push(Vec::new());
    }
    alloc::LIMIT.store(o.max_alloc, Ordering::Relaxed);
    let in_flight = crashes_dir.as_ref().map(|d| d.join(IN_FLIGHT));
    if let Some(p) = &in_flight {
        // An earlier session aborted on a refused allocation: keep its input as a crash.
        if let Ok(data) = std::fs::read(p).map(|d| (!d.is_empty()).then_some(d)) {
            if let (Some(data), Some(d)) = (data, crashes_dir.as_deref()) {
                if let Some(kept) = save(d, "alloc-abort", &data) {
                    eprintln!(
                        "fuzz: the last session aborted; its input is {}",
                        kept.display()
                    );
                }
            }
        }
        let opened = std::fs::create_dir_all(crashes_dir.as_deref().unwrap_or(Path::new(".")))
            .and_then(|_| std::fs::File::create(p));
        if let (Ok(f), Ok(mut g)) = (opened, alloc::LAST_WORDS.lock()) {
            *g = Some(f);
        }
    }
    watchdog(o.hang, crashes_dir.clone());
    // Silence the default panic output; panics are reported here.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut rng = ChaCha8Rng::seed_from_u64(o.seed);
    let mut shapes: HashSet<String> = HashSet::new();
    let mut crash_msgs: HashSet<String> = HashSet::new();
    let mut i = 0usize;
    let deadline = Duration::from_secs_f64(o.seconds);
    while report.execs < o.max_execs && t0.elapsed() < deadline {
        // Seeds first, unmutated; then mutations of random corpus entries.
        let input = if i < report.seeds {
            corpus[i].clone()
        } else {
            let a = rng.gen_range(0..corpus.len());
            let b = rng.gen_range(0..corpus.len());
            mutate(&mut rng, &corpus[a], &corpus[b], o.max_len)
        };
        i += 1;
        if let Ok(mut c) = CURRENT.lock() {
            c.clear();
            c.extend_from_slice(&input);
        }
        STARTED.store(now_ms(), Ordering::Relaxed);
        let out = run_input(t, &input);
        STARTED.store(0, Ordering::Relaxed);
        report.execs += 1;
        let key = match &out {
            Outcome::Ok(s) => format!("ok:{s}"),
            Outcome::Err(s) => format!("err:{s}"),
            Outcome::Panic(m) => {
                let k = crate::targets::shape(m);
                if crash_msgs.insert(k) {
                    let path = crashes_dir
                        .as_deref()
                        .and_then(|d| save(d, "panic", &input));
                    report.crashes.push((m.clone(), path));
                }
                continue;
            }
        };
        if shapes.insert(key) && i > report.seeds {
            if let Some(d) = &corpus_dir {
                save(d, "kept", &input);
            }
            corpus.push(input);
        }
    }
    std::panic::set_hook(hook);
    // Still here: no refused allocation aborted the process, so the in-flight copy is moot.
    if let Ok(mut g) = alloc::LAST_WORDS.lock() {
        *g = None;
    }
    if let Some(p) = &in_flight {
        let _ = std::fs::remove_file(p);
    }
    report.corpus = corpus.len();
    report.shapes = shapes.len();
    report.seconds = t0.elapsed().as_secs_f64();
    report
}
