//! `warpforge ptx check` and `warpforge ptx run` end to end.

use assert_cmd::Command;
use predicates::prelude::*;
use warpforge_simt::npy;

fn kernels(name: &str) -> String {
    format!(
        "{}/../simt/tests/kernels/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn wf() -> Command {
    Command::cargo_bin("warpforge").unwrap()
}

/// `ptx run vecadd.ptx --kernel KERNEL --grid GRID --block BLOCK`, for the arguments.
fn vecadd_run(kernel: &str, grid: &str, block: &str) -> Command {
    let mut c = wf();
    c.args(["ptx", "run", &kernels("vecadd.ptx"), "--kernel", kernel])
        .args(["--grid", grid, "--block", block]);
    c
}

#[test]
fn check_summarises_or_reports_position() {
    wf().args(["ptx", "check", &kernels("reduce.ptx")])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "ok: 2 kernels (reduce_sum, reduce_dyn)",
        ));
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.ptx");
    std::fs::write(&bad, ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k()\n{\n  frob.u32 %r1;\n}\n").unwrap();
    wf().args(["ptx", "check", bad.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("error: ").and(predicate::str::contains("bad.ptx:6:3:")));
    wf().args(["ptx", "check", "/nonexistent.ptx"])
        .assert()
        .code(2);
}

#[test]
fn run_writes_npy_outputs_matching_a_cpu_computation() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("c.npy");
    vecadd_run("saxpy_i32", "4", "128")
        .args(["--arg", "s32:-3"])
        .args([
            "--arg",
            "buf:x:s32:500:range",
            "--arg",
            "buf:y:s32:500:rand:7",
            "--arg",
            "u32:500",
        ])
        .args(["--out", &format!("y={}", out.display()), "--launches", "2"])
        .assert()
        .success()
        .stdout(predicate::str::contains("2 launches"));
    let a = npy::read(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(a.dtype, npy::Dtype::I32);
    assert_eq!(a.shape, vec![500]);
    // Feed the first output back in as an input file: y' = -3 x + y after two launches.
    let first: Vec<i32> = a
        .data
        .chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let out2 = dir.path().join("y2.npy");
    vecadd_run("saxpy_i32", "4", "128")
        .args(["--arg", "s32:2"])
        .args(["--arg", "buf:x:s32:500:range"])
        .args([
            "--arg",
            &format!("buf:y:s32:500:file:{}", out.display()),
            "--arg",
            "u32:500",
        ])
        .args(["--out", &format!("y={}", out2.display())])
        .assert()
        .success();
    let b = npy::read(&std::fs::read(&out2).unwrap()).unwrap();
    let second: Vec<i32> = b
        .data
        .chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    for i in 0..500 {
        assert_eq!(second[i], first[i].wrapping_add(2 * i as i32));
    }
}

#[test]
fn bad_inputs_exit_2_without_output_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("c.npy");
    let outs = format!("c={}", out.display());
    let base = |extra: &[&str]| {
        let mut c = vecadd_run("vecadd_f32", "1", "64");
        c.args(extra);
        c
    };
    // Out-of-bounds access: the buffers are too small for n = 1000.
    base(&[
        "--arg",
        "buf:a:f32:10:range",
        "--arg",
        "buf:b:f32:10:range",
        "--arg",
        "buf:c:f32:10:zeros",
    ])
    .args(["--arg", "u32:1000", "--out", &outs])
    .assert()
    .code(2)
    .stderr(
        predicate::str::contains("outside every allocation")
            .and(predicate::str::contains("vecadd_f32")),
    );
    assert!(!out.exists(), "no output after a failed run");
    // Wrong argument count, unknown kernel, bad scalar, bad buffer spec, unknown --out name.
    let cases: [(&[&str], &str); 5] = [
        (&["--arg", "u32:1"], "takes 4 arguments"),
        (&["--arg", "u32:x"], "u32:x"),
        (&["--arg", "buf:a:f33:4:zeros"], "unknown element type"),
        (&["--arg", "buf:a:f32:4:ones"], "unknown INIT"),
        (
            &["--arg", "buf:a:f32:4:zeros", "--out", "zz=/tmp/x.npy"],
            "no buffer named `zz`",
        ),
    ];
    for (args, want) in cases {
        base(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(want));
    }
    wf().args([
        "ptx",
        "run",
        &kernels("vecadd.ptx"),
        "--kernel",
        "nope",
        "--grid",
        "1",
        "--block",
        "1",
    ])
    .assert()
    .code(2)
    .stderr(predicate::str::contains(
        "available kernels: saxpy_i32, vecadd_f32",
    ));
    wf().args([
        "ptx",
        "run",
        &kernels("vecadd.ptx"),
        "--kernel",
        "vecadd_f32",
        "--grid",
        "1,0",
        "--block",
        "1",
    ])
    .assert()
    .code(2);
    // A .npy input whose dtype or length does not match.
    let f = dir.path().join("in.npy");
    std::fs::write(&f, npy::write(npy::Dtype::F64, &[0u8; 32])).unwrap();
    base(&["--arg", &format!("buf:a:f32:4:file:{}", f.display())])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("does not match"));
    base(&["--arg", &format!("buf:a:f64:5:file:{}", f.display())])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("4 elements"));
    assert!(!out.exists());
}

#[test]
fn check_decodes_functions_no_kernel_calls() {
    // `f` is never called, but recursion is something the executor cannot run: check says so.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("rec.ptx");
    std::fs::write(
        &p,
        ".version 7.0\n.target sm_70\n.address_size 64\n.func f()\n{\n  call.uni f, ();\n  ret;\n}\n.visible .entry k()\n{\n  ret;\n}\n",
    )
    .unwrap();
    wf().args(["ptx", "check", p.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("rec.ptx:6:").and(predicate::str::contains("recursive")));
}
