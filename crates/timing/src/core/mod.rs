//! The SIMT core: SM pipeline ([`sm`]), per-warp state and scoreboard ([`warp`]), warp
//! schedulers ([`sched`]).

pub mod sched;
pub mod sm;
pub mod warp;
