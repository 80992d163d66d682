//! `ss`: Similarity Score (Mars), Table 5.3 input "1024x256 points" (1024 documents of 256
//! features). See `workloads/ss/README.md`.
//!
//! Launches: norms, map (cosine score of every document pair), reduce (best match per document).
//! Checked against an f64 reference: scores within rtol 1e-4 / atol 1e-5 (f32 dot products of
//! up to 256 terms); the chosen best match must score within 1e-4 of the true maximum (near-ties
//! may legitimately resolve either way in f32).

use crate::common::{by_size, compare_f32, grid1d, load, rng};
use crate::{check_or_return, Check, Size, Workload, WorkloadError, WorkloadInfo};
use rand::Rng;
use warpforge_simt::{Device, KernelArg as A};

const PTX: &str = include_str!("../../ss/kernel.ptx");
const BLOCK: u32 = 128;

/// The Similarity Score workload.
pub struct Ss;

/// (documents, features) at `size`.
fn dims(size: Size) -> (usize, usize) {
    by_size(size, (32, 16), (128, 64), (1024, 256))
}

fn pair_index(i: usize, j: usize, d: usize) -> usize {
    i * (2 * d - i - 1) / 2 + (j - i - 1)
}

impl Workload for Ss {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "ss",
            application: "Similarity Score (Mars)",
            suite: "Mars",
            sets: "Ctrl-C",
            kernels: &["ss_norms", "ss_map", "ss_best"],
            behaviour: "map-reduce; lanes stream different row-major vectors (one line per lane)",
        }
    }

    fn input(&self, size: Size) -> String {
        let (d, f): (usize, usize) = dims(size);
        format!("{d} documents x {f} features")
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let (docs, dim): (usize, usize) = dims(size);
        let mut r = rng("ss", size);
        let feat: Vec<f32> = (0..docs * dim).map(|_| r.gen::<f32>()).collect();
        let pairs = docs * (docs - 1) / 2;
        let m = load(dev, PTX, "ss")?;
        let f = dev.alloc_copy(&feat)?;
        let norm = dev.malloc(docs as u64 * 4)?;
        let score = dev.malloc(pairs as u64 * 4)?;
        let best = dev.malloc(docs as u64 * 4)?;
        let best_score = dev.malloc(docs as u64 * 4)?;
        let (d, k) = (A::S32(docs as i32), A::S32(dim as i32));
        dev.launch(
            m,
            "ss_norms",
            grid1d(docs as u32, BLOCK),
            &[A::Ptr(f), d.clone(), k.clone(), A::Ptr(norm)],
        )?;
        dev.launch(
            m,
            "ss_map",
            grid1d(pairs as u32, BLOCK),
            &[A::Ptr(f), A::Ptr(norm), d.clone(), k, A::Ptr(score)],
        )?;
        dev.launch(
            m,
            "ss_best",
            grid1d(docs as u32, BLOCK),
            &[A::Ptr(score), d, A::Ptr(best), A::Ptr(best_score)],
        )?;

        // f64 reference.
        let row = |i: usize| &feat[i * dim..(i + 1) * dim];
        let norms: Vec<f64> = (0..docs)
            .map(|i| {
                row(i)
                    .iter()
                    .map(|&x| x as f64 * x as f64)
                    .sum::<f64>()
                    .sqrt()
            })
            .collect();
        let mut want = vec![0f32; pairs];
        for i in 0..docs {
            for j in i + 1..docs {
                let dot: f64 = row(i)
                    .iter()
                    .zip(row(j))
                    .map(|(&a, &b)| a as f64 * b as f64)
                    .sum();
                want[pair_index(i, j, docs)] = (dot / (norms[i] * norms[j])) as f32;
            }
        }
        let got: Vec<f32> = dev.read(score, pairs)?;
        check_or_return!("ss", compare_f32("score", &got, &want, 1e-4, 1e-5));
        let best_got: Vec<u32> = dev.read(best, docs)?;
        let best_score_got: Vec<f32> = dev.read(best_score, docs)?;
        let s = |i: usize, j: usize| want[pair_index(i.min(j), i.max(j), docs)];
        for i in 0..docs {
            let j = best_got[i] as usize;
            let max = (0..docs)
                .filter(|&j| j != i)
                .map(|j| s(i, j))
                .fold(f32::MIN, f32::max);
            if j >= docs || j == i || s(i, j) < max - 1e-4 || (best_score_got[i] - max).abs() > 1e-4
            {
                return Ok(Check::Failed(format!(
                    "ss: best match of document {i} is {j} (score {}), reference maximum {max}",
                    best_score_got[i]
                )));
            }
        }
        Ok(Check::Passed)
    }
}
