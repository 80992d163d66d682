//! TOML configuration loader of the timing model (`--config FILE.toml`): parsing, layering
//! over a `base`, deserialisation with unknown-key checks, validation.

use super::{shape, Target};

/// The target.
pub const TARGET: Target = Target {
    name: "config",
    about: "timing-model TOML configuration loader",
    seed_suffixes: &[
        "configs/gtx480.toml",
        "configs/gtx480-cawa.toml",
        "configs/gtx480-caws.toml",
        "configs/gtx480-ctrlc.toml",
    ],
    run,
};

fn run(data: &[u8]) -> Result<String, String> {
    let text = String::from_utf8_lossy(data);
    // A path base is read relative to the (nonexistent) folder: refused, never followed far.
    let cfg = warpforge_timing::GpuConfig::from_toml(&text, "/nonexistent/fuzz.toml")
        .map_err(|e| shape(&e.to_string()))?;
    // What a run does next: the memory estimate of the machine.
    let est = warpforge_timing::budget::estimate(&cfg);
    Ok(format!("ok {}", est.driver().key))
}
