//! First come, first served: the oldest queued request is the only one served.

use super::{DramReq, DramScheduler};

/// FCFS.
#[derive(Default)]
pub struct Fcfs;

impl DramScheduler for Fcfs {
    fn pick(&mut self, q: &[DramReq], bank: u32, _: Option<u32>) -> Option<usize> {
        (q.first()?.bank == bank).then_some(0)
    }
}
