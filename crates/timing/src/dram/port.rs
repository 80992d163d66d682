//! An external memory behind the L2 slices, replacing the GPU's own DRAM channels: the hook a
//! heterogeneous processor uses to send the GPU's L2 misses to a shared LLC and DRAM (document
//! 004, `crates/hetero`). Installed with [`crate::Gpu::set_memory_port`]; without one the GPU
//! uses its channels and nothing changes.

use super::DramReq;

/// A memory the L2 slices talk to instead of the GPU's DRAM channels. Cycles are the GPU's DRAM
/// clock-domain cycles (`clocks.dram_mhz`).
pub trait MemoryPort: Send {
    /// One DRAM-domain cycle `now` (called before the L2 domain exchanges requests).
    fn cycle(&mut self, now: u64);
    /// Whether channel `channel` (the L2 slice's channel) takes a read or write now.
    fn can_accept(&self, channel: usize, write: bool) -> bool;
    /// A request from L2 slice `r.slice` (caller checked `can_accept`).
    fn push(&mut self, channel: usize, r: DramReq);
    /// Removes and returns a completed read (or acknowledged write, see [`DramReq::ack`])
    /// available at DRAM-domain cycle `now`.
    fn pop_return(&mut self, now: u64) -> Option<DramReq>;
    /// A critical read merged, in L2 slice `r.slice`'s MSHR, into the pending fetch of the
    /// `bytes` at byte address `addr` (channel `channel`), which may already have been pushed
    /// non-critical: the port should raise the criticality of its reads of those bytes
    /// (document 004 §3). Default: nothing.
    fn upgrade_crit(&mut self, _channel: usize, _addr: u64, _bytes: u32) {}
    /// Whether GPU requests are in flight.
    fn busy(&self) -> bool;
    /// The port as `Any` (to recover the concrete port after a run).
    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any>;
}
