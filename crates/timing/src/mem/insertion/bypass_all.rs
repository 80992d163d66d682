//! Bypass every read miss: the cache keeps serving hits it already holds but never allocates,
//! and stores are sent on without a lookup (GPGPU-Sim `-gpgpu_gmem_skip_L1D`, the "L1D disabled"
//! point of spec 000 §9 claim 17).

use super::{Insertion, MissInfo};

/// Always bypasses.
#[derive(Default)]
pub struct BypassAll;

impl Insertion for BypassAll {
    fn bypass(&mut self, _: &MissInfo) -> bool {
        true
    }
    fn skips_stores(&self) -> bool {
        true
    }
}
