//! Digest §7.3: log factor, special-linear transform, the 137.4 W FP-only kernel, σ and the RC
//! rise fractions; plus the GTX580 linear model and the IPP optimal-SM rule (Eq 63).

use warpforge_models::params::builtin;
use warpforge_models::power::{access_rates, log_factor, special_linear, Unit, UnitCounts};
use warpforge_models::thermal::rc_rise_fraction;

fn close(a: f64, b: f64, tol: f64) {
    assert!((a - b).abs() <= tol, "{a} vs {b} (tol {tol})");
}

#[test]
fn log_factor_gtx280() {
    let want = [
        (1.0, 0.14509),
        (5.0, 0.41218),
        (10.0, 0.60924),
        (15.0, 0.74429),
        (19.0, 0.82845),
        (20.0, 0.84716),
        (25.0, 0.93027),
        (30.0, 1.0),
    ];
    for (s, w) in want {
        close(log_factor(s, 30.0, 1.1), w, 5e-6);
    }
}

#[test]
fn special_linear_values() {
    for (ar, w) in [
        (1.0, 1.00138),
        (0.5, 0.90676),
        (0.1, 0.68707),
        (0.01, 0.37277),
        (0.001, 0.05847),
    ] {
        close(special_linear(ar), w, 1e-5); // digest rounds to 5 decimals
    }
    // Erratum 9: clamped at 0 below e^-7.336 and for an unused unit.
    assert_eq!(special_linear(0.0), 0.0);
    assert_eq!(special_linear(1e-4), 0.0);
}

#[test]
fn fp_only_kernel_137_4_w() {
    let d = builtin("gtx280").unwrap();
    let p = d.power.as_ref().unwrap();
    close(p.sum_sm_max_w(), 5.063, 1e-9);
    let mut ar = UnitCounts::default();
    ar.add(Unit::Fp, 1.0);
    ar.add(Unit::Reg, 1.0);
    ar.add(Unit::Fds, 1.0);
    let b = p.evaluate(&ar, 30.0, 30.0);
    close(b.sm_component_w, 1.8144, 5e-5);
    close(b.runtime_w, 54.43, 5e-3);
    close(b.total_w, 137.4, 0.05);
    close(b.memory_w, 0.0, 0.0);
}

#[test]
fn access_rate_is_one_at_peak_issue() {
    // One FP instruction per warp, 8 warps, executed in 8 issue slots of 4 cycles: AR = 1.
    let mut dac = UnitCounts::default();
    dac.add(Unit::Fp, 1.0);
    dac.add(Unit::Fds, 1.0);
    let ar = access_rates(&dac, 8.0, 32.0, 4.0);
    close(ar.get(Unit::Fp), 1.0, 1e-12);
    let ar = access_rates(&dac, 8.0, 64.0, 4.0);
    close(ar.get(Unit::Fds), 0.5, 1e-12);
}

#[test]
fn fewer_active_sms_draw_less_power_gtx280() {
    let d = builtin("gtx280").unwrap();
    let p = d.power.as_ref().unwrap();
    let mut ar = UnitCounts::default();
    ar.add(Unit::Fp, 1.0);
    ar.add(Unit::Fds, 1.0);
    let one = p.evaluate(&ar, 1.0, 30.0).total_w;
    let all = p.evaluate(&ar, 30.0, 30.0).total_w;
    assert!(one < all && one > p.idle_w);
}

#[test]
fn gtx580_linear_in_active_sms() {
    let d = builtin("gtx580").unwrap();
    let p = d.power.as_ref().unwrap();
    let mut ar = UnitCounts::default();
    ar.add(Unit::Fp, 1.0);
    ar.add(Unit::Fds, 1.0);
    ar.add(Unit::Reg, 1.0);
    let p1 = p.evaluate(&ar, 1.0, 16.0).total_w;
    let p2 = p.evaluate(&ar, 2.0, 16.0).total_w;
    let p16 = p.evaluate(&ar, 16.0, 16.0).total_w;
    close(p16 - p1, 15.0 * (p2 - p1), 1e-9);
    // Idle 27 + activation 64 = 91 W before any SM power: the measured 93 W at 1 SM is 91 + one SM.
    assert!(p1 > 91.0 && p1 < 95.0, "{p1}");
}

#[test]
fn sigma_and_rc_rise() {
    let t = builtin("gtx280").unwrap().thermal.unwrap();
    close(t.sigma_w_per_c, 0.4545, 5e-5);
    close(t.sigma_w_per_c * 21.0, 9.5, 0.05); // SVM +21 C ~ "10 W"
    close(t.sigma_w_per_c * 11.0, 5.0, 1e-9); // INT +11 C ~ "5 W"
    close(
        t.runtime_power_at(50.0, 78.0),
        50.0 + 21.0 * t.sigma_w_per_c,
        1e-12,
    );
    for (s, w, tol) in [
        (35.0, 0.632, 5e-4),
        (60.0, 0.820, 5e-4),
        (175.0, 0.993, 5e-4),
        (600.0, 1.0, 1e-6),
    ] {
        close(rc_rise_fraction(s, t.rc_rise_s), w, tol);
    }
    // Eq 53 read as a rise: INT-like (no memory) and SVM-like rises land in the measured band.
    let rise = t.max_rise_c(50.0, 0.0);
    assert!(rise > 5.0 && rise < 22.0);
    close(t.temperature_rise(rise, 1e6), 57.0 + rise, 1e-9);
    close(t.temperature_decay(78.0, 0.0), 78.0, 1e-12);
    close(
        t.temperature_decay(78.0, 60.0),
        57.0 + 21.0 / std::f64::consts::E,
        1e-9,
    );
}
