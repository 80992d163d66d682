//! Longest-Job First (LJF, §6.5.1): static priority, longest predicted job first.

use super::{predicted_total, Policy, View};

/// Longest job first.
pub struct LongestJobFirst;

impl Policy for LongestJobFirst {
    fn name(&self) -> &'static str {
        "LJF"
    }
    fn key(&mut self, view: &View, job: usize) -> f64 {
        -predicted_total(&view.jobs[job], view.prof)
    }
}
