//! Algorithms 1 and 2 of document 004 (section 2.5): the bottleneck vector, found by walking the
//! active pipeline path from back to front, continuing upstream past a unit only while it is
//! underloaded. The `else` of the printed listing belongs to the early-Z test (section 2.5 fix).
//!
//! Decision on the printed listing \[INTERP\]: it has one `end if` more than it has `if`s, and
//! read as printed (an `end if` closing the early-Z test, then `else`) the late-Z walk would run
//! when CW is *not* underloaded, i.e. exactly when the prose says the walk stops ("if the
//! algorithm encounters an underloaded unit U, it examines the unit V in front of U"). The prose
//! also says the algorithm "traverses the path FE-ZS-SH-CW (if early-Z is enabled) or the path
//! FE-SH-ZS-CW (if early-Z is disabled) from back to front", so the `else` is taken as the
//! early-Z test's and both walks start only from an underloaded CW (tests
//! `busy_cw_stops_the_walk`, `late_z_walk_also_needs_an_underloaded_cw`).

use crate::counters::Bits;
use crate::stream::Unit;

/// One bit per unit, indexed by `Unit as usize`.
pub type Bottleneck = [bool; 5];

/// What one run of Algorithm 1 did (diagnostic of claim 4): the bottleneck vector, the units
/// whose bottleneck test the walk reached, and whether Algorithm 2 fired (an FE bottleneck,
/// which also marks SH and ZS).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Walk {
    /// The bottleneck vector (index = `Unit as usize`).
    pub bottleneck: Bottleneck,
    /// Units whose bottleneck test was evaluated (CW and BT always).
    pub examined: [bool; 5],
    /// Algorithm 2 found FE bottlenecked (and so set SH and ZS too).
    pub fe_rule: bool,
    /// The unit at which the walk stopped: its test was evaluated and it was not underloaded
    /// (AO = 1), so no unit in front of it was examined. At most one is set; none when the walk
    /// reached FE, the end of the path (diagnostic of claim 4, session 25).
    pub stopped: [bool; 5],
}

/// Algorithm 1 on the classification bits `b` (indexed by `Unit as usize`) for the current
/// draw state (`early_z`).
pub fn detect(b: &[Bits; 5], early_z: bool) -> Bottleneck {
    walk(b, early_z).bottleneck
}

/// Algorithm 1 with its trace ([`Walk`]).
pub fn walk(b: &[Bits; 5], early_z: bool) -> Walk {
    let [fe, zs, sh, cw, bt] = Unit::ALL.map(|u| b[u as usize]);
    let mut w = Walk::default();
    let test = |w: &mut Walk, u: Unit, hit: bool| {
        w.examined[u as usize] = true;
        if hit {
            w.bottleneck[u as usize] = true;
        }
    };
    test(&mut w, Unit::Cw, cw.bottlenecked());
    test(&mut w, Unit::Bt, bt.bottlenecked());
    let stop = |w: &mut Walk, u: Unit| w.stopped[u as usize] = true;
    if !cw.underloaded() {
        stop(&mut w, Unit::Cw);
    } else if early_z {
        test(&mut w, Unit::Sh, sh.bottlenecked_all());
        if !sh.underloaded() {
            stop(&mut w, Unit::Sh);
        } else {
            test(&mut w, Unit::Zs, zs.bottlenecked());
            if !zs.underloaded() {
                stop(&mut w, Unit::Zs);
            } else {
                check_fe(&fe, &mut w);
            }
        }
    } else {
        test(&mut w, Unit::Zs, zs.bottlenecked());
        if !zs.underloaded() {
            stop(&mut w, Unit::Zs);
        } else {
            test(&mut w, Unit::Sh, sh.bottlenecked_all());
            if !sh.underloaded() {
                stop(&mut w, Unit::Sh);
            } else {
                check_fe(&fe, &mut w);
            }
        }
    }
    w
}

/// Algorithm 2: a bottlenecked FE also marks SH and ZS.
fn check_fe(fe: &Bits, w: &mut Walk) {
    w.examined[Unit::Fe as usize] = true;
    if fe.bottlenecked() {
        w.fe_rule = true;
        for u in [Unit::Fe, Unit::Sh, Unit::Zs] {
            w.bottleneck[u as usize] = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const IDLE: Bits = Bits {
        io: false,
        ao: false,
        th: false,
    };
    const FLOWING: Bits = Bits {
        io: true,
        ao: true,
        th: true,
    };
    const STUCK: Bits = Bits {
        io: true,
        ao: true,
        th: false,
    };
    const PARTLY: Bits = Bits {
        io: true,
        ao: false,
        th: false,
    };

    fn bits(fe: Bits, zs: Bits, sh: Bits, cw: Bits, bt: Bits) -> [Bits; 5] {
        [fe, zs, sh, cw, bt]
    }

    fn units(b: Bottleneck) -> Vec<Unit> {
        Unit::ALL.into_iter().filter(|&u| b[u as usize]).collect()
    }

    #[test]
    fn busy_cw_stops_the_walk() {
        // CW has work everywhere: only CW (and BT) are examined, even with SH and FE stuck.
        let b = detect(&bits(STUCK, STUCK, STUCK, STUCK, IDLE), true);
        assert_eq!(units(b), vec![Unit::Cw]);
        let b = detect(&bits(STUCK, STUCK, STUCK, FLOWING, STUCK), true);
        assert_eq!(units(b), vec![Unit::Bt]);
    }

    #[test]
    fn starved_cw_exposes_the_shader_bottleneck_in_early_z() {
        let b = detect(&bits(STUCK, STUCK, STUCK, IDLE, IDLE), true);
        assert_eq!(
            units(b),
            vec![Unit::Sh],
            "SH is not underloaded: stop there"
        );
        // SH with only some cores occupied is not bottlenecked by the SH rule (needs AO).
        let b = detect(&bits(IDLE, PARTLY, PARTLY, IDLE, IDLE), true);
        assert_eq!(units(b), vec![Unit::Zs]);
    }

    #[test]
    fn late_z_examines_zs_before_sh() {
        let b = detect(&bits(IDLE, STUCK, STUCK, IDLE, IDLE), false);
        assert_eq!(
            units(b),
            vec![Unit::Zs],
            "ZS not underloaded: SH is not reached"
        );
        let b = detect(&bits(IDLE, STUCK, STUCK, IDLE, IDLE), true);
        assert_eq!(units(b), vec![Unit::Sh]);
    }

    #[test]
    fn fe_bottleneck_marks_sh_and_zs_too() {
        let b = detect(&bits(PARTLY, IDLE, IDLE, IDLE, IDLE), true);
        assert_eq!(units(b), vec![Unit::Fe, Unit::Zs, Unit::Sh]);
        let b = detect(&bits(PARTLY, IDLE, IDLE, IDLE, IDLE), false);
        assert_eq!(units(b), vec![Unit::Fe, Unit::Zs, Unit::Sh]);
        // FE flowing: nothing.
        let b = detect(&bits(FLOWING, IDLE, IDLE, IDLE, IDLE), true);
        assert!(units(b).is_empty());
    }

    #[test]
    fn late_z_walk_also_needs_an_underloaded_cw() {
        // The bracket decision: with late-Z and every CW occupied, the walk stops at CW, even
        // with ZS and SH stuck (read as printed, the late-Z branch would run here instead).
        let b = detect(&bits(STUCK, STUCK, STUCK, FLOWING, IDLE), false);
        assert!(units(b).is_empty());
        let w = walk(&bits(STUCK, STUCK, STUCK, FLOWING, IDLE), false);
        assert_eq!(w.examined, [false, false, false, true, true]);
    }

    #[test]
    fn bt_is_checked_whatever_the_draw_path() {
        for early_z in [true, false] {
            for cw in [IDLE, FLOWING, STUCK] {
                let b = detect(&bits(IDLE, IDLE, IDLE, cw, STUCK), early_z);
                assert!(b[Unit::Bt as usize], "cw {cw:?} early_z {early_z}");
            }
        }
    }

    #[test]
    fn one_occupied_instance_flags_cw_by_the_general_rule() {
        // CW (and ZS, BT, FE) by the general rule TH = 0 and IO = 1: one occupied instance with
        // low throughput is enough, where SH needs every core occupied (AO).
        let b = detect(&bits(IDLE, IDLE, IDLE, PARTLY, IDLE), true);
        assert!(b[Unit::Cw as usize]);
        let b = detect(&bits(IDLE, IDLE, PARTLY, IDLE, IDLE), true);
        assert!(!b[Unit::Sh as usize]);
    }

    #[test]
    fn a_flowing_unit_is_not_a_bottleneck_and_an_occupied_one_stops_the_walk() {
        // SH occupied on every core and at peak throughput (TH = 1): not bottlenecked, not
        // underloaded: ZS and FE are not examined, so nothing is marked.
        let w = walk(&bits(STUCK, STUCK, FLOWING, IDLE, IDLE), true);
        assert_eq!(w.bottleneck, [false; 5]);
        assert_eq!(w.examined, [false, false, true, true, true]);
        assert!(!w.fe_rule);
    }

    #[test]
    fn the_walk_stops_at_the_first_unit_that_is_not_underloaded() {
        // Early-Z: an occupied CW stops it there; a starved CW and an occupied SH stop it at SH
        // (ZS not examined); with SH underloaded too, an occupied ZS stops it.
        let w = walk(&bits(STUCK, STUCK, STUCK, FLOWING, IDLE), true);
        assert_eq!(w.stopped, [false, false, false, true, false]);
        let w = walk(&bits(STUCK, STUCK, STUCK, IDLE, IDLE), true);
        assert_eq!(w.stopped, [false, false, true, false, false]);
        assert!(!w.examined[Unit::Zs as usize]);
        let w = walk(&bits(STUCK, STUCK, PARTLY, IDLE, IDLE), true);
        assert_eq!(w.stopped, [false, true, false, false, false]);
        // Late-Z: ZS comes first.
        let w = walk(&bits(STUCK, STUCK, STUCK, IDLE, IDLE), false);
        assert_eq!(w.stopped, [false, true, false, false, false]);
        let w = walk(&bits(STUCK, PARTLY, STUCK, IDLE, IDLE), false);
        assert_eq!(w.stopped, [false, false, true, false, false]);
        // A walk that reaches FE stopped nowhere; every run is one of the two.
        for early_z in [true, false] {
            let w = walk(&bits(STUCK, IDLE, IDLE, IDLE, IDLE), early_z);
            assert_eq!(w.stopped, [false; 5]);
            assert!(w.examined[Unit::Fe as usize]);
            for b in [IDLE, FLOWING, STUCK, PARTLY] {
                let w = walk(&bits(b, b, b, b, b), early_z);
                let stops = w.stopped.iter().filter(|&&x| x).count();
                assert_eq!(stops + w.examined[Unit::Fe as usize] as usize, 1);
            }
        }
    }

    #[test]
    fn the_walk_trace_reports_algorithm_2() {
        let w = walk(&bits(PARTLY, IDLE, IDLE, IDLE, IDLE), false);
        assert!(w.fe_rule);
        assert_eq!(w.examined, [true; 5]);
        let w = walk(&bits(FLOWING, IDLE, IDLE, IDLE, IDLE), true);
        assert!(!w.fe_rule && w.examined[Unit::Fe as usize]);
    }
}
