//! Round-Robin (RR), the deadline-blind baseline CP policy (§6.5.1).
//!
//! Every kernel gets the same key, so the dispatcher serves ready kernels in the order they became
//! ready: queues are visited cyclically, one whole kernel at a time (the dispatcher issues all WGs
//! of a kernel before switching, §4.1 of the digest).

use super::{Policy, View};

/// Round-Robin over compute queues.
pub struct RoundRobin;

impl Policy for RoundRobin {
    fn name(&self) -> &'static str {
        "RR"
    }
    fn key(&mut self, _view: &View, _job: usize) -> f64 {
        0.0
    }
}
