//! `wc`: Word Count (Mars), Table 5.3 input "86 kB text". See `workloads/wc/README.md`.
//!
//! Input: a synthetic text ([`super::text`]). Launches: map count, map emit (one record
//! `(fnv1a(word) mod buckets, 1)` per word), histogram, scatter, reduce. Output checked exactly:
//! the word count of every hash bucket (colliding words share a bucket on both sides).

use super::mapreduce;
use super::text;
use crate::common::{by_size, compare_exact, load, rng};
use crate::{check_or_return, Check, Size, Workload, WorkloadError, WorkloadInfo};
use warpforge_simt::{Device, KernelArg as A};

const PTX: &str = include_str!("../../wc/kernel.ptx");
/// Bytes of text each map thread scans.
const CHUNK: u32 = 32;

/// The Word Count workload.
pub struct Wc;

/// (text bytes, hash buckets) at `size`.
fn dims(size: Size) -> (usize, u32) {
    by_size(size, (8 << 10, 256), (64 << 10, 2048), (86 << 10, 4096))
}

fn input(size: Size) -> (Vec<u8>, u32) {
    let (bytes, buckets) = dims(size);
    let mut r = rng("wc", size);
    let vocab = text::vocabulary(&mut r, buckets as usize * 2);
    let mut t = text::text(&mut r, &vocab, bytes / 4);
    t.truncate(bytes);
    (t, buckets)
}

fn reference(t: &[u8], buckets: u32) -> Vec<u32> {
    let mut c = vec![0u32; buckets as usize];
    for s in text::word_starts(t) {
        c[(text::fnv1a(text::word_at(t, s)) % buckets) as usize] += 1;
    }
    c
}

impl Workload for Wc {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "wc",
            application: "Word Count (Mars)",
            suite: "Mars",
            sets: "Ctrl-C",
            kernels: &[
                "wc_map_count",
                "wc_map_emit",
                "wc_hist",
                "wc_scatter",
                "wc_reduce",
            ],
            behaviour: "map-reduce over text; byte loads, data-dependent word loops, atomics",
        }
    }

    fn input(&self, size: Size) -> String {
        let (b, k) = dims(size);
        format!("{} kB text, {k} hash buckets", b >> 10)
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let (t, buckets) = input(size);
        let m = load(dev, PTX, "wc")?;
        let text_dev = dev.alloc_copy(&t)?;
        let n = A::S32(t.len() as i32);
        let chunk = A::S32(CHUNK as i32);
        let nb = A::U32(buckets);
        let threads = (t.len() as u32).div_ceil(CHUNK);
        let rec = mapreduce::map(dev, m, "wc", threads, &[A::Ptr(text_dev), n, chunk, nb])?;
        let g = mapreduce::group(dev, m, "wc", &rec, buckets)?;
        let out = g.reduce(dev, m, "wc_reduce", buckets)?;
        let want = reference(&t, buckets);
        let got: Vec<u32> = dev.read(out, buckets as usize)?;
        check_or_return!(
            "wc",
            compare_exact("records per bucket", &g.count, &want),
            compare_exact("word count", &got, &want),
        );
        Ok(Check::Passed)
    }
}
