//! Runtime-level discrete-event simulation of the two GPU runtimes of document 003 (Yeh):
//!
//! - [`lax`]: LAX, the laxity-aware deadline-driven job scheduler in the GPU command processor,
//!   with the compared CP-side and CPU-side policies, over an abstract 8-CU GPU (Table 6.1).
//! - [`pagoda`]: Pagoda, a runtime that schedules narrow tasks onto the warps of a persistent
//!   MasterKernel, with its data structures (TaskTable, WarpTable, buddy shared-memory allocator,
//!   named-barrier pool) and the baselines CUDA-HyperQ, GeMTC, static fusion, Pagoda-batch and a
//!   20-core CPU pool.
//!
//! Both run on the deterministic engine in [`engine`] (time in ns, seeded ChaCha randomness).
//! Task and workgroup costs come from documented calibration tables (`data/*.toml`) behind the
//! [`lax::workload::KernelCostSource`] and [`pagoda::workload::TaskCostSource`] hooks, so a later
//! calibration from the cycle-level timing model replaces data, not code.
#![deny(missing_docs)]

pub mod engine;
pub mod lax;
pub mod pagoda;

/// Errors of the runtime simulations (bad names, bad calibration files).
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    /// An unknown policy, benchmark, rate or runtime name.
    #[error("unknown {what} `{name}` (known: {known})")]
    UnknownName {
        /// What kind of name.
        what: &'static str,
        /// The name given.
        name: String,
        /// The accepted names.
        known: String,
    },
    /// A malformed calibration table or configuration.
    #[error("invalid configuration: {0}")]
    Config(String),
}
