//! `warpforge ptx` subcommands (being built).

/// Subcommands of `warpforge ptx`.
#[derive(clap::Subcommand)]
pub enum Command {}

/// Runs the subcommand.
pub fn run(cmd: Command) -> anyhow::Result<()> {
    match cmd {}
}
