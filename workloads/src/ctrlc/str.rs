//! `str`: String Match (Mars), Table 5.3 input "165k words". See `workloads/str/README.md`.
//!
//! Input: a synthetic text ([`super::text`]) and five keywords: four vocabulary words of
//! decreasing popularity and one absent word. Launches: map count, map emit (one record
//! `(keyword, offset)` per match), histogram, scatter, reduce (first occurrence). Checked
//! exactly: matches per keyword, the set of match offsets of each keyword, first occurrences.

use super::mapreduce;
use super::text;
use crate::common::{by_size, compare_exact, load, rng};
use crate::{check_or_return, Check, Size, Workload, WorkloadError, WorkloadInfo};
use warpforge_simt::{Device, KernelArg as A};

const PTX: &str = include_str!("../../str/kernel.ptx");
/// Bytes of text each map thread scans.
const CHUNK: u32 = 64;

/// The String Match workload.
pub struct Str;

/// Number of words of the text at `size`.
fn words(size: Size) -> usize {
    by_size(size, 1_000, 16_000, 165_000)
}

struct Input {
    text: Vec<u8>,
    keywords: Vec<Vec<u8>>,
}

fn input(size: Size) -> Input {
    let words: usize = words(size);
    let mut r = rng("str", size);
    let vocab = text::vocabulary(&mut r, 4000);
    let t = text::text(&mut r, &vocab, words);
    let mut keywords: Vec<Vec<u8>> = [1usize, 7, 40, 300]
        .iter()
        .map(|&i| vocab[i].clone())
        .collect();
    // A keyword longer than any vocabulary word never matches but is still compared.
    keywords.push(b"warpforgeabsent".to_vec());
    Input { text: t, keywords }
}

/// Match offsets per keyword, ascending.
fn reference(inp: &Input) -> Vec<Vec<u32>> {
    let mut out = vec![Vec::new(); inp.keywords.len()];
    for s in text::word_starts(&inp.text) {
        let w = text::word_at(&inp.text, s);
        if let Some(k) = inp.keywords.iter().position(|kw| kw.as_slice() == w) {
            out[k].push(s as u32);
        }
    }
    out
}

impl Workload for Str {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "str",
            application: "String Match (Mars)",
            suite: "Mars",
            sets: "Ctrl-C",
            kernels: &[
                "str_map_count",
                "str_map_emit",
                "str_hist",
                "str_scatter",
                "str_reduce_first",
            ],
            behaviour: "map-reduce over text; byte-wise compares with early exit (divergent)",
        }
    }

    fn input(&self, size: Size) -> String {
        let w: usize = words(size);
        format!("{w} words, 5 keywords")
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let inp = input(size);
        let nkw = inp.keywords.len() as u32;
        let kw_bytes: Vec<u8> = inp.keywords.concat();
        let mut kw_off = vec![0u32];
        for k in &inp.keywords {
            kw_off.push(kw_off.last().unwrap() + k.len() as u32);
        }
        let m = load(dev, PTX, "str")?;
        let text_dev = dev.alloc_copy(&inp.text)?;
        let kw = dev.alloc_copy(&kw_bytes)?;
        let kwo = dev.alloc_copy(&kw_off)?;
        let n = A::S32(inp.text.len() as i32);
        let chunk = A::S32(CHUNK as i32);
        let inputs = [
            A::Ptr(text_dev),
            n,
            chunk,
            A::Ptr(kw),
            A::Ptr(kwo),
            A::S32(nkw as i32),
        ];
        let threads = (inp.text.len() as u32).div_ceil(CHUNK);
        let rec = mapreduce::map(dev, m, "str", threads, &inputs)?;
        let g = mapreduce::group(dev, m, "str", &rec, nkw)?;
        let first = g.reduce(dev, m, "str_reduce_first", nkw)?;
        let want = reference(&inp);
        let grouped: Vec<u32> = dev.read(g.grouped, rec.n as usize)?;
        let first_got: Vec<u32> = dev.read(first, nkw as usize)?;
        let counts_ref: Vec<u32> = want.iter().map(|v| v.len() as u32).collect();
        check_or_return!(
            "str",
            compare_exact("matches per keyword", &g.count, &counts_ref)
        );
        for (k, offs) in want.iter().enumerate() {
            let b = g.start[k] as usize;
            let mut got = grouped[b..b + offs.len()].to_vec();
            got.sort_unstable();
            check_or_return!(
                "str",
                compare_exact(&format!("offsets of keyword {k}"), &got, offs)
            );
        }
        let first_ref: Vec<u32> = want
            .iter()
            .map(|v| v.first().copied().unwrap_or(u32::MAX))
            .collect();
        check_or_return!(
            "str",
            compare_exact("first occurrence", &first_got, &first_ref)
        );
        Ok(Check::Passed)
    }
}
