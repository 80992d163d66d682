//! Reliability (issue 21): valid input accepted, endless kernels stopped, absurd machines
//! refused, layered configurations, whole-or-nothing outputs.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;

fn wf() -> Command {
    Command::cargo_bin("warpforge").unwrap()
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `.ptx` file under `dir`, skipping build outputs and hidden folders.
fn ptx_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if p.is_dir() {
            if name != "target" && !name.starts_with('.') {
                ptx_files(&p, out);
            }
        } else if name.ends_with(".ptx") {
            out.push(p);
        }
    }
}

/// `ptx check` accepts every PTX file committed in the repository (all are run by some test or
/// parsed by the corpus tests, so a rejection is a false error). Files meant to be refused
/// carry `invalid` in their name.
#[test]
fn ptx_check_accepts_every_ptx_in_the_repository() {
    let mut files = Vec::new();
    ptx_files(&repo_root(), &mut files);
    files.sort();
    assert!(files.len() >= 60, "only {} .ptx files found", files.len());
    let mut failures = Vec::new();
    for f in files
        .iter()
        .filter(|f| !f.to_string_lossy().contains("invalid"))
    {
        let out = wf().args(["ptx", "check"]).arg(f).output().unwrap();
        if !out.status.success() {
            failures.push(format!(
                "{}: {}",
                f.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "false rejections:\n{}",
        failures.join("\n")
    );
}

const SPIN_PTX: &str = ".version 7.0\n.target sm_70\n.address_size 64\n\
.visible .entry spin(.param .u64 out)\n{\nL:\n  bra L;\n  ret;\n}\n";

/// An endless kernel (`L: bra L;`) is stopped by the default guard in functional mode and by
/// the watchdog in timing mode: exit status 2, a message naming kernel, CTA, warp and pc.
#[test]
fn endless_kernel_is_stopped_in_both_modes() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("spin.ptx");
    std::fs::write(&f, SPIN_PTX).unwrap();
    let run = |extra: &[&str]| {
        let mut c = wf();
        c.args(["ptx", "run"])
            .arg(&f)
            .args(["--kernel", "spin", "--grid", "2", "--block", "64"])
            .args(["--arg", "buf:o:u32:4:zeros"])
            .args(extra)
            .timeout(std::time::Duration::from_secs(60));
        c
    };
    run(&["--stall-limit", "1000000"]).assert().code(2).stderr(
        predicate::str::contains("kernel `spin`, CTA (0,0,0): no forward progress")
            .and(predicate::str::contains("warp 0 at pc 0x0 (line 7)"))
            .and(predicate::str::contains("--stall-limit")),
    );
    run(&["--mode", "timing", "--stall-limit", "20000"])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("kernel `spin`")
                .and(predicate::str::contains("livelock"))
                .and(predicate::str::contains("(CTA 0, warp 0): pc 0x")),
        );
    // `off` is accepted; --config belongs to timing mode.
    run(&["--stall-limit", "off", "--config", "gtx480"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("need --mode timing"));
}
