//! Helpers shared by the host drivers: seeded input generation, module loading, launch shapes and
//! output comparison against the CPU references.
//!
//! Comparison policy (used by every driver of the CAWA/latency set): integer outputs must match
//! exactly; floating-point outputs match when `|got - want| <= atol + rtol * |want|`, because the
//! kernels use the `.approx` SFU paths of `wf.cuh` and clang contracts `a * b + c` into `fma`.
//! Iterative float workloads check every step against the CPU reference computed *from the
//! device's own state at the start of that step* ("stepwise checking"), so that rounding
//! differences cannot accumulate into a false failure while every launch is still verified.

pub mod graph;

use crate::{Check, Size, WorkloadError};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use warpforge_core::Dim3;
use warpforge_simt::{DevPtr, Device, LaunchConfig, ModuleId};

/// The seeded generator of `workload` at `size`: the same name and size always give the same
/// input (FNV-1a of `"name/size"` as the ChaCha8 seed).
pub fn rng(workload: &str, size: Size) -> ChaCha8Rng {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in workload.bytes().chain([b'/']).chain(size.name().bytes()) {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    ChaCha8Rng::seed_from_u64(h)
}

/// Loads an embedded PTX module; `name` is the workload (for error messages).
pub fn load(dev: &mut Device, ptx: &str, name: &str) -> Result<ModuleId, WorkloadError> {
    Ok(dev.load_ptx(ptx, &format!("workloads/{name}/kernel.ptx"))?)
}

/// A 1-D launch of `threads` threads in CTAs of `block` threads (grid rounded up).
pub fn grid1d(threads: u32, block: u32) -> LaunchConfig {
    LaunchConfig {
        grid: Dim3::x(threads.div_ceil(block).max(1)),
        block: Dim3::x(block),
        shared_bytes: 0,
    }
}

/// A launch of `grid` CTAs of `block` threads, no dynamic shared memory.
pub fn shape(grid: Dim3, block: Dim3) -> LaunchConfig {
    LaunchConfig {
        grid,
        block,
        shared_bytes: 0,
    }
}

/// Builds a [`WorkloadError::Other`].
pub fn err(msg: impl Into<String>) -> WorkloadError {
    WorkloadError::Other(msg.into())
}

/// Exact comparison of two integer-like arrays; names the first mismatch.
pub fn compare_exact<T: PartialEq + std::fmt::Debug>(what: &str, got: &[T], want: &[T]) -> Check {
    if got.len() != want.len() {
        return Check::Failed(format!(
            "{what}: length {} differs from reference length {}",
            got.len(),
            want.len()
        ));
    }
    let bad = got.iter().zip(want).position(|(g, w)| g != w);
    match bad {
        None => Check::Passed,
        Some(i) => {
            let n = got.iter().zip(want).filter(|(g, w)| g != w).count();
            Check::Failed(format!(
                "{what}[{i}] = {:?}, reference {:?} ({n} of {} elements differ)",
                got[i],
                want[i],
                got.len()
            ))
        }
    }
}

/// Whether `got` is within `atol + rtol * |want|` of `want` (NaN never matches).
pub fn close(got: f32, want: f32, rtol: f32, atol: f32) -> bool {
    (got - want).abs() <= atol + rtol * want.abs()
}

/// Tolerance comparison of two float arrays (see the module comment); names the worst element.
pub fn compare_f32(what: &str, got: &[f32], want: &[f32], rtol: f32, atol: f32) -> Check {
    if got.len() != want.len() {
        return Check::Failed(format!(
            "{what}: length {} differs from reference length {}",
            got.len(),
            want.len()
        ));
    }
    let mut bad = 0usize;
    let mut first = None;
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        if !close(g, w, rtol, atol) {
            bad += 1;
            first.get_or_insert(i);
        }
    }
    match first {
        None => Check::Passed,
        Some(i) => Check::Failed(format!(
            "{what}[{i}] = {}, reference {} (rtol {rtol}, atol {atol}; {bad} of {} elements differ)",
            got[i],
            want[i],
            got.len()
        )),
    }
}

/// Combines checks: the first failure wins, with `step` prefixed to its message.
pub fn first_failure(step: &str, checks: impl IntoIterator<Item = Check>) -> Check {
    for c in checks {
        if let Check::Failed(m) = c {
            return Check::Failed(format!("{step}: {m}"));
        }
    }
    Check::Passed
}

/// Returns early from a driver with the check if it failed.
#[macro_export]
macro_rules! check_or_return {
    ($step:expr, $($c:expr),+ $(,)?) => {
        if let $crate::Check::Failed(m) = $crate::common::first_failure(&$step, [$($c),+]) {
            return Ok($crate::Check::Failed(m));
        }
    };
}

/// The host loop of the convergence workloads (BFS levels, Luby/colouring rounds, relaxation
/// to a fixed point): zeroes the device flag `flag` (one `i32`), runs `round(dev, k)` for
/// k = 0, 1, ..., and stops after the first round that leaves the flag zero. Returns how many
/// rounds ran. When the flag is still set after more than `max_rounds` rounds, the error is
/// `stuck(rounds so far)`.
pub fn rounds_until_clear(
    dev: &mut Device,
    flag: DevPtr,
    max_rounds: usize,
    mut round: impl FnMut(&mut Device, i32) -> Result<(), WorkloadError>,
    stuck: impl FnOnce(usize) -> String,
) -> Result<usize, WorkloadError> {
    let mut rounds = 0usize;
    loop {
        dev.copy_htod(flag, &[0i32])?;
        round(dev, rounds as i32)?;
        rounds += 1;
        if dev.read::<i32>(flag, 1)?[0] == 0 {
            return Ok(rounds);
        }
        if rounds > max_rounds {
            return Err(err(stuck(rounds)));
        }
    }
}

/// Picks one of three values by size ([`Size::Fill`] takes the small one).
pub fn by_size<T>(size: Size, tiny: T, small: T, paper: T) -> T {
    match size {
        Size::Tiny => tiny,
        Size::Small | Size::Fill => small,
        Size::Paper => paper,
    }
}

/// [`by_size`] for a workload with its own [`Size::Fill`] input (DARSIE's operating point).
pub fn by_size_fill<T>(size: Size, tiny: T, small: T, fill: T, paper: T) -> T {
    match size {
        Size::Fill => fill,
        _ => by_size(size, tiny, small, paper),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn rng_is_deterministic_and_distinct() {
        let a: u64 = rng("bfs", Size::Tiny).gen();
        let b: u64 = rng("bfs", Size::Tiny).gen();
        let c: u64 = rng("bfs", Size::Small).gen();
        let d: u64 = rng("kmn", Size::Tiny).gen();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, d);
    }

    #[test]
    fn comparisons_name_the_mismatch() {
        assert_eq!(compare_exact("x", &[1, 2, 3], &[1, 2, 3]), Check::Passed);
        match compare_exact("x", &[1, 5, 3], &[1, 2, 3]) {
            Check::Failed(m) => assert!(m.contains("x[1] = 5"), "{m}"),
            Check::Passed => panic!("mismatch not detected"),
        }
        assert_eq!(
            compare_f32("y", &[1.0, 2.0001], &[1.0, 2.0], 1e-3, 0.0),
            Check::Passed
        );
        assert!(matches!(
            compare_f32("y", &[1.0, 2.1], &[1.0, 2.0], 1e-3, 0.0),
            Check::Failed(_)
        ));
        assert!(matches!(
            compare_f32("y", &[f32::NAN], &[1.0], 1.0, 1.0),
            Check::Failed(_)
        ));
    }
}
