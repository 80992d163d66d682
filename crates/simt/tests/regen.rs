//! The committed PTX of tests/kernels/*.cu must be what clang-16 produces from the CUDA source
//! with the flags of `workloads/build-ptx.sh`. Skipped (with a note) when clang-16 is absent.

use std::path::Path;
use std::process::Command;

#[test]
fn committed_ptx_matches_clang16_output() {
    let clang = std::env::var("CLANG").unwrap_or_else(|_| "clang-16".to_string());
    if Command::new(&clang).arg("--version").output().is_err() {
        eprintln!("note: {clang} not found; skipping the PTX regeneration check");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let include = root.join("../../workloads/include");
    let dir = root.join("tests/kernels");
    let tmp = std::env::temp_dir().join(format!("wf-simt-regen-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut n = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for cu in entries
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "cu"))
    {
        let stem = cu.file_stem().unwrap().to_str().unwrap();
        let out = tmp.join(format!("{stem}.ptx"));
        let status = Command::new(&clang)
            .args([
                "-x",
                "cuda",
                "--cuda-device-only",
                "-nocudainc",
                "-nocudalib",
            ])
            .args(["--cuda-gpu-arch=sm_70", "-O2", "-S"])
            .args(["-Xclang", "-target-feature", "-Xclang", "+ptx70", "-g0"])
            .arg("-I")
            .arg(&include)
            .arg(cu)
            .arg("-o")
            .arg(&out)
            .status()
            .unwrap();
        assert!(status.success(), "{clang} failed on {}", cu.display());
        let fresh = std::fs::read_to_string(&out).unwrap();
        let committed = std::fs::read_to_string(dir.join(format!("{stem}.ptx")))
            .unwrap_or_else(|_| panic!("{stem}.ptx is not committed"));
        assert!(
            fresh == committed,
            "tests/kernels/{stem}.ptx differs from clang-16 output; regenerate it"
        );
        n += 1;
    }
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(n >= 8, "expected the kernel sources, found {n}");
}
