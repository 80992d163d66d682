//! Timing micro-benchmarks: kernels that each exercise one part of the timing model so that its
//! measured behaviour can be compared with the configuration (the timing crate's
//! `tests/micro.rs` does so on the `gtx480` preset):
//!
//! * `micro_lat_l1`, `micro_lat_l2`, `micro_lat_dram`: a one-thread pointer chase whose every
//!   load depends on the previous one, laid out to hit the L1D, the L2 or DRAM. Each launches
//!   the chase for `n` and then `2n` hops (after a warming launch that brings the list into the
//!   L2; the L1 is flushed at every launch and warms within the first lap), so the
//!   difference of the two launches' cycles divided by `n` is the load-to-use latency.
//! * `micro_copy`: a grid-stride streaming copy (DRAM bandwidth).
//! * `micro_alu`: four independent mul/add chains per thread on a full GPU (issue limit).
//! * `micro_smem`: shared-memory reads with a word stride of 1 and then 32 (bank conflicts).

use warpforge_core::Dim3;
use warpforge_simt::{DevPtr, Device, KernelArg as A};

use crate::common::{by_size, compare_exact, compare_f32, first_failure, load, rng, shape};
use crate::{Check, Size, Workload, WorkloadError, WorkloadInfo};
use rand::Rng;

const CHASE: &str = include_str!("../../micro_chase/kernel.ptx");
const COPY: &str = include_str!("../../micro_copy/kernel.ptx");
const ALU: &str = include_str!("../../micro_alu/kernel.ptx");
const SMEM: &str = include_str!("../../micro_smem/kernel.ptx");

/// Bytes between chase nodes: one node per 128 B line.
pub const NODE_BYTES: u64 = 128;

/// Where a pointer-chase list lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// 32 nodes (4 KB): L1D hits after the first lap (the list is in the L2 after a warming launch).
    L1,
    /// 512 nodes (64 KB > 16 KB L1D, < 768 KB L2), warmed by a first launch: L2 hits.
    L2,
    /// Every hop a new line (sequential, so DRAM rows stay open): DRAM accesses.
    Dram,
}

/// The pointer-chase workloads.
pub struct Chase(pub Level);

/// Hops `n` of the measured launches at `size` (the second launch does `2n`).
pub fn chase_hops(size: Size) -> u32 {
    by_size(size, 64, 512, 4096)
}

fn walk(next: &[u64], base: u64, start: u64, hops: u32) -> u64 {
    let mut p = start;
    for _ in 0..hops {
        p = next[((p - base) / 8) as usize];
    }
    p
}

impl Workload for Chase {
    fn info(&self) -> WorkloadInfo {
        let (name, behaviour) = match self.0 {
            Level::L1 => ("micro_lat_l1", "dependent loads over 4 KB: L1D hit latency"),
            Level::L2 => (
                "micro_lat_l2",
                "dependent loads over 64 KB after a warm-up: L2 hit latency",
            ),
            Level::Dram => (
                "micro_lat_dram",
                "dependent loads, a new line per hop: DRAM latency",
            ),
        };
        WorkloadInfo {
            name,
            application: "pointer-chase latency probe",
            suite: "micro",
            sets: "timing validation",
            kernels: &["chase"],
            behaviour,
        }
    }

    fn input(&self, size: Size) -> String {
        format!("{} hops, then {}", chase_hops(size), 2 * chase_hops(size))
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let n = chase_hops(size);
        let nodes: u64 = match self.0 {
            Level::L1 => 32,
            Level::L2 => 512,
            Level::Dram => 3 * n as u64 + 2,
        };
        let words = (nodes * NODE_BYTES / 8) as usize;
        let buf = dev.malloc(nodes * NODE_BYTES)?;
        let base = buf.0;
        let mut next = vec![0u64; words];
        for i in 0..nodes {
            let to = match self.0 {
                Level::Dram => (i + 1).min(nodes - 1),
                _ => (i + 1) % nodes,
            };
            next[(i * NODE_BYTES / 8) as usize] = base + to * NODE_BYTES;
        }
        dev.copy_htod(buf, &next)?;
        let out = dev.malloc(8)?;
        let m = load(dev, CHASE, self.info().name)?;
        let cfg = shape(Dim3::x(1), Dim3::x(1));
        let mut checks = vec![];
        let mut launch = |dev: &mut Device, start: u64, hops: u32| -> Result<(), WorkloadError> {
            dev.launch(
                m,
                "chase",
                cfg,
                &[A::Ptr(DevPtr(start)), A::S32(hops as i32), A::Ptr(out)],
            )?;
            let got = dev.read::<u64>(out, 1)?;
            checks.push(compare_exact(
                "chase end",
                &got,
                &[walk(&next, base, start, hops)],
            ));
            Ok(())
        };
        match self.0 {
            Level::L1 | Level::L2 => {
                launch(dev, base, nodes as u32)?;
                launch(dev, base, n)?;
                launch(dev, base, 2 * n)?;
            }
            Level::Dram => {
                launch(dev, base, n)?;
                launch(dev, base + n as u64 * NODE_BYTES, 2 * n)?;
            }
        }
        Ok(first_failure("chase", checks))
    }
}

/// The streaming copy.
pub struct Copy;

/// Elements copied at `size`.
pub fn copy_len(size: Size) -> usize {
    by_size(size, 1 << 20, 1 << 21, 1 << 24)
}

/// CTAs of 256 threads in the copy's grid.
pub const COPY_CTAS: u32 = 120;

impl Workload for Copy {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "micro_copy",
            application: "streaming copy (bandwidth probe)",
            suite: "micro",
            sets: "timing validation",
            kernels: &["copy"],
            behaviour: "grid-stride coalesced float copy: DRAM bandwidth",
        }
    }
    fn input(&self, size: Size) -> String {
        format!("{} floats", copy_len(size))
    }
    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let n = copy_len(size);
        let mut r = rng("micro_copy", size);
        let src: Vec<f32> = (0..n).map(|_| r.gen_range(-1.0..1.0)).collect();
        let ds = dev.alloc_copy(&src)?;
        let dd = dev.malloc(4 * n as u64)?;
        let m = load(dev, COPY, "micro_copy")?;
        let cfg = shape(Dim3::x(COPY_CTAS), Dim3::x(256));
        dev.launch(m, "copy", cfg, &[A::Ptr(ds), A::Ptr(dd), A::S32(n as i32)])?;
        let got = dev.read::<f32>(dd, n)?;
        Ok(compare_exact("copy", &got, &src))
    }
}

/// The ALU-bound kernel.
pub struct Alu;

/// Loop iterations (4 multiplies or adds each) at `size`.
pub fn alu_iters(size: Size) -> u32 {
    by_size(size, 256, 1024, 8192)
}

/// CTAs of [`ALU_BLOCK`] threads: 8 per SM fill the 48 warp slots of the 15 SMs of `gtx480`.
pub const ALU_CTAS: u32 = 120;
/// Threads per CTA of the ALU kernel.
pub const ALU_BLOCK: u32 = 192;

impl Workload for Alu {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "micro_alu",
            application: "fma throughput (issue-limit probe)",
            suite: "micro",
            sets: "timing validation",
            kernels: &["alu"],
            behaviour: "four independent fp32 mul/add chains per thread, no memory in the loop",
        }
    }
    fn input(&self, size: Size) -> String {
        format!(
            "{} iterations x 4 flops, {} CTAs x {}",
            alu_iters(size),
            ALU_CTAS,
            ALU_BLOCK
        )
    }
    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let iters = alu_iters(size);
        let threads = (ALU_CTAS * ALU_BLOCK) as usize;
        let out = dev.malloc(4 * threads as u64)?;
        let m = load(dev, ALU, "micro_alu")?;
        let (a, b) = (0.9999f32, 0.001f32);
        let cfg = shape(Dim3::x(ALU_CTAS), Dim3::x(ALU_BLOCK));
        dev.launch(
            m,
            "alu",
            cfg,
            &[A::Ptr(out), A::S32(iters as i32), A::F32(a), A::F32(b)],
        )?;
        let got = dev.read::<f32>(out, threads)?;
        let want: Vec<f32> = (0..threads)
            .map(|t| {
                let mut s = 0.0f32;
                let mut xs: Vec<f32> = (0..4).map(|k| t as f32 + k as f32).collect();
                for _ in 0..iters {
                    xs[0] *= a;
                    xs[1] += b;
                    xs[2] *= a;
                    xs[3] += b;
                }
                for x in xs {
                    s += x;
                }
                s
            })
            .collect();
        Ok(compare_f32("alu", &got, &want, 1e-4, 1e-3))
    }
}

/// The shared-memory bank-conflict kernel.
pub struct Smem;

/// Reads per thread at `size`.
pub fn smem_iters(size: Size) -> u32 {
    by_size(size, 16, 128, 1024)
}

/// Launch shape of each of the two launches: CTAs x threads.
pub const SMEM_SHAPE: (u32, u32) = (15, 256);

impl Workload for Smem {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "micro_smem",
            application: "shared-memory bank-conflict probe",
            suite: "micro",
            sets: "timing validation",
            kernels: &["smem"],
            behaviour: "shared reads with word stride 1 (launch 1) and 32 (launch 2)",
        }
    }
    fn input(&self, size: Size) -> String {
        format!("{} reads per thread, strides 1 and 32", smem_iters(size))
    }
    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let iters = smem_iters(size);
        let (ctas, block) = SMEM_SHAPE;
        let mut r = rng("micro_smem", size);
        let input: Vec<f32> = (0..1024).map(|_| r.gen_range(0.0..1.0)).collect();
        let din = dev.alloc_copy(&input)?;
        let n = (ctas * block) as usize;
        let out = dev.malloc(4 * n as u64)?;
        let m = load(dev, SMEM, "micro_smem")?;
        let cfg = shape(Dim3::x(ctas), Dim3::x(block));
        let mut checks = vec![];
        for stride in [1u32, 32] {
            dev.launch(
                m,
                "smem",
                cfg,
                &[
                    A::Ptr(din),
                    A::Ptr(out),
                    A::S32(stride as i32),
                    A::S32(iters as i32),
                ],
            )?;
            let got = dev.read::<f32>(out, n)?;
            let want: Vec<f32> = (0..n)
                .map(|g| {
                    let t = (g % block as usize) as u32;
                    let mut idx = t.wrapping_mul(stride) & 1023;
                    let mut acc = 0.0f32;
                    for _ in 0..iters {
                        acc += input[idx as usize];
                        idx = (idx + 1) & 1023;
                    }
                    acc
                })
                .collect();
            checks.push(compare_f32("smem", &got, &want, 1e-5, 1e-5));
        }
        Ok(first_failure("smem", checks))
    }
}

/// The workloads of this set.
pub fn workloads() -> Vec<&'static dyn Workload> {
    vec![
        &Chase(Level::L1),
        &Chase(Level::L2),
        &Chase(Level::Dram),
        &Copy,
        &Alu,
        &Smem,
    ]
}
