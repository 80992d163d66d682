//! Modern core and memory features (issue 14 item 3) on real kernels: kernel launch latency and
//! the unified L1D/shared array with its per-launch carve-out.

use warpforge_simt::Device;
use warpforge_timing::{GpuConfig, KernelStats, TimingRunner};
use warpforge_workloads::micro;
use warpforge_workloads::{find, Check, Size};

fn run(name: &str, size: Size, cfg: GpuConfig) -> Vec<KernelStats> {
    let w = find(name).unwrap();
    let mut dev = Device::new();
    dev.set_runner(Box::new(TimingRunner::new(cfg, 1)));
    assert_eq!(w.run(&mut dev, size).unwrap(), Check::Passed, "{name}");
    let mut r = dev.take_runner().unwrap();
    let t = r.as_any_mut().downcast_mut::<TimingRunner>().unwrap();
    t.kernels().to_vec()
}

/// `core.launch_latency` (GPGPU-Sim `-gpgpu_kernel_launch_latency`) delays the first CTA of
/// every launch by exactly that many core cycles, counted in the launch's cycles; nothing else
/// changes. `core.cta_launch_latency` adds its value per CTA of the launch. (Delays of a whole
/// number of DRAM cycles, 924 / 700 per core cycle on gtx480, so that the clock domains keep
/// their phase and the rest of the run is the same cycle for cycle.)
#[test]
fn launch_latency_delays_every_launch_exactly() {
    let base = GpuConfig::preset("gtx480").unwrap();
    let mut late = base.clone();
    late.core.launch_latency = 1000;
    let mut per_cta = base.clone();
    per_cta.core.cta_launch_latency = 25;
    let (a, b, c) = (
        run("micro_lat_l1", Size::Tiny, base),
        run("micro_lat_l1", Size::Tiny, late),
        run("micro_lat_l1", Size::Tiny, per_cta),
    );
    assert_eq!(a.len(), 3);
    for i in 0..3 {
        assert_eq!(b[i].cycles, a[i].cycles + 1000, "launch {i}");
        assert_eq!(c[i].cycles, a[i].cycles + 25, "launch {i}: one CTA");
        assert_eq!(b[i].warp_insts, a[i].warp_insts);
    }
}

/// `qv100` has GPGPU-Sim's 128 KiB unified L1D/shared array: a kernel without shared memory gets
/// it all as L1D, so the 64 KiB chase of `micro_lat_l2` hits the L1D from its second lap on;
/// with the array switched off the L1D keeps the `dl1` string's 32 KiB and the chase goes to
/// the L2 every hop.
#[test]
fn unified_l1_gives_a_shared_memory_free_kernel_the_whole_array() {
    let q = GpuConfig::preset("qv100").unwrap();
    assert_eq!(q.shared.unified_bytes, 128 << 10);
    assert_eq!(q.l1d.capacity(), 32 << 10);
    let mut split = q.clone();
    split.shared.unified_bytes = 0;
    let lat = |cfg: GpuConfig| {
        let k = run("micro_lat_l2", Size::Small, cfg);
        // Launches: warm-up (one lap), n hops (one lap, L1 cold), 2n hops (two laps).
        let n = micro::chase_hops(Size::Small) as f64;
        (k[2].cycles - k[1].cycles) as f64 / n
    };
    let (unified, separate) = (lat(q.clone()), lat(split));
    eprintln!("qv100 64 KiB chase, second lap: {unified:.1} cycles/hop unified, {separate:.1} with a 32 KiB L1D");
    assert!(unified < 1.5 * q.l1d.latency as f64 + 10.0, "{unified}");
    assert!(separate > q.l2.rop_latency as f64, "{separate}");
}
