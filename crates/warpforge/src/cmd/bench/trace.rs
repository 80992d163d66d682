//! `warpforge bench --what trace` (being built).

/// Runs the trace benchmark, prints a table and returns the figures.
pub fn run() -> anyhow::Result<serde_json::Value> {
    anyhow::bail!("the trace benchmark is not implemented yet")
}
