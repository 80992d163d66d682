//! The 20-core CPU PThreads baseline: tasks go to the earliest-free core (list scheduling); a
//! task's CPU time is its GPU warp time x warps/4 x `cpu_factor`. No copies.

use super::machine::{Recorder, RunStats};
use super::master::PagodaConfig;
use super::workload::TaskSet;
use crate::engine::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Runs `set` on the CPU pool.
pub fn run(c: &PagodaConfig, set: &TaskSet) -> RunStats {
    let mut cores: BinaryHeap<Reverse<Time>> = (0..c.cpu_cores).map(|_| Reverse(0)).collect();
    let mut rec = Recorder::default();
    for t in &set.tasks {
        let Reverse(free) = cores.pop().expect("cores");
        let dur = (t.compute_ns * t.warps() as f64 / 4.0 * c.cpu_factor) as Time;
        rec.task_done(0, free + dur);
        cores.push(Reverse(free + dur));
    }
    rec.stats(c.sms)
}
