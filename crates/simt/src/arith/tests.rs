//! Property tests of the arithmetic against an independent software IEEE implementation
//! (`rustc_apfloat`, LLVM's APFloat port) in every rounding direction, exact bracketing checks
//! for square roots, and the ISA error bounds of the `.approx` functions.

use proptest::prelude::*;
use rustc_apfloat::ieee::{BFloat, Double, Half, Quad, Single};
use rustc_apfloat::{Float, FloatConvert, Round};

use super::round::{next_down32, next_down64, next_up32, next_up64};
use super::*;

const MODES: [(Rounding, Round); 4] = [
    (Rounding::Rn, Round::NearestTiesToEven),
    (Rounding::Rz, Round::TowardZero),
    (Rounding::Rm, Round::TowardNegative),
    (Rounding::Rp, Round::TowardPositive),
];

fn s(x: f32) -> Single {
    Single::from_bits(x.to_bits() as u128)
}
fn d(x: f64) -> Double {
    Double::from_bits(x.to_bits() as u128)
}
fn fs(x: Single) -> f32 {
    f32::from_bits(x.to_bits() as u32)
}
fn fd(x: Double) -> f64 {
    f64::from_bits(x.to_bits() as u64)
}

/// Bitwise equality, any NaN equal to any NaN.
fn same32(a: f32, b: f32) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}
fn same64(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

/// f32 values that exercise rounding: random bit patterns (NaN, ∞, subnormals), values near
/// each other (cancellation), extremes.
fn f32v() -> impl Strategy<Value = f32> {
    prop_oneof![
        4 => any::<u32>().prop_map(f32::from_bits),
        2 => (any::<u32>(), -30i32..30).prop_map(|(m, e)| f32::from_bits((m & 0x807F_FFFF) | (((127 + e) as u32) << 23))),
        1 => (any::<u32>(), 0u32..4).prop_map(|(m, e)| f32::from_bits((m & 0x807F_FFFF) | (e << 23))),
        1 => (any::<u32>(), 250u32..255).prop_map(|(m, e)| f32::from_bits((m & 0x807F_FFFF) | (e << 23))),
        1 => (-1000i32..1000).prop_map(|i| i as f32 * 0.25),
    ]
}

fn f64v() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => any::<u64>().prop_map(f64::from_bits),
        2 => (any::<u64>(), -60i64..60).prop_map(|(m, e)| f64::from_bits((m & 0x800F_FFFF_FFFF_FFFF) | (((1023 + e) as u64) << 52))),
        1 => (any::<u64>(), 0u64..4).prop_map(|(m, e)| f64::from_bits((m & 0x800F_FFFF_FFFF_FFFF) | (e << 52))),
        1 => (any::<u64>(), 2040u64..2047).prop_map(|(m, e)| f64::from_bits((m & 0x800F_FFFF_FFFF_FFFF) | (e << 52))),
        1 => (-1000i64..1000).prop_map(|i| i as f64 * 0.125),
    ]
}

/// `b` close to `a` or `-a` (cancellation and exact zeros), or unrelated.
fn pair32() -> impl Strategy<Value = (f32, f32)> {
    prop_oneof![
        (f32v(), f32v()),
        (f32v(), -4i32..4, any::<bool>()).prop_map(|(a, k, neg)| {
            let b = f32::from_bits(a.to_bits().wrapping_add(k as u32));
            (a, if neg { -b } else { b })
        }),
    ]
}

fn pair64() -> impl Strategy<Value = (f64, f64)> {
    prop_oneof![
        (f64v(), f64v()),
        (f64v(), -4i64..4, any::<bool>()).prop_map(|(a, k, neg)| {
            let b = f64::from_bits(a.to_bits().wrapping_add(k as u64));
            (a, if neg { -b } else { b })
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn f32_add_sub_mul_div_match_reference((a, b) in pair32()) {
        for (r, rr) in MODES {
            let want = fs(s(a).add_r(s(b), rr).value);
            prop_assert!(same32(f32_add(a, b, r), want), "add {a:e} {b:e} {r:?}: {} vs {want:e}", f32_add(a, b, r));
            let want = fs(s(a).sub_r(s(b), rr).value);
            prop_assert!(same32(f32_sub(a, b, r), want), "sub {a:e} {b:e} {r:?}");
            let want = fs(s(a).mul_r(s(b), rr).value);
            prop_assert!(same32(f32_mul(a, b, r), want), "mul {a:e} {b:e} {r:?}: {} vs {want:e}", f32_mul(a, b, r));
            let want = fs(s(a).div_r(s(b), rr).value);
            prop_assert!(same32(f32_div(a, b, r), want), "div {a:e} {b:e} {r:?}: {} vs {want:e}", f32_div(a, b, r));
            let want = fs(s(1.0).div_r(s(b), rr).value);
            prop_assert!(same32(f32_rcp(b, r), want), "rcp {b:e} {r:?}");
        }
    }

    #[test]
    fn f32_fma_matches_reference((a, b) in pair32(), c in f32v(), cancel in any::<bool>()) {
        // with `cancel`, c ≈ -(a·b) to provoke exact zeros and massive cancellation
        let c = if cancel { -(a * b) } else { c };
        for (r, rr) in MODES {
            let want = fs(s(a).mul_add_r(s(b), s(c), rr).value);
            let got = f32_fma(a, b, c, r);
            prop_assert!(same32(got, want), "fma {a:e} {b:e} {c:e} {r:?}: {got:e} vs {want:e}");
        }
    }

    #[test]
    fn f64_add_sub_mul_div_match_reference((a, b) in pair64()) {
        for (r, rr) in MODES {
            let want = fd(d(a).add_r(d(b), rr).value);
            prop_assert!(same64(f64_add(a, b, r), want), "add {a:e} {b:e} {r:?}");
            let want = fd(d(a).sub_r(d(b), rr).value);
            prop_assert!(same64(f64_sub(a, b, r), want), "sub {a:e} {b:e} {r:?}");
            let want = fd(d(a).mul_r(d(b), rr).value);
            prop_assert!(same64(f64_mul(a, b, r), want), "mul {a:e} {b:e} {r:?}: {:e} vs {want:e}", f64_mul(a, b, r));
            let want = fd(d(a).div_r(d(b), rr).value);
            prop_assert!(same64(f64_div(a, b, r), want), "div {a:e} {b:e} {r:?}: {:e} vs {want:e}", f64_div(a, b, r));
            let want = fd(d(1.0).div_r(d(b), rr).value);
            prop_assert!(same64(f64_rcp(b, r), want), "rcp {b:e} {r:?}");
        }
    }

    #[test]
    fn f64_fma_matches_reference((a, b) in pair64(), c in f64v(), cancel in 0u8..3) {
        let c = match cancel { 0 => c, 1 => -(a * b), _ => -(a * b) * (1.0 + f64::EPSILON) };
        for (r, rr) in MODES {
            let want = fd(d(a).mul_add_r(d(b), d(c), rr).value);
            let got = f64_fma(a, b, c, r);
            prop_assert!(same64(got, want), "fma {a:e} {b:e} {c:e} {r:?}: {got:e} vs {want:e}");
        }
    }

    #[test]
    fn f32_sqrt_brackets_exactly(a in f32v()) {
        // f32 squares and midpoints are exact in f64.
        let rn = f32_sqrt(a, Rounding::Rn);
        prop_assert!(same32(rn, a.sqrt()));
        if a > 0.0 && a.is_finite() {
            let a64 = a as f64;
            let sq = |x: f32| (x as f64) * (x as f64);
            let rz = f32_sqrt(a, Rounding::Rz);
            let rm = f32_sqrt(a, Rounding::Rm);
            let rp = f32_sqrt(a, Rounding::Rp);
            prop_assert_eq!(rz, rm);
            prop_assert!(sq(rm) <= a64 && a64 < sq(next_up32(rm)), "rm {a:e}");
            prop_assert!(sq(next_down32(rp)) < a64 && a64 <= sq(rp), "rp {a:e}");
            let mid_lo = (next_down32(rn) as f64 + rn as f64) / 2.0;
            let mid_hi = (rn as f64 + next_up32(rn) as f64) / 2.0;
            prop_assert!(mid_lo * mid_lo <= a64 && a64 <= mid_hi * mid_hi, "rn {a:e}");
        }
    }

    #[test]
    fn f64_sqrt_brackets_exactly(a in f64v()) {
        // f64 squares (106 bits) and squared midpoints (108 bits) are exact in binary128.
        let rn = f64_sqrt(a, Rounding::Rn);
        prop_assert!(same64(rn, a.sqrt()));
        if a > 0.0 && a.is_finite() {
            let q = |x: f64| -> Quad { let mut l = false; d(x).convert_r(Round::NearestTiesToEven, &mut l).value };
            let sq = |x: f64| q(x).mul_r(q(x), Round::NearestTiesToEven).value;
            let mid_sq = |x: f64, y: f64| {
                let m = q(x).add_r(q(y), Round::NearestTiesToEven).value.mul_r(q(0.5), Round::NearestTiesToEven).value;
                m.mul_r(m, Round::NearestTiesToEven).value
            };
            let qa = q(a);
            let rm = f64_sqrt(a, Rounding::Rm);
            let rp = f64_sqrt(a, Rounding::Rp);
            prop_assert_eq!(f64_sqrt(a, Rounding::Rz), rm);
            prop_assert!(sq(rm) <= qa && qa < sq(next_up64(rm)), "rm {a:e}");
            prop_assert!(sq(next_down64(rp)) < qa && qa <= sq(rp), "rp {a:e}");
            prop_assert!(mid_sq(next_down64(rn), rn) <= qa && qa <= mid_sq(rn, next_up64(rn)), "rn {a:e}");
        }
    }

    #[test]
    fn directed_results_bracket_nearest((a, b) in pair64()) {
        // rm <= rn <= rp, rz is rm or rp toward zero, rp - rm is at most one step
        let (rn, rz, rm, rp) = (f64_div(a, b, Rounding::Rn), f64_div(a, b, Rounding::Rz), f64_div(a, b, Rounding::Rm), f64_div(a, b, Rounding::Rp));
        if rn.is_finite() && rm.is_finite() && rp.is_finite() {
            prop_assert!(rm <= rn && rn <= rp);
            prop_assert!(rm == rp || next_up64(rm) == rp);
            let toward_zero = if rn >= 0.0 && rm >= 0.0 { rm } else { rp };
            prop_assert!(rz == toward_zero, "rz {a:e} {b:e}");
        }
    }

    #[test]
    fn float_narrowing_matches_reference(x in f64v()) {
        for (r, rr) in MODES {
            let mut l = false;
            let want32: Single = d(x).convert_r(rr, &mut l).value;
            let got = cvt(x.to_bits(), ScalarType::F32, ScalarType::F64, Some(r), false, false) as u32;
            prop_assert!(same32(f32::from_bits(got), fs(want32)), "f64->f32 {x:e} {r:?}");
            let want16: Half = d(x).convert_r(rr, &mut l).value;
            let got = cvt(x.to_bits(), ScalarType::F16, ScalarType::F64, Some(r), false, false);
            let w = want16.to_bits() as u64;
            prop_assert!(if want16.is_nan() { got == 0x7FFF } else { got == w }, "f64->f16 {x:e} {r:?}: {got:#x} vs {w:#x}");
            let wantbf: BFloat = d(x).convert_r(rr, &mut l).value;
            let got = cvt(x.to_bits(), ScalarType::Bf16, ScalarType::F64, Some(r), false, false);
            let w = wantbf.to_bits() as u64;
            prop_assert!(if wantbf.is_nan() { got == 0x7FFF } else { got == w }, "f64->bf16 {x:e} {r:?}: {got:#x} vs {w:#x}");
        }
        // f32 -> f16 as used by the half-precision path
        let xf = x as f32;
        let mut l = false;
        let want: Half = s(xf).convert_r(Round::NearestTiesToEven, &mut l).value;
        if !want.is_nan() {
            prop_assert_eq!(f32_to_f16(xf, Rounding::Rn) as u128, want.to_bits());
            let back: Single = want.convert_r(Round::NearestTiesToEven, &mut l).value;
            prop_assert!(same32(f16_to_f32(want.to_bits() as u16), fs(back)), "f16->f32 {:#x}", want.to_bits());
        }
    }

    #[test]
    fn half_arithmetic_matches_reference(a in any::<u16>(), b in any::<u16>(), c in any::<u16>(), near in any::<bool>()) {
        // `near`: b close to -a (cancellation)
        let b = if near { (a ^ 0x8000).wrapping_add(b % 4) } else { b };
        for (r, rr) in MODES {
            let (ha, hb, hc) = (Half::from_bits(a as u128), Half::from_bits(b as u128), Half::from_bits(c as u128));
            let check = |got: u16, want: Half, what: &str| -> Result<(), TestCaseError> {
                if want.is_nan() {
                    prop_assert!(Half::from_bits(got as u128).is_nan(), "{} {:#x} {:#x} {:#x} {:?}", what, a, b, c, r);
                } else {
                    prop_assert_eq!(got as u128, want.to_bits(), "{} {:#x} {:#x} {:#x} {:?}", what, a, b, c, r);
                }
                Ok(())
            };
            check(half::f16_add(a, b, r), ha.add_r(hb, rr).value, "f16 add")?;
            check(half::f16_sub(a, b, r), ha.sub_r(hb, rr).value, "f16 sub")?;
            check(half::f16_mul(a, b, r), ha.mul_r(hb, rr).value, "f16 mul")?;
            check(half::f16_fma(a, b, c, r), ha.mul_add_r(hb, hc, rr).value, "f16 fma")?;
            let (ba, bb, bc) = (BFloat::from_bits(a as u128), BFloat::from_bits(b as u128), BFloat::from_bits(c as u128));
            let checkb = |got: u16, want: BFloat, what: &str| -> Result<(), TestCaseError> {
                if want.is_nan() {
                    prop_assert!(BFloat::from_bits(got as u128).is_nan(), "{} {:#x} {:#x} {:#x} {:?}", what, a, b, c, r);
                } else {
                    prop_assert_eq!(got as u128, want.to_bits(), "{} {:#x} {:#x} {:#x} {:?}", what, a, b, c, r);
                }
                Ok(())
            };
            checkb(half::bf16_add(a, b, r), ba.add_r(bb, rr).value, "bf16 add")?;
            checkb(half::bf16_mul(a, b, r), ba.mul_r(bb, rr).value, "bf16 mul")?;
            checkb(half::bf16_fma(a, b, c, r), ba.mul_add_r(bb, bc, rr).value, "bf16 fma")?;
        }
    }

    #[test]
    fn int_to_float_matches_reference(v in any::<i64>(), shift in 0u32..64, unsigned in any::<bool>()) {
        let v = v >> shift;
        let (bits, src, iv) = if unsigned { (v as u64, ScalarType::U64, v as u64 as i128) } else { (v as u64, ScalarType::S64, v as i128) };
        for (r, rr) in MODES {
            let w32 = Single::from_i128_r(iv, rr).value;
            prop_assert_eq!(cvt(bits, ScalarType::F32, src, Some(r), false, false), w32.to_bits() as u64, "{} {:?}", iv, r);
            let w64 = Double::from_i128_r(iv, rr).value;
            prop_assert_eq!(cvt(bits, ScalarType::F64, src, Some(r), false, false), w64.to_bits() as u64, "{} {:?}", iv, r);
            let w16 = Half::from_i128_r(iv, rr).value;
            prop_assert_eq!(cvt(bits, ScalarType::F16, src, Some(r), false, false), w16.to_bits() as u64, "{} {:?}", iv, r);
        }
    }

    #[test]
    fn float_to_int_rounds_and_saturates(x in f64v()) {
        let modes = [(Rounding::Rni, Round::NearestTiesToEven), (Rounding::Rzi, Round::TowardZero), (Rounding::Rmi, Round::TowardNegative), (Rounding::Rpi, Round::TowardPositive)];
        for (r, rr) in modes {
            for (t, lo, hi) in [
                (ScalarType::S32, i32::MIN as i128, i32::MAX as i128),
                (ScalarType::U32, 0, u32::MAX as i128),
                (ScalarType::S64, i64::MIN as i128, i64::MAX as i128),
                (ScalarType::U8, 0, 255),
                (ScalarType::S16, i16::MIN as i128, i16::MAX as i128),
            ] {
                let want: i128 = if x.is_nan() {
                    0
                } else {
                    let y = d(x).round_to_integral(rr).value;
                    if y.is_infinite() { if y.is_negative() { lo } else { hi } } else { y.to_i128(128).value.clamp(lo, hi) }
                };
                let got = cvt(x.to_bits(), t, ScalarType::F64, Some(r), false, false);
                let got_v = if t.is_signed() { got as i64 as i128 } else { got as i128 };
                prop_assert_eq!(got_v, want, "{:e} -> {:?} {:?}", x, t, r);
            }
        }
    }

    #[test]
    fn int_to_int_wraps_or_saturates(v in any::<u64>()) {
        use ScalarType::*;
        for (dst, src) in [(U8, U32), (S8, S32), (S32, S64), (U32, S64), (U64, S32), (S64, U32), (U16, S16), (S16, U16)] {
            let sv: i128 = match src { U32 => v as u32 as i128, S32 => v as u32 as i32 as i128, S64 => v as i64 as i128, U16 => v as u16 as i128, S16 => v as u16 as i16 as i128, _ => unreachable!() };
            let n = dst.size() * 8;
            let (lo, hi) = if dst.is_signed() { (-(1i128 << (n - 1)), (1i128 << (n - 1)) - 1) } else { (0, (1i128 << n) - 1) };
            let wrapped = { let m = sv.rem_euclid(1i128 << n); if dst.is_signed() && m > hi { m - (1i128 << n) } else { m } };
            let as_reg = |x: i128| if dst.is_signed() { x as i64 as u64 } else { x as u64 };
            prop_assert_eq!(cvt(v, dst, src, None, false, false), as_reg(wrapped));
            prop_assert_eq!(cvt(v, dst, src, None, false, true), as_reg(sv.clamp(lo, hi)));
        }
    }
}

/// Error of `got` against `exact` in units of the f32 ulp at `exact`.
fn ulps(got: f32, exact: f64) -> f64 {
    let e = exact.abs().max(f32::MIN_POSITIVE as f64);
    let ulp = 2f64.powi(e.log2().floor() as i32 - 23);
    (got as f64 - exact).abs() / ulp
}

#[test]
fn approx_functions_meet_isa_bounds() {
    let mut worst = [0f64; 8];
    let n = 20_000;
    for i in 0..n {
        let t = i as f64 / n as f64;
        let x = (-100.0 * std::f64::consts::PI + 200.0 * std::f64::consts::PI * t) as f32;
        worst[0] = worst[0].max((f32_sin_approx(x) as f64 - (x as f64).sin()).abs());
        worst[1] = worst[1].max((f32_cos_approx(x) as f64 - (x as f64).cos()).abs());
        let m = (1.0 + t) as f32; // mantissa range [1, 2)
        worst[2] = worst[2].max((f32_lg2_approx(m) as f64 - (m as f64).log2()).abs());
        let e = (-120.0 + 240.0 * t) as f32;
        worst[3] = worst[3].max(ulps(f32_ex2_approx(e), (e as f64).exp2()));
        let p = f32::from_bits(0x0080_0000 + (i as u32) * 0x3F00); // positive normals, wide range
        worst[4] = worst[4].max(ulps(f32_rcp_approx(p), 1.0 / p as f64));
        worst[5] = worst[5].max(((f32_sqrt_approx(p) as f64) / (p as f64).sqrt() - 1.0).abs());
        worst[6] = worst[6].max(((f32_rsqrt_approx(p) as f64) * (p as f64).sqrt() - 1.0).abs());
        let h = (-9.0 + 18.0 * t) as f32;
        let th = (h as f64).tanh();
        if th != 0.0 {
            worst[7] = worst[7].max(((f32_tanh_approx(h) as f64) - th).abs() / th.abs());
        }
    }
    assert!(
        worst[0] <= 2f64.powf(-20.5) && worst[1] <= 2f64.powf(-20.5),
        "sin/cos {worst:?}"
    );
    assert!(worst[2] <= 2f64.powf(-22.6), "lg2 {}", worst[2]);
    assert!(worst[3] <= 2.0, "ex2 {} ulp", worst[3]);
    assert!(worst[4] <= 1.0, "rcp {} ulp", worst[4]);
    assert!(worst[5] <= 2f64.powi(-23), "sqrt {}", worst[5]);
    assert!(worst[6] <= 2f64.powf(-22.9), "rsqrt {}", worst[6]);
    assert!(worst[7] <= 2f64.powi(-11), "tanh {}", worst[7]);
}

#[test]
fn approx_special_values() {
    assert_eq!(f32_lg2_approx(0.0), f32::NEG_INFINITY);
    assert!(f32_lg2_approx(-1.0).is_nan());
    assert_eq!(f32_ex2_approx(f32::NEG_INFINITY), 0.0);
    assert_eq!(f32_rcp_approx(-0.0), f32::NEG_INFINITY);
    assert_eq!(f32_rsqrt_approx(0.0), f32::INFINITY);
    assert!(f32_sin_approx(f32::INFINITY).is_nan());
    // div.approx: |b| > 2^126 gives 0 (NaN for infinite a)
    assert_eq!(f32_div_approx(1.0, 2f32.powi(127)), 0.0);
    assert!(f32_div_approx(f32::INFINITY, 2f32.powi(127)).is_nan());
    assert!((f32_div_approx(1.0, 3.0) - 1.0 / 3.0).abs() <= f32::EPSILON);
}

#[test]
fn directed_edge_cases() {
    use Rounding::*;
    // exact zero sums: -0 only when rounding down
    assert_eq!(f32_add(1.0, -1.0, Rm).to_bits(), (-0.0f32).to_bits());
    assert_eq!(f32_add(1.0, -1.0, Rp).to_bits(), 0);
    assert_eq!(f64_add(0.0, 0.0, Rm).to_bits(), 0);
    assert_eq!(f64_fma(2.0, 3.0, -6.0, Rm).to_bits(), (-0.0f64).to_bits());
    // overflow
    assert_eq!(f32_mul(f32::MAX, 2.0, Rz), f32::MAX);
    assert_eq!(f32_mul(f32::MAX, -2.0, Rp), -f32::MAX);
    assert_eq!(f32_mul(f32::MAX, -2.0, Rm), f32::NEG_INFINITY);
    assert_eq!(f64_add(f64::MAX, f64::MAX, Rz), f64::MAX);
    // underflow to the smallest subnormal when rounding up
    assert_eq!(f64_mul(f64::from_bits(1), 0.5, Rp), f64::from_bits(1));
    assert_eq!(f64_mul(f64::from_bits(1), 0.5, Rn), 0.0);
    assert_eq!(f32_div(1.0, 3.0, Rz), f32::from_bits(0x3EAA_AAAA));
    assert_eq!(f32_div(1.0, 3.0, Rp), f32::from_bits(0x3EAA_AAAB));
    // SQRT_2 (= RN(√2)) lies above √2
    assert_eq!(f64_sqrt(2.0, Rp), std::f64::consts::SQRT_2);
    assert_eq!(f64_sqrt(2.0, Rm), next_down64(std::f64::consts::SQRT_2));
    assert_eq!(f64_sqrt(2.0, Rz), next_down64(std::f64::consts::SQRT_2));
    // sat32
    assert_eq!(sat32(-0.0).to_bits(), 0);
    assert_eq!(sat32(f32::NAN), 0.0);
    assert_eq!(sat32(3.0), 1.0);
    assert_eq!(bf16_to_f32(f32_to_bf16(1.5, Rn)), 1.5);
}
