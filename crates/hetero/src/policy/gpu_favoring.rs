//! GPU-favoring (spec 004 §5.3): among row hits, critical GPU (CG) requests before any other;
//! when a new row must be activated, the oldest CG request before the globally oldest. Key
//! `(row_hit, class, age)` with CG above CPU above non-critical GPU (§5.5 \[INTERP\]).

use super::{best_by, level, Cand, Ctx, MemPolicy};
use crate::config::PolicyConfig;

struct GpuFavoring;

impl MemPolicy for GpuFavoring {
    fn pick(&mut self, _: &Ctx, c: &[Cand]) -> Option<usize> {
        best_by(c, |c| (!c.row_hit, level(c), c.arrival, c.tok))
    }
    fn uses_criticality(&self) -> bool {
        true
    }
}

/// The policy.
pub fn new(_: &PolicyConfig) -> Box<dyn MemPolicy> {
    Box::new(GpuFavoring)
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
        let mut p = GpuFavoring;
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
}
