//! Workloads of the ctrlc set.

use crate::Workload;

/// The workloads of this set.
pub fn workloads() -> Vec<&'static dyn Workload> {
    vec![]
}
