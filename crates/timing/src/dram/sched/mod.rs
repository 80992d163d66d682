//! DRAM request schedulers (spec 000 §8.1 item 6): for a bank, which queued request to serve next.
//! The controller asks every bank with pending requests in round-robin order and issues the first
//! command whose timing allows.
//!
//! Adding a policy: one file implementing [`DramScheduler`], one row in the `policies!` call.

mod fcfs;
mod frfcfs;

use super::DramReq;

/// A DRAM scheduling policy.
pub trait DramScheduler {
    /// Index in `queue` (arrival order) of the request to serve at `bank`, whose open row is
    /// `open_row`; `None` to leave the bank alone this cycle. A function of its arguments: the
    /// controller reuses the answer while the queue and the bank's open row are unchanged.
    fn pick(&mut self, queue: &[DramReq], bank: u32, open_row: Option<u32>) -> Option<usize>;
    /// Whether [`DramScheduler::pick`] for a bank reads only the requests of that bank (their
    /// fields and their order) and its open row: the controller then keeps the answer while
    /// that bank's requests and row are unchanged, shifting it when an earlier request of
    /// another bank leaves the queue. Default: no (any change of the queue asks again).
    fn bank_local(&self) -> bool {
        false
    }
    /// For a bank-local policy: the answer of [`DramScheduler::pick`] for `bank` after a
    /// request of that bank was appended to `queue` (its last entry), given the answer `old`
    /// before the push with the same open row; `None`: unknown (the controller asks again).
    /// Lets the controller keep a bank's answer across arrivals instead of re-reading the
    /// queue. Default: `None`.
    fn pick_after_push(
        &self,
        _queue: &[DramReq],
        _bank: u32,
        _open_row: Option<u32>,
        _old: Option<usize>,
    ) -> Option<Option<usize>> {
        None
    }
    /// For a bank-local policy: the answer for the bank after a command (activate, precharge,
    /// or a column access that left the request queued) was issued for `old`, the request it
    /// picked; `None`: unknown (the controller asks again). Default: `None`.
    fn pick_after_command(&self, _old: usize) -> Option<Option<usize>> {
        None
    }
}

macro_rules! policies {
    ($($name:literal => $variant:ident($ty:path), $doc:literal;)*) => {
        /// The registered policies, statically dispatched.
        pub enum Policy { $( #[doc = $doc] $variant($ty), )* }
        /// Registry: (name, description).
        pub const DRAM_SCHEDULERS: &[(&str, &str)] = &[$(($name, $doc)),*];
        impl Policy {
            /// The policy `name`.
            pub fn new(name: &str) -> Option<Policy> {
                match name { $( $name => Some(Policy::$variant(<$ty>::default())), )* _ => None }
            }
        }
        impl DramScheduler for Policy {
            #[inline]
            fn pick(&mut self, q: &[DramReq], bank: u32, row: Option<u32>) -> Option<usize> {
                match self { $( Policy::$variant(p) => p.pick(q, bank, row), )* }
            }
            fn bank_local(&self) -> bool {
                match self { $( Policy::$variant(p) => p.bank_local(), )* }
            }
            #[inline]
            fn pick_after_push(
                &self,
                q: &[DramReq],
                bank: u32,
                row: Option<u32>,
                old: Option<usize>,
            ) -> Option<Option<usize>> {
                match self { $( Policy::$variant(p) => p.pick_after_push(q, bank, row, old), )* }
            }
            #[inline]
            fn pick_after_command(&self, old: usize) -> Option<Option<usize>> {
                match self { $( Policy::$variant(p) => p.pick_after_command(old), )* }
            }
        }
    };
}

policies! {
    "fcfs" => Fcfs(fcfs::Fcfs), "first come first served: only the oldest request is served";
    "frfcfs" => FrFcfs(frfcfs::FrFcfs), "first-ready FCFS: oldest row hit of the bank, else its oldest request";
}

/// Whether `name` is registered.
pub fn find(name: &str) -> Option<&'static str> {
    DRAM_SCHEDULERS.iter().find(|r| r.0 == name).map(|r| r.0)
}

/// Registered names.
pub fn names() -> Vec<&'static str> {
    DRAM_SCHEDULERS.iter().map(|r| r.0).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q() -> Vec<DramReq> {
        [(0u32, 5u32), (1, 7), (0, 9), (0, 5)]
            .iter()
            .map(|&(bank, row)| DramReq {
                bank,
                row,
                ..Default::default()
            })
            .collect()
    }

    #[test]
    fn frfcfs_prefers_row_hits() {
        let mut p = Policy::new("frfcfs").unwrap();
        assert_eq!(p.pick(&q(), 0, Some(9)), Some(2));
        assert_eq!(p.pick(&q(), 0, Some(1)), Some(0));
        assert_eq!(p.pick(&q(), 1, None), Some(1));
        assert_eq!(p.pick(&q(), 3, None), None);
    }

    /// FR-FCFS's answer after an arrival, derived from the answer before, equals asking again:
    /// random queues over 3 banks and 4 rows, every open row, every bank.
    #[test]
    fn frfcfs_answer_after_a_push_matches_asking_again() {
        let mut p = Policy::new("frfcfs").unwrap();
        let mut x = 99u64;
        let mut derived = 0;
        for _ in 0..3000 {
            let mut q = Vec::new();
            let n = 1 + (x % 12) as usize;
            for _ in 0..n {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                q.push(DramReq {
                    bank: ((x >> 30) % 3) as u32,
                    row: ((x >> 40) % 4) as u32,
                    ..Default::default()
                });
            }
            let bank = q[n - 1].bank;
            for open in [None, Some(0), Some(1), Some(2), Some(3)] {
                let old = p.pick(&q[..n - 1], bank, open);
                if let Some(new) = p.pick_after_push(&q, bank, open, old) {
                    assert_eq!(new, p.pick(&q, bank, open), "queue {q:?}, open {open:?}");
                    derived += 1;
                }
            }
        }
        assert_eq!(derived, 3000 * 5, "FR-FCFS always derives its answer");
    }

    /// FR-FCFS's answer after a command for its pick is the same request: an activate opens
    /// the pick's row (the bank's oldest request, so its oldest row hit), a precharge closes a
    /// row no request hit (the pick was the oldest), a column access keeps the row.
    #[test]
    fn frfcfs_keeps_its_pick_after_a_command() {
        let mut p = Policy::new("frfcfs").unwrap();
        let q = q();
        for bank in 0..2 {
            for open in [None, Some(1), Some(5), Some(7), Some(9)] {
                let Some(i) = p.pick(&q, bank, open) else {
                    continue;
                };
                let after = if Some(q[i].row) == open {
                    open // column access
                } else if open.is_some() {
                    None // precharge
                } else {
                    Some(q[i].row) // activate
                };
                assert_eq!(p.pick(&q, bank, after), Some(i));
                assert_eq!(p.pick_after_command(i), Some(Some(i)));
            }
        }
    }

    #[test]
    fn fcfs_serves_only_the_oldest() {
        let mut p = Policy::new("fcfs").unwrap();
        assert_eq!(p.pick(&q(), 0, Some(9)), Some(0));
        assert_eq!(p.pick(&q(), 1, None), None);
    }
}
