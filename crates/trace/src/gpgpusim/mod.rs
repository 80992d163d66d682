//! GPGPU-Sim / Accel-Sim configuration files: the option syntax of `gpgpusim.config` and
//! `trace.config` ([`Options`]), cache strings ([`CacheConfig`]), the BookSim-style `.icnt` file
//! ([`IcntConfig`]). Mapping onto the timing model's configuration lives in [`mapping`].

pub mod cache;
pub mod icnt;
pub mod mapping;
pub mod options;

pub use cache::CacheConfig;
pub use icnt::IcntConfig;
pub use options::{OptionEntry, Options};
