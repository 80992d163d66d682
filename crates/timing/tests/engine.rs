//! The parallel engine (fetch streamed into the thread team, `team.rs`, and the memory side of
//! each cycle overlapped with the SMs' steps, `gpu.rs`) gives byte-identical JSON statistics for
//! every thread count, on several workloads and machine sizes (SM counts that divide evenly
//! among the threads and ones that do not, machines with idle SMs), with the back-pressure
//! buffers small enough to be full often, with the shortest interconnect latency, and with an
//! interconnect clock unlike the core's (where the engine does not overlap).

use warpforge_simt::Device;
use warpforge_timing::{GpuConfig, TimingRunner};
use warpforge_workloads::{registry, Check, Size};

fn run(name: &str, sms: u32, threads: usize, skip_idle: bool) -> serde_json::Value {
    run_with(name, sms, threads, skip_idle, &[])
}

fn run_with(
    name: &str,
    sms: u32,
    threads: usize,
    skip_idle: bool,
    set: &[(&str, &str)],
) -> serde_json::Value {
    let w = registry()
        .into_iter()
        .find(|w| w.info().name == name)
        .unwrap_or_else(|| panic!("workload {name} not registered"));
    let mut cfg = GpuConfig::preset("gtx480").unwrap();
    cfg.set("core.num_sms", &sms.to_string()).unwrap();
    cfg.set("sim.skip_idle", if skip_idle { "true" } else { "false" })
        .unwrap();
    for (k, v) in set {
        cfg.set(k, v).unwrap();
    }
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

/// Runs `name` on 2 and 3 threads with the keys `set` and asserts that its statistics equal
/// `one`, the same run on one thread (`what` names the variant in the failure message).
fn same_on_two_and_three_threads(
    one: &serde_json::Value,
    name: &str,
    sms: u32,
    skip_idle: bool,
    set: &[(&str, &str)],
    what: &str,
) {
    for threads in [2, 3] {
        assert!(
            *one == run_with(name, sms, threads, skip_idle, set),
            "{name} on {sms} SMs, {what}: statistics differ between 1 and {threads} threads"
        );
    }
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
        same_on_two_and_three_threads(&one, name, sms, true, &[], "default engine");
    }
}

#[test]
fn statistics_are_identical_across_threads_with_every_sm_stepped() {
    for (name, sms) in [("bfs", 30), ("kmn", 60)] {
        let one = run(name, sms, 1, false);
        same_on_two_and_three_threads(&one, name, sms, false, &[], "sim.skip_idle off");
    }
}

/// Full ejection buffers (the reply network's back-pressure counts replies the overlapped
/// engine hands to the SMs before the rest of the cycle), full SM request queues, a one-cycle
/// interconnect, and 15- and 80-SM machines.
#[test]
fn back_pressure_and_short_latency_keep_threads_identical() {
    let tight = [
        ("icnt.ejection_buffer", "2"),
        ("icnt.input_buffer", "1"),
        ("icnt.latency", "1"),
    ];
    for (name, sms, skip) in [
        ("kmn", 15, true),
        ("bfs", 80, true),
        ("mm", 15, false),
        ("kmn", 80, true),
    ] {
        let one = run_with(name, sms, 1, skip, &tight);
        let base = run(name, sms, 1, skip);
        assert_ne!(
            one["total"]["cycles"], base["total"]["cycles"],
            "{name}: the tight buffers should change the timing (else they test nothing)"
        );
        same_on_two_and_three_threads(&one, name, sms, skip, &tight, "tight buffers");
    }
}

/// An interconnect clock unlike the core's: the engine steps the memory side sequentially
/// (no overlap), still identical.
#[test]
fn unequal_clocks_keep_threads_identical() {
    let clocks = [("clocks.icnt_mhz", "900.0"), ("clocks.l2_mhz", "650.0")];
    for (name, sms) in [("bfs", 15), ("kmn", 80)] {
        let one = run_with(name, sms, 1, true, &clocks);
        same_on_two_and_three_threads(&one, name, sms, true, &clocks, "icnt at 900 MHz");
    }
}

/// The window engine (`sim.window = 4`): SMs run four cycles between synchronisations with
/// per-SM front ends; the output checks pass (inside `run_with`) and the statistics are
/// identical for 1, 2 and 3 threads, including workloads whose CTAs race on global atomics
/// (`bc`, `wc`: deferred to the window's commit) and tight back-pressure buffers. The window is
/// a model change: it must change the cycle count (else this tests the one-cycle loop).
#[test]
fn window_statistics_are_identical_on_one_two_and_three_threads() {
    let win = [("sim.window", "4")];
    for (name, sms) in [
        ("kmn", 15),
        ("bfs", 120),
        ("mm", 7),
        ("bc", 30),
        ("wc", 15),
        ("htw", 16),
    ] {
        let one = run_with(name, sms, 1, true, &win);
        let base = run(name, sms, 1, true);
        assert_ne!(
            one["total"]["cycles"], base["total"]["cycles"],
            "{name}: a 4-cycle window should change the timing"
        );
        same_on_two_and_three_threads(&one, name, sms, true, &win, "sim.window 4");
    }
    let tight = [
        ("sim.window", "3"),
        ("icnt.ejection_buffer", "2"),
        ("icnt.input_buffer", "1"),
    ];
    for (name, sms, skip) in [("kmn", 80, true), ("bfs", 30, false)] {
        let one = run_with(name, sms, 1, skip, &tight);
        same_on_two_and_three_threads(&one, name, sms, skip, &tight, "window 3 with tight buffers");
    }
}

/// A window longer than the default does not slow the simulated machine much: the cycle count
/// of `sim.window = 4` stays within 10% of the one-cycle engine's (replies wait at most three
/// cycles for the window start, requests queue against the window's credits).
#[test]
fn window_cycles_stay_close_to_the_one_cycle_engine() {
    for (name, sms) in [("kmn", 15), ("bfs", 30), ("mm", 15)] {
        let base = run(name, sms, 1, true)["total"]["cycles"].as_f64().unwrap();
        let w4 = run_with(name, sms, 2, true, &[("sim.window", "4")])["total"]["cycles"]
            .as_f64()
            .unwrap();
        let ratio = w4 / base;
        assert!(
            (0.9..=1.1).contains(&ratio),
            "{name}: window 4 gives {w4} cycles, the one-cycle engine {base} ({ratio:.3}x)"
        );
    }
}

/// `sim.window_overlap`: the memory side of a window runs during the next window's SM phase
/// (on the main thread, while the team steps the SMs), the requests handed over at window
/// starts and replies delivered one window later. A model change against the plain window (it
/// must change the cycles, by little: replies wait about one window more), and the statistics
/// are identical for 1, 2 and 3 threads, with atomics (`bc`, `wc`), tight back-pressure
/// buffers (request queues full while their requests wait in the hand-over) and every SM
/// stepped.
#[test]
fn overlapped_window_statistics_are_identical_on_one_two_and_three_threads() {
    let ov = [("sim.window", "4"), ("sim.window_overlap", "true")];
    for (name, sms) in [("kmn", 15), ("bfs", 120), ("bc", 30), ("wc", 15), ("mm", 7)] {
        let one = run_with(name, sms, 1, true, &ov);
        let plain = run_with(name, sms, 1, true, &ov[..1]);
        let (a, b) = (
            one["total"]["cycles"].as_f64().unwrap(),
            plain["total"]["cycles"].as_f64().unwrap(),
        );
        assert!(a != b, "{name}: the overlap should change the timing");
        assert!(
            (0.9..=1.15).contains(&(a / b)),
            "{name}: overlapped window 4 gives {a} cycles, the plain window {b}"
        );
        same_on_two_and_three_threads(&one, name, sms, true, &ov, "overlapped window");
    }
    let tight = [
        ("sim.window", "3"),
        ("sim.window_overlap", "true"),
        ("icnt.ejection_buffer", "2"),
        ("icnt.input_buffer", "1"),
    ];
    for (name, sms, skip) in [("kmn", 80, true), ("bfs", 30, false)] {
        let one = run_with(name, sms, 1, skip, &tight);
        same_on_two_and_three_threads(
            &one,
            name,
            sms,
            skip,
            &tight,
            "overlapped window 3, tight buffers",
        );
    }
}

/// `sim.window_partitions`: the memory side of a window split by memory partition, each
/// partition one job of the team (beside the SMs' with the overlap, in a phase of its own
/// without). A model change against the unsplit window (window-granular credits at the
/// partition boundary: it must change the cycles, by little), and the statistics are identical
/// for 1, 2 and 3 threads, overlapped or not, with atomics, tight buffers at the partition
/// boundary (slice buffers and reply queues full often) and every SM stepped.
#[test]
fn window_split_by_partition_is_identical_on_one_two_and_three_threads() {
    for overlap in ["true", "false"] {
        let split = [
            ("sim.window", "4"),
            ("sim.window_overlap", overlap),
            ("sim.window_partitions", "true"),
        ];
        for (name, sms) in [("kmn", 15), ("bfs", 120), ("bc", 30)] {
            let one = run_with(name, sms, 1, true, &split);
            let whole = run_with(name, sms, 1, true, &split[..2]);
            let (a, b) = (
                one["total"]["cycles"].as_f64().unwrap(),
                whole["total"]["cycles"].as_f64().unwrap(),
            );
            assert!(
                (0.9..=1.15).contains(&(a / b)),
                "{name}: split by partition {a} cycles, unsplit {b}"
            );
            let what = format!("window 4 split by partition, overlap {overlap}");
            same_on_two_and_three_threads(&one, name, sms, true, &split, &what);
        }
    }
    let tight = [
        ("sim.window", "3"),
        ("sim.window_overlap", "true"),
        ("sim.window_partitions", "true"),
        ("icnt.ejection_buffer", "2"),
        ("icnt.output_buffer", "1"),
        ("l2.output_queue", "2"),
        ("icnt.input_buffer", "1"),
    ];
    for (name, sms, skip) in [("kmn", 80, true), ("bfs", 30, false)] {
        let one = run_with(name, sms, 1, skip, &tight);
        let unsplit: Vec<_> = tight
            .iter()
            .copied()
            .filter(|(k, _)| *k != "sim.window_partitions")
            .collect();
        assert_ne!(
            one["total"]["cycles"],
            run_with(name, sms, 1, skip, &unsplit)["total"]["cycles"],
            "{name}: tight buffers at the partition boundary must feel the split"
        );
        let what = "window 3 split by partition, tight buffers";
        same_on_two_and_three_threads(&one, name, sms, skip, &tight, what);
    }
}
