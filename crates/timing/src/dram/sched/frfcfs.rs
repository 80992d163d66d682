//! First-ready FCFS (Rixner et al.; GPGPU-Sim `-gpgpu_dram_scheduler 1`): per bank, the oldest
//! request that hits the open row, otherwise the bank's oldest request.

use super::{DramReq, DramScheduler};

/// FR-FCFS.
#[derive(Default)]
pub struct FrFcfs;

impl DramScheduler for FrFcfs {
    fn pick(&mut self, q: &[DramReq], bank: u32, open: Option<u32>) -> Option<usize> {
        let mut first = None;
        for (i, r) in q.iter().enumerate() {
            if r.bank != bank {
                continue;
            }
            if Some(r.row) == open {
                return Some(i);
            }
            if first.is_none() {
                first = Some(i);
            }
        }
        first
    }
    fn bank_local(&self) -> bool {
        true
    }
    /// The new request (last in `q`) is the answer only when the bank had none, or when it hits
    /// the open row and the old answer did not (a kept row hit is older than it).
    fn pick_after_push(
        &self,
        q: &[DramReq],
        _bank: u32,
        open: Option<u32>,
        old: Option<usize>,
    ) -> Option<Option<usize>> {
        let new = q.len().checked_sub(1)?;
        Some(Some(match old {
            None => new,
            Some(i) if Some(q[i].row) != open && Some(q[new].row) == open => new,
            Some(i) => i,
        }))
    }
    /// The pick stays: after an activate its row is open (it was the bank's oldest request,
    /// there being no row hit), after a precharge no row is (it was the oldest), and a column
    /// access changes no row.
    fn pick_after_command(&self, old: usize) -> Option<Option<usize>> {
        Some(Some(old))
    }
}
