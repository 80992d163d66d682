//! BatchMaker (BAT, §6.5.1): CPU-side cellular batching, deadline-blind.
//!
//! The host launches kernels (4 µs per launch). Jobs waiting for the same kernel (cell) within one
//! 4 µs launch window are fused into one batched launch that completes only when all its WGs have
//! (lock-step); batches are served round-robin.

use super::{HostCosts, Policy, View};

/// Dynamic cellular batching.
pub struct BatchMaker;

impl Policy for BatchMaker {
    fn name(&self) -> &'static str {
        "BAT"
    }
    fn host(&self) -> HostCosts {
        HostCosts {
            batching: true,
            ..HostCosts::host_launched(0)
        }
    }
    fn key(&mut self, _view: &View, _job: usize) -> f64 {
        0.0
    }
}
