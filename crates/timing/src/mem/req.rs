//! Memory requests and replies: small `Copy` messages moved through bounded queues (no
//! allocation per request).

/// What a message asks for or carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReqKind {
    /// Read `bytes` at `addr`.
    Read,
    /// Write `bytes` at `addr` (write-through data or a dirty-line write-back).
    Write,
    /// Atomic read-modify-write at the L2.
    Atomic,
    /// Reply to a read or an atomic, carrying `bytes` of data.
    Reply,
}

/// Flag in [`MemReq::id`] of a store that the L2 acknowledges; the low bits are the warp slot.
pub const ACK: u32 = 0x8000_0000;

/// Which SM-side unit a reply returns to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReqSrc {
    /// The L1 data cache.
    L1d,
    /// The constant cache.
    Const,
    /// The texture cache (`tex.enabled`).
    Tex,
    /// The instruction cache (a 1-line read per miss; `id` is unused).
    L1i,
}

/// A request or reply between an SM and an L2 slice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemReq {
    /// Start byte address (sector aligned); a request never crosses an L2 line.
    pub addr: u64,
    /// Data bytes requested or carried.
    pub bytes: u32,
    /// Kind.
    pub kind: ReqKind,
    /// Returning unit.
    pub src: ReqSrc,
    /// Sent on the bypass path: the reply does not fill the L1.
    pub bypass: bool,
    /// SM index.
    pub sm: u16,
    /// L2 slice index.
    pub slice: u16,
    /// Waiter at the SM: the load tracker of a bypassed read or an atomic, or [`ACK`] | warp slot
    /// for a store the L2 acknowledges (the reply is then an acknowledgement of 0 bytes).
    pub id: u32,
    /// Core cycle at which the SM sent the request into the interconnect (carried by its reply:
    /// memory-latency statistics).
    pub born: u64,
    /// Criticality bit of an L1D miss set by an installed [`crate::core::probe::SmProbe`]
    /// (document 004 §3); false otherwise.
    pub crit: bool,
    /// The PC plus one of the load or store whose L1D miss this is, set where an installed
    /// [`crate::core::probe::SmProbe`] marks the miss (document 004 §1.4: each static load/store
    /// is a shader access stream); 0 = none (no probe, or not an L1D miss). Carried to the
    /// [`crate::dram::DramReq`] the L2 sends for it (statistics of a memory port only; the
    /// timing model never reads it). See [`pc_tag`].
    pub miss_pc: u32,
}

/// The [`MemReq::miss_pc`] / [`crate::dram::DramReq::miss_pc`] tag of instruction address `pc`:
/// `pc + 1` (PCs beyond `u32::MAX - 1` share the last tag).
pub fn pc_tag(pc: u64) -> u32 {
    pc.min(u32::MAX as u64 - 1) as u32 + 1
}

/// The instruction address of a [`MemReq::miss_pc`] tag, `None` for 0.
pub fn tag_pc(tag: u32) -> Option<u64> {
    tag.checked_sub(1).map(u64::from)
}

impl MemReq {
    /// A store the SM waits to see acknowledged (tagged [`ACK`]).
    pub fn acked_store(&self) -> bool {
        self.kind == ReqKind::Write && self.id != u32::MAX && self.id & ACK != 0
    }

    /// Bytes on the wire: header plus data for writes and replies.
    pub fn wire_bytes(&self, header: u32) -> u32 {
        match self.kind {
            ReqKind::Read => header,
            ReqKind::Write | ReqKind::Reply => header + self.bytes,
            ReqKind::Atomic => header + self.bytes,
        }
    }
}
