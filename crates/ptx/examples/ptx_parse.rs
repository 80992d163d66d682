//! Parses PTX files and prints a summary (or the first error) for each: a development aid.
//! Usage: `cargo run -p warpforge-ptx --example ptx_parse -- FILE...`

fn main() {
    let mut failed = false;
    for path in std::env::args().skip(1) {
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{path}: {e}");
                failed = true;
                continue;
            }
        };
        let t0 = std::time::Instant::now();
        match warpforge_ptx::parse(&text, &path) {
            Ok(m) => {
                let insts: usize = m.functions.iter().map(|f| f.insts.len()).sum();
                println!(
                    "{path}: {} functions, {insts} instructions, {} lines in {:.3} ms",
                    m.functions.len(),
                    text.lines().count(),
                    t0.elapsed().as_secs_f64() * 1e3
                );
            }
            Err(e) => {
                println!("{e}");
                failed = true;
            }
        }
    }
    std::process::exit(i32::from(failed));
}
