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

/// Outputs appear whole or not at all: `trace record` and `ptx run --out` killed with SIGKILL
/// at several moments leave either no file or a complete one (the temporary files are hidden
/// `.NAME.tmp*` files beside them).
#[test]
fn outputs_survive_sigkill_whole_or_absent() {
    let bin = assert_cmd::cargo::cargo_bin("warpforge");
    let dir = tempfile::tempdir().unwrap();
    for (i, ms) in [150u64, 400, 800, 1500, 3000].into_iter().enumerate() {
        // A multi-kernel trace: every kernel file present is complete, and the list names only
        // files that exist.
        let out = dir.path().join(format!("tr{i}"));
        let mut child = std::process::Command::new(&bin)
            .args(["trace", "record", "bfs", "--size", "tiny", "-o"])
            .arg(&out)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(ms));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        if let Ok(rd) = std::fs::read_dir(&out) {
            for e in rd.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if name.starts_with('.') {
                    continue; // an unfinished temporary file
                }
                let text = std::fs::read_to_string(e.path()).unwrap();
                if name.ends_with(".traceg") {
                    assert!(text.ends_with("#END_TB\n\n"), "{name} cut at {ms} ms");
                } else if name == "kernelslist.g" {
                    for k in text.lines() {
                        assert!(out.join(k).exists(), "{k} listed but absent at {ms} ms");
                    }
                }
            }
        }
        // A 64 MiB `.npy`: absent or exactly its full size.
        let npy = dir.path().join(format!("y{i}.npy"));
        let n = 16 << 20;
        let mut child = std::process::Command::new(&bin)
            .args(["ptx", "run"])
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../simt/tests/kernels/vecadd.ptx"))
            .args(["--kernel", "saxpy_i32", "--grid", "1", "--block", "32"])
            .args(["--arg", "s32:1", "--arg", &format!("buf:x:s32:{n}:range")])
            .args(["--arg", &format!("buf:y:s32:{n}:range"), "--arg", "u32:32"])
            .arg("--out")
            .arg(format!("y={}", npy.display()))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(ms));
        let _ = child.kill();
        let _ = child.wait();
        if let Ok(m) = std::fs::metadata(&npy) {
            // Header (at most 256 bytes) then all 4n data bytes.
            let data = 4 * n as u64;
            assert!(
                m.len() > data && m.len() <= data + 256,
                "partial .npy ({} bytes) at {ms} ms",
                m.len()
            );
        }
    }
}

/// An absurd machine is refused at once, naming the estimate and the key that drives it; a
/// `--max-memory` bound below a normal machine refuses it too; a normal run is unaffected.
#[test]
fn absurd_machines_are_refused_in_under_a_second() {
    let t0 = std::time::Instant::now();
    wf().args(["run", "kmn", "--size", "tiny", "--mode", "timing"])
        .args(["--set", "core.num_sms=100000"])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("estimated")
                .and(predicate::str::contains("`core.num_sms`"))
                .and(predicate::str::contains("100000 SMs")),
        );
    assert!(
        t0.elapsed() < std::time::Duration::from_secs(1),
        "{:?}",
        t0.elapsed()
    );
    wf().args([
        "run",
        "kmn",
        "--size",
        "tiny",
        "--mode",
        "timing",
        "--max-memory",
        "1M",
    ])
    .assert()
    .code(2)
    .stderr(predicate::str::contains(
        "above the --max-memory bound (1.0 MiB)",
    ));
    wf().args([
        "run",
        "kmn",
        "--size",
        "tiny",
        "--mode",
        "timing",
        "--max-memory",
        "lots",
    ])
    .assert()
    .code(2)
    .stderr(predicate::str::contains("expected a size"));
    wf().args([
        "run",
        "kmn",
        "--size",
        "tiny",
        "--mode",
        "timing",
        "--max-memory",
        "2G",
    ])
    .assert()
    .success();
}
