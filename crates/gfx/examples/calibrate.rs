//! Prints the stand-alone baseline FPS of every title (fixed-latency memory), for calibration.
use warpforge_gfx::{mem::FixedLatency, sim, title::TITLES};

fn main() {
    let div: u32 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(8);
    for t in &TITLES {
        let opts = sim::RunOpts {
            res_div: div,
            ..Default::default()
        };
        let mut mem = FixedLatency::new(150, 0.4);
        let t0 = std::time::Instant::now();
        let r = sim::run(t, &opts, &mut mem);
        let total = r.counts.total().max(1);
        let crit = r.counts.total_critical() as f64 / total as f64;
        let mix: Vec<String> = warpforge_gfx::stream::Stream::ALL
            .iter()
            .map(|s| {
                format!(
                    "{}={}",
                    s.name(),
                    r.counts.reads[*s as usize] + r.counts.writes[*s as usize]
                )
            })
            .collect();
        println!(
            "{:8} doc {:6.1} sim {:7.1} crit {:.2} err {:?} cyc {:?} {:.1}s {}",
            t.name,
            t.doc_fps,
            r.fps,
            crit,
            r.estimate_error,
            r.frames.iter().map(|f| f.cycles).collect::<Vec<_>>(),
            t0.elapsed().as_secs_f64(),
            mix.join(" ")
        );
    }
}
