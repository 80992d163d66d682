//! warpforge-hetero: the CPU-GPU heterogeneous processor of document 004 (Rai & Chaudhuri,
//! "Using Criticality of GPU Accesses in Memory Management for CPU-GPU Heterogeneous Multi-Core
//! Processors", TECS 2017; digest `shared/spec/004_rai_gpu_access_criticality.md`).
//!
//! * [`config`]: Table 1 in the preset `hetero`, `--set` overrides.
//! * [`req`]: the request API every requester (CPU core, GPGPU, 3D-pipeline unit) uses.
//! * [`mem`]: the shared memory side: [`ring`], [`llc`] (16 MB SRRIP), [`dram`] (DDR3-2133).
//! * [`policy`]: the memory-scheduling policies of §5 (registry).
//! * [`port`]: the GPU timing model's L2 misses into the shared memory side.
//! * [`crit`]: GPGPU access criticality (§3) on the GPU timing model's SMs.
//! * [`cpu`]: trace-driven out-of-order CPU cores, recorded traces and SPEC substitutes.
#![deny(missing_docs)]

pub mod config;
pub mod cpu;
pub mod crit;
pub mod dram;
pub mod fasthash;
pub mod llc;
pub mod mem;
pub mod policy;
pub mod port;
pub mod req;
pub mod ring;

pub use config::{ConfigError, HeteroConfig};
pub use mem::{MemSystem, SourceStats};
pub use policy::GpuStatus;
pub use req::{Completion, Request, Source};
