//! Per-lane semantics of the arithmetic, logic, comparison and conversion instructions
//! (PTX ISA §9.7.1–§9.7.9). Values are raw register bits; results are returned truncated to the
//! result width (zero-extended to 64 bits). Floating-point operations that depend on rounding,
//! `.ftz`, `.sat` or `.approx` go through [`crate::arith`].
//!
//! Decisions where PTX leaves a result undefined (documented in `docs/PTX-SEMANTICS.md`):
//! integer division by zero gives all ones (the quotient) and the dividend (the remainder);
//! `MIN / -1` wraps to `MIN`, remainder 0.

use crate::arith::{self, ftz32, sat32};
use warpforge_ptx::{
    BoolOp, CmpOp, MulMode, Op, OpKind, PrmtMode, Rounding, ScalarType, ShfMode, TestpOp,
};

/// Width in bits of a type (predicates: 1).
#[inline(always)]
pub fn bits(t: ScalarType) -> u32 {
    if t == ScalarType::Pred {
        1
    } else {
        t.size() * 8
    }
}

/// Truncates `v` to `n` bits.
#[inline(always)]
pub fn trunc(v: u64, n: u32) -> u64 {
    if n >= 64 {
        v
    } else {
        v & ((1u64 << n) - 1)
    }
}

/// Sign-extends the low `n` bits of `v`.
#[inline(always)]
pub fn sext(v: u64, n: u32) -> i64 {
    if n >= 64 {
        v as i64
    } else {
        ((v << (64 - n)) as i64) >> (64 - n)
    }
}

#[inline(always)]
fn f32v(v: u64, ftz: bool) -> f32 {
    let x = f32::from_bits(v as u32);
    if ftz {
        ftz32(x)
    } else {
        x
    }
}

#[inline(always)]
fn f32r(x: f32, op: &Op) -> u64 {
    let mut x = if op.ftz { ftz32(x) } else { x };
    if op.sat {
        x = sat32(x);
    }
    x.to_bits() as u64
}

#[inline(always)]
fn f64v(v: u64) -> f64 {
    f64::from_bits(v)
}

#[inline(always)]
fn f64r(x: f64, op: &Op) -> u64 {
    let x = if op.sat {
        if x.is_nan() {
            0.0
        } else {
            x.clamp(0.0, 1.0)
        }
    } else {
        x
    };
    x.to_bits()
}

fn rnd(op: &Op) -> Rounding {
    op.rounding.unwrap_or(Rounding::Rn)
}

/// bf16 bits to f32 (exact).
#[inline]
pub fn bf16_to_f32(h: u16) -> f32 {
    f32::from_bits((h as u32) << 16)
}

/// f32 to bf16 bits, round to nearest even.
#[inline]
pub fn f32_to_bf16(x: f32) -> u16 {
    let b = x.to_bits();
    if x.is_nan() {
        return ((b >> 16) | 0x40) as u16;
    }
    let round = 0x7fff + ((b >> 16) & 1);
    ((b.wrapping_add(round)) >> 16) as u16
}

/// Applies a two-operand f32 function to one half (f16 or bf16) lane.
#[inline]
fn half_op(h: u64, g: u64, c: u64, bf: bool, f: &dyn Fn(f32, f32, f32) -> f32) -> u64 {
    let to = |v: u64| {
        if bf {
            bf16_to_f32(v as u16)
        } else {
            arith::f16_to_f32(v as u16)
        }
    };
    let r = f(to(h), to(g), to(c));
    (if bf {
        f32_to_bf16(r)
    } else {
        arith::f32_to_f16(r, Rounding::Rn)
    }) as u64
}

/// Evaluates a half-precision (scalar or packed x2) arithmetic op.
fn half(op: &Op, a: u64, b: u64, c: u64) -> u64 {
    let t = op.ty.unwrap_or(ScalarType::F16);
    let bf = matches!(t, ScalarType::Bf16 | ScalarType::Bf16x2);
    let packed = matches!(t, ScalarType::F16x2 | ScalarType::Bf16x2);
    let sat = op.sat;
    let f = |x: f32, y: f32, z: f32| -> f32 {
        let r = match op.kind {
            OpKind::Add => x + y,
            OpKind::Sub => x - y,
            OpKind::Mul => x * y,
            OpKind::Fma | OpKind::Mad => x.mul_add(y, z),
            OpKind::Min => x.min(y),
            OpKind::Max => x.max(y),
            OpKind::Neg => -x,
            OpKind::Abs => x.abs(),
            _ => f32::NAN,
        };
        if sat {
            sat32(r)
        } else {
            r
        }
    };
    if matches!(op.kind, OpKind::Neg | OpKind::Abs) {
        // Pure sign-bit operations, exact on the bits.
        let one = |v: u64| -> u64 {
            if op.kind == OpKind::Neg {
                v ^ 0x8000
            } else {
                v & 0x7fff
            }
        };
        return if packed {
            one(a & 0xffff) | (one(a >> 16) << 16)
        } else {
            one(a & 0xffff)
        };
    }
    if packed {
        let lo = half_op(a & 0xffff, b & 0xffff, c & 0xffff, bf, &f);
        let hi = half_op(
            (a >> 16) & 0xffff,
            (b >> 16) & 0xffff,
            (c >> 16) & 0xffff,
            bf,
            &f,
        );
        lo | (hi << 16)
    } else {
        half_op(a & 0xffff, b & 0xffff, c & 0xffff, bf, &f)
    }
}

/// Integer comparison.
#[inline(always)]
fn icmp(cmp: CmpOp, a: u64, b: u64, t: ScalarType) -> bool {
    let n = bits(t);
    if t.is_signed() {
        let (x, y) = (sext(a, n), sext(b, n));
        match cmp {
            CmpOp::Eq => x == y,
            CmpOp::Ne => x != y,
            CmpOp::Lt => x < y,
            CmpOp::Le => x <= y,
            CmpOp::Gt => x > y,
            CmpOp::Ge => x >= y,
            _ => ucmp(cmp, trunc(a, n), trunc(b, n)),
        }
    } else {
        ucmp(cmp, trunc(a, n), trunc(b, n))
    }
}

#[inline(always)]
fn ucmp(cmp: CmpOp, x: u64, y: u64) -> bool {
    match cmp {
        CmpOp::Eq | CmpOp::Equ => x == y,
        CmpOp::Ne | CmpOp::Neu => x != y,
        CmpOp::Lt | CmpOp::Lo | CmpOp::Ltu => x < y,
        CmpOp::Le | CmpOp::Ls | CmpOp::Leu => x <= y,
        CmpOp::Gt | CmpOp::Hi | CmpOp::Gtu => x > y,
        CmpOp::Ge | CmpOp::Hs | CmpOp::Geu => x >= y,
        CmpOp::Num => true,
        CmpOp::Nan => false,
    }
}

/// Floating-point comparison (ordered forms are false on NaN, `u` forms true).
#[inline(always)]
fn fcmp(cmp: CmpOp, x: f64, y: f64) -> bool {
    let nan = x.is_nan() || y.is_nan();
    match cmp {
        CmpOp::Eq => !nan && x == y,
        CmpOp::Ne => !nan && x != y,
        CmpOp::Lt | CmpOp::Lo => !nan && x < y,
        CmpOp::Le | CmpOp::Ls => !nan && x <= y,
        CmpOp::Gt | CmpOp::Hi => !nan && x > y,
        CmpOp::Ge | CmpOp::Hs => !nan && x >= y,
        CmpOp::Equ => nan || x == y,
        CmpOp::Neu => nan || x != y,
        CmpOp::Ltu => nan || x < y,
        CmpOp::Leu => nan || x <= y,
        CmpOp::Gtu => nan || x > y,
        CmpOp::Geu => nan || x >= y,
        CmpOp::Num => !nan,
        CmpOp::Nan => nan,
    }
}

/// Comparison of `setp`/`set`/`slct` operands of type `t`.
#[inline]
pub fn compare(cmp: CmpOp, a: u64, b: u64, t: ScalarType, ftz: bool) -> bool {
    match t {
        ScalarType::F32 => fcmp(cmp, f32v(a, ftz) as f64, f32v(b, ftz) as f64),
        ScalarType::F64 => fcmp(cmp, f64v(a), f64v(b)),
        ScalarType::F16 => fcmp(
            cmp,
            arith::f16_to_f32(a as u16) as f64,
            arith::f16_to_f32(b as u16) as f64,
        ),
        ScalarType::Bf16 => fcmp(
            cmp,
            bf16_to_f32(a as u16) as f64,
            bf16_to_f32(b as u16) as f64,
        ),
        _ => icmp(cmp, a, b, t),
    }
}

/// Combines a comparison result with the optional predicate of `setp.CMP.BOOL`.
#[inline(always)]
pub fn combine(b: Option<BoolOp>, x: bool, c: bool) -> bool {
    match b {
        None => x,
        Some(BoolOp::And) => x && c,
        Some(BoolOp::Or) => x || c,
        Some(BoolOp::Xor) => x ^ c,
    }
}

/// `lop3` with lookup table `lut`.
#[inline]
pub fn lop3(a: u64, b: u64, c: u64, lut: u8) -> u64 {
    let mut r = 0u64;
    for i in 0..8 {
        if lut >> i & 1 != 0 {
            let x = if i & 4 != 0 { a } else { !a };
            let y = if i & 2 != 0 { b } else { !b };
            let z = if i & 1 != 0 { c } else { !c };
            r |= x & y & z;
        }
    }
    r
}

/// `prmt.b32{.mode} d, a, b, c`.
pub fn prmt(a: u64, b: u64, c: u64, mode: Option<PrmtMode>) -> u64 {
    let src = ((b & 0xffff_ffff) << 32) | (a & 0xffff_ffff);
    let byte = |i: u64| (src >> ((i & 7) * 8)) & 0xff;
    let sel: [u64; 4] = match mode {
        None => {
            let mut r = 0;
            for i in 0..4 {
                let s = (c >> (4 * i)) & 0xf;
                let mut v = byte(s & 7);
                if s & 8 != 0 {
                    v = if v & 0x80 != 0 { 0xff } else { 0 };
                }
                r |= v << (8 * i);
            }
            return r;
        }
        Some(m) => {
            let s = c & 3;
            match m {
                PrmtMode::F4e => [s, s + 1, s + 2, s + 3],
                PrmtMode::B4e => [
                    s,
                    s.wrapping_sub(1) & 7,
                    s.wrapping_sub(2) & 7,
                    s.wrapping_sub(3) & 7,
                ],
                PrmtMode::Rc8 => [s; 4],
                PrmtMode::Ecl => [s, s.max(1), s.max(2), 3],
                PrmtMode::Ecr => [0, s.min(1), s.min(2), s],
                PrmtMode::Rc16 => {
                    let h = (s & 1) * 2;
                    [h, h + 1, h, h + 1]
                }
            }
        }
    };
    (0..4).fold(0, |r, i| r | (byte(sel[i]) << (8 * i)))
}

/// `bfe`: extract `len` bits at `pos`, sign-extending for signed types.
pub fn bfe(a: u64, pos: u64, len: u64, t: ScalarType) -> u64 {
    let n = bits(t) as u64;
    let msb = n - 1;
    let pos = pos & 0xff;
    let len = len & 0xff;
    let sbit = if t.is_signed() && len > 0 {
        let i = (pos + len - 1).min(msb);
        (a >> i) & 1
    } else {
        0
    };
    let mut d = 0u64;
    for i in 0..n {
        let bit = if i < len && pos + i <= msb {
            (a >> (pos + i)) & 1
        } else {
            sbit
        };
        d |= bit << i;
    }
    d
}

/// `bfi`: insert the low `len` bits of `a` into `b` at `pos`.
pub fn bfi(a: u64, b: u64, pos: u64, len: u64, t: ScalarType) -> u64 {
    let n = bits(t) as u64;
    let pos = pos & 0xff;
    let len = len & 0xff;
    let mut d = trunc(b, n as u32);
    for i in 0..len {
        if pos + i >= n {
            break;
        }
        d = (d & !(1 << (pos + i))) | (((a >> i) & 1) << (pos + i));
    }
    d
}

/// `bfind`: position of the most significant non-sign bit, or all ones when none.
pub fn bfind(a: u64, t: ScalarType, shiftamt: bool) -> u64 {
    let n = bits(t);
    let v = trunc(a, n);
    let v = if t.is_signed() && (v >> (n - 1)) & 1 == 1 {
        trunc(!v, n)
    } else {
        v
    };
    if v == 0 {
        return 0xffff_ffff;
    }
    let pos = 63 - v.leading_zeros() as u64;
    if shiftamt {
        (n as u64 - 1) - pos
    } else {
        pos
    }
}

/// `fns.b32 d, mask, base, offset`: the n-th set bit of `mask` from `base`.
pub fn fns(mask: u64, base: u64, offset: u64) -> u64 {
    let mask = mask as u32;
    let base = (base as u32).min(31);
    let off = offset as u32 as i32;
    if off == 0 {
        return base as u64;
    }
    let mut count = 0i32;
    if off > 0 {
        for i in base..32 {
            if mask >> i & 1 == 1 {
                count += 1;
                if count == off {
                    return i as u64;
                }
            }
        }
    } else {
        for i in (0..=base).rev() {
            if mask >> i & 1 == 1 {
                count -= 1;
                if count == off {
                    return i as u64;
                }
            }
        }
    }
    0xffff_ffff
}

fn mul24(a: u64, b: u64, t: ScalarType, hi: bool) -> u64 {
    let p: i64 = if t.is_signed() {
        sext(a, 24) * sext(b, 24)
    } else {
        ((a & 0xff_ffff) * (b & 0xff_ffff)) as i64
    };
    if hi {
        ((p as u64) >> 16) & 0xffff_ffff
    } else {
        (p as u64) & 0xffff_ffff
    }
}

/// Integer multiply `lo`/`hi`/`wide` of type `t` (wide results are twice as wide).
#[inline]
pub fn imul(a: u64, b: u64, t: ScalarType, mode: Option<MulMode>) -> u64 {
    let n = bits(t);
    let (p_lo, p_hi) = if t.is_signed() {
        let p = sext(a, n) as i128 * sext(b, n) as i128;
        (p as u128 as u64, (p >> 64) as u64)
    } else {
        let p = trunc(a, n) as u128 * trunc(b, n) as u128;
        (p as u64, (p >> 64) as u64)
    };
    let full = ((p_hi as u128) << 64) | p_lo as u128;
    match mode {
        None | Some(MulMode::Lo) => trunc(p_lo, n),
        Some(MulMode::Hi) => trunc((full >> n) as u64, n),
        Some(MulMode::Wide) => trunc(p_lo, 2 * n),
    }
}

fn idiv(a: u64, b: u64, t: ScalarType, rem: bool) -> u64 {
    let n = bits(t);
    if t.is_signed() {
        let (x, y) = (sext(a, n), sext(b, n));
        if y == 0 {
            return if rem {
                trunc(x as u64, n)
            } else {
                trunc(u64::MAX, n)
            };
        }
        let r = if n == 64 {
            if rem {
                x.wrapping_rem(y)
            } else {
                x.wrapping_div(y)
            }
        } else if rem {
            x % y
        } else {
            x / y
        };
        trunc(r as u64, n)
    } else {
        let (x, y) = (trunc(a, n), trunc(b, n));
        if y == 0 {
            return if rem { x } else { trunc(u64::MAX, n) };
        }
        if rem {
            x % y
        } else {
            x / y
        }
    }
}

fn sat_s32(v: i64) -> u64 {
    v.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32 as u64
}

/// Integer-to-integer `cvt` (no rounding involved; `.sat` clamps to the destination range).
pub fn cvt_int(a: u64, dst: ScalarType, src: ScalarType, sat: bool) -> u64 {
    let sn = bits(src);
    let dn = bits(dst);
    let v: i128 = if src.is_signed() {
        sext(a, sn) as i128
    } else {
        trunc(a, sn) as i128
    };
    let v = if sat {
        let (lo, hi): (i128, i128) = if dst.is_signed() {
            (-(1i128 << (dn - 1)), (1i128 << (dn - 1)) - 1)
        } else {
            (0, (1i128 << dn) - 1)
        };
        v.clamp(lo, hi)
    } else {
        v
    };
    // Destination registers hold the value sign-extended for signed types; the executor masks
    // it to the register width.
    if dst.is_signed() {
        sext(v as u64, dn) as u64
    } else {
        trunc(v as u64, dn)
    }
}

fn is_int(t: ScalarType) -> bool {
    !t.is_float() && t != ScalarType::Pred
}

/// Evaluates one lane of an arithmetic/logic/conversion instruction with sources `a`..`e`.
/// Returns the destination bits (not yet masked to the register width).
pub fn eval(op: &Op, space_base: u64, a: u64, b: u64, c: u64, e: u64) -> u64 {
    use OpKind::*;
    use ScalarType::*;
    let t = op.ty.unwrap_or(B32);
    let n = bits(t);
    match (op.kind, t) {
        (Mov, _) => a,
        // ---- half precision
        (Add | Sub | Mul | Fma | Mad | Min | Max | Neg | Abs, F16 | F16x2 | Bf16 | Bf16x2) => {
            half(op, a, b, c)
        }
        // ---- f32
        (Add, F32) => f32r(
            arith::f32_add(f32v(a, op.ftz), f32v(b, op.ftz), rnd(op)),
            op,
        ),
        (Sub, F32) => f32r(
            arith::f32_sub(f32v(a, op.ftz), f32v(b, op.ftz), rnd(op)),
            op,
        ),
        (Mul, F32) => f32r(
            arith::f32_mul(f32v(a, op.ftz), f32v(b, op.ftz), rnd(op)),
            op,
        ),
        (Fma | Mad, F32) => f32r(
            arith::f32_fma(f32v(a, op.ftz), f32v(b, op.ftz), f32v(c, op.ftz), rnd(op)),
            op,
        ),
        (Div, F32) => {
            let (x, y) = (f32v(a, op.ftz), f32v(b, op.ftz));
            let r = if op.approx {
                arith::f32_div_approx(x, y)
            } else if op.full {
                arith::f32_div_full(x, y)
            } else {
                arith::f32_div(x, y, rnd(op))
            };
            f32r(r, op)
        }
        (Abs, F32) => f32r(f32::from_bits(a as u32 & 0x7fff_ffff), op),
        (Neg, F32) => f32r(f32::from_bits(a as u32 ^ 0x8000_0000), op),
        (Min, F32) => f32r(f32v(a, op.ftz).min(f32v(b, op.ftz)), op),
        (Max, F32) => f32r(f32v(a, op.ftz).max(f32v(b, op.ftz)), op),
        (Rcp, F32) => {
            let x = f32v(a, op.ftz);
            f32r(
                if op.approx {
                    arith::f32_rcp_approx(x)
                } else {
                    arith::f32_rcp(x, rnd(op))
                },
                op,
            )
        }
        (Sqrt, F32) => {
            let x = f32v(a, op.ftz);
            f32r(
                if op.approx {
                    arith::f32_sqrt_approx(x)
                } else {
                    arith::f32_sqrt(x, rnd(op))
                },
                op,
            )
        }
        (Rsqrt, F32) => f32r(arith::f32_rsqrt_approx(f32v(a, op.ftz)), op),
        (Sin, F32) => f32r(arith::f32_sin_approx(f32v(a, op.ftz)), op),
        (Cos, F32) => f32r(arith::f32_cos_approx(f32v(a, op.ftz)), op),
        (Lg2, F32) => f32r(arith::f32_lg2_approx(f32v(a, op.ftz)), op),
        (Ex2, F32) => f32r(arith::f32_ex2_approx(f32v(a, op.ftz)), op),
        (Tanh, F32) => f32r(arith::f32_tanh_approx(f32v(a, op.ftz)), op),
        (Copysign, F32) => ((b as u32 & 0x7fff_ffff) | (a as u32 & 0x8000_0000)) as u64,
        (Testp, F32) => testp(
            f32::from_bits(a as u32) as f64,
            op,
            f32::from_bits(a as u32).is_subnormal(),
            f32::from_bits(a as u32).is_normal(),
        ),
        // ---- f64
        (Add, F64) => f64r(arith::f64_add(f64v(a), f64v(b), rnd(op)), op),
        (Sub, F64) => f64r(arith::f64_sub(f64v(a), f64v(b), rnd(op)), op),
        (Mul, F64) => f64r(arith::f64_mul(f64v(a), f64v(b), rnd(op)), op),
        (Fma | Mad, F64) => f64r(arith::f64_fma(f64v(a), f64v(b), f64v(c), rnd(op)), op),
        (Div, F64) => f64r(arith::f64_div(f64v(a), f64v(b), rnd(op)), op),
        (Abs, F64) => a & 0x7fff_ffff_ffff_ffff,
        (Neg, F64) => a ^ 0x8000_0000_0000_0000,
        (Min, F64) => f64v(a).min(f64v(b)).to_bits(),
        (Max, F64) => f64v(a).max(f64v(b)).to_bits(),
        (Rcp, F64) => {
            if op.approx {
                (1.0 / f64v(a)).to_bits()
            } else {
                arith::f64_rcp(f64v(a), rnd(op)).to_bits()
            }
        }
        (Sqrt, F64) => arith::f64_sqrt(f64v(a), rnd(op)).to_bits(),
        (Rsqrt, F64) => arith::f64_rsqrt_approx(f64v(a)).to_bits(),
        (Copysign, F64) => (b & 0x7fff_ffff_ffff_ffff) | (a & 0x8000_0000_0000_0000),
        (Testp, F64) => testp(f64v(a), op, f64v(a).is_subnormal(), f64v(a).is_normal()),
        // ---- integer
        (Add, _) if is_int(t) => {
            if op.sat && t == S32 {
                sat_s32(sext(a, 32) + sext(b, 32))
            } else {
                trunc(a.wrapping_add(b), n)
            }
        }
        (Sub, _) if is_int(t) => {
            if op.sat && t == S32 {
                sat_s32(sext(a, 32) - sext(b, 32))
            } else {
                trunc(a.wrapping_sub(b), n)
            }
        }
        (Mul, _) if is_int(t) => imul(a, b, t, op.mul_mode),
        (Mad, _) if is_int(t) => {
            let p = imul(a, b, t, op.mul_mode);
            if op.mul_mode == Some(MulMode::Wide) {
                trunc(p.wrapping_add(c), 2 * n)
            } else if op.sat && t == S32 && op.mul_mode == Some(MulMode::Hi) {
                sat_s32(sext(p, 32) + sext(c, 32))
            } else {
                trunc(p.wrapping_add(c), n)
            }
        }
        (Mul24, _) => mul24(a, b, t, op.mul_mode == Some(MulMode::Hi)),
        (Mad24, _) => trunc(
            mul24(a, b, t, op.mul_mode == Some(MulMode::Hi)).wrapping_add(c),
            32,
        ),
        (Sad, _) => {
            let d = if t.is_signed() {
                (sext(a, n) - sext(b, n)).unsigned_abs()
            } else {
                trunc(a, n).abs_diff(trunc(b, n))
            };
            trunc(c.wrapping_add(d), n)
        }
        (Div, _) => idiv(a, b, t, false),
        (Rem, _) => idiv(a, b, t, true),
        (Abs, _) => trunc(sext(a, n).wrapping_abs() as u64, n),
        (Neg, _) => trunc((sext(a, n).wrapping_neg()) as u64, n),
        (Min, _) => {
            if t.is_signed() {
                trunc(sext(a, n).min(sext(b, n)) as u64, n)
            } else {
                trunc(a, n).min(trunc(b, n))
            }
        }
        (Max, _) => {
            if t.is_signed() {
                trunc(sext(a, n).max(sext(b, n)) as u64, n)
            } else {
                trunc(a, n).max(trunc(b, n))
            }
        }
        (Popc, _) => trunc(a, n).count_ones() as u64,
        (Clz, _) => (trunc(a, n).leading_zeros() - (64 - n)) as u64,
        (Bfind, _) => bfind(a, t, op.shiftamt),
        (Fns, _) => fns(a, b, c),
        (Brev, _) => trunc(a, n).reverse_bits() >> (64 - n),
        (Bfe, _) => trunc(bfe(a, b, c, t), n),
        (Bfi, _) => bfi(a, b, c, e, t),
        (Dp4a, _) => {
            let ta = op.ty.unwrap_or(U32);
            let tb = op.ty2.unwrap_or(ta);
            let mut acc = c as u32 as i64;
            if ta.is_signed() || tb.is_signed() {
                acc = sext(c, 32);
            }
            for i in 0..4 {
                let x = (a >> (8 * i)) & 0xff;
                let y = (b >> (8 * i)) & 0xff;
                let x = if ta.is_signed() { sext(x, 8) } else { x as i64 };
                let y = if tb.is_signed() { sext(y, 8) } else { y as i64 };
                acc = acc.wrapping_add(x * y);
            }
            acc as u32 as u64
        }
        (Dp2a, _) => {
            let ta = op.ty.unwrap_or(U32);
            let tb = op.ty2.unwrap_or(ta);
            let hi = op.mul_mode == Some(MulMode::Hi);
            let mut acc = if ta.is_signed() || tb.is_signed() {
                sext(c, 32)
            } else {
                c as u32 as i64
            };
            for i in 0..2 {
                let x = (a >> (16 * i)) & 0xffff;
                let bi = if hi { i + 2 } else { i };
                let y = (b >> (8 * bi)) & 0xff;
                let x = if ta.is_signed() {
                    sext(x, 16)
                } else {
                    x as i64
                };
                let y = if tb.is_signed() { sext(y, 8) } else { y as i64 };
                acc = acc.wrapping_add(x * y);
            }
            acc as u32 as u64
        }
        // ---- comparison and selection
        (Selp, _) => {
            if c & 1 != 0 {
                a
            } else {
                b
            }
        }
        (Set, _) => {
            let st = op.ty2.unwrap_or(t);
            let x = combine(
                op.bool_op,
                compare(op.cmp.unwrap_or(CmpOp::Eq), a, b, st, op.ftz),
                c & 1 != 0,
            );
            match t {
                F32 => {
                    if x {
                        1.0f32.to_bits() as u64
                    } else {
                        0
                    }
                }
                _ => {
                    if x {
                        trunc(u64::MAX, n)
                    } else {
                        0
                    }
                }
            }
        }
        (Slct, _) => {
            let ct = op.ty2.unwrap_or(S32);
            let ge = match ct {
                F32 => f32v(c, op.ftz) >= 0.0,
                _ => sext(c, 32) >= 0,
            };
            if ge {
                a
            } else {
                b
            }
        }
        // ---- logic and shift
        (And, Pred) => a & b & 1,
        (Or, Pred) => (a | b) & 1,
        (Xor, Pred) => (a ^ b) & 1,
        (Not, Pred) => !a & 1,
        (And, _) => a & b,
        (Or, _) => a | b,
        (Xor, _) => a ^ b,
        (Not, _) => trunc(!a, n),
        (Cnot, _) => (trunc(a, n) == 0) as u64,
        (Lop3, _) => trunc(lop3(a, b, c, e as u8), n),
        (Shl, _) => {
            let s = b as u32;
            if s >= n {
                0
            } else {
                trunc(a << s, n)
            }
        }
        (Shr, _) => {
            let s = b as u32;
            if t.is_signed() {
                let v = sext(a, n);
                trunc((v >> s.min(63)) as u64, n)
            } else if s >= n {
                0
            } else {
                trunc(a, n) >> s
            }
        }
        (Shf, _) => {
            let mode = op.shf.unwrap_or(ShfMode::LWrap);
            let sh = match mode {
                ShfMode::LClamp | ShfMode::RClamp => (c as u32).min(32),
                _ => c as u32 & 31,
            };
            let v = ((b & 0xffff_ffff) << 32) | (a & 0xffff_ffff);
            match mode {
                ShfMode::LClamp | ShfMode::LWrap => ((v << sh) >> 32) & 0xffff_ffff,
                _ => (v >> sh) & 0xffff_ffff,
            }
        }
        (Prmt, _) => prmt(a, b, c, op.prmt),
        // ---- conversion and addresses
        (Cvt, _) => {
            let src = op.ty2.unwrap_or(t);
            if is_int(t) && is_int(src) {
                cvt_int(a, t, src, op.sat)
            } else {
                arith::cvt(a, t, src, op.rounding, op.ftz, op.sat)
            }
        }
        (Cvta, _) => {
            if op.cvta_to {
                a.wrapping_sub(space_base)
            } else {
                a.wrapping_add(space_base)
            }
        }
        _ => 0,
    }
}

fn testp(x: f64, op: &Op, subnormal: bool, normal: bool) -> u64 {
    (match op.testp.unwrap_or(TestpOp::Finite) {
        TestpOp::Finite => x.is_finite(),
        TestpOp::Infinite => x.is_infinite(),
        TestpOp::Number => !x.is_nan(),
        TestpOp::NotANumber => x.is_nan(),
        TestpOp::Normal => normal,
        TestpOp::Subnormal => subnormal,
    }) as u64
}

/// Whether [`eval`] handles this op kind (used by `ptx check` to validate a module decodes).
pub fn supported(op: &Op) -> bool {
    use OpKind::*;
    !matches!(op.kind, Tld4 | Txq | Suld | Sust | Brx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prmt_default_and_sign_replication() {
        // Identity selector.
        assert_eq!(prmt(0x4433_2211, 0x8877_6655, 0x3210, None), 0x4433_2211);
        // Bytes of b.
        assert_eq!(prmt(0x4433_2211, 0x8877_6655, 0x7654, None), 0x8877_6655);
        // Sign replication of byte 7 (0x88, negative) -> 0xff.
        assert_eq!(prmt(0x4433_2211, 0x8877_6655, 0x000f, None) & 0xff, 0xff);
        assert_eq!(prmt(0x4433_2211, 0x8877_6655, 0x0008, None) & 0xff, 0x00);
        assert_eq!(prmt(0x4433_2211, 0, 1, Some(PrmtMode::Rc8)), 0x2222_2222);
        assert_eq!(
            prmt(0x4433_2211, 0x8877_6655, 1, Some(PrmtMode::F4e)),
            0x5544_3322
        );
    }

    #[test]
    fn bit_fields() {
        assert_eq!(bfe(0xf0, 4, 4, ScalarType::U32), 0xf);
        assert_eq!(bfe(0xf0, 4, 4, ScalarType::S32), 0xffff_ffff);
        assert_eq!(bfe(0x70, 4, 4, ScalarType::S32), 7);
        assert_eq!(bfe(0x1234, 0, 0, ScalarType::U32), 0);
        assert_eq!(bfi(0xff, 0, 8, 4, ScalarType::B32), 0xf00);
        assert_eq!(bfind(1, ScalarType::U32, false), 0);
        assert_eq!(bfind(0, ScalarType::U32, false), 0xffff_ffff);
        assert_eq!(bfind(0x8000_0000, ScalarType::U32, true), 0);
        assert_eq!(bfind(0xffff_fffe, ScalarType::S32, false), 0);
        assert_eq!(lop3(0xf0, 0xcc, 0xaa, 0x80), 0x80);
        assert_eq!(lop3(0xf0, 0xcc, 0xaa, 0x96), 0xf0 ^ 0xcc ^ 0xaa);
    }

    #[test]
    fn int_conversions_and_multiplies() {
        assert_eq!(
            cvt_int(0xffff_ffff, ScalarType::S64, ScalarType::S32, false),
            u64::MAX
        );
        assert_eq!(
            cvt_int(0xffff_ffff, ScalarType::U64, ScalarType::U32, false),
            0xffff_ffff
        );
        assert_eq!(cvt_int(300, ScalarType::U8, ScalarType::U32, true), 255);
        assert_eq!(
            cvt_int((-5i64) as u64, ScalarType::U16, ScalarType::S32, true),
            0
        );
        assert_eq!(
            imul(0xffff_ffff, 2, ScalarType::U32, Some(MulMode::Wide)),
            0x1_ffff_fffe
        );
        assert_eq!(
            imul(0xffff_ffff, 2, ScalarType::S32, Some(MulMode::Wide)),
            (-2i64) as u64
        );
        assert_eq!(imul(0x8000_0000, 4, ScalarType::U32, Some(MulMode::Hi)), 2);
        assert_eq!(
            imul(u64::MAX, u64::MAX, ScalarType::S64, Some(MulMode::Hi)),
            0
        );
        assert_eq!(idiv(7, 0, ScalarType::U32, false), 0xffff_ffff);
        assert_eq!(
            idiv(0x8000_0000, 0xffff_ffff, ScalarType::S32, false),
            0x8000_0000
        );
    }
}
