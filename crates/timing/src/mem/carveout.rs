//! Unified L1 data cache and shared memory (Volta and later; GPGPU-Sim's adaptive cache
//! configuration, `-gpgpu_adaptive_cache_config 1`): one SRAM of `shared.unified_bytes` per SM
//! split at each launch between shared memory and the L1D. The split is the smallest carve-out
//! of `shared.carveouts` that holds the kernel's shared memory for as many CTAs as the SM's
//! other limits admit (GPGPU-Sim computes that CTA count with the full shared-memory size, so
//! the carve-out never limits occupancy, and nor does it here); the L1D gets the rest, as more or
//! fewer ways of the configured sets (folded to at most 64 ways with more sets, as the importer
//! folds wide caches). Decision: at least one way is kept when a carve-out takes everything.

use crate::config::CacheConfig;
use crate::GpuConfig;
use warpforge_core::KernelInfo;

/// CTAs of `k` an SM holds by warps, registers, shared memory and the CTA limit.
pub fn ctas_per_sm(cfg: &GpuConfig, k: &KernelInfo) -> u32 {
    let c = &cfg.core;
    let warps = k.warps_per_cta().max(1);
    let regs = k.regs_per_thread * warps * 32;
    let n = c
        .max_ctas
        .min(c.max_warps / warps)
        .min(c.registers.checked_div(regs).unwrap_or(u32::MAX))
        .min(
            c.shared_bytes
                .checked_div(k.shared_bytes)
                .unwrap_or(u32::MAX),
        );
    n.max(1)
}

/// The shared-memory carve-out for `k`, bytes (`None` without a unified L1).
pub fn carveout(cfg: &GpuConfig, k: &KernelInfo) -> Option<u32> {
    let sh = &cfg.shared;
    if sh.unified_bytes == 0 {
        return None;
    }
    let need = k.shared_bytes.saturating_mul(ctas_per_sm(cfg, k));
    let last = *sh.carveouts.last()?;
    Some(
        sh.carveouts
            .iter()
            .copied()
            .find(|&c| c >= need)
            .unwrap_or(last),
    )
}

/// The L1D geometry for a launch of `k` (`None` without a unified L1: keep `cfg.l1d`).
pub fn l1d_for(cfg: &GpuConfig, k: &KernelInfo) -> Option<CacheConfig> {
    let carve = carveout(cfg, k)?;
    let mut c = cfg.l1d.clone();
    let lines = ((cfg.shared.unified_bytes - carve) / c.line_bytes).max(c.sets);
    let (mut sets, mut ways) = (c.sets, lines / c.sets);
    if ways > 64 {
        ways = 64;
        sets = lines / 64;
        if c.index == "hashed" && !sets.is_power_of_two() {
            sets = 1 << (31 - sets.leading_zeros());
        }
    }
    c.sets = sets;
    c.ways = ways.max(1);
    Some(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpforge_core::Dim3;

    fn kernel(shared: u32, threads: u32) -> KernelInfo {
        KernelInfo {
            name: "k".into(),
            grid: Dim3 { x: 1, y: 1, z: 1 },
            block: Dim3 {
                x: threads,
                y: 1,
                z: 1,
            },
            regs_per_thread: 16,
            shared_bytes: shared,
            local_bytes: 0,
        }
    }

    /// QV100's options (GPGPU-Sim SM7_QV100): 128 KiB unified, carve-outs 0-96 KiB, L1D of
    /// 4 sets x 128 B lines.
    fn qv100() -> GpuConfig {
        let mut g = GpuConfig::preset("gtx480").unwrap();
        g.l1d.sets = 4;
        g.l1d.ways = 64;
        g.l1d.index = "linear".into();
        g.core.max_warps = 64;
        g.core.max_ctas = 32;
        g.core.registers = 65536;
        g.core.shared_bytes = 96 << 10;
        g.shared.unified_bytes = 128 << 10;
        g.shared.carveouts = [0, 8, 16, 32, 64, 96].iter().map(|k| k << 10).collect();
        g.validate().unwrap();
        g
    }

    #[test]
    fn no_shared_memory_gives_the_whole_array_to_the_l1d() {
        let g = qv100();
        let c = l1d_for(&g, &kernel(0, 256)).unwrap();
        assert_eq!(c.capacity(), 128 << 10);
        assert_eq!(
            (c.sets, c.ways),
            (16, 64),
            "256 ways folded to 64 x 16 sets"
        );
    }

    #[test]
    fn the_smallest_carveout_holding_every_resident_cta_is_chosen() {
        let g = qv100();
        // 256 threads, 16 regs: 8 CTAs by warps (64 / 8); 3 KiB each = 24 KiB -> 32 KiB.
        let k = kernel(3 << 10, 256);
        assert_eq!(ctas_per_sm(&g, &k), 8);
        assert_eq!(carveout(&g, &k), Some(32 << 10));
        assert_eq!(l1d_for(&g, &k).unwrap().capacity(), 96 << 10);
        // 48 KiB per CTA: 2 CTAs by shared memory = 96 KiB, leaving 32 KiB of L1D.
        let k = kernel(48 << 10, 256);
        assert_eq!(carveout(&g, &k), Some(96 << 10));
        let c = l1d_for(&g, &k).unwrap();
        assert_eq!((c.sets, c.ways, c.capacity()), (4, 64, 32 << 10));
    }

    #[test]
    fn without_a_unified_array_the_l1d_is_unchanged() {
        let g = GpuConfig::preset("gtx480").unwrap();
        assert_eq!(l1d_for(&g, &kernel(1024, 256)), None);
    }
}
