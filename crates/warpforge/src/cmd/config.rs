//! `warpforge config` subcommands (being built).

/// Subcommands of `warpforge config`.
#[derive(clap::Subcommand)]
pub enum Command {}

/// Runs the subcommand.
pub fn run(cmd: Command) -> anyhow::Result<()> {
    match cmd {}
}
