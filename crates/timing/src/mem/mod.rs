//! The memory pipeline: coalescer, shared-memory banks, caches (tags, MSHRs, replacement,
//! insertion/bypass), the SM-side L1 unit, the interconnect and the L2 slices.

pub mod cache;
pub mod carveout;
pub mod coalesce;
pub mod code;
pub mod icnt;
pub mod insertion;
pub mod l1;
pub mod l1bank;
pub mod l2;
pub mod l2far;
pub mod replacement;
pub mod req;
pub mod reuse;
pub mod shared;
