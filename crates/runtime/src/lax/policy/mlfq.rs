//! Two-level multi-level feedback queue (MLFQ, §6.5.1).
//!
//! A job starts in the high level, is demoted once its runtime (time since arrival) exceeds 1/3 of
//! its deadline and promoted back once it exceeds 2/3 of it; RR within a level. Levels are
//! re-evaluated every 100 µs epoch.

use super::{Policy, View};
use crate::engine::Time;

/// Two-level MLFQ.
pub struct Mlfq;

impl Policy for Mlfq {
    fn name(&self) -> &'static str {
        "MLFQ"
    }
    fn key(&mut self, view: &View, job: usize) -> f64 {
        let j = &view.jobs[job];
        let run = view.now.saturating_sub(j.arrival);
        let demoted = run * 3 > j.deadline && run * 3 <= 2 * j.deadline;
        if demoted {
            1.0
        } else {
            0.0
        }
    }
    fn rekey_delay(&self) -> Option<Time> {
        Some(0)
    }
}
