//! Sector banks: a transaction occupies the bank of every byte it moves, its sectors', so that
//! with `banks x bank_bytes` equal to the L1D's data width (H100: 128 bytes per cycle, 4 x 32)
//! the L1D reads at most that many bytes per cycle: a whole 128-byte line takes the whole data
//! path, and transactions touching different 32-byte positions of their lines share a cycle. A
//! transaction whose banks are taken waits for the next cycle and later transactions of the
//! same instruction may go ahead of it (the data stage of NVIDIA's L1TEX processes a request's
//! sectors in wavefronts of non-conflicting sectors, not in lane order).

use super::{BankArbiter, Banks};
use crate::mem::coalesce::Txn;

/// The arbiter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sectors;

impl BankArbiter for Sectors {
    fn banks(&self, t: &Txn, g: &Banks) -> u64 {
        let mut m = 0u64;
        let mut s = t.sectors;
        while s != 0 {
            let i = s.trailing_zeros() as u64;
            s &= s - 1;
            let a = t.line_addr + i * g.sector_bytes;
            let (lo, hi) = (a / g.bank_bytes, (a + g.sector_bytes - 1) / g.bank_bytes);
            for b in lo..=hi.min(lo + g.banks as u64 - 1) {
                m |= 1u64 << (b % g.banks as u64);
            }
        }
        m
    }

    fn in_order(&self) -> bool {
        false
    }
}
