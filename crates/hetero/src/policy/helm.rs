//! HeLM (Mekkat et al., PACT 2013; spec 004 §5.7): a shared-LLC management policy. GPU read
//! misses bypass the LLC while the GPU is latency tolerant: its thread-level parallelism, "the
//! average number of threads available for issuing" ([`super::GpuStatus::ready_warps`], ready
//! warps per SM), is at least a threshold. The threshold is chosen at run time from the cache
//! sensitivity of both sides, measured on sampler sets (\[EXT\] the original's threshold
//! selection, spec 004 §5.7: "adapted with set-dueling-style sampler sets that measure CPU and
//! GPU cache sensitivity"):
//! * one LLC set in `helm_sample` is a sampler where GPU read misses **always** bypass, another
//!   one in `helm_sample` a sampler where they **never** bypass;
//! * every `interval` the CPU is cache sensitive when its miss rate in the never-bypass samplers
//!   exceeds the one in the always-bypass samplers by more than `helm_margin` (GPU blocks cost
//!   it hits), the GPU when its own miss rate in the always-bypass samplers exceeds the one in
//!   the never-bypass samplers by more than `helm_margin`;
//! * CPU sensitive -> the low threshold `helm_low_tlp` (bypass readily); else GPU sensitive ->
//!   the high threshold `helm_high_tlp`; neither -> the threshold of the side whose difference
//!   is nearer its margin. Counts are halved at each decision; until the first decision the
//!   high threshold applies.
//!
//! DRAM scheduling is FR-FCFS. \[INTERP\] The document gives no HeLM constants; thresholds and
//! sampling are ours (preset `hetero`). The TLP is the GPU-wide mean per SM (requests do not
//! carry their SM). A GPU kind that does not report `ready_warps` (0) never bypasses.

use super::{best_by, Cand, Ctx, MemPolicy};
use crate::config::PolicyConfig;
use crate::llc::set_hash;
use crate::req::{Request, Source};

/// Sampler kind of a set.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Sampler {
    /// GPU read misses always bypass.
    Bypass,
    /// GPU read misses never bypass.
    Allocate,
    /// Follows the TLP threshold.
    Follower,
}

struct Helm {
    low: f64,
    high: f64,
    thr: f64,
    sample: u64,
    margin: f64,
    interval: u64,
    interval_end: u64,
    /// (accesses, misses) by [sampler kind: bypass, allocate][side: CPU, GPU].
    acc: [[(f64, f64); 2]; 2],
    decisions: u64,
    low_decisions: u64,
    bypassed: u64,
}

impl Helm {
    fn sampler(&self, line: u64) -> Sampler {
        match set_hash(line) & (self.sample - 1) {
            0 => Sampler::Bypass,
            1 => Sampler::Allocate,
            _ => Sampler::Follower,
        }
    }

    fn miss_rate(&self, kind: usize, side: usize) -> Option<f64> {
        let (a, m) = self.acc[kind][side];
        (a > 0.0).then(|| m / a)
    }

    fn decide(&mut self) {
        let cpu = match (self.miss_rate(1, 0), self.miss_rate(0, 0)) {
            (Some(alloc), Some(byp)) => Some(alloc - byp),
            _ => None,
        };
        let gpu = match (self.miss_rate(0, 1), self.miss_rate(1, 1)) {
            (Some(byp), Some(alloc)) => Some(byp - alloc),
            _ => None,
        };
        if let (Some(c), Some(g)) = (cpu, gpu) {
            self.thr = if c > self.margin {
                self.low
            } else if g > self.margin || g >= c {
                self.high
            } else {
                self.low
            };
            self.decisions += 1;
            self.low_decisions += (self.thr == self.low) as u64;
        }
        for k in &mut self.acc {
            for s in k {
                s.0 /= 2.0;
                s.1 /= 2.0;
            }
        }
    }
}

impl MemPolicy for Helm {
    fn pick(&mut self, _: &Ctx, c: &[Cand]) -> Option<usize> {
        best_by(c, Cand::frfcfs_key)
    }

    fn on_llc_block(&mut self, _: &Ctx, src: Source, line: u64, hit: bool) {
        let kind = match self.sampler(line) {
            Sampler::Bypass => 0,
            Sampler::Allocate => 1,
            Sampler::Follower => return,
        };
        let e = &mut self.acc[kind][src.is_gpu() as usize];
        e.0 += 1.0;
        e.1 += (!hit) as u64 as f64;
    }

    /// The sampled sets' counters (`on_llc_block`) and the bypass count (`llc_bypass`).
    fn observes_waiting_lookups(&self, _: Source) -> bool {
        true
    }

    fn llc_bypass(&mut self, ctx: &Ctx, r: &Request) -> bool {
        if !r.source.is_gpu() || r.write {
            return false;
        }
        let b = match self.sampler(r.addr / 64) {
            Sampler::Bypass => true,
            Sampler::Allocate => false,
            Sampler::Follower => ctx.gpu.ready_warps > 0.0 && ctx.gpu.ready_warps >= self.thr,
        };
        self.bypassed += b as u64;
        b
    }

    fn tick(&mut self, ctx: &Ctx) {
        if ctx.now >= self.interval_end {
            self.decide();
            self.interval_end += self.interval;
        }
    }

    fn counters(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("helm_bypassed", self.bypassed as f64),
            (
                "helm_low_threshold_fraction",
                if self.decisions == 0 {
                    0.0
                } else {
                    self.low_decisions as f64 / self.decisions as f64
                },
            ),
        ]
    }
}

/// The policy.
pub fn new(c: &PolicyConfig) -> Box<dyn MemPolicy> {
    Box::new(Helm {
        low: c.helm_low_tlp,
        high: c.helm_high_tlp,
        thr: c.helm_high_tlp,
        sample: c.helm_sample as u64,
        margin: c.helm_margin,
        interval: c.interval.max(1),
        interval_end: c.interval.max(1),
        acc: [[(0.0, 0.0); 2]; 2],
        decisions: 0,
        low_decisions: 0,
        bypassed: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::HeteroConfig;
    use crate::policy::GpuStatus;

    fn ctx(now: u64, g: &GpuStatus) -> Ctx<'_> {
        Ctx {
            now,
            dram_now: 0,
            gpu: g,
        }
    }

    /// A follower-set block of `Helm` `h`, and one of each sampler kind.
    fn lines(h: &Helm) -> (u64, u64, u64) {
        let find = |k| (0u64..).find(|&l| h.sampler(l) == k).unwrap();
        (
            find(Sampler::Follower),
            find(Sampler::Bypass),
            find(Sampler::Allocate),
        )
    }

    fn helm() -> Helm {
        let c = HeteroConfig::preset("hetero").unwrap().policy;
        assert!(c.helm_low_tlp < c.helm_high_tlp);
        Helm {
            low: c.helm_low_tlp,
            high: c.helm_high_tlp,
            thr: c.helm_high_tlp,
            sample: c.helm_sample as u64,
            margin: c.helm_margin,
            interval: c.interval,
            interval_end: c.interval,
            acc: [[(0.0, 0.0); 2]; 2],
            decisions: 0,
            low_decisions: 0,
            bypassed: 0,
        }
    }

    fn feed(h: &mut Helm, g: &GpuStatus, line: u64, src: Source, hits: u32, misses: u32) {
        for k in 0..hits + misses {
            h.on_llc_block(&ctx(0, g), src, line, k < hits);
        }
    }

    #[test]
    fn samplers_force_bypass_and_followers_follow_the_tlp_threshold() {
        let mut h = helm();
        let (f, b, a) = lines(&h);
        let mut g = GpuStatus {
            ready_warps: h.high,
            ..Default::default()
        };
        let rd = |l: u64, s| Request::read(0, l * 64, s);
        assert!(h.llc_bypass(&ctx(0, &g), &rd(f, Source::Gpgpu)));
        assert!(h.llc_bypass(&ctx(0, &g), &rd(b, Source::Gpgpu)));
        assert!(!h.llc_bypass(&ctx(0, &g), &rd(a, Source::Gpgpu)));
        assert!(!h.llc_bypass(&ctx(0, &g), &rd(f, Source::Cpu(0))));
        let mut w = rd(f, Source::Gpgpu);
        w.write = true;
        assert!(!h.llc_bypass(&ctx(0, &g), &w), "stores allocate");
        g.ready_warps = (h.low + h.high) / 2.0;
        assert!(
            !h.llc_bypass(&ctx(0, &g), &rd(f, Source::Gpgpu)),
            "below high"
        );
        assert!(h.llc_bypass(&ctx(0, &g), &rd(b, Source::Gpgpu)), "sampler");
        g.ready_warps = 0.0;
        assert!(
            !h.llc_bypass(&ctx(0, &g), &rd(f, Source::Gpgpu)),
            "no TLP report"
        );
    }

    #[test]
    fn cache_sensitive_cpu_selects_the_low_threshold_and_sensitive_gpu_the_high() {
        let g = GpuStatus::default();
        let mut h = helm();
        let (_, b, a) = lines(&h);
        // The CPU misses far more where the GPU allocates; the GPU does not care.
        feed(&mut h, &g, a, Source::Cpu(0), 50, 50);
        feed(&mut h, &g, b, Source::Cpu(0), 90, 10);
        feed(&mut h, &g, a, Source::Gpgpu, 0, 100);
        feed(&mut h, &g, b, Source::Gpgpu, 0, 100);
        h.tick(&ctx(h.interval, &g));
        assert_eq!(h.thr, h.low);
        // Now the GPU hits where it allocates and misses where it bypasses; the CPU is
        // indifferent.
        let mut h = helm();
        feed(&mut h, &g, a, Source::Cpu(0), 90, 10);
        feed(&mut h, &g, b, Source::Cpu(0), 90, 10);
        feed(&mut h, &g, a, Source::Gpgpu, 80, 20);
        feed(&mut h, &g, b, Source::Gpgpu, 10, 90);
        h.thr = h.low;
        h.tick(&ctx(h.interval, &g));
        assert_eq!(h.thr, h.high);
    }
}
