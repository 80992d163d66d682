//! PTX arithmetic semantics, exact where PTX is exact (PTX ISA §9.7.3, §9.7.4): IEEE-754 add, mul,
//! fma, div, sqrt, rcp in every rounding mode, `.ftz` and `.sat` helpers, `.approx` functions within
//! the ISA's stated error bounds, and `cvt` between every pair of types.
//!
//! Round-to-nearest (`.rn`, the default) is the native operation and stays on the fast path;
//! `.rz/.rm/.rp` are derived exactly from it ([`round`], [`ieee`]). Values travel as raw register
//! bits (`u64`) where types vary. Integer roundings passed to a float operation (`.rni` ...) act
//! as their float counterparts.

pub mod approx;
pub mod cvt;
pub mod half;
pub mod ieee;
pub mod round;

pub use round::Dir;
pub use warpforge_ptx::{Rounding, ScalarType};

/// Flushes an f32 subnormal to a zero of the same sign (`.ftz`).
#[inline]
pub fn ftz32(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

/// Clamps to `[0, 1]` (`.sat` on floats): NaN and -0 give +0.
#[inline]
pub fn sat32(x: f32) -> f32 {
    if x.is_nan() || x <= 0.0 {
        0.0
    } else if x > 1.0 {
        1.0
    } else {
        x
    }
}

/// `add.RND.f32`.
#[inline]
pub fn f32_add(a: f32, b: f32, r: Rounding) -> f32 {
    ieee::add32(a, b, Dir::of(r))
}
/// `sub.RND.f32`.
#[inline]
pub fn f32_sub(a: f32, b: f32, r: Rounding) -> f32 {
    ieee::add32(a, -b, Dir::of(r))
}
/// `mul.RND.f32`.
#[inline]
pub fn f32_mul(a: f32, b: f32, r: Rounding) -> f32 {
    ieee::mul32(a, b, Dir::of(r))
}
/// `fma.RND.f32` (single rounding).
#[inline]
pub fn f32_fma(a: f32, b: f32, c: f32, r: Rounding) -> f32 {
    ieee::fma32(a, b, c, Dir::of(r))
}
/// `div.RND.f32` (IEEE).
#[inline]
pub fn f32_div(a: f32, b: f32, r: Rounding) -> f32 {
    ieee::div32(a, b, Dir::of(r))
}
/// `sqrt.RND.f32` (IEEE).
#[inline]
pub fn f32_sqrt(a: f32, r: Rounding) -> f32 {
    ieee::sqrt32(a, Dir::of(r))
}
/// `rcp.RND.f32` (IEEE).
#[inline]
pub fn f32_rcp(a: f32, r: Rounding) -> f32 {
    ieee::div32(1.0, a, Dir::of(r))
}
/// `add.RND.f64`.
#[inline]
pub fn f64_add(a: f64, b: f64, r: Rounding) -> f64 {
    ieee::add64(a, b, Dir::of(r))
}
/// `sub.RND.f64`.
#[inline]
pub fn f64_sub(a: f64, b: f64, r: Rounding) -> f64 {
    ieee::add64(a, -b, Dir::of(r))
}
/// `mul.RND.f64`.
#[inline]
pub fn f64_mul(a: f64, b: f64, r: Rounding) -> f64 {
    ieee::mul64(a, b, Dir::of(r))
}
/// `fma.RND.f64`.
#[inline]
pub fn f64_fma(a: f64, b: f64, c: f64, r: Rounding) -> f64 {
    ieee::fma64(a, b, c, Dir::of(r))
}
/// `div.RND.f64`.
#[inline]
pub fn f64_div(a: f64, b: f64, r: Rounding) -> f64 {
    ieee::div64(a, b, Dir::of(r))
}
/// `sqrt.RND.f64`.
#[inline]
pub fn f64_sqrt(a: f64, r: Rounding) -> f64 {
    ieee::sqrt64(a, Dir::of(r))
}
/// `rcp.RND.f64`.
#[inline]
pub fn f64_rcp(a: f64, r: Rounding) -> f64 {
    ieee::div64(1.0, a, Dir::of(r))
}
/// `sin.approx.f32` (ISA: abs. error ≤ 2^-20.5 on [-100π, 100π]; here ≤ 0.5 ulp + 2^-50 rel.).
#[inline]
pub fn f32_sin_approx(a: f32) -> f32 {
    approx::sin(a)
}
/// `cos.approx.f32` (bound as `sin`).
#[inline]
pub fn f32_cos_approx(a: f32) -> f32 {
    approx::cos(a)
}
/// `lg2.approx.f32` (ISA: abs. error ≤ 2^-22.6 for the mantissa).
#[inline]
pub fn f32_lg2_approx(a: f32) -> f32 {
    approx::lg2(a)
}
/// `ex2.approx.f32` (ISA: ≤ 2 ulp).
#[inline]
pub fn f32_ex2_approx(a: f32) -> f32 {
    approx::ex2(a)
}
/// `rsqrt.approx.f32` (ISA: rel. error ≤ 2^-22.9).
#[inline]
pub fn f32_rsqrt_approx(a: f32) -> f32 {
    approx::rsqrt(a)
}
/// `rcp.approx.f32` (ISA: ≤ 1 ulp; here correctly rounded).
#[inline]
pub fn f32_rcp_approx(a: f32) -> f32 {
    approx::rcp(a)
}
/// `sqrt.approx.f32` (ISA: rel. error ≤ 2^-23; here correctly rounded).
#[inline]
pub fn f32_sqrt_approx(a: f32) -> f32 {
    approx::sqrt(a)
}
/// `div.approx.f32` (ISA: ≤ 2 ulp for 2^-126 ≤ |b| ≤ 2^126, 0 beyond).
#[inline]
pub fn f32_div_approx(a: f32, b: f32) -> f32 {
    approx::div(a, b)
}
/// `div.full.f32` (ISA: ≤ 2 ulp; here correctly rounded).
#[inline]
pub fn f32_div_full(a: f32, b: f32) -> f32 {
    approx::div_full(a, b)
}
/// `tanh.approx.f32` (ISA: rel. error ≤ 2^-11).
#[inline]
pub fn f32_tanh_approx(a: f32) -> f32 {
    approx::tanh(a)
}
/// `rsqrt.approx.f64` / `rcp.approx.ftz.f64` style double approximations (ISA: rel. ≤ 2^-40).
#[inline]
pub fn f64_rsqrt_approx(a: f64) -> f64 {
    approx::rsqrt64(a)
}

/// `cvt{.RND}{.ftz}{.sat}.DST.SRC`: converts the value held in `bits` (of type `src`, in the low
/// bits) to `dst`, returning the destination bits zero- or sign-extended to 64 bits as PTX
/// registers hold them. Semantics and decisions: [`cvt`](mod@cvt).
pub fn cvt(
    bits: u64,
    dst: ScalarType,
    src: ScalarType,
    r: Option<Rounding>,
    ftz: bool,
    sat: bool,
) -> u64 {
    cvt::cvt(bits, dst, src, r, ftz, sat)
}

/// IEEE half (bits) to f32, exact.
#[inline]
pub fn f16_to_f32(h: u16) -> f32 {
    cvt::fmt_to_f64(h as u64, cvt::FMT_F16) as f32
}

/// f32 to IEEE half bits with rounding `r`.
#[inline]
pub fn f32_to_f16(x: f32, r: Rounding) -> u16 {
    cvt::f64_to_fmt(x as f64, cvt::FMT_F16, Dir::of(r)) as u16
}

/// bfloat16 bits to f32, exact.
#[inline]
pub fn bf16_to_f32(h: u16) -> f32 {
    f32::from_bits((h as u32) << 16)
}

/// f32 to bfloat16 bits with rounding `r` (NaN → `0x7FFF`).
#[inline]
pub fn f32_to_bf16(x: f32, r: Rounding) -> u16 {
    cvt::f64_to_fmt(x as f64, cvt::FMT_BF16, Dir::of(r)) as u16
}

#[cfg(test)]
mod tests;
