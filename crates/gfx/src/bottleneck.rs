//! Algorithms 1 and 2 of document 004 (section 2.5): the bottleneck vector, found by walking the
//! active pipeline path from back to front, continuing upstream past a unit only while it is
//! underloaded. The `else` of the printed listing belongs to the early-Z test (section 2.5 fix).

use crate::counters::Bits;
use crate::stream::Unit;

/// One bit per unit, indexed by `Unit as usize`.
pub type Bottleneck = [bool; 5];

/// Algorithm 1 on the classification bits `b` (indexed by `Unit as usize`) for the current
/// draw state (`early_z`).
pub fn detect(b: &[Bits; 5], early_z: bool) -> Bottleneck {
    let [fe, zs, sh, cw, bt] = Unit::ALL.map(|u| b[u as usize]);
    let mut out = [false; 5];
    let set = |out: &mut Bottleneck, u: Unit| out[u as usize] = true;
    if cw.bottlenecked() {
        set(&mut out, Unit::Cw);
    }
    if bt.bottlenecked() {
        set(&mut out, Unit::Bt);
    }
    if cw.underloaded() {
        if early_z {
            if sh.bottlenecked_all() {
                set(&mut out, Unit::Sh);
            }
            if sh.underloaded() {
                if zs.bottlenecked() {
                    set(&mut out, Unit::Zs);
                }
                if zs.underloaded() {
                    check_fe(&fe, &mut out);
                }
            }
        } else {
            if zs.bottlenecked() {
                set(&mut out, Unit::Zs);
            }
            if zs.underloaded() {
                if sh.bottlenecked_all() {
                    set(&mut out, Unit::Sh);
                }
                if sh.underloaded() {
                    check_fe(&fe, &mut out);
                }
            }
        }
    }
    out
}

/// Algorithm 2: a bottlenecked FE also marks SH and ZS.
fn check_fe(fe: &Bits, out: &mut Bottleneck) {
    if fe.bottlenecked() {
        for u in [Unit::Fe, Unit::Sh, Unit::Zs] {
            out[u as usize] = true;
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
}
