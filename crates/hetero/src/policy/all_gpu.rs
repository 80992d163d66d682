//! All-GPU priority (spec 004 §5.6, the mode the IM probe switches into, kept on permanently):
//! every GPU request, critical or not, above every CPU request; row hits first within a level.

use super::{best_by, Cand, Ctx, MemPolicy};
use crate::config::PolicyConfig;

struct AllGpu;

impl MemPolicy for AllGpu {
    fn pick(&mut self, _: &Ctx, c: &[Cand]) -> Option<usize> {
        best_by(c, |x| (!x.row_hit, !x.source.is_gpu(), x.arrival, x.tok))
    }
}

/// The policy.
pub fn new(_: &PolicyConfig) -> Box<dyn MemPolicy> {
    Box::new(AllGpu)
}
