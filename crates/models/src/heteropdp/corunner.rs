//! Native CPU co-runners (document 000 Table 6.2: six SPEC CPU2006 programs, reference inputs).
//!
//! SPEC CPU2006 cannot run here, so each program is a steady-state memory profile on one core of
//! the Table 6.1 host. The values are [External, approximate] single-core characterisations of
//! the reference inputs on 8 MB-LLC Intel cores (LLC MPKI and footprints as reported by Henning,
//! "SPEC CPU2006 memory footprint", CAN 2007, and Jaleel, "Memory characterization of workloads
//! using instrumentation-driven simulation", 2010): DRAM bandwidth ≈ MPKI × 64 B × IPC × 3.4 GHz.
//! They are inputs describing the programs, not fitted to any result of the document.

use serde::{Deserialize, Serialize};

/// One co-runner's alone behaviour (normalised to 1 s of alone execution).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CoRunner {
    /// Program name.
    pub name: String,
    /// Table 6.2 type: `C` (compute-intensive) or `M` (memory-intensive).
    pub kind: char,
    /// Working set (LLC footprint), bytes.
    pub footprint_bytes: f64,
    /// DRAM bandwidth alone, GB/s.
    pub dram_gbs: f64,
    /// Fraction of the alone time stalled on DRAM misses (the latency-sensitive part).
    pub memory_fraction: f64,
    /// Fraction of its LLC accesses that hit alone (the LLC-sensitive part).
    pub llc_hit: f64,
}

impl CoRunner {
    fn new(name: &str, kind: char, mb: f64, gbs: f64, mem: f64, hit: f64) -> Self {
        CoRunner {
            name: name.to_string(),
            kind,
            footprint_bytes: mb * 1024.0 * 1024.0,
            dram_gbs: gbs,
            memory_fraction: mem,
            llc_hit: hit,
        }
    }

    /// LLC insertion (miss) traffic alone, bytes per second.
    pub fn insertion_rate(&self) -> f64 {
        self.dram_gbs * 1e9
    }
}

/// The six programs of Table 6.2.
pub fn spec2006() -> Vec<CoRunner> {
    vec![
        // bzip2: MPKI ≈ 0.5–1, hot working set of a few MB out of an 850 MB footprint.
        CoRunner::new("bzip2", 'C', 6.0, 0.4, 0.06, 0.75),
        // calculix: MPKI ≈ 0.1, cache resident.
        CoRunner::new("calculix", 'C', 3.0, 0.1, 0.02, 0.90),
        // lbm: streaming stencil over 400 MB, MPKI ≈ 20–30.
        CoRunner::new("lbm", 'M', 400.0, 8.0, 0.55, 0.05),
        // mcf: pointer chasing over 1.7 GB, MPKI ≈ 30–70, latency bound.
        CoRunner::new("mcf", 'M', 1700.0, 4.5, 0.80, 0.30),
        // perlbench: MPKI ≈ 0.3–1.
        CoRunner::new("perlbench", 'C', 5.0, 0.2, 0.04, 0.85),
        // xalancbmk: MPKI ≈ 2–4 at 8 MB, LLC sensitive.
        CoRunner::new("xalancbmk", 'C', 24.0, 1.2, 0.22, 0.60),
    ]
}

/// The co-runner named `name`.
pub fn by_name(name: &str) -> Option<CoRunner> {
    spec2006().into_iter().find(|c| c.name == name)
}
