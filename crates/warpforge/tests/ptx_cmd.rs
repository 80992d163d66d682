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

fn read_i32(path: &std::path::Path) -> Vec<i32> {
    let a = npy::read(&std::fs::read(path).unwrap()).unwrap();
    assert_eq!(a.dtype, npy::Dtype::I32);
    a.data
        .chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn read_f32(path: &std::path::Path) -> Vec<f32> {
    let a = npy::read(&std::fs::read(path).unwrap()).unwrap();
    assert_eq!(a.dtype, npy::Dtype::F32);
    a.data
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn json(path: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Issue 14 item 1: the same arguments run on the timing model give the same buffers as the
/// functional run, and the JSON carries the cycles of every launch.
#[test]
fn timing_mode_runs_the_same_launches_with_cycles() {
    let dir = tempfile::tempdir().unwrap();
    let run = |mode: &str, tag: &str, extra: &[&str]| {
        let out = dir.path().join(format!("{tag}.npy"));
        let js = dir.path().join(format!("{tag}.json"));
        vecadd_run("saxpy_i32", "8", "128")
            .args(["--arg", "s32:-3", "--arg", "buf:x:s32:1000:range"])
            .args(["--arg", "buf:y:s32:1000:range", "--arg", "u32:1000"])
            .args(["--launches", "2", "--mode", mode])
            .args(["--out", &format!("y={}", out.display())])
            .args(["--json", js.to_str().unwrap()])
            .args(extra)
            .assert()
            .success();
        (read_i32(&out), json(&js))
    };
    let (func, fj) = run("functional", "f", &[]);
    let (tim, tj) = run("timing", "t", &["--config", "gtx480", "--threads", "1"]);
    let (tim2, tj2) = run(
        "timing",
        "t2",
        &["--set", "core.num_sms=2", "--threads", "2"],
    );
    assert_eq!(func, tim, "timing mode computes the same results");
    assert_eq!(func, tim2);
    assert!(fj.get("cycles").is_none(), "functional runs have no cycles");
    assert_eq!(fj["warp_insts"], tj["warp_insts"]);
    let kernels = tj["stats"]["kernels"].as_array().unwrap();
    assert_eq!(kernels.len(), 2, "one entry per launch");
    let sum: u64 = kernels.iter().map(|k| k["cycles"].as_u64().unwrap()).sum();
    let cycles = tj["cycles"].as_u64().unwrap();
    assert!(cycles > 0);
    assert_eq!(cycles, sum, "top-level cycles are the launches' total");
    assert_eq!(tj["config"], "gtx480");
    // 8 CTAs on 2 SMs take longer than on 15.
    assert!(tj2["cycles"].as_u64().unwrap() > cycles);
    // The CPU reference: y = -3 x + y twice, from x = y = i.
    assert_eq!(func, (0..1000).map(|i| -5 * i).collect::<Vec<i32>>());
    // Functional mode refuses timing options.
    vecadd_run("saxpy_i32", "1", "32")
        .args(["--set", "core.num_sms=2"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--mode timing"));
}

/// A launch script: buffers once, then several kernels; checked against a CPU computation
/// in both modes.
#[test]
fn launch_script_runs_a_sequence_of_kernels() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(kernels("vecadd.ptx"), dir.path().join("k.ptx")).unwrap();
    let script = dir.path().join("prog.toml");
    std::fs::write(
        &script,
        r#"ptx = "k.ptx"
[[buffer]]
name = "a"
type = "f32"
count = 300
init = "range"
[[buffer]]
name = "b"
type = "f32"
count = 300
init = "rand:3"
[[buffer]]
name = "c"
type = "f32"
count = 300
[[buffer]]
name = "x"
type = "s32"
count = 300
init = "range"
[[buffer]]
name = "y"
type = "s32"
count = 300
[[launch]]
kernel = "vecadd_f32"
grid = 3
block = [100]
args = ["buf:a", "buf:b", "buf:c", "u32:300"]
[[launch]]
kernel = "saxpy_i32"
grid = "2"
block = "160"
args = ["s32:5", "buf:x", "buf:y", "u32:300"]
repeat = 3
"#,
    )
    .unwrap();
    let mut results = Vec::new();
    for mode in ["functional", "timing"] {
        let c = dir.path().join(format!("c-{mode}.npy"));
        let y = dir.path().join(format!("y-{mode}.npy"));
        let js = dir.path().join(format!("{mode}.json"));
        wf().args(["ptx", "run", "--script", script.to_str().unwrap()])
            .args(["--mode", mode, "--json", js.to_str().unwrap()])
            .args(["--out", &format!("c={}", c.display())])
            .args(["--out", &format!("y={}", y.display())])
            .assert()
            .success();
        let (c, y) = (read_f32(&c), read_i32(&y));
        // a = i, b = rand in [0, 1): c - a = b lies in [0, 1); y = 3 * 5 * i.
        for (i, v) in c.iter().enumerate() {
            let b = v - i as f32;
            assert!((0.0..1.0).contains(&b), "c[{i}] = {v}");
        }
        assert_eq!(y, (0..300).map(|i| 15 * i).collect::<Vec<i32>>());
        let j = json(&js);
        assert_eq!(j["launches"].as_array().unwrap().len(), 2);
        if mode == "timing" {
            assert_eq!(j["stats"]["kernels"].as_array().unwrap().len(), 4);
        }
        results.push(c);
    }
    assert_eq!(results[0], results[1]);
}

#[test]
fn bad_launch_scripts_are_refused_with_their_place() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(kernels("vecadd.ptx"), dir.path().join("k.ptx")).unwrap();
    let js = dir.path().join("out.json");
    let cases: [(&str, &str); 5] = [
        (
            "ptx = \"k.ptx\"\n[[launch]]\nkernel = \"saxpy_i32\"\ngrid = 1\nblock = 1\nthreads = 3\n",
            "prog.toml:6: unknown field `threads`",
        ),
        (
            "ptx = \"k.ptx\"\n[[launch]]\nkernel = \"saxpy_i32\"\ngrid = 1\nblock = 1\nargs = [\"buf:q\"]\n",
            "no buffer named `q`",
        ),
        (
            "ptx = \"k.ptx\"\n[[launch]]\nkernel = \"nope\"\ngrid = 1\nblock = 1\n",
            "available kernels: saxpy_i32, vecadd_f32",
        ),
        ("ptx = \"k.ptx\"\n", "no [[launch]] entries"),
        (
            "ptx = \"k.ptx\"\n[[launch]]\nkernel = \"saxpy_i32\"\ngrid = \"1,0\"\nblock = 1\n",
            "launch 1 (`saxpy_i32`): grid",
        ),
    ];
    for (text, want) in cases {
        let script = dir.path().join("prog.toml");
        std::fs::write(&script, text).unwrap();
        wf().args(["ptx", "run", "--script", script.to_str().unwrap()])
            .args(["--json", js.to_str().unwrap()])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(want));
        assert!(!js.exists(), "no JSON after a refused script");
    }
}
