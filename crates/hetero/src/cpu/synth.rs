//! Synthetic CPU access streams standing in for the SPEC CPU2006 applications of spec 004 §8.3
//! (SPEC is licensed; §10.2 allows generators calibrated by LLC MPKI). **Substitutes**: only
//! the LLC-intensity class (H = high LLC MPKI, L = low) and the broad access pattern of each
//! application are modelled, not its code.
//!
//! Per 1000 instructions an application makes `apki` memory accesses: `cold_pki` of them to a
//! 512 MB region (LLC misses: streaming with `streams` sequential streams, or random), `warm_pki`
//! to a `warm_kb` region (misses the private L2, fits the shared LLC: this is what LLC
//! interference hurts) and the rest to a 16 KB hot region (L1 hits). `dep` is the fraction of
//! cold accesses that depend on the previous cold load (pointer chasing, no MLP); `wr` the
//! fraction of writes.

use super::{Op, OpStream};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Memory-intensity class of §8.3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Class {
    /// High LLC MPKI.
    H,
    /// Low LLC MPKI.
    L,
}

/// One substitute application.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct App {
    /// SPEC CPU2006 name it stands in for.
    pub name: &'static str,
    /// §8.3 group.
    pub class: Class,
    /// Memory accesses per 1000 instructions.
    pub apki: f64,
    /// Accesses to the cold (LLC-missing) region per 1000 instructions.
    pub cold_pki: f64,
    /// Accesses to the warm (LLC-resident) region per 1000 instructions.
    pub warm_pki: f64,
    /// Warm region, KB.
    pub warm_kb: u64,
    /// Sequential streams in the cold region (0 = random accesses).
    pub streams: u32,
    /// Fraction of cold loads that depend on the previous cold load.
    pub dep: f64,
    /// Fraction of writes.
    pub wr: f64,
}

#[allow(clippy::too_many_arguments)]
const fn app(
    name: &'static str,
    class: Class,
    cold_pki: f64,
    warm_pki: f64,
    warm_kb: u64,
    streams: u32,
    dep: f64,
    wr: f64,
) -> App {
    App {
        name,
        class,
        apki: 300.0,
        cold_pki,
        warm_pki,
        warm_kb,
        streams,
        dep,
        wr,
    }
}

/// The 13 applications of §8.3 (H: 7, L: 6), substitute parameters \[INTERP\].
pub const APPS: &[App] = &[
    app("bwaves", Class::H, 18.0, 6.0, 2048, 4, 0.0, 0.2),
    app("lbm", Class::H, 30.0, 4.0, 1024, 6, 0.0, 0.45),
    app("leslie3d", Class::H, 16.0, 8.0, 2048, 5, 0.0, 0.3),
    app("libquantum", Class::H, 25.0, 2.0, 512, 1, 0.0, 0.25),
    app("mcf", Class::H, 30.0, 10.0, 4096, 0, 0.6, 0.1),
    app("milc", Class::H, 20.0, 6.0, 2048, 0, 0.0, 0.3),
    app("soplex", Class::H, 15.0, 10.0, 4096, 2, 0.2, 0.15),
    app("bzip2", Class::L, 0.8, 12.0, 2048, 1, 0.0, 0.3),
    app("gcc", Class::L, 0.6, 14.0, 3072, 0, 0.3, 0.3),
    app("omnetpp", Class::L, 1.5, 18.0, 4096, 0, 0.5, 0.2),
    app("sphinx3", Class::L, 1.2, 10.0, 2048, 2, 0.0, 0.1),
    app("wrf", Class::L, 0.8, 8.0, 2048, 3, 0.0, 0.3),
    app("zeusmp", Class::L, 1.0, 8.0, 2048, 4, 0.0, 0.3),
];

/// The application named `name`.
pub fn find(name: &str) -> Option<&'static App> {
    APPS.iter().find(|a| a.name == name)
}

/// An endless stream of one application's accesses; `base` separates the address spaces of
/// co-running applications.
pub struct Synth {
    app: App,
    rng: ChaCha8Rng,
    base: u64,
    stream_pos: Vec<u64>,
    next_stream: usize,
}

const COLD_BLOCKS: u64 = (512 << 20) / 64;
const HOT_BLOCKS: u64 = (16 << 10) / 64;

impl Synth {
    /// The stream of `app` seeded by `seed`, its blocks offset by `base` (a block number).
    pub fn new(app: &App, seed: u64, base: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed_c0de);
        let stream_pos = (0..app.streams.max(1))
            .map(|_| rng.gen_range(0..COLD_BLOCKS))
            .collect();
        Self {
            app: *app,
            rng,
            base,
            stream_pos,
            next_stream: 0,
        }
    }
}

impl OpStream for Synth {
    /// The warm region and the hot region after it (both re-referenced; the cold region is
    /// streamed or touched at random over 512 MB).
    fn resident(&self) -> std::ops::Range<u64> {
        let warm = self.app.warm_kb * 1024 / 64;
        self.base + COLD_BLOCKS..self.base + COLD_BLOCKS + warm + HOT_BLOCKS
    }

    fn next_op(&mut self) -> Op {
        let a = &self.app;
        // Geometric gap with mean 1000 / apki.
        let p = (a.apki / 1000.0).min(1.0);
        let u: f64 = self.rng.gen_range(f64::EPSILON..1.0);
        let gap = 1 + (u.ln() / (1.0 - p).ln()).floor().min(10_000.0) as u32;
        let x: f64 = self.rng.gen_range(0.0..a.apki);
        let write = self.rng.gen_bool(a.wr);
        let (line, dep) = if x < a.cold_pki {
            let line = if a.streams == 0 {
                self.rng.gen_range(0..COLD_BLOCKS)
            } else {
                let s = self.next_stream;
                self.next_stream = (s + 1) % self.stream_pos.len();
                let l = self.stream_pos[s];
                self.stream_pos[s] = (l + 1) % COLD_BLOCKS;
                l
            };
            (line, !write && self.rng.gen_bool(a.dep))
        } else if x < a.cold_pki + a.warm_pki {
            let warm = a.warm_kb * 1024 / 64;
            (COLD_BLOCKS + self.rng.gen_range(0..warm), false)
        } else {
            let warm = a.warm_kb * 1024 / 64;
            (
                COLD_BLOCKS + warm + self.rng.gen_range(0..HOT_BLOCKS),
                false,
            )
        };
        Op {
            gap,
            write,
            line: self.base + line,
            dep,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resident_range_holds_every_warm_and_hot_access() {
        let a = find("gcc").unwrap();
        let mut s = Synth::new(a, 5, 1 << 40);
        let r = s.resident();
        assert_eq!(r.end - r.start, (a.warm_kb * 1024 + (16 << 10)) / 64);
        let (mut inside, mut cold) = (0u64, 0u64);
        for _ in 0..100_000 {
            let l = s.next_op().line;
            if r.contains(&l) {
                inside += 1;
            } else {
                assert!(((1 << 40)..(1 << 40) + COLD_BLOCKS).contains(&l), "{l}");
                cold += 1;
            }
        }
        // gcc: 0.6 of 300 accesses per 1000 instructions are cold.
        let share = cold as f64 / (inside + cold) as f64;
        assert!((share - 0.6 / 300.0).abs() < 0.001, "cold share {share}");
    }

    #[test]
    fn thirteen_apps_seven_high_six_low_and_rates_match() {
        assert_eq!(APPS.iter().filter(|a| a.class == Class::H).count(), 7);
        assert_eq!(APPS.iter().filter(|a| a.class == Class::L).count(), 6);
        let min_h = APPS
            .iter()
            .filter(|a| a.class == Class::H)
            .map(|a| a.cold_pki)
            .fold(f64::MAX, f64::min);
        let max_l = APPS
            .iter()
            .filter(|a| a.class == Class::L)
            .map(|a| a.cold_pki)
            .fold(0.0, f64::max);
        assert!(min_h > 5.0 * max_l);
        let a = find("mcf").unwrap();
        let mut s = Synth::new(a, 1, 0);
        let (mut insts, mut cold) = (0u64, 0u64);
        for _ in 0..200_000 {
            let op = s.next_op();
            insts += op.gap as u64;
            cold += (op.line < COLD_BLOCKS) as u64;
        }
        let apki = 200_000.0 * 1000.0 / insts as f64;
        let cpki = cold as f64 * 1000.0 / insts as f64;
        assert!((apki - a.apki).abs() / a.apki < 0.05, "apki {apki}");
        assert!(
            (cpki - a.cold_pki).abs() / a.cold_pki < 0.1,
            "cold pki {cpki}"
        );
    }
}
