//! `warpforge predict` (being built).

/// Arguments of `warpforge predict`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs the subcommand.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("`warpforge predict` is not implemented yet")
}
