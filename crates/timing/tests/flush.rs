//! `l2.flush_between_launches` (GPGPU-Sim `-gpgpu_flush_l2_cache`, Nsight Compute's cache
//! control): the flush happens before the measured launch starts, so neither its write-backs of
//! dirty lines nor the previous launch's memory traffic still in flight may be charged to the
//! launch that follows.

mod common;

use common::*;
use warpforge_core::{KernelRunner, MemSpace};
use warpforge_timing::{GpuConfig, KernelStats, TimingRunner};

/// 120 CTAs of 8 warps; every warp stores (or loads) `lines` 128-byte lines of its own: 3.75 MiB
/// in all, five times `gtx480`'s L2, so the L2 ends full of dirty lines after the stores, with
/// write-backs queued for DRAM.
fn sweep(store: bool, lines: u32) -> Mock {
    Mock::new(
        120,
        256,
        Box::new(move |cta, w, i| match i {
            i if i < lines => {
                let base =
                    0x1000_0000 + ((cta as u64 * 8 + w as u64) * lines as u64 + i as u64) * 128;
                Some(mem(0x100, MemSpace::Global, store, 2, 1, move |l| {
                    base + 4 * l as u64
                }))
            }
            i if i == lines => Some(exit(0x200)),
            _ => None,
        }),
    )
}

/// A short kernel: 15 CTAs of 8 warps each loading 8 fresh lines.
fn probe() -> Mock {
    Mock::new(
        15,
        256,
        Box::new(move |cta, w, i| match i {
            i if i < 8 => {
                let base = 0x4000_0000 + ((cta as u64 * 8 + w as u64) * 8 + i as u64) * 128;
                Some(mem(
                    0x100,
                    MemSpace::Global,
                    false,
                    3 + i as u16,
                    1,
                    move |l| base + 4 * l as u64,
                ))
            }
            8 => Some(exit(0x200)),
            _ => None,
        }),
    )
}

fn after(cfg: &GpuConfig, store: bool) -> Vec<KernelStats> {
    let mut r = TimingRunner::new(cfg.clone(), 1);
    for mut s in [sweep(store, 32), probe()] {
        r.run_kernel(&mut s).unwrap();
    }
    r.kernels().to_vec()
}

#[test]
fn a_launch_after_a_flush_of_dirty_lines_costs_what_it_costs_after_a_clean_one() {
    let mut cfg = GpuConfig::preset("gtx480").unwrap();
    cfg.l2.flush_between_launches = true;
    let (dirty, clean) = (after(&cfg, true), after(&cfg, false));
    eprintln!(
        "probe after stores: {} cycles ({} DRAM writes in the sweep); after loads: {}",
        dirty[1].cycles, dirty[0].dram.writes, clean[1].cycles
    );
    assert!(dirty[0].dram.writes > 0, "the stores reached DRAM");
    // Only the clock domains' phase at the launch start differs (a few cycles).
    let (d, c) = (dirty[1].cycles as f64, clean[1].cycles as f64);
    assert!(
        (d - c).abs() <= 0.02 * c,
        "after stores {d}, after loads {c}"
    );
    // The probe itself sends nothing to DRAM but its own reads.
    assert_eq!(dirty[1].dram.writes, 0);
}
