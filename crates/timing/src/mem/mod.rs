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

/// A xorshift64 stream for the memory modules' randomized tests (deterministic from `seed`).
#[cfg(test)]
pub(crate) fn test_rng(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}
