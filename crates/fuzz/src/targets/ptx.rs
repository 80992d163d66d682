//! PTX parser and decoder: `warpforge_ptx::parse`, then the functional executor's module
//! layout and the decoding of every kernel and function (what `warpforge ptx check` does).

use super::{shape, Target};

/// The target.
pub const TARGET: Target = Target {
    name: "ptx",
    about: "PTX parser and decoder (ptx check)",
    seed_suffixes: &[".ptx"],
    run,
};

fn run(data: &[u8]) -> Result<String, String> {
    let text = String::from_utf8_lossy(data);
    let mut dev = warpforge_simt::Device::new();
    let m = dev
        .load_ptx(&text, "fuzz.ptx")
        .map_err(|e| shape(&e.to_string()))?;
    dev.validate_all(m).map_err(|e| shape(&e.to_string()))?;
    let md = dev.module(m).expect("loaded");
    Ok(format!(
        "ok {} kernels {} functions",
        md.kernels().count().min(4),
        md.functions.len().min(8)
    ))
}
