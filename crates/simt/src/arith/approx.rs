//! `.approx` functions (PTX ISA §9.7.3.x). The ISA gives error bounds, not bit patterns; each
//! function here evaluates in f64 and rounds once to f32, so its error is at most 0.5 ulp plus
//! the f64 library error (< 2^-50 relative), inside every ISA bound. The ISA's bounds (PTX ISA
//! 8.x, as we read them; `tests` check our error against them):
//!
//! | instruction | ISA bound | special values (ISA) |
//! |---|---|---|
//! | `sin/cos.approx.f32` | abs. error ≤ 2^-20.5 on [-100π, 100π] | ±∞ → NaN |
//! | `lg2.approx.f32` | abs. error ≤ 2^-22.6 (mantissa in [1,2)), rel. elsewhere | 0 → -∞, x<0 → NaN, +∞ → +∞ |
//! | `ex2.approx.f32` | rel. error ≤ 2^-22.5 (2 ulp) | -∞ → +0, +∞ → +∞ |
//! | `rcp.approx.f32` | ≤ 1 ulp | ±0 → ±∞, ±∞ → ±0 |
//! | `sqrt.approx.f32` | rel. error ≤ 2^-23 | -0 → -0, x<0 → NaN |
//! | `rsqrt.approx.f32` | rel. error ≤ 2^-22.9 | ±0 → ±∞, x<0 → NaN |
//! | `div.approx.f32` | ≤ 2 ulp for 2^-126 ≤ \|b\| ≤ 2^126; for larger \|b\|: 0 (NaN if a = ±∞) | |
//! | `div.full.f32` | ≤ 2 ulp | |
//! | `tanh.approx.f32` | rel. error ≤ 2^-11 | |
//! | `rsqrt.approx.f64` | rel. error ≤ 2^-40 | |

/// `sin.approx.f32`.
#[inline]
pub fn sin(a: f32) -> f32 {
    (a as f64).sin() as f32
}

/// `cos.approx.f32`.
#[inline]
pub fn cos(a: f32) -> f32 {
    (a as f64).cos() as f32
}

/// `lg2.approx.f32`.
#[inline]
pub fn lg2(a: f32) -> f32 {
    (a as f64).log2() as f32
}

/// `ex2.approx.f32`.
#[inline]
pub fn ex2(a: f32) -> f32 {
    (a as f64).exp2() as f32
}

/// `rsqrt.approx.f32`.
#[inline]
pub fn rsqrt(a: f32) -> f32 {
    (1.0 / (a as f64).sqrt()) as f32
}

/// `rcp.approx.f32`.
#[inline]
pub fn rcp(a: f32) -> f32 {
    1.0 / a
}

/// `sqrt.approx.f32`.
#[inline]
pub fn sqrt(a: f32) -> f32 {
    a.sqrt()
}

/// `div.approx.f32`: `a · (1/b)`; for 2^126 < |b| the ISA defines the result as 0 (NaN when `a`
/// is infinite).
#[inline]
pub fn div(a: f32, b: f32) -> f32 {
    if b.abs() > f32::from_bits(0x7E80_0000) && b.is_finite() {
        // 2^126 < |b| < 2^128
        return if a.is_infinite() {
            f32::NAN
        } else if a.is_sign_negative() != b.is_sign_negative() {
            -0.0
        } else {
            0.0
        };
    }
    ((a as f64) / (b as f64)) as f32
}

/// `div.full.f32`: correctly rounded here (the ISA allows 2 ulp).
#[inline]
pub fn div_full(a: f32, b: f32) -> f32 {
    a / b
}

/// `tanh.approx.f32`.
#[inline]
pub fn tanh(a: f32) -> f32 {
    (a as f64).tanh() as f32
}

/// `rsqrt.approx.f64`.
#[inline]
pub fn rsqrt64(a: f64) -> f64 {
    1.0 / a.sqrt()
}
