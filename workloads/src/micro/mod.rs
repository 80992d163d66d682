//! Workloads of the micro set.

use crate::Workload;

/// The workloads of this set.
pub fn workloads() -> Vec<&'static dyn Workload> {
    vec![]
}
