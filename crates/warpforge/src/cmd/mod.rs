//! One module per subcommand.

pub mod bench;
pub mod bundle;
pub mod characterize;
pub mod compare;
pub mod config;
pub mod experiment;
pub mod heteropdp;
pub mod list;
pub mod observed;
pub mod predict;
pub mod ptx;
pub mod redundancy;
pub mod report;
pub mod run;
pub mod sweep;
pub mod threads;
pub mod trace;

/// Writes `bytes` to `path` whole or not at all ([`warpforge_core::output::write_atomic`]: a
/// temporary file beside it, synced and renamed), with an error naming the file.
pub fn write_atomically(path: &std::path::Path, bytes: impl AsRef<[u8]>) -> anyhow::Result<()> {
    use anyhow::Context;
    warpforge_core::output::write_atomic(path, bytes)
        .with_context(|| format!("writing {}", path.display()))
}
