//! The abstract GPU of the LAX study (Table 6.1) and its workgroup-slot accounting.

use crate::engine::{Time, US};

/// GPU parameters (Table 6.1 and §6.1 of document 003).
#[derive(Debug, Clone, PartialEq)]
pub struct GpuConfig {
    /// Compute units (8).
    pub cus: u32,
    /// SIMD units per CU (4).
    pub simds: u32,
    /// Maximum wavefronts per SIMD (10).
    pub wf_per_simd: u32,
    /// Vector register file per CU in bytes (256 KB).
    pub vgpr_bytes: u32,
    /// Local data share per CU in bytes (64 KB, the GCN value; Table 6.1 does not list it).
    pub lds_bytes: u32,
    /// Lanes per wavefront (64).
    pub wavefront: u32,
    /// Hardware compute queues (128).
    pub queues: usize,
    /// Command-processor parse period (2 µs).
    pub cp_period: Time,
    /// Streams the CP inspects per period (4).
    pub cp_streams: usize,
    /// Profiling / priority epoch (100 µs).
    pub epoch: Time,
    /// Static power (W) for the energy metric.
    pub static_w: f64,
    /// Dynamic energy per wavefront-µs of isolated WG work (nJ).
    pub nj_per_wf_us: f64,
}

impl Default for GpuConfig {
    fn default() -> Self {
        Self {
            cus: 8,
            simds: 4,
            wf_per_simd: 10,
            vgpr_bytes: 256 * 1024,
            lds_bytes: 64 * 1024,
            wavefront: 64,
            queues: 128,
            cp_period: 2 * US,
            cp_streams: 4,
            epoch: 100 * US,
            static_w: 10.0,
            nj_per_wf_us: 2.0,
        }
    }
}

/// Resources one workgroup of a kernel occupies on a CU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WgFootprint {
    /// Wavefronts.
    pub wf: u32,
    /// Vector-register bytes.
    pub vgpr: u32,
    /// LDS bytes.
    pub lds: u32,
}

impl GpuConfig {
    /// The footprint of one WG with `threads` threads, `vgprs` registers per thread, `lds` bytes.
    pub fn footprint(&self, threads: u32, vgprs: u32, lds: u32) -> WgFootprint {
        let wf = threads.div_ceil(self.wavefront);
        WgFootprint {
            wf,
            vgpr: wf * self.wavefront * vgprs * 4,
            lds,
        }
    }

    /// How many WGs of this footprint fit on one empty CU (limited by wavefronts, VGPRs, LDS).
    pub fn wgs_per_cu(&self, f: WgFootprint) -> u32 {
        let by_wf = (self.simds * self.wf_per_simd) / f.wf.max(1);
        let by_vgpr = self.vgpr_bytes.checked_div(f.vgpr).unwrap_or(u32::MAX);
        let by_lds = self.lds_bytes.checked_div(f.lds).unwrap_or(u32::MAX);
        by_wf.min(by_vgpr).min(by_lds)
    }
}

/// Free resources of every CU.
#[derive(Debug, Clone)]
pub struct Cus {
    free: Vec<WgFootprint>,
    next: usize,
}

impl Cus {
    /// All CUs empty.
    pub fn new(cfg: &GpuConfig) -> Self {
        let full = WgFootprint {
            wf: cfg.simds * cfg.wf_per_simd,
            vgpr: cfg.vgpr_bytes,
            lds: cfg.lds_bytes,
        };
        Self {
            free: vec![full; cfg.cus as usize],
            next: 0,
        }
    }

    /// Places one WG on the first CU (round-robin from the last placement) with room; returns it.
    pub fn place(&mut self, f: WgFootprint) -> Option<usize> {
        let n = self.free.len();
        for i in 0..n {
            let cu = (self.next + i) % n;
            let r = &mut self.free[cu];
            if r.wf >= f.wf && r.vgpr >= f.vgpr && r.lds >= f.lds {
                r.wf -= f.wf;
                r.vgpr -= f.vgpr;
                r.lds -= f.lds;
                self.next = (cu + 1) % n;
                return Some(cu);
            }
        }
        None
    }

    /// Releases a WG's resources on `cu`.
    pub fn release(&mut self, cu: usize, f: WgFootprint) {
        let r = &mut self.free[cu];
        r.wf += f.wf;
        r.vgpr += f.vgpr;
        r.lds += f.lds;
    }

    /// True when no CU has any free wavefront slot.
    pub fn full(&self) -> bool {
        self.free.iter().all(|r| r.wf == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_limited_by_wavefronts_registers_and_lds() {
        let g = GpuConfig::default();
        // 256 threads, 24 regs: 4 wavefronts -> 10 per CU by wavefronts, 96 KB VGPR -> 2 by regs?
        let f = g.footprint(256, 24, 0);
        assert_eq!(f.wf, 4);
        assert_eq!(f.vgpr, 4 * 64 * 24 * 4);
        assert_eq!(g.wgs_per_cu(f), 10); // 24 KB each: 10 fit in 256 KB
        let gemm = g.footprint(256, 64, 16384);
        assert_eq!(g.wgs_per_cu(gemm), 4); // 64 KB of VGPR each
        let big_lds = g.footprint(64, 8, 40 * 1024);
        assert_eq!(g.wgs_per_cu(big_lds), 1);
        let mut cus = Cus::new(&g);
        let mut placed = 0;
        while cus.place(gemm).is_some() {
            placed += 1;
        }
        assert_eq!(placed, 4 * 8);
    }
}
