//! Helpers shared by the sweep test files (`sweep.rs`, `sweep_experiments.rs`, `sweep_slurm.rs`):
//! the binary under test, path conversion, and the refused-spec check.
#![allow(dead_code)] // each test file uses a different subset

use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// The `warpforge` binary of this build.
pub fn wf() -> Command {
    Command::cargo_bin("warpforge").unwrap()
}

/// A path as the `&str` a command-line argument needs.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs `warpforge sweep bad.toml --out DIR` on a spec that must be refused: exit status 2, no
/// panic, every needle in stderr. Returns the temporary directory (keep it alive) and the output
/// directory the sweep was given, for the caller's check of what must not have been created.
pub fn sweep_refused(spec_text: &str, needles: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let spec = t.path().join("bad.toml");
    std::fs::write(&spec, spec_text).unwrap();
    let out_dir = t.path().join("out");
    let out = wf()
        .args(["sweep", s(&spec), "--out", s(&out_dir)])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{spec_text}\nstderr:\n{err}");
    assert!(!err.contains("panicked"), "{err}");
    for n in needles {
        assert!(err.contains(n), "stderr lacks `{n}`:\n{err}");
    }
    (t, out_dir)
}
