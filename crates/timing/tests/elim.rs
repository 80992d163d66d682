//! Redundancy elimination (document 003 Ch. 7): with DARSIE, UV and DAC-IDEAL on, every
//! workload still passes its CPU check (functional results are exact), statistics are the same
//! on one and two stepping threads, and each policy does what the document says: DARSIE skips
//! TB-redundant instructions at fetch (up to the limit study's removable share, shared loads of
//! MatrixMul included), UV reuses at issue without removing fetched instructions, DAC-IDEAL skips
//! affine work but no unstructured loads, nothing is skipped for a 1D TB's `tid.x` work, and
//! renamed registers are read from the rename slice's banks.

use warpforge_simt::Device;
use warpforge_timing::{GpuConfig, KernelStats, TimingRunner};
use warpforge_workloads::{darsie, find, Check, Size};

fn cfg(policy: &str) -> GpuConfig {
    let mut c = GpuConfig::preset("qv100").unwrap();
    c.set("core.num_sms", "8").unwrap();
    c.set("core.scheduler", "gto").unwrap();
    c.set("core.elim.policy", policy).unwrap();
    c
}

fn run(name: &str, policy: &str, threads: usize) -> KernelStats {
    run_with(name, policy, &[], threads)
}

fn run_with(name: &str, policy: &str, sets: &[(&str, &str)], threads: usize) -> KernelStats {
    let w = find(name).unwrap();
    let mut dev = Device::new();
    let mut c = cfg(policy);
    for (k, v) in sets {
        c.set(k, v).unwrap();
    }
    dev.set_runner(Box::new(TimingRunner::new(c, threads)));
    let check = w
        .run(&mut dev, Size::Tiny)
        .unwrap_or_else(|e| panic!("{name} under {policy}: {e}"));
    assert_eq!(check, Check::Passed, "{name} under {policy}: output check");
    let mut r = dev.take_runner().unwrap();
    let t = r.as_any_mut().downcast_mut::<TimingRunner>().unwrap();
    let mut total = t.kernels()[0].clone();
    for k in &t.kernels()[1..] {
        total.raw.add(&k.raw);
    }
    total
}

#[test]
fn results_stay_exact_and_deterministic_under_every_policy() {
    let names: Vec<&str> = darsie::TABLE_7_1_2D
        .iter()
        .chain(&darsie::TABLE_7_1_1D)
        .copied()
        .collect();
    for p in ["darsie", "uv", "dac_ideal"] {
        for n in &names {
            let a = run(n, p, 1);
            assert_eq!(
                a.raw.core.elim_timeouts, 0,
                "{n} under {p}: deadlock guard fired"
            );
            if *n == "mmt" || *n == "cp" {
                assert_eq!(a, run(n, p, 2), "{n} under {p}: 1 vs 2 threads");
            }
        }
    }
}

#[test]
fn darsie_skips_redundant_work_of_2d_tbs_and_not_more() {
    let base = run("mmt", "none", 1).raw;
    let d = run("mmt", "darsie", 1).raw;
    // Skipped instructions are neither issued nor fetched through the I-cache.
    assert_eq!(base.core.elim_skipped, 0);
    assert!(d.core.elim_skipped > 0);
    assert_eq!(
        d.core.warp_insts + d.core.elim_skipped,
        base.core.warp_insts,
        "every instruction is either issued or skipped"
    );
    assert!(d.l1i.accesses < base.l1i.accesses);
    // Bs[k][tx] loads: one of the two shared loads of every inner-product step.
    assert!(d.core.elim_shared > 0 && d.core.shared_accesses < base.core.shared_accesses);
    // Branch barriers elect a majority path; mmt has no divergence.
    assert!(d.core.elim_branch_syncs > 0);
    assert_eq!(d.core.elim_majority_exits, 0);
    // Never more than the values allow: at most the limit study's removable share (34% at tiny).
    assert!((d.core.elim_skipped as f64) < 0.36 * base.core.warp_insts as f64);
    // Fetch holds are LeaderWB waits or branch barriers; followers do wait for the leader.
    assert!(d.core.elim_hold_wb_cycles > 0);
    assert!(d.core.elim_hold_wb_cycles + d.core.elim_hold_branch_cycles <= d.core.elim_hold_cycles);
}

#[test]
fn darsie_with_several_fetch_slots_neither_loses_instructions_nor_livelocks() {
    // Four fetch slots per SM per cycle (`-gpgpu_inst_fetch_throughput 4` of the Volta and later
    // files): a warp whose instruction DARSIE holds in fetch (LeaderWB wait, branch barrier)
    // must not take another slot in the same cycle and fetch past the held instruction (which
    // lost it from the timing pipeline and left branch barriers waiting for the safety
    // timeout: bp ran ~50x longer than with one slot).
    for n in ["bp", "mmt"] {
        let base = run_with(n, "none", &[("core.fetch_per_cycle", "4")], 1);
        let one = run_with(n, "darsie", &[("core.fetch_per_cycle", "1")], 1);
        let four = run_with(n, "darsie", &[("core.fetch_per_cycle", "4")], 1);
        for (slots, d) in [(1, &one), (4, &four)] {
            assert_eq!(
                d.raw.core.elim_timeouts, 0,
                "{n}, {slots} fetch slots: deadlock guard fired"
            );
            assert_eq!(
                d.raw.core.warp_insts + d.raw.core.elim_skipped,
                base.raw.core.warp_insts,
                "{n}, {slots} fetch slots: every instruction is either issued or skipped"
            );
        }
        assert!(four.raw.core.elim_skipped > 0, "{n}: DARSIE still skips");
        // More fetch bandwidth cannot make the run several times slower.
        assert!(
            four.raw.cycles <= 2 * one.raw.cycles,
            "{n}: {} cycles with 4 fetch slots, {} with 1",
            four.raw.cycles,
            one.raw.cycles
        );
    }
}

#[test]
fn renamed_reads_use_the_rename_slice_banks() {
    // The Bs[k][tx] value a follower skipped is read by its `fma` from the leader's physical
    // register (§5.3 F): other banks than the warp's own mapping, so other bank conflicts.
    let on = run("mmt", "darsie", 1).raw;
    let off = run_with("mmt", "darsie", &[("core.elim.rename_banks", "false")], 1).raw;
    assert_ne!(on.core.bank_conflicts, off.core.bank_conflicts);
    // Without DARSIE nothing is renamed: the key changes nothing.
    let base = run("mmt", "none", 1).raw;
    let base_off = run_with("mmt", "none", &[("core.elim.rename_banks", "false")], 1).raw;
    assert_eq!(base, base_off);
}

#[test]
fn darsie_on_a_1d_tb_skips_only_uniform_work() {
    // pf: 1D TBs, so tid.x-derived (CR) instructions are vector; only uniform ones are skipped.
    let base = run("pf", "none", 1).raw;
    let d = run("pf", "darsie", 1).raw;
    assert_eq!(
        d.core.warp_insts + d.core.elim_skipped,
        base.core.warp_insts
    );
    assert_eq!(
        d.core.elim_shared, 0,
        "no unstructured redundancy in a 1D TB"
    );
}

#[test]
fn uv_reuses_at_issue_and_dac_skips_no_unstructured_loads() {
    let base = run("mmt", "none", 1).raw;
    let uv = run("mmt", "uv", 1).raw;
    // UV: everything is still fetched and issued; some results come from the reuse buffer.
    assert_eq!(uv.core.warp_insts, base.core.warp_insts);
    assert_eq!(uv.core.elim_skipped, 0);
    assert!(uv.core.elim_reused > 0);
    assert_eq!(
        uv.core.elim_shared + uv.core.elim_global,
        0,
        "UV skips no memory operation"
    );
    let dac = run("mmt", "dac_ideal", 1).raw;
    assert!(dac.core.elim_skipped > 0);
    assert_eq!(
        dac.core.elim_shared, 0,
        "loaded data is unstructured: DAC keeps it"
    );
    let darsie = run("mmt", "darsie", 1).raw;
    assert!(darsie.core.elim_skipped > dac.core.elim_skipped);
}

#[test]
fn unknown_policy_is_a_config_error_naming_the_key() {
    let mut c = GpuConfig::preset("qv100").unwrap();
    let e = c.set("core.elim.policy", "magic").unwrap_err().to_string();
    assert!(
        e.contains("core.elim.policy") && e.contains("darsie"),
        "{e}"
    );
}
