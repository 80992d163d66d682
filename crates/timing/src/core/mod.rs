//! The SIMT core: SM pipeline ([`sm`]), per-warp state and scoreboard ([`warp`]), warp
//! schedulers ([`sched`]), the criticality prediction logic ([`cpl`]), the event wheel
//! ([`wheel`]), redundancy elimination ([`elim`]).

pub mod cpl;
pub mod elim;
pub mod probe;
pub mod sched;
pub mod sm;
pub mod warp;
pub mod wheel;
