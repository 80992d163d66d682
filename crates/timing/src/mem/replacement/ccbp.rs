//! CCBP, the Critical Cache Block Predictor of CACP (spec 000 §4.5, Lee 2017 §4.2.3): 2-bit
//! saturating counters indexed by the same 8-bit signature as SHiP. A hit by a critical warp
//! increments the line's counter; a line evicted from the critical partition that only
//! non-critical warps reused decrements it; a line whose signature's counter is above the
//! threshold is inserted into the critical partition.
//!
//! Decisions (§4.5 "unspecified parameters"): threshold 1 with the literal `> Threshold` test
//! (the upper half of the 2-bit range), counters start at 0 (lines are non-critical until a
//! critical warp is seen reusing their signature).

use super::ship::SIGNATURES;

/// Counter saturation value (2-bit counters).
const CCBP_MAX: u8 = 3;
/// A signature predicts "critical" when its counter exceeds this.
const THRESHOLD: u8 = 1;

/// The CCBP table.
pub(super) struct Ccbp {
    ctr: Vec<u8>,
}

impl Ccbp {
    pub(super) fn new() -> Self {
        Self {
            ctr: vec![0; SIGNATURES],
        }
    }
    /// Whether a line of signature `sig` belongs in the critical partition.
    #[inline]
    pub(super) fn predicts_critical(&self, sig: u8) -> bool {
        self.ctr[sig as usize] > THRESHOLD
    }
    /// A critical warp reused a line of signature `sig`.
    #[inline]
    pub(super) fn inc(&mut self, sig: u8) {
        let c = &mut self.ctr[sig as usize];
        *c = (*c + 1).min(CCBP_MAX);
    }
    /// A line of signature `sig` was wrongly predicted critical.
    #[inline]
    pub(super) fn dec(&mut self, sig: u8) {
        let c = &mut self.ctr[sig as usize];
        *c = c.saturating_sub(1);
    }
    #[cfg(test)]
    pub(super) fn get(&self, sig: u8) -> u8 {
        self.ctr[sig as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_bit_counters_saturate_and_threshold_is_the_upper_half() {
        let mut c = Ccbp::new();
        assert!(!c.predicts_critical(5));
        c.inc(5);
        assert!(!c.predicts_critical(5), "1 is not above the threshold");
        c.inc(5);
        assert!(c.predicts_critical(5));
        for _ in 0..10 {
            c.inc(5);
        }
        assert_eq!(c.get(5), CCBP_MAX, "saturates at 3");
        c.dec(5);
        assert!(
            c.predicts_critical(5),
            "one wrong prediction does not flip a saturated counter"
        );
        c.dec(5);
        assert!(!c.predicts_critical(5));
        for _ in 0..10 {
            c.dec(5);
        }
        assert_eq!(c.get(5), 0);
        assert_eq!(c.get(6), 0, "other signatures untouched");
    }
}
