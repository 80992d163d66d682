//! Shortest Remaining time First (SRF, §6.5.1): dynamic priority from LAX's remaining-time
//! estimator (live WG completion rates), refreshed every epoch. No laxity, no admission.

use super::{Policy, View};
use crate::engine::Time;
use crate::lax::tables::remaining_time;

/// Shortest remaining time first.
pub struct ShortestRemainingFirst;

impl Policy for ShortestRemainingFirst {
    fn name(&self) -> &'static str {
        "SRF"
    }
    fn key(&mut self, view: &View, job: usize) -> f64 {
        remaining_time(&view.jobs[job], &view.prof.rate)
    }
    fn rekey_delay(&self) -> Option<Time> {
        Some(0)
    }
}
