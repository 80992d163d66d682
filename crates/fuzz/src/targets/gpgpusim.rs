//! GPGPU-Sim option importer (`config import`, `--gpgpusim-config`): option-file tokenizer and
//! the mapping of the options onto a timing configuration over gtx480.

use std::path::Path;

use super::{shape, Target};

/// The target.
pub const TARGET: Target = Target {
    name: "gpgpusim",
    about: "GPGPU-Sim option file importer",
    seed_suffixes: &[".config", ".icnt"],
    run,
};

fn run(data: &[u8]) -> Result<String, String> {
    let text = String::from_utf8_lossy(data);
    let file = Path::new("fuzz.config");
    let opts = warpforge_trace::gpgpusim::Options::parse_str(&text, file)
        .map_err(|e| shape(&e.to_string()))?;
    let icnt = warpforge_trace::gpgpusim::IcntConfig::parse(&text, file).ok();
    let base = warpforge_timing::GpuConfig::preset("gtx480").expect("preset");
    let imp =
        warpforge_trace::gpgpusim::mapping::to_timing_config(&opts, icnt.as_ref(), base, "fuzz")
            .map_err(|e| shape(&e.to_string()))?;
    imp.config.validate().map_err(|e| shape(&e.to_string()))?;
    Ok(format!("ok {} notes", imp.notes.len().min(4)))
}
