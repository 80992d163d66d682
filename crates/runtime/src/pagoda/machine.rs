//! Shared pieces of the Pagoda-study simulations: SMs with warp and threadblock slots whose
//! resident warps share issue bandwidth, a FIFO copy engine, and run statistics.

use crate::engine::{PsServer, Time};
use crate::pagoda::master::PagodaConfig;

/// Every SM: free warp and TB slots, and a processor-sharing server over its resident warps.
#[derive(Debug, Clone)]
pub struct Sms {
    ps: Vec<PsServer>,
    /// Free warp slots per SM.
    pub warps_free: Vec<u32>,
    /// Free threadblock slots per SM.
    pub tbs_free: Vec<u32>,
    next: usize,
}

impl Sms {
    /// All SMs idle.
    pub fn new(c: &PagodaConfig) -> Self {
        Self {
            ps: vec![PsServer::new(c.sat_warps); c.sms],
            warps_free: vec![c.max_warps_per_sm; c.sms],
            tbs_free: vec![c.max_tbs_per_sm; c.sms],
            next: 0,
        }
    }

    /// Reserves a TB of `warps` warp slots on the next SM (round-robin) with room.
    pub fn reserve_tb(&mut self, warps: u32) -> Option<usize> {
        let n = self.warps_free.len();
        for k in 0..n {
            let s = (self.next + k) % n;
            if self.warps_free[s] >= warps && self.tbs_free[s] > 0 {
                self.warps_free[s] -= warps;
                self.tbs_free[s] -= 1;
                self.next = (s + 1) % n;
                return Some(s);
            }
        }
        None
    }

    /// Releases a TB's slots.
    pub fn release_tb(&mut self, sm: usize, warps: u32) {
        self.warps_free[sm] += warps;
        self.tbs_free[sm] += 1;
    }

    /// Starts a warp (`id`) needing `work` ns in isolation on `sm`.
    pub fn start(&mut self, now: Time, sm: usize, id: usize, work: f64) {
        self.ps[sm].enter(now, id, work, 1.0);
    }

    /// The SM whose next warp finishes first, and when.
    pub fn next_finish(&self) -> Option<(Time, usize)> {
        let mut best: Option<(Time, usize)> = None;
        for (s, p) in self.ps.iter().enumerate() {
            if let Some(t) = p.next_finish() {
                if best.is_none_or(|(bt, _)| t < bt) {
                    best = Some((t, s));
                }
            }
        }
        best
    }

    /// Retires the first-finishing warp of `sm`; returns its id.
    pub fn finish(&mut self, now: Time, sm: usize) -> usize {
        self.ps[sm]
            .finish_next(now, |_| 1.0)
            .expect("a resident warp")
    }
}

/// A FIFO server (one copy engine, one host thread, one scheduler warp).
#[derive(Debug, Clone, Copy, Default)]
pub struct Fifo {
    free_at: Time,
}

impl Fifo {
    /// Serves a job of `cost` ns submitted at `now`; returns its completion time.
    pub fn serve(&mut self, now: Time, cost: Time) -> Time {
        self.free_at = self.free_at.max(now) + cost;
        self.free_at
    }
    /// When the server is next free.
    pub fn free_at(&self) -> Time {
        self.free_at
    }
}

/// Result of running one task set on one runtime.
#[derive(Debug, Clone, PartialEq)]
pub struct RunStats {
    /// Time from the first spawn to the last task completion (ns).
    pub makespan: Time,
    /// Mean task response time: completion - spawn call (ns).
    pub mean_latency: f64,
    /// Tasks completed.
    pub tasks: usize,
    /// Mean resident warps per SM over the run (achieved occupancy x 64).
    pub mean_warps_per_sm: f64,
}

/// Accumulates per-task latencies and warp residency.
#[derive(Debug, Clone, Default)]
pub struct Recorder {
    lat_sum: f64,
    done: usize,
    last: Time,
    warp_ns: f64,
}

impl Recorder {
    /// A task spawned at `spawn` finished at `now`.
    pub fn task_done(&mut self, spawn: Time, now: Time) {
        self.lat_sum += (now - spawn) as f64;
        self.done += 1;
        self.last = self.last.max(now);
    }
    /// A warp was resident for `ns`.
    pub fn warp_time(&mut self, ns: Time) {
        self.warp_ns += ns as f64;
    }
    /// Final statistics.
    pub fn stats(&self, sms: usize) -> RunStats {
        RunStats {
            makespan: self.last,
            mean_latency: if self.done > 0 {
                self.lat_sum / self.done as f64
            } else {
                0.0
            },
            tasks: self.done,
            mean_warps_per_sm: if self.last > 0 {
                self.warp_ns / self.last as f64 / sms as f64
            } else {
                0.0
            },
        }
    }
}
