//! Accel-Sim trace reader: a `.traceg` kernel trace opened and read to the end, thread block
//! by thread block (what `warpforge trace run` replays).

use std::io::Write;

use super::{shape, Target};

/// The target.
pub const TARGET: Target = Target {
    name: "trace",
    about: "Accel-Sim .traceg reader",
    seed_suffixes: &[".traceg"],
    run,
};

fn run(data: &[u8]) -> Result<String, String> {
    // The reader reads files: one scratch file per process, rewritten per input.
    let path = std::env::temp_dir().join(format!("wf-fuzz-{}.traceg", std::process::id()));
    std::fs::File::create(&path)
        .and_then(|mut f| f.write_all(data))
        .map_err(|e| format!("scratch file: {e}"))?;
    let mut r =
        warpforge_trace::TraceReader::open(&path, None, None).map_err(|e| shape(&e.to_string()))?;
    let mut cta = warpforge_trace::traceg::CtaTrace::default();
    let mut n = 0u32;
    while r
        .read_tb(&mut cta)
        .map_err(|e| shape(&e.to_string()))?
        .is_some()
    {
        n += 1;
    }
    Ok(format!("ok {} blocks", n.min(4)))
}
