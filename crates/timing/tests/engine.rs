//! The parallel engine (fetch streamed into the thread team, `team.rs`) gives byte-identical
//! JSON statistics for every thread count, on several workloads and machine sizes (SM counts
//! that divide evenly among the threads and ones that do not, machines with idle SMs).

use warpforge_simt::Device;
use warpforge_timing::{GpuConfig, TimingRunner};
use warpforge_workloads::{registry, Check, Size};

fn run(name: &str, sms: u32, threads: usize, skip_idle: bool) -> serde_json::Value {
    let w = registry()
        .into_iter()
        .find(|w| w.info().name == name)
        .unwrap_or_else(|| panic!("workload {name} not registered"));
    let mut cfg = GpuConfig::preset("gtx480").unwrap();
    cfg.set("core.num_sms", &sms.to_string()).unwrap();
    cfg.set("sim.skip_idle", if skip_idle { "true" } else { "false" })
        .unwrap();
    let mut dev = Device::new();
    dev.set_runner(Box::new(TimingRunner::new(cfg, threads)));
    let check = w
        .run(&mut dev, Size::Tiny)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(check, Check::Passed, "{name}: output check");
    let mut r = dev.take_runner().unwrap();
    let t = r.as_any_mut().downcast_mut::<TimingRunner>().unwrap();
    t.stats_json()
}

#[test]
fn statistics_are_identical_on_one_two_and_three_threads() {
    for (name, sms) in [
        ("kmn", 15),
        ("bfs", 120),
        ("mm", 7),
        ("bt", 30),
        ("nw", 45),
        ("htw", 16),
    ] {
        let one = run(name, sms, 1, true);
        assert!(
            one["total"]["cycles"].as_u64().unwrap() > 0,
            "{name}: nothing simulated"
        );
        for threads in [2, 3] {
            assert!(
                one == run(name, sms, threads, true),
                "{name} on {sms} SMs: statistics differ between 1 and {threads} threads"
            );
        }
    }
}

#[test]
fn statistics_are_identical_across_threads_with_every_sm_stepped() {
    for (name, sms) in [("bfs", 30), ("kmn", 60)] {
        let one = run(name, sms, 1, false);
        for threads in [2, 3] {
            assert!(
                one == run(name, sms, threads, false),
                "{name} on {sms} SMs, sim.skip_idle off: 1 and {threads} threads differ"
            );
        }
    }
}
