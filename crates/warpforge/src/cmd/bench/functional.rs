//! `warpforge bench --what functional`: speed of the functional SIMT executor on one core.
//!
//! Runs [`warpforge_simt::bench::measure`] (compute-bound, memory-bound and divergent kernels of ours,
//! best of 3 launches each), prints a table and returns the figures as JSON. Figures and the
//! command are recorded in `docs/PERFORMANCE.md`.

/// Runs the functional benchmark, prints a table and returns the figures.
pub fn run() -> anyhow::Result<serde_json::Value> {
    let figs = warpforge_simt::bench::measure(1, 3)?;
    println!("functional executor, one core (best of 3 launches)");
    println!(
        "{:<15} {:<14} {:>14} {:>12} {:>9} {:>12} {:>12}",
        "kernel", "kind", "thread insts", "warp insts", "seconds", "M thread/s", "M warp/s"
    );
    let mut rows = Vec::new();
    for f in &figs {
        println!(
            "{:<15} {:<14} {:>14} {:>12} {:>9.3} {:>12.1} {:>12.2}",
            f.kernel, f.kind, f.thread_insts, f.warp_insts, f.seconds, f.mtips, f.mwips
        );
        rows.push(serde_json::json!({
            "kernel": f.kernel,
            "kind": f.kind,
            "thread_insts": f.thread_insts,
            "warp_insts": f.warp_insts,
            "seconds": f.seconds,
            "thread_insts_per_s": f.thread_insts as f64 / f.seconds,
            "warp_insts_per_s": f.warp_insts as f64 / f.seconds,
        }));
    }
    Ok(serde_json::Value::Array(rows))
}
