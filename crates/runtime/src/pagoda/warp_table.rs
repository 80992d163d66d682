//! The per-MTB WarpTable (Table 5.2) and the parallel warp placement `pSched` (Algorithm 2).
//!
//! 31 slots, one per executor warp. `pSched` places the warps of one threadblock (or of a whole
//! task without shared memory or sync) into free slots; warps that find no free slot stay pending
//! and the scheduler warp keeps placing them as executor warps free up (the digest's "tasks with
//! more warps than free slots run in waves"). The loop bound is the 31 executor slots (the printed
//! `numEntriesPerPool` bound is a documented error).

/// Executor warps per MTB (warp 0 is the scheduler).
pub const EXECUTOR_WARPS: usize = 31;

/// One WarpTable slot (Table 5.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WarpEntry {
    /// Warp index within the task (drives `getTid`).
    pub warp_id: u32,
    /// TaskTable entry being executed.
    pub e_num: i32,
    /// Shared-memory block offset of the warp's threadblock.
    pub sm_index: u32,
    /// Named barrier of the warp's threadblock (valid when the task needs sync).
    pub bar_id: u8,
    /// Set when the warp may start; cleared when it is free.
    pub exec: bool,
}

/// One MTB's WarpTable.
#[derive(Debug, Clone)]
pub struct WarpTable {
    slots: [WarpEntry; EXECUTOR_WARPS],
}

impl Default for WarpTable {
    fn default() -> Self {
        Self {
            slots: [WarpEntry::default(); EXECUTOR_WARPS],
        }
    }
}

impl WarpTable {
    /// All executor warps free.
    pub fn new() -> Self {
        Self::default()
    }

    /// Free executor warps.
    pub fn free(&self) -> usize {
        self.slots.iter().filter(|s| !s.exec).count()
    }

    /// `pSched`: places up to `count` warps with IDs `base + count - 1` down to `base` (the
    /// `atomicDec` order); returns the slots used. Fewer than `count` means the rest must wait.
    pub fn psched(
        &mut self,
        base: u32,
        count: u32,
        e_num: i32,
        sm_index: u32,
        bar_id: u8,
    ) -> Vec<usize> {
        let mut left = count;
        let mut used = Vec::new();
        for (i, s) in self.slots.iter_mut().enumerate() {
            if left == 0 {
                break;
            }
            if !s.exec {
                left -= 1;
                *s = WarpEntry {
                    warp_id: base + left,
                    e_num,
                    sm_index,
                    bar_id,
                    exec: true,
                };
                used.push(i);
            }
        }
        used
    }

    /// The executor warp in `slot` finished: clears `exec`.
    pub fn release(&mut self, slot: usize) -> WarpEntry {
        let e = self.slots[slot];
        debug_assert!(e.exec);
        self.slots[slot].exec = false;
        e
    }

    /// The slot's entry.
    pub fn get(&self, slot: usize) -> &WarpEntry {
        &self.slots[slot]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn psched_places_in_free_slots_and_waves() {
        let mut w = WarpTable::new();
        let a = w.psched(0, 20, 5, 0, 0);
        assert_eq!(a.len(), 20);
        let b = w.psched(0, 20, 6, 512, 3);
        assert_eq!(b.len(), 11); // only 11 executor warps left: the rest waits
        assert_eq!(w.free(), 0);
        let ids: Vec<u32> = a.iter().map(|&s| w.get(s).warp_id).collect();
        assert_eq!(ids.iter().copied().min(), Some(0));
        assert_eq!(ids.iter().copied().max(), Some(19));
        w.release(a[0]);
        assert_eq!(w.free(), 1);
    }
}
