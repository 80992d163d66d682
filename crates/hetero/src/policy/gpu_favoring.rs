//! GPU-favoring (spec 004 §4.3 of the document, the digest's §5.3): "among the requests to the
//! currently open row in a bank, the critical GPU accesses are served before considering the
//! rest. When a new row needs to be activated in a bank, the oldest critical GPU access is given
//! priority over the global oldest access", with §4.3's general rule "The CPU accesses are given
//! higher priority than the non-critical GPU accesses": key `(row_hit, level, age)` with the
//! levels CG > CPU > NG (the default: sessions 9-20 and again since session 22, because §6.1.3
//! reads IM as GPU-favoring plus IM-SCHED and IM-LLC, whose "effects are additive"; see
//! `policy.gpu_favoring_cpu_over_ng` in `config.rs`). `policy.gpu_favoring_cpu_over_ng = false`
//! (an ablation, session 21's default): CG first, the CPU and non-critical GPU requests alike by
//! FR-FCFS's row hit and age.

use super::{best_by, level, Cand, Ctx, MemPolicy};
use crate::config::PolicyConfig;

struct GpuFavoring {
    /// `policy.gpu_favoring_cpu_over_ng` (the default `true`): the CPU above the non-critical
    /// GPU; `false` ranks them together by row hit and age.
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

    fn ctx(g: &GpuStatus) -> Ctx<'_> {
        Ctx {
            now: 0,
            dram_now: 0,
            gpu: g,
        }
    }

    /// The CG rules both orders share (§4.3): a CG row hit first, any row hit before an older
    /// miss, and the oldest CG request first among activates; `cg` is the critical source
    /// (GPGPU or a 3D unit).
    fn check_cg_first(p: &mut dyn MemPolicy, ctx: &Ctx, cg: Source) {
        let c = [
            cand(0, false, Source::Cpu(0), false),
            cand(1, true, Source::Cpu(1), false),
            cand(2, true, cg, true),
            cand(3, false, Source::Gfx(7), true),
        ];
        assert_eq!(p.pick(ctx, &c), Some(2), "CG row hit first");
        assert_eq!(p.pick(ctx, &c[..2]), Some(1), "row hit before older miss");
        assert_eq!(
            p.pick(ctx, &[c[0], c[3]]),
            Some(1),
            "oldest CG activates first"
        );
    }

    /// `policy.gpu_favoring_cpu_over_ng = false` (the ablation, session 21's default): CG first
    /// among row hits and among activates, row hits still
    /// before activates, and the rest (CPU and non-critical GPU) by FR-FCFS's row hit and age:
    /// an older non-critical GPU read goes before a younger CPU read and vice versa.
    #[test]
    fn ablation_raises_only_critical_gpu_reads() {
        let g = GpuStatus::default();
        let ctx = ctx(&g);
        let mut pc = crate::config::HeteroConfig::preset("hetero")
            .unwrap()
            .policy;
        pc.gpu_favoring_cpu_over_ng = false;
        let mut p = new(&pc);
        check_cg_first(p.as_mut(), &ctx, Source::Gfx(3));
        let ng = [
            cand(0, true, Source::Gfx(1), false),
            cand(1, true, Source::Cpu(0), false),
        ];
        assert_eq!(p.pick(&ctx, &ng), Some(0), "the older NG read first");
        let ng_rev = [
            cand(0, true, Source::Cpu(0), false),
            cand(1, true, Source::Gpgpu, false),
        ];
        assert_eq!(p.pick(&ctx, &ng_rev), Some(0), "the older CPU read first");
        assert_eq!(
            p.pick(&ctx, &[cand(3, false, Source::Gfx(7), true), ng[0]]),
            Some(1),
            "any row hit before a CG miss"
        );
        let misses = [
            cand(0, false, Source::Gfx(1), false),
            cand(1, true, Source::Cpu(0), false),
            cand(2, false, Source::Gfx(2), true),
        ];
        assert_eq!(
            p.pick(&ctx, &misses),
            Some(1),
            "a CPU row hit before a CG miss"
        );
        assert_eq!(
            p.pick(&ctx, &[misses[0], misses[2]]),
            Some(1),
            "CG before an older NG miss"
        );
    }

    /// The preset (`policy.gpu_favoring_cpu_over_ng = true`, sessions 9-20 and 22): the same CG
    /// rules, and the CPU above the non-critical GPU whatever their ages (§4.3).
    #[test]
    fn preset_ranks_the_cpu_above_non_critical_gpu() {
        let g = GpuStatus::default();
        let ctx = ctx(&g);
        let pc = crate::config::HeteroConfig::preset("hetero")
            .unwrap()
            .policy;
        assert!(
            pc.gpu_favoring_cpu_over_ng,
            "preset: §4.3's CPU-above-NG rule"
        );
        let mut p = new(&pc);
        check_cg_first(p.as_mut(), &ctx, Source::Gpgpu);
        for ng in [
            [
                cand(0, true, Source::Gpgpu, false),
                cand(1, true, Source::Cpu(0), false),
            ],
            [
                cand(0, true, Source::Gfx(1), false),
                cand(1, true, Source::Cpu(0), false),
            ],
        ] {
            assert_eq!(p.pick(&ctx, &ng), Some(1), "CPU above an older NG read");
        }
    }
}
