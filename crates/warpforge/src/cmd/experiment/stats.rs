//! The small statistics that the experiments' reports share (geometric and arithmetic means).
//!
//! Each function sums in slice order with Rust's `f64` `Sum`, so a report that calls it
//! writes the same bits as the private copies it replaced: the experiments' JSON stays
//! byte-identical (session 25, house rule 8). The variants differ only in what they do with
//! values a mean cannot take and with an empty input; pick the one whose behaviour a report
//! documents rather than adapting the result.

/// Geometric mean `exp(Σ ln xᵢ / n)` of every value of `v`, logarithms summed in order;
/// `None` when `v` is empty. Nothing is filtered out: a zero gives 0 and a negative value NaN
/// (use [`geomean_positive`] to skip them).
pub fn geomean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp())
}

/// Geometric mean of the positive finite values of `v` (zeros, negatives, infinities and NaN
/// skipped, as a missing figure is); `None` when there are none. Otherwise as [`geomean`].
pub fn geomean_positive(v: &[f64]) -> Option<f64> {
    let kept: Vec<f64> = v
        .iter()
        .copied()
        .filter(|x| x.is_finite() && *x > 0.0)
        .collect();
    geomean(&kept)
}

/// Arithmetic mean `Σ xᵢ / n`, summed in order; `None` when `v` is empty.
pub fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// `Σ xᵢ / max(n, 1)`: the arithmetic mean, and for an empty `v` the empty sum divided by 1,
/// which is a zero (negative zero with the `f64` `Sum` of Rust 1.81 and later, `-0.0` in JSON).
pub fn mean_or_zero(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_inputs() {
        assert_eq!(geomean(&[]), None);
        assert_eq!(geomean_positive(&[]), None);
        assert_eq!(
            geomean_positive(&[0.0, -1.0, f64::NAN, f64::INFINITY]),
            None
        );
        assert_eq!(mean(&[]), None);
        let z = mean_or_zero(&[]);
        assert_eq!(z, 0.0);
        assert_eq!(z.to_bits(), [0.0f64; 0].iter().sum::<f64>().to_bits());
    }

    #[test]
    fn known_cases() {
        assert!((geomean(&[1.0, 4.0]).unwrap() - 2.0).abs() < 1e-12);
        assert!((geomean(&[2.0, 8.0, 4.0]).unwrap() - 4.0).abs() < 1e-12);
        assert_eq!(geomean(&[3.0, 0.0]), Some(0.0));
        assert!(geomean(&[2.0, -2.0]).unwrap().is_nan());
        // The missing (non-positive, non-finite) values are skipped, not counted as 1.
        assert!((geomean_positive(&[2.0, f64::NAN, 0.0, 8.0]).unwrap() - 4.0).abs() < 1e-12);
        assert_eq!(mean(&[1.0, 2.0, 6.0]), Some(3.0));
        assert_eq!(mean_or_zero(&[1.0, 2.0, 6.0]), 3.0);
        assert_eq!(mean_or_zero(&[-4.0]), -4.0);
    }

    #[test]
    fn exact_formulas_bit_for_bit() {
        // Values whose sum of logarithms depends on the order of addition: the helpers must
        // give exactly the in-order sum (what the reports' private copies computed).
        let v = [0.1, 3.7, 1e-3, 42.0, 0.77, 1.0 / 3.0, 9.9e5];
        let mut s = 0.0;
        for x in &v {
            s += f64::ln(*x);
        }
        let g = (s / v.len() as f64).exp();
        assert_eq!(geomean(&v).unwrap().to_bits(), g.to_bits());
        let with_gaps = [
            0.1,
            0.0,
            3.7,
            f64::NAN,
            1e-3,
            42.0,
            -1.0,
            0.77,
            1.0 / 3.0,
            9.9e5,
        ];
        assert_eq!(geomean_positive(&with_gaps).unwrap().to_bits(), g.to_bits());
        let mut a = 0.0;
        for x in &v {
            a += *x;
        }
        let m = a / v.len() as f64;
        assert_eq!(mean(&v).unwrap().to_bits(), m.to_bits());
        assert_eq!(mean_or_zero(&v).to_bits(), m.to_bits());
    }
}
