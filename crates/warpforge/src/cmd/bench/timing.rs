//! `warpforge bench --what timing`: speed of the cycle-level timing model.
//!
//! Runs a fixed set of workloads at `small` size on the `gtx480` preset, once with one thread
//! and once with two, and reports simulated SM-cycles per second (core cycles x SMs / seconds
//! inside the timing runner, the functional execution of the front end included) and warp
//! instructions per second. Also checks that both thread counts give identical statistics and
//! reports the process's peak resident memory. Figures go to `docs/PERFORMANCE.md`. Also
//! reports the CPU seconds of the simulating (calling) thread inside the runner: with one
//! thread, warp instructions per CPU second hardly move when other programs load the machine,
//! unlike wall-clock rates.

use anyhow::{bail, Context};
use warpforge_simt::Device;
use warpforge_timing::{GpuConfig, TimingRunner};
use warpforge_workloads::{find, Check, Size};

/// The fixed benchmark set: compute-bound, barrier-heavy, memory-bound and micro workloads.
pub const SET: &[&str] = &["bt", "htw", "sr1", "pth", "sr2", "micro_alu", "micro_copy"];

fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1).map(str::to_string))
        })
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// Runs the timing benchmark, prints a table and returns the figures.
pub fn run() -> anyhow::Result<serde_json::Value> {
    let cfg = GpuConfig::preset("gtx480")?;
    let sms = cfg.core.num_sms as f64;
    println!("timing model on gtx480, small inputs (seconds inside the runner)");
    println!(
        "{:<11} {:>7} {:>10} {:>11} {:>8} {:>13} {:>12} {:>8} {:>15}",
        "workload",
        "threads",
        "cycles",
        "warp insts",
        "seconds",
        "SM-cycles/s",
        "warp insts/s",
        "CPU s",
        "insts/CPU s"
    );
    let mut rows = Vec::new();
    let mut sums = [(0.0f64, 0.0f64, 0.0f64, 0.0f64); 2];
    for name in SET {
        let w =
            find(name).with_context(|| format!("benchmark workload `{name}` is not registered"))?;
        let mut stats = Vec::new();
        for (ti, threads) in [1usize, 2].into_iter().enumerate() {
            let mut dev = Device::new();
            dev.set_runner(Box::new(TimingRunner::new(cfg.clone(), threads)));
            let check = w.run(&mut dev, Size::Small)?;
            if let Check::Failed(m) = check {
                bail!("{name}: output check failed in timing mode: {m}");
            }
            let mut r = dev.take_runner().context("runner")?;
            let t = r
                .as_any_mut()
                .downcast_mut::<TimingRunner>()
                .context("a timing runner")?;
            let s = t.stats();
            let secs = t.sim_seconds();
            let cpu = t.sim_cpu_seconds();
            let (cyc, wi) = (s.total.cycles as f64, s.total.warp_insts as f64);
            println!(
                "{:<11} {:>7} {:>10} {:>11} {:>8.2} {:>13.0} {:>12.0} {:>8.2} {:>15.0}",
                name,
                threads,
                s.total.cycles,
                s.total.warp_insts,
                secs,
                cyc * sms / secs,
                wi / secs,
                cpu,
                wi / cpu
            );
            sums[ti].0 += cyc * sms;
            sums[ti].1 += wi;
            sums[ti].2 += secs;
            sums[ti].3 += cpu;
            rows.push(serde_json::json!({
                "workload": name,
                "threads": threads,
                "cycles": s.total.cycles,
                "warp_insts": s.total.warp_insts,
                "seconds": secs,
                "sm_cycles_per_s": cyc * sms / secs,
                "warp_insts_per_s": wi / secs,
                "cpu_seconds": cpu,
            }));
            stats.push(s);
        }
        if stats[0].kernels != stats[1].kernels {
            bail!("{name}: statistics differ between 1 and 2 threads");
        }
    }
    let mut total = Vec::new();
    for (ti, threads) in [1, 2].into_iter().enumerate() {
        let (c, w, s, cpu) = sums[ti];
        println!(
            "{:<11} {:>7} {:>10} {:>11} {:>8.2} {:>13.0} {:>12.0} {:>8.2} {:>15.0}",
            "all",
            threads,
            "",
            "",
            s,
            c / s,
            w / s,
            cpu,
            w / cpu
        );
        total.push(serde_json::json!({
            "threads": threads, "seconds": s, "sm_cycles_per_s": c / s, "warp_insts_per_s": w / s,
            "cpu_seconds": cpu, "warp_insts_per_cpu_s": w / cpu,
        }));
    }
    let rss = peak_rss_mb();
    println!("statistics identical for 1 and 2 threads; peak resident memory {rss:.0} MB");
    Ok(serde_json::json!({ "runs": rows, "total": total, "peak_rss_mb": rss }))
}
