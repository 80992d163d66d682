//! `warpforge bench` (being built).

/// Arguments of `warpforge bench`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs the subcommand.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("`warpforge bench` is not implemented yet")
}
