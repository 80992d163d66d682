//! Runs every title on the shared memory side (no CPU co-runners) and prints baseline FPS.
use warpforge_gfx::{shared::SharedMem, sim, title::TITLES};
use warpforge_hetero::{HeteroConfig, MemSystem};

fn main() {
    let div: u32 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(16);
    let policy = std::env::args().nth(2).unwrap_or("frfcfs".into());
    for t in &TITLES {
        let opts = sim::RunOpts {
            res_div: div,
            ..Default::default()
        };
        let mut cfg = HeteroConfig::preset("hetero").unwrap();
        let k = (div * div) as u64;
        cfg.set("llc.size_kb", &(16384 / k).max(64).to_string())
            .unwrap();
        cfg.set("policy.name", &policy).unwrap();
        let mut mem = SharedMem::new(MemSystem::new(&cfg), 4);
        let t0 = std::time::Instant::now();
        let r = sim::run(t, &opts, &mut mem);
        let total = r.counts.total().max(1);
        let crit = r.counts.total_critical() as f64 / total as f64;
        println!(
            "{:8} doc {:6.1} sim {:7.1} crit {:.2} err {:?} {:.1}s",
            t.name,
            t.doc_fps,
            r.fps,
            crit,
            r.estimate_error,
            t0.elapsed().as_secs_f64()
        );
    }
}
