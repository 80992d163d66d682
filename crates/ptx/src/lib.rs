//! PTX front end: PTX text (ISA 6.0 to 8.x, as emitted by clang-16 and nvcc) to the typed module
//! IR of [`ir`], plus control-flow analysis ([`mod@cfg`]) used for SIMT reconvergence.
//!
//! [`parse`] accepts module directives (`.version`, `.target`, `.address_size`), module- and
//! function-scope variables with initialisers, `.entry`/`.func` definitions and prototypes,
//! nested scopes, every instruction of [`OpKind`] with its modifiers decoded into [`Op`], and
//! skips debug information (`.loc`, `.file`, `.section .debug_*`). Anything it does not
//! understand is a [`PtxError`] naming file, line and column; it never panics on input.
#![deny(missing_docs)]

pub mod cfg;
mod decode;
mod error;
pub mod ir;
mod lexer;
mod parse;
pub mod redundancy;

pub use cfg::{reconvergence_points, Block, Cfg};
pub use error::PtxError;
pub use ir::*;
pub use parse::parse;
