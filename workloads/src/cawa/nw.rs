//! `nw`: Needleman-Wunsch sequence alignment (Rodinia nw; CAWA Sens set, Ctrl-C, Table 3.2).
//!
//! 16-thread CTAs (half a warp) sweep 16x16 tiles along anti-diagonals with a barrier per cell
//! diagonal; the host launches one kernel per tile anti-diagonal (`nw_kernel1` for the upper-left
//! half, `nw_kernel2` for the lower-right). Few warps per SM and short dependent chains: the
//! "poor latency hiding" and "data hazard" case of §2.4, and CPL's 100 % case in §4.7.

use rand::Rng;
use warpforge_core::Dim3;
use warpforge_simt::{Device, KernelArg as A};

use crate::common::{by_size, compare_exact, load, rng, shape};
use crate::{Check, Size, Workload, WorkloadError, WorkloadInfo};

const PTX: &str = include_str!("../../nw/kernel.ptx");
const B: usize = 16;
const PENALTY: i32 = 10;
const ALPHABET: usize = 24;

/// The Needleman-Wunsch workload.
pub struct Nw;

fn len(size: Size) -> usize {
    by_size(size, 64, 512, 1024)
}

/// The score matrix, `(n+1) x (n+1)`, computed row by row.
fn reference(reff: &[i32], n: usize) -> Vec<i32> {
    let w = n + 1;
    let mut s = init(n);
    for i in 1..w {
        for j in 1..w {
            let diag = s[(i - 1) * w + j - 1] + reff[i * w + j];
            let left = s[i * w + j - 1] - PENALTY;
            let up = s[(i - 1) * w + j] - PENALTY;
            s[i * w + j] = diag.max(left).max(up);
        }
    }
    s
}

fn init(n: usize) -> Vec<i32> {
    let w = n + 1;
    let mut s = vec![0i32; w * w];
    for i in 0..w {
        s[i * w] = -(i as i32) * PENALTY;
        s[i] = -(i as i32) * PENALTY;
    }
    s
}

impl Workload for Nw {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "nw",
            application: "Needleman-Wunsch (Rodinia)",
            suite: "Rodinia",
            sets: "latency, CAWA (Sens), Ctrl-C",
            kernels: &["nw_kernel1", "nw_kernel2"],
            behaviour:
                "16-thread CTAs, barrier per cell diagonal, low parallelism, dependent chains",
        }
    }

    fn input(&self, size: Size) -> String {
        let n = len(size);
        format!("{n}x{n} score matrix, 16x16 tiles")
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let n = len(size);
        let w = n + 1;
        let mut r = rng("nw", size);
        let mut blosum = [[0i32; ALPHABET]; ALPHABET];
        for a in 0..ALPHABET {
            for b in a..ALPHABET {
                let v = if a == b {
                    r.gen_range(4..=11)
                } else {
                    r.gen_range(-4..=3)
                };
                blosum[a][b] = v;
                blosum[b][a] = v;
            }
        }
        let sa: Vec<usize> = (0..w).map(|_| r.gen_range(0..ALPHABET)).collect();
        let sb: Vec<usize> = (0..w).map(|_| r.gen_range(0..ALPHABET)).collect();
        let mut reff = vec![0i32; w * w];
        for i in 1..w {
            for j in 1..w {
                reff[i * w + j] = blosum[sa[i]][sb[j]];
            }
        }
        let m = load(dev, PTX, "nw")?;
        let ds = dev.alloc_copy(&init(n))?;
        let dr = dev.alloc_copy(&reff)?;
        let nb = (n / B) as i32;
        let args = |d: i32| {
            [
                A::Ptr(ds),
                A::Ptr(dr),
                A::S32(n as i32),
                A::S32(PENALTY),
                A::S32(d),
            ]
        };
        let cfg = |d: i32| shape(Dim3::x(d as u32), Dim3::x(B as u32));
        for d in 1..=nb {
            dev.launch(m, "nw_kernel1", cfg(d), &args(d))?;
        }
        for d in (1..nb).rev() {
            dev.launch(m, "nw_kernel2", cfg(d), &args(d))?;
        }
        let got = dev.read::<i32>(ds, w * w)?;
        Ok(compare_exact("nw score", &got, &reference(&reff, n)))
    }
}
