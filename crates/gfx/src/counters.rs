//! Request-flow monitoring counters and the classification bits derived from them (document 004
//! sections 2.3-2.4).
//!
//! Every unit instance has two 8-bit up/down saturating counters, `C_in` and `C_out`, starting at
//! 128 and stepped at the end of every GPU cycle: `C_in` up iff the instance's pending requests
//! *exceed* `th_in` (`>`, as printed: more work waits than the unit can take in one cycle at its
//! peak input rate), `C_out` up iff its completions reach `th_out`. For `C_out` "reach" is `>=`
//! (section 2.3 \[INTERP\]: with `th_out` equal to the peak output rate, `>` could never be true).
//! A fractional `th_out`
//! (the shader cores, `th = peak / cycles per fragment`) is compared through a rate accumulator:
//! `acc = clamp(acc + completed - th, -1, 1)`, up iff `acc >= 0`, i.e. the recent completion rate
//! is at least `th`.

use crate::stream::Unit;

/// Counter width `w` (section 2.3).
pub const WIDTH: u32 = 8;
/// Initial value and classification threshold, 2^(w-1).
pub const MID: u8 = 1 << (WIDTH - 1);

/// A w-bit up/down saturating counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SatCounter(pub u8);

impl Default for SatCounter {
    fn default() -> Self {
        SatCounter(MID)
    }
}

impl SatCounter {
    /// One step: +1 when `up`, else −1, saturating at [0, 2^w − 1].
    pub fn step(&mut self, up: bool) {
        self.0 = if up {
            self.0.saturating_add(1)
        } else {
            self.0.saturating_sub(1)
        };
    }

    /// Above the mid-point (the recent majority of steps were up).
    pub fn high(self) -> bool {
        self.0 > MID
    }
}

/// The two counters of one unit instance.
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowCounter {
    /// Arrival/occupancy counter.
    pub c_in: SatCounter,
    /// Completion counter.
    pub c_out: SatCounter,
    acc: f64,
}

impl FlowCounter {
    /// End-of-cycle update with this cycle's pending requests and completions against the
    /// thresholds `th_in` and `th_out` (requests, requests per cycle).
    pub fn observe(&mut self, pending: f64, completed: f64, th_in: f64, th_out: f64) {
        self.c_in.step(pending > th_in);
        let up = if th_out >= 1.0 {
            completed >= th_out
        } else {
            self.acc = (self.acc + completed - th_out).clamp(-1.0, 1.0);
            self.acc >= 0.0
        };
        self.c_out.step(up);
    }
}

/// The classification bits of one unit (section 2.4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bits {
    /// IOccupancy: `C_in` of any instance above the mid-point.
    pub io: bool,
    /// AOccupancy: `C_in` of all instances above the mid-point.
    pub ao: bool,
    /// Throughput: `C_out` of all instances above the mid-point.
    pub th: bool,
}

impl Bits {
    /// Derives the bits from a unit's instances.
    pub fn of(instances: &[FlowCounter]) -> Bits {
        Bits {
            io: instances.iter().any(|c| c.c_in.high()),
            ao: !instances.is_empty() && instances.iter().all(|c| c.c_in.high()),
            th: !instances.is_empty() && instances.iter().all(|c| c.c_out.high()),
        }
    }

    /// Bottlenecked by the general rule: TH = 0 and IO = 1.
    pub fn bottlenecked(self) -> bool {
        !self.th && self.io
    }

    /// Bottlenecked by the shader rule: TH = 0 and AO = 1 (every core has work).
    pub fn bottlenecked_all(self) -> bool {
        !self.th && self.ao
    }

    /// Underloaded: AO = 0 (for single-instance units AO = IO, section 2.4 \[INTERP\]).
    pub fn underloaded(self) -> bool {
        !self.ao
    }
}

/// The counters of all units: FE ×1, ZS ×n, SH ×cores, CW ×n, BT ×1 (98 instances in the
/// evaluated GPU, 196 bytes, section 6).
pub struct FlowCounters {
    /// Instances per unit, indexed by `Unit as usize`.
    pub units: [Vec<FlowCounter>; 5],
}

impl FlowCounters {
    /// Counters for `rops` ROPs and `cores` shader cores.
    pub fn new(rops: usize, cores: usize) -> Self {
        let n = |k: usize| vec![FlowCounter::default(); k];
        Self {
            units: [n(1), n(rops), n(cores), n(rops), n(1)],
        }
    }

    /// The classification bits of every unit, indexed by `Unit as usize`.
    pub fn bits(&self) -> [Bits; 5] {
        Unit::ALL.map(|u| Bits::of(&self.units[u as usize]))
    }

    /// Storage in bytes: two w-bit counters per instance.
    pub fn storage_bytes(&self) -> usize {
        self.units.iter().map(Vec::len).sum::<usize>() * 2 * WIDTH as usize / 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counter_saturates_and_needs_a_majority() {
        let mut c = SatCounter::default();
        assert!(!c.high(), "starts at the mid-point, not above it");
        c.step(true);
        assert!(c.high());
        for _ in 0..1000 {
            c.step(true);
        }
        assert_eq!(c.0, 255);
        for _ in 0..1000 {
            c.step(false);
        }
        assert_eq!(c.0, 0);
    }

    #[test]
    fn fractional_threshold_tracks_rate() {
        // th_out = 0.2: one completion every 5 cycles is enough, every 7 is not.
        let mut fast = FlowCounter::default();
        let mut slow = FlowCounter::default();
        for t in 0..2000 {
            fast.observe(1.0, if t % 5 == 0 { 1.0 } else { 0.0 }, 0.2, 0.2);
            slow.observe(1.0, if t % 7 == 0 { 1.0 } else { 0.0 }, 0.2, 0.2);
        }
        assert!(fast.c_out.high());
        assert!(!slow.c_out.high());
    }

    #[test]
    fn full_queue_and_no_output_is_a_bottleneck_empty_queue_is_underloaded() {
        let mut busy = [FlowCounter::default(); 4];
        let mut idle = [FlowCounter::default(); 4];
        for _ in 0..300 {
            for c in &mut busy {
                c.observe(16.0, 0.0, 1.0, 1.0); // queue full, nothing completes
            }
            for c in &mut idle {
                c.observe(0.0, 0.0, 1.0, 1.0); // empty queue
            }
        }
        let b = Bits::of(&busy);
        assert!(b.io && b.ao && !b.th && b.bottlenecked() && !b.underloaded());
        let i = Bits::of(&idle);
        assert!(!i.io && !i.bottlenecked() && i.underloaded());
        // One busy instance among idle ones: occupied (IO) but not all (AO = 0).
        let mut mixed = idle;
        mixed[0] = busy[0];
        let m = Bits::of(&mixed);
        assert!(m.io && !m.ao && m.bottlenecked() && !m.bottlenecked_all() && m.underloaded());
    }

    #[test]
    fn occupancy_needs_more_pending_than_the_peak_input_rate() {
        // Section 2.3: C_in rises iff pending > th_in. A ROP fed at its peak rate holds exactly
        // one quad (th_in = 1) and is not occupied; two waiting quads are.
        let (mut streaming, mut backed_up) = (FlowCounter::default(), FlowCounter::default());
        for _ in 0..300 {
            streaming.observe(1.0, 1.0, 1.0, 1.0);
            backed_up.observe(2.0, 1.0, 1.0, 1.0);
        }
        assert!(!streaming.c_in.high() && streaming.c_out.high());
        assert!(backed_up.c_in.high());
        let b = Bits::of(&[streaming]);
        assert!(!b.io && !b.bottlenecked() && b.underloaded());
    }

    #[test]
    fn one_instance_has_ao_equal_to_io_and_throughput_needs_every_instance() {
        // Section 2.4: IO any, AO all instances, TH all instances. A single instance (FE, BT)
        // has AO = IO; one slow instance among flowing ones clears TH.
        let (mut flowing, mut slow) = (FlowCounter::default(), FlowCounter::default());
        for _ in 0..300 {
            flowing.observe(4.0, 1.0, 1.0, 1.0); // occupied, at peak throughput
            slow.observe(4.0, 0.0, 1.0, 1.0); // occupied, nothing completes
        }
        let one = Bits::of(&[flowing]);
        assert!(one.io && one.ao && one.th && !one.bottlenecked() && !one.underloaded());
        let idle = Bits::of(&[FlowCounter::default()]);
        assert_eq!(idle.io, idle.ao);
        let three = Bits::of(&[flowing, flowing, slow]);
        assert!(three.io && three.ao && !three.th && three.bottlenecked());
    }

    #[test]
    fn evaluated_gpu_counters_take_196_bytes() {
        assert_eq!(FlowCounters::new(16, 64).storage_bytes(), 196);
    }
}
