//! DARSIE's skip logic works beside the fetch scheduler (document 003 §7.3.2: it skips "some
//! instructions while initiating a fetch for another", raising fetch throughput without a wider
//! fetch scheduler or I-cache): a follower's attempt that only skips or waits for LeaderWB
//! must not take one of the SM's fetch slots from the warps that do fetch.

mod common;

use common::*;
use warpforge_core::{hint, KernelRunner, OpClass};
use warpforge_timing::{GpuConfig, KernelStats, TimingRunner};

/// One CTA of `warps` warps on one SM with one fetch slot per cycle, each warp running `n`
/// independent TB-redundant (`R`) ALU instructions and exiting, under `policy`.
fn run(policy: &str, warps: u32, n: u32) -> KernelStats {
    let mut c = GpuConfig::preset("qv100").unwrap();
    c.set("core.num_sms", "1").unwrap();
    c.set("core.fetch_per_cycle", "1").unwrap();
    c.set("core.scheduler", "gto").unwrap();
    c.set("core.elim.policy", policy).unwrap();
    // Only fetch slots matter here: no launch delay, and I-cache misses filled at once.
    c.set("core.launch_latency", "0").unwrap();
    c.set("l1i.miss_latency", "1").unwrap();
    let mut r = TimingRunner::new(c, 1);
    let mut src = Mock::new(
        1,
        warps * 32,
        Box::new(move |_, _, i| {
            let pc = 0x100 + 8 * i as u64;
            let mut inst = match i {
                i if i < n => {
                    let mut a = alu(pc, OpClass::IntAlu, 2 + (i % 12) as u16, &[1]);
                    a.hints = hint::DARSIE_R;
                    a
                }
                i if i == n => exit(pc),
                _ => return None,
            };
            inst.static_idx = i;
            Some(inst)
        }),
    );
    r.run_kernel(&mut src).unwrap();
    r.kernels()[0].clone()
}

#[test]
fn followers_skipping_take_no_fetch_slot() {
    let n = 240;
    let alone = run("darsie", 1, n);
    let tb = run("darsie", 16, n);
    let base = run("none", 16, n);
    assert_eq!(tb.raw.core.elim_timeouts, 0);
    // Every instance runs once (in its leader) and is skipped by the other 15 warps, unless
    // the 8-entry table was full when a warp reached it.
    let k = &tb.raw.core;
    assert_eq!(
        k.warp_insts + k.elim_skipped,
        base.raw.core.warp_insts,
        "every instruction issued or skipped"
    );
    assert!(k.elim_skipped > 14 * n as u64, "skipped {}", k.elim_skipped);
    // Without elimination, 16 warps share the one slot (two instructions each): fetch-bound,
    // about 16 x 240 / 2 cycles, several times the
    // time of one warp. With DARSIE the followers' skips cost no slot, so the TB takes about
    // the time of its leaders' fetches (each follower still fetches its own `exit`).
    assert!(
        base.raw.cycles > 3 * alone.raw.cycles,
        "baseline {} vs one warp {}",
        base.raw.cycles,
        alone.raw.cycles
    );
    assert!(
        (tb.raw.cycles as f64) < 1.5 * alone.raw.cycles as f64,
        "DARSIE TB {} vs one warp {}",
        tb.raw.cycles,
        alone.raw.cycles
    );
    assert!(k.elim_slotless_fetches > 0);
}
