//! Whole-GPU idle-cycle skipping (`sim.skip_idle`) is a speed switch only: real workloads give
//! byte-identical JSON statistics (cycles, stall reasons, occupancy, cache, network and DRAM
//! counters) with it on and off, and a latency-bound kernel really has cycles to skip.

mod common;

use std::sync::{Arc, Mutex};
use warpforge_timing::core::probe::{SmCycle, SmProbe};

fn run(name: &str, skip: bool) -> (serde_json::Value, u64) {
    run_on(name, skip, 15, 1)
}

fn run_on(name: &str, skip: bool, sms: u32, threads: usize) -> (serde_json::Value, u64) {
    run_set(name, skip, sms, threads, &[])
}

fn run_set(
    name: &str,
    skip: bool,
    sms: u32,
    threads: usize,
    set: &[(&str, &str)],
) -> (serde_json::Value, u64) {
    let sms = sms.to_string();
    let mut keys = vec![
        ("sim.skip_idle", if skip { "true" } else { "false" }),
        ("core.num_sms", sms.as_str()),
    ];
    keys.extend_from_slice(set);
    common::run_tiny(
        name,
        common::preset_with("gtx480", &keys),
        threads,
        |_| {},
        |t| (t.stats_json(), t.skipped_core_cycles()),
    )
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

/// With the interconnect, the L2 or DRAM on a clock of its own, skipping stays exact (it once
/// skipped interconnect ticks that drain the L2's reply queues: `bt` took 800x its cycles), and
/// it still skips: a slice's queued replies are an event on the interconnect's clock, not the
/// L2's, so no clock ratio turns whole-GPU skipping off.
#[test]
fn skipping_keeps_every_statistic_when_the_clock_domains_differ() {
    for set in [
        ("clocks.icnt_mhz", "1400"),
        ("clocks.icnt_mhz", "350"),
        ("clocks.icnt_mhz", "933"),
        ("clocks.l2_mhz", "500"),
        ("clocks.l2_mhz", "1400"),
        ("clocks.dram_mhz", "462"),
        ("clocks.dram_mhz", "1848"),
    ] {
        for name in ["bt", "kmn", "micro_lat_dram"] {
            let (on, skipped) = run_set(name, true, 15, 1, &[set]);
            let (off, _) = run_set(name, false, 15, 1, &[set]);
            let mut diffs = Vec::new();
            diff("", &on, &off, &mut diffs);
            assert!(
                diffs.is_empty(),
                "{name} with {}={}: statistics differ with sim.skip_idle (on vs off): {}",
                set.0,
                set.1,
                diffs.join("; ")
            );
            if name == "micro_lat_dram" {
                // One dependent DRAM load at a time: most cycles only wait, on any clocks.
                let cycles = on["total"]["cycles"].as_u64().unwrap();
                assert!(
                    skipped * 2 > cycles,
                    "{name} with {}={}: only {skipped} of {cycles} core cycles skipped",
                    set.0,
                    set.1
                );
            }
        }
    }
    // Two domains off the core clock at once, with a thread team.
    let set = [("clocks.icnt_mhz", "1400"), ("clocks.l2_mhz", "500")];
    let (on, skipped) = run_set("bfs", true, 30, 2, &set);
    let (off, _) = run_set("bfs", false, 30, 1, &set);
    let mut diffs = Vec::new();
    diff("", &on, &off, &mut diffs);
    assert!(diffs.is_empty(), "bfs: {}", diffs.join("; "));
    assert!(skipped > 0, "bfs: nothing skipped");
}

/// On a machine much larger than the grid, SMs without work sleep and are charged their idle
/// cycles in bulk when they wake or the launch ends: every statistic (idle stall counts and
/// occupancy included) equals stepping every SM every cycle, for one thread and for a team, and
/// the cycles equal those of the 15-SM machine when the grid fits on it.
#[test]
fn sleeping_sms_keep_every_statistic() {
    for (name, threads) in [("kmn", 1), ("bt", 3), ("bfs", 2)] {
        let (lazy, _) = run_on(name, true, 240, threads);
        let (eager, _) = run_on(name, false, 240, 1);
        let mut diffs = Vec::new();
        diff("", &lazy, &eager, &mut diffs);
        assert!(
            diffs.is_empty(),
            "{name}: statistics differ with sleeping SMs (240 SMs, {threads} threads): {}",
            diffs.join("; ")
        );
    }
    // kmn at tiny has fewer CTAs than 15 SMs: 4000 SMs change nothing but the idle counts.
    let (small, _) = run_on("kmn", true, 15, 1);
    let (huge, _) = run_on("kmn", true, 4000, 1);
    assert_eq!(small["total"]["cycles"], huge["total"]["cycles"]);
    assert_eq!(small["total"]["warp_insts"], huge["total"]["warp_insts"]);
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

/// What a criticality probe ([`SmProbe`]) saw on one SM: cycles, and the sums of the cycle
/// record's counts (live, ready, issued, committed warps; operand-stall cycles) and the misses.
#[derive(Default, Clone, Copy, PartialEq, Eq, Debug)]
struct Seen {
    cycles: u64,
    live: u64,
    ready: u64,
    issued: u64,
    committed: u64,
    operand_stalls: u64,
    misses: u64,
}

struct Counter(Arc<Mutex<Vec<Seen>>>, usize);

impl SmProbe for Counter {
    fn cycle(&mut self, c: &SmCycle) {
        let s = &mut self.0.lock().unwrap()[self.1];
        s.cycles += 1;
        s.live += u64::from(c.live_warps);
        s.ready += u64::from(c.ready_warps);
        s.issued += u64::from(c.issued);
        s.committed += u64::from(c.committed);
        s.operand_stalls += u64::from(c.operand_stall);
    }
    fn stall_on_miss(&mut self, _pc: u64) {}
    fn mark_miss(&mut self, _pc: u64, _store: bool) -> bool {
        self.0.lock().unwrap()[self.1].misses += 1;
        false
    }
}

/// Runs `name` (tiny, 15 SMs, `set` keys) with a counting probe on every SM.
fn probed(name: &str, skip: bool, set: &[(&str, &str)]) -> (Vec<Seen>, u64, u64) {
    let skip = skip.to_string();
    let mut keys = vec![("sim.skip_idle", skip.as_str())];
    keys.extend_from_slice(set);
    let cfg = common::preset_with("gtx480", &keys);
    let n = cfg.core.num_sms as usize;
    let seen = Arc::new(Mutex::new(vec![Seen::default(); n]));
    let (cycles, skipped) = common::run_tiny(
        name,
        cfg,
        1,
        |runner| {
            runner
                .gpu_mut()
                .set_sm_probes(&mut |i| Box::new(Counter(seen.clone(), i)));
        },
        |t| {
            let cycles = t.stats_json()["total"]["cycles"].as_u64().unwrap();
            (cycles, t.skipped_core_cycles())
        },
    );
    let out = seen.lock().unwrap().clone();
    (out, cycles, skipped)
}

/// An installed criticality probe sees the same cycles (every cycle in which its SM has work)
/// whether or not idle cycles are skipped: neither the whole-GPU idle skip nor sleeping SMs
/// may change what it counts.
/// `micro_lat_dram` is latency-bound (the skip has many cycles to take without a probe) and
/// leaves most SMs without a CTA; `kmn` has both too; the window engine as well.
#[test]
fn a_probe_sees_the_same_cycles_with_and_without_idle_skipping() {
    for (name, set) in [
        ("micro_lat_dram", &[][..]),
        ("kmn", &[][..]),
        ("micro_lat_dram", &[("sim.window", "4")][..]),
    ] {
        let (on, cycles_on, _) = probed(name, true, set);
        let (off, cycles_off, none) = probed(name, false, set);
        assert_eq!(none, 0);
        assert_eq!(cycles_on, cycles_off, "{name} {set:?}: timing changed");
        assert!(
            on.iter().any(|s| s.issued > 0 && s.misses > 0),
            "{name}: {on:?}"
        );
        assert_eq!(on, off, "{name} {set:?}: the probe saw different cycles");
    }
}
