//! Correctly rounded f16 and bf16 add, multiply and fma in every rounding direction (PTX ISA
//! §9.7.4, half-precision instructions).
//!
//! Computing in f32 and rounding again can double-round. Here the exact result is formed in f64
//! (products of two halves are exact; sums through TwoSum), rounded *to odd* in f64, then rounded
//! once to the half format: with 53 ≥ 11 + 2 bits, round-to-odd followed by any rounding equals a
//! single correct rounding (Boldo and Melquiond).

use super::cvt::{f64_to_fmt, fmt_to_f64, Fmt, FMT_BF16, FMT_F16};
use super::round::{next_down64, next_up64, two_sum, Dir};
use super::Rounding;

/// `s + e` (exact, `s = fl(s + e)`) rounded to odd in f64.
#[inline]
fn round_to_odd(s: f64, e: f64) -> f64 {
    if e == 0.0 || s.to_bits() & 1 == 1 || !s.is_finite() {
        s
    } else if e > 0.0 {
        next_up64(s)
    } else {
        next_down64(s)
    }
}

#[inline]
fn op(a: u16, b: u16, c: Option<u16>, fmt: Fmt, r: Rounding, mul: bool) -> u16 {
    let x = fmt_to_f64(a as u64, fmt);
    let y = fmt_to_f64(b as u64, fmt);
    let d = Dir::of(r);
    // the two addends of the single rounding (for multiplies without addend: none)
    let (p, q) = match (mul, c) {
        (false, _) => (x, y),
        (true, None) => return f64_to_fmt(x * y, fmt, d) as u16, // exact: at most 2·11 bits
        (true, Some(c)) => (x * y, fmt_to_f64(c as u64, fmt)),
    };
    let (s, e) = two_sum(p, q);
    let exact = if s == 0.0 && e == 0.0 && d == Dir::Down {
        // an exact zero sum is -0 when rounding down, unless both addends are +0 (IEEE 754 §6.3)
        if p == 0.0 && q == 0.0 && p.is_sign_positive() && q.is_sign_positive() {
            0.0
        } else {
            -0.0
        }
    } else {
        round_to_odd(s, e)
    };
    f64_to_fmt(exact, fmt, Dir::of(r)) as u16
}

/// `add.RND.f16` on bits.
pub fn f16_add(a: u16, b: u16, r: Rounding) -> u16 {
    op(a, b, None, FMT_F16, r, false)
}
/// `sub.RND.f16` on bits.
pub fn f16_sub(a: u16, b: u16, r: Rounding) -> u16 {
    op(a, b ^ 0x8000, None, FMT_F16, r, false)
}
/// `mul.RND.f16` on bits.
pub fn f16_mul(a: u16, b: u16, r: Rounding) -> u16 {
    op(a, b, None, FMT_F16, r, true)
}
/// `fma.RND.f16` on bits (single rounding).
pub fn f16_fma(a: u16, b: u16, c: u16, r: Rounding) -> u16 {
    op(a, b, Some(c), FMT_F16, r, true)
}
/// `add.RND.bf16` on bits.
pub fn bf16_add(a: u16, b: u16, r: Rounding) -> u16 {
    op(a, b, None, FMT_BF16, r, false)
}
/// `sub.RND.bf16` on bits.
pub fn bf16_sub(a: u16, b: u16, r: Rounding) -> u16 {
    op(a, b ^ 0x8000, None, FMT_BF16, r, false)
}
/// `mul.RND.bf16` on bits.
pub fn bf16_mul(a: u16, b: u16, r: Rounding) -> u16 {
    op(a, b, None, FMT_BF16, r, true)
}
/// `fma.RND.bf16` on bits (single rounding).
pub fn bf16_fma(a: u16, b: u16, c: u16, r: Rounding) -> u16 {
    op(a, b, Some(c), FMT_BF16, r, true)
}
