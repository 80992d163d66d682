//! GPGPU-Sim's L1D bank rule (`ldst_unit::process_memory_access_queue_l1cache` with
//! `-gpgpu_l1_banks`): a transaction goes to the bank of its first sector, and the first
//! transaction whose bank is already taken this cycle ends the cycle (`BK_CONF`).

use super::{BankArbiter, Banks};
use crate::mem::coalesce::Txn;

/// The arbiter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FirstSector;

impl BankArbiter for FirstSector {
    fn banks(&self, t: &Txn, g: &Banks) -> u64 {
        let first = t.sectors.trailing_zeros() as u64;
        1u64 << g.of(t.line_addr + first * g.sector_bytes)
    }

    fn in_order(&self) -> bool {
        true
    }
}
