//! CAWS, the criticality-aware warp scheduler with oracle criticality (spec 000 §3.2-3.3; Lee
//! 2017 §3.4).
//!
//! Each warp has a priority counter. The ready warp with the smallest counter issues (ties: the
//! lower warp slot; the document's "the warp whose counter reaches 0", with the digest's rule
//! for a zero-counter warp that is not ready); its counter is reset to a value that depends on
//! its criticality and every other warp of the scheduler counts down, saturating at 0. A warp
//! that starts gets the number of the scheduler's warps already live as its counter (the
//! document's initial 0..47). With every warp reset to the same value this is round robin; a
//! critical warp reset to 40 instead of 48 issues 48/40 = 1.2x as often when all are ready
//! ("20% more time resource").
//!
//! Counter units (a decision, spec 000 §8.3 item 2): the document's counters assume 48 warps
//! per scheduler, where a reset of 48 makes a normal warp wait for all others. Our GTX480 has 2
//! schedulers of 24 warps; literal 40-vs-48 counters there give a critical warp 1.5x (not
//! 1.2x) the issue slots, because normal warps never count down to 0. So counters count in
//! units of `1/reset_normal` issues and a reset is `reset_level x live warps of the scheduler`
//! units: a critical warp waits `n x 40/48` issues, a normal one `n`. With 48 warps this is
//! exactly the document's counters; with any warp count the critical share stays 1.2x.
//!
//! Criticality is an oracle: every warp's execution time in a previous run (baseline RR), read
//! from the file named by `core.caws.oracle` ([`Oracle`]), looked up by (launch, CTA, warp).
//! Variants (`core.caws.variant`):
//! * `blk`: the warp with the longest oracle time of each CTA is critical;
//! * `sm`: the N live warps of the SM with the longest oracle times are critical, N = the CTAs
//!   resident on the SM (re-ranked whenever a warp starts or retires);
//! * `avg`: warps whose oracle time is more than 20% above their CTA's average are critical,
//!   those more than 20% below it are fast (reset `core.caws.reset_fast`), the others normal.
//!
//! Warps the oracle does not know (another launch, CTA or warp) are normal.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use serde::{Deserialize, Serialize};

use super::{SchedView, WarpInfo, WarpScheduler};
use crate::config::{CawsConfig, ConfigError, CoreConfig};
use crate::stats::WarpTime;

/// Variant names of `core.caws.variant`.
pub const VARIANTS: &[&str] = &["blk", "sm", "avg"];

/// `avg`: a warp this much slower than its CTA's average is critical (§3.2: "more than 20%").
const CRITICAL_ABOVE: f64 = 1.2;
/// `avg`: a warp this much faster than its CTA's average is fast.
const FAST_BELOW: f64 = 0.8;

/// Oracle criticality: the execution time, core cycles, of every warp of a run, per launch (in
/// launch order), CTA (linear id) and warp within the CTA. JSON:
/// `{"kernels": [{"kernel": "name", "ctas": [[cycles of warp 0, warp 1, ...], ...]}, ...]}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Oracle {
    /// One entry per kernel launch, in launch order.
    pub kernels: Vec<OracleKernel>,
}

/// The warp times of one launch.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OracleKernel {
    /// Kernel name (informative).
    pub kernel: String,
    /// Per CTA, per warp: execution time, core cycles.
    pub ctas: Vec<Vec<u64>>,
}

impl Oracle {
    /// The oracle of a run's launches: (kernel name, its `warp_times`) in launch order.
    pub fn from_warp_times<'a>(
        launches: impl IntoIterator<Item = (&'a str, &'a [WarpTime])>,
    ) -> Oracle {
        let kernels = launches
            .into_iter()
            .map(|(name, ws)| {
                let mut ctas: Vec<Vec<u64>> = Vec::new();
                for w in ws {
                    let (c, i) = (w.cta as usize, w.warp as usize);
                    if ctas.len() <= c {
                        ctas.resize(c + 1, Vec::new());
                    }
                    if ctas[c].len() <= i {
                        ctas[c].resize(i + 1, 0);
                    }
                    ctas[c][i] = w.cycles();
                }
                OracleKernel {
                    kernel: name.to_string(),
                    ctas,
                }
            })
            .collect();
        Oracle { kernels }
    }

    /// The warp times of CTA `cta` of launch `launch`, if known.
    pub fn cta(&self, launch: u32, cta: u32) -> Option<&[u64]> {
        self.kernels
            .get(launch as usize)?
            .ctas
            .get(cta as usize)
            .map(|v| v.as_slice())
            .filter(|v| !v.is_empty())
    }

    /// Reads an oracle file; errors name the file and line (key `core.caws.oracle`).
    pub fn load(path: &str) -> Result<Oracle, ConfigError> {
        let err = |reason: String, line: Option<usize>| ConfigError {
            key: "core.caws.oracle".into(),
            reason,
            file: Some(path.to_string()),
            line,
        };
        let text = std::fs::read_to_string(path)
            .map_err(|e| err(format!("cannot read the oracle file: {e}"), None))?;
        serde_json::from_str(&text).map_err(|e| {
            err(
                format!("not a CAWS oracle (`{{\"kernels\": [...]}}`): {e}"),
                Some(e.line()),
            )
        })
    }

    /// Writes the oracle as JSON, atomically (temporary file + rename).
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        std::fs::write(&tmp, serde_json::to_vec(self).expect("oracle serialises"))?;
        std::fs::rename(&tmp, path)
    }

    /// The oracle of `path`, read once per process and file version (length and modification
    /// time) and shared by every scheduler.
    pub fn shared(path: &str) -> Result<Arc<Oracle>, ConfigError> {
        type Cache = Mutex<HashMap<String, (u64, Option<std::time::SystemTime>, Arc<Oracle>)>>;
        static CACHE: OnceLock<Cache> = OnceLock::new();
        let meta = std::fs::metadata(path).ok();
        let (len, mtime) = (
            meta.as_ref().map_or(0, |m| m.len()),
            meta.and_then(|m| m.modified().ok()),
        );
        let cache = CACHE.get_or_init(Default::default);
        if let Some((l, t, o)) = cache.lock().expect("oracle cache").get(path) {
            if *l == len && *t == mtime {
                return Ok(o.clone());
            }
        }
        let o = Arc::new(Oracle::load(path)?);
        cache
            .lock()
            .expect("oracle cache")
            .insert(path.to_string(), (len, mtime, o.clone()));
        Ok(o)
    }
}

/// Checks `core.caws.*` (the variant, the resets, and that a named oracle file reads).
pub fn validate(c: &CawsConfig) -> Result<(), ConfigError> {
    let bad = |k: &str, r: String| ConfigError {
        key: format!("core.caws.{k}"),
        reason: r,
        file: None,
        line: None,
    };
    if !VARIANTS.contains(&c.variant.as_str()) {
        return Err(bad(
            "variant",
            format!(
                "unknown CAWS variant `{}` (known: {})",
                c.variant,
                VARIANTS.join(", ")
            ),
        ));
    }
    for (k, v) in [
        ("reset_critical", c.reset_critical),
        ("reset_normal", c.reset_normal),
        ("reset_fast", c.reset_fast),
    ] {
        if v == 0 {
            return Err(bad(k, "must be positive".into()));
        }
    }
    if !c.oracle.is_empty() {
        Oracle::shared(&c.oracle)?;
    }
    Ok(())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    Critical,
    Normal,
    Fast,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Variant {
    Blk,
    Sm,
    Avg,
}

struct Caws {
    variant: Variant,
    /// Resets of critical, normal and fast warps.
    reset: [u32; 3],
    oracle: Option<Arc<Oracle>>,
    /// Priority counter per warp slot, in units of `1/reset_normal` issues.
    counter: [u64; 64],
    level: [Level; 64],
    /// Oracle time per slot (`None`: unknown).
    time: [Option<u64>; 64],
    /// CTA slot of each warp slot.
    cta_slot: [u8; 64],
    /// Live warps of the whole SM, and of this scheduler.
    live: u64,
    mine: u64,
    /// Warps prioritised as critical since they started.
    ever_critical: u64,
    /// `sm`: the ranking is stale (a warp started or retired).
    dirty: bool,
}

pub(super) fn new(c: &CoreConfig) -> Box<dyn WarpScheduler> {
    let k = &c.caws;
    let variant = match k.variant.as_str() {
        "blk" => Variant::Blk,
        "sm" => Variant::Sm,
        _ => Variant::Avg,
    };
    // Validated with the configuration; a file that vanished since then means no oracle.
    let oracle = (!k.oracle.is_empty())
        .then(|| Oracle::shared(&k.oracle).ok())
        .flatten();
    Box::new(Caws {
        variant,
        reset: [k.reset_critical, k.reset_normal, k.reset_fast],
        oracle,
        counter: [0; 64],
        level: [Level::Normal; 64],
        time: [None; 64],
        cta_slot: [0; 64],
        live: 0,
        mine: 0,
        ever_critical: 0,
        dirty: false,
    })
}

impl Caws {
    fn set_level(&mut self, w: usize, l: Level) {
        self.level[w] = l;
        if l == Level::Critical {
            self.ever_critical |= 1 << w;
        }
    }

    /// The static level of a warp (`blk`, `avg`) from its CTA's oracle times.
    fn static_level(&self, info: &WarpInfo) -> Level {
        let Some(times) = self
            .oracle
            .as_ref()
            .and_then(|o| o.cta(info.launch, info.cta))
        else {
            return Level::Normal;
        };
        let Some(&t) = times.get(info.warp as usize) else {
            return Level::Normal;
        };
        match self.variant {
            Variant::Blk => {
                // The first warp with the longest time is the CTA's critical warp.
                let max = times.iter().copied().max().unwrap_or(0);
                let first = times.iter().position(|&x| x == max);
                if first == Some(info.warp as usize) {
                    Level::Critical
                } else {
                    Level::Normal
                }
            }
            Variant::Avg => {
                let avg = times.iter().sum::<u64>() as f64 / times.len() as f64;
                if t as f64 > CRITICAL_ABOVE * avg {
                    Level::Critical
                } else if (t as f64) < FAST_BELOW * avg {
                    Level::Fast
                } else {
                    Level::Normal
                }
            }
            Variant::Sm => Level::Normal,
        }
    }

    /// `sm`: the N live warps with the longest oracle times are critical, N = resident CTAs.
    fn rank_sm(&mut self) {
        let mut ctas = 0u64;
        let mut known: Vec<(u64, usize)> = Vec::with_capacity(64);
        let mut m = self.live;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            ctas |= 1 << self.cta_slot[w];
            if let Some(t) = self.time[w] {
                known.push((t, w));
            }
            self.level[w] = Level::Normal;
        }
        // Longest first; ties by the lower slot (deterministic).
        known.sort_by_key(|&(t, w)| (std::cmp::Reverse(t), w));
        for &(_, w) in known.iter().take(ctas.count_ones() as usize) {
            self.set_level(w, Level::Critical);
        }
    }

    /// The counter of warp `w` after it issues: its level's reset times the live warps.
    fn reset_of(&self, w: usize) -> u64 {
        self.reset[match self.level[w] {
            Level::Critical => 0,
            Level::Normal => 1,
            Level::Fast => 2,
        }] as u64
            * self.mine.count_ones() as u64
    }

    /// Whether slot `a` comes before slot `b` in priority order.
    fn before(&self, a: usize, b: usize) -> bool {
        (self.counter[a], a) < (self.counter[b], b)
    }
}

impl WarpScheduler for Caws {
    fn pick(&mut self, v: &SchedView<'_>) -> Option<usize> {
        if self.dirty {
            self.dirty = false;
            self.rank_sm();
        }
        let mut best: Option<usize> = None;
        let mut m = v.ready;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            if best.is_none_or(|b| self.before(w, b)) {
                best = Some(w);
            }
        }
        best
    }

    fn on_issue(&mut self, warp: usize) {
        let step = self.reset[1] as u64;
        let mut m = self.mine & !(1u64 << warp);
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            self.counter[w] = self.counter[w].saturating_sub(step);
        }
        self.counter[warp] = self.reset_of(warp);
    }

    fn visited_before(&self, v: &SchedView<'_>, pick: usize) -> u64 {
        let mut out = 0u64;
        let mut m = v.valid & !v.ready;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            if self.before(w, pick) {
                out |= 1 << w;
            }
        }
        out
    }

    fn warp_started(&mut self, slot: usize, info: &WarpInfo, mine: bool) {
        let bit = 1u64 << slot;
        self.time[slot] = self
            .oracle
            .as_ref()
            .and_then(|o| o.cta(info.launch, info.cta))
            .and_then(|t| t.get(info.warp as usize).copied());
        self.cta_slot[slot] = info.cta_slot;
        self.ever_critical &= !bit;
        self.live |= bit;
        if mine {
            self.counter[slot] = self.mine.count_ones() as u64 * self.reset[1] as u64;
            self.mine |= bit;
        }
        if self.variant == Variant::Sm {
            // Ranked at the next pick, once the whole CTA is placed.
            self.dirty = true;
        } else {
            let l = self.static_level(info);
            self.set_level(slot, l);
        }
    }

    fn warp_finished(&mut self, slot: usize) {
        let bit = 1u64 << slot;
        self.live &= !bit;
        self.mine &= !bit;
        self.time[slot] = None;
        self.level[slot] = Level::Normal;
        if self.variant == Variant::Sm {
            self.dirty = true;
        }
    }

    fn was_critical(&self, slot: usize) -> bool {
        self.ever_critical & (1 << slot) != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn core(variant: &str, oracle: &str) -> CoreConfig {
        let mut c = crate::GpuConfig::preset("gtx480").unwrap().core;
        c.caws.variant = variant.into();
        c.caws.oracle = oracle.into();
        c
    }

    fn oracle_file(name: &str, o: &Oracle) -> String {
        let p = std::env::temp_dir().join(format!("wf-caws-{}-{name}.json", std::process::id()));
        o.save(&p).unwrap();
        p.display().to_string()
    }

    fn info(cta: u32, warp: u32) -> WarpInfo {
        WarpInfo {
            launch: 0,
            cta,
            warp,
            cta_slot: cta as u8,
        }
    }

    /// Issues `n` times with every warp of `valid` ready; counts issues per slot.
    fn issue_counts(s: &mut Box<dyn WarpScheduler>, valid: u64, n: usize) -> [u32; 64] {
        let age = [0u64; 64];
        let v = SchedView {
            valid,
            ready: valid,
            long_wait: 0,
            age: &age,
            crit: &[0; 64],
        };
        let mut c = [0u32; 64];
        for _ in 0..n {
            let w = s.pick(&v).unwrap();
            s.on_issue(w);
            c[w] += 1;
        }
        c
    }

    #[test]
    fn without_critical_warps_it_is_round_robin() {
        let mut s = new(&core("avg", ""));
        for w in 0..24 {
            s.warp_started(w, &info(0, w as u32), true);
        }
        let age = [0u64; 64];
        let v = SchedView {
            valid: (1 << 24) - 1,
            ready: (1 << 24) - 1,
            long_wait: 0,
            age: &age,
            crit: &[0; 64],
        };
        let order: Vec<usize> = (0..48)
            .map(|_| {
                let w = s.pick(&v).unwrap();
                s.on_issue(w);
                w
            })
            .collect();
        let want: Vec<usize> = (0..48).map(|i| i % 24).collect();
        assert_eq!(order, want);
    }

    #[test]
    fn a_critical_warp_gets_a_fifth_more_issue_slots() {
        // CTA 0: warp 3 is the slowest; `blk` boosts only it.
        let mut times = vec![100u64; 16];
        times[3] = 150;
        let o = Oracle {
            kernels: vec![OracleKernel {
                kernel: "k".into(),
                ctas: vec![times],
            }],
        };
        let path = oracle_file("blk", &o);
        let mut s = new(&core("blk", &path));
        for w in 0..16 {
            s.warp_started(w, &info(0, w as u32), true);
        }
        let c = issue_counts(&mut s, 0xffff, 48 * 100);
        let share = c[3] as f64 / c[0] as f64;
        assert!((1.12..1.28).contains(&share), "critical/normal = {share}");
        assert!(s.was_critical(3) && !s.was_critical(0));
        // A stalled warp is skipped, and the next ready one in counter order issues.
        let age = [0u64; 64];
        let v = SchedView {
            valid: 0xffff,
            ready: 0xffff & !(1 << 3),
            long_wait: 0,
            age: &age,
            crit: &[0; 64],
        };
        let p = s.pick(&v).unwrap();
        assert_ne!(p, 3);
        assert_eq!(s.visited_before(&v, p) & !(1 << 3), 0);
    }

    #[test]
    fn avg_has_three_levels_and_sm_ranks_across_ctas() {
        // CTA 0 (16 warps, average 100): warp 2 is critical (> 120), warp 3 fast (< 80).
        let mut cta0 = vec![100u64; 16];
        cta0[2] = 140;
        cta0[3] = 60;
        let o = Oracle {
            kernels: vec![OracleKernel {
                kernel: "k".into(),
                ctas: vec![cta0, vec![100, 300, 100, 100], vec![10, 10, 10, 10]],
            }],
        };
        let path = oracle_file("avg", &o);
        let mut s = new(&core("avg", &path));
        for w in 0..16 {
            s.warp_started(w, &info(0, w as u32), true);
        }
        let c = issue_counts(&mut s, 0xffff, 16000);
        assert!(c[2] > c[0] && c[0] > c[3], "{:?}", &c[..4]);
        let (up, down) = (c[2] as f64 / c[0] as f64, c[3] as f64 / c[0] as f64);
        assert!(up > 1.1 && down < 0.9, "{up} {down}");
        assert!(s.was_critical(2) && !s.was_critical(0) && !s.was_critical(3));

        // `sm` with CTAs 0 and 1 resident (4 warps each here): the two longest warps of the SM
        // (CTA 1's warp 1, 300, and CTA 0's warp 2, 140) are critical. CTA 1 leaves, CTA 2
        // (all 10) comes: the two longest are now CTA 0's warps 2 and 0 (100, the lower slot).
        let mut s = new(&core("sm", &path));
        for cta in 0..2u32 {
            for w in 0..4u32 {
                s.warp_started((4 * cta + w) as usize, &info(cta, w), true);
            }
        }
        issue_counts(&mut s, 0xff, 1);
        assert!(s.was_critical(2) && s.was_critical(5));
        assert!(!(0..8).any(|w| w != 2 && w != 5 && s.was_critical(w)));
        for w in 4..8 {
            s.warp_finished(w);
        }
        for w in 0..4u32 {
            s.warp_started(4 + w as usize, &info(2, w), true);
        }
        issue_counts(&mut s, 0xff, 1);
        assert!(s.was_critical(0) && s.was_critical(2));
        assert!(!(4..8).any(|w| s.was_critical(w)));
    }

    #[test]
    fn bad_oracle_files_and_variants_are_refused() {
        let p = std::env::temp_dir().join(format!("wf-caws-bad-{}.json", std::process::id()));
        std::fs::write(&p, "{\n\"kernels\": 3}").unwrap();
        let mut c = core("avg", "");
        c.caws.oracle = p.display().to_string();
        let e = validate(&c.caws).unwrap_err();
        assert_eq!(e.key, "core.caws.oracle");
        assert_eq!(e.line, Some(2));
        c.caws.oracle = "/nonexistent/oracle.json".into();
        assert!(validate(&c.caws).is_err());
        c.caws.oracle.clear();
        c.caws.variant = "nope".into();
        let e = validate(&c.caws).unwrap_err();
        assert!(e.reason.contains("blk, sm, avg"), "{e}");
    }
}
