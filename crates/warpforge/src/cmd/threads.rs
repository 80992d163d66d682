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
//! once per window and has its own cap, [`AUTO_CAP_WINDOW`].

use warpforge_timing::GpuConfig;

/// The most threads `auto` picks for the one-cycle engine (see the module documentation for
/// why).
pub const AUTO_CAP: usize = 1;
/// The most threads `auto` picks for the window engine (`sim.window` > 1, which synchronises
/// once per window instead of once per cycle): docs/PERFORMANCE.md, "window engine". Two: on
/// the idle 2-core machine (2026-11-26 13:43-13:48 UTC, load 1.3-1.5, main at `d991264`, medians
/// of 3-5 interleaved rounds, `sim.window=4`), two threads against one took `bfs` 1.03 s against
/// 1.48 s and `kmn` 5.17 s against 7.87 s on 120 SMs (with `sim.window_overlap`: 0.93 against
/// 1.36 s, 4.35 against 8.11 s), and 0.80 against 1.28 s, 3.63 against 4.73 s on 15 SMs. Not
/// higher: more than two threads has not been measured since the eighth session's changes.
pub const AUTO_CAP_WINDOW: usize = 2;
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
    let by_size = (sms / SMS_PER_THREAD).max(1) as usize;
    let cap = if window > 1 {
        AUTO_CAP_WINDOW
    } else {
        AUTO_CAP
    };
    let n = free.min(cap).min(by_size).min(cores.max(1));
    if n < 2 {
        1
    } else {
        n
    }
}

impl Threads {
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
        // The window engine has its own cap, with the same fallbacks.
        assert_eq!(auto_threads(16, 0.0, 120, 4), AUTO_CAP_WINDOW.min(16));
        assert_eq!(auto_threads(2, 0.1, 120, 4), AUTO_CAP_WINDOW.min(2));
        assert_eq!(auto_threads(2, 1.2, 120, 4), 1, "one core busy: one thread");
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
        assert!(parse_threads("many").unwrap_err().contains("many"));
    }
}
