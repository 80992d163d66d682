//! Prints the functional-executor speed figures (`cargo run --release --example functional_speed
//! -p warpforge-simt [SCALE]`); the same measurement as `warpforge bench --what functional`.

fn main() {
    let scale = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let figs = warpforge_simt::bench::measure(scale, 3).expect("benchmark runs");
    for f in figs {
        println!(
            "{:<15} {:<14} {:>12} thread insts {:>8.3} s {:>8.1} M thread/s {:>7.2} M warp/s",
            f.kernel, f.kind, f.thread_insts, f.seconds, f.mtips, f.mwips
        );
    }
}
