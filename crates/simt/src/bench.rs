//! Functional-speed benchmark kernels and measurement (used by `warpforge bench --what
//! functional`): a compute-bound dependent arithmetic chain, a memory-bound streaming triad and a
//! divergent loop with data-dependent trip counts, all our own CUDA (`tests/kernels/bench.cu`, compiled by clang-16). The figure is thread
//! instructions (active lanes summed) and warp instructions per second of wall time on one core,
//! best of the repetitions.

use std::time::Instant;

use warpforge_core::Dim3;

use crate::{Device, KernelArg, LaunchConfig, LaunchStats, ModuleId, SimtError};

const PTX: &str = include_str!("../tests/kernels/bench.ptx");

/// One measured kernel.
#[derive(Debug, Clone)]
pub struct Figure {
    /// Kernel name.
    pub kernel: String,
    /// What it stresses.
    pub kind: &'static str,
    /// Thread instructions per launch.
    pub thread_insts: u64,
    /// Warp instructions per launch.
    pub warp_insts: u64,
    /// Best wall time of one launch, seconds.
    pub seconds: f64,
    /// Thread instructions per second (millions).
    pub mtips: f64,
    /// Warp instructions per second (millions).
    pub mwips: f64,
}

/// Measures the three kernels with `reps` launches each.
pub fn measure(scale: u32, reps: u32) -> Result<Vec<Figure>, SimtError> {
    let mut dev = Device::new();
    let m = dev.load_ptx(PTX, "bench.ptx")?;
    let mut figs = Vec::new();

    // Compute-bound.
    let threads = 64 * 256 * scale;
    let out = dev.malloc(4 * threads as u64)?;
    let cfg = ctas_of_256(threads / 256);
    let args = [KernelArg::Ptr(out), KernelArg::U32(256)];
    figs.push(time(
        &mut dev,
        m,
        "bench_compute",
        "compute-bound",
        cfg,
        &args,
        reps,
    )?);

    // Memory-bound.
    let n = 1 << 20;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let dx = dev.alloc_copy(&x)?;
    let dy = dev.alloc_copy(&x)?;
    let dz = dev.malloc(4 * n as u64)?;
    let cfg = ctas_of_256(256 * scale);
    let args = [
        KernelArg::Ptr(dx),
        KernelArg::Ptr(dy),
        KernelArg::Ptr(dz),
        KernelArg::F32(2.0),
        KernelArg::U32(n),
    ];
    figs.push(time(
        &mut dev,
        m,
        "bench_stream",
        "memory-bound",
        cfg,
        &args,
        reps,
    )?);
    // Divergent.
    let threads = 256 * 64 * scale;
    let steps = dev.malloc(4 * threads as u64)?;
    let cfg = ctas_of_256(threads / 256);
    let args = [KernelArg::Ptr(steps), KernelArg::U32(1)];
    figs.push(time(
        &mut dev,
        m,
        "bench_divergent",
        "divergent",
        cfg,
        &args,
        reps,
    )?);
    let s: Vec<u32> = dev.read(steps, 27)?;
    if s[26] != 111 {
        return Err(SimtError::Other(format!(
            "bench_divergent: collatz(27) gave {}",
            s[26]
        )));
    }
    // Sanity: the triad computed what it should.
    let z: Vec<f32> = dev.read(dz, 4)?;
    if z != [0.0, 3.0, 6.0, 9.0] {
        return Err(SimtError::Other(format!("bench_stream computed {z:?}")));
    }
    Ok(figs)
}

/// A launch of `ctas` CTAs of 256 threads (every bench kernel's CTA size).
fn ctas_of_256(ctas: u32) -> LaunchConfig {
    LaunchConfig {
        grid: Dim3::x(ctas),
        block: Dim3::x(256),
        shared_bytes: 0,
    }
}

fn time(
    dev: &mut Device,
    m: ModuleId,
    kernel: &str,
    kind: &'static str,
    cfg: LaunchConfig,
    args: &[KernelArg],
    reps: u32,
) -> Result<Figure, SimtError> {
    let mut best = f64::MAX;
    let mut st = Default::default();
    for _ in 0..reps.max(1) {
        let t = Instant::now();
        dev.launch(m, kernel, cfg, args)?;
        best = best.min(t.elapsed().as_secs_f64());
        st = dev.last_launch_stats();
    }
    let st: LaunchStats = st;
    Ok(Figure {
        kernel: kernel.to_string(),
        kind,
        thread_insts: st.thread_insts,
        warp_insts: st.warp_insts,
        seconds: best,
        mtips: st.thread_insts as f64 / best / 1e6,
        mwips: st.warp_insts as f64 / best / 1e6,
    })
}
