//! `warpforge bench --what timing` (being built).

/// Runs the timing benchmark, prints a table and returns the figures.
pub fn run() -> anyhow::Result<serde_json::Value> {
    anyhow::bail!("the timing benchmark is not implemented yet")
}
