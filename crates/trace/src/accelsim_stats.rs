//! Statistics in the text layout of GPGPU-Sim / Accel-Sim's end-of-kernel report, so that the
//! scripts researchers already use on Accel-Sim logs (`key = value` lines matched by regular
//! expressions, e.g. `gpu_tot_sim_cycle\s*=\s*(.*)`) read warpforge runs unchanged.
//!
//! Only quantities warpforge measures with the same meaning are written; every other key of the
//! original report is left out rather than filled with a look-alike. As in GPGPU-Sim, the
//! `gpu_sim_*` lines and `gpu_occupancy` describe the kernel just finished, while the `gpu_tot_*`,
//! cache, `gpgpu_n_tot_w_icount`, `averagemflatency` and interconnect lines are cumulative from the
//! start of the run. Definitions that differ in detail:
//!
//! * `L1I_total_cache_accesses` counts one access per warp instruction fetched (GPGPU-Sim: one per
//!   fetch of up to two instructions); misses include fetches that found the line already
//!   requested (GPGPU-Sim counts those as misses too).
//! * `*_pending_hits` are accesses merged into an outstanding miss (MSHR merges).
//! * L1D: accesses sent around the L1D (`gmem_skip_L1D`, insertion `bypass_all`: loads and
//!   stores) are not counted, as in GPGPU-Sim.
//! * `gpu_occupancy` is resident warps over `max warps x` SM-cycles in which the SM held a CTA.
//! * `averagemflatency` is the mean over read replies of core cycles from the SM sending the
//!   request to consuming its reply (integer, truncated, as GPGPU-Sim prints it).
//! * `icnt_total_pkts_simt_to_mem` / `_mem_to_simt` are flits, which is what GPGPU-Sim counts
//!   under that name.

use std::fmt::Write;
use warpforge_timing::stats::{CacheStats, KernelStats, Totals};
use warpforge_timing::RunStats;

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// The `<name>_total_cache_*` lines, each after `indent` (GPGPU-Sim indents the core caches'
/// lines with a tab and the L2's not at all).
fn cache(out: &mut String, indent: &str, name: &str, c: &CacheStats) {
    let _ = writeln!(out, "{indent}{name}_total_cache_accesses = {}", c.accesses);
    let _ = writeln!(out, "{indent}{name}_total_cache_misses = {}", c.misses);
    if c.accesses > 0 {
        let _ = writeln!(
            out,
            "{indent}{name}_total_cache_miss_rate = {:.4}",
            ratio(c.misses, c.accesses)
        );
    }
    let _ = writeln!(
        out,
        "{indent}{name}_total_cache_pending_hits = {}",
        c.merged
    );
    let _ = writeln!(
        out,
        "{indent}{name}_total_cache_reservation_fails = {}",
        c.reservation_fails
    );
}

fn occupancy(t: &Totals, max_warps: u32) -> f64 {
    100.0 * ratio(t.core.warp_cycles, t.core.active_cycles * max_warps as u64)
}

fn kernel(out: &mut String, uid: usize, k: &KernelStats, tot: &Totals, max_warps: u32) {
    let _ = writeln!(out, "kernel_name = {} ", k.kernel);
    let _ = writeln!(out, "kernel_launch_uid = {uid} ");
    let _ = writeln!(out, "gpu_sim_cycle = {}", k.cycles);
    let _ = writeln!(out, "gpu_sim_insn = {}", k.thread_insts);
    let _ = writeln!(out, "gpu_ipc = {:12.4}", ratio(k.thread_insts, k.cycles));
    let _ = writeln!(out, "gpu_tot_sim_cycle = {}", tot.cycles);
    let _ = writeln!(out, "gpu_tot_sim_insn = {}", tot.core.thread_insts);
    let _ = writeln!(
        out,
        "gpu_tot_ipc = {:12.4}",
        ratio(tot.core.thread_insts, tot.cycles)
    );
    let _ = writeln!(out, "gpu_tot_issued_cta = {}", tot.core.ctas);
    let _ = writeln!(out, "gpu_occupancy = {:.4}% ", occupancy(&k.raw, max_warps));
    let _ = writeln!(
        out,
        "gpu_tot_occupancy = {:.4}% ",
        occupancy(tot, max_warps)
    );
    out.push_str("L1I_cache:\n");
    cache(out, "\t", "L1I", &tot.l1i);
    out.push_str("L1D_cache:\n");
    let l1d = CacheStats {
        accesses: tot.l1d.accesses - tot.l1d.bypassed,
        misses: tot.l1d.misses - tot.l1d.bypassed,
        ..tot.l1d
    };
    cache(out, "\t", "L1D", &l1d);
    let _ = writeln!(out, "gpgpu_n_tot_w_icount = {}", tot.core.warp_insts);
    let lat = ratio(tot.core.read_latency_cycles, tot.core.read_replies) as u64;
    let _ = writeln!(out, "averagemflatency = {lat} ");
    cache(out, "", "L2", &tot.l2);
    let _ = writeln!(out, "icnt_total_pkts_mem_to_simt={}", tot.icnt.reply_flits);
    let _ = writeln!(out, "icnt_total_pkts_simt_to_mem={}", tot.icnt.req_flits);
    out.push('\n');
}

/// The report of every kernel of `stats`, in launch order; `max_warps` is the configuration's
/// warps per SM (for `gpu_occupancy`).
pub fn render(stats: &RunStats, max_warps: u32) -> String {
    let mut out = String::new();
    let mut tot = Totals::default();
    for (i, k) in stats.kernels.iter().enumerate() {
        tot.add(&k.raw);
        kernel(&mut out, i + 1, k, &tot, max_warps);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(name: &str, cycles: u64, insts: u64) -> KernelStats {
        let mut raw = Totals {
            cycles,
            ..Default::default()
        };
        raw.core.thread_insts = insts;
        raw.core.warp_insts = insts / 32;
        raw.core.ctas = 2;
        raw.core.warp_cycles = 3 * cycles;
        raw.core.active_cycles = cycles;
        raw.core.read_replies = 4;
        raw.core.read_latency_cycles = 4 * 250 + 3;
        raw.l1d.accesses = 7;
        raw.l1d.misses = 7;
        raw.l1d.bypassed = 7;
        raw.l2.accesses = 10;
        raw.l2.misses = 4;
        raw.l2.merged = 1;
        KernelStats {
            kernel: name.into(),
            cycles,
            thread_insts: insts,
            raw,
            ..Default::default()
        }
    }

    fn value<'a>(text: &'a str, key: &str) -> Vec<&'a str> {
        text.lines()
            .filter_map(|l| l.trim_start().strip_prefix(key))
            .filter_map(|r| r.trim_start().strip_prefix('='))
            .map(|v| v.trim())
            .collect()
    }

    #[test]
    fn per_kernel_and_cumulative_lines() {
        let stats = RunStats {
            config: "c".into(),
            kernels: vec![k("a", 1000, 64_000), k("b", 500, 3_200)],
            total: KernelStats::default(),
        };
        let t = render(&stats, 48);
        assert_eq!(value(&t, "kernel_name"), ["a", "b"]);
        assert_eq!(value(&t, "kernel_launch_uid"), ["1", "2"]);
        assert_eq!(value(&t, "gpu_sim_cycle"), ["1000", "500"]);
        assert_eq!(value(&t, "gpu_tot_sim_cycle"), ["1000", "1500"]);
        assert_eq!(value(&t, "gpu_sim_insn"), ["64000", "3200"]);
        assert_eq!(value(&t, "gpu_tot_sim_insn"), ["64000", "67200"]);
        assert_eq!(value(&t, "gpu_ipc"), ["64.0000", "6.4000"]);
        assert_eq!(value(&t, "gpu_tot_issued_cta"), ["2", "4"]);
        assert_eq!(value(&t, "gpu_occupancy"), ["6.2500%", "6.2500%"]);
        assert_eq!(value(&t, "gpgpu_n_tot_w_icount"), ["2000", "2100"]);
        assert_eq!(value(&t, "averagemflatency"), ["250", "250"]);
        assert_eq!(value(&t, "L2_total_cache_accesses"), ["10", "20"]);
        assert_eq!(value(&t, "L2_total_cache_miss_rate"), ["0.4000", "0.4000"]);
        assert_eq!(value(&t, "L2_total_cache_pending_hits"), ["1", "2"]);
        // No accesses: no miss rate line (GPGPU-Sim prints none either).
        assert!(value(&t, "L1D_total_cache_miss_rate").is_empty());
        assert!(t.contains("\nL2_total_cache_accesses = 10\n"), "{t}");
        assert!(t.contains("\n\tL1D_total_cache_accesses = 0\n"), "{t}");
    }
}
