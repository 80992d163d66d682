//! `warpforge trace` and `warpforge config import` from the command line.

use assert_cmd::Command;
use predicates::prelude::*;
use std::path::{Path, PathBuf};

fn reference() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/reference")
}

fn wf() -> Command {
    Command::cargo_bin("warpforge").unwrap()
}

#[test]
fn config_import_writes_a_loadable_preset_and_one_warning() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = reference().join("gpgpusim-configs/SM7_QV100");
    let out = dir.path().join("qv100.toml");
    wf().args(["config", "import"])
        .arg(cfg.join("gpgpusim.config"))
        .arg(cfg.join("trace.config"))
        .arg("-o")
        .arg(&out)
        .assert()
        .success()
        .stderr(predicate::str::contains("warning:").count(1))
        .stderr(predicate::str::contains("not modelled"));
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("num_sms = 80"), "{text}");
    // The preset runs a real trace and writes JSON statistics.
    let json = dir.path().join("va.json");
    wf().args(["trace", "run"])
        .arg(reference().join("accelsim-traces/vectoradd-100-32-trace/kernelslist.g"))
        .arg("--config")
        .arg(&out)
        .arg("--json")
        .arg(&json)
        .assert()
        .success();
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["stats"]["total"]["warp_insts"], 344);
    assert_eq!(v["mode"], "trace");
    // The same run reported in Accel-Sim's layout agrees with the JSON.
    let log = dir.path().join("va.log");
    wf().args(["trace", "run"])
        .arg(reference().join("accelsim-traces/vectoradd-100-32-trace/kernelslist.g"))
        .arg("--config")
        .arg(&out)
        .arg("--accelsim-stats")
        .arg(&log)
        .assert()
        .success();
    let text = std::fs::read_to_string(&log).unwrap();
    let cycles = v["stats"]["total"]["cycles"].as_u64().unwrap();
    assert!(
        text.contains(&format!("\ngpu_sim_cycle = {cycles}\n")),
        "{text}"
    );
    assert!(text.contains("\ngpgpu_n_tot_w_icount = 344\n"), "{text}");
}

#[test]
fn broken_inputs_exit_nonzero_with_the_place() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.config");
    std::fs::write(
        &bad,
        "-gpgpu_n_clusters 4\n-gpgpu_cache:dl2 S:32:128:x,L:B:m:L:P,A:192:4,32:0,32\n",
    )
    .unwrap();
    wf().args(["config", "import"])
        .arg(&bad)
        .arg("-o")
        .arg(dir.path().join("o.toml"))
        .assert()
        .failure()
        .stderr(predicate::str::contains("bad.config:2").and(predicate::str::contains("assoc")));
    let t = dir.path().join("t");
    std::fs::create_dir(&t).unwrap();
    std::fs::write(t.join("kernelslist.g"), "kernel-1.traceg\n").unwrap();
    let src = std::fs::read_to_string(
        reference().join("accelsim-traces/vectoradd-100-32-trace/kernel-1.traceg"),
    )
    .unwrap();
    std::fs::write(
        t.join("kernel-1.traceg"),
        src.replacen(" FADD ", " FNORD ", 1),
    )
    .unwrap();
    wf().args(["trace", "run"])
        .arg(t.join("kernelslist.g"))
        .assert()
        .failure()
        .stderr(
            predicate::str::contains("unknown opcode `FNORD`")
                .and(predicate::str::contains("kernel-1.traceg:44")),
        );
}

#[test]
fn record_then_replay_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let name = warpforge_workloads::registry()[0].info().name;
    let exec = dir.path().join("exec.json");
    wf().args([
        "trace", "record", name, "--size", "tiny", "--config", "gtx480", "-o",
    ])
    .arg(dir.path().join("tr"))
    .arg("--json")
    .arg(&exec)
    .assert()
    .success();
    let replay = dir.path().join("replay.json");
    wf().args(["trace", "run"])
        .arg(dir.path().join("tr/kernelslist.g"))
        .args(["--config", "gtx480", "--json"])
        .arg(&replay)
        .assert()
        .success();
    let a: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&exec).unwrap()).unwrap();
    let b: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&replay).unwrap()).unwrap();
    assert_eq!(a["stats"]["total"]["cycles"], b["stats"]["total"]["cycles"]);
    assert_eq!(
        a["stats"]["total"]["warp_insts"],
        b["stats"]["total"]["warp_insts"]
    );
}

#[test]
fn run_accepts_gpgpusim_configs() {
    let dir = tempfile::tempdir().unwrap();
    let g = reference().join("accelsim-traces/ref_config_gtx1080_from_microgpusim");
    let name = warpforge_workloads::registry()[0].info().name;
    let json = dir.path().join("run.json");
    wf().args([
        "run",
        name,
        "--mode",
        "timing",
        "--size",
        "tiny",
        "--gpgpusim-config",
    ])
    .arg(g.join("gpgpusim.config"))
    .arg("--gpgpusim-config")
    .arg(g.join("gpgpusim.trace.config"))
    .arg("--json")
    .arg(&json)
    .arg("--accelsim-stats")
    .arg(dir.path().join("run.log"))
    .assert()
    .success()
    .stderr(predicate::str::contains("warning:").count(1));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["config"], "gpgpusim:ref_config_gtx1080_from_microgpusim");
    // One Accel-Sim-layout report per launch; the last cumulative cycle count is the total.
    let log = std::fs::read_to_string(dir.path().join("run.log")).unwrap();
    let kernels = v["stats"]["kernels"].as_array().unwrap().len();
    assert_eq!(log.matches("kernel_name = ").count(), kernels);
    let total = v["stats"]["total"]["cycles"].as_u64().unwrap();
    assert!(
        log.contains(&format!("gpu_tot_sim_cycle = {total}\n")),
        "{log}"
    );
    // Functional mode refuses timing-only flags.
    wf().args(["run", name, "--mode", "functional", "--gpgpusim-config"])
        .arg(g.join("gpgpusim.config"))
        .assert()
        .failure()
        .stderr(predicate::str::contains("--gpgpusim-config"));
    let stray = dir.path().join("functional.log");
    wf().args(["run", name, "--mode", "functional", "--accelsim-stats"])
        .arg(&stray)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--accelsim-stats"));
    assert!(!stray.exists());
}
