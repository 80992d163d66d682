//! Debug probe: runs the FR-FCFS baseline of titles with their HL CPU mix exactly as
//! `experiment frame` does (`mix::baseline`, `tiny`) and prints the FPS, the share of cycles each
//! unit was marked bottlenecked (FE ZS SH CW BT), the critical share of the GPU's DRAM reads per
//! stream and the estimator error.
//!
//! `[SETS=key=value,...] cargo run --release -p warpforge-gfx --example mixprobe -- TITLE[,TITLE...] [ideal|FRAMES]`
//! (`ideal`: also the runs with the critical / non-critical accesses ideal in the LLC; a number:
//! measure that many frames and print each frame's cycles and estimator error.)
use warpforge_gfx::mem::Ideal;
use warpforge_gfx::{mix, sim::RunOpts, stream::Stream, title};

fn main() {
    let names = std::env::args().nth(1).unwrap_or("L4D".into());
    let ideal = std::env::args().nth(2).is_some_and(|a| a == "ideal");
    let frames: usize = std::env::args()
        .nth(2)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1);
    for name in names.split(',') {
        let t = title::by_name(name).expect("title");
        let mut opts = RunOpts::sized("tiny").expect("tiny");
        opts.frames = frames;
        let mut base = mix::baseline(t, opts);
        // Extra machine settings, e.g. `SETS=dram.gpu_bus_div=1` (the unscaled bus).
        if let Ok(v) = std::env::var("SETS") {
            base.sets = v.split(',').map(String::from).collect();
        }
        let t0 = std::time::Instant::now();
        let r = mix::run(&base).expect("run");
        let d = &r.dram;
        let s: Vec<String> = Stream::ALL
            .iter()
            .filter(|&&s| d.reads[s as usize] > 0)
            .map(|&s| {
                let i = s as usize;
                format!("{}={}/{}", s.name(), d.critical[i], d.reads[i])
            })
            .collect();
        let crit = d.total_critical() as f64 / d.reads.iter().sum::<u64>().max(1) as f64;
        let b: Vec<String> = r
            .bottleneck_share
            .iter()
            .map(|x| format!("{x:.2}"))
            .collect();
        println!(
            "{name} fps {:.2} dram util {:.2} row hits {:.2} bn [{}] crit {crit:.2} err {:?} {} ({:.0} s)",
            r.fps,
            r.dram_util,
            r.dram_row_hits,
            b.join(" "),
            r.estimate_error,
            s.join(" "),
            t0.elapsed().as_secs_f64()
        );
        if frames > 1 {
            for (c, e) in &r.frames {
                println!("  frame {c} cycles, error {e:?}");
            }
        }
        if ideal {
            for (k, i) in [("crit", Ideal::Critical), ("noncrit", Ideal::NonCritical)] {
                let mut run = base.clone();
                run.ideal = Some(i);
                run.opts.cfg.held_gate = Some(t.below_target());
                let x = mix::run(&run).expect("run");
                println!(
                    "  ideal {k}: fps {:.2} ({:+.1}%)",
                    x.fps,
                    (x.fps / r.fps - 1.0) * 100.0
                );
            }
        }
    }
}
