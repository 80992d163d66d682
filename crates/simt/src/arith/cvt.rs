//! `cvt` between every pair of PTX types (PTX ISA §9.7.9.21), with exact rounding.
//!
//! Decisions (PTX ISA reading):
//! - float → integer: rounding `.rni/.rzi/.rmi/.rpi` (default `.rzi`), always saturating to the
//!   destination range, NaN → 0 (the ISA: "saturation is implied" for float-to-int).
//! - integer → integer: sign- or zero-extension by the source type, then truncation; `.sat`
//!   clamps to the destination range instead.
//! - float → float: narrowing rounds with `.rn/.rz/.rm/.rp` (default `.rn`); same-size
//!   conversions with `.rni/...` round to an integral value; widening is exact.
//!   `.ftz` flushes f32 subnormal inputs and results to signed zero; `.sat` clamps float results
//!   to [0, 1] (NaN → +0).
//! - NaN results are canonical: f32 `0x7FFFFFFF`, f16/bf16 `0x7FFF`, f64 `0x7FFFFFFFFFFFFFFF`.
//! - Results are returned as PTX registers hold them: signed integers sign-extended to 64 bits,
//!   everything else zero-extended.

use super::round::Dir;
use super::{Rounding, ScalarType};

/// A binary floating-point format: explicit fraction bits and exponent bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fmt {
    /// Fraction (explicit significand) bits.
    pub man: u32,
    /// Exponent bits.
    pub exp: u32,
}

/// IEEE binary16.
pub const FMT_F16: Fmt = Fmt { man: 10, exp: 5 };
/// bfloat16.
pub const FMT_BF16: Fmt = Fmt { man: 7, exp: 8 };
/// IEEE binary32.
pub const FMT_F32: Fmt = Fmt { man: 23, exp: 8 };
/// IEEE binary64.
pub const FMT_F64: Fmt = Fmt { man: 52, exp: 11 };

impl Fmt {
    fn canonical_nan(self) -> u64 {
        (1u64 << (self.man + self.exp)) - 1
    }
    fn inf_bits(self) -> u64 {
        ((1u64 << self.exp) - 1) << self.man
    }
    /// Largest finite value's bits.
    fn max_bits(self) -> u64 {
        self.inf_bits() - 1
    }
}

/// Rounds `(-1)^neg · mag · 2^e2` to `fmt` in direction `d`; returns the bits (sign included).
pub fn round_to(neg: bool, mag: u128, e2: i32, fmt: Fmt, d: Dir) -> u64 {
    let sign = (neg as u64) << (fmt.man + fmt.exp);
    if mag == 0 {
        return sign;
    }
    let nbits = 128 - mag.leading_zeros() as i32;
    let top = e2 + nbits - 1; // value in [2^top, 2^(top+1))
    let bias = (1i32 << (fmt.exp - 1)) - 1;
    let emin = 1 - bias;
    let q = top.max(emin) - fmt.man as i32; // exponent of the last kept bit
    let shift = q - e2;
    let (mut m, rem_cmp, inexact) = if shift <= 0 {
        (mag << (-shift) as u32, std::cmp::Ordering::Less, false)
    } else if shift >= 128 {
        // everything is below the last kept bit; mag < 2^128 <= half of 2^shift unless shift == 128
        let half_cmp = if shift == 128 && mag >> 127 == 1 {
            if mag == 1u128 << 127 {
                std::cmp::Ordering::Equal
            } else {
                std::cmp::Ordering::Greater
            }
        } else {
            std::cmp::Ordering::Less
        };
        (0u128, half_cmp, true)
    } else {
        let rem = mag & ((1u128 << shift) - 1);
        let half = 1u128 << (shift - 1);
        (mag >> shift, rem.cmp(&half), rem != 0)
    };
    let up = inexact
        && match d {
            Dir::Nearest => {
                rem_cmp == std::cmp::Ordering::Greater
                    || (rem_cmp == std::cmp::Ordering::Equal && m & 1 == 1)
            }
            Dir::Zero => false,
            Dir::Up => !neg,
            Dir::Down => neg,
        };
    let mut q = q;
    if up {
        m += 1;
        if m == 1u128 << (fmt.man + 1) {
            m >>= 1;
            q += 1;
        }
    }
    let hidden = 1u128 << fmt.man;
    let (biased, frac) = if m >= hidden {
        ((q + fmt.man as i32 + bias) as i64, (m - hidden) as u64)
    } else {
        (0, m as u64)
    };
    if biased >= (1i64 << fmt.exp) - 1 {
        let inf = match d {
            Dir::Nearest => true,
            Dir::Zero => false,
            Dir::Up => !neg,
            Dir::Down => neg,
        };
        return sign | if inf { fmt.inf_bits() } else { fmt.max_bits() };
    }
    sign | (biased as u64) << fmt.man | frac
}

/// Decomposes a finite f64 into (negative, integer significand, exponent).
fn decompose(x: f64) -> (bool, u128, i32) {
    let bits = x.to_bits();
    let neg = bits >> 63 == 1;
    let e = ((bits >> 52) & 0x7ff) as i32;
    let f = bits & ((1u64 << 52) - 1);
    if e == 0 {
        (neg, f as u128, -1074)
    } else {
        (neg, (f | 1 << 52) as u128, e - 1075)
    }
}

/// Rounds a finite or special f64 to `fmt` bits.
pub fn f64_to_fmt(x: f64, fmt: Fmt, d: Dir) -> u64 {
    if x.is_nan() {
        return fmt.canonical_nan();
    }
    let sign = ((x.is_sign_negative()) as u64) << (fmt.man + fmt.exp);
    if x.is_infinite() {
        return sign | fmt.inf_bits();
    }
    let (neg, mag, e2) = decompose(x);
    round_to(neg, mag, e2, fmt, d)
}

/// Exact value of `fmt` bits as f64 (every format here widens exactly to f64).
pub fn fmt_to_f64(bits: u64, fmt: Fmt) -> f64 {
    let neg = (bits >> (fmt.man + fmt.exp)) & 1 == 1;
    let e = ((bits >> fmt.man) & ((1 << fmt.exp) - 1)) as i32;
    let f = bits & ((1u64 << fmt.man) - 1);
    let bias = (1i32 << (fmt.exp - 1)) - 1;
    let v = if e == (1 << fmt.exp) - 1 {
        if f == 0 {
            f64::INFINITY
        } else {
            f64::NAN
        }
    } else if e == 0 {
        super::round::ldexp(f as f64, 1 - bias - fmt.man as i32)
    } else {
        super::round::ldexp((f | 1 << fmt.man) as f64, e - bias - fmt.man as i32)
    };
    if neg {
        -v
    } else {
        v
    }
}

fn fmt_of(t: ScalarType) -> Option<Fmt> {
    match t {
        ScalarType::F16 => Some(FMT_F16),
        ScalarType::Bf16 => Some(FMT_BF16),
        ScalarType::F32 => Some(FMT_F32),
        ScalarType::F64 => Some(FMT_F64),
        _ => None,
    }
}

/// Integer value of the low bits of `bits` interpreted as integer type `t`.
fn int_value(bits: u64, t: ScalarType) -> i128 {
    let n = t.size() * 8;
    let v = if n >= 64 {
        bits
    } else {
        bits & ((1u64 << n) - 1)
    };
    if t.is_signed() && n < 64 {
        let s = 64 - n;
        (((v << s) as i64) >> s) as i128
    } else if t.is_signed() {
        v as i64 as i128
    } else {
        v as i128
    }
}

/// Range of integer type `t`.
fn int_range(t: ScalarType) -> (i128, i128) {
    let n = t.size() * 8;
    if t.is_signed() {
        (-(1i128 << (n - 1)), (1i128 << (n - 1)) - 1)
    } else {
        (0, (1i128 << n) - 1)
    }
}

/// Register bits of integer `v` of type `t` (wrapped to its width, sign-extended if signed).
fn int_bits(v: i128, t: ScalarType) -> u64 {
    let n = t.size() * 8;
    let w = (v as u128 as u64) & if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    if t.is_signed() && n < 64 {
        let s = 64 - n;
        (((w << s) as i64) >> s) as u64
    } else {
        w
    }
}

/// Rounds a finite f64 to an integral f64 in direction `d`.
fn round_integral(x: f64, d: Dir) -> f64 {
    match d {
        Dir::Nearest => x.round_ties_even(),
        Dir::Zero => x.trunc(),
        Dir::Down => x.floor(),
        Dir::Up => x.ceil(),
    }
}

fn flush_sub32(x: f64) -> f64 {
    if x != 0.0 && x.abs() < f32::MIN_POSITIVE as f64 {
        0.0f64.copysign(x)
    } else {
        x
    }
}

/// See [`super::cvt()`]: converts `bits` of type `src` to `dst` (semantics in the module docs).
pub fn cvt(
    bits: u64,
    dst: ScalarType,
    src: ScalarType,
    r: Option<Rounding>,
    ftz: bool,
    sat: bool,
) -> u64 {
    let is_int = |t: ScalarType| fmt_of(t).is_none() && t != ScalarType::Pred;
    let src_fmt = fmt_of(src);
    let dst_fmt = fmt_of(dst);
    match (src_fmt, dst_fmt) {
        (None, None) => {
            let v = int_value(bits, src);
            if sat && is_int(dst) {
                let (lo, hi) = int_range(dst);
                int_bits(v.clamp(lo, hi), dst)
            } else {
                int_bits(v, dst)
            }
        }
        (Some(sf), None) => {
            let mut x = fmt_to_f64(bits, sf);
            if ftz && sf == FMT_F32 {
                x = flush_sub32(x);
            }
            if x.is_nan() {
                return 0;
            }
            let d = r.map(Dir::of).unwrap_or(Dir::Zero);
            let y = round_integral(x, d);
            let (lo, hi) = int_range(dst);
            let v = if y.is_infinite() {
                if y > 0.0 {
                    hi
                } else {
                    lo
                }
            } else {
                // |y| may exceed i128 only beyond 2^127: clamp before converting
                let c = y.clamp(-1.7e38, 1.7e38) as i128;
                c.clamp(lo, hi)
            };
            int_bits(v, dst)
        }
        (None, Some(df)) => {
            let v = int_value(bits, src);
            let d = r.map(Dir::of).unwrap_or(Dir::Nearest);
            let out = round_to(v < 0, v.unsigned_abs(), 0, df, d);
            finish_float(out, df, ftz, sat)
        }
        (Some(sf), Some(df)) => {
            let mut x = fmt_to_f64(bits, sf);
            if ftz && sf == FMT_F32 {
                x = flush_sub32(x);
            }
            let out = match r {
                Some(Rounding::Rni | Rounding::Rzi | Rounding::Rmi | Rounding::Rpi)
                    if x.is_finite() =>
                {
                    let y = round_integral(x, Dir::of(r.unwrap_or(Rounding::Rzi)));
                    f64_to_fmt(y, df, Dir::Nearest)
                }
                _ => f64_to_fmt(x, df, r.map(Dir::of).unwrap_or(Dir::Nearest)),
            };
            finish_float(out, df, ftz, sat)
        }
    }
}

/// Applies `.ftz` (f32 results) and `.sat` to float result bits.
fn finish_float(out: u64, df: Fmt, ftz: bool, sat: bool) -> u64 {
    let mut out = out;
    if ftz && df == FMT_F32 {
        let x = f32::from_bits(out as u32);
        if x.is_subnormal() {
            out = (0.0f32.copysign(x)).to_bits() as u64;
        }
    }
    if sat {
        let x = fmt_to_f64(out, df);
        if x.is_nan() || x <= 0.0 {
            out = 0; // +0 (also for -0 and NaN)
        } else if x > 1.0 {
            out = f64_to_fmt(1.0, df, Dir::Nearest);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ScalarType::*;

    #[test]
    fn formats_round_trip() {
        for x in [
            0.0,
            -0.0,
            1.0,
            -2.5,
            65504.0,
            6.1e-5,
            5.96e-8,
            f64::INFINITY,
        ] {
            let h = f64_to_fmt(x, FMT_F16, Dir::Nearest);
            assert_eq!(
                fmt_to_f64(h, FMT_F16),
                fmt_to_f64(
                    f64_to_fmt(fmt_to_f64(h, FMT_F16), FMT_F16, Dir::Zero),
                    FMT_F16
                )
            );
        }
        assert_eq!(f64_to_fmt(1.0, FMT_F16, Dir::Nearest), 0x3C00);
        assert_eq!(f64_to_fmt(65520.0, FMT_F16, Dir::Nearest), 0x7C00); // rounds to inf
        assert_eq!(f64_to_fmt(65520.0, FMT_F16, Dir::Zero), 0x7BFF);
        assert_eq!(f64_to_fmt(2f64.powi(-25), FMT_F16, Dir::Nearest), 0); // tie to even zero
        assert_eq!(f64_to_fmt(2f64.powi(-25) * 1.5, FMT_F16, Dir::Nearest), 1);
        assert_eq!(f64_to_fmt(-2f64.powi(-30), FMT_F16, Dir::Down), 0x8001);
        assert_eq!(
            f64_to_fmt(1.0 + 2f64.powi(-8), FMT_BF16, Dir::Nearest),
            0x3F80
        );
        assert_eq!(
            f64_to_fmt(1.0 + 3.0 * 2f64.powi(-8), FMT_BF16, Dir::Nearest),
            0x3F82
        );
        assert_eq!(fmt_to_f64(0x0001, FMT_F16), 2f64.powi(-24));
    }

    #[test]
    fn conversions() {
        let rz = Some(Rounding::Rzi);
        assert_eq!(
            cvt(f32::NAN.to_bits() as u64, S32, F32, rz, false, false),
            0
        );
        assert_eq!(
            cvt((3e9f32).to_bits() as u64, S32, F32, rz, false, false),
            i32::MAX as u64
        );
        assert_eq!(
            cvt((-3e9f32).to_bits() as u64, S32, F32, rz, false, false),
            i32::MIN as i64 as u64
        );
        assert_eq!(
            cvt((-1.5f32).to_bits() as u64, U32, F32, rz, false, false),
            0
        );
        assert_eq!(
            cvt(
                (2.5f32).to_bits() as u64,
                S32,
                F32,
                Some(Rounding::Rni),
                false,
                false
            ),
            2
        );
        assert_eq!(
            cvt(
                (-2.5f32).to_bits() as u64,
                S64,
                F32,
                Some(Rounding::Rmi),
                false,
                false
            ),
            (-3i64) as u64
        );
        assert_eq!(
            cvt(
                (2.1f64).to_bits(),
                U8,
                F64,
                Some(Rounding::Rpi),
                false,
                false
            ),
            3
        );
        assert_eq!(cvt(300, U8, U32, None, false, false), 44);
        assert_eq!(cvt(300, U8, U32, None, false, true), 255);
        assert_eq!(cvt((-5i32) as u32 as u64, U32, S32, None, false, true), 0);
        assert_eq!(cvt(0xFF, S32, S8, None, false, false), u64::MAX);
        assert_eq!(cvt(0xFFFF_FFFF, U64, S32, None, false, false), u64::MAX);
        assert_eq!(cvt(0xFFFF_FFFF, U64, U32, None, false, false), 0xFFFF_FFFF);
        assert_eq!(
            cvt(16_777_217, F32, S32, Some(Rounding::Rn), false, false),
            16_777_216f32.to_bits() as u64
        );
        assert_eq!(
            cvt(16_777_217, F32, S32, Some(Rounding::Rp), false, false),
            16_777_218f32.to_bits() as u64
        );
        assert_eq!(
            cvt(u64::MAX, F32, U64, Some(Rounding::Rz), false, false),
            (u64::MAX as f32).next_down_test().to_bits() as u64
        );
        assert_eq!(
            cvt((1.5f32).to_bits() as u64, F32, F32, None, false, true),
            1f32.to_bits() as u64
        );
        assert_eq!(
            cvt((f32::NAN).to_bits() as u64, F32, F32, None, false, true),
            0
        );
        assert_eq!(
            cvt((1e-40f32).to_bits() as u64, F64, F32, None, true, false),
            (0f64).to_bits()
        );
        assert_eq!(
            cvt(
                (0.1f64).to_bits(),
                F32,
                F64,
                Some(Rounding::Rz),
                false,
                false
            ),
            0x3DCC_CCCC
        );
        assert_eq!(
            cvt(
                (0.1f64).to_bits(),
                F32,
                F64,
                Some(Rounding::Rp),
                false,
                false
            ),
            0x3DCC_CCCD
        );
        assert_eq!(
            cvt(
                (2.5f32).to_bits() as u64,
                F32,
                F32,
                Some(Rounding::Rni),
                false,
                false
            ),
            2f32.to_bits() as u64
        );
        assert_eq!(
            cvt(
                f64::NAN.to_bits(),
                F16,
                F64,
                Some(Rounding::Rn),
                false,
                false
            ),
            0x7FFF
        );
    }

    trait NextDown {
        fn next_down_test(self) -> f32;
    }
    impl NextDown for f32 {
        fn next_down_test(self) -> f32 {
            f32::from_bits(self.to_bits() - 1)
        }
    }
}
