//! The memory side's request API (spec 004 §10.1 items 1-4): what a requester (a CPU core, the
//! GPGPU, or a unit of the 3D pipeline) sends to the shared LLC, and what comes back.

/// Who sent a request. Policies classify by this and by [`Request::critical`] only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Source {
    /// CPU core `i` (also the index of its application in a mix).
    Cpu(u8),
    /// The GPGPU (shader cores of the GPU timing model).
    Gpgpu,
    /// A 3D-pipeline unit, by the pipeline's own unit id (e.g. FE, ZS k, SH k, CW k, BT).
    Gfx(u16),
}

impl Source {
    /// Whether the request comes from the GPU (GPGPU or 3D pipeline).
    pub fn is_gpu(self) -> bool {
        !matches!(self, Source::Cpu(_))
    }

    /// The CPU core index, if a CPU request.
    pub fn cpu(self) -> Option<usize> {
        match self {
            Source::Cpu(i) => Some(i as usize),
            _ => None,
        }
    }
}

/// A request to the shared memory side: one 64 B block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    /// Caller's id, returned in the [`Completion`]; any value (need not be unique across
    /// sources, the pair (source, id) is what the caller matches).
    pub id: u64,
    /// Byte address; the block is `addr / 64`.
    pub addr: u64,
    /// A write (a write-back of a dirty block, or a GPU store); reads are block fills.
    pub write: bool,
    /// Requester.
    pub source: Source,
    /// The criticality bit of spec 004 §2.6 / §3 (GPU requests; ignored for CPU requests).
    pub critical: bool,
    /// Free-form stream tag of the requester (e.g. the 3D stream C/T/Z/B/O); statistics only.
    pub stream: u8,
    /// Do not allocate in the LLC on a miss (spec 004 §3 non-critical GPGPU fills; writes go
    /// straight to DRAM on a miss). A policy may add bypasses of its own (HeLM).
    pub bypass: bool,
    /// "Ideal" mode of spec 004 §1.3: a non-compulsory LLC miss is charged the hit latency and
    /// not sent to DRAM; the LLC still fills and replaces as usual.
    pub ideal: bool,
}

impl Request {
    /// A plain read of `addr` by `source`.
    pub fn read(id: u64, addr: u64, source: Source) -> Self {
        Self {
            id,
            addr,
            write: false,
            source,
            critical: false,
            stream: 0,
            bypass: false,
            ideal: false,
        }
    }

    /// A plain write (write-back) of `addr` by `source`.
    pub fn write(id: u64, addr: u64, source: Source) -> Self {
        Self {
            write: true,
            ..Self::read(id, addr, source)
        }
    }
}

/// A finished request, returned by [`crate::MemSystem::drain_completions`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    /// The request's id.
    pub id: u64,
    /// The request's source.
    pub source: Source,
    /// Its address.
    pub addr: u64,
    /// Write acknowledgement (writes complete when the LLC or the write queue took them).
    pub write: bool,
    /// Memory-side cycle (CPU clock) at which the data reached the requester's ring stop.
    pub cycle: u64,
    /// Served by the LLC (or ideal).
    pub llc_hit: bool,
}
