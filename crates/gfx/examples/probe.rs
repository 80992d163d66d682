//! Debug probe: runs one title and prints, per frame, cycles, the share of cycles each unit was
//! marked bottlenecked (FE ZS SH CW BT), the estimator error and the critical share per stream.
use warpforge_gfx::{mem::FixedLatency, sim, stream::Stream, title};

fn main() {
    let name = std::env::args().nth(1).unwrap_or("UT2004".into());
    let div: u32 = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(16);
    let t = title::by_name(&name).unwrap();
    let opts = sim::RunOpts {
        res_div: div,
        ..Default::default()
    };
    let mut mem = FixedLatency::new(150, 0.4);
    let r = sim::run(t, &opts, &mut mem);
    for f in &r.frames {
        let b: Vec<String> = f
            .bottleneck_cycles
            .iter()
            .map(|&c| format!("{:.2}", c as f64 / f.cycles as f64))
            .collect();
        let s: Vec<String> = Stream::ALL
            .iter()
            .map(|&s| {
                let i = s as usize;
                let n = f.counts.reads[i] + f.counts.writes[i];
                format!("{}={}/{}", s.name(), f.counts.critical[i], n)
            })
            .collect();
        println!(
            "{} fps {:.1} bn {} err {:?} {}",
            f.cycles,
            f.fps,
            b.join(" "),
            f.estimate_error,
            s.join(" ")
        );
    }
}
