//! PTX front end: PTX text (ISA 6.0 to 8.x, as emitted by clang-16 and nvcc) to the typed module
//! IR of [`ir`], plus control-flow analysis ([`cfg`]) used for SIMT reconvergence.
#![deny(missing_docs)]

pub mod ir;

pub use ir::*;
