//! Claim 19: the calibrated title profiles put the FR-FCFS baseline FPS (with the title's HL CPU
//! mix, exactly as `experiment frame` runs it) in Table 2's bands at `--size tiny`. Two cheap
//! titles, one on each side of the 40-FPS target, pin the calibration (the whole table is
//! `cargo run --release -p warpforge-gfx --example calibrate -- tiny 1`).

use warpforge_gfx::mix;
use warpforge_gfx::sim::RunOpts;
use warpforge_gfx::title::{self, TARGET_FPS};

fn check(name: &str) {
    let t = title::by_name(name).unwrap();
    let r = mix::run(&mix::baseline(t, RunOpts::sized("tiny").unwrap())).unwrap();
    assert!(r.complete, "{name}: frames completed");
    let (lo, hi) = t.fps_band();
    assert!(
        (lo..=hi).contains(&r.fps),
        "{name}: baseline {:.1} FPS outside Table 2's band {lo:.1}..{hi:.1} (document {})",
        r.fps,
        t.doc_fps
    );
    assert_eq!(
        r.fps < TARGET_FPS,
        t.below_target(),
        "{name}: side of 40 FPS"
    );
}

#[test]
fn l4d_runs_below_the_target_in_its_band() {
    check("L4D");
}

#[test]
fn cor_runs_above_the_target_in_its_band() {
    check("COR");
}
