//! HeLM (Mekkat et al., PACT 2013; spec 004 §5.7): a shared-LLC management policy; GPU read
//! misses bypass the LLC while the GPU is latency tolerant, measured as its ready-warp fraction
//! (thread-level parallelism) reported in [`super::GpuStatus::ready_fraction`], above
//! `helm_tlp`. DRAM scheduling is FR-FCFS.
//!
//! \[INTERP\] A fixed TLP threshold instead of the original's set-dueling adaptation (its
//! constants are not in the document). Applies to every GPU source that reports a ready
//! fraction (the 3D pipeline may report its shader occupancy).

use super::{best_by, Cand, Ctx, MemPolicy};
use crate::config::PolicyConfig;
use crate::req::Request;

struct Helm {
    tlp: f64,
}

impl MemPolicy for Helm {
    fn pick(&mut self, _: &Ctx, c: &[Cand]) -> Option<usize> {
        best_by(c, Cand::frfcfs_key)
    }

    fn llc_bypass(&mut self, ctx: &Ctx, r: &Request) -> bool {
        r.source.is_gpu() && !r.write && ctx.gpu.ready_fraction > self.tlp
    }
}

/// The policy.
pub fn new(c: &PolicyConfig) -> Box<dyn MemPolicy> {
    Box::new(Helm { tlp: c.helm_tlp })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::HeteroConfig;
    use crate::policy::GpuStatus;
    use crate::req::Source;

    #[test]
    fn gpu_misses_bypass_only_when_latency_tolerant() {
        let c = HeteroConfig::preset("hetero").unwrap().policy;
        let mut p = new(&c);
        let mut g = GpuStatus {
            ready_fraction: 0.9,
            ..Default::default()
        };
        let ctx = Ctx {
            now: 0,
            dram_now: 0,
            gpu: &g,
        };
        assert!(p.llc_bypass(&ctx, &Request::read(0, 0, Source::Gpgpu)));
        assert!(!p.llc_bypass(&ctx, &Request::read(0, 0, Source::Cpu(0))));
        g.ready_fraction = 0.1;
        let ctx = Ctx {
            now: 0,
            dram_now: 0,
            gpu: &g,
        };
        assert!(!p.llc_bypass(&ctx, &Request::read(0, 0, Source::Gpgpu)));
    }
}
