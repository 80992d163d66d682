//! `warpforge bench --what scaling`: thread scaling of the timing model (issue 20).
//!
//! Simulates `kmn` and `bfs` at `small` on the `gtx480` preset widened to 15, 80 and 132 SMs,
//! each with 1, 2, 4, ... threads up to the number of cores, and reports the wall time inside
//! the runner and the speed-up over one thread. Every thread count must give statistics
//! identical to one thread (the benchmark fails otherwise). Figures go to `docs/PERFORMANCE.md`.
//! `--set KEY=VALUE` changes every run's configuration (e.g. `--set sim.window=4` for the
//! window engine) and `--sms` the machine sizes.

use anyhow::{bail, Context};
use warpforge_simt::Device;
use warpforge_timing::{GpuConfig, TimingRunner};
use warpforge_workloads::{find, Check, Size};

/// Workloads and machine sizes (SMs) of the scaling benchmark.
pub const WORKLOADS: &[&str] = &["kmn", "bfs"];
/// Machine sizes in SMs: the GTX480's 15, a mid-size and an H100-like 132.
pub const MACHINES: &[u32] = &[15, 80, 132];

/// Thread counts measured: powers of two up to `cores`, and `cores` itself.
pub fn thread_counts(cores: usize) -> Vec<usize> {
    let mut t: Vec<usize> = std::iter::successors(Some(1usize), |&n| Some(n * 2))
        .take_while(|&n| n <= cores.max(1))
        .collect();
    if *t.last().expect("1 is always measured") != cores.max(1) {
        t.push(cores.max(1));
    }
    t
}

/// Runs the scaling benchmark, prints a table and returns the figures.
pub fn run(sets: &[String], machines: &[u32]) -> anyhow::Result<serde_json::Value> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let counts = thread_counts(cores);
    // Bad overrides fail before any simulation.
    let mut probe = GpuConfig::preset("gtx480")?;
    probe.apply_overrides(sets)?;
    probe.validate()?;
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load = load.split_whitespace().next().unwrap_or("?").to_string();
    println!(
        "thread scaling on gtx480 (SM count widened), small inputs, {cores} cores, load average {load}{}",
        if sets.is_empty() {
            String::new()
        } else {
            format!(", --set {}", sets.join(" --set "))
        }
    );
    println!(
        "{:<9} {:>5} {:>7} {:>10} {:>9} {:>8}",
        "workload", "SMs", "threads", "cycles", "seconds", "speedup"
    );
    let mut rows = Vec::new();
    for name in WORKLOADS {
        let w = find(name).with_context(|| format!("workload `{name}` is not registered"))?;
        for &sms in machines {
            let mut cfg = GpuConfig::preset("gtx480")?;
            cfg.set("core.num_sms", &sms.to_string())?;
            cfg.apply_overrides(sets)?;
            cfg.validate()?;
            let mut base: Option<(f64, serde_json::Value)> = None;
            for &threads in &counts {
                let mut dev = Device::new();
                dev.set_runner(Box::new(TimingRunner::new(cfg.clone(), threads)));
                if let Check::Failed(m) = w.run(&mut dev, Size::Small)? {
                    bail!("{name}: output check failed: {m}");
                }
                let mut r = dev.take_runner().context("runner")?;
                let t = r
                    .as_any_mut()
                    .downcast_mut::<TimingRunner>()
                    .context("a timing runner")?;
                let (secs, stats) = (t.sim_seconds(), t.stats_json());
                let cycles = stats["total"]["cycles"].as_u64().unwrap_or(0);
                let base_secs = match &base {
                    None => {
                        base = Some((secs, stats));
                        secs
                    }
                    Some((b, s1)) => {
                        if *s1 != stats {
                            bail!("{name} on {sms} SMs: statistics differ between 1 and {threads} threads");
                        }
                        *b
                    }
                };
                let speedup = base_secs / secs.max(1e-9);
                println!(
                    "{:<9} {:>5} {:>7} {:>10} {:>9.2} {:>7.2}x",
                    name, sms, threads, cycles, secs, speedup
                );
                rows.push(serde_json::json!({
                    "workload": name, "sms": sms, "threads": threads, "cycles": cycles,
                    "seconds": secs, "speedup": speedup,
                }));
            }
        }
    }
    println!("statistics identical for every thread count");
    Ok(serde_json::json!({
        "cores": cores, "load_average": load, "set": sets, "runs": rows,
    }))
}

#[cfg(test)]
mod tests {
    use super::thread_counts;

    #[test]
    fn thread_counts_are_powers_of_two_then_the_core_count() {
        assert_eq!(thread_counts(1), vec![1]);
        assert_eq!(thread_counts(2), vec![1, 2]);
        assert_eq!(thread_counts(6), vec![1, 2, 4, 6]);
        assert_eq!(thread_counts(16), vec![1, 2, 4, 8, 16]);
    }
}
