//! Debug probe of the frame-rate estimator: runs a title on a fixed-latency memory and prints,
//! for each measured frame, its cycles, the learned values and the predicted cycles every
//! 1/16 of the frame (`cargo run --release -p warpforge-gfx --example estprobe -- TITLE [FRAMES]`).
use warpforge_gfx::{mem::FixedLatency, sim, title};

fn main() {
    let name = std::env::args().nth(1).unwrap_or("COD2".into());
    let frames: usize = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let t = title::by_name(&name).expect("title");
    let opts = sim::RunOpts::sized("tiny").expect("tiny");
    let (mut gpu, mut generator) = sim::build(t, &opts);
    let mut mem = FixedLatency::new(150, 0.4);
    let mut trace: Vec<(u64, Option<f64>, f64)> = Vec::new();
    let mut done = 0;
    while gpu.frames.len() < frames + 2 {
        gpu.tick(&mut mem, &mut generator);
        if gpu.frames.len() != done {
            done = gpu.frames.len();
            let f = gpu.frames.last().expect("frame");
            let e = gpu.estimator();
            println!(
                "frame {} cycles {} err {:?} learned {:?} tiles {}",
                done - 1,
                f.cycles,
                f.estimate_error,
                e.learned(),
                e.tiles()
            );
            let n = trace.len();
            for (i, (c, p, l)) in trace.iter().enumerate() {
                if i % (n / 16).max(1) == 0 {
                    println!(
                        "   at {c}: lambda {l:.3} predicted {:?} ({:+.1}%)",
                        p.map(|p| p as u64),
                        p.map_or(0.0, |p| (p / f.cycles as f64 - 1.0) * 100.0)
                    );
                }
            }
            trace.clear();
        }
        if gpu.now() % 1000 == 0 {
            let e = gpu.estimator();
            trace.push((gpu.now(), e.predict_cycles(), e.lambda()));
        }
    }
}
