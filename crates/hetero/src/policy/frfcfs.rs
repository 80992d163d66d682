//! FR-FCFS (Rixner et al.; spec 004 §5.1 baseline): a ready column access to an open row first,
//! otherwise the oldest request. Sources and criticality are ignored.

use super::{best_by, Cand, Ctx, MemPolicy};
use crate::config::PolicyConfig;

struct FrFcfs;

impl MemPolicy for FrFcfs {
    fn pick(&mut self, _: &Ctx, c: &[Cand]) -> Option<usize> {
        best_by(c, Cand::frfcfs_key)
    }
}

/// The policy.
pub fn new(_: &PolicyConfig) -> Box<dyn MemPolicy> {
    Box::new(FrFcfs)
}
