//! `warpforge experiment lax-calibrate`: derives the LAX calibration table (document 003 §4.6–4.7,
//! digest §6.2 "per-WG durations must be re-derived") from kernels written here
//! (`crates/runtime/calib/*.cu`, committed PTX) simulated on the cycle-level timing model.
//!
//! For every kernel row of the documented table (`crates/runtime/data/lax_calibration.toml`):
//! - the shape (`wg_threads`, `wgs`) is the documented one (it encodes Table 3.1's thread counts);
//! - the kernel runs twice on a fresh [`Device`] with a fresh [`TimingRunner`]: a single-CTA launch
//!   (one WG's share of the problem: the isolated, uncontended WG latency) and a full-occupancy
//!   launch (every SM filled with CTAs of the same per-thread work: the throughput view);
//! - `wg_ns` = single-CTA cycles / core clock (MHz) x 1000;
//! - `bw` = DRAM bytes of the single-CTA launch / `wg_ns` / the preset's peak DRAM bandwidth
//!   (channels x bus bytes x data ratio x DRAM clock), clamped to 0.001..=1;
//! - `vgprs` = the executor's register estimate for the kernel, `lds_bytes` its static shared memory;
//! - templates and benchmarks (job structure, deadlines, arrival rates: host-side data the kernels
//!   cannot give) are carried over from the documented table unchanged.
//!
//! The outputs of every launch are checked against a CPU reference; a mismatch is an error.

use anyhow::{bail, Context, Result};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::fmt::Write as _;
use std::path::PathBuf;
use warpforge_core::Dim3;
use warpforge_runtime::lax::workload::{
    Calibration, KernelCost, KernelCostSource, BUILTIN_CALIBRATION,
};
use warpforge_simt::{DevPtr, Device, KernelArg as A, LaunchConfig, ModuleId};
use warpforge_timing::{GpuConfig, TimingRunner};

/// Arguments of `experiment lax-calibrate`.
#[derive(clap::Args)]
pub struct LaxCalibrateArgs {
    /// Timing configuration preset name or TOML file.
    #[arg(long, default_value = "gtx480")]
    config: String,
    /// Override one configuration key (repeatable), e.g. `--set clocks.core_mhz=1500`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Write the calibration TOML here (default: stdout).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Measure only these kernel rows (comma-separated; default: all). The other rows are
    /// carried over from the documented table and marked so.
    #[arg(long, value_delimiter = ',')]
    kernels: Vec<String>,
}

/// Which calibration kernel measures a table row, with its per-thread work parameter.
#[derive(Clone, Copy, Debug)]
enum Probe {
    /// `rnn_tensor` with this many elements per thread.
    Tensor(u32),
    /// `rnn_act` with this many gates.
    Act(u32),
    /// `rnn_gemv`: (gates, hidden size) of the documented problem.
    Gemv(u32, u32),
    /// `ipv6_lookup`.
    Ipv6,
    /// `cuckoo_lookup` with this many keys per thread.
    Cuckoo(u32),
    /// `gmm_score` with this many frames.
    Gmm(u32),
    /// `stem_words`.
    Stem,
}

/// Table rows measured by the timing model, with the kernel and work that models them
/// (document 003 Table 3.1 and §4.7).
const PROBES: [(&str, Probe, &str); 13] = [
    (
        "lstm_tensor1",
        Probe::Tensor(6),
        "rnn_tensor, 6 elements/thread (397 KB / 16384 threads)",
    ),
    (
        "lstm_tensor2",
        Probe::Tensor(6),
        "rnn_tensor, 6 elements/thread (3.1 KB / 128 threads)",
    ),
    (
        "lstm_tensor3",
        Probe::Tensor(12),
        "rnn_tensor, 12 elements/thread (106.8 KB / 2048 threads)",
    ),
    (
        "lstm_tensor4",
        Probe::Tensor(36),
        "rnn_tensor, 36 elements/thread (9.1 KB / 64 threads)",
    ),
    (
        "lstm_act",
        Probe::Act(4),
        "rnn_act, LSTM cell update, h = 128",
    ),
    (
        "lstm_gemm",
        Probe::Gemv(4, 128),
        "rnn_gemv, 4 gates x h 128, K = 256",
    ),
    (
        "gru_gemm",
        Probe::Gemv(3, 128),
        "rnn_gemv, 3 gates x h 128, K = 256",
    ),
    (
        "gru256_gemm",
        Probe::Gemv(3, 256),
        "rnn_gemv, 3 gates x h 256, K = 512",
    ),
    (
        "van_gemm",
        Probe::Gemv(1, 128),
        "rnn_gemv, 1 gate x h 128, K = 256",
    ),
    (
        "ipv6",
        Probe::Ipv6,
        "ipv6_lookup, 16-bit top table + 8-bit trie, 1 packet/thread",
    ),
    (
        "cuckoo",
        Probe::Cuckoo(8),
        "cuckoo_lookup, 2 x 4-way buckets, 8 keys/thread",
    ),
    (
        "gmm",
        Probe::Gmm(52),
        "gmm_score, 39 features x 52 frames, 1 Gaussian/thread",
    ),
    (
        "stem",
        Probe::Stem,
        "stem_words, 3 suffix passes over 20 suffixes, 1 word/thread",
    ),
];

const TENSOR_PTX: &str = include_str!("../../../../runtime/calib/rnn_tensor.ptx");
const ACT_PTX: &str = include_str!("../../../../runtime/calib/rnn_act.ptx");
const GEMV_PTX: &str = include_str!("../../../../runtime/calib/rnn_gemv.ptx");
const IPV6_PTX: &str = include_str!("../../../../runtime/calib/ipv6.ptx");
const CUCKOO_PTX: &str = include_str!("../../../../runtime/calib/cuckoo.ptx");
const GMM_PTX: &str = include_str!("../../../../runtime/calib/gmm.ptx");
const STEM_PTX: &str = include_str!("../../../../runtime/calib/stem.ptx");

/// One measured row.
#[derive(Debug, Clone)]
pub struct Measured {
    /// Table row name.
    pub name: String,
    /// The derived cost.
    pub cost: KernelCost,
    /// Cycles of the single-CTA launch.
    pub single_cycles: u64,
    /// CTAs and cycles of the full-occupancy launch.
    pub full: (u32, u64),
    /// DRAM bytes of the single-CTA launch.
    pub dram_bytes: u64,
    /// What kernel and work modelled the row.
    pub note: &'static str,
}

/// Runs the subcommand.
pub fn run(a: LaxCalibrateArgs) -> Result<()> {
    let cfg = crate::cmd::config::resolve(Some(&a.config), &[], &a.set)?;
    for k in &a.kernels {
        if !PROBES.iter().any(|p| p.0 == k) {
            let known: Vec<&str> = PROBES.iter().map(|p| p.0).collect();
            bail!("unknown kernel row `{k}` (known: {})", known.join(", "));
        }
    }
    let rows = measure_all(&cfg, &a.kernels, |name| eprintln!("measuring {name}"))?;
    let text = render(&cfg, &rows)?;
    match &a.output {
        Some(p) => {
            warpforge_core::output::write_atomic(p, &text)
                .with_context(|| format!("writing {}", p.display()))?;
            eprintln!("wrote {}", p.display());
        }
        None => print!("{text}"),
    }
    Ok(())
}

/// Measures the rows of [`PROBES`] named in `only` (all when empty) on configuration `cfg`
/// (documented shapes).
pub fn measure_all(
    cfg: &GpuConfig,
    only: &[String],
    mut progress: impl FnMut(&str),
) -> Result<Vec<Measured>> {
    let table = Calibration::builtin();
    let mut out = Vec::new();
    for (name, probe, note) in PROBES {
        if !only.is_empty() && !only.iter().any(|o| o == name) {
            continue;
        }
        progress(name);
        let doc = table
            .kernels
            .get(name)
            .with_context(|| format!("documented table has no kernel `{name}`"))?;
        out.push(measure(cfg, name, probe, note, doc)?);
    }
    Ok(out)
}

/// Resident CTAs of `block` threads the whole GPU holds (thread and CTA limits).
fn full_grid(cfg: &GpuConfig, block: u32) -> u32 {
    let warps = block.div_ceil(32).max(1);
    let per_sm = (cfg.core.max_warps / warps).clamp(1, cfg.core.max_ctas.max(1));
    per_sm * cfg.core.num_sms
}

fn measure(
    cfg: &GpuConfig,
    name: &str,
    probe: Probe,
    note: &'static str,
    doc: &KernelCost,
) -> Result<Measured> {
    let block = doc.wg_threads;
    let (single, dram, regs, shared) = launch_once(cfg, probe, doc, 1)
        .with_context(|| format!("kernel `{name}`: single-CTA launch"))?;
    let grid = full_grid(cfg, block);
    let (full, ..) = launch_once(cfg, probe, doc, grid)
        .with_context(|| format!("kernel `{name}`: full-occupancy launch of {grid} CTAs"))?;
    let ns = (single as f64 / cfg.clocks.core_mhz * 1000.0)
        .round()
        .max(1.0);
    let d = &cfg.dram;
    let peak_b_per_ns =
        (d.channels * d.bus_bytes * d.data_ratio) as f64 * cfg.clocks.dram_mhz / 1000.0;
    let bw = (dram as f64 / ns / peak_b_per_ns).clamp(0.001, 1.0);
    let bw = (bw * 1000.0).round() / 1000.0;
    Ok(Measured {
        name: name.to_string(),
        cost: KernelCost {
            wg_threads: block,
            wgs: doc.wgs,
            vgprs: regs.max(1),
            lds_bytes: shared,
            wg_ns: ns as u64,
            bw,
        },
        single_cycles: single,
        full: (grid, full),
        dram_bytes: dram,
        note,
    })
}

/// Launches the probe's kernel with `grid` CTAs of the documented WG size on a fresh device and
/// timing runner, checks the output, and returns (cycles, DRAM bytes, registers, shared bytes).
fn launch_once(
    cfg: &GpuConfig,
    probe: Probe,
    doc: &KernelCost,
    grid: u32,
) -> Result<(u64, u64, u32, u32)> {
    let mut dev = Device::new();
    dev.set_runner(Box::new(TimingRunner::new(cfg.clone(), 1)));
    let block = doc.wg_threads;
    let n = (grid * block) as usize;
    let lc = LaunchConfig {
        grid: Dim3::x(grid),
        block: Dim3::x(block),
        shared_bytes: 0,
    };
    let mut rng = ChaCha8Rng::seed_from_u64(0x1a5 ^ u64::from(grid));
    let (m, kernel, args, check): (ModuleId, &str, Vec<A>, Checker) = match probe {
        Probe::Tensor(e) => setup_tensor(&mut dev, &mut rng, n * e as usize)?,
        Probe::Act(g) => setup_act(&mut dev, &mut rng, n, g)?,
        Probe::Gemv(g, h) => {
            // threads per row of the documented launch (e.g. 1024 threads / 512 rows = 2)
            let t = (doc.wg_threads * doc.wgs / (g * h)).max(1);
            setup_gemv(&mut dev, &mut rng, grid * (block / t), 2 * h, t)?
        }
        Probe::Ipv6 => setup_ipv6(&mut dev, &mut rng, n)?,
        Probe::Cuckoo(per) => setup_cuckoo(&mut dev, &mut rng, n, per)?,
        Probe::Gmm(f) => setup_gmm(&mut dev, &mut rng, n, f)?,
        Probe::Stem => setup_stem(&mut dev, &mut rng, n)?,
    };
    let info = dev.kernel_info(m, kernel, lc)?;
    dev.launch(m, kernel, lc, &args)?;
    check(&mut dev)?;
    let mut boxed = dev.take_runner().context("runner installed")?;
    let runner = boxed
        .as_any_mut()
        .downcast_mut::<TimingRunner>()
        .context("a timing runner")?;
    let stats = runner.stats();
    let k = stats.kernels.last().context("no kernel statistics")?;
    Ok((
        k.cycles,
        k.dram.bytes,
        info.regs_per_thread,
        info.shared_bytes,
    ))
}

/// Verifies a launch's output against a CPU reference.
type Checker = Box<dyn FnOnce(&mut Device) -> Result<()>>;

fn close(what: &str, got: &[f32], want: &[f32], tol: f32) -> Result<()> {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if (g - w).abs() > tol * (1.0 + w.abs()) {
            bail!("{what}[{i}]: got {g}, expected {w}");
        }
    }
    Ok(())
}

/// A checker of the `f32` output `out` (`want.len()` elements) against `want`, within `tol`
/// relative to `1 + |want|`.
fn f32_checker(what: &'static str, out: DevPtr, want: Vec<f32>, tol: f32) -> Checker {
    Box::new(move |d| close(what, &d.read::<f32>(out, want.len())?, &want, tol))
}

/// A checker of the `u32` output `out` against `want`, exactly; a mismatch reads
/// "`what`\[i\]: got `unit`G, expected W".
fn u32_checker(what: &'static str, unit: &'static str, out: DevPtr, want: Vec<u32>) -> Checker {
    Box::new(move |d| {
        let got = d.read::<u32>(out, want.len())?;
        match got.iter().zip(&want).position(|(g, w)| g != w) {
            Some(i) => bail!("{what}[{i}]: got {unit}{}, expected {}", got[i], want[i]),
            None => Ok(()),
        }
    })
}

fn randf(rng: &mut ChaCha8Rng, n: usize) -> Vec<f32> {
    (0..n).map(|_| rng.gen_range(-1.0f32..1.0)).collect()
}

type Setup = (ModuleId, &'static str, Vec<A>, Checker);

fn setup_tensor(dev: &mut Device, rng: &mut ChaCha8Rng, n: usize) -> Result<Setup> {
    let m = dev.load_ptx(TENSOR_PTX, "rnn_tensor.ptx")?;
    let (a, b) = (randf(rng, n), randf(rng, n));
    let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| 0.5 * x + 2.0 * y).collect();
    let (da, db, dout) = (
        dev.alloc_copy(&a)?,
        dev.alloc_copy(&b)?,
        dev.malloc(4 * n as u64)?,
    );
    let args = vec![
        A::Ptr(da),
        A::Ptr(db),
        A::Ptr(dout),
        A::F32(0.5),
        A::F32(2.0),
        A::S32(n as i32),
    ];
    let check = f32_checker("rnn_tensor", dout, want, 1e-6);
    Ok((m, "rnn_tensor", args, check))
}

fn sigm(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

fn setup_act(dev: &mut Device, rng: &mut ChaCha8Rng, h: usize, gates: u32) -> Result<Setup> {
    let m = dev.load_ptx(ACT_PTX, "rnn_act.ptx")?;
    let g = randf(rng, 4 * h);
    let c = randf(rng, h);
    let want: Vec<f32> = (0..h)
        .map(|j| {
            let cn = sigm(g[h + j]) * c[j] + sigm(g[j]) * g[2 * h + j].tanh();
            sigm(g[3 * h + j]) * cn.tanh()
        })
        .collect();
    let (dg, dc, dh) = (
        dev.alloc_copy(&g)?,
        dev.alloc_copy(&c)?,
        dev.malloc(4 * h as u64)?,
    );
    let args = vec![
        A::Ptr(dg),
        A::Ptr(dc),
        A::Ptr(dh),
        A::S32(h as i32),
        A::S32(gates as i32),
    ];
    let check = f32_checker("rnn_act", dh, want, 1e-3);
    Ok((m, "rnn_act", args, check))
}

fn setup_gemv(dev: &mut Device, rng: &mut ChaCha8Rng, rows: u32, k: u32, t: u32) -> Result<Setup> {
    let m = dev.load_ptx(GEMV_PTX, "rnn_gemv.ptx")?;
    let (r, kk) = (rows as usize, k as usize);
    let w = randf(rng, r * kk);
    let x = randf(rng, kk);
    let bias = randf(rng, r);
    let want: Vec<f32> = (0..r)
        .map(|i| bias[i] + (0..kk).map(|j| w[j * r + i] * x[j]).sum::<f32>())
        .collect();
    let (dw, dx, db) = (
        dev.alloc_copy(&w)?,
        dev.alloc_copy(&x)?,
        dev.alloc_copy(&bias)?,
    );
    let dy = dev.malloc(4 * r as u64)?;
    let args = vec![
        A::Ptr(dw),
        A::Ptr(dx),
        A::Ptr(db),
        A::Ptr(dy),
        A::S32(rows as i32),
        A::S32(k as i32),
        A::S32(t as i32),
    ];
    let check = f32_checker("rnn_gemv", dy, want, 1e-4);
    Ok((m, "rnn_gemv", args, check))
}

/// IPv6 routing table: `(prefix bits as u128, length)`, lengths 16..=64 in steps of 8.
fn ipv6_routes(rng: &mut ChaCha8Rng) -> Vec<(u128, u32, u32)> {
    let mut routes: Vec<(u128, u32, u32)> = Vec::new();
    // a few /16 aggregates, then longer prefixes nested under them (as in real tables)
    for hop in 1..=2000u32 {
        let len = if hop <= 64 {
            16
        } else {
            8 * rng.gen_range(3..=8)
        };
        let base = if hop <= 64 || routes.is_empty() {
            u128::from(rng.gen::<u16>()) << 112
        } else {
            routes[rng.gen_range(0..routes.len().min(64))].0
        };
        let rand_low: u128 = (u128::from(rng.gen::<u64>()) << 64) | u128::from(rng.gen::<u64>());
        let mask = !0u128 << (128 - len);
        let p = (base | (rand_low >> 16)) & mask;
        routes.push((p, len, hop));
    }
    routes.sort_by_key(|r| (r.1, r.0));
    routes.dedup_by_key(|r| (r.1, r.0));
    routes
}

/// The trie entry `slot` names: (true, i) is `top[i]`, (false, i) is `nodes[i]`.
fn entry<'a>(top: &'a mut [u32], nodes: &'a mut [u32], slot: (bool, usize)) -> &'a mut u32 {
    if slot.0 {
        &mut top[slot.1]
    } else {
        &mut nodes[slot.1]
    }
}

fn setup_ipv6(dev: &mut Device, rng: &mut ChaCha8Rng, n: usize) -> Result<Setup> {
    let m = dev.load_ptx(IPV6_PTX, "ipv6.ptx")?;
    let routes = ipv6_routes(rng);
    let mut top = vec![0u32; 1 << 16];
    let mut nodes: Vec<u32> = Vec::new();
    for &(p, len, hop) in &routes {
        // walk to depth (len - 16) / 8, creating children that inherit the best match so far
        let mut slot: (bool, usize) = (true, (p >> 112) as usize);
        for d in 0..(len - 16) / 8 {
            let e = *entry(&mut top, &mut nodes, slot);
            let node = if e & 0x8000_0000 != 0 {
                (e & 0x7fff_ffff) as usize
            } else {
                let id = nodes.len() / 256;
                nodes.extend(std::iter::repeat_n(e, 256));
                *entry(&mut top, &mut nodes, slot) = 0x8000_0000 | id as u32;
                id
            };
            let byte = ((p >> (104 - 8 * d)) & 0xff) as usize;
            slot = (false, node * 256 + byte);
        }
        let r = entry(&mut top, &mut nodes, slot);
        if *r & 0x8000_0000 != 0 {
            bail!("ipv6 table: prefixes must be inserted shortest first");
        }
        *r = hop;
    }
    // packets: 3/4 inside a routed prefix, 1/4 random
    let addrs: Vec<u128> = (0..n)
        .map(|_| {
            let low = (u128::from(rng.gen::<u64>()) << 64) | u128::from(rng.gen::<u64>());
            if rng.gen_range(0..4) < 3 {
                let (p, len, _) = routes[rng.gen_range(0..routes.len())];
                p | (low >> len)
            } else {
                low
            }
        })
        .collect();
    let want: Vec<u32> = addrs
        .iter()
        .map(|a| {
            routes
                .iter()
                .filter(|(p, len, _)| a & (!0u128 << (128 - len)) == *p)
                .max_by_key(|r| r.1)
                .map_or(0, |r| r.2)
        })
        .collect();
    let words: Vec<u32> = addrs
        .iter()
        .flat_map(|a| (0..4).map(move |i| (a >> (96 - 32 * i)) as u32))
        .collect();
    if nodes.is_empty() {
        nodes.push(0);
    }
    let (da, dt, dn) = (
        dev.alloc_copy(&words)?,
        dev.alloc_copy(&top)?,
        dev.alloc_copy(&nodes)?,
    );
    let dh = dev.malloc(4 * n as u64)?;
    let args = vec![
        A::Ptr(da),
        A::Ptr(dt),
        A::Ptr(dn),
        A::Ptr(dh),
        A::S32(n as i32),
    ];
    let check = u32_checker("ipv6_lookup", "hop ", dh, want);
    Ok((m, "ipv6_lookup", args, check))
}

fn hash1(k: u64, mask: u32) -> u32 {
    ((k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as u32) & mask
}
fn hash2(k: u64, mask: u32) -> u32 {
    (((k ^ (k >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9) >> 35) as u32) & mask
}

fn setup_cuckoo(dev: &mut Device, rng: &mut ChaCha8Rng, n: usize, per: u32) -> Result<Setup> {
    let m = dev.load_ptx(CUCKOO_PTX, "cuckoo.ptx")?;
    const EMPTY: u64 = u64::MAX;
    let buckets = 4096usize;
    let mask = (buckets - 1) as u32;
    let mut keys = vec![EMPTY; 4 * buckets];
    let mut vals = vec![0u32; 4 * buckets];
    let mut stored: Vec<(u64, u32)> = Vec::new();
    // fill to ~75 % with cuckoo insertion (evict a random slot, move it to its other bucket)
    'ins: for port in 0..(3 * buckets) as u32 {
        let (mut k, mut v) = (rng.gen::<u64>() & 0xffff_ffff_ffff, port);
        if stored.iter().any(|s| s.0 == k) {
            continue;
        }
        let mut b = hash1(k, mask) as usize;
        for _ in 0..64 {
            for s in 0..4 {
                if keys[4 * b + s] == EMPTY {
                    keys[4 * b + s] = k;
                    vals[4 * b + s] = v;
                    stored.push((k, port));
                    continue 'ins;
                }
            }
            let s = rng.gen_range(0..4);
            std::mem::swap(&mut keys[4 * b + s], &mut k);
            std::mem::swap(&mut vals[4 * b + s], &mut v);
            let (b1, b2) = (hash1(k, mask) as usize, hash2(k, mask) as usize);
            b = if b == b1 { b2 } else { b1 };
        }
        bail!("cuckoo table: insertion failed (table too full)");
    }
    let map: std::collections::BTreeMap<u64, u32> = {
        let mut m = std::collections::BTreeMap::new();
        for b in 0..4 * buckets {
            if keys[b] != EMPTY {
                m.insert(keys[b], vals[b]);
            }
        }
        m
    };
    let total = n * per as usize;
    let q: Vec<u64> = (0..total)
        .map(|_| {
            if rng.gen_range(0..4) < 3 {
                stored[rng.gen_range(0..stored.len())].0
            } else {
                rng.gen::<u64>() & 0xffff_ffff_ffff
            }
        })
        .collect();
    let want: Vec<u32> = q.iter().map(|k| *map.get(k).unwrap_or(&u32::MAX)).collect();
    let (dq, dk, dv) = (
        dev.alloc_copy(&q)?,
        dev.alloc_copy(&keys)?,
        dev.alloc_copy(&vals)?,
    );
    let dp = dev.malloc(4 * total as u64)?;
    let args = vec![
        A::Ptr(dq),
        A::Ptr(dk),
        A::Ptr(dv),
        A::Ptr(dp),
        A::S32(total as i32),
        A::S32(per as i32),
        A::U32(mask),
    ];
    let check = u32_checker("cuckoo_lookup", "", dp, want);
    Ok((m, "cuckoo_lookup", args, check))
}

fn setup_gmm(dev: &mut Device, rng: &mut ChaCha8Rng, g: usize, frames: u32) -> Result<Setup> {
    const D: usize = 39;
    let m = dev.load_ptx(GMM_PTX, "gmm.ptx")?;
    let f = frames as usize;
    let x = randf(rng, f * D);
    let mu = randf(rng, D * g);
    let prec: Vec<f32> = (0..D * g).map(|_| rng.gen_range(0.5f32..2.0)).collect();
    let cst = randf(rng, g);
    let want: Vec<f32> = (0..f * g)
        .map(|i| {
            let (fi, gi) = (i / g, i % g);
            let acc: f32 = (0..D)
                .map(|d| {
                    let t = x[fi * D + d] - mu[d * g + gi];
                    t * t * prec[d * g + gi]
                })
                .sum();
            cst[gi] - 0.5 * acc
        })
        .collect();
    let (dx, dm, dp) = (
        dev.alloc_copy(&x)?,
        dev.alloc_copy(&mu)?,
        dev.alloc_copy(&prec)?,
    );
    let (dc, ds) = (dev.alloc_copy(&cst)?, dev.malloc(4 * (f * g) as u64)?);
    let args = vec![
        A::Ptr(dx),
        A::Ptr(dm),
        A::Ptr(dp),
        A::Ptr(dc),
        A::Ptr(ds),
        A::S32(frames as i32),
        A::S32(g as i32),
    ];
    let check = f32_checker("gmm_score", ds, want, 1e-4);
    Ok((m, "gmm_score", args, check))
}

/// Suffix rules of the stemming kernel (suffix, replacement), Porter-style.
const STEM_RULES: [(&str, &str); 20] = [
    ("ational", "ate"),
    ("tional", "tion"),
    ("ization", "ize"),
    ("fulness", "ful"),
    ("ousness", "ous"),
    ("iveness", "ive"),
    ("alism", "al"),
    ("ation", "ate"),
    ("sses", "ss"),
    ("ies", "i"),
    ("ing", ""),
    ("ed", ""),
    ("ly", ""),
    ("ness", ""),
    ("ment", ""),
    ("able", ""),
    ("er", ""),
    ("es", ""),
    ("s", ""),
    ("al", ""),
];

/// CPU reference of `stem_words` (longest suffix per pass, stem keeps >= 2 letters, 3 passes).
fn stem_ref(w: &[u8]) -> Vec<u8> {
    let mut w = w.to_vec();
    for _ in 0..3 {
        let best = STEM_RULES
            .iter()
            .filter(|(s, _)| s.len() + 2 <= w.len() && w.ends_with(s.as_bytes()))
            .max_by_key(|(s, _)| s.len());
        // the kernel keeps the first of equally long matches; rules have distinct suffixes
        let Some((s, r)) = best else { break };
        w.truncate(w.len() - s.len());
        w.extend_from_slice(r.as_bytes());
    }
    w
}

fn setup_stem(dev: &mut Device, rng: &mut ChaCha8Rng, n: usize) -> Result<Setup> {
    const W: usize = 16;
    const S: usize = 8;
    let m = dev.load_ptx(STEM_PTX, "stem.ptx")?;
    let letters = b"abcdeilmnoprstu";
    let words: Vec<Vec<u8>> = (0..n)
        .map(|_| {
            let mut w: Vec<u8> = (0..rng.gen_range(2..8))
                .map(|_| letters[rng.gen_range(0..letters.len())])
                .collect();
            for _ in 0..rng.gen_range(0..3) {
                let (s, _) = STEM_RULES[rng.gen_range(0..STEM_RULES.len())];
                if w.len() + s.len() <= W {
                    w.extend_from_slice(s.as_bytes());
                }
            }
            w
        })
        .collect();
    let mut flat = vec![0u8; n * W];
    for (i, w) in words.iter().enumerate() {
        flat[i * W..i * W + w.len()].copy_from_slice(w);
    }
    let mut suf = vec![0u8; STEM_RULES.len() * S];
    let mut rep = vec![0u8; STEM_RULES.len() * S];
    for (i, (s, r)) in STEM_RULES.iter().enumerate() {
        suf[i * S..i * S + s.len()].copy_from_slice(s.as_bytes());
        rep[i * S..i * S + r.len()].copy_from_slice(r.as_bytes());
    }
    let sl: Vec<i32> = STEM_RULES.iter().map(|r| r.0.len() as i32).collect();
    let rl: Vec<i32> = STEM_RULES.iter().map(|r| r.1.len() as i32).collect();
    let want: Vec<Vec<u8>> = words.iter().map(|w| stem_ref(w)).collect();
    let (dw, ds, dsl) = (
        dev.alloc_copy(&flat)?,
        dev.alloc_copy(&suf)?,
        dev.alloc_copy(&sl)?,
    );
    let (dr, drl) = (dev.alloc_copy(&rep)?, dev.alloc_copy(&rl)?);
    let (dout, dlen) = (dev.malloc((n * W) as u64)?, dev.malloc(4 * n as u64)?);
    let args = vec![
        A::Ptr(dw),
        A::Ptr(ds),
        A::Ptr(dsl),
        A::Ptr(dr),
        A::Ptr(drl),
        A::S32(STEM_RULES.len() as i32),
        A::Ptr(dout),
        A::Ptr(dlen),
        A::S32(n as i32),
    ];
    let check: Checker = Box::new(move |d| {
        let out = d.read::<u8>(dout, n * W)?;
        let lens = d.read::<i32>(dlen, n)?;
        for (i, w) in want.iter().enumerate() {
            let got = &out[i * W..i * W + lens[i].clamp(0, W as i32) as usize];
            if got != w.as_slice() {
                bail!(
                    "stem_words[{i}]: got `{}`, expected `{}`",
                    String::from_utf8_lossy(got),
                    String::from_utf8_lossy(w)
                );
            }
        }
        Ok(())
    });
    Ok((m, "stem_words", args, check))
}

/// The measured rows as a [`KernelCostSource`] (the runtime's hook for timing-model costs).
struct Measurements<'a>(&'a [Measured]);

impl KernelCostSource for Measurements<'_> {
    fn cost(&self, kernel: &str, _table: &KernelCost) -> Option<KernelCost> {
        self.0
            .iter()
            .find(|m| m.name == kernel)
            .map(|m| m.cost.clone())
    }
}

/// Renders the calibration TOML: measured kernel rows, then the documented table's templates and
/// benchmarks verbatim (host-side data). The result parses with [`Calibration::from_toml`].
pub fn render(cfg: &GpuConfig, rows: &[Measured]) -> Result<String> {
    let mut s = String::new();
    let d = &cfg.dram;
    let peak = (d.channels * d.bus_bytes * d.data_ratio) as f64 * cfg.clocks.dram_mhz / 1000.0;
    let _ = writeln!(
        s,
        "# LAX calibration table derived from the cycle-level timing model (document 003 Table 3.1,\n\
         # Table 6.3; digest §6.2). Generated by `warpforge experiment lax-calibrate --config {}`;\n\
         # do not edit by hand. Same format and units as lax_calibration.toml.\n#\n\
         # Per kernel row (MEASURED):\n\
         # - wg_threads, wgs: the documented shapes (Table 3.1 thread counts), unchanged.\n\
         # - wg_ns: cycles of a single-CTA launch of the calibration kernel (crates/runtime/calib/,\n\
         #   one WG's share of the problem) on preset `{}` at its {} MHz core clock.\n\
         # - bw: DRAM bytes of that launch / wg_ns / the preset's peak DRAM bandwidth ({:.1} B/ns).\n\
         # - vgprs: the executor's register estimate; lds_bytes: the kernel's static shared memory.\n\
         # - The comment gives the full-occupancy launch (CTAs, cycles) as a throughput check.\n\
         # CARRIED OVER unchanged from lax_calibration.toml (host-side data the kernels cannot give):\n\
         # every [templates.*] (job structure) and [benchmarks.*] (deadlines, arrival rates) table.\n",
        cfg.name, cfg.name, cfg.clocks.core_mhz, peak
    );
    // the documented table with the measured rows swapped in through the runtime's hook
    let mut cal = Calibration::builtin();
    cal.recalibrate(&Measurements(rows));
    for (name, c) in &cal.kernels {
        let comment = match rows.iter().find(|r| &r.name == name) {
            Some(r) => format!(
                "MEASURED: {}; single CTA {} cycles, {} DRAM bytes; full {} CTAs {} cycles",
                r.note, r.single_cycles, r.dram_bytes, r.full.0, r.full.1
            ),
            None => "CARRIED OVER from lax_calibration.toml (not measured)".into(),
        };
        let _ = writeln!(
            s,
            "[kernels.{name}]   # {comment}\nwg_threads = {}\nwgs = {}\nvgprs = {}\n\
             lds_bytes = {}\nwg_ns = {}\nbw = {}\n",
            c.wg_threads, c.wgs, c.vgprs, c.lds_bytes, c.wg_ns, c.bw
        );
    }
    // templates and benchmarks: copy the documented table's text from its first template on
    let start = BUILTIN_CALIBRATION
        .find("\n# Job templates")
        .or_else(|| BUILTIN_CALIBRATION.find("[templates."))
        .context("documented table has no templates")?;
    let _ = writeln!(
        s,
        "# ---- CARRIED OVER from lax_calibration.toml (not measurable by the kernels) ----"
    );
    s.push_str(BUILTIN_CALIBRATION[start..].trim_start_matches('\n'));
    let parsed = Calibration::from_toml(&s, "<generated calibration>")?;
    if parsed.kernels != cal.kernels {
        bail!("internal error: the written kernel rows do not read back identically");
    }
    Ok(s)
}
