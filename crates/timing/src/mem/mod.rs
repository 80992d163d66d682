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

/// For the shortcut tests: a random run of consecutive active lanes over `m`'s lanes, and in
/// half the cases a near miss that must leave the shortcut (one lane's address perturbed, or
/// a gap in the mask). Returns the active mask.
#[cfg(test)]
pub(crate) fn test_lane_run(
    rnd: &mut impl FnMut() -> u64,
    m: &mut warpforge_core::MemAccess,
) -> u32 {
    let first = rnd() % 32;
    let len = 1 + rnd() % (32 - first);
    let mut active = (((1u64 << len) - 1) << first) as u32;
    match rnd() % 4 {
        0 => m.addrs[(rnd() % 32) as usize] ^= 1 << (rnd() % 12),
        1 => active &= !(1 << (rnd() % 32)),
        _ => {}
    }
    active
}
