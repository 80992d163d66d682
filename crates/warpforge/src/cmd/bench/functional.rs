//! `warpforge bench --what functional` (being built).

/// Runs the functional benchmark, prints a table and returns the figures.
pub fn run() -> anyhow::Result<serde_json::Value> {
    anyhow::bail!("the functional benchmark is not implemented yet")
}
