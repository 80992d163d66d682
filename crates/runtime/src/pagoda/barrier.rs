//! Named-barrier recycling (§5.3.2; digest §3.9).
//!
//! PTX offers 16 named barriers per threadblock (`bar.sync id, nthreads`). Pagoda gives every
//! threadblock of a task with the `sync` flag its own barrier ID at schedule time and recycles the
//! ID when the threadblock finishes. Decision: ID 0 stays reserved for the MasterKernel's own
//! `__syncthreads`, so 15 IDs are available to tasks; when none is free the scheduler warp waits.

/// Barrier IDs per MTB in PTX.
pub const NAMED_BARRIERS: u8 = 16;

/// The free list of one MTB's barrier IDs.
#[derive(Debug, Clone)]
pub struct BarrierPool {
    free: u16, // bit i set = id i free
}

impl Default for BarrierPool {
    fn default() -> Self {
        Self { free: 0xFFFE } // id 0 reserved
    }
}

impl BarrierPool {
    /// All task barrier IDs free.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes the lowest free ID.
    pub fn acquire(&mut self) -> Option<u8> {
        if self.free == 0 {
            return None;
        }
        let id = self.free.trailing_zeros() as u8;
        self.free &= !(1 << id);
        Some(id)
    }

    /// Returns an ID. Releasing an ID that is already free is an internal error.
    pub fn release(&mut self, id: u8) {
        debug_assert!(id != 0 && id < NAMED_BARRIERS && self.free & (1 << id) == 0);
        self.free |= 1 << id;
    }

    /// IDs currently free.
    pub fn available(&self) -> u32 {
        self.free.count_ones()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifteen_ids_then_recycling() {
        let mut p = BarrierPool::new();
        let ids: Vec<u8> = (0..15).map(|_| p.acquire().unwrap()).collect();
        assert_eq!(ids, (1..16).collect::<Vec<u8>>());
        assert!(p.acquire().is_none());
        p.release(7);
        assert_eq!(p.acquire(), Some(7));
    }
}
