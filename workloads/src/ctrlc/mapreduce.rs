//! Host side of the Mars-style map-reduce pipeline shared by `pvr`, `wc` and `str`.
//!
//! Mars runs a map in two passes: a count pass in which every map thread reports how many records
//! it will emit, a prefix sum that gives each thread its output offset, and an emit pass. The
//! records are then grouped by key and each group reduced. Here the group step is a counting
//! sort (`<prefix>_hist` with atomics, a scan, `<prefix>_scatter` claiming slots with atomics);
//! the two prefix sums run on the host between launches (Mars runs them on the GPU; they are a
//! small part of the work). Kernel names follow `<prefix>_map_count`, `<prefix>_map_emit`,
//! `<prefix>_hist`, `<prefix>_scatter`; their parameter lists are documented in each kernel.cu.

use crate::common::grid1d;
use crate::WorkloadError;
use warpforge_simt::{DevPtr, Device, KernelArg, ModuleId};

/// Threads per CTA of every map-reduce launch.
pub const BLOCK: u32 = 128;

/// Exclusive prefix sum and total.
pub fn exclusive_scan(v: &[u32]) -> (Vec<u32>, u32) {
    let mut acc = 0u32;
    let out = v
        .iter()
        .map(|&x| {
            let o = acc;
            acc += x;
            o
        })
        .collect();
    (out, acc)
}

/// Emitted records of a map.
pub struct Records {
    /// Device array of keys.
    pub keys: DevPtr,
    /// Device array of values.
    pub vals: DevPtr,
    /// Number of records.
    pub n: u32,
}

/// Runs the two map passes over `threads` map threads. Both kernels take the `inputs`
/// arguments first; `{prefix}_map_count` then the per-thread record counts, and
/// `{prefix}_map_emit` the per-thread record offsets, the keys and the values.
pub fn map(
    dev: &mut Device,
    m: ModuleId,
    prefix: &str,
    threads: u32,
    inputs: &[KernelArg],
) -> Result<Records, WorkloadError> {
    let with = |tail: &[DevPtr]| -> Vec<KernelArg> {
        let tail = tail.iter().map(|&p| KernelArg::Ptr(p));
        inputs.iter().cloned().chain(tail).collect()
    };
    let count = dev.malloc(threads as u64 * 4)?;
    let cfg = grid1d(threads, BLOCK);
    dev.launch(m, &format!("{prefix}_map_count"), cfg, &with(&[count]))?;
    let counts: Vec<u32> = dev.read(count, threads as usize)?;
    let (offsets, n) = exclusive_scan(&counts);
    let offset = dev.alloc_copy(&offsets)?;
    let keys = dev.malloc(n.max(1) as u64 * 4)?;
    let vals = dev.malloc(n.max(1) as u64 * 4)?;
    dev.launch(
        m,
        &format!("{prefix}_map_emit"),
        cfg,
        &with(&[offset, keys, vals]),
    )?;
    Ok(Records { keys, vals, n })
}

/// Records grouped by key.
pub struct Groups {
    /// Records per key (host copy).
    pub count: Vec<u32>,
    /// First slot of each key's group (host copy).
    pub start: Vec<u32>,
    /// Device copy of `count`.
    pub count_dev: DevPtr,
    /// Device copy of `start`.
    pub start_dev: DevPtr,
    /// Device array of the values, grouped by key (arbitrary order within a group).
    pub grouped: DevPtr,
}

impl Groups {
    /// Runs the reduce kernel `kernel` (one thread per key; arguments: group starts, group
    /// counts, grouped values, `n_keys`, output) into a new device array of `n_keys` words,
    /// which it returns.
    pub fn reduce(
        &self,
        dev: &mut Device,
        m: ModuleId,
        kernel: &str,
        n_keys: u32,
    ) -> Result<DevPtr, WorkloadError> {
        let out = dev.malloc(n_keys as u64 * 4)?;
        let args = [
            KernelArg::Ptr(self.start_dev),
            KernelArg::Ptr(self.count_dev),
            KernelArg::Ptr(self.grouped),
            KernelArg::S32(n_keys as i32),
            KernelArg::Ptr(out),
        ];
        dev.launch(m, kernel, grid1d(n_keys, BLOCK), &args)?;
        Ok(out)
    }
}

/// Groups `rec` by key (keys in `0..n_keys`).
pub fn group(
    dev: &mut Device,
    m: ModuleId,
    prefix: &str,
    rec: &Records,
    n_keys: u32,
) -> Result<Groups, WorkloadError> {
    let count_dev = dev.malloc(n_keys as u64 * 4)?;
    let cfg = grid1d(rec.n, BLOCK);
    let n = KernelArg::S32(rec.n as i32);
    dev.launch(
        m,
        &format!("{prefix}_hist"),
        cfg,
        &[
            KernelArg::Ptr(rec.keys),
            n.clone(),
            KernelArg::Ptr(count_dev),
        ],
    )?;
    let count: Vec<u32> = dev.read(count_dev, n_keys as usize)?;
    let (start, _) = exclusive_scan(&count);
    let start_dev = dev.alloc_copy(&start)?;
    let fill = dev.alloc_copy(&start)?;
    let grouped = dev.malloc(rec.n.max(1) as u64 * 4)?;
    dev.launch(
        m,
        &format!("{prefix}_scatter"),
        cfg,
        &[
            KernelArg::Ptr(rec.keys),
            KernelArg::Ptr(rec.vals),
            n,
            KernelArg::Ptr(fill),
            KernelArg::Ptr(grouped),
        ],
    )?;
    Ok(Groups {
        count,
        start,
        count_dev,
        start_dev,
        grouped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_is_exclusive() {
        assert_eq!(exclusive_scan(&[3, 0, 2, 5]), (vec![0, 3, 3, 5], 10));
        assert_eq!(exclusive_scan(&[]), (vec![], 0));
    }
}
