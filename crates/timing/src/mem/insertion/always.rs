//! Allocate every read miss (the baseline).

use super::{Insertion, MissInfo};

/// Never bypasses.
#[derive(Default)]
pub struct Always;

impl Insertion for Always {
    fn bypass(&mut self, _: &MissInfo) -> bool {
        false
    }
}
