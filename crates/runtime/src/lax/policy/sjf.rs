//! Shortest-Job First (SJF, §6.5.1): static priority by the predicted total job time at arrival
//! (offline per-kernel rates). Equal-size jobs fall back to oldest-first, i.e. FCFS.

use super::{predicted_total, Policy, View};

/// Shortest job first.
pub struct ShortestJobFirst;

impl Policy for ShortestJobFirst {
    fn name(&self) -> &'static str {
        "SJF"
    }
    fn key(&mut self, view: &View, job: usize) -> f64 {
        predicted_total(&view.jobs[job], view.prof)
    }
}
