//! `pvr`: Page View Rank (Mars), Table 5.3 input "1M entries". See `workloads/pvr/README.md`.
//!
//! Input: a web-server log of 16-byte records `(url, ip, status, bytes)`; url popularity is
//! Zipf-like, 85% of requests succeed (status 200). Launches: map count, map emit, key histogram,
//! scatter, reduce (bytes per url), rank. Output checked exactly: views and bytes per url, each
//! url's rank in descending view order (ties by url id).

use super::mapreduce::{self, BLOCK};
use crate::common::{by_size, compare_exact, grid1d, load, rng};
use crate::{check_or_return, Check, Size, Workload, WorkloadError, WorkloadInfo};
use rand::Rng;
use warpforge_simt::{Device, KernelArg as A};

const PTX: &str = include_str!("../../pvr/kernel.ptx");
/// Log records each map thread scans (a contiguous chunk, as a Mars map task).
const CHUNK: u32 = 16;

/// The Page View Rank workload.
pub struct Pvr;

/// Number of log entries at `size`.
fn entries(size: Size) -> usize {
    by_size(size, 4096, 65_536, 1 << 20)
}

struct Input {
    log: Vec<u32>,
    urls: u32,
}

fn input(size: Size) -> Input {
    let entries: usize = entries(size);
    let urls = (entries / 128) as u32; // a power of two
    let mut r = rng("pvr", size);
    let mut log = Vec::with_capacity(entries * 4);
    for _ in 0..entries {
        let raw = super::text::zipf_index(&mut r, urls as usize) as u32;
        // Scatter popular ids over the id space (odd multiplier: a permutation mod 2^k).
        let url = raw.wrapping_mul(2_654_435_761) % urls;
        let ip: u32 = r.gen();
        let status = if r.gen_bool(0.85) { 200 } else { 404 };
        let bytes = r.gen_range(200..20_000);
        log.extend_from_slice(&[url, ip, status, bytes]);
    }
    Input { log, urls }
}

/// CPU reference: (views, bytes, rank) per url.
fn reference(inp: &Input) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let k = inp.urls as usize;
    let mut views = vec![0u32; k];
    let mut bytes = vec![0u32; k];
    for e in inp.log.chunks_exact(4) {
        if e[2] == 200 {
            views[e[0] as usize] += 1;
            bytes[e[0] as usize] = bytes[e[0] as usize].wrapping_add(e[3]);
        }
    }
    let mut order: Vec<usize> = (0..k).collect();
    order.sort_by_key(|&u| (std::cmp::Reverse(views[u]), u));
    let mut rank = vec![0u32; k];
    for (r, &u) in order.iter().enumerate() {
        rank[u] = r as u32;
    }
    (views, bytes, rank)
}

impl Workload for Pvr {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "pvr",
            application: "Page View Rank (Mars)",
            suite: "Mars",
            sets: "Ctrl-C",
            kernels: &[
                "pvr_map_count",
                "pvr_map_emit",
                "pvr_hist",
                "pvr_scatter",
                "pvr_reduce",
                "pvr_rank",
            ],
            behaviour: "map-reduce; per-thread record chunks thrash the L1D (long reuse distances)",
        }
    }

    fn input(&self, size: Size) -> String {
        let e: usize = entries(size);
        format!(
            "{e} log entries (16 B), {} urls, {CHUNK} per map thread",
            e / 128
        )
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let inp = input(size);
        let entries = (inp.log.len() / 4) as u32;
        let m = load(dev, PTX, "pvr")?;
        let log = dev.alloc_copy(&inp.log)?;
        let threads = entries.div_ceil(CHUNK);
        let n = A::S32(entries as i32);
        let chunk = A::S32(CHUNK as i32);
        let rec = mapreduce::map(dev, m, "pvr", threads, &[A::Ptr(log), n, chunk])?;
        let g = mapreduce::group(dev, m, "pvr", &rec, inp.urls)?;
        let bytes = g.reduce(dev, m, "pvr_reduce", inp.urls)?;
        let nk = A::S32(inp.urls as i32);
        let cfg = grid1d(inp.urls, BLOCK);
        let rank = dev.malloc(inp.urls as u64 * 4)?;
        dev.launch(m, "pvr_rank", cfg, &[A::Ptr(g.count_dev), nk, A::Ptr(rank)])?;

        let (views_ref, bytes_ref, rank_ref) = reference(&inp);
        let bytes_got: Vec<u32> = dev.read(bytes, inp.urls as usize)?;
        let rank_got: Vec<u32> = dev.read(rank, inp.urls as usize)?;
        check_or_return!(
            "pvr",
            compare_exact("views", &g.count, &views_ref),
            compare_exact("bytes", &bytes_got, &bytes_ref),
            compare_exact("rank", &rank_got, &rank_ref),
        );
        Ok(Check::Passed)
    }
}
