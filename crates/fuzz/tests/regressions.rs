//! Every crashing input the fuzzer found (kept under `regressions/TARGET/`) runs without a
//! panic, and a short fuzzing smoke of every target (the CI smoke) finds no crash.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use warpforge_fuzz::engine::{fuzz, run_input, Options, Outcome};
use warpforge_fuzz::TARGETS;

#[global_allocator]
static ALLOC: warpforge_fuzz::alloc::Bounded = warpforge_fuzz::alloc::Bounded;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn saved_crashes_no_longer_crash() {
    warpforge_fuzz::alloc::LIMIT.store(2 << 30, std::sync::atomic::Ordering::Relaxed);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("regressions");
    let mut n = 0;
    for t in TARGETS {
        let Ok(rd) = std::fs::read_dir(dir.join(t.name)) else {
            continue;
        };
        let mut files: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
        files.sort();
        for f in files {
            let data = std::fs::read(&f).unwrap();
            let t0 = Instant::now();
            let out = run_input(t, &data);
            assert!(
                !matches!(out, Outcome::Panic(_)),
                "{}: {out:?}",
                f.display()
            );
            assert!(
                t0.elapsed() < Duration::from_secs(10),
                "{}: slow",
                f.display()
            );
            n += 1;
        }
    }
    eprintln!("{n} regression inputs replayed from {}", dir.display());
}

/// The CI smoke: every seed of every target, then mutations, a few hundred inputs each.
#[test]
fn smoke_every_target() {
    for t in TARGETS {
        let o = Options {
            seconds: 20.0,
            max_execs: 300,
            seed: 7,
            corpus_dirs: vec![root()],
            out: None,
            max_len: 64 * 1024,
            hang: Duration::from_secs(60),
            max_alloc: 2 << 30,
        };
        let r = fuzz(t, &o);
        assert!(r.seeds > 0, "{}: no seed files", t.name);
        assert!(r.execs > 0);
        assert!(r.crashes.is_empty(), "{}: {:?}", t.name, r.crashes);
    }
}
