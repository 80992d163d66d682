//! `pth`: Pathfinder (Rodinia; CAWA Non-sens set, Ctrl-C, Table 3.2).
//!
//! Each launch advances a "pyramid" of rows in shared memory with a barrier per row; the host
//! ping-pongs two row buffers. Coalesced row loads, integer compute, regular barriers: a
//! well-behaved kernel whose stalls round-robin scheduling hides (§2.4).

use rand::Rng;
use warpforge_core::Dim3;
use warpforge_simt::{Device, KernelArg as A};

use crate::common::{by_size, compare_exact, load, rng, shape};
use crate::{Check, Size, Workload, WorkloadError, WorkloadInfo};

const PTX: &str = include_str!("../../pth/kernel.ptx");
const BLOCK: usize = 256;

/// The Pathfinder workload.
pub struct Pth;

fn dims(size: Size) -> (usize, usize, usize) {
    // (cols, rows, pyramid height)
    by_size(size, (1024, 16, 4), (8192, 64, 8), (100_000, 100, 20))
}

fn reference(wall: &[i32], cols: usize, rows: usize) -> Vec<i32> {
    let mut cur = wall[..cols].to_vec();
    for r in 1..rows {
        let next = (0..cols)
            .map(|x| {
                let l = cur[x.saturating_sub(1)];
                let rr = cur[(x + 1).min(cols - 1)];
                l.min(cur[x]).min(rr) + wall[r * cols + x]
            })
            .collect();
        cur = next;
    }
    cur
}

impl Workload for Pth {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "pth",
            application: "Pathfinder (Rodinia)",
            suite: "Rodinia",
            sets: "latency, CAWA (Non-sens), Ctrl-C",
            kernels: &["pth_dynproc"],
            behaviour: "coalesced rows, shared-memory pyramid with a barrier per row, integer",
        }
    }

    fn input(&self, size: Size) -> String {
        let (c, r, p) = dims(size);
        format!("{c} columns x {r} rows, pyramid height {p}")
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let (cols, rows, pyramid) = dims(size);
        let mut r = rng("pth", size);
        let wall: Vec<i32> = (0..cols * rows).map(|_| r.gen_range(0..10)).collect();
        let m = load(dev, PTX, "pth")?;
        let dw = dev.alloc_copy(&wall)?;
        let mut bufs = [dev.alloc_copy(&wall[..cols])?, dev.malloc(4 * cols as u64)?];
        let small = BLOCK - 2 * pyramid;
        let cfg = shape(Dim3::x(cols.div_ceil(small) as u32), Dim3::x(BLOCK as u32));
        let mut t = 0;
        while t + 1 < rows {
            let iteration = pyramid.min(rows - 1 - t);
            let args = [
                A::S32(iteration as i32),
                A::Ptr(dw),
                A::Ptr(bufs[0]),
                A::Ptr(bufs[1]),
                A::S32(cols as i32),
                A::S32(t as i32 + 1),
                A::S32(pyramid as i32),
            ];
            dev.launch(m, "pth_dynproc", cfg, &args)?;
            bufs.swap(0, 1);
            t += pyramid;
        }
        let got = dev.read::<i32>(bufs[0], cols)?;
        Ok(compare_exact(
            "pth result",
            &got,
            &reference(&wall, cols, rows),
        ))
    }
}
