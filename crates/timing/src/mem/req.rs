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
