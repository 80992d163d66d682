//! The parallel engine (fetch streamed into the thread team, `team.rs`, and the memory side of
//! each cycle overlapped with the SMs' steps, `gpu.rs`) gives byte-identical JSON statistics for
//! every thread count, on several workloads and machine sizes (SM counts that divide evenly
//! among the threads and ones that do not, machines with idle SMs), with the back-pressure
//! buffers small enough to be full often, with the shortest interconnect latency, and with an
//! interconnect clock unlike the core's (where the engine does not overlap).

mod common;

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
    run_preset("gtx480", name, sms, threads, skip_idle, set)
}

/// [`run_with`] on the preset `preset`.
fn run_preset(
    preset: &str,
    name: &str,
    sms: u32,
    threads: usize,
    skip_idle: bool,
    set: &[(&str, &str)],
) -> serde_json::Value {
    let sms = sms.to_string();
    let mut keys = vec![
        ("core.num_sms", sms.as_str()),
        ("sim.skip_idle", if skip_idle { "true" } else { "false" }),
    ];
    keys.extend_from_slice(set);
    common::run_tiny(
        name,
        common::preset_with(preset, &keys),
        threads,
        |_| {},
        |t| t.stats_json(),
    )
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

/// With the overlap, the split memory side runs wholly inside the team phase: the request
/// network's ticks on the calling thread, each partition on any thread once those are done,
/// and the reply network's ticks on whichever thread completes the last partition. More
/// threads than awake SMs (helpers reach the partitions before the request network is done
/// and wait for it), a stream through every slice, and the default machine: statistics
/// identical for 1 to 4 threads.
#[test]
fn network_phases_inside_the_team_phase_keep_threads_identical() {
    let split = [
        ("sim.window", "4"),
        ("sim.window_overlap", "true"),
        ("sim.window_partitions", "true"),
    ];
    for (name, sms) in [("mm", 7), ("micro_copy", 15), ("kmn", 120), ("sr2", 4)] {
        let one = run_with(name, sms, 1, true, &split);
        for threads in [2, 3, 4] {
            assert!(
                one == run_with(name, sms, threads, true, &split),
                "{name} on {sms} SMs, network phases in the team phase: statistics differ \
                 between 1 and {threads} threads"
            );
        }
    }
}

/// Session 14: at a window's end each SM's job hands its queued requests to its outbox (when
/// the phase's request network is done with the outboxes; otherwise the next window start
/// does it, as before) and records whether the SM is still busy, finished a CTA or queued a
/// request, which the sequential part then reads instead of the SMs; a dispatch pass that
/// refuses every SM is not repeated until a CTA finishes. With one thread every hand-over runs
/// in the jobs; with several, a job that ends before the request network leaves its SM to the
/// next job its thread runs after it (session 17) or, failing one, to the next window start,
/// so equal statistics on 1 to 5 threads show that the three paths agree. One-entry request queues (the
/// queue room set by the hand-over binds), idle skipping on and off (the quiet test must see
/// the handed-over queues), more CTAs than the machine holds (dispatch passes refused), and
/// overlap with and without the partition split.
#[test]
fn sm_jobs_hand_over_and_sleep_identically_on_one_to_five_threads() {
    let tight = [
        ("sim.window", "4"),
        ("sim.window_overlap", "true"),
        ("icnt.input_buffer", "1"),
        ("icnt.ejection_buffer", "2"),
    ];
    let split = [
        ("sim.window", "4"),
        ("sim.window_overlap", "true"),
        ("sim.window_partitions", "true"),
    ];
    for (set, name, sms, skip) in [
        (&tight[..], "kmn", 120, true),
        (&tight[..], "bfs", 4, true),
        (&tight[..], "micro_copy", 15, false),
        (&split[..], "bfs", 120, true),
        (&split[..], "mm", 2, true),
        (&split[..], "sr2", 4, false),
    ] {
        let one = run_with(name, sms, 1, skip, set);
        for threads in [2, 3, 5] {
            assert!(
                one == run_with(name, sms, threads, skip, set),
                "{name} on {sms} SMs ({set:?}, idle skipping {skip}): statistics differ \
                 between 1 and {threads} threads"
            );
        }
    }
}

/// The window engine with the interconnect (and the L2) off the core clock: window starts fall
/// between interconnect ticks, and a span's interconnect ticks are not its core cycles. On the
/// GPGPU-Sim 3.2.0 presets (`gtx480-cawa`, `gtx480-caws`: interconnect at 1400 MHz, twice the
/// core clock) and on `gtx480` with the interconnect at 933 and 350 MHz and the L2 at 500 MHz,
/// each window variant (plain, overlapped, overlapped and split by partition) passes its
/// output check, stays within 15% of the one-cycle engine's cycles on the same clocks, and
/// gives identical statistics on 1, 2 and 3 threads.
#[test]
fn window_runs_with_any_clock_ratio_identically_on_one_two_and_three_threads() {
    let variants: [&[(&str, &str)]; 3] = [
        &[("sim.window", "4")],
        &[("sim.window", "4"), ("sim.window_overlap", "true")],
        &[
            ("sim.window", "4"),
            ("sim.window_overlap", "true"),
            ("sim.window_partitions", "true"),
        ],
    ];
    // (preset, clock keys, workload, SMs)
    type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a str, u32);
    let clocks: [Case; 5] = [
        ("gtx480-cawa", &[], "kmn", 15),
        ("gtx480-caws", &[], "bfs", 30),
        ("gtx480", &[("clocks.icnt_mhz", "933.0")], "bfs", 15),
        ("gtx480", &[("clocks.icnt_mhz", "350.0")], "mm", 15),
        (
            "gtx480",
            &[("clocks.icnt_mhz", "1400.0"), ("clocks.l2_mhz", "500.0")],
            "kmn",
            30,
        ),
    ];
    for (preset, clk, name, sms) in clocks {
        let base = run_preset(preset, name, sms, 1, true, clk)["total"]["cycles"]
            .as_f64()
            .unwrap();
        for v in variants {
            let set: Vec<_> = clk.iter().chain(v).copied().collect();
            let one = run_preset(preset, name, sms, 1, true, &set);
            let cyc = one["total"]["cycles"].as_f64().unwrap();
            assert!(
                (0.9..=1.15).contains(&(cyc / base)),
                "{name} on {preset} {clk:?} {v:?}: {cyc} cycles, one-cycle engine {base}"
            );
            for threads in [2, 3] {
                assert!(
                    one == run_preset(preset, name, sms, threads, true, &set),
                    "{name} on {preset} {clk:?} {v:?}: statistics differ between 1 and \
                     {threads} threads"
                );
            }
        }
    }
}

/// Two kernels whose threads race on global memory inside a window: `stores` writes one of 8
/// shared words (every SM writes the same words) and a word of its own, then reads a word the
/// others write; `atomics` adds to one of 4 counters and exchanges one word, keeping the old
/// values. Threads `g` = 0..n.
const RACE_PTX: &str = "
.version 7.0
.target sm_70
.address_size 64

.visible .entry stores(.param .u64 stores_param_0, .param .u64 stores_param_1)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<6>;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mad.lo.s32 %r4, %r2, %r3, %r1;
	ld.param.u64 %rd1, [stores_param_0];
	cvta.to.global.u64 %rd1, %rd1;
	ld.param.u64 %rd2, [stores_param_1];
	cvta.to.global.u64 %rd2, %rd2;
	and.b32 %r5, %r4, 7;
	mul.wide.u32 %rd3, %r5, 4;
	add.s64 %rd3, %rd1, %rd3;
	st.global.u32 [%rd3], %r4;
	mul.wide.u32 %rd4, %r4, 4;
	add.s64 %rd4, %rd2, %rd4;
	st.global.u32 [%rd4], %r4;
	xor.b32 %r6, %r5, 1;
	mul.wide.u32 %rd5, %r6, 4;
	add.s64 %rd5, %rd1, %rd5;
	ld.global.u32 %r7, [%rd5];
	st.global.u32 [%rd4], %r7;
	ret;
}

.visible .entry atomics(.param .u64 atomics_param_0, .param .u64 atomics_param_1, .param .u64 atomics_param_2)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mad.lo.s32 %r4, %r2, %r3, %r1;
	ld.param.u64 %rd1, [atomics_param_0];
	cvta.to.global.u64 %rd1, %rd1;
	ld.param.u64 %rd2, [atomics_param_1];
	cvta.to.global.u64 %rd2, %rd2;
	ld.param.u64 %rd3, [atomics_param_2];
	cvta.to.global.u64 %rd3, %rd3;
	and.b32 %r5, %r4, 3;
	mul.wide.u32 %rd4, %r5, 4;
	add.s64 %rd4, %rd1, %rd4;
	atom.global.add.u32 %r6, [%rd4], 1;
	mul.wide.u32 %rd5, %r4, 4;
	add.s64 %rd6, %rd2, %rd5;
	st.global.u32 [%rd6], %r6;
	add.s64 %rd7, %rd1, 16;
	atom.global.exch.b32 %r7, [%rd7], %r4;
	add.s64 %rd6, %rd3, %rd5;
	st.global.u32 [%rd6], %r7;
	ret;
}
";

/// Runs `stores` then `atomics` (96 CTAs of 128 threads on 30 SMs, `sim.window` = 4) on
/// `threads` threads; returns the statistics and the buffers: `last` (8 words), `seen` (n),
/// `ctr` (5), `olds` (n), `swapped` (n).
fn race(threads: usize) -> (serde_json::Value, Vec<Vec<u32>>) {
    use warpforge_core::Dim3;
    use warpforge_simt::{KernelArg, LaunchConfig};
    let (grid, block) = (96u32, 128u32);
    let n = (grid * block) as usize;
    let mut cfg = GpuConfig::preset("gtx480").unwrap();
    cfg.set("core.num_sms", "30").unwrap();
    cfg.set("sim.window", "4").unwrap();
    let mut dev = Device::new();
    dev.set_runner(Box::new(TimingRunner::new(cfg, threads)));
    let m = dev.load_ptx(RACE_PTX, "race.ptx").unwrap();
    let bufs: Vec<_> = [8, n, 5, n, n]
        .iter()
        .map(|&len| dev.malloc(4 * len as u64).unwrap())
        .collect();
    let lc = LaunchConfig {
        grid: Dim3::x(grid),
        block: Dim3::x(block),
        shared_bytes: 0,
    };
    let p = |i: usize| KernelArg::Ptr(bufs[i]);
    dev.launch(m, "stores", lc, &[p(0), p(1)]).unwrap();
    dev.launch(m, "atomics", lc, &[p(2), p(3), p(4)]).unwrap();
    let data = [8, n, 5, n, n]
        .iter()
        .zip(&bufs)
        .map(|(&len, &b)| dev.read::<u32>(b, len).unwrap())
        .collect();
    let mut r = dev.take_runner().unwrap();
    let t = r.as_any_mut().downcast_mut::<TimingRunner>().unwrap();
    (t.stats_json(), data)
}

/// The window's commit, whether spread over the team or not, leaves the same memory and
/// statistics for 1, 2 and 3 threads when every SM races on the same words with plain stores
/// and with atomics (to the same and to different addresses) inside one window; the results
/// are also ones that some serial order of the threads' accesses gives.
#[test]
fn racing_stores_and_atomics_commit_identically_on_one_two_and_three_threads() {
    let (stats, d) = race(1);
    let n = d[1].len() as u32;
    for (k, &v) in d[0].iter().enumerate() {
        assert!(v < n && v % 8 == k as u32, "last[{k}] = {v}");
    }
    for (g, &v) in d[1].iter().enumerate() {
        assert!(v == 0 || v % 8 == (g as u32 % 8) ^ 1, "seen[{g}] = {v}");
    }
    for k in 0..4u32 {
        assert_eq!(d[2][k as usize], n / 4, "counter {k}");
        let mut olds: Vec<u32> = (0..n)
            .filter(|g| g % 4 == k)
            .map(|g| d[3][g as usize])
            .collect();
        olds.sort_unstable();
        assert!(olds.iter().copied().eq(0..n / 4), "counter {k}: old values");
    }
    // The exchanges form one chain: the old values and the final word are the initial 0 and
    // every thread's id, once each.
    let mut chain: Vec<u32> = d[4].iter().copied().chain([d[2][4]]).collect();
    chain.sort_unstable();
    let want: Vec<u32> = std::iter::once(0).chain(0..n).collect();
    assert!(chain == want, "exchange chain");
    for threads in [2, 3] {
        let (s, e) = race(threads);
        assert!(e == d, "memory differs between 1 and {threads} threads");
        assert!(
            s == stats,
            "statistics differ between 1 and {threads} threads"
        );
    }
}

/// Session 15: the overlapped window's SM jobs answer the next window start's quiet test of idle
/// skipping themselves (`Outcome::quiet` in `gpu/window.rs`), tell the commit whether their SM's
/// front has anything to commit (`WindowFronts::pending_on`), and the team hands the jobs out by
/// their measured cost (`Team::run_balanced`). A latency-bound kernel still has most of its cycles
/// skipped (the jobs' answers find the SMs quiet), a store-heavy one commits (output checks pass),
/// and the statistics are identical on 1 to 4 threads, with and without the partition split.
#[test]
fn jobs_answer_the_quiet_test_and_the_commit_identically_on_any_thread_count() {
    for split in ["false", "true"] {
        for (name, sms) in [("micro_lat_dram", 15), ("micro_copy", 30), ("kmn", 120)] {
            let mut first: Option<(serde_json::Value, u64)> = None;
            for threads in 1..=4 {
                let w = registry()
                    .into_iter()
                    .find(|w| w.info().name == name)
                    .unwrap();
                let mut cfg = GpuConfig::preset("gtx480").unwrap();
                cfg.set("core.num_sms", &sms.to_string()).unwrap();
                for (k, v) in [
                    ("sim.window", "4"),
                    ("sim.window_overlap", "true"),
                    ("sim.window_partitions", split),
                ] {
                    cfg.set(k, v).unwrap();
                }
                let mut dev = Device::new();
                dev.set_runner(Box::new(TimingRunner::new(cfg, threads)));
                assert_eq!(
                    w.run(&mut dev, Size::Tiny).unwrap(),
                    Check::Passed,
                    "{name}"
                );
                let mut r = dev.take_runner().unwrap();
                let t = r.as_any_mut().downcast_mut::<TimingRunner>().unwrap();
                let got = (t.stats_json(), t.skipped_core_cycles());
                match &first {
                    None => {
                        let cycles = got.0["total"]["cycles"].as_u64().unwrap();
                        if name == "micro_lat_dram" {
                            assert!(
                                got.1 * 2 > cycles,
                                "{name}, split {split}: only {} of {cycles} cycles skipped",
                                got.1
                            );
                        }
                        first = Some(got);
                    }
                    Some(one) => assert!(
                        *one == got,
                        "{name} on {sms} SMs, split {split}: 1 and {threads} threads differ"
                    ),
                }
            }
        }
    }
}

/// Session 17: a memory partition with nothing to do in a window's span (no DRAM request
/// queued or returning, no slice with work, no request towards its slices) skips the span and
/// only counts its channel's cycles (`PartJob::idle`). Each channel still counts every DRAM
/// cycle of every kernel: on `gtx480` (six channels, DRAM at 924 MHz, core at 700 MHz) the
/// channels' summed cycles are six times the kernel's core cycles times 924/700, to a cycle
/// per channel, on few SMs (most partitions idle in most windows) and on 120 SMs, split with
/// and without the overlap; and the statistics stay identical on 1, 2 and 3 threads.
#[test]
fn idle_partitions_skip_their_span_and_count_every_dram_cycle() {
    for overlap in ["true", "false"] {
        let split = [
            ("sim.window", "4"),
            ("sim.window_overlap", overlap),
            ("sim.window_partitions", "true"),
        ];
        for (name, sms) in [("sr2", 4), ("bfs", 120)] {
            let one = run_with(name, sms, 1, true, &split);
            let kernels = one["kernels"].as_array().expect("kernels");
            assert!(!kernels.is_empty());
            for k in kernels {
                let cycles = k["cycles"].as_f64().unwrap();
                let dram = k["raw"]["dram"]["cycles"].as_f64().unwrap();
                let want = cycles * 924.0 / 700.0;
                assert!(
                    (dram / 6.0 - want).abs() <= 1.5,
                    "{name} on {sms} SMs, overlap {overlap}: {dram} channel cycles for \
                     {cycles} core cycles (want 6 x {want})"
                );
            }
            let what = format!("idle partitions, overlap {overlap}");
            same_on_two_and_three_threads(&one, name, sms, true, &split, &what);
        }
    }
}

/// The window start's ejection (`gpu/window.rs`, step 1: the replies that have arrived enter
/// their SMs' input queues, as far as each has room): with a one-packet SM input queue (most
/// window starts find more replies arrived than an SM has room for, and the rest
/// back-pressure the reply network), a long window, the interconnect on the core clock (the
/// ejected replies count against the buffer for the rest of the tick, `Network::pop_held`) and
/// on a clock of its own (window starts between its ticks: they do not), each engine variant
/// (plain, overlapped, overlapped and split by partition) passes its output check and gives
/// identical statistics on 1 to 4 threads, and the one-packet queue changes the timing (else
/// it would test nothing).
#[test]
fn window_start_ejection_into_full_input_queues_is_identical_on_one_to_four_threads() {
    for icnt in ["700.0", "933.0"] {
        for (split, overlap) in [("false", "false"), ("false", "true"), ("true", "true")] {
            let base = [
                ("sim.window", "8"),
                ("sim.window_overlap", overlap),
                ("sim.window_partitions", split),
                ("clocks.icnt_mhz", icnt),
            ];
            let mut tight = base.to_vec();
            tight.push(("icnt.ejection_buffer", "1"));
            for (name, sms) in [("bfs", 30), ("kmn", 15)] {
                let one = run_with(name, sms, 1, true, &tight);
                assert_ne!(
                    one["total"]["cycles"],
                    run_with(name, sms, 1, true, &base)["total"]["cycles"],
                    "{name}: a one-packet input queue should change the timing"
                );
                for threads in [2, 3, 4] {
                    assert!(
                        one == run_with(name, sms, threads, true, &tight),
                        "{name} on {sms} SMs ({tight:?}): statistics differ between 1 and \
                         {threads} threads"
                    );
                }
            }
        }
    }
}
