//! The micro-benchmark workloads (`workloads/src/micro`), compiled from CUDA and executed by the
//! functional front end, measure on the `gtx480` preset what its configuration says.

use warpforge_simt::Device;
use warpforge_timing::{GpuConfig, KernelStats, TimingRunner};
use warpforge_workloads::micro;
use warpforge_workloads::{find, Check, Size};

fn cfg() -> GpuConfig {
    GpuConfig::preset("gtx480").unwrap()
}

fn run(name: &str, size: Size, cfg: GpuConfig, threads: usize) -> Vec<KernelStats> {
    let w = find(name).unwrap();
    let mut dev = Device::new();
    dev.set_runner(Box::new(TimingRunner::new(cfg, threads)));
    let check = w.run(&mut dev, size).unwrap();
    assert_eq!(check, Check::Passed, "{name}");
    let mut r = dev.take_runner().unwrap();
    let t = r.as_any_mut().downcast_mut::<TimingRunner>().unwrap();
    t.kernels().to_vec()
}

fn latency(name: &str, first: usize) -> f64 {
    let k = run(name, Size::Tiny, cfg(), 1);
    let n = micro::chase_hops(Size::Tiny) as f64;
    (k[first + 1].cycles - k[first].cycles) as f64 / n
}

#[test]
fn pointer_chases_measure_the_preset_latencies() {
    let c = cfg();
    let l1 = latency("micro_lat_l1", 1);
    let l2 = latency("micro_lat_l2", 1);
    let dram = latency("micro_lat_dram", 0);
    eprintln!("load-to-use latency: L1 {l1:.1}, L2 {l2:.1}, DRAM {dram:.1} core cycles");
    let (el1, el2) = (c.l1d.latency as f64, c.l2.rop_latency as f64);
    let edram = (c.l2.rop_latency + c.l2.dram_latency) as f64;
    assert!(l1 >= el1 && l1 <= 1.15 * el1, "L1 {l1} vs {el1}");
    assert!(l2 >= el2 && l2 <= 1.15 * el2, "L2 {l2} vs {el2}");
    assert!(
        dram >= edram && dram <= 1.15 * edram,
        "DRAM {dram} vs {edram}"
    );
}

#[test]
fn copy_reaches_80_percent_of_peak_dram_bandwidth() {
    let c = cfg();
    let k = &run("micro_copy", Size::Tiny, c.clone(), 1)[0];
    let d = &c.dram;
    let peak = d.channels as f64 * d.burst_bytes() as f64 / d.burst_cycles() as f64
        * c.clocks.dram_mhz
        / c.clocks.core_mhz;
    let bytes = 2.0 * 4.0 * micro::copy_len(Size::Tiny) as f64;
    let achieved = bytes / k.cycles as f64 / peak;
    eprintln!(
        "copy: {:.3} of peak ({} cycles, DRAM bus busy {:.3}, row hits {:.3})",
        achieved, k.cycles, k.dram.bandwidth_utilization, k.dram.row_hit_rate
    );
    assert!(achieved >= 0.8, "copy reached {achieved:.3} of peak");
}

/// The issue limit is a steady-state property: the cold start (every SM's first fetch of each
/// code line goes to L2 and DRAM, ~1,000 cycles, after which the warps run phase-aligned for a
/// while) is removed by differencing two sizes, as the pointer chases difference two launches.
#[test]
fn alu_kernel_reaches_the_issue_limit() {
    let c = cfg();
    let a = &run("micro_alu", Size::Tiny, c.clone(), 1)[0];
    let k = &run("micro_alu", Size::Small, c.clone(), 1)[0];
    let limit = (c.core.num_sms * c.core.schedulers) as f64;
    let ipc = (k.warp_insts - a.warp_insts) as f64 / (k.cycles - a.cycles) as f64;
    eprintln!("alu: {ipc:.2} warp instructions per cycle of {limit} in steady state ({} - {} cycles, occupancy {:.2}, stalls {:?}, bank conflicts {})", k.cycles, a.cycles, k.occupancy, k.stalls, k.raw.core.bank_conflicts);
    assert!(
        ipc >= 0.95 * limit,
        "warp IPC {ipc:.2} vs issue limit {limit}"
    );
}

/// At `Small`, so that the cold instruction misses of each launch (a few hundred cycles, the
/// same for both) do not blur the ratio of the two launches.
#[test]
fn stride_32_shared_reads_are_32_way_conflicts() {
    let k = run("micro_smem", Size::Small, cfg(), 1);
    let (ctas, block) = micro::SMEM_SHAPE;
    let warps = (ctas * block / 32) as u64;
    let reads = warps * micro::smem_iters(Size::Small) as u64;
    assert_eq!(
        k[0].raw.core.shared_conflict_cycles, 0,
        "stride 1 is conflict free"
    );
    assert_eq!(
        k[1].raw.core.shared_conflict_cycles,
        31 * reads,
        "31 extra cycles per read"
    );
    // One CTA per SM (15 CTAs on 15 SMs): each SM's shared-memory pipe serialises its warps'
    // reads at 32 cycles each, so the conflicting launch takes at least that long and, with
    // conflicts the bottleneck, not much longer; the conflict-free launch is well below it.
    let per_sm = (block / 32) as u64 * micro::smem_iters(Size::Small) as u64;
    let bound = 32 * per_sm;
    assert!(
        k[1].cycles >= bound && k[1].cycles <= bound * 6 / 5,
        "conflicting launch {} cycles vs the 32-way pipe bound {bound}",
        k[1].cycles
    );
    assert!(
        2 * k[0].cycles < k[1].cycles,
        "{} vs {}",
        k[1].cycles,
        k[0].cycles
    );
}

#[test]
fn every_micro_workload_is_identical_on_one_and_two_threads() {
    for w in ["micro_lat_l2", "micro_smem", "micro_copy"] {
        let a = run(w, Size::Tiny, cfg(), 1);
        let b = run(w, Size::Tiny, cfg(), 2);
        assert_eq!(a, b, "{w}");
    }
}

/// Issue 14 item 4: on the `h100` preset the pointer chases measure the H100's dependent-load
/// latencies of shared/reference/h100-microbench.md within 10%: L1 38.9, near-L2 286-292,
/// HBM3 630-690 cycles (the 1-GiB-footprint figure, 686, includes TLB misses).
#[test]
fn h100_chases_reproduce_the_measured_latencies() {
    let run_h100 = |name: &str, first: usize| {
        let k = run(name, Size::Tiny, GpuConfig::preset("h100").unwrap(), 1);
        let n = micro::chase_hops(Size::Tiny) as f64;
        (k[first + 1].cycles - k[first].cycles) as f64 / n
    };
    let (l1, l2, dram) = (
        run_h100("micro_lat_l1", 1),
        run_h100("micro_lat_l2", 1),
        run_h100("micro_lat_dram", 0),
    );
    eprintln!("h100 load-to-use: L1 {l1:.1}, L2 {l2:.1}, DRAM {dram:.1} cycles");
    for (got, want) in [(l1, 38.9), (l2, 289.0), (dram, 660.0)] {
        assert!(
            (got - want).abs() <= 0.1 * want,
            "{got:.1} cycles vs measured {want}"
        );
    }
}

/// Issue 14 item 5: the H100's device-memory copy (1 GiB, 1,056 CTAs x 512 threads: 2,846 GB/s
/// counting bytes read and written, shared/reference/h100-microbench.md) within 15%, measured in
/// steady state: two back-to-back copies of 64 MiB, the second timed. A single copy of a
/// footprint near the 50 MiB L2 leaves ~40% of its written lines dirty in the L2 at the end
/// (never written to DRAM, +16% bandwidth); in the second copy the L2 starts and ends full of
/// dirty lines, so every written byte goes to DRAM, as in the device's 1 GiB copy. The launch
/// latency is left out (the device amortises one 3.6 us launch over a 377 us copy). About 3
/// CPU-minutes: `cargo test --release -p warpforge-timing --test micro -- --ignored`.
#[test]
#[ignore]
fn h100_steady_state_copy_bandwidth_within_15_percent() {
    use warpforge_core::Dim3;
    use warpforge_simt::{KernelArg as A, LaunchConfig};
    let mut cfg = GpuConfig::preset("h100").unwrap();
    cfg.core.launch_latency = 0;
    let mhz = cfg.clocks.core_mhz;
    let mut dev = Device::new();
    dev.set_runner(Box::new(TimingRunner::new(cfg, 2)));
    let n: usize = 16 << 20;
    let src: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let ds = dev.alloc_copy(&src).unwrap();
    let dd = dev.malloc(4 * n as u64).unwrap();
    let m = dev
        .load_ptx(
            include_str!("../../../workloads/micro_copy/kernel.ptx"),
            "workloads/micro_copy/kernel.ptx",
        )
        .unwrap();
    let shape = LaunchConfig {
        grid: Dim3::x(1056),
        block: Dim3::x(512),
        shared_bytes: 0,
    };
    for _ in 0..2 {
        dev.launch(
            m,
            "copy",
            shape,
            &[A::Ptr(ds), A::Ptr(dd), A::S32(n as i32)],
        )
        .unwrap();
    }
    assert_eq!(dev.read::<f32>(dd, n).unwrap(), src);
    let mut r = dev.take_runner().unwrap();
    let t = r.as_any_mut().downcast_mut::<TimingRunner>().unwrap();
    let k = t.kernels().to_vec();
    let gbs = |c: u64| 8.0 * n as f64 / (c as f64 / (mhz * 1e6)) / 1e9;
    eprintln!(
        "h100 copy of 2 x 64 MiB: first {} cycles = {:.0} GB/s, second (steady state) {} cycles = {:.0} GB/s; measured 2,846",
        k[0].cycles,
        gbs(k[0].cycles),
        k[1].cycles,
        gbs(k[1].cycles)
    );
    let err = (gbs(k[1].cycles) - 2846.0) / 2846.0;
    assert!(err.abs() <= 0.15, "{:+.1}%", err * 100.0);
}
