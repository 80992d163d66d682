//! The SM pipeline widths of modern GPUs (issue 14 item 3; GPGPU-Sim `-gpgpu_num_int_units`,
//! `-gpgpu_pipeline_widths`, `-gpgpu_reg_file_port_throughput`, the operand-collector ports and
//! `-gpgpu_perfect_inst_const_cache`) on scripted instruction streams, one SM of `gtx480`.
//! Rates are measured in steady state: the difference between runs of `2n` and `n`
//! instructions per warp cancels the cold start and the drain.

mod common;

use common::*;
use warpforge_core::{KernelRunner, MemSpace, OpClass};
use warpforge_timing::{GpuConfig, KernelStats, TimingRunner};

fn base() -> GpuConfig {
    let mut c = GpuConfig::preset("gtx480").unwrap();
    c.core.num_sms = 1;
    c
}

fn run(cfg: &GpuConfig, src: Mock) -> KernelStats {
    let mut r = TimingRunner::new(cfg.clone(), 1);
    let mut s = src;
    r.run_kernel(&mut s).unwrap();
    assert_eq!(s.finished.len() as u64, s.info.num_ctas());
    r.kernels()[0].clone()
}

/// `ctas` CTAs of 8 warps; instruction `i` of every warp is `class(i)`, independent of the
/// others (destinations rotate over 8 registers, sources are never written).
fn stream(ctas: u32, n: u32, class: fn(u32) -> OpClass) -> Mock {
    Mock::new(
        ctas,
        256,
        Box::new(move |_, _, i| match i {
            i if i < n => Some(alu(
                0x200 + 8 * (i as u64 % 32),
                class(i),
                (i % 8) as u16 + 10,
                &[1, 2],
            )),
            i if i == n => Some(exit(0x300)),
            _ => None,
        }),
    )
}

/// Steady-state warp instructions per cycle of `stream(ctas, ., class)` on `cfg`.
fn ipc(cfg: &GpuConfig, ctas: u32, class: fn(u32) -> OpClass) -> f64 {
    let a = run(cfg, stream(ctas, 300, class));
    let b = run(cfg, stream(ctas, 600, class));
    (b.warp_insts - a.warp_insts) as f64 / (b.cycles - a.cycles) as f64
}

fn fp(_: u32) -> OpClass {
    OpClass::FpAlu
}
fn int(_: u32) -> OpClass {
    OpClass::IntAlu
}
fn mixed(i: u32) -> OpClass {
    if i.is_multiple_of(2) {
        OpClass::IntAlu
    } else {
        OpClass::FpAlu
    }
}

/// `core.int_units`: integer instructions leave the SP pipeline for the INT one, so a kernel
/// half integer, half fp32 runs twice as fast on one SP + one INT pipeline as on one SP
/// pipeline; a kernel of only one kind runs exactly as before (one pipeline either way).
#[test]
fn int_units_take_integer_work_off_the_sp_pipeline() {
    let mut one = base();
    one.core.sp_units = 1;
    one.core.initiation.int_alu = 2;
    one.core.initiation.fp_alu = 2;
    let mut split = one.clone();
    split.core.int_units = 1;
    let (before, after) = (ipc(&one, 2, mixed), ipc(&split, 2, mixed));
    eprintln!("mixed int/fp: warp IPC {before:.3} on SP only, {after:.3} with an INT pipeline");
    assert!(before <= 0.52, "one SP pipeline, initiation 2: {before}");
    assert!(after >= 1.7 * before, "{before} -> {after}");
    for class in [fp as fn(u32) -> OpClass, int] {
        let (a, b) = (
            run(&one, stream(2, 200, class)),
            run(&split, stream(2, 200, class)),
        );
        assert_eq!(
            a.cycles, b.cycles,
            "one kind of work: one pipeline either way"
        );
    }
}

/// `core.pipe.result_buses` (EX_WB): with one result bus two SP pipelines write back one
/// result per cycle; with two (as many as can complete per cycle) nothing changes.
#[test]
fn result_buses_bound_alu_writebacks_per_cycle() {
    let free = base();
    let mut one = free.clone();
    one.core.pipe.result_buses = 1;
    let mut two = free.clone();
    two.core.pipe.result_buses = 2;
    let (f, o) = (ipc(&free, 2, fp), ipc(&one, 2, fp));
    eprintln!("fp32: warp IPC {f:.3} unlimited, {o:.3} with one result bus");
    assert!(f >= 1.8, "{f}");
    assert!(o <= 1.01, "{o}");
    let (a, b) = (
        run(&free, stream(2, 200, fp)),
        run(&two, stream(2, 200, fp)),
    );
    assert_eq!(a.cycles, b.cycles);
}

/// Issue slots (`core.pipe.issue`, ID_OC), collector input ports (`in_ports`) and dispatch
/// slots (`dispatch`, OC_EX) of 1 per cycle each hold two schedulers with two SP pipelines
/// to one instruction per cycle; the default (0) leaves them at two.
#[test]
fn issue_and_dispatch_widths_bound_instructions_per_cycle() {
    let free = base();
    let f = ipc(&free, 2, fp);
    assert!(f >= 1.8, "{f}");
    let mut issue = free.clone();
    issue.core.pipe.issue = [1, 0, 0];
    let mut ports = free.clone();
    ports.core.pipe.in_ports = 1;
    let mut dispatch = free.clone();
    dispatch.core.pipe.dispatch = [1, 0, 0];
    for (what, c) in [
        ("issue", issue),
        ("in_ports", ports),
        ("dispatch", dispatch),
    ] {
        let r = ipc(&c, 2, fp);
        eprintln!("fp32 with {what} = 1: warp IPC {r:.3} (unlimited {f:.3})");
        assert!((0.9..=1.01).contains(&r), "{what}: {r}");
    }
}

/// `core.pipe.reg_port_throughput`: one warp whose instructions read three operands from one
/// register bank issues about one per three cycles with one read per bank and cycle, twice as
/// many with two collector steps per cycle.
#[test]
fn register_port_throughput_multiplies_bank_reads() {
    let src = |n: u32| {
        Mock::new(
            1,
            32,
            Box::new(move |_, _, i| match i {
                i if i < n => Some(alu(
                    0x200 + 8 * (i as u64 % 32),
                    OpClass::FpAlu,
                    (i % 8) as u16 + 40,
                    &[16, 16, 16],
                )),
                i if i == n => Some(exit(0x300)),
                _ => None,
            }),
        )
    };
    let rate = |c: &GpuConfig| {
        let (a, b) = (run(c, src(300)), run(c, src(600)));
        (b.cycles - a.cycles) as f64 / 300.0
    };
    let one = base();
    let mut two = one.clone();
    two.core.pipe.reg_port_throughput = 2;
    let (r1, r2) = (rate(&one), rate(&two));
    eprintln!("three reads of one bank: {r1:.2} cycles per instruction, {r2:.2} with 2 ports");
    // Three reads of one bank take at least 3 cycles (1.5 with two steps); the collector's
    // turnaround adds a little to the first.
    assert!((3.0..=3.3).contains(&r1), "{r1}");
    assert!((1.5..=1.65).contains(&r2), "{r2}");
    assert!(r2 <= 0.55 * r1, "{r1} -> {r2}");
}

/// `perfect` L1I and constant cache (GPGPU-Sim `-gpgpu_perfect_inst_const_cache 1`): every
/// fetch and every constant read hits, nothing goes to the L2, and the kernel is faster.
#[test]
fn perfect_instruction_and_constant_caches_always_hit() {
    let src = || {
        Mock::new(
            4,
            64,
            Box::new(move |_, _, i| match i {
                i if i < 64 => Some(mem(
                    0x400 + 8 * i as u64,
                    MemSpace::Const,
                    false,
                    (i % 8) as u16 + 10,
                    1,
                    move |_| 0x1_0000 + 256 * i as u64,
                )),
                64 => Some(exit(0x800)),
                _ => None,
            }),
        )
    };
    let real = base();
    let mut perfect = real.clone();
    perfect.l1i.perfect = true;
    perfect.const_cache.perfect = true;
    let (a, b) = (run(&real, src()), run(&perfect, src()));
    assert!(a.raw.l1i.misses > 0 && a.raw.const_cache.misses > 0);
    assert_eq!(b.raw.l1i.misses, 0);
    assert_eq!(b.raw.const_cache.misses, 0);
    assert_eq!(b.raw.l1i.hits, b.raw.l1i.accesses);
    assert_eq!(b.raw.const_cache.hits, b.raw.const_cache.accesses);
    assert_eq!(a.warp_insts, b.warp_insts);
    assert!(b.cycles < a.cycles, "{} vs {}", b.cycles, a.cycles);
    // The L2 saw no request from either cache.
    assert!(b.l2.accesses < a.l2.accesses);
}

fn fp_sfu(i: u32) -> OpClass {
    if i.is_multiple_of(2) {
        OpClass::FpAlu
    } else {
        OpClass::Sfu
    }
}

/// `core.max_issue_per_warp` (GPGPU-Sim `-gpgpu_max_insn_issue_per_warp 2`, Kepler to Pascal)
/// with one scheduler: alternating fp32 and SFU instructions issue two per cycle from the
/// picked warp instead of one; an fp32-only stream stays at one per cycle while the two of a
/// pair must use different units (`core.dual_issue_diff_units`, GPGPU-Sim's default) and
/// reaches two without that rule.
#[test]
fn dual_issue_takes_a_second_ready_instruction_of_another_unit() {
    let mut one = base();
    one.core.schedulers = 1;
    one.core.initiation.sfu = 1;
    let mut dual = one.clone();
    dual.core.max_issue_per_warp = 2;
    // Two fp32 instructions of one warp read the same two register banks: two collector
    // steps per cycle let both pairs' operands through.
    let mut diff = dual.clone();
    diff.core.pipe.reg_port_throughput = 2;
    let mut same = diff.clone();
    same.core.dual_issue_diff_units = false;
    let (single, paired) = (ipc(&one, 1, fp_sfu), ipc(&dual, 1, fp_sfu));
    let (fp_diff, fp_same) = (ipc(&diff, 1, fp), ipc(&same, 1, fp));
    eprintln!(
        "one scheduler: fp/sfu {single:.3} single, {paired:.3} dual; fp only {fp_diff:.3} \
         (different units), {fp_same:.3} (any units)"
    );
    assert!(single <= 1.01, "{single}");
    assert!(paired >= 1.6, "{paired}");
    assert!(fp_diff <= 1.01, "{fp_diff}");
    assert!(fp_same >= 1.6, "{fp_same}");
}

/// One warp of `n` dependent pairs: a load of one word (`space`), then an ALU op on its
/// result (the next load waits for it). Global loads all read the same line, so only the first
/// misses in the L1D. Returns the kernel's cycles on one SM of `preset`.
fn load_use_chain(preset: &str, space: MemSpace, n: u32) -> u64 {
    let mut c = GpuConfig::preset(preset).unwrap();
    c.core.num_sms = 1;
    let src = Mock::new(
        1,
        32,
        Box::new(move |_, _, i| match i {
            // A loop body of 16 pairs (256 B of code, held by the L1I).
            i if i < 2 * n && i % 2 == 0 => {
                let pc = 0x400 + 8 * (i % 32) as u64;
                Some(mem(pc, space, false, 10, 11, |_| 0x2_0000))
            }
            i if i < 2 * n => Some(alu(0x400 + 8 * (i % 32) as u64, OpClass::IntAlu, 11, &[10])),
            i if i == 2 * n => Some(exit(0x600)),
            _ => None,
        }),
    );
    run(&c, src).cycles
}

/// Core cycles per load-use pair in steady state.
fn per_pair(preset: &str, space: MemSpace) -> u64 {
    (load_use_chain(preset, space, 64) - load_use_chain(preset, space, 32)) / 32
}

/// `gtx480-cawa` models GPGPU-Sim 3.2.0 (Lee 2017 Table 4.1), whose LD/ST unit releases a load's
/// registers in the cycle it has handled the load's last L1D hit (no `-gpgpu_l1_latency`: that
/// queue is GPGPU-Sim 4's) and returns shared-memory loads through its 3-stage pipeline;
/// `gtx480` keeps GPGPU-Sim 4's 35-cycle L1D and 26-cycle shared-memory latencies.
#[test]
fn cawa_preset_hits_return_from_the_ldst_unit_as_in_gpgpu_sim_3_2_0() {
    let (cawa, v4) = (
        per_pair("gtx480-cawa", MemSpace::Global),
        per_pair("gtx480", MemSpace::Global),
    );
    assert!(v4 >= 35, "gtx480: {v4} cycles per L1D hit and use");
    assert!(cawa < 15, "gtx480-cawa: {cawa} cycles per L1D hit and use");
    let (cawa, v4) = (
        per_pair("gtx480-cawa", MemSpace::Shared),
        per_pair("gtx480", MemSpace::Shared),
    );
    assert!(v4 >= 26, "gtx480: {v4} cycles per shared load and use");
    assert!(
        cawa < 12,
        "gtx480-cawa: {cawa} cycles per shared load and use"
    );
}

/// Four warps of `n` (at most 16) independent global loads each, every load of one distinct
/// 128 B line (all lanes read the same word), on one SM of `gtx480-cawa`: `4 n` lines can be
/// in flight at once. Returns the L1D's reservation failures.
fn distinct_line_misses(n: u32) -> u64 {
    let mut c = GpuConfig::preset("gtx480-cawa").unwrap();
    c.core.num_sms = 1;
    let src = Mock::new(
        1,
        4 * 32,
        Box::new(move |_, w, i| match i {
            i if i < n => Some(mem(
                0x400 + 8 * i as u64,
                MemSpace::Global,
                false,
                (10 + i) as u16,
                1,
                move |_| 0x10_0000 + 128 * (w * n + i) as u64,
            )),
            i if i == n => Some(exit(0x600)),
            _ => None,
        }),
    );
    run(&c, src).raw.l1d.reservation_fails
}

/// `gtx480-cawa` has GPGPU-Sim 3.2.0's 32 L1D MSHR entries (`A:32:8,8`): 32 lines can miss at
/// once, a 33rd to 48th distinct line in flight is refused (a reservation failure) until fills
/// return.
#[test]
fn cawa_preset_l1d_holds_32_misses_in_flight() {
    let (fit, over) = (distinct_line_misses(8), distinct_line_misses(12));
    assert_eq!(fit, 0, "32 lines: {fit} reservation failures");
    assert!(over > 0, "48 lines: no reservation failure");
}
