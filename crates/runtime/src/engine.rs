//! Deterministic discrete-event engine shared by the LAX and Pagoda simulations.
//!
//! Time is an integer number of **nanoseconds** ([`Time`]). Events with equal time fire in the
//! order they were scheduled (a sequence number breaks ties), so a run is a pure function of its
//! inputs and its seed. Randomness comes only from [`SimRng`], a seeded ChaCha8 generator.
//!
//! [`PsServer`] is the contention primitive both simulations use: a processor-sharing server whose
//! residents all progress at rate `1 / slowdown`, where the slowdown is recomputed from the set of
//! residents whenever one enters or leaves. It tracks *virtual time* (work done by any one
//! resident), so an arrival or departure costs `O(log n)` instead of touching every resident.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Simulated time in nanoseconds.
pub type Time = u64;

/// One microsecond in [`Time`] units.
pub const US: Time = 1_000;
/// One millisecond in [`Time`] units.
pub const MS: Time = 1_000_000;

/// A time-ordered queue of events of type `E`; ties fire in scheduling order.
#[derive(Debug)]
pub struct EventQueue<E> {
    heap: BinaryHeap<Reverse<(Time, u64, usize)>>,
    slots: Vec<Option<E>>,
    free: Vec<usize>,
    seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self {
            heap: BinaryHeap::new(),
            slots: Vec::new(),
            free: Vec::new(),
            seq: 0,
        }
    }
}

impl<E> EventQueue<E> {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Schedules `ev` at absolute time `at` (ns).
    pub fn push(&mut self, at: Time, ev: E) {
        let slot = match self.free.pop() {
            Some(s) => {
                self.slots[s] = Some(ev);
                s
            }
            None => {
                self.slots.push(Some(ev));
                self.slots.len() - 1
            }
        };
        self.heap.push(Reverse((at, self.seq, slot)));
        self.seq += 1;
    }

    /// Time of the earliest pending event.
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|Reverse((t, _, _))| *t)
    }

    /// Removes and returns the earliest event with its time.
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let Reverse((t, _, slot)) = self.heap.pop()?;
        let ev = self.slots[slot].take().expect("event slot filled");
        self.free.push(slot);
        Some((t, ev))
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// True when no event is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

/// The seeded random source of a simulation (ChaCha8: portable and reproducible).
#[derive(Debug, Clone)]
pub struct SimRng(ChaCha8Rng);

impl SimRng {
    /// A generator from a 64-bit seed.
    pub fn new(seed: u64) -> Self {
        Self(ChaCha8Rng::seed_from_u64(seed))
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        self.0.gen::<f64>()
    }

    /// Uniform integer in `[lo, hi]`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        self.0.gen_range(lo..=hi)
    }

    /// Exponentially distributed interval with the given mean (ns), for Poisson arrivals.
    pub fn exp(&mut self, mean_ns: f64) -> f64 {
        let u = 1.0 - self.unit(); // (0, 1]
        -mean_ns * u.ln()
    }
}

/// A processor-sharing server: every resident progresses at `1 / slowdown` of its isolated speed.
///
/// Each resident carries a `demand` (any unit: bytes/ns of bandwidth for LAX, warps for Pagoda);
/// `slowdown = max(1, total_demand / capacity)`. A resident that needs `work` ns in isolation
/// finishes when the server's virtual clock has advanced by `work` since it entered.
#[derive(Debug, Clone)]
pub struct PsServer {
    capacity: f64,
    demand: f64,
    vnow: f64,
    last: Time,
    heap: BinaryHeap<Reverse<(OrdF64, u64, usize)>>,
    seq: u64,
    residents: usize,
}

/// Total order on finite `f64` for heap keys.
#[derive(Debug, Clone, Copy, PartialEq)]
struct OrdF64(f64);
impl Eq for OrdF64 {}
impl PartialOrd for OrdF64 {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for OrdF64 {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&o.0)
    }
}

impl PsServer {
    /// A server with the given capacity (same unit as the residents' demand).
    pub fn new(capacity: f64) -> Self {
        Self {
            capacity,
            demand: 0.0,
            vnow: 0.0,
            last: 0,
            heap: BinaryHeap::new(),
            seq: 0,
            residents: 0,
        }
    }

    /// Current slowdown factor (>= 1).
    pub fn slowdown(&self) -> f64 {
        (self.demand / self.capacity).max(1.0)
    }

    /// Number of residents.
    pub fn residents(&self) -> usize {
        self.residents
    }

    fn advance(&mut self, now: Time) {
        debug_assert!(now >= self.last);
        self.vnow += (now - self.last) as f64 / self.slowdown();
        self.last = now;
    }

    /// Adds resident `id` needing `work_ns` of isolated time and drawing `demand`.
    pub fn enter(&mut self, now: Time, id: usize, work_ns: f64, demand: f64) {
        self.advance(now);
        self.demand += demand;
        self.residents += 1;
        self.heap
            .push(Reverse((OrdF64(self.vnow + work_ns), self.seq, id)));
        self.seq += 1;
    }

    /// Real time at which the next resident finishes, if any.
    pub fn next_finish(&self) -> Option<Time> {
        let Reverse((OrdF64(v), _, _)) = self.heap.peek()?;
        let dv = (v - self.vnow).max(0.0);
        Some(self.last + (dv * self.slowdown()).ceil() as Time)
    }

    /// Removes the resident that finishes first (call at `next_finish()`); the caller passes the
    /// demand it registered so the total can be decremented.
    pub fn finish_next(
        &mut self,
        now: Time,
        demand_of: impl FnOnce(usize) -> f64,
    ) -> Option<usize> {
        self.advance(now);
        let Reverse((_, _, id)) = self.heap.pop()?;
        self.demand = (self.demand - demand_of(id)).max(0.0);
        self.residents -= 1;
        if self.residents == 0 {
            self.demand = 0.0;
        }
        Some(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_fire_in_time_then_fifo_order() {
        let mut q = EventQueue::new();
        q.push(10, 'b');
        q.push(5, 'a');
        q.push(10, 'c');
        assert_eq!(q.pop(), Some((5, 'a')));
        assert_eq!(q.pop(), Some((10, 'b')));
        assert_eq!(q.pop(), Some((10, 'c')));
        assert!(q.pop().is_none());
    }

    #[test]
    fn ps_server_shares_capacity() {
        // Two residents each demanding the full capacity: both take twice as long.
        let mut s = PsServer::new(1.0);
        s.enter(0, 0, 100.0, 1.0);
        s.enter(0, 1, 100.0, 1.0);
        assert_eq!(s.next_finish(), Some(200));
        assert_eq!(s.finish_next(200, |_| 1.0), Some(0));
        // The second finishes immediately (it also reached virtual time 100).
        assert_eq!(s.next_finish(), Some(200));
        // Alone, a resident runs at full speed.
        let mut s = PsServer::new(1.0);
        s.enter(0, 7, 50.0, 0.5);
        assert_eq!(s.next_finish(), Some(50));
    }

    #[test]
    fn rng_is_reproducible() {
        let mut a = SimRng::new(42);
        let mut b = SimRng::new(42);
        for _ in 0..10 {
            assert_eq!(a.exp(1000.0).to_bits(), b.exp(1000.0).to_bits());
        }
    }
}
