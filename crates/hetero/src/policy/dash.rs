//! DASH (Usui et al., TACO 2016; spec 004 §5.7), with the frame-rate estimator of §4 standing in
//! for its profile: strict levels, then row hit, then age:
//! 1. an urgent GPU (a frame in progress whose progress λ lags the elapsed fraction of the
//!    target frame period);
//! 2. memory-non-intensive CPU applications (less than `dash_cluster` of the CPU reads served in
//!    the last interval, TCM-style clustering);
//! 3. a non-urgent GPU;
//! 4. memory-intensive CPU applications.
//!
//! \[INTERP\] No probabilistic switching between levels 3 and 4 and no short-deadline class (the
//! original's constants are not in the document). A GPGPU has no deadline, so it is never
//! urgent (the document leaves DASH out of GPGPU mixes).

use super::{best_by, Cand, Ctx, MemPolicy};
use crate::config::PolicyConfig;
use crate::dram::DramEntry;

const MAX_APPS: usize = 64;

struct Dash {
    interval: u64,
    cluster: f64,
    end: u64,
    served: Vec<u64>,
    intensive: u64,
    urgent: bool,
}

impl Dash {
    fn level(&self, c: &Cand) -> u8 {
        match c.source.cpu() {
            None if self.urgent => 0,
            None => 2,
            Some(i) if self.intensive >> i & 1 == 1 => 3,
            Some(_) => 1,
        }
    }
}

impl MemPolicy for Dash {
    fn pick(&mut self, _: &Ctx, c: &[Cand]) -> Option<usize> {
        best_by(c, |x| (self.level(x), !x.row_hit, x.arrival, x.tok))
    }

    fn on_served(&mut self, _: &Ctx, e: &DramEntry) {
        if let Some(i) = e.source.cpu() {
            if i < MAX_APPS {
                self.served[i] += 1;
            }
        }
    }

    fn tick(&mut self, ctx: &Ctx) {
        self.urgent = ctx
            .gpu
            .frame
            .is_some_and(|(elapsed, progress)| progress < elapsed);
        if ctx.now >= self.end {
            self.end += self.interval;
            let total: u64 = self.served.iter().sum();
            self.intensive = 0;
            if total > 0 {
                for (i, &n) in self.served.iter().enumerate() {
                    if n as f64 / total as f64 >= self.cluster {
                        self.intensive |= 1 << i;
                    }
                }
            }
            self.served.iter_mut().for_each(|n| *n = 0);
        }
    }
}

/// The policy.
pub fn new(c: &PolicyConfig) -> Box<dyn MemPolicy> {
    Box::new(Dash {
        interval: c.interval,
        cluster: c.dash_cluster,
        end: c.interval,
        served: vec![0; MAX_APPS],
        intensive: 0,
        urgent: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::HeteroConfig;
    use crate::policy::GpuStatus;
    use crate::req::Source;

    fn cand(tok: u64, source: Source) -> Cand {
        Cand {
            pos: tok as usize,
            row_hit: false,
            source,
            critical: false,
            arrival: tok,
            bank: 0,
            tok,
        }
    }

    #[test]
    fn urgent_gpu_first_then_light_cpu_then_gpu_then_heavy_cpu() {
        let c = HeteroConfig::preset("hetero").unwrap().policy;
        let mut p = new(&c);
        let mut g = GpuStatus::default();
        // Core 0 heavy (95 of 100 reads), core 1 light.
        let ctx = Ctx {
            now: 0,
            dram_now: 0,
            gpu: &g,
        };
        for t in 0..100 {
            let src = if t < 95 {
                Source::Cpu(0)
            } else {
                Source::Cpu(1)
            };
            let e = DramEntry {
                tok: t,
                line: 0,
                source: src,
                critical: false,
                arrival: 0,
                bank: 0,
                row: 0,
                activated: false,
            };
            p.on_served(&ctx, &e);
        }
        g.frame = Some((0.5, 0.6)); // on track
        p.tick(&Ctx {
            now: c.interval,
            dram_now: 0,
            gpu: &g,
        });
        let cands = [
            cand(0, Source::Cpu(0)),
            cand(1, Source::Gfx(3)),
            cand(2, Source::Cpu(1)),
        ];
        assert_eq!(
            p.pick(
                &Ctx {
                    now: 0,
                    dram_now: 0,
                    gpu: &g
                },
                &cands
            ),
            Some(2)
        );
        assert_eq!(
            p.pick(
                &Ctx {
                    now: 0,
                    dram_now: 0,
                    gpu: &g
                },
                &cands[..2]
            ),
            Some(1)
        );
        g.frame = Some((0.5, 0.4)); // lagging: urgent
        p.tick(&Ctx {
            now: c.interval + 1,
            dram_now: 0,
            gpu: &g,
        });
        assert_eq!(
            p.pick(
                &Ctx {
                    now: 0,
                    dram_now: 0,
                    gpu: &g
                },
                &cands
            ),
            Some(1)
        );
    }
}
