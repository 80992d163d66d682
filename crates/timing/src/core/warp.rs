//! Per-warp state: the instruction buffer, fetch blocks, barrier state and the scoreboard.

use crate::stats::LatencyStats;
use warpforge_core::DynInst;

/// Registers tracked exactly by the scoreboard; higher numbers alias modulo this (a conservative
/// false dependency, never a missed one).
pub const SB_REGS: usize = 512;

/// Pending-write scoreboard as a bitset (spec 000 §1.1: RAW and WAW hazards stall the warp).
#[derive(Debug, Clone, Copy, Default)]
pub struct Scoreboard([u64; SB_REGS / 64]);

impl Scoreboard {
    #[inline]
    fn bit(r: u16) -> (usize, u64) {
        let r = r as usize % SB_REGS;
        (r / 64, 1u64 << (r % 64))
    }
    /// Marks `r` as awaiting a write.
    #[inline]
    pub fn reserve(&mut self, r: u16) {
        let (i, b) = Self::bit(r);
        self.0[i] |= b;
    }
    /// `r` was written.
    #[inline]
    pub fn release(&mut self, r: u16) {
        let (i, b) = Self::bit(r);
        self.0[i] &= !b;
    }
    /// Whether `r` awaits a write.
    #[inline]
    pub fn pending(&self, r: u16) -> bool {
        let (i, b) = Self::bit(r);
        self.0[i] & b != 0
    }
    /// Whether `inst` reads or writes a register awaiting a write (RAW or WAW); returns the first.
    #[inline]
    pub fn hazard(&self, inst: &DynInst) -> Option<u16> {
        // The arrays are indexed here rather than through `DynInst::srcs`, which is not
        // inlined across crates (this check runs for every waiting warp every cycle).
        inst.src[..inst.n_src as usize]
            .iter()
            .chain(&inst.dst[..inst.n_dst as usize])
            .copied()
            .find(|&r| self.pending(r))
    }
    /// The first register `inst` reads or writes that is pending here and in `other` (e.g. the
    /// registers whose pending producer is a load that missed in the L1D).
    #[inline]
    pub fn hazard_in(&self, other: &Scoreboard, inst: &DynInst) -> Option<u16> {
        inst.src[..inst.n_src as usize]
            .iter()
            .chain(&inst.dst[..inst.n_dst as usize])
            .copied()
            .find(|&r| self.pending(r) && other.pending(r))
    }
    /// Whether nothing is pending.
    pub fn is_clear(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }
}

/// Capacity of the instruction buffer array (config `core.ibuffer_entries` is at most this).
pub const MAX_IBUF: usize = 8;

/// One warp slot of an SM.
#[derive(Clone)]
pub struct Warp {
    /// Holds a live warp.
    pub live: bool,
    /// CTA slot on the SM.
    pub cta_slot: u8,
    /// Linear CTA id in the grid.
    pub cta: u32,
    /// Warp index within its CTA.
    pub warp_in_cta: u32,
    /// Dispatch order (for GTO's "oldest").
    pub age: u64,
    /// Decoded instructions.
    pub ibuf: [DynInst; MAX_IBUF],
    /// Core cycle from which each entry may issue.
    pub ready_at: [u64; MAX_IBUF],
    /// Index of the oldest entry.
    pub head: u8,
    /// Entries held.
    pub len: u8,
    /// No more instructions will be fetched (exit fetched or the source said done).
    pub fetch_done: bool,
    /// A barrier was fetched; fetching resumes when it releases.
    pub fetch_barrier: bool,
    /// A branch was fetched; fetching resumes when it executes.
    pub branch_pending: bool,
    /// Issued a barrier and waits for its CTA.
    pub at_barrier: bool,
    /// Issued instructions not yet written back.
    pub inflight: u32,
    /// Loads in flight (for long-latency classification).
    pub pending_loads: u32,
    /// Pending register writes.
    pub sb: Scoreboard,
    /// Latency attribution (Algorithm 2, exact `Data$`): the pending registers whose producer is
    /// a load that missed in the L1D (a subset of `sb`; set when the miss happens, cleared when
    /// the load writes back).
    pub missed: Scoreboard,
    /// With an [`crate::core::probe::SmProbe`] installed: (register, PC of the L1D-missing load
    /// that will write it), for the registers of `missed`.
    pub miss_pcs: Vec<(u16, u64)>,
    /// PC of the last fetched instruction (diagnostics).
    pub last_pc: u64,
    /// L1I line of this warp's last fetch that hit (`u64::MAX`: none), its way, and the SM's
    /// L1I change count when it hit: while the count is unchanged the line is still in that
    /// way, so the next fetch from the line needs no tag lookup (one probe per line).
    pub iline: u64,
    /// Way of [`Warp::iline`].
    pub iway: u32,
    /// The SM's L1I change count when [`Warp::iline`] hit.
    pub igen: u64,
    /// L1I line (code address / line size) whose fill the newest I-buffer entry waits for.
    pub imiss: Option<u64>,
    /// The line of the newest I-buffer entry has arrived; the fetch unit must re-access the L1I
    /// for this warp (one warp per fetch slot, as GPGPU-Sim re-fetches after a fill).
    pub refetch: bool,
    /// Latency attribution: core cycle the warp was dispatched.
    pub born: u64,
    /// Latency attribution: core cycle of the last probe (dispatch cycle − 1 before the first).
    pub probed: u64,
    /// Latency attribution: the pending load last charged (loads issued so far << 16 | hazard
    /// register + 1; 0 = none).
    pub pending_dep: u64,
    /// Loads issued (identifies the load a stalled warp waits for, with the hazard register).
    pub loads_issued: u32,
    /// Latency attribution of this warp so far (added to the SM's at retirement).
    pub lat: LatencyStats,
}

impl Default for Warp {
    fn default() -> Self {
        Self {
            live: false,
            cta_slot: 0,
            cta: 0,
            warp_in_cta: 0,
            age: 0,
            ibuf: [DynInst::default(); MAX_IBUF],
            ready_at: [0; MAX_IBUF],
            head: 0,
            len: 0,
            fetch_done: false,
            fetch_barrier: false,
            branch_pending: false,
            at_barrier: false,
            inflight: 0,
            pending_loads: 0,
            sb: Scoreboard::default(),
            missed: Scoreboard::default(),
            miss_pcs: Vec::new(),
            last_pc: 0,
            iline: u64::MAX,
            iway: 0,
            igen: 0,
            imiss: None,
            refetch: false,
            born: 0,
            probed: 0,
            pending_dep: 0,
            loads_issued: 0,
            lat: LatencyStats::default(),
        }
    }
}

impl Warp {
    /// Whether every instruction has issued and no more will come.
    pub fn exited(&self) -> bool {
        self.fetch_done && self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scoreboard_detects_raw_and_waw() {
        let mut sb = Scoreboard::default();
        sb.reserve(5);
        let mut i = DynInst {
            n_src: 2,
            src: [1, 5, 0, 0, 0, 0],
            ..Default::default()
        };
        assert_eq!(sb.hazard(&i), Some(5));
        i.src[1] = 2;
        assert_eq!(sb.hazard(&i), None);
        i.n_dst = 1;
        i.dst[0] = 5;
        assert_eq!(sb.hazard(&i), Some(5), "WAW");
        sb.release(5);
        assert!(sb.is_clear());
        sb.reserve(600);
        assert!(
            sb.pending(600) && sb.pending(600 - SB_REGS as u16),
            "aliases conservatively"
        );
    }
}
