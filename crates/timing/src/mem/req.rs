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

/// Which SM-side unit a reply returns to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReqSrc {
    /// The L1 data cache.
    L1d,
    /// The constant cache.
    Const,
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
    /// Waiter at the SM (load tracker) for bypassed reads and atomics.
    pub id: u32,
}

impl MemReq {
    /// Bytes on the wire: header plus data for writes and replies.
    pub fn wire_bytes(&self, header: u32) -> u32 {
        match self.kind {
            ReqKind::Read => header,
            ReqKind::Write | ReqKind::Reply => header + self.bytes,
            ReqKind::Atomic => header + self.bytes,
        }
    }
}
