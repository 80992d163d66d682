//! Shared vocabulary of warpforge.
//!
//! Every front end (the execution-driven PTX executor in `warpforge-simt`, the trace reader in
//! `warpforge-trace`) hands the timing model one [`DynInst`] at a time through the [`WarpSource`]
//! trait. The timing model, the analytical models and the trace writer only ever see these types,
//! so a new front end is one new implementation of [`WarpSource`].
#![deny(missing_docs)]

pub mod dim;
pub mod inst;
pub mod output;
pub mod source;

pub use dim::Dim3;
pub use inst::{hint, DynInst, MemAccess, MemSpace, OpClass, MAX_DST, MAX_SRC, WARP_SIZE};
pub use source::{
    InstObserver, KernelInfo, KernelRunner, ParallelFor, Sequential, SourceError, WarpSource,
    WarpStep, WindowFronts,
};
