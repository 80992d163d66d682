//! Correctly rounded f32/f64 add, multiply, fma, divide and square root in the four IEEE
//! rounding directions (PTX ISA §9.7.3: `.rn .rz .rm .rp`).
//!
//! Round-to-nearest uses the native operation. The directed modes take the native result `r`
//! and the exact sign of the residual `exact - r` ([`super::round`]):
//! - f32: every operand and every product of two f32 values is exact in f64, so the residual is
//!   an exact sum of at most four doubles.
//! - f64: operands are first scaled by powers of two (exact) so that TwoProd cannot underflow;
//!   `fma` with addend and product far apart (more than 2^800) is decided by the dominant term.
//!
//! Special cases follow IEEE 754: NaN/∞ operands, division by zero and exact results pass through
//! the native result; overflow gives ∞ or the largest finite value by direction; an exact zero
//! sum is `-0` when rounding down unless both addends are `+0`.

use std::cmp::Ordering;

use super::round::*;

/// Sign of a zero that is the exact sum `a + b` (IEEE 754 §6.3).
#[inline]
fn zero_sum_sign_negative(
    a_pos_zero: bool,
    b_pos_zero: bool,
    a_neg_zero: bool,
    b_neg_zero: bool,
    d: Dir,
) -> bool {
    if d == Dir::Down {
        !(a_pos_zero && b_pos_zero)
    } else {
        a_neg_zero && b_neg_zero
    }
}

#[inline]
fn pz32(x: f64) -> bool {
    x == 0.0 && x.is_sign_positive()
}
#[inline]
fn nz32(x: f64) -> bool {
    x == 0.0 && x.is_sign_negative()
}

/// `add.RND.f32`.
#[inline]
pub fn add32(a: f32, b: f32, d: Dir) -> f32 {
    let r = a + b;
    if d == Dir::Nearest || !a.is_finite() || !b.is_finite() {
        return r;
    }
    if r.is_infinite() {
        return overflow32(r < 0.0, d);
    }
    let (a64, b64) = (a as f64, b as f64);
    let s = sign_of_sum(&[a64, b64, -(r as f64)]);
    if s == Ordering::Equal && r == 0.0 {
        let neg = zero_sum_sign_negative(pz32(a64), pz32(b64), nz32(a64), nz32(b64), d);
        return if neg { -0.0 } else { 0.0 };
    }
    adjust32(r, s, d)
}

/// `mul.RND.f32`.
#[inline]
pub fn mul32(a: f32, b: f32, d: Dir) -> f32 {
    let r = a * b;
    if d == Dir::Nearest || !a.is_finite() || !b.is_finite() {
        return r;
    }
    if r.is_infinite() {
        return overflow32(r < 0.0, d);
    }
    let p = a as f64 * b as f64; // exact: 48-bit significand, exponent in range
    adjust32(r, p.partial_cmp(&(r as f64)).unwrap_or(Ordering::Equal), d)
}

/// `fma.RND.f32` (single rounding of `a·b + c`).
#[inline]
pub fn fma32(a: f32, b: f32, c: f32, d: Dir) -> f32 {
    let r = a.mul_add(b, c);
    if d == Dir::Nearest || !a.is_finite() || !b.is_finite() || !c.is_finite() {
        return r;
    }
    if r.is_infinite() {
        return overflow32(r < 0.0, d);
    }
    let p = a as f64 * b as f64;
    let c64 = c as f64;
    let s = sign_of_sum(&[p, c64, -(r as f64)]);
    if s == Ordering::Equal && r == 0.0 {
        let neg = zero_sum_sign_negative(pz32(p), pz32(c64), nz32(p), nz32(c64), d);
        return if neg { -0.0 } else { 0.0 };
    }
    adjust32(r, s, d)
}

/// `div.RND.f32` (IEEE division).
#[inline]
pub fn div32(a: f32, b: f32, d: Dir) -> f32 {
    let r = a / b;
    if d == Dir::Nearest || !a.is_finite() || !b.is_finite() || b == 0.0 || a == 0.0 {
        return r;
    }
    if r.is_infinite() {
        return overflow32(r < 0.0, d);
    }
    // sign(a/b - r) = sign(a - r·b) · sign(b); r·b is exact in f64.
    let mut s = sign_of_sum(&[a as f64, -(r as f64 * b as f64)]);
    if b < 0.0 {
        s = s.reverse();
    }
    adjust32(r, s, d)
}

/// `sqrt.RND.f32` (IEEE square root).
#[inline]
pub fn sqrt32(a: f32, d: Dir) -> f32 {
    let r = a.sqrt();
    if d == Dir::Nearest || a.is_nan() || a <= 0.0 || a.is_infinite() {
        return r;
    }
    let r64 = r as f64;
    adjust32(r, sign_of_sum(&[a as f64, -(r64 * r64)]), d)
}

/// `add.RND.f64`.
#[inline]
pub fn add64(a: f64, b: f64, d: Dir) -> f64 {
    let r = a + b;
    if d == Dir::Nearest || !a.is_finite() || !b.is_finite() {
        return r;
    }
    if r.is_infinite() {
        return overflow64(r < 0.0, d);
    }
    let (_, e) = two_sum(a, b);
    let s = e.partial_cmp(&0.0).unwrap_or(Ordering::Equal);
    if s == Ordering::Equal && r == 0.0 {
        let neg = zero_sum_sign_negative(pz32(a), pz32(b), nz32(a), nz32(b), d);
        return if neg { -0.0 } else { 0.0 };
    }
    adjust64(r, s, d)
}

/// `mul.RND.f64`.
#[inline]
pub fn mul64(a: f64, b: f64, d: Dir) -> f64 {
    let r = a * b;
    if d == Dir::Nearest || !a.is_finite() || !b.is_finite() || a == 0.0 || b == 0.0 {
        return r;
    }
    if r.is_infinite() {
        return overflow64(r < 0.0, d);
    }
    let (ma, ea) = frexp(a);
    let (mb, eb) = frexp(b);
    let (ph, pl) = two_prod(ma, mb);
    let rs = ldexp(r, -(ea + eb));
    adjust64(r, sign_of_sum(&[ph, pl, -rs]), d)
}

/// `fma.RND.f64` (single rounding of `a·b + c`).
pub fn fma64(a: f64, b: f64, c: f64, d: Dir) -> f64 {
    let r = a.mul_add(b, c);
    if d == Dir::Nearest || !a.is_finite() || !b.is_finite() || !c.is_finite() {
        return r;
    }
    if r.is_infinite() {
        return overflow64(r < 0.0, d);
    }
    let s = if a == 0.0 || b == 0.0 {
        // exact product ±0: the result is exactly c (or a signed zero)
        Ordering::Equal
    } else {
        let (ma, ea) = frexp(a);
        let (mb, eb) = frexp(b);
        let pe = ea + eb;
        let (ph, pl) = two_prod(ma, mb);
        if c == 0.0 {
            sign_of_sum(&[ph, pl, -ldexp(r, -pe)])
        } else {
            let ec = frexp(c).1;
            if ec - pe > 800 {
                // |a·b| < 2^-798 |c|: r == c and the product decides the residual
                debug_assert_eq!(r, c);
                if (a < 0.0) != (b < 0.0) {
                    Ordering::Less
                } else {
                    Ordering::Greater
                }
            } else if pe - ec > 800 {
                // c is below the product's lowest bit: it decides only an exact tie
                match sign_of_sum(&[ph, pl, -ldexp(r, -pe)]) {
                    Ordering::Equal => c.partial_cmp(&0.0).unwrap_or(Ordering::Equal),
                    s => s,
                }
            } else {
                let e = pe.max(ec);
                sign_of_sum(&[
                    ldexp(ph, pe - e),
                    ldexp(pl, pe - e),
                    ldexp(c, -e),
                    -ldexp(r, -e),
                ])
            }
        }
    };
    if s == Ordering::Equal && r == 0.0 {
        let p = a * b; // only its zero-ness and sign matter here
        let p_zero = a == 0.0 || b == 0.0;
        let neg = zero_sum_sign_negative(
            p_zero && p.is_sign_positive(),
            pz32(c),
            p_zero && p.is_sign_negative(),
            nz32(c),
            d,
        );
        return if neg { -0.0 } else { 0.0 };
    }
    adjust64(r, s, d)
}

/// `div.RND.f64` (IEEE division).
pub fn div64(a: f64, b: f64, d: Dir) -> f64 {
    let r = a / b;
    if d == Dir::Nearest || !a.is_finite() || !b.is_finite() || b == 0.0 || a == 0.0 {
        return r;
    }
    if r.is_infinite() {
        return overflow64(r < 0.0, d);
    }
    let (ma, ea) = frexp(a);
    let (mb, eb) = frexp(b);
    let rs = ldexp(r, -(ea - eb));
    let (qh, ql) = two_prod(rs, mb);
    let mut s = sign_of_sum(&[ma, -qh, -ql]);
    if mb < 0.0 {
        s = s.reverse();
    }
    adjust64(r, s, d)
}

/// `sqrt.RND.f64` (IEEE square root).
pub fn sqrt64(a: f64, d: Dir) -> f64 {
    let r = a.sqrt();
    if d == Dir::Nearest || a.is_nan() || a <= 0.0 || a.is_infinite() {
        return r;
    }
    let (mut m, mut e) = frexp(a);
    if e % 2 != 0 {
        m *= 2.0;
        e -= 1;
    }
    let rs = ldexp(r, -e / 2);
    let (qh, ql) = two_prod(rs, rs);
    adjust64(r, sign_of_sum(&[m, -qh, -ql]), d)
}
