//! Warp schedulers (spec 000 §1.1, §8.1 item 2): each SM has `core.schedulers` of them; warp slot
//! `w` belongs to scheduler `w % schedulers`. Every cycle each scheduler sees a [`SchedView`] of
//! its warps as bitsets and picks one ready warp to issue.
//!
//! Adding a policy: one file implementing [`WarpScheduler`] and one row in [`SCHEDULERS`]
//! (2 edits); `core.scheduler = "name"` selects it, and `warpforge list` and bad-name errors read
//! the table.

pub mod caws;
mod gcaws;
mod gto;
mod lrr;
mod two_level;

use crate::config::CoreConfig;

/// Bitsets over the SM's warp slots that a scheduler decides from (bit `w` = warp slot `w`).
#[derive(Debug, Clone, Copy)]
pub struct SchedView<'a> {
    /// Warps of this scheduler that hold a live warp.
    pub valid: u64,
    /// Warps that can issue this cycle (instruction decoded, no hazard, a unit free).
    pub ready: u64,
    /// Warps in a long wait: blocked on a memory result, at a barrier, or finished and waiting
    /// for their CTA.
    pub long_wait: u64,
    /// Dispatch order of each warp slot (lower = older).
    pub age: &'a [u64],
    /// CPL criticality counter of each warp slot (spec 000 §4.3, Eq. 4.1; higher = more
    /// critical), maintained by the SM when CPL runs (a policy that reads it says so with
    /// [`WarpScheduler::reads_criticality`]; all zeros otherwise).
    pub crit: &'a [i64],
}

/// The identity of a warp placed in a warp slot (for policies that rank warps by identity).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WarpInfo {
    /// Launch index in the run (0 = first kernel launch).
    pub launch: u32,
    /// Linear CTA id in the grid.
    pub cta: u32,
    /// Warp index within its CTA.
    pub warp: u32,
    /// CTA slot on the SM.
    pub cta_slot: u8,
}

/// A warp scheduling policy.
pub trait WarpScheduler: Send {
    /// Picks the warp to issue among `view.ready` (or none).
    fn pick(&mut self, view: &SchedView<'_>) -> Option<usize>;
    /// The picked warp issued.
    fn on_issue(&mut self, _warp: usize) {}
    /// The warps this policy examines before reaching `pick` in its priority order (latency
    /// attribution, Lee 2017 Algorithm 1: a scheduler probes warps in order until the first
    /// ready one). Default: every warp that is not ready.
    fn visited_before(&self, view: &SchedView<'_>, _pick: usize) -> u64 {
        view.valid & !view.ready
    }
    /// A warp was placed in slot `slot` of the SM (every scheduler of the SM is told; `mine`:
    /// the slot is this scheduler's).
    fn warp_started(&mut self, _slot: usize, _info: &WarpInfo, _mine: bool) {}
    /// The warp of slot `slot` retired (every scheduler of the SM is told).
    fn warp_finished(&mut self, _slot: usize) {}
    /// Whether the policy prioritised the warp of slot `slot` as critical at any time since it
    /// started (for the criticality-inversion metric, spec 000 §8.2). Default: never.
    fn was_critical(&self, _slot: usize) -> bool {
        false
    }
    /// Whether the policy reads CPL's criticality counters ([`SchedView::crit`], spec 000
    /// §4.3). The SM runs CPL only when some policy reads it or `sim.cpl` asks for its
    /// statistics; otherwise `crit` is all zeros. Default: no.
    fn reads_criticality(&self) -> bool {
        false
    }
}

/// Bits `from..to` of a 64-bit warp mask, wrapping around (`from == to`: none).
pub(crate) fn cyclic_range(from: usize, to: usize) -> u64 {
    let (from, to) = (from % 64, to % 64);
    let below = |b: usize| if b == 0 { 0 } else { u64::MAX >> (64 - b) };
    if from <= to {
        below(to) & !below(from)
    } else {
        !below(from) | below(to)
    }
}

/// Constructor of a scheduler from the core configuration.
pub type SchedCtor = fn(&CoreConfig) -> Box<dyn WarpScheduler>;

/// The registry: (name, description, constructor).
pub const SCHEDULERS: &[(&str, &str, SchedCtor)] = &[
    ("lrr", "loose round robin over ready warps", lrr::new),
    (
        "gto",
        "greedy-then-oldest: keep issuing the last warp, else the oldest ready",
        gto::new,
    ),
    (
        "two_level",
        "two-level: round robin over an active pool; long-latency waiters move to the pending pool",
        two_level::new,
    ),
    (
        "caws",
        "CAWS: priority counters, oracle-critical warps reset lower (core.caws.*)",
        caws::new,
    ),
    (
        "gcaws",
        "greedy criticality-aware (CAWA): keep issuing the last warp, else the most critical ready (CPL)",
        gcaws::new,
    ),
];

/// The constructor registered under `name`.
pub fn find(name: &str) -> Option<SchedCtor> {
    SCHEDULERS.iter().find(|s| s.0 == name).map(|s| s.2)
}

/// Registered names.
pub fn names() -> Vec<&'static str> {
    SCHEDULERS.iter().map(|s| s.0).collect()
}

/// Index of the first set bit of `mask` at or after `start` (wrapping around 64).
pub(crate) fn next_from(mask: u64, start: usize) -> Option<usize> {
    if mask == 0 {
        return None;
    }
    let start = start % 64;
    let hi = mask & (!0u64 << start);
    Some(if hi != 0 {
        hi.trailing_zeros() as usize
    } else {
        mask.trailing_zeros() as usize
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> CoreConfig {
        crate::GpuConfig::preset("gtx480").unwrap().core
    }

    #[test]
    fn lrr_rotates_over_ready_warps() {
        let mut s = find("lrr").unwrap()(&cfg());
        let age = [0u64; 64];
        let v = SchedView {
            valid: 0b1111,
            ready: 0b1011,
            long_wait: 0,
            age: &age,
            crit: &[0; 64],
        };
        let mut order = vec![];
        for _ in 0..6 {
            let w = s.pick(&v).unwrap();
            s.on_issue(w);
            order.push(w);
        }
        assert_eq!(order, vec![0, 1, 3, 0, 1, 3]);
    }

    #[test]
    fn gto_is_greedy_then_oldest() {
        let mut s = find("gto").unwrap()(&cfg());
        let age = [5u64, 1, 9, 3];
        let v = SchedView {
            valid: 0b1111,
            ready: 0b1111,
            long_wait: 0,
            age: &age,
            crit: &[0; 64],
        };
        let w = s.pick(&v).unwrap();
        assert_eq!(w, 1, "oldest first");
        s.on_issue(w);
        assert_eq!(s.pick(&v), Some(1), "greedy");
        let v2 = SchedView { ready: 0b1101, ..v };
        assert_eq!(s.pick(&v2), Some(3), "then oldest ready");
    }

    #[test]
    fn two_level_keeps_a_bounded_active_pool() {
        let mut c = cfg();
        c.two_level_active = 2;
        let mut s = find("two_level").unwrap()(&c);
        let age = [0u64; 64];
        // Four warps, all ready: only the first two (active pool) are picked.
        let v = SchedView {
            valid: 0b1111,
            ready: 0b1111,
            long_wait: 0,
            age: &age,
            crit: &[0; 64],
        };
        let mut seen = 0u64;
        for _ in 0..8 {
            let w = s.pick(&v).unwrap();
            s.on_issue(w);
            seen |= 1 << w;
        }
        assert_eq!(seen, 0b0011);
        // Warp 0 waits on memory: it is demoted and warp 2 becomes active.
        let v = SchedView {
            valid: 0b1111,
            ready: 0b1110,
            long_wait: 0b0001,
            age: &age,
            crit: &[0; 64],
        };
        let mut seen = 0u64;
        for _ in 0..8 {
            let w = s.pick(&v).unwrap();
            s.on_issue(w);
            seen |= 1 << w;
        }
        assert_eq!(seen, 0b0110);
    }

    #[test]
    fn visited_before_follows_each_priority_order() {
        assert_eq!(cyclic_range(2, 5), 0b11100);
        assert_eq!(cyclic_range(62, 1), (1 << 62) | (1 << 63) | 1);
        assert_eq!(cyclic_range(3, 3), 0);
        let age = [5u64, 1, 9, 3];
        let v = SchedView {
            valid: 0b1111,
            ready: 0b0101,
            long_wait: 0,
            age: &age,
            crit: &[0; 64],
        };
        // LRR after issuing warp 3: visits 0 (ready, picked) first.
        let mut lrr = find("lrr").unwrap()(&cfg());
        lrr.on_issue(3);
        assert_eq!(lrr.pick(&v), Some(0));
        assert_eq!(lrr.visited_before(&v, 0), 0);
        // After issuing 0: visits 1 (not ready), then picks 2.
        lrr.on_issue(0);
        assert_eq!(lrr.pick(&v), Some(2));
        assert_eq!(lrr.visited_before(&v, 2), 0b0010);
        // GTO after issuing 1 (now not ready): visits 1, then oldest first: 3 (age 3) before
        // picking 0 (age 5); 2 (age 9) is younger than the pick and never examined.
        let mut gto = find("gto").unwrap()(&cfg());
        gto.on_issue(1);
        assert_eq!(gto.pick(&v), Some(0));
        assert_eq!(gto.visited_before(&v, 0), 0b1010);
        // Greedy: the last warp is ready again and examined first.
        gto.on_issue(0);
        assert_eq!(gto.visited_before(&v, 0), 0);
    }

    #[test]
    fn gcaws_picks_the_most_critical_ready_warp_and_stays_greedy() {
        let mut s = find("gcaws").unwrap()(&cfg());
        let age = [0u64, 1, 2, 3];
        let crit = [4i64, 9, 20, 9];
        let v = SchedView {
            valid: 0b1111,
            ready: 0b1011,
            long_wait: 0,
            age: &age,
            crit: &crit,
        };
        // Warp 2 is the most critical but not ready: warp 1 (9, older than 3) goes.
        assert_eq!(s.pick(&v), Some(1));
        s.on_issue(1);
        // Greedy: warp 1 keeps issuing even when warp 2 becomes ready and is more critical.
        let v2 = SchedView { ready: 0b1111, ..v };
        assert_eq!(s.pick(&v2), Some(1));
        // Warp 1 stalls: the most critical ready warp, 2, takes over.
        let v3 = SchedView { ready: 0b1101, ..v };
        assert_eq!(s.pick(&v3), Some(2));
        assert_eq!(
            s.visited_before(&v3, 2),
            0b0010,
            "the stalled greedy warp first"
        );
        s.on_issue(2);
        // Ties on criticality go to the oldest.
        let crit2 = [9i64, 9, 1, 9];
        let v4 = SchedView {
            ready: 0b1001,
            crit: &crit2,
            ..v
        };
        assert_eq!(s.pick(&v4), Some(0));
    }

    #[test]
    fn registry_names_are_unique() {
        let mut n = names();
        n.sort();
        n.dedup();
        assert_eq!(n.len(), SCHEDULERS.len());
        assert!(find("nope").is_none());
    }
}
