//! Every GPGPU-Sim config in `shared/reference/` parses: options, cache strings, `.icnt` files.

use std::path::{Path, PathBuf};
use warpforge_trace::gpgpusim::{CacheConfig, IcntConfig, Options};

fn config_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/reference");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("gpgpusim-configs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.push(root.join("accelsim-traces/ref_config_gtx1080_from_microgpusim"));
    dirs.sort();
    dirs
}

#[test]
fn every_reference_config_parses_with_its_caches_and_icnt() {
    let dirs = config_dirs();
    assert_eq!(dirs.len(), 9);
    for dir in dirs {
        let mut o = Options::load(&dir.join("gpgpusim.config")).unwrap();
        for extra in ["trace.config", "gpgpusim.trace.config"] {
            if dir.join(extra).exists() {
                o.add_file(&dir.join(extra)).unwrap();
            }
        }
        assert!(
            o.u32("gpgpu_n_clusters").unwrap().unwrap() > 0,
            "{}",
            dir.display()
        );
        let mut caches = 0;
        for e in o.effective() {
            if e.name.starts_with("gpgpu_cache:") && e.name != "gpgpu_cache:dl2_texture_only"
                || e.name.ends_with("cache:l1")
            {
                CacheConfig::parse(&e.value).unwrap_or_else(|m| panic!("{}: {m}", e.name));
                caches += 1;
            }
        }
        assert!(caches >= 3, "{}", dir.display());
        if let Some(icnt) = o.str("inter_config_file") {
            let c = IcntConfig::load(&dir.join(icnt)).unwrap();
            assert!(c.u32("flit_size").unwrap().is_some());
        }
        if let Some(e) = o.get("gpgpu_dram_timing_opt") {
            let kv = warpforge_trace::gpgpusim::options::parse_kv_colon(e).unwrap();
            assert!(kv.iter().any(|(k, v)| k == "CL" && *v > 0));
        }
    }
}

#[test]
fn gtx1080_reference_values() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/reference/accelsim-traces/ref_config_gtx1080_from_microgpusim");
    let mut o = Options::load(&dir.join("gpgpusim.config")).unwrap();
    assert!(o.get("trace_opcode_latency_initiation_sfu").is_none());
    o.add_file(&dir.join("gpgpusim.trace.config")).unwrap();
    assert_eq!(o.u32("gpgpu_n_clusters").unwrap(), Some(20));
    assert_eq!(o.u32("gpgpu_n_mem").unwrap(), Some(8));
    assert_eq!(
        o.list("ptx_opcode_latency_int", ',').unwrap().unwrap(),
        vec![4, 13, 4, 5, 145]
    );
    let l2 = CacheConfig::parse(o.str("gpgpu_cache:dl2").unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(l2.size_bytes(), 128 * 1024);
    assert_eq!(
        o.list("trace_opcode_latency_initiation_sfu", ',')
            .unwrap()
            .unwrap(),
        vec![21, 8]
    );
    let timing =
        warpforge_trace::gpgpusim::options::parse_kv_colon(o.get("gpgpu_dram_timing_opt").unwrap())
            .unwrap();
    assert_eq!(timing.len(), 14);
    assert!(timing.contains(&("RC".to_string(), 40)));
}
