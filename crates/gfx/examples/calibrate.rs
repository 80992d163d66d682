//! Calibration of the title profiles (claim 19; docs/EXPERIMENTS.md, "Calibration of the title
//! profiles"): runs each title's FR-FCFS baseline with its HL CPU mix exactly as
//! `experiment frame` does (`mix::baseline`) and fits the main pass's depth complexity
//! (`Profile::layers`) until the baseline FPS is within `TOL` of Table 2's, by a secant on
//! log(FPS) against log(layers); the first step assumes `FPS ∝ layers^-0.67`, the slope measured
//! on GT2, HDR1 and COD2 in the first calibration pass. Prints one line per
//! iteration and the fitted values to paste into `title.rs`. Only the workload substitute (the
//! input) is calibrated; nothing of the policies or the memory model is touched.
//!
//! `cargo run --release -p warpforge-gfx --example calibrate -- [tiny|small] [ITERATIONS] [TITLE,...]`

use warpforge_gfx::{mix, sim::RunOpts, title::TITLES};

/// Relative FPS tolerance of the fit.
const TOL: f64 = 0.08;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let size = args.get(1).map_or("tiny", |s| s.as_str());
    let iters: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(4);
    let only: Vec<String> = args
        .get(3)
        .map(|s| s.split(',').map(|x| x.to_lowercase()).collect())
        .unwrap_or_default();
    let opts = RunOpts::sized(size).expect("size: tiny or small");
    let titles: Vec<_> = TITLES
        .iter()
        .filter(|t| only.is_empty() || only.contains(&t.name.to_lowercase()))
        .collect();
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let out = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs.min(titles.len()) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(t) = titles.get(i) else { break };
                let mut t = **t;
                let mut prev: Option<(f64, f64)> = None;
                for it in 0..iters {
                    let t0 = std::time::Instant::now();
                    let r = mix::run(&mix::baseline(&t, opts.clone())).expect("run");
                    let l = t.profile.layers;
                    eprintln!(
                        "{:7} it {it} layers {l:7.2} fps {:7.2} doc {:6.1} ({:.0} s)",
                        t.name,
                        r.fps,
                        t.doc_fps,
                        t0.elapsed().as_secs_f64()
                    );
                    let miss = r.fps / t.doc_fps;
                    if (miss - 1.0).abs() <= TOL || it + 1 == iters {
                        break;
                    }
                    // d ln(fps) / d ln(layers), from the last two points when they differ.
                    let slope = prev
                        .filter(|&(pl, pf)| (pl - l).abs() > 1e-9 && pf > 0.0)
                        .map(|(pl, pf)| (r.fps / pf).ln() / (l / pl).ln())
                        .filter(|s| s.is_finite())
                        .unwrap_or(-0.67)
                        .clamp(-2.0, -0.2);
                    prev = Some((l, r.fps));
                    let step = (-(miss.ln()) / slope).clamp(-1.5, 1.5);
                    t.profile.layers = (l * step.exp() * 100.0).round() / 100.0;
                }
                out.lock().unwrap().push((t.name, t.profile.layers));
            });
        }
    });
    let mut out = out.into_inner().unwrap();
    out.sort_by_key(|(n, _)| TITLES.iter().position(|t| t.name == *n));
    for (n, l) in out {
        println!("{n} layers {l}");
    }
}
