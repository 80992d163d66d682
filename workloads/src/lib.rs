//! The warpforge benchmark suite: CUDA kernels written here (compiled to PTX by clang-16 and
//! committed), deterministic inputs, host drivers with launch sequences, and CPU references.
//!
//! Each workload lives in `workloads/<name>/` (CUDA source, PTX, README) with its driver in
//! `src/<name>.rs` (or `src/suite/<name>.rs`), and is registered in [`registry`].
#![deny(missing_docs)]

use warpforge_simt::{Device, SimtError};

/// Input size of a workload run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Size {
    /// Functional run in well under a second; used by tests.
    Tiny,
    /// A timing simulation finishes in minutes.
    Small,
    /// DARSIE's operating point (document 003 Ch. 7, `experiment darsie`): for the 2D workloads of
    /// Table 7.1 the small input scaled up until every launch fills Table 7.2's 28-SM GPU at least
    /// twice (see [`darsie::FILL_RULE`]); every other workload runs its small input.
    Fill,
    /// The documents' input sizes where they are given.
    Paper,
}

impl std::str::FromStr for Size {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "tiny" => Ok(Size::Tiny),
            "small" => Ok(Size::Small),
            "fill" => Ok(Size::Fill),
            "paper" => Ok(Size::Paper),
            _ => Err(format!(
                "unknown size `{s}` (expected tiny, small, fill or paper)"
            )),
        }
    }
}

impl Size {
    /// Every size, smallest first.
    pub const ALL: [Size; 4] = [Size::Tiny, Size::Small, Size::Fill, Size::Paper];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Size::Tiny => "tiny",
            Size::Small => "small",
            Size::Fill => "fill",
            Size::Paper => "paper",
        }
    }
}

/// Outcome of a workload's output check against its CPU reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    /// Output matches the CPU reference.
    Passed,
    /// Output differs; the message says where (first mismatching index, values).
    Failed(String),
}

/// Static description of a workload, for `warpforge list`.
#[derive(Debug, Clone, Copy)]
pub struct WorkloadInfo {
    /// Short name, the documents' abbreviation in lower case (`kmn`, `bfs`...).
    pub name: &'static str,
    /// The application it stands for, e.g. "K-Means (Rodinia)".
    pub application: &'static str,
    /// Suite of origin: "Rodinia", "Parboil", "Mars", "Pannotia", "NVIDIA SDK", "micro".
    pub suite: &'static str,
    /// Documents' sets it belongs to, e.g. "CAWA, Ctrl-C".
    pub sets: &'static str,
    /// Kernel names in the PTX.
    pub kernels: &'static [&'static str],
    /// One-line behaviour summary.
    pub behaviour: &'static str,
}

/// Errors of a workload run.
#[derive(Debug, thiserror::Error)]
pub enum WorkloadError {
    /// The device reported an error (bad PTX, fault, deadlock...).
    #[error(transparent)]
    Device(#[from] SimtError),
    /// Anything else.
    #[error("{0}")]
    Other(String),
}

/// A benchmark: builds inputs from a seed, runs its launch sequence on a [`Device`], and checks
/// the output against a CPU reference.
pub trait Workload: Sync {
    /// Static description.
    fn info(&self) -> WorkloadInfo;
    /// Runs the workload at `size` on `dev` (functional or timing, whichever `dev` is set up for)
    /// and checks the result.
    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError>;
    /// The input at `size` in words, e.g. "65536 nodes, avg degree 6" (for `warpforge list`).
    fn input(&self, _size: Size) -> String {
        String::new()
    }
}

pub mod cawa;
pub mod common;
pub mod ctrlc;
pub mod darsie;
pub mod micro;
pub mod profile;
pub mod rai;
pub mod redundancy;

/// Every registered workload, in `warpforge list` order: the CAWA / latency-characterisation set,
/// the Ctrl-C set, the DARSIE 2D extras (Table 7.1), document 004's Table 3 extras, then the
/// timing micro-benchmarks.
pub fn registry() -> Vec<&'static dyn Workload> {
    let mut v = cawa::workloads();
    v.extend(ctrlc::workloads());
    v.extend(darsie::workloads());
    v.extend(rai::workloads());
    v.extend(micro::workloads());
    v
}

/// The workload named `name`.
pub fn find(name: &str) -> Option<&'static dyn Workload> {
    registry().into_iter().find(|w| w.info().name == name)
}
