//! Every file of `tests/corpus/` parses, and its CFG and reconvergence points are well formed.

use std::path::Path;
use warpforge_ptx::{parse, reconvergence_points, Cfg};

#[test]
fn whole_corpus_parses() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut n = 0;
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    for p in paths {
        if p.extension().and_then(|e| e.to_str()) != Some("ptx") {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        let m = parse(&text, &p.display().to_string()).unwrap_or_else(|e| panic!("{e}"));
        assert!(m.kernels().count() > 0, "{}: no kernels", p.display());
        for f in m.functions.iter().filter(|f| !f.is_decl) {
            let cfg = Cfg::build(f);
            assert_eq!(cfg.block_of.len(), f.insts.len());
            let rp = reconvergence_points(f);
            assert_eq!(rp.len(), f.insts.len());
            assert!(rp.iter().all(|&r| r as usize <= f.insts.len()));
        }
        n += 1;
    }
    assert!(n >= 3, "corpus too small: {n}");
}

/// Every workload's checked-in PTX (`workloads/*/kernel.ptx`, clang-16 output) parses and has
/// well-formed reconvergence points.
#[test]
fn workload_ptx_parses() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../workloads");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    let mut paths: Vec<_> = entries
        .map(|e| e.unwrap().path().join("kernel.ptx"))
        .filter(|p| p.exists())
        .collect();
    paths.sort();
    for p in &paths {
        let text = std::fs::read_to_string(p).unwrap();
        let m = parse(&text, &p.display().to_string()).unwrap_or_else(|e| panic!("{e}"));
        for f in m.functions.iter().filter(|f| !f.is_decl) {
            let rp = reconvergence_points(f);
            assert!(rp.iter().all(|&r| r as usize <= f.insts.len()));
        }
    }
}
