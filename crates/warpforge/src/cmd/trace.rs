//! `warpforge trace` subcommands (being built).

/// Subcommands of `warpforge trace`.
#[derive(clap::Subcommand)]
pub enum Command {}

/// Runs the subcommand.
pub fn run(cmd: Command) -> anyhow::Result<()> {
    match cmd {}
}
