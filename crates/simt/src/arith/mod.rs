//! PTX arithmetic semantics, exact where PTX is exact (PTX ISA §9.7.3, §9.7.4): IEEE-754 add, mul,
//! fma, div, sqrt, rcp in every rounding mode, `.ftz` and `.sat` helpers, `.approx` functions within
//! the ISA's stated error bounds, and `cvt` between every pair of types.
//!
//! CONTRACT STUB: bodies are native round-to-nearest placeholders being replaced by exact
//! implementations. Values travel as raw register bits (`u64`) where types vary.

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

/// Clamps to `[0, 1]`, NaN to 0 (`.sat` on floats).
#[inline]
pub fn sat32(x: f32) -> f32 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

/// `add.RND.f32`.
pub fn f32_add(a: f32, b: f32, _r: Rounding) -> f32 {
    a + b
}
/// `sub.RND.f32`.
pub fn f32_sub(a: f32, b: f32, _r: Rounding) -> f32 {
    a - b
}
/// `mul.RND.f32`.
pub fn f32_mul(a: f32, b: f32, _r: Rounding) -> f32 {
    a * b
}
/// `fma.RND.f32` (single rounding).
pub fn f32_fma(a: f32, b: f32, c: f32, _r: Rounding) -> f32 {
    a.mul_add(b, c)
}
/// `div.RND.f32` (IEEE).
pub fn f32_div(a: f32, b: f32, _r: Rounding) -> f32 {
    a / b
}
/// `sqrt.RND.f32` (IEEE).
pub fn f32_sqrt(a: f32, _r: Rounding) -> f32 {
    a.sqrt()
}
/// `rcp.RND.f32` (IEEE).
pub fn f32_rcp(a: f32, _r: Rounding) -> f32 {
    1.0 / a
}
/// `add.RND.f64`.
pub fn f64_add(a: f64, b: f64, _r: Rounding) -> f64 {
    a + b
}
/// `sub.RND.f64`.
pub fn f64_sub(a: f64, b: f64, _r: Rounding) -> f64 {
    a - b
}
/// `mul.RND.f64`.
pub fn f64_mul(a: f64, b: f64, _r: Rounding) -> f64 {
    a * b
}
/// `fma.RND.f64`.
pub fn f64_fma(a: f64, b: f64, c: f64, _r: Rounding) -> f64 {
    a.mul_add(b, c)
}
/// `div.RND.f64`.
pub fn f64_div(a: f64, b: f64, _r: Rounding) -> f64 {
    a / b
}
/// `sqrt.RND.f64`.
pub fn f64_sqrt(a: f64, _r: Rounding) -> f64 {
    a.sqrt()
}
/// `rcp.RND.f64`.
pub fn f64_rcp(a: f64, _r: Rounding) -> f64 {
    1.0 / a
}
/// `sin.approx.f32` (max abs error 2^-20.5 in [-pi, pi] per the ISA).
pub fn f32_sin_approx(a: f32) -> f32 {
    a.sin()
}
/// `cos.approx.f32`.
pub fn f32_cos_approx(a: f32) -> f32 {
    a.cos()
}
/// `lg2.approx.f32`.
pub fn f32_lg2_approx(a: f32) -> f32 {
    a.log2()
}
/// `ex2.approx.f32`.
pub fn f32_ex2_approx(a: f32) -> f32 {
    a.exp2()
}
/// `rsqrt.approx.f32`.
pub fn f32_rsqrt_approx(a: f32) -> f32 {
    1.0 / a.sqrt()
}
/// `rcp.approx.f32`.
pub fn f32_rcp_approx(a: f32) -> f32 {
    1.0 / a
}
/// `sqrt.approx.f32`.
pub fn f32_sqrt_approx(a: f32) -> f32 {
    a.sqrt()
}
/// `div.approx.f32`.
pub fn f32_div_approx(a: f32, b: f32) -> f32 {
    a / b
}
/// `div.full.f32`.
pub fn f32_div_full(a: f32, b: f32) -> f32 {
    a / b
}
/// `tanh.approx.f32`.
pub fn f32_tanh_approx(a: f32) -> f32 {
    a.tanh()
}
/// `rsqrt.approx.f64` / `rcp.approx.ftz.f64` style double approximations.
pub fn f64_rsqrt_approx(a: f64) -> f64 {
    1.0 / a.sqrt()
}

/// `cvt{.RND}{.ftz}{.sat}.DST.SRC`: converts the value held in `bits` (of type `src`, in the low
/// bits) to `dst`, returning the destination bits zero- or sign-extended to 64 bits as PTX
/// registers hold them.
pub fn cvt(
    bits: u64,
    dst: ScalarType,
    src: ScalarType,
    _r: Option<Rounding>,
    _ftz: bool,
    _sat: bool,
) -> u64 {
    let _ = (dst, src);
    bits
}

/// IEEE half (bits) to f32, exact.
pub fn f16_to_f32(h: u16) -> f32 {
    let _ = h;
    0.0
}

/// f32 to IEEE half bits with rounding `r`.
pub fn f32_to_f16(x: f32, _r: Rounding) -> u16 {
    let _ = x;
    0
}
