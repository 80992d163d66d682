//! `warpforge bench --what trace`: speed of the trace-driven mode.
//!
//! Three figures, each best of three runs on one simulation thread:
//! * `parse`: streaming the real matrixmul trace (`shared/reference/accelsim-traces`) through the
//!   reader alone (lines/s, warp instructions/s), no timing model;
//! * `replay-matrixmul`: that trace replayed on the timing model with the GTX1080 reference config;
//! * `replay-recorded`: a suite workload recorded at size `small` (`mm` if present, else
//!   the first workload) and replayed on `gtx480`, against the execution-driven run of the same
//!   workload on the same config.
//!
//! Figures are recorded in `docs/PERFORMANCE.md`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use serde_json::json;
use warpforge_simt::Device;
use warpforge_timing::{GpuConfig, TimingRunner};
use warpforge_trace::{count, replay, KernelList, TraceRecorder};
use warpforge_workloads::{registry, Size};

fn reference() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/reference/accelsim-traces")
}

/// Best of `reps` calls of `f`, which returns its value and the seconds it wants counted (so that
/// building a runner, which allocates every cache and queue, stays outside the figure).
fn best<T>(reps: u32, mut f: impl FnMut() -> anyhow::Result<(T, f64)>) -> anyhow::Result<(T, f64)> {
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..reps {
        let (v, s) = f()?;
        best = best.min(s);
        out = Some(v);
    }
    Ok((out.expect("reps > 0"), best))
}

fn timed<T>(f: impl FnOnce() -> anyhow::Result<T>) -> anyhow::Result<(T, f64)> {
    let t0 = Instant::now();
    let v = f()?;
    Ok((v, t0.elapsed().as_secs_f64()))
}

/// Replays `kl` on a fresh one-thread timing runner of `cfg`, best of 3: ((cycles, warp
/// instructions), seconds).
fn replay_best(kl: &KernelList, cfg: &GpuConfig) -> anyhow::Result<((u64, u64), f64)> {
    best(3, || {
        let mut r = TimingRunner::new(cfg.clone(), 1);
        let ((), s) = timed(|| Ok(replay(kl, &mut r, None).map(|_| ())?))?;
        let t = r.stats().total;
        Ok(((t.cycles, t.warp_insts), s))
    })
}

/// Runs the trace benchmark, prints a table and returns the figures.
pub fn run() -> anyhow::Result<serde_json::Value> {
    let mm = reference().join("matrixmul-32-32-trace");
    let gtx1080 = reference().join("ref_config_gtx1080_from_microgpusim");
    let mut rows = Vec::new();

    // 1. Reader alone.
    let k = mm.join("kernel-1.traceg");
    let lines = std::fs::read_to_string(&k)
        .with_context(|| format!("reading {}", k.display()))?
        .lines()
        .count();
    let (c, s) = best(3, || timed(|| Ok(count(&k, None)?)))?;
    rows.push(json!({"figure": "parse", "trace": "matrixmul-32-32", "warp_insts": c.warp_insts,
        "seconds": s, "mlines_per_s": lines as f64 / s / 1e6, "mwips": c.warp_insts as f64 / s / 1e6}));

    // 2. Real trace on the timing model.
    let files = vec![
        gtx1080.join("gpgpusim.config"),
        gtx1080.join("gpgpusim.trace.config"),
    ];
    let cfg =
        warpforge_trace::gpgpusim::mapping::import_files(&files, GpuConfig::preset("gtx480")?)?
            .config;
    let kl = KernelList::open(&mm)?;
    let ((cycles, insts), s) = replay_best(&kl, &cfg)?;
    rows.push(
        json!({"figure": "replay-matrixmul", "config": "gtx1080 (imported)", "cycles": cycles,
        "warp_insts": insts, "seconds": s, "kcycles_per_s": cycles as f64 / s / 1e3,
        "mwips": insts as f64 / s / 1e6}),
    );

    // 3. Recorded suite workload: execution-driven vs trace-driven on the same config.
    let ws = registry();
    let w = ws
        .iter()
        .find(|w| w.info().name == "mm")
        .or(ws.first())
        .context("no workloads registered")?;
    let name = w.info().name;
    let dir = std::env::temp_dir().join(format!("warpforge-bench-trace-{}", std::process::id()));
    let gtx480 = GpuConfig::preset("gtx480")?;
    let ((exec_cycles, exec_insts), exec_s) = best(3, || {
        let mut dev = Device::new();
        dev.set_runner(Box::new(TimingRunner::new(gtx480.clone(), 1)));
        let (_, s) = timed(|| Ok(w.run(&mut dev, Size::Small)?))?;
        let r = dev
            .runner_mut()
            .and_then(|r| r.as_any_mut().downcast_mut::<TimingRunner>())
            .context("runner")?;
        let t = r.stats().total;
        Ok(((t.cycles, t.warp_insts), s))
    })?;
    {
        let mut dev = Device::new();
        dev.set_observer(Some(Box::new(TraceRecorder::new(&dir)?)));
        w.run(&mut dev, Size::Small)?;
        let mut o = dev.take_observer().context("recorder")?;
        let rec = o
            .as_any_mut()
            .downcast_mut::<TraceRecorder>()
            .context("recorder")?;
        rec.finish().map_err(anyhow::Error::msg)?;
    }
    let kl = KernelList::open(&dir)?;
    let ((cycles, insts), s) = replay_best(&kl, &gtx480)?;
    let bytes: u64 = kl
        .kernels()
        .filter_map(|k| std::fs::metadata(k).ok())
        .map(|m| m.len())
        .sum();
    let _ = std::fs::remove_dir_all(&dir);
    rows.push(json!({"figure": "replay-recorded", "workload": name, "size": "small", "config": "gtx480",
        "cycles": cycles, "warp_insts": insts, "seconds": s, "kcycles_per_s": cycles as f64 / s / 1e3,
        "mwips": insts as f64 / s / 1e6, "trace_mbytes": bytes as f64 / 1e6,
        "exec_driven_seconds": exec_s, "exec_driven_cycles": exec_cycles, "exec_driven_warp_insts": exec_insts}));

    println!("trace-driven mode (1 thread, best of 3)");
    for r in &rows {
        println!("  {r}");
    }
    Ok(json!(rows))
}
