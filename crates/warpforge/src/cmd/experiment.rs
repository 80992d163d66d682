//! `warpforge experiment` subcommands (being built).

/// Subcommands of `warpforge experiment`.
#[derive(clap::Subcommand)]
pub enum Command {}

/// Runs the subcommand.
pub fn run(cmd: Command) -> anyhow::Result<()> {
    match cmd {}
}
