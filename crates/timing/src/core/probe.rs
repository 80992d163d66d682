//! Per-SM observation hook for criticality estimators outside this crate (document 004 §3: the
//! GPGPU access-criticality algorithm of `crates/hetero`). An installed [`SmProbe`] sees each
//! SM cycle's dispatch and commit activity and the stalls caused by loads that missed the L1D,
//! and sets the criticality bit ([`crate::mem::req::MemReq::crit`], carried to
//! [`crate::dram::DramReq::crit`]) of every L1D miss. Without a probe nothing changes.

/// What one SM did in one core cycle.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SmCycle {
    /// No warp was dispatched although some warp waited only on a pending source operand
    /// (a scheduler's closest reason was a data hazard or a pending load).
    pub operand_stall: bool,
    /// No warp was dispatched although some live warp waited on a pending source operand (a
    /// data hazard or a pending load), whatever the schedulers' closest reasons: unlike
    /// [`SmCycle::operand_stall`], a cycle in which another warp was also held by a structural
    /// hazard (a full LD/ST unit or MSHRs) counts.
    pub operand_wait_any: bool,
    /// No warp was dispatched although some live warp waited on a pending source operand of an
    /// instruction whose unit (SP, SFU or LD/ST pipeline of its sub-core) had room this cycle:
    /// the operand alone held it. Unlike [`SmCycle::operand_wait_any`], a warp waiting on an
    /// operand for a unit that is busy anyway (e.g. the one SP pipeline of a 16-lane core in
    /// the second cycle of a warp instruction) does not count.
    pub operand_wait_unit_free: bool,
    /// Instructions that wrote back (committed) this cycle.
    pub committed: u32,
    /// Warp instructions dispatched this cycle.
    pub issued: u32,
    /// Warps ready to issue (all schedulers).
    pub ready_warps: u32,
    /// Live warps on the SM.
    pub live_warps: u32,
}

/// An observer of one SM; methods are called from the SM's (possibly parallel) cycle.
pub trait SmProbe: Send {
    /// End of an SM cycle.
    fn cycle(&mut self, c: &SmCycle);
    /// A warp's next instruction stalled this cycle on a register whose producer is the load at
    /// `pc` that missed in the L1D.
    fn stall_on_miss(&mut self, pc: u64);
    /// A load (or store) at `pc` missed in the L1D and goes to the memory side: its criticality
    /// bit.
    fn mark_miss(&mut self, pc: u64, store: bool) -> bool;
}
