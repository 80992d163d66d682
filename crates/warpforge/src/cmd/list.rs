//! `warpforge list` (being built).

/// Arguments of `warpforge list`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs the subcommand.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("`warpforge list` is not implemented yet")
}
