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

/// Mean number of warps a scheduler issues from per 1,000-cycle window
/// (`CoreStats::issuing_warps`), for one CTA of 32 warps (16 per scheduler), each a stream of
/// `n` independent SFU instructions, under `sched`; also the windows counted and the kernel's
/// cycles. The one SFU takes a warp every 2 cycles, far below the fetch rate, so one warp with
/// buffered instructions can use every SFU slot its scheduler wins.
fn issue_spread(sched: &str, n: u32) -> (f64, u64, u64) {
    let mut c = GpuConfig::preset("gtx480").unwrap();
    c.core.num_sms = 1;
    c.set("core.scheduler", sched).unwrap();
    let mut r = TimingRunner::new(c, 1);
    let mut src = Mock::new(
        1,
        32 * 32,
        Box::new(move |_, _, i| match i {
            // A loop body of 32 instructions (256 B of code, held by the L1I).
            i if i < n => Some(alu(
                0x100 + 8 * (i % 32) as u64,
                OpClass::Sfu,
                (10 + i % 8) as u16,
                &[1],
            )),
            i if i == n => Some(exit(0x300)),
            _ => None,
        }),
    );
    r.run_kernel(&mut src).unwrap();
    let k = &r.kernels()[0];
    let core = &k.raw.core;
    let spread = core.issuing_warps as f64 / core.issue_windows as f64 / 2.0;
    (spread, core.issue_windows, k.cycles)
}

/// GPGPU-Sim's `lrr` starts each cycle after the warp issued last, so every ready warp of a
/// scheduler issues within any window; `gto` keeps its greedy warp while it can issue and
/// otherwise takes the oldest ready one, so the few oldest warps that suffice to fill the issue
/// slots issue and the younger ones wait (the spread statistic of the baseline-scheduler
/// comparison, EXPERIMENTS rows 8-10).
#[test]
fn gto_issues_from_the_oldest_few_warps_and_lrr_from_all() {
    let (lrr, lrr_windows, lrr_cycles) = issue_spread("lrr", 1500);
    let (gto, _, _) = issue_spread("gto", 1500);
    // Every full window of the run is counted (the last one is not).
    assert!(
        lrr_windows + 1 >= lrr_cycles / 1000 && lrr_windows <= lrr_cycles / 1000 + 1,
        "{lrr_windows} windows in {lrr_cycles} cycles"
    );
    eprintln!("issuing warps per scheduler per window: lrr {lrr}, gto {gto}; {lrr_cycles} cycles");
    assert!(
        lrr > 15.0,
        "lrr: {lrr} warps per scheduler per window (16 live)"
    );
    assert!(gto < 0.75 * lrr, "gto {gto} vs lrr {lrr} warps per window");
    assert!(gto >= 1.0, "gto {gto}");
}
