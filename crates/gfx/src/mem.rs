//! The memory side seen by the GPU: one 64-byte access at a time into the shared LLC/DRAM.
//!
//! [`GpuMemory`] is the small interface the pipeline is written against; the CPU-GPU machine
//! implements it with its LLC, ring and DRAM schedulers. [`FixedLatency`] is a stand-alone
//! bandwidth- and latency-limited model for unit tests and stand-alone runs.

use std::collections::{HashSet, VecDeque};

use crate::stream::Stream;

/// Bytes per access (the 64-B block implied by BL8 DDR3, document 004 section 7.2).
pub const BLOCK: u64 = 64;

/// One GPU access sent from a GPU-internal cache miss (or write-back) to the LLC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// Token returned on completion (reads only).
    pub token: u64,
    /// Byte address (block aligned).
    pub addr: u64,
    /// A write (write-back or blitter store): no completion is reported.
    pub write: bool,
    /// The stream (and so the originating unit).
    pub stream: Stream,
    /// The criticality bit of section 2.6, carried to the DRAM scheduler.
    pub critical: bool,
    /// Diagnostic only (no policy reads it): the originating unit was flagged by Algorithm 1 at
    /// issue, whatever the frame-rate gate said, i.e. the classification of Figures 8-9, which
    /// the document reports for every title, the above-target ones included (claim 4).
    pub marked: bool,
}

/// The memory side of the GPU, advanced one GPU cycle (1 GHz) at a time.
pub trait GpuMemory {
    /// Offers one access. `false`: not accepted this cycle (back-pressure); offer it again later.
    fn issue(&mut self, a: Access) -> bool;
    /// Advances one GPU cycle and appends the tokens of the reads completed in it to `done`.
    fn tick(&mut self, done: &mut Vec<u64>);
    /// The GPU's progress report (for deadline-aware schedulers); called every 64 GPU cycles.
    fn report(&mut self, _status: &crate::pipeline::Status) {}
    /// Read `token` of `addr`, issued non-critical, is critical from now on (a critical access
    /// merged into it above the LLC, [`crate::pipeline::memif::MemIf`]'s `raise_pending`).
    fn upgrade(&mut self, _token: u64, _addr: u64) {}
}

/// Which accesses an "ideal" memory side serves as LLC hits (document 004 section 1.3: every
/// non-compulsory miss of the chosen accesses is charged the hit latency and not sent to DRAM).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ideal {
    /// Accesses with the critical bit.
    Critical,
    /// Accesses without it.
    NonCritical,
    /// Accesses of the streams whose bit is set (index = `Stream as usize`).
    Streams([bool; 8]),
    /// Accesses of the streams whose bit is set and whose critical bit equals the flag (one
    /// stream's critical or non-critical part: which part of a stream lies on the frame's
    /// critical path, issue 16 item 1).
    StreamsWith([bool; 8], bool),
}

impl Ideal {
    /// Whether access `a` is made ideal.
    pub fn covers(self, a: &Access) -> bool {
        match self {
            Ideal::Critical => a.critical,
            Ideal::NonCritical => !a.critical,
            Ideal::Streams(m) => m[a.stream as usize],
            Ideal::StreamsWith(m, c) => m[a.stream as usize] && a.critical == c,
        }
    }
}

/// A memory with a fixed latency and a bandwidth limit: `blocks_per_cycle` accesses (reads and
/// writes) leave the queue per GPU cycle, each read completing `latency` cycles after it leaves.
pub struct FixedLatency {
    latency: u64,
    rate: f64,
    credit: f64,
    capacity: usize,
    now: u64,
    queue: VecDeque<Access>,
    in_flight: VecDeque<(u64, u64)>,
    /// Accesses served so far, per stream (index = `Stream as usize`).
    pub served: [u64; 8],
    /// Of `served`, those with the critical bit.
    pub served_critical: [u64; 8],
    /// Accesses served as hits (see [`Ideal`]), bypassing the bandwidth limit.
    pub ideal: Option<Ideal>,
    /// Latency of an ideal access, GPU cycles.
    pub hit_latency: u64,
    touched: HashSet<u64>,
}

impl FixedLatency {
    /// A memory of `latency` GPU cycles and `blocks_per_cycle` accesses per cycle.
    pub fn new(latency: u64, blocks_per_cycle: f64) -> Self {
        Self {
            latency,
            rate: blocks_per_cycle,
            credit: 0.0,
            capacity: 256,
            now: 0,
            queue: VecDeque::new(),
            in_flight: VecDeque::new(),
            served: [0; 8],
            served_critical: [0; 8],
            ideal: None,
            hit_latency: 20,
            touched: HashSet::new(),
        }
    }
}

impl GpuMemory for FixedLatency {
    fn issue(&mut self, a: Access) -> bool {
        if let Some(ideal) = self.ideal {
            let first = self.touched.insert(a.addr);
            if !first && ideal.covers(&a) {
                if !a.write {
                    let t = self.now + self.hit_latency;
                    let at = self.in_flight.partition_point(|&(x, _)| x <= t);
                    self.in_flight.insert(at, (t, a.token));
                }
                return true;
            }
        }
        if self.queue.len() >= self.capacity {
            return false;
        }
        self.queue.push_back(a);
        true
    }

    fn tick(&mut self, done: &mut Vec<u64>) {
        self.now += 1;
        self.credit = (self.credit + self.rate).min(self.rate.max(1.0));
        while self.credit >= 1.0 {
            let Some(a) = self.queue.pop_front() else {
                break;
            };
            self.credit -= 1.0;
            self.served[a.stream as usize] += 1;
            if a.critical {
                self.served_critical[a.stream as usize] += 1;
            }
            if !a.write {
                let t = self.now + self.latency;
                let at = self.in_flight.partition_point(|&(x, _)| x <= t);
                self.in_flight.insert(at, (t, a.token));
            }
        }
        while let Some(&(t, tok)) = self.in_flight.front() {
            if t > self.now {
                break;
            }
            self.in_flight.pop_front();
            done.push(tok);
        }
    }
}
