//! Partitioned SMs and L2 (issue 14 item 3). The sub-core (processing-block) model,
//! `core.sub_cores` (GPGPU-Sim `-gpgpu_sub_core_model 1`): warp slot `w` belongs to sub-core
//! `w % sub_cores`, which has its own scheduler, operand collectors, SP/SFU pipelines and
//! register banks. The two-partition L2, `l2.far_latency`: a request that crosses to the far
//! half pays more, and a read leaves a copy in the near half.

mod common;

use common::*;
use warpforge_core::{KernelRunner, MemSpace, OpClass};
use warpforge_timing::{GpuConfig, KernelStats, TimingRunner};

/// `qv100` on one SM, fetch wide enough for four schedulers, fp32 pipelines that take a warp
/// every `fp_ii` cycles.
fn cfg(sub_cores: u32, fp_ii: u32) -> GpuConfig {
    let mut c = GpuConfig::preset("qv100").unwrap();
    assert_eq!(
        c.core.sub_cores, 4,
        "the preset imports -gpgpu_sub_core_model 1"
    );
    c.core.num_sms = 1;
    c.core.sub_cores = sub_cores;
    c.core.fetch_per_cycle = 4;
    c.core.launch_latency = 0;
    c.core.initiation.fp_alu = fp_ii;
    c.validate().unwrap();
    c
}

/// One CTA of 16 warps; the warps in `busy` run `n` independent fp adds (destinations rotating
/// over 8 registers, sources `srcs`), the others exit at once.
fn kernel(busy: fn(u32) -> bool, n: u32, srcs: [u16; 2]) -> Mock {
    Mock::new(
        1,
        16 * 32,
        Box::new(move |_, w, i| match i {
            i if i < n && busy(w) => Some(alu(
                0x200 + 8 * (i as u64 % 32),
                OpClass::FpAlu,
                (i % 8) as u16 + 16,
                &srcs,
            )),
            i if i == n || (i == 0 && !busy(w)) => Some(exit(0x300)),
            _ => None,
        }),
    )
}

fn run(c: &GpuConfig, src: Mock) -> KernelStats {
    let mut r = TimingRunner::new(c.clone(), 1);
    let mut s = src;
    r.run_kernel(&mut s).unwrap();
    r.kernels()[0].clone()
}

/// Steady-state warp instructions per cycle of the SM: the difference between 800 and 400
/// instructions per busy warp cancels the cold start.
fn ipc(c: &GpuConfig, busy: fn(u32) -> bool) -> f64 {
    let a = run(c, kernel(busy, 400, [1, 2]));
    let b = run(c, kernel(busy, 800, [1, 2]));
    (b.warp_insts - a.warp_insts) as f64 / (b.cycles - a.cycles) as f64
}

/// Warps 0, 4, 8, 12: all in sub-core 0.
fn packed(w: u32) -> bool {
    w.is_multiple_of(4)
}

/// Warps 0..7: two per sub-core (a warp alone issues 2 instructions per 3 cycles: its
/// 2-entry instruction buffer is refetched only when empty).
fn spread(w: u32) -> bool {
    w < 8
}

/// Four warps on one sub-core issue at most one instruction per cycle (one scheduler, one
/// issue port); warps spread over the four sub-cores issue close to four.
#[test]
fn one_sub_core_issues_one_instruction_per_cycle_four_issue_four() {
    let c = cfg(4, 1);
    let (one, four) = (ipc(&c, packed), ipc(&c, spread));
    eprintln!("warp IPC: {one:.3} on one sub-core, {four:.3} on four");
    assert!(one <= 1.0 + 1e-9, "{one}");
    assert!(one > 0.9, "{one}");
    assert!(four > 3.5 && four <= 4.0 + 1e-9, "{four}");
}

/// Pipelines are not shared: with fp32 pipelines that take a warp every 4 cycles, the four
/// warps of sub-core 0 reach only its one pipeline (1/4 instruction per cycle), while without
/// sub-cores the same scheduler feeds all four pipelines (1 per cycle), and spread warps use
/// one pipeline each (1 per cycle again).
#[test]
fn a_sub_core_reaches_only_its_own_pipelines() {
    let (sub, flat) = (cfg(4, 4), cfg(1, 4));
    let (own, shared, spread4) = (ipc(&sub, packed), ipc(&flat, packed), ipc(&sub, spread));
    eprintln!("ii 4: packed {own:.3} with sub-cores, {shared:.3} without; spread {spread4:.3}");
    assert!(own <= 0.25 + 1e-9 && own > 0.23, "{own}");
    assert!(shared > 0.9, "{shared}");
    assert!(spread4 > 0.9, "{spread4}");
}

/// Register banks are split: with 16 banks and four sub-cores each sub-core has 4, so
/// registers 1 and 5 of a warp collide in one bank (one more cycle per instruction), while
/// the 16 banks of a single pool hold them apart.
#[test]
fn a_sub_core_reads_operands_from_its_own_banks() {
    let (sub, flat) = (cfg(4, 1), cfg(1, 1));
    assert_eq!(sub.core.reg_banks, 16);
    let one = |w: u32| w == 0;
    let n = 200;
    let (a, b) = (
        run(&sub, kernel(one, n, [1, 5])),
        run(&flat, kernel(one, n, [1, 5])),
    );
    assert_eq!(a.warp_insts, b.warp_insts);
    eprintln!(
        "bank conflicts: {} with sub-cores, {} without",
        a.raw.core.bank_conflicts, b.raw.core.bank_conflicts
    );
    assert!(a.raw.core.bank_conflicts >= n as u64, "{:?}", a.raw.core);
    assert_eq!(b.raw.core.bank_conflicts, 0, "{:?}", b.raw.core);
    assert!(a.cycles > b.cycles);
}

/// An uneven split is a configuration error naming the key.
#[test]
fn uneven_sub_core_shares_are_rejected() {
    let mut c = cfg(4, 1);
    c.core.collectors_sfu = 6;
    let e = c.validate().unwrap_err().to_string();
    assert!(
        e.contains("core.collectors_sfu") && e.contains("sub_cores"),
        "{e}"
    );
    let mut c = cfg(4, 1);
    c.core.sub_cores = 16;
    assert!(c.validate().is_err());
}

/// One warp chasing `n` distinct lines of 128 B (every load depends on the previous one).
fn chase(n: u32) -> Mock {
    Mock::new(
        1,
        32,
        Box::new(move |_, _, i| match i {
            i if i < n => {
                // Lines spread over the slices (a stride of 7 lines).
                let a = 0x400_0000 + 128 * 7 * i as u64;
                Some(mem(
                    0x100 + 8 * (i as u64 % 64),
                    MemSpace::Global,
                    false,
                    1,
                    1,
                    move |_| a,
                ))
            }
            i if i == n => Some(exit(0x80)),
            _ => None,
        }),
    )
}

/// `h100` with the far half `far` L2 cycles away: cycles of a first chase over 2,000 lines
/// (each from DRAM) and of a second over the same lines (L2 hits; the L1D is flushed between
/// launches).
fn two_laps(far: u32) -> (u64, u64) {
    let mut c = GpuConfig::preset("h100").unwrap();
    c.l2.far_latency = far;
    c.core.num_sms = 2;
    let mut r = TimingRunner::new(c, 1);
    for _ in 0..2 {
        let mut s = chase(2000);
        r.run_kernel(&mut s).unwrap();
    }
    let k = r.kernels();
    (k[0].cycles, k[1].cycles)
}

/// A request to a slice in the other half pays `l2.far_latency`: the first lap (about half
/// its lines homed in the far half) costs close to half of it per load more; the second lap
/// finds every far line copied into the near half and costs what a one-partition L2 costs.
#[test]
fn far_half_costs_more_until_its_lines_are_copied_near() {
    let far = 200u32;
    let (one_a, one_b) = two_laps(0);
    let (two_a, two_b) = two_laps(far);
    let per_load = (two_a as f64 - one_a as f64) / 2000.0;
    eprintln!(
        "first lap {one_a} vs {two_a} cycles (+{per_load:.1}/load), second {one_b} vs {two_b}"
    );
    assert!(
        per_load > 0.3 * far as f64 && per_load < 0.7 * far as f64,
        "{per_load}"
    );
    let d = (two_b as f64 - one_b as f64).abs() / one_b as f64;
    assert!(d < 0.01, "second lap {one_b} vs {two_b}");
}

/// One warp, `n` independent loads; lane `l` reads line `l` of a 4 KiB array at sector
/// `sector(l)` (32 transactions per load, all L1D hits after the first load).
fn scatter(n: u32, sector: fn(u64) -> u64) -> Mock {
    Mock::new(
        1,
        32,
        Box::new(move |_, _, i| match i {
            i if i < n => Some(mem(
                0x100 + 8 * (i as u64 % 64),
                MemSpace::Global,
                false,
                (i % 8) as u16 + 16,
                1,
                move |l| 0x800_0000 + 128 * l as u64 + 32 * sector(l as u64),
            )),
            i if i == n => Some(exit(0x80)),
            _ => None,
        }),
    )
}

/// L1D banks (`l1d.banks`, GPGPU-Sim `-gpgpu_l1_banks`): the 32 transactions of a load whose
/// first sectors fall in the 4 banks in turn take 8 cycles of the LD/ST unit; all in one bank,
/// each cycle after the first stops at a bank conflict (31 per load) and the loads take 32
/// cycles each, as with a single bank.
#[test]
fn l1d_bank_conflicts_serialise_transactions() {
    let mut c = cfg(4, 1);
    assert_eq!(c.l1d.banks, 4, "qv100 imports -gpgpu_l1_banks 4");
    c.l1d.bank_bytes = 32;
    // Cycles per load in steady state (200 loads less 100: the cold misses cancel).
    let per_load = |c: &GpuConfig, sector: fn(u64) -> u64| {
        let (a, b) = (run(c, scatter(100, sector)), run(c, scatter(200, sector)));
        let conflicts = b.raw.core.l1d_bank_conflicts - a.raw.core.l1d_bank_conflicts;
        ((b.cycles - a.cycles) as f64 / 100.0, conflicts)
    };
    let (spread, spread_conf) = per_load(&c, |l| l % 4);
    let (same, same_conf) = per_load(&c, |_| 0);
    c.l1d.banks = 1;
    let (one, one_conf) = per_load(&c, |l| l % 4);
    eprintln!(
        "cycles per scattered load: {spread:.1} over 4 banks, {same:.1} in one bank ({same_conf} conflicts per 100), {one:.1} with 1 bank"
    );
    assert_eq!(spread_conf, 0);
    assert_eq!(same_conf, 31 * 100);
    assert_eq!(one_conf, 0);
    assert!(same > 2.5 * spread, "{same} vs {spread}");
    assert!((one - same).abs() < 0.05 * same, "{one} vs {same}");
}

/// Four warps, each loading float4s: 512 bytes, four whole lines per warp instruction (four
/// warps so that the LD/ST unit, not one warp's issue, is the bound).
fn wide(n: u32) -> Mock {
    Mock::new(
        1,
        128,
        Box::new(move |_, _, i| match i {
            i if i < n => {
                let mut d = mem(
                    0x100 + 8 * (i as u64 % 64),
                    MemSpace::Global,
                    false,
                    (i % 8) as u16 + 16,
                    1,
                    |l| 0x800_0000 + 16 * l as u64,
                );
                if let Some(m) = d.mem.as_mut() {
                    m.bytes_per_lane = 16;
                }
                Some(d)
            }
            i if i == n => Some(exit(0x80)),
            _ => None,
        }),
    )
}

/// The `sectors` bank arbiter (`l1d.bank_arbiter`): a transaction takes the banks of all its
/// sectors and a conflicting one lets later ones pass. A scattered load whose lanes' sectors
/// sit at 32-byte positions 0, 0, 1, 1, 2, 2, 3, 3, ... of their lines: GPGPU-Sim's rule stops
/// at every second transaction (17 cycles for 32: one, fifteen times two, one), the sector rule
/// fills the 4 banks every cycle (8). A float4 load (four whole lines): GPGPU-Sim's rule with 8 banks hands two lines
/// a cycle (256 bytes), the sector rule with 4 banks of 32 bytes one (128 bytes, the H100's
/// L1 data width).
#[test]
fn sector_banks_pass_conflicts_and_bound_the_data_width() {
    let mut c = cfg(4, 1);
    c.l1d.bank_bytes = 32;
    // LD/ST cycles per warp load instruction in steady state.
    let per_load = |c: &GpuConfig, k: fn(u32) -> Mock| {
        let (a, b) = (run(c, k(100)), run(c, k(200)));
        (b.cycles - a.cycles) as f64 / (b.warp_insts - a.warp_insts) as f64
    };
    let pairs = |n| scatter(n, |l| (l / 2) % 4);
    c.l1d.banks = 4;
    let first4 = per_load(&c, pairs);
    c.l1d.bank_arbiter = "sectors".into();
    c.validate().unwrap();
    let sect4 = per_load(&c, pairs);
    let sect4_wide = per_load(&c, wide);
    c.l1d.bank_arbiter = "first_sector".into();
    c.l1d.banks = 8;
    let first8_wide = per_load(&c, wide);
    eprintln!(
        "scattered pairs: {first4:.2} (first_sector) vs {sect4:.2} (sectors) cycles per load; \
         float4: {first8_wide:.2} (first_sector, 8 banks) vs {sect4_wide:.2} (sectors, 4 banks)"
    );
    assert!((first4 - 17.0).abs() < 0.5, "{first4}");
    assert!((sect4 - 8.0).abs() < 0.5, "{sect4}");
    assert!((first8_wide - 2.0).abs() < 0.25, "{first8_wide}");
    assert!((sect4_wide - 4.0).abs() < 0.25, "{sect4_wide}");
    c.l1d.bank_arbiter = "round_robin".into();
    let e = c.validate().unwrap_err();
    assert_eq!(e.key, "l1d.bank_arbiter");
}
