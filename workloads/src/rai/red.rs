//! `red`: REDUCTION (NVIDIA CUDA SDK 4.2, the "reduce6" variant), document 004 Table 3 (64 blocks
//! x 256 threads). See `workloads/red/README.md`.
//!
//! Input: `n` integers in [-128, 128) (the SDK's default type is `int`). Launch 1: `red_sum` on
//! 64 x 256 threads writes 64 partial sums; launch 2: the same kernel on one block of 64 threads
//! sums the partials (the SDK's GPU final reduction). Both the partials and the total are
//! checked exactly against a CPU sum with the kernel's per-block element assignment
//! (two's-complement wrap-around, as on the device).

use crate::common::{by_size, compare_exact, load, rng, shape};
use crate::{check_or_return, Check, Size, Workload, WorkloadError, WorkloadInfo};
use rand::Rng;
use warpforge_core::Dim3;
use warpforge_simt::{Device, KernelArg as A};

const PTX: &str = include_str!("../../red/kernel.ptx");
const THREADS: u32 = 256;

/// The reduction workload.
pub struct Red;

/// (elements, blocks of 256 threads) at `size`. Paper: the SDK's 2^24 elements on Table 3's grid.
fn dims(size: Size) -> (usize, u32) {
    by_size(size, (10_000, 4), (1 << 21, 64), (1 << 24, 64))
}

/// Per-block sums of the kernel's assignment: element `i` belongs to block
/// `(i / (2 * threads)) % blocks`.
fn partials(data: &[i32], blocks: u32, threads: u32) -> Vec<i32> {
    let chunk = 2 * threads as usize;
    let mut out = vec![0i32; blocks as usize];
    for (i, v) in data.iter().enumerate() {
        let b = (i / chunk) % blocks as usize;
        out[b] = out[b].wrapping_add(*v);
    }
    out
}

impl Workload for Red {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "red",
            application: "Reduction (NVIDIA SDK)",
            suite: "NVIDIA SDK",
            sets: "RAI",
            kernels: &["red_sum"],
            behaviour: "streaming coalesced loads summed per thread, then a shared-memory tree with a barrier per level",
        }
    }

    fn input(&self, size: Size) -> String {
        let (n, b) = dims(size);
        format!("{n} ints, {b} x {THREADS} threads + 1 x {b}")
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let (n, blocks) = dims(size);
        let mut r = rng("red", size);
        let data: Vec<i32> = (0..n).map(|_| r.gen_range(-128..128)).collect();
        let m = load(dev, PTX, "red")?;
        let input = dev.alloc_copy(&data)?;
        let part = dev.alloc_copy(&vec![0i32; blocks as usize])?;
        let total = dev.alloc_copy(&[0i32])?;
        dev.launch(
            m,
            "red_sum",
            shape(Dim3::x(blocks), Dim3::x(THREADS)),
            &[A::Ptr(input), A::Ptr(part), A::U32(n as u32)],
        )?;
        dev.launch(
            m,
            "red_sum",
            shape(Dim3::x(1), Dim3::x(blocks)),
            &[A::Ptr(part), A::Ptr(total), A::U32(blocks)],
        )?;
        let want = partials(&data, blocks, THREADS);
        let want_total = want.iter().fold(0i32, |a, v| a.wrapping_add(*v));
        let got: Vec<i32> = dev.read(part, blocks as usize)?;
        let got_total: Vec<i32> = dev.read(total, 1)?;
        check_or_return!(
            "red",
            compare_exact("partial sums", &got, &want),
            compare_exact("total", &got_total, &[want_total])
        );
        Ok(Check::Passed)
    }
}
