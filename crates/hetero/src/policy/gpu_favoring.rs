//! GPU-favoring (spec 004 §5.3): among row hits, critical GPU (CG) requests before any other;
//! when a new row must be activated, the oldest CG request before the globally oldest. Key
//! `(row_hit, class, age)` with CG above CPU above non-critical GPU (§5.5 \[INTERP\]); with
//! `policy.gpu_favoring_cpu_over_ng = false` (§4.3's two GPU-favoring sentences read alone,
//! session 20) CG above the rest, the CPU and non-critical GPU requests by age.

use super::{best_by, level, Cand, Ctx, MemPolicy};
use crate::config::PolicyConfig;

struct GpuFavoring {
    /// `policy.gpu_favoring_cpu_over_ng`.
    cpu_over_ng: bool,
}

impl MemPolicy for GpuFavoring {
    fn pick(&mut self, _: &Ctx, c: &[Cand]) -> Option<usize> {
        if self.cpu_over_ng {
            best_by(c, |c| (!c.row_hit, level(c), c.arrival, c.tok))
        } else {
            best_by(c, |c| (!c.row_hit, !c.is_cg(), c.arrival, c.tok))
        }
    }
    fn uses_criticality(&self) -> bool {
        true
    }
}

/// The policy.
pub fn new(c: &PolicyConfig) -> Box<dyn MemPolicy> {
    Box::new(GpuFavoring {
        cpu_over_ng: c.gpu_favoring_cpu_over_ng,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::GpuStatus;
    use crate::req::Source;

    fn cand(tok: u64, row_hit: bool, source: Source, critical: bool) -> Cand {
        Cand {
            pos: tok as usize,
            row_hit,
            source,
            critical,
            arrival: tok,
            bank: 0,
            tok,
        }
    }

    #[test]
    fn critical_gpu_wins_within_row_hits_and_within_activates() {
        let g = GpuStatus::default();
        let ctx = Ctx {
            now: 0,
            dram_now: 0,
            gpu: &g,
        };
        let mut p = GpuFavoring { cpu_over_ng: true };
        let c = [
            cand(0, false, Source::Cpu(0), false),
            cand(1, true, Source::Cpu(1), false),
            cand(2, true, Source::Gpgpu, true),
            cand(3, false, Source::Gfx(7), true),
        ];
        assert_eq!(p.pick(&ctx, &c), Some(2), "CG row hit first");
        assert_eq!(p.pick(&ctx, &c[..2]), Some(1), "row hit before older miss");
        let misses = [c[0], c[3]];
        assert_eq!(p.pick(&ctx, &misses), Some(1), "oldest CG activates first");
        let ng = [
            cand(0, true, Source::Gpgpu, false),
            cand(1, true, Source::Cpu(0), false),
        ];
        assert_eq!(p.pick(&ctx, &ng), Some(1), "CPU above non-critical GPU");
    }

    /// `policy.gpu_favoring_cpu_over_ng = false` (§4.3's sentences alone): CG still first among
    /// row hits and among activates, row hits still before activates, but an older
    /// non-critical GPU read goes before a younger CPU read; the preset keeps the CPU first.
    #[test]
    fn without_cpu_over_ng_only_critical_gpu_is_raised() {
        let g = GpuStatus::default();
        let ctx = Ctx {
            now: 0,
            dram_now: 0,
            gpu: &g,
        };
        let mut pc = crate::config::HeteroConfig::preset("hetero")
            .unwrap()
            .policy;
        let ng = [
            cand(0, true, Source::Gfx(1), false),
            cand(1, true, Source::Cpu(0), false),
        ];
        assert_eq!(new(&pc).pick(&ctx, &ng), Some(1), "preset: CPU above NG");
        pc.gpu_favoring_cpu_over_ng = false;
        let mut p = new(&pc);
        assert_eq!(p.pick(&ctx, &ng), Some(0), "NG and CPU by age");
        let ng_rev = [
            cand(0, true, Source::Cpu(0), false),
            cand(1, true, Source::Gfx(1), false),
        ];
        assert_eq!(p.pick(&ctx, &ng_rev), Some(0), "the older CPU read first");
        let c = [
            cand(0, false, Source::Cpu(0), false),
            cand(1, true, Source::Cpu(1), false),
            cand(2, true, Source::Gfx(3), true),
            cand(3, false, Source::Gfx(7), true),
        ];
        assert_eq!(p.pick(&ctx, &c), Some(2), "CG row hit first");
        assert_eq!(
            p.pick(&ctx, &[c[0], c[3]]),
            Some(1),
            "oldest CG activates first"
        );
        assert_eq!(
            p.pick(&ctx, &[c[3], ng[0]]),
            Some(1),
            "any row hit before a CG miss"
        );
    }
}
