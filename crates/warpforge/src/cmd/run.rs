//! `warpforge run` (being built).

/// Arguments of `warpforge run`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs the subcommand.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("`warpforge run` is not implemented yet")
}
