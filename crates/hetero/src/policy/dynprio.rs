//! DynPrio (Jeong et al., DAC 2012; spec 004 §5.7) with the §4 estimator for progress: with `e`
//! the elapsed fraction of the target frame period and λ the frame's progress, GPU above CPU
//! when `e >= 0.9` (the last 10% of the frame time), GPU equal to CPU (FR-FCFS) when λ < e, CPU
//! above GPU otherwise (the static CPU-first baseline it improves on). Without a frame in
//! progress (GPGPU) GPU and CPU are equal [INTERP: the document leaves DynPrio out of GPGPU
//! mixes]. Row hits first within a level.

use super::{best_by, Cand, Ctx, MemPolicy};
use crate::config::PolicyConfig;

struct DynPrio;

impl MemPolicy for DynPrio {
    fn pick(&mut self, ctx: &Ctx, c: &[Cand]) -> Option<usize> {
        // rank: 0 = first, per class.
        let (gpu, cpu) = match ctx.gpu.frame {
            Some((e, _)) if e >= 0.9 => (0u8, 1u8),
            Some((e, lambda)) if lambda < e => (0, 0),
            Some(_) => (1, 0),
            None => (0, 0),
        };
        best_by(c, |x| {
            let r = if x.source.is_gpu() { gpu } else { cpu };
            (!x.row_hit, r, x.arrival, x.tok)
        })
    }
}

/// The policy.
pub fn new(_: &PolicyConfig) -> Box<dyn MemPolicy> {
    Box::new(DynPrio)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::GpuStatus;
    use crate::req::Source;

    #[test]
    fn gpu_priority_follows_frame_progress() {
        let mut p = DynPrio;
        let c = [
            Cand {
                pos: 0,
                row_hit: false,
                source: Source::Cpu(0),
                critical: false,
                arrival: 5,
                bank: 0,
                tok: 0,
            },
            Cand {
                pos: 1,
                row_hit: false,
                source: Source::Gfx(2),
                critical: false,
                arrival: 1,
                bank: 0,
                tok: 1,
            },
        ];
        let pick = |p: &mut DynPrio, frame| {
            let g = GpuStatus {
                frame,
                ..Default::default()
            };
            p.pick(
                &Ctx {
                    now: 0,
                    dram_now: 0,
                    gpu: &g,
                },
                &c,
            )
        };
        assert_eq!(
            pick(&mut p, Some((0.5, 0.7))),
            Some(0),
            "on track: CPU first"
        );
        assert_eq!(
            pick(&mut p, Some((0.5, 0.3))),
            Some(1),
            "lagging: equal, older first"
        );
        let mut late = c;
        late[1].arrival = 9;
        let g = GpuStatus {
            frame: Some((0.95, 0.99)),
            ..Default::default()
        };
        assert_eq!(
            p.pick(
                &Ctx {
                    now: 0,
                    dram_now: 0,
                    gpu: &g
                },
                &late
            ),
            Some(1),
            "last 10%: GPU first"
        );
    }
}
