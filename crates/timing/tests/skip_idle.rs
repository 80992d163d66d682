//! Whole-GPU idle-cycle skipping (`sim.skip_idle`) is a speed switch only: real workloads give
//! byte-identical JSON statistics (cycles, stall reasons, occupancy, cache, network and DRAM
//! counters) with it on and off, and a latency-bound kernel really has cycles to skip.

use warpforge_simt::Device;
use warpforge_timing::{GpuConfig, TimingRunner};
use warpforge_workloads::{registry, Check, Size};

fn run(name: &str, skip: bool) -> (serde_json::Value, u64) {
    let w = registry()
        .into_iter()
        .find(|w| w.info().name == name)
        .unwrap_or_else(|| panic!("workload {name} not registered"));
    let mut cfg = GpuConfig::preset("gtx480").unwrap();
    cfg.set("sim.skip_idle", if skip { "true" } else { "false" })
        .unwrap();
    let mut dev = Device::new();
    dev.set_runner(Box::new(TimingRunner::new(cfg, 1)));
    let check = w
        .run(&mut dev, Size::Tiny)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(check, Check::Passed, "{name}: output check");
    let mut r = dev.take_runner().unwrap();
    let t = r.as_any_mut().downcast_mut::<TimingRunner>().unwrap();
    (t.stats_json(), t.skipped_core_cycles())
}

#[test]
fn skipping_idle_cycles_keeps_every_statistic() {
    for name in ["kmn", "bfs", "micro_lat_dram", "micro_copy", "mm"] {
        let (on, skipped) = run(name, true);
        let (off, none) = run(name, false);
        assert_eq!(none, 0, "{name}: skipped cycles with sim.skip_idle off");
        let cycles = on["total"]["cycles"].as_u64().unwrap();
        if name == "micro_lat_dram" {
            // One dependent DRAM load at a time: most cycles only wait.
            assert!(
                skipped * 2 > cycles,
                "{name}: only {skipped} of {cycles} core cycles skipped"
            );
        }
        assert!(
            on["total"]["cycles"].as_u64().unwrap() > 0,
            "{name}: nothing simulated"
        );
        let mut diffs = Vec::new();
        diff("", &on, &off, &mut diffs);
        assert!(
            diffs.is_empty(),
            "{name}: statistics differ with sim.skip_idle (on vs off): {}",
            diffs.join("; ")
        );
        assert_eq!(on, off);
    }
}

/// The paths (with both values) at which two JSON values differ, at most 12.
fn diff(path: &str, a: &serde_json::Value, b: &serde_json::Value, out: &mut Vec<String>) {
    use serde_json::Value;
    if out.len() >= 12 {
        return;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                let p = format!("{path}.{k}");
                match y.get(k) {
                    Some(w) => diff(&p, v, w, out),
                    None => out.push(format!("{p} missing")),
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                diff(&format!("{path}[{i}]"), v, w, out);
            }
        }
        _ if a != b => out.push(format!("{path}: {a} vs {b}")),
        _ => {}
    }
}
