//! The schedulers' kept classification (`core/sm/classes.rs`): each warp's issue reason is kept
//! between cycles and re-read only when an event can change it. `sim.check_classes` compares,
//! every cycle and for every scheduler, the kept view and every live warp's reason with a full
//! read of the warps (a difference panics, naming the SM, scheduler, cycle and warp); these
//! tests run real workloads under every scheduler policy with the check on, with and without
//! latency attribution (whose per-warp reasons now come from the kept state), with four
//! sub-cores, with a criticality probe and under idle skipping, and require every statistic to
//! equal the unchecked run's.

mod common;

use std::sync::{Arc, Mutex};
use warpforge_timing::core::probe::{SmCycle, SmProbe};

/// Runs `name` at `tiny` on `preset` with the keys `set` (one thread), optionally with a
/// counting probe on every SM: the JSON statistics and what the probes saw.
fn run(
    name: &str,
    preset: &str,
    set: &[(&str, &str)],
    probe: bool,
) -> (serde_json::Value, Vec<[u64; 7]>) {
    let cfg = common::preset_with(preset, set);
    let n = cfg.core.num_sms as usize;
    let seen = Arc::new(Mutex::new(vec![[0u64; 7]; n]));
    let stats = common::run_tiny(
        name,
        cfg,
        1,
        |runner| {
            if probe {
                runner
                    .gpu_mut()
                    .set_sm_probes(&mut |i| Box::new(Counter(seen.clone(), i)));
            }
        },
        |t| t.stats_json(),
    );
    let out = seen.lock().unwrap().clone();
    (stats, out)
}

/// Sums of a probe's cycle records: cycles, ready warps, issued, operand stalls, cycles with
/// any operand wait, stalls on L1D-missing loads, cycles with an operand wait whose unit had
/// room.
struct Counter(Arc<Mutex<Vec<[u64; 7]>>>, usize);

impl SmProbe for Counter {
    fn cycle(&mut self, c: &SmCycle) {
        let s = &mut self.0.lock().unwrap()[self.1];
        s[0] += 1;
        s[1] += u64::from(c.ready_warps);
        s[2] += u64::from(c.issued);
        s[3] += u64::from(c.operand_stall);
        s[4] += u64::from(c.operand_wait_any);
        s[6] += u64::from(c.operand_wait_unit_free);
    }
    fn stall_on_miss(&mut self, _pc: u64) {
        self.0.lock().unwrap()[self.1][5] += 1;
    }
    fn mark_miss(&mut self, _pc: u64, _store: bool) -> bool {
        false
    }
}

/// Runs with and without the cross-check and requires identical statistics (the checked run
/// panics at the first cycle whose kept view differs from a full read).
fn same_with_check(name: &str, preset: &str, set: &[(&str, &str)], probe: bool) {
    let (plain, seen_plain) = run(name, preset, set, probe);
    let mut checked_set = set.to_vec();
    checked_set.push(("sim.check_classes", "true"));
    let (checked, seen_checked) = run(name, preset, &checked_set, probe);
    assert!(
        plain["total"]["warp_insts"].as_u64().unwrap() > 0,
        "{name} {preset} {set:?}: nothing simulated"
    );
    assert_eq!(
        plain, checked,
        "{name} {preset} {set:?}: statistics differ with sim.check_classes"
    );
    assert_eq!(
        seen_plain, seen_checked,
        "{name} {preset} {set:?}: the probe saw different cycles"
    );
}

/// Every scheduler policy, with latency attribution off (the view alone) and on (every
/// examined warp's reason), on a compute-bound, a branchy memory-bound and a barrier-heavy
/// workload.
#[test]
fn kept_classification_equals_a_full_read_under_every_scheduler() {
    for sched in ["lrr", "gto", "two_level", "gcaws", "caws"] {
        for name in ["bt", "bfs", "kmn"] {
            for attr in ["false", "true"] {
                same_with_check(
                    name,
                    "gtx480",
                    &[("core.scheduler", sched), ("sim.latency_attribution", attr)],
                    false,
                );
            }
        }
    }
}

/// Four sub-cores (a warp sees only its own sub-core's free collectors), two instructions per
/// warp per cycle, idle skipping off, and a criticality probe (which reads every live warp's
/// reason: operand waits and stalls on L1D misses).
#[test]
fn kept_classification_equals_a_full_read_with_sub_cores_probes_and_dual_issue() {
    for name in ["bt", "mm", "micro_copy"] {
        same_with_check(name, "qv100", &[("sim.latency_attribution", "true")], false);
    }
    for name in ["bfs", "micro_lat_dram"] {
        same_with_check(name, "gtx480", &[], true);
        same_with_check(name, "gtx480", &[("sim.skip_idle", "false")], false);
    }
    same_with_check(
        "bt",
        "gtx480",
        &[
            ("core.max_issue_per_warp", "2"),
            ("sim.latency_attribution", "true"),
        ],
        false,
    );
}
