//! `warpforge characterize` (being built).

/// Arguments of `warpforge characterize`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs the subcommand.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("`warpforge characterize` is not implemented yet")
}
