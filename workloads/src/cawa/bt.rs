//! `bt`: B+tree point queries (Rodinia b+tree `findK`; CAWA Sens set, Ctrl-C, Table 3.2).
//!
//! One CTA per query walks the tree from the root; at each level one thread (the one whose key
//! range holds the query) publishes the child through shared memory, so the CTA synchronises
//! twice per level while most lanes only compare: barrier-heavy, with workload imbalance between
//! the warps of a CTA (Table 3.2's "sync heavy" finding). Leaves are filled to a random 50–100 %
//! so node occupancy, and with it the active lanes, varies.

use rand::Rng;
use warpforge_core::Dim3;
use warpforge_simt::{Device, KernelArg as A};

use crate::common::{by_size, compare_exact, load, rng, shape};
use crate::{Check, Size, Workload, WorkloadError, WorkloadInfo};

const PTX: &str = include_str!("../../bt/kernel.ptx");
/// Key slots per node, and threads per CTA.
const FANOUT: usize = 128;

/// The B+tree workload.
pub struct Bt;

/// A B+tree stored level by level as flat node arrays.
struct Tree {
    keys: Vec<i32>,
    ptrs: Vec<i32>,
    nkeys: Vec<i32>,
    root: i32,
    height: i32,
}

fn dims(size: Size) -> (usize, usize) {
    by_size(size, (4096, 64), (65536, 2048), (1 << 20, 10000))
}

/// Bulk-loads a tree over sorted distinct `keys` (record value of key k is `k * 3 + 1`).
fn build(sorted: &[i32], r: &mut impl Rng) -> Tree {
    let mut t = Tree {
        keys: Vec::new(),
        ptrs: Vec::new(),
        nkeys: Vec::new(),
        root: 0,
        height: 0,
    };
    // (first key, node index) of the current level.
    let mut level: Vec<(i32, i32)> = Vec::new();
    let push_node = |t: &mut Tree, entries: &[(i32, i32)]| -> (i32, i32) {
        let id = t.nkeys.len() as i32;
        t.nkeys.push(entries.len() as i32);
        for s in 0..FANOUT {
            let (k, p) = entries.get(s).copied().unwrap_or((i32::MAX, -1));
            t.keys.push(k);
            t.ptrs.push(p);
        }
        (entries[0].0, id)
    };
    let mut i = 0;
    while i < sorted.len() {
        let fill = r.gen_range(FANOUT / 2..=FANOUT).min(sorted.len() - i);
        let e: Vec<(i32, i32)> = sorted[i..i + fill]
            .iter()
            .map(|&k| (k, k * 3 + 1))
            .collect();
        level.push(push_node(&mut t, &e));
        i += fill;
    }
    t.height = 0;
    while level.len() > 1 {
        let mut up = Vec::new();
        for chunk in level.chunks(FANOUT * 3 / 4) {
            up.push(push_node(&mut t, chunk));
        }
        level = up;
        t.height += 1;
    }
    t.root = level[0].1;
    t
}

impl Workload for Bt {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "bt",
            application: "B+Tree (Rodinia)",
            suite: "Rodinia",
            sets: "latency, CAWA (Sens), Ctrl-C",
            kernels: &["bt_find_k"],
            behaviour:
                "barrier-heavy (2 per level), data-dependent pointer chasing, partly idle lanes",
        }
    }

    fn input(&self, size: Size) -> String {
        let (n, q) = dims(size);
        format!("{n} keys, {q} queries, fanout {FANOUT}")
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let (n, nq) = dims(size);
        let mut r = rng("bt", size);
        // distinct sorted keys: a random walk with gaps 1..=4, so absent keys exist in between.
        let mut keys = Vec::with_capacity(n);
        let mut k = 0i32;
        for _ in 0..n {
            k += r.gen_range(1..=4);
            keys.push(k);
        }
        let tree = build(&keys, &mut r);
        let queries: Vec<i32> = (0..nq).map(|_| r.gen_range(-2..k + 3)).collect();
        let m = load(dev, PTX, "bt")?;
        let dk = dev.alloc_copy(&tree.keys)?;
        let dp = dev.alloc_copy(&tree.ptrs)?;
        let dn = dev.alloc_copy(&tree.nkeys)?;
        let dq = dev.alloc_copy(&queries)?;
        let out = dev.malloc(4 * nq as u64)?;
        let cfg = shape(Dim3::x(nq as u32), Dim3::x(FANOUT as u32));
        let args = [
            A::Ptr(dk),
            A::Ptr(dp),
            A::Ptr(dn),
            A::S32(tree.root),
            A::S32(tree.height),
            A::S32(FANOUT as i32),
            A::Ptr(dq),
            A::Ptr(out),
        ];
        dev.launch(m, "bt_find_k", cfg, &args)?;
        let got = dev.read::<i32>(out, nq)?;
        let want: Vec<i32> = queries
            .iter()
            .map(|q| keys.binary_search(q).map_or(-1, |_| q * 3 + 1))
            .collect();
        Ok(compare_exact("bt record", &got, &want))
    }
}
