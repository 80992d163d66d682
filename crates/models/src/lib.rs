//! Analytical models of Hong's thesis (document 002, digest `spec/002_hong_mwp_cwp_power.md`):
//! the MWP-CWP performance model (Chapter II), the empirical power, temperature and IPP models
//! (Chapter III and its Fermi extension), the OpenCL throughput model for GPUs and CPUs
//! (Chapter V) and the energy-efficiency analysis of heterogeneous execution (Appendix A), with
//! device parameter sets as data and an instruction analyser that derives the model inputs from a
//! functional run.
//!
//! Every erratum of the digest's §6.3 is a named option in [`options`] or a documented decision
//! in the module that implements the equation; `docs/MODELS.md` lists them all.
#![deny(missing_docs)]

pub mod activity;
pub mod analyser;
pub mod cache_est;
pub mod hetero;
pub mod heteropdp;
pub mod ipp;
pub mod mwp_cwp;
pub mod occupancy;
pub mod options;
pub mod params;
pub mod power;
pub mod predict;
pub mod thermal;
pub mod throughput;

/// Errors of the models crate.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// A parameter file failed to parse or validate.
    #[error("parameter file {file}: {message}")]
    Params {
        /// File name.
        file: String,
        /// What is wrong, naming the key.
        message: String,
    },
    /// `--gpu NAME` names no built-in parameter set.
    #[error("unknown device `{name}` (available: {available})")]
    UnknownDevice {
        /// The requested name.
        name: String,
        /// Comma-separated built-in names.
        available: String,
    },
    /// The kernel cannot run on the device (a block does not fit on an SM, empty grid).
    #[error("kernel `{kernel}` cannot be placed on {device}: {reason}")]
    Placement {
        /// Kernel name.
        kernel: String,
        /// Device name.
        device: String,
        /// Why.
        reason: String,
    },
}
