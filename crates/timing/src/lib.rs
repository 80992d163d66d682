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

pub mod config;
pub mod core;
pub mod dram;
pub mod gpu;
pub mod mem;
pub mod stats;

pub use config::{ConfigError, GpuConfig};
pub use gpu::{Gpu, Progress, TimingRunner};
pub use stats::{KernelStats, RunStats};
