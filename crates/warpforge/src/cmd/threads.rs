//! `--threads N|auto`: how many threads step the SMs of a timing simulation (issue 20).
//!
//! Statistics never depend on the thread count; only wall time does. `auto` (the default)
//! takes the cores that are free now (the core count minus the one-minute load average,
//! rounded), capped at [`AUTO_CAP`] and at one thread per [`SMS_PER_THREAD`] simulated SMs, and
//! falls back to one thread where that leaves less than two. The cap is what measurements
//! support, so that `auto` is never slower than one thread: with the per-cycle engine,
//! `warpforge bench --what scaling` on a 16-core machine (docs/PERFORMANCE.md, 2026-11-25) gave
//! 0.84x-0.89x with two threads on 80 and 132 SMs and 0.86x-1.06x with 4 to 16, so the cap is
//! one thread (explicit `--threads N` still runs N); raise it when `bench --what scaling`
//! measures a gain on every machine size. The window engine (`sim.window` > 1) synchronises
//! once per window and has its own rule: at most [`AUTO_CAP_WINDOW`] threads, one per
//! [`SMS_PER_THREAD_WINDOW`] SMs; with fewer than [`MIN_CORES_WINDOW`] free cores, two threads
//! from [`SMS_SMALL_HOST`] SMs up on any host of at least two cores, busy or not (one below).
//! Such a team of two is adaptive ([`Threads::adaptive`]): it runs the windows on one thread
//! while a cache-line ping-pong between its two threads, taken every 100 ms, finds them far
//! apart or the worker's core busy (`warpforge_timing`'s `placement.rs`; docs/PERFORMANCE.md,
//! "Session 21: auto"), so a busy core no longer needs the load average's one-minute lag.

use warpforge_timing::{GpuConfig, TimingRunner};

/// The most threads `auto` picks for the one-cycle engine (see the module documentation for
/// why).
pub const AUTO_CAP: usize = 1;
/// The most threads `auto` picks for the window engine (`sim.window` > 1, which synchronises
/// once per window instead of once per cycle): docs/PERFORMANCE.md, "Session 15: engine". On
/// a 16-core Xeon (2026-11-27 03:46 UTC, idle, main at `330187a`, `bench --what scaling --set
/// sim.window=4 --set sim.window_overlap=true --set sim.window_partitions=true --sms 120,15`),
/// 120 SMs ran fastest on 8 threads (`kmn` 1.30x, `bfs` 1.45x over one thread) and slower on
/// 16 (1.20x, 1.37x); so eight.
pub const AUTO_CAP_WINDOW: usize = 8;
/// The window engine's `auto` gives each thread at least this many simulated SMs: on the same
/// run, 15 SMs were slower than one thread with every thread count on `kmn` (0.81x-0.93x; `bfs`
/// gained up to 1.78x), so a 15-SM machine runs on one thread, and 120 SMs (where both gained
/// up to 8 threads) on up to eight.
pub const SMS_PER_THREAD_WINDOW: u32 = 15;
/// With fewer than this many free cores the window engine's `auto` runs at most
/// [`SMALL_HOST_THREADS`] threads (an adaptive team, [`Threads::adaptive`]), and only on
/// machines of at least [`SMS_SMALL_HOST`] SMs and hosts of at least two cores: more threads
/// than that were not measured on 2- and 3-core hosts.
pub const MIN_CORES_WINDOW: usize = 4;
/// The window engine's thread count on a host with fewer than [`MIN_CORES_WINDOW`] free cores
/// (busy cores included since session 21: the adaptive team runs alone while its worker's core
/// is busy or far away, docs/PERFORMANCE.md, "Session 21: auto"). On the 2-core
/// development VM (docs/PERFORMANCE.md, "Session 16: engine"; the lead's idle figures at 06:58
/// UTC and this session's), two threads beat one on every 120-SM case with `sim.window` > 1:
/// `bfs` 1.36x, `kmn` 1.16x-1.42x idle, and 1.12x-1.15x under a load average of 15-20.
pub const SMALL_HOST_THREADS: usize = 2;
/// The fewest simulated SMs for which the window engine's `auto` runs two threads on a host
/// with fewer than [`MIN_CORES_WINDOW`] free cores. On the 2-core VM after the CTA dispatcher fix (`308468a`, which
/// spreads a launch's CTAs over every SM, so more SMs work in each window), 30 SMs gained on
/// two threads: `kmn` 1.11x-1.18x with `sim.window=4`, with and without overlap and
/// partitions, `bfs` 1.20x-1.26x (docs/PERFORMANCE.md, "Session 17: engine"; before the fix
/// `kmn` with 30 SMs was slower on two, 0.93x, "Session 16: engine"). Fewer SMs were not
/// measured on two cores (on 16 cores `kmn` with 15 SMs was slower on any count).
pub const SMS_SMALL_HOST: u32 = 30;
/// `auto` gives each thread at least this many simulated SMs.
pub const SMS_PER_THREAD: u32 = 4;

/// A `--threads` value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Threads {
    /// Chosen from the free cores and the machine size.
    Auto,
    /// Exactly this many (at least 1).
    Fixed(usize),
}

/// Parses `--threads`: `auto` or a whole number of at least 1 (clap value parser).
pub fn parse_threads(s: &str) -> Result<Threads, String> {
    if s == "auto" {
        return Ok(Threads::Auto);
    }
    match s.parse::<usize>() {
        Ok(0) => Err("must be at least 1 (or `auto`)".into()),
        Ok(n) => Ok(Threads::Fixed(n)),
        Err(_) => Err(format!("`{s}` is neither a thread count nor `auto`")),
    }
}

/// The one-minute load average, if the system reports it.
fn load_average() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// The `auto` choice for `cores` cores with `load` of them busy and a machine of `sms` SMs
/// synchronised every `window` core cycles (`sim.window`).
pub fn auto_threads(cores: usize, load: f64, sms: u32, window: u32) -> usize {
    let free = (cores as f64 - load.max(0.0)).round().max(1.0) as usize;
    let (per_thread, cap) = if window > 1 {
        if free < MIN_CORES_WINDOW {
            // Busy cores do not count here: the adaptive team runs alone while the worker's
            // core is busy (`Threads::adaptive`).
            return if cores >= SMALL_HOST_THREADS && sms >= SMS_SMALL_HOST {
                SMALL_HOST_THREADS
            } else {
                1
            };
        }
        (SMS_PER_THREAD_WINDOW, AUTO_CAP_WINDOW)
    } else {
        (SMS_PER_THREAD, AUTO_CAP)
    };
    let by_size = (sms / per_thread).max(1) as usize;
    let n = free.min(cap).min(by_size).min(cores.max(1));
    if n < 2 {
        1
    } else {
        n
    }
}

impl Threads {
    /// Whether the team may run windows on one thread by the host's placement (`auto` only: an
    /// explicit `--threads N` always runs N threads).
    pub fn adaptive(self) -> bool {
        self == Threads::Auto
    }

    /// A timing runner for `cfg` on the threads this asks for ([`Threads::resolve`]); under
    /// `auto` its team of two follows the host's placement ([`Threads::adaptive`],
    /// [`TimingRunner::set_adaptive_team`]). [`TimingRunner::threads`] says how many it has.
    pub fn runner(self, cfg: GpuConfig) -> TimingRunner {
        let threads = self.resolve(&cfg);
        let mut r = TimingRunner::new(cfg, threads);
        r.set_adaptive_team(self.adaptive());
        r
    }

    /// The thread count for a simulation of `cfg`.
    pub fn resolve(self, cfg: &GpuConfig) -> usize {
        match self {
            Threads::Fixed(n) => n,
            Threads::Auto => auto_threads(
                std::thread::available_parallelism().map_or(1, |n| n.get()),
                load_average().unwrap_or(0.0),
                cfg.core.num_sms,
                cfg.sim.window,
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_uses_free_cores_up_to_the_cap_and_falls_back_to_one() {
        assert_eq!(auto_threads(2, 0.1, 15, 1), 2.min(AUTO_CAP));
        assert_eq!(auto_threads(2, 1.2, 15, 1), 1, "one core busy: one thread");
        assert_eq!(auto_threads(1, 0.0, 120, 1), 1);
        assert_eq!(auto_threads(16, 0.0, 120, 1), AUTO_CAP);
        assert_eq!(
            auto_threads(16, 0.0, 4, 1),
            1,
            "a 4-SM machine is too small"
        );
        assert_eq!(auto_threads(16, 15.6, 120, 1), 1);
        // The window engine: the 16-core figures' best count on 120 SMs, never above it.
        assert_eq!(auto_threads(16, 0.0, 120, 4), 8);
        assert_eq!(
            auto_threads(64, 0.0, 132, 4),
            8,
            "capped where 16 threads gained less"
        );
        assert_eq!(auto_threads(16, 0.0, 80, 4), 5, "one thread per 15 SMs");
        assert_eq!(auto_threads(16, 10.0, 120, 4), 6, "the free cores");
        // One thread where the figures show no gain.
        assert_eq!(
            auto_threads(16, 0.0, 15, 4),
            1,
            "15 SMs: kmn slower on any count"
        );
        assert_eq!(auto_threads(16, 0.0, 29, 4), 1);
        // A 2- or 3-core host: two threads on large machines (the 2-core figures), one on
        // small machines and when a core is busy.
        assert_eq!(auto_threads(2, 0.1, 120, 4), 2, "2 idle cores, 120 SMs");
        assert_eq!(auto_threads(2, 0.3, 60, 16), 2);
        assert_eq!(auto_threads(2, 0.1, 30, 4), 2, "30 SMs: both faster on two");
        assert_eq!(auto_threads(2, 0.1, 29, 4), 1, "below 30 SMs: not measured");
        assert_eq!(auto_threads(2, 0.1, 15, 4), 1, "15 SMs: one thread");
        // A busy core: two threads, which run alone while the worker's core is busy (the
        // adaptive team), instead of the load average's judgement of the last minute.
        assert_eq!(
            auto_threads(2, 0.6, 120, 4),
            2,
            "a busy core: the adaptive team"
        );
        assert_eq!(auto_threads(2, 15.0, 120, 4), 2, "a loaded host: the same");
        assert_eq!(auto_threads(2, 15.0, 29, 4), 1, "below 30 SMs: one thread");
        assert_eq!(
            auto_threads(3, 0.0, 120, 4),
            2,
            "3 cores: two, as measured on 2"
        );
        assert_eq!(auto_threads(1, 0.0, 120, 4), 1);
        assert_eq!(auto_threads(4, 0.0, 120, 4), 4);
        assert_eq!(auto_threads(16, 12.6, 120, 4), 2, "3 cores free");
        assert_eq!(
            auto_threads(16, 14.6, 120, 4),
            2,
            "one core free: the adaptive team"
        );
        assert_eq!(
            auto_threads(16, 0.0, 4, 4),
            1,
            "a 4-SM machine is too small"
        );
    }

    #[test]
    fn threads_parse() {
        assert_eq!(parse_threads("auto"), Ok(Threads::Auto));
        assert_eq!(parse_threads("3"), Ok(Threads::Fixed(3)));
        assert!(parse_threads("0").is_err());
        assert!(
            Threads::Auto.adaptive(),
            "auto's team follows the placement"
        );
        assert!(
            !Threads::Fixed(2).adaptive(),
            "an explicit count stays that count"
        );
        assert!(parse_threads("many").unwrap_err().contains("many"));
    }
}
