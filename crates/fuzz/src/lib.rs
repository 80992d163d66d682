//! A mutational fuzzer for warpforge's input parsers (issue 21 item 4), the stable-toolchain
//! equivalent of cargo-fuzz targets: corpora seeded from the repository's own files, byte- and
//! token-level mutations, inputs that reach a new outcome (an error message of a new shape, a
//! new kind of success) kept in the corpus, and every panic, hang and oversized allocation
//! saved as a crashing input. Saved crashes are replayed by `tests/regressions.rs`.
//!
//! Outcome shapes stand in for coverage feedback (no compiler instrumentation on stable).

pub mod alloc;
pub mod engine;
pub mod mutate;
pub mod targets;

pub use targets::{find, Target, TARGETS};
