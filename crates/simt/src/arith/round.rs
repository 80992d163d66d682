//! Directed rounding from a round-to-nearest result (IEEE 754-2008 §4.3, PTX ISA §9.7.3).
//!
//! Every exact operation here is computed as: `r` = the native round-to-nearest-even result, then
//! the sign of the residual `exact - r` is found exactly with error-free transformations
//! (TwoSum, TwoProd through `fma`) summed into a non-overlapping floating-point expansion
//! (Shewchuk's Grow-Expansion, whose sign is the sign of its largest component). Since `r` is
//! the nearest representable value, the directed result is `r` or one of its neighbours: the
//! residual sign decides which.

use std::cmp::Ordering;

use super::Rounding;

/// Rounding direction of a floating-point result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// To nearest, ties to even.
    Nearest,
    /// Toward zero.
    Zero,
    /// Toward minus infinity.
    Down,
    /// Toward plus infinity.
    Up,
}

impl Dir {
    /// The direction of a PTX rounding modifier. Integer roundings (`.rni` ...) map to their
    /// float counterparts; `.rna` (ties away, only used for tf32) maps to nearest.
    #[inline]
    pub fn of(r: Rounding) -> Dir {
        match r {
            Rounding::Rn | Rounding::Rni | Rounding::Rna => Dir::Nearest,
            Rounding::Rz | Rounding::Rzi => Dir::Zero,
            Rounding::Rm | Rounding::Rmi => Dir::Down,
            Rounding::Rp | Rounding::Rpi => Dir::Up,
        }
    }
}

/// TwoSum (Knuth): `s + e == a + b` exactly, `s = fl(a + b)`; valid whenever `s` is finite.
#[inline]
pub fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// TwoProd through fma: `p + e == a * b` exactly when no underflow occurs (|a·b| ≥ 2^-969).
#[inline]
pub fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    (p, a.mul_add(b, -p))
}

/// Exact sign of the sum of `terms` (finite doubles whose partial sums do not overflow), via a
/// non-overlapping expansion with zero elimination.
pub fn sign_of_sum(terms: &[f64]) -> Ordering {
    let mut exp: [f64; 8] = [0.0; 8];
    let mut n = 0usize;
    for &t in terms {
        // Grow-Expansion: add t to the expansion exp[..n] (increasing magnitude).
        let mut q = t;
        let mut m = 0usize;
        for i in 0..n {
            let (s, e) = two_sum(q, exp[i]);
            if e != 0.0 {
                exp[m] = e;
                m += 1;
            }
            q = s;
        }
        if q != 0.0 {
            exp[m] = q;
            m += 1;
        }
        n = m;
        debug_assert!(n <= exp.len());
    }
    match n {
        0 => Ordering::Equal,
        _ => exp[n - 1].partial_cmp(&0.0).unwrap_or(Ordering::Equal),
    }
}

/// Exact `x · 2^n` when the result is representable (normal, or subnormal without lost bits);
/// applied in steps so that large `n` neither overflows nor underflows the scale factor.
#[inline]
pub fn ldexp(mut x: f64, mut n: i32) -> f64 {
    while n > 1000 {
        x *= f64::from_bits(((1023 + 1000) as u64) << 52);
        n -= 1000;
    }
    while n < -1000 {
        x *= f64::from_bits(((1023 - 1000) as u64) << 52);
        n += 1000;
    }
    x * f64::from_bits(((1023 + n) as u64) << 52)
}

/// Binary exponent and significand in `[1, 2)` of a finite non-zero double (subnormals too):
/// `x == m · 2^e`.
#[inline]
pub fn frexp(x: f64) -> (f64, i32) {
    let bits = x.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i32;
    if e == 0 {
        // subnormal: scale up by 2^64 first (exact)
        let (m, e2) = frexp(x * f64::from_bits(((1023 + 64) as u64) << 52));
        return (m, e2 - 64);
    }
    let m = f64::from_bits((bits & !(0x7ffu64 << 52)) | (1023u64 << 52));
    (m, e - 1023)
}

macro_rules! float_steps {
    ($t:ty, $bits:ty, $next_up:ident, $next_down:ident, $adjust:ident, $overflow:ident) => {
        /// The next representable value toward +∞ (`-0` for the negative value closest to zero,
        /// `+∞` after the largest finite value); NaN and +∞ unchanged.
        #[inline]
        pub fn $next_up(x: $t) -> $t {
            if x.is_nan() || x == <$t>::INFINITY {
                return x;
            }
            if x == 0.0 {
                return <$t>::from_bits(1);
            }
            let b = x.to_bits();
            <$t>::from_bits(if x > 0.0 { b + 1 } else { b - 1 })
        }

        /// The next representable value toward −∞.
        #[inline]
        pub fn $next_down(x: $t) -> $t {
            -$next_up(-x)
        }

        /// Directed result from the nearest result `r` (finite) and the sign of `exact - r`.
        #[inline]
        pub fn $adjust(r: $t, residual: Ordering, d: Dir) -> $t {
            match (d, residual) {
                (Dir::Nearest, _) | (_, Ordering::Equal) => r,
                (Dir::Up, Ordering::Greater) => $next_up(r),
                (Dir::Down, Ordering::Less) => $next_down(r),
                (Dir::Zero, Ordering::Greater) if r < 0.0 => $next_up(r),
                (Dir::Zero, Ordering::Less) if r > 0.0 => $next_down(r),
                _ => r,
            }
        }

        /// Result of an overflow whose exact value has sign `negative` (IEEE 754 §7.4): ±∞ when
        /// rounding away from zero in that direction, else the largest finite magnitude.
        #[inline]
        pub fn $overflow(negative: bool, d: Dir) -> $t {
            let inf = match d {
                Dir::Nearest => true,
                Dir::Zero => false,
                Dir::Up => !negative,
                Dir::Down => negative,
            };
            let m = if inf { <$t>::INFINITY } else { <$t>::MAX };
            if negative {
                -m
            } else {
                m
            }
        }
    };
}

float_steps!(f32, u32, next_up32, next_down32, adjust32, overflow32);
float_steps!(f64, u64, next_up64, next_down64, adjust64, overflow64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_and_signs() {
        assert_eq!(next_up32(0.0).to_bits(), 1);
        assert_eq!(next_up32(-0.0).to_bits(), 1);
        assert_eq!(next_down32(0.0), -f32::from_bits(1));
        assert_eq!(next_up32(-f32::from_bits(1)).to_bits(), (-0.0f32).to_bits());
        assert_eq!(next_up32(f32::MAX), f32::INFINITY);
        assert_eq!(next_down64(1.0), 1.0 - f64::EPSILON / 2.0);
        assert_eq!(sign_of_sum(&[1.0, 1e-300, -1.0]), Ordering::Greater);
        assert_eq!(sign_of_sum(&[1e300, -1e-300, -1e300]), Ordering::Less);
        assert_eq!(sign_of_sum(&[0.1, 0.2, -0.1, -0.2]), Ordering::Equal);
        assert_eq!(ldexp(1.0, -1074), f64::from_bits(1));
        assert_eq!(ldexp(f64::from_bits(1), 2000), 2f64.powi(926));
        assert_eq!(frexp(f64::from_bits(1)), (1.0, -1074));
        assert_eq!(frexp(-6.0), (-1.5, 2));
        assert_eq!(overflow32(true, Dir::Up), -f32::MAX);
        assert_eq!(overflow64(false, Dir::Up), f64::INFINITY);
    }
}
