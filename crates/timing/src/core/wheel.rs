//! A timing wheel for an SM's future events (writebacks, load-tracker completions): the same
//! order as a priority queue keyed by (cycle, push order), at constant cost per event.
//!
//! Events are due at most a few hundred cycles ahead (pipeline, cache and shared-memory
//! latencies), so a ring of `2^k` buckets indexed by `cycle mod 2^k` holds every pending event,
//! each bucket then holding the events of one cycle in push order. The ring doubles when an event
//! is pushed further ahead than it spans (a configuration with a longer latency); after the first
//! cycles of work buckets keep their capacity, so the steady state allocates nothing.

use std::cell::Cell;

/// Pending events of type `T`, each due at a core cycle.
pub struct Wheel<T> {
    slots: Vec<Vec<T>>,
    /// Every pending event is due in `(last, last + slots.len())`.
    last: u64,
    len: usize,
    /// No pending event is due before this cycle (a lower bound, tightened by `peek_time`).
    first: Cell<u64>,
}

impl<T: Copy> Wheel<T> {
    /// An empty wheel whose last processed cycle is `last`.
    pub fn new(last: u64) -> Self {
        Self {
            slots: (0..64).map(|_| Vec::new()).collect(),
            last,
            len: 0,
            first: Cell::new(u64::MAX),
        }
    }

    fn mask(&self) -> u64 {
        self.slots.len() as u64 - 1
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds `ev`, due at cycle `at` (after the last cycle drained).
    ///
    /// # Panics
    /// If `at` is not after the last cycle drained.
    #[inline(always)]
    pub fn push(&mut self, at: u64, ev: T) {
        assert!(
            at > self.last,
            "event at {at} not after cycle {}",
            self.last
        );
        while at - self.last >= self.slots.len() as u64 {
            self.grow();
        }
        let m = self.mask();
        self.slots[(at & m) as usize].push(ev);
        self.len += 1;
        if at < self.first.get() {
            self.first.set(at);
        }
    }

    /// Doubles the ring, keeping every event in its cycle and push order.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let old = std::mem::take(&mut self.slots);
        let n = old.len() as u64;
        let mut slots: Vec<Vec<T>> = (0..2 * n).map(|_| Vec::new()).collect();
        let m = 2 * n - 1;
        let mut old = old;
        for t in self.last + 1..self.last + n {
            let b = std::mem::take(&mut old[(t & (n - 1)) as usize]);
            slots[(t & m) as usize] = b;
        }
        self.slots = slots;
    }

    /// Whether an event may be due at or before `now` (`false`: certainly none).
    #[inline]
    pub fn any_due(&self, now: u64) -> bool {
        self.len > 0 && self.first.get() <= now
    }

    /// The earliest cycle with a pending event.
    pub fn peek_time(&self) -> Option<u64> {
        if self.len == 0 {
            return None;
        }
        let m = self.mask();
        let mut t = self.first.get().max(self.last + 1);
        while self.slots[(t & m) as usize].is_empty() {
            t += 1;
        }
        self.first.set(t);
        Some(t)
    }

    /// Calls `f` on every event due at or before `now`, in (cycle, push order), and removes
    /// them; `now` becomes the last cycle drained (events pushed from now on are due after it).
    pub fn drain_until(&mut self, now: u64, mut f: impl FnMut(T)) {
        if now <= self.last {
            return;
        }
        if self.len > 0 {
            let m = self.mask();
            let end = now.min(self.last + self.slots.len() as u64 - 1);
            let mut t = self.first.get().max(self.last + 1);
            while t <= end && self.len > 0 {
                let b = &mut self.slots[(t & m) as usize];
                if !b.is_empty() {
                    self.len -= b.len();
                    // `clear` keeps the bucket's capacity.
                    for &e in b.iter() {
                        f(e);
                    }
                    b.clear();
                }
                t += 1;
            }
        }
        self.last = now;
        if self.len == 0 {
            self.first.set(u64::MAX);
        } else if self.first.get() <= now {
            // Every event left is due after `now`.
            self.first.set(now + 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    /// Random pushes and drains (delays up to 700 cycles, so the ring grows) give the same
    /// sequence as a heap keyed by (cycle, push order).
    #[test]
    fn matches_a_priority_queue() {
        let mut w = Wheel::new(0);
        let mut h = BinaryHeap::new();
        let mut seq = 0u64;
        let mut x = 12345u64;
        let mut rnd = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let mut now = 0u64;
        for _ in 0..20_000 {
            // Sometimes skip cycles (a sleeping or quiet SM), never past a pending event.
            let step = if rnd(10) == 0 { 1 + rnd(50) } else { 1 };
            let next_due = h.peek().map_or(u64::MAX, |Reverse((t, _, _))| *t);
            now = (now + step).min(next_due.max(now + 1));
            let due = h.peek().is_some_and(|Reverse((t, _, _))| *t <= now);
            assert!(w.any_due(now) || !due, "any_due says none but one is due");
            assert_eq!(w.peek_time(), h.peek().map(|Reverse((t, _, _))| *t));
            let mut got = Vec::new();
            w.drain_until(now, |e| got.push(e));
            assert!(!w.any_due(now), "nothing left due after a drain");
            let mut want = Vec::new();
            while let Some(Reverse((t, _, e))) = h.peek().copied() {
                if t > now {
                    break;
                }
                h.pop();
                want.push(e);
            }
            assert_eq!(got, want, "cycle {now}");
            for _ in 0..rnd(4) {
                let d = if rnd(100) == 0 {
                    1 + rnd(700)
                } else {
                    1 + rnd(30)
                };
                seq += 1;
                w.push(now + d, seq);
                h.push(Reverse((now + d, seq, seq)));
            }
        }
        assert_eq!(w.is_empty(), h.is_empty());
    }
}
