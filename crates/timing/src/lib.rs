//! warpforge-timing: a cycle-level GPU timing model (spec 000 §1 and §8.1: a Fermi GTX480-class
//! baseline as in Lee (2017), with GPGPU-Sim's GTX480 defaults where the document is silent).
//!
//! * [`config`]: the configuration tree and the TOML presets of `configs/`.
//! * [`core`]: SIMT cores: fetch, I-buffer, scoreboard, schedulers, operand collectors, units.
//! * [`mem`]: coalescer, shared memory, caches, L1 unit, interconnect, L2 slices.
//! * [`dram`]: DRAM controllers, schedulers, GDDR5 timing, address mapping.
//! * [`gpu`]: the whole GPU, clock domains, CTA dispatch, parallel stepping.
//! * [`stats`]: counters and the per-kernel report.
//!
//! Library use: `let cfg = GpuConfig::preset("gtx480")?; let runner = TimingRunner::new(cfg, 1);`
//! then hand the runner to `warpforge_simt::Device::set_runner` and read
//! [`TimingRunner::stats`] (or [`TimingRunner::stats_json`]) afterwards.
#![deny(missing_docs)]

pub mod budget;
mod check;
pub mod config;
pub mod core;
pub mod dram;
pub mod gpu;
pub mod mem;
mod placement;
pub mod stats;
mod team;

pub use config::{ConfigError, GpuConfig};
pub use gpu::{Gpu, Progress, TimingRunner};
pub use placement::TeamReport;
pub use stats::{KernelStats, RunStats};

/// Every registered policy, for `warpforge list` and error messages: (config key, name,
/// description). One row per entry of the registries of schedulers, replacement, insertion and
/// DRAM scheduling policies.
pub fn policies() -> Vec<(&'static str, &'static str, &'static str)> {
    let mut v = Vec::new();
    for s in core::sched::SCHEDULERS {
        v.push(("core.scheduler", s.0, s.1));
    }
    for r in mem::replacement::REPLACEMENTS {
        v.push(("<cache>.replacement", r.0, r.1));
    }
    for r in mem::insertion::INSERTIONS {
        v.push(("<cache>.insertion", r.0, r.1));
    }
    for r in dram::sched::DRAM_SCHEDULERS {
        v.push(("dram.scheduler", r.0, r.1));
    }
    v
}

#[cfg(test)]
mod tests {
    #[test]
    fn policy_table_names_every_registry() {
        let p = super::policies();
        for (key, name) in [
            ("core.scheduler", "gto"),
            ("core.scheduler", "two_level"),
            ("<cache>.replacement", "srrip"),
            ("<cache>.insertion", "bypass_all"),
            ("dram.scheduler", "frfcfs"),
        ] {
            assert!(p.iter().any(|r| r.0 == key && r.1 == name), "{key} {name}");
        }
    }
}
