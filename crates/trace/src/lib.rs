//! Trace-driven mode and GPGPU-Sim / Accel-Sim compatibility.
//!
//! * [`KernelList`] and [`TraceReader`] / [`TraceSource`]: Accel-Sim traces (`kernelslist.g`,
//!   `.traceg` and `.traceg.xz`, tracer versions 3 to 5), streamed into the timing model as
//!   [`warpforge_core::WarpSource`].
//! * [`OpcodeTable`]: SASS opcode → `OpClass` tables as data files (`crates/trace/opcodes/`).
//! * [`gpgpusim`]: GPGPU-Sim option files (`gpgpusim.config`, `trace.config`, `.icnt`).
//! * [`accelsim_stats`]: statistics in GPGPU-Sim / Accel-Sim's report layout for existing scripts.
//! * [`TraceRecorder`]: writes an execution-driven run as an Accel-Sim trace in the
//!   "warpforge PTX" pseudo-ISA, which [`TraceSource`] replays exactly.
#![deny(missing_docs)]

pub mod accelsim_stats;
pub mod error;
pub mod gpgpusim;
pub mod kernelslist;
pub mod opcodes;
pub mod record;
pub mod replay;
pub mod source;
pub mod traceg;

pub use error::TraceError;
pub use kernelslist::{KernelList, TraceCommand};
pub use opcodes::OpcodeTable;
pub use record::TraceRecorder;
pub use replay::{replay, ReplayError};
pub use source::TraceSource;
pub use traceg::{count, KernelHeader, TraceCounts, TraceReader};
