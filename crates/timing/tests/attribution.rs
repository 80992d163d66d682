//! Latency attribution (`sim.latency_attribution`, Lee 2017 §3.2, Algorithms 1 and 2): the
//! factors account for every warp cycle, match the document's worked example, split a pending
//! load's wait as Algorithm 2 does, and do not depend on idle skipping or the thread count.

mod common;

use common::*;
use warpforge_core::{KernelRunner, MemSpace, OpClass};
use warpforge_simt::Device;
use warpforge_timing::stats::LatencyStats;
use warpforge_timing::{GpuConfig, KernelStats, TimingRunner};
use warpforge_workloads::{registry, Size};

fn cfg(scheduler: &str) -> GpuConfig {
    let mut c = GpuConfig::preset("gtx480").unwrap();
    c.set("sim.latency_attribution", "true").unwrap();
    c.set("core.scheduler", scheduler).unwrap();
    c
}

fn factors(l: &LatencyStats) -> u64 {
    l.scheduling
        + l.fetch
        + l.control
        + l.data_hazard
        + l.data_miss
        + l.mshr
        + l.structural
        + l.sync
        + l.exec
}

fn mock(c: &GpuConfig, src: Mock) -> KernelStats {
    let mut r = TimingRunner::new(c.clone(), 1);
    let mut s = src;
    r.run_kernel(&mut s).unwrap();
    r.kernels()[0].clone()
}

fn workload(name: &str, c: &GpuConfig, threads: usize) -> Vec<KernelStats> {
    let w = registry()
        .iter()
        .copied()
        .find(|w| w.info().name == name)
        .unwrap();
    let mut dev = Device::new();
    dev.set_runner(Box::new(TimingRunner::new(c.clone(), threads)));
    w.run(&mut dev, Size::Tiny).unwrap();
    let mut r = dev.take_runner().unwrap();
    let t = r.as_any_mut().downcast_mut::<TimingRunner>().unwrap();
    t.kernels().to_vec()
}

/// Every cycle of every warp is charged exactly once, for real kernels under both schedulers;
/// every warp of every CTA is counted; idle skipping and threads change nothing.
#[test]
fn factors_sum_to_the_warps_lifetimes() {
    for sched in ["gto", "lrr"] {
        for name in ["bfs", "nw", "bt", "mm"] {
            let c = cfg(sched);
            let ks = workload(name, &c, 1);
            for k in &ks {
                let l = &k.raw.latency;
                assert!(l.warps > 0, "{name}/{sched}: no warp attributed");
                assert_eq!(factors(l), l.lifetime, "{name}/{sched} {}: {l:?}", k.kernel);
                let report = k.latency.as_ref().unwrap();
                assert_eq!(report.warps, l.warps);
            }
            let mut off = c.clone();
            off.set("sim.skip_idle", "false").unwrap();
            assert_eq!(ks, workload(name, &off, 1), "{name}/{sched}: skip_idle");
            assert_eq!(ks, workload(name, &c, 3), "{name}/{sched}: threads");
        }
    }
    // Off by default: no attribution, no `latency` report.
    let plain = workload("bfs", &GpuConfig::preset("gtx480").unwrap(), 1);
    assert!(plain
        .iter()
        .all(|k| k.latency.is_none() && k.raw.latency.warps == 0));
}

/// §2.1's example: under round robin with 48 warps that are always ready, each warp is examined
/// once every 48 cycles, when it issues, so it waits 47 cycles for every instruction it issues.
#[test]
fn round_robin_over_48_ready_warps_waits_47_cycles_per_issue() {
    let mut c = cfg("lrr");
    c.set("core.schedulers", "1").unwrap();
    let n = 300;
    let k = mock(
        &c,
        Mock::new(
            1,
            48 * 32,
            Box::new(move |_, _, i| match i {
                // Independent fp adds over rotating destinations: always ready.
                i if i < n => Some(alu(
                    0x200 + 8 * (i as u64 % 16),
                    OpClass::FpAlu,
                    (i % 8) as u16 + 10,
                    &[1, 2],
                )),
                i if i == n => Some(exit(0x300)),
                _ => None,
            }),
        ),
    );
    let l = &k.raw.latency;
    assert_eq!(l.warps, 48);
    assert_eq!(l.exec, k.warp_insts);
    let per_issue = l.scheduling as f64 / l.exec as f64;
    assert!(
        (44.0..=47.0).contains(&per_issue),
        "scheduling {per_issue:.2} cycles per issue: {l:?}"
    );
    // Steady state dominates: the other factors are the cold start and the tail.
    assert!(
        l.scheduling > 9 * (l.lifetime - l.scheduling - l.exec),
        "{l:?}"
    );
}

/// Algorithm 2: a warp stalled on a load that missed is charged one data-hazard cycle per load
/// and data-cache-miss cycles for the rest of the wait.
#[test]
fn pointer_chase_is_one_data_hazard_cycle_per_load_then_cache_miss() {
    let c = cfg("gto");
    let n = 40u32;
    let k = mock(
        &c,
        Mock::new(
            1,
            32,
            Box::new(move |_, _, i| match i {
                // Each load's address register is the previous load's result; a new line each time.
                i if i < n => Some(mem(
                    0x100 + 8 * (i as u64 % 64),
                    MemSpace::Global,
                    false,
                    1,
                    1,
                    move |_| 0x40_0000 + 4096 * i as u64,
                )),
                i if i == n => Some(exit(0x400)),
                _ => None,
            }),
        ),
    );
    let l = &k.raw.latency;
    assert_eq!(l.warps, 1);
    assert_eq!(factors(l), l.lifetime);
    // Per dependent load (the first load has no producer): the few cycles from its issue to
    // its L1D access (collector, LD/ST unit: its producer has not missed yet) and the first
    // cycle after the miss are data hazards; the rest is `Data$`. The few loads whose wait is
    // spent in an instruction-cache miss (the chain's 3 cold code lines) are fetch: Algorithm
    // 2 checks fetch before data.
    assert!(
        (n as u64 - 5..4 * n as u64).contains(&l.data_hazard),
        "{l:?}"
    );
    assert!(l.fetch > 3 * 200, "{l:?}");
    // DRAM round trips of ~240 cycles: nearly all of the lifetime is data-cache miss.
    assert!(l.data_miss > 150 * (n as u64 - 1), "{l:?}");
    assert!(l.data_miss as f64 > 0.8 * l.lifetime as f64, "{l:?}");
}

/// Warps that wait at a barrier for a slower warp of their CTA are charged synchronisation.
#[test]
fn barrier_waits_are_synchronisation() {
    let c = cfg("gto");
    let k = mock(
        &c,
        Mock::new(
            1,
            64,
            Box::new(|_, w, i| {
                // Warp 0 runs a 200-instruction dependent chain before the barrier; warp 1 none.
                let work = if w == 0 { 200 } else { 0 };
                match i {
                    i if i < work => Some(alu(0x100 + 8 * (i as u64 % 8), OpClass::FpAlu, 3, &[3])),
                    i if i == work => Some(bar(0x200)),
                    i if i == work + 1 => Some(exit(0x208)),
                    _ => None,
                }
            }),
        ),
    );
    let l = &k.raw.latency;
    assert_eq!(l.warps, 2);
    assert_eq!(factors(l), l.lifetime);
    // Warp 1 waits at the barrier while warp 0's chain runs (200 dependent fp adds).
    assert!(l.sync > 200 * 4, "{l:?}");
    assert!(l.data_hazard > 200, "warp 0's dependent chain: {l:?}");
}

/// A dependent chain of `n` loads from `space`, all reading the same 4-byte word per lane (the
/// address register is the previous load's result).
fn same_word_chain(space: MemSpace, n: u32) -> KernelStats {
    mock(
        &cfg("gto"),
        Mock::new(
            1,
            32,
            Box::new(move |_, _, i| match i {
                i if i < n => Some(mem(0x100 + 8 * (i as u64 % 64), space, false, 1, 1, |l| {
                    0x40_0000 + 4 * l as u64
                })),
                i if i == n => Some(exit(0x400)),
                _ => None,
            }),
        ),
    )
}

/// Exact `Data$` (Algorithm 2): only a dependence on a load that missed in the L1D is charged
/// as a data-cache miss. A chain of dependent loads of one line misses once and then hits: the
/// hits' waits (the 35-cycle L1D hit latency each) are data hazards, and only the first load's
/// wait (one L2/DRAM round trip) is `Data$`. The "loads in flight" approximation charged all
/// of them to `Data$`.
#[test]
fn waits_on_l1d_hits_are_data_hazards_and_only_the_miss_is_data_cache() {
    let n = 40u32;
    let k = same_word_chain(MemSpace::Global, n);
    let l = &k.raw.latency;
    assert_eq!(factors(l), l.lifetime);
    assert_eq!(k.raw.l1d.misses, 1, "{:?}", k.raw.l1d);
    // 39 dependent hits of 35 cycles each, the issue/collector cycles aside.
    assert!(l.data_hazard > 30 * (n as u64 - 1), "{l:?}");
    // One round trip to memory (~240-400 cycles), nothing per hit.
    assert!((100..700).contains(&l.data_miss), "{l:?}");
    assert!(l.data_hazard > 2 * l.data_miss, "{l:?}");
}

/// Shared-memory loads never miss in the L1D: a dependent chain of them is all data hazard.
#[test]
fn waits_on_shared_memory_loads_are_data_hazards() {
    let n = 40u32;
    let k = same_word_chain(MemSpace::Shared, n);
    let l = &k.raw.latency;
    assert_eq!(factors(l), l.lifetime);
    assert_eq!(l.data_miss, 0, "{l:?}");
    assert!(l.data_hazard > 10 * (n as u64 - 1), "{l:?}");
}

/// The memory path's two stall factors: 48 warps streaming loads to distinct lines fill the
/// L1D's MSHRs (reservation failures hold the LD/ST unit: `MSHR`), while warps queued behind
/// a busy LD/ST unit that is making progress are a structural hazard.
#[test]
fn mshr_exhaustion_is_mshr_and_a_busy_ldst_unit_is_structural() {
    let n = 16u32;
    let k = mock(
        &cfg("lrr"),
        Mock::new(
            1,
            48 * 32,
            Box::new(move |_, w, i| match i {
                // Uncoalesced: every lane its own line, a new set of lines each load.
                i if i < n => Some(mem(
                    0x100 + 8 * i as u64,
                    MemSpace::Global,
                    false,
                    (10 + i) as u16,
                    1,
                    move |l| 0x100_0000 + ((w as u64 * n as u64 + i as u64) * 32 + l as u64) * 128,
                )),
                i if i == n => Some(exit(0x400)),
                _ => None,
            }),
        ),
    );
    let l = &k.raw.latency;
    assert_eq!(factors(l), l.lifetime);
    assert!(l.mshr > 0 && l.structural > 0, "{l:?}");
    // Independent loads: nothing waits on a result, so no Data$.
    assert_eq!(l.data_miss, 0, "{l:?}");
}

/// The recording switches observe and never steer: an RR run with `sim.latency_attribution` and
/// `sim.warp_times` (the CAWS oracle's baseline pass) takes exactly the cycles, instructions and
/// L1D traffic of a plain RR run, so `experiment cawa` can use one run as both its RR baseline
/// and the oracle's source.
#[test]
fn recording_switches_do_not_change_timing() {
    for name in ["bfs", "kmn"] {
        let mut plain = GpuConfig::preset("gtx480-cawa").unwrap();
        plain.set("core.scheduler", "lrr").unwrap();
        let mut rec = plain.clone();
        rec.set("sim.latency_attribution", "true").unwrap();
        rec.set("sim.warp_times", "true").unwrap();
        let (a, b) = (workload(name, &plain, 1), workload(name, &rec, 1));
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.cycles, y.cycles, "{name} {}", x.kernel);
            assert_eq!(x.warp_insts, y.warp_insts, "{name} {}", x.kernel);
            assert_eq!(x.l1d, y.l1d, "{name} {}", x.kernel);
            assert_eq!(x.dram, y.dram, "{name} {}", x.kernel);
        }
        assert!(
            b.iter().any(|k| !k.warp_times.is_empty()),
            "{name}: no warp times"
        );
    }
}
