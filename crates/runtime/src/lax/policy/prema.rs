//! PREMA (Choi & Rhu, HPCA 2020), as far as document 003 and its digest describe it (§6.5.1).
//!
//! Every epoch each waiting job earns tokens = priority (all jobs 1) x normalised slowdown
//! (time since arrival / predicted isolated job time). Jobs whose tokens reach the mean of the
//! active jobs are candidates; candidates run shortest-estimated-remaining first, ahead of all
//! others (which follow by tokens). Preemption is by draining: resident WGs finish, the preempted
//! job gets no new WGs. Tokens are kept per job in the policy.

use super::{predicted_total, Policy, View};
use crate::engine::Time;
use crate::lax::tables::remaining_time;

/// Token-based predictive multi-task scheduling.
#[derive(Default)]
pub struct Prema {
    tokens: Vec<f64>,
    threshold: f64,
}

impl Policy for Prema {
    fn name(&self) -> &'static str {
        "PREMA"
    }
    fn on_epoch(&mut self, view: &View) {
        self.tokens.resize(view.jobs.len(), 0.0);
        let (mut sum, mut n) = (0.0, 0usize);
        for (i, j) in view.jobs.iter().enumerate() {
            if j.active() {
                let iso = predicted_total(j, view.prof).max(1.0);
                self.tokens[i] += view.now.saturating_sub(j.arrival) as f64 / iso;
                sum += self.tokens[i];
                n += 1;
            }
        }
        self.threshold = if n > 0 { sum / n as f64 } else { 0.0 };
    }
    fn key(&mut self, view: &View, job: usize) -> f64 {
        self.tokens.resize(view.jobs.len(), 0.0);
        let t = self.tokens[job];
        if t >= self.threshold {
            remaining_time(&view.jobs[job], &view.prof.rate) // candidates: >= 0
        } else {
            1e18 - t // everyone else, most tokens first
        }
    }
    fn rekey_delay(&self) -> Option<Time> {
        Some(0)
    }
}
