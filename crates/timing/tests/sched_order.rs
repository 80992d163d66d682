//! The SM's schedulers share the collectors and the LD/ST unit; which of them claims a shared
//! unit first must not depend on the scheduler's index (GPGPU-Sim 4 rotates the first
//! scheduler every cycle). With a fixed order the warps of scheduler 0 (even slots) always win
//! the LD/ST unit, so identical warps of the odd slots finish systematically later and become
//! their TB's "critical" warps (spec 000 §3.1: criticality must come from the work, not from
//! the slot).

mod common;

use common::*;
use warpforge_core::{KernelRunner, MemSpace, OpClass};
use warpforge_timing::{GpuConfig, TimingRunner};

/// One CTA of 8 identical warps, each a stream of `n` independent bank-conflicting
/// shared-memory loads (the LD/ST unit is the bottleneck: both schedulers have a ready load
/// every cycle), under `sched`.
/// Returns each warp's execution time, core cycles, by warp index.
fn warp_times(sched: &str, n: u32) -> Vec<u64> {
    let mut c = GpuConfig::preset("gtx480").unwrap();
    c.set("core.scheduler", sched).unwrap();
    c.set("sim.warp_times", "true").unwrap();
    let mut r = TimingRunner::new(c, 1);
    let mut src = Mock::new(
        1,
        8 * 32,
        Box::new(move |_, _, i| match i {
            i if i < n => Some(mem(
                0x100 + 8 * i as u64,
                MemSpace::Shared,
                false,
                (10 + i % 32) as u16,
                1,
                // Every lane in one bank: a 32-way conflict keeps the LD/ST unit busy and
                // the memory collectors full, so each cycle a freed collector goes to
                // whichever scheduler claims it first.
                move |l| (l as u64) * 128,
            )),
            i if i == n => Some(alu(0x100 + 8 * n as u64, OpClass::IntAlu, 2, &[1])),
            i if i == n + 1 => Some(exit(0x108 + 8 * n as u64)),
            _ => None,
        }),
    );
    r.run_kernel(&mut src).unwrap();
    let k = &r.kernels()[0];
    let mut t = vec![0u64; 8];
    for w in &k.warp_times {
        t[w.warp as usize] = w.end + 1 - w.start;
    }
    t
}

#[test]
fn neither_scheduler_wins_the_shared_ldst_unit_by_its_index() {
    for sched in ["lrr", "gto"] {
        let t = warp_times(sched, 64);
        let even: u64 = t.iter().step_by(2).sum();
        let odd: u64 = t.iter().skip(1).step_by(2).sum();
        // Identical work: the two schedulers' warps take the same time within 5%.
        let (lo, hi) = (even.min(odd) as f64, even.max(odd) as f64);
        assert!(
            hi / lo < 1.05,
            "{sched}: even-slot warps {even} vs odd-slot {odd} cycles ({t:?})"
        );
    }
}
