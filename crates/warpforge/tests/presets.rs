//! The modern-GPU presets (issue 14 item 4): `qv100` and `rtx3070` are exactly what
//! `config import` makes of Accel-Sim's configuration files, so they stay in step with the
//! importer; `h100` differs from its import only where the H100 measurements replace values.

use assert_cmd::Command;

fn wf() -> Command {
    Command::cargo_bin("warpforge").unwrap()
}

fn shared() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/reference/gpgpusim-configs")
}

/// `config show` of a preset or file, without the name and description lines; a list the
/// TOML writer spreads over several lines (`carveouts = [`, items, `]`) is one line.
fn show(config: &str) -> Vec<String> {
    let out = wf().args(["config", "show", config]).output().unwrap();
    assert!(out.status.success(), "config show {config}");
    let mut lines: Vec<String> = vec![];
    let mut open = false;
    for l in String::from_utf8(out.stdout).unwrap().lines() {
        if l.starts_with("name =") || l.starts_with("description =") || l.starts_with('#') {
            continue;
        }
        if open {
            let last = lines.last_mut().unwrap();
            last.push_str(l.trim());
            open = l.trim() != "]";
        } else {
            open = l.ends_with('[');
            lines.push(l.to_string());
        }
    }
    lines
}

fn import(dir: &str, out: &std::path::Path) {
    let d = shared().join(dir);
    if !d.exists() {
        eprintln!("skipped: {} is not here", d.display());
        return;
    }
    wf().args(["config", "import"])
        .arg(d.join("gpgpusim.config"))
        .arg(d.join("trace.config"))
        .arg("-o")
        .arg(out)
        .assert()
        .success();
}

#[test]
fn imported_presets_equal_a_fresh_import() {
    let tmp = tempfile::tempdir().unwrap();
    for (preset, dir) in [("qv100", "SM7_QV100"), ("rtx3070", "SM86_RTX3070")] {
        let f = tmp.path().join(format!("{preset}.toml"));
        import(dir, &f);
        if f.exists() {
            assert_eq!(show(preset), show(f.to_str().unwrap()), "{preset}");
        }
    }
}

#[test]
fn h100_replaces_only_measured_values() {
    let tmp = tempfile::tempdir().unwrap();
    let f = tmp.path().join("h100.toml");
    import("SM90_H100_dummy_h100-test_branch", &f);
    if !f.exists() {
        return;
    }
    let (ours, imported) = (show("h100"), show(f.to_str().unwrap()));
    assert_eq!(ours.len(), imported.len());
    let changed: Vec<(&String, &String)> =
        ours.iter().zip(&imported).filter(|(a, b)| a != b).collect();
    // Clocks (4), shared bytes, four instruction latencies (int_mul, fp_alu, dp, sfu; int_alu
    // was already 2), L1D geometry (2) and latency, shared latency, L2 hit and DRAM latencies,
    // kernel launch latency (3.6 us per back-to-back launch): 16 values from the measurements;
    // and the unified L1/shared array switched off (2: unified_bytes, carveouts), so that the
    // L1D keeps the measured 192 KiB; and the far-half L2 latency (1: `l2.far_latency`, from the
    // measured near and far L2 hits); and the L1D's data path (2: `l1d.banks` 4 of 32 bytes,
    // the measured 128 bytes per cycle, and the `sectors` bank arbiter); and the GPU-wide CTA
    // dispatch gap (1: `core.cta_dispatch_millicycles`, measured on an H200); and the perfect
    // instruction and constant caches switched off (2: the measured launch floor includes the
    // cold instruction fetch).
    assert_eq!(changed.len(), 24, "{changed:#?}");
    assert!(ours.contains(&"cta_dispatch_millicycles = 919".to_string()));
    assert!(ours.contains(&"bank_arbiter = \"sectors\"".to_string()));
    assert!(ours.contains(&"far_latency = 160".to_string()));
    assert!(ours.contains(&"core_mhz = 1980.0".to_string()));
    assert!(ours.contains(&"dram_mhz = 2619.0".to_string()));
}
