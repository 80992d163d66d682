//! Paired comparisons over policy seeds: whether one policy's figure leads another's by more
//! than the seed-to-seed noise of the random draws (session 24, for claims 5 and 14 of
//! document 004, whose leaders lie within a point of each other).
//!
//! For seeds s = 1..n, `x[s]` and `y[s]` are the two sides' figures made with the same seed
//! (a side without random draws has the same figure at every seed). The differences
//! d = x − y are treated as n independent draws: their mean, its standard error
//! sd(d) / √n and the two-sided Student-t interval with n − 1 degrees of freedom. The verdict
//! is `leads` when the whole interval lies above 0, `trails` when it lies below 0, and
//! `undecided` when it contains 0. The population is the seeds of the policies' draws on the
//! fixed workloads of the run, not other workloads.
//!
//! [`spread`] writes the seed-to-seed range of a figure (its min and max over the seeds).

use serde_json::{json, Value};
use statrs::distribution::{ContinuousCDF, StudentsT};

/// The confidence of the reported intervals.
pub const CONFIDENCE: f64 = 0.95;

/// The outcome of a paired comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The interval of the mean difference lies entirely above 0.
    Leads,
    /// The interval lies entirely below 0.
    Trails,
    /// The interval contains 0: the seeds cannot order the two sides.
    Undecided,
}

impl Verdict {
    /// The JSON name (`leads`, `trails`, `undecided`).
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Leads => "leads",
            Verdict::Trails => "trails",
            Verdict::Undecided => "undecided",
        }
    }
}

/// A paired comparison of two per-seed series.
#[derive(Clone, Debug, PartialEq)]
pub struct Paired {
    /// The per-seed differences x − y, in seed order.
    pub differences: Vec<f64>,
    /// Mean of x over the seeds.
    pub x_mean: f64,
    /// Mean of y over the seeds.
    pub y_mean: f64,
    /// Mean difference.
    pub mean: f64,
    /// Standard error of the mean difference (sample standard deviation / √n).
    pub std_error: f64,
    /// Degrees of freedom (n − 1).
    pub df: u32,
    /// The Student-t critical value of [`CONFIDENCE`] at `df`.
    pub t: f64,
    /// The interval's bounds, mean ∓ t × standard error.
    pub interval: (f64, f64),
    /// Where the interval lies against 0.
    pub verdict: Verdict,
}

/// The paired comparison of `x` against `y` (same length, one value per seed, seed order);
/// `None` with fewer than 2 seeds, unequal lengths or a value that is not finite.
pub fn paired(x: &[f64], y: &[f64]) -> Option<Paired> {
    let n = x.len();
    if n < 2 || y.len() != n || x.iter().chain(y).any(|v| !v.is_finite()) {
        return None;
    }
    let d: Vec<f64> = x.iter().zip(y).map(|(a, b)| a - b).collect();
    let nf = n as f64;
    let mean = d.iter().sum::<f64>() / nf;
    let var = d.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (nf - 1.0);
    let std_error = (var / nf).sqrt();
    let df = u32::try_from(n - 1).ok()?;
    let t = t_critical(df, CONFIDENCE)?;
    let interval = (mean - t * std_error, mean + t * std_error);
    let verdict = if interval.0 > 0.0 {
        Verdict::Leads
    } else if interval.1 < 0.0 {
        Verdict::Trails
    } else {
        Verdict::Undecided
    };
    Some(Paired {
        x_mean: x.iter().sum::<f64>() / nf,
        y_mean: y.iter().sum::<f64>() / nf,
        differences: d,
        mean,
        std_error,
        df,
        t,
        interval,
        verdict,
    })
}

impl Paired {
    /// The JSON object (figures rounded to 6 decimals: differences of a few hundredths of a
    /// point must stay visible); `x_name` and `y_name` name the two sides' means.
    pub fn json(&self, x_name: &str, y_name: &str) -> Value {
        let r = |v: f64| (v * 1e6).round() / 1e6;
        json!({
            x_name: r(self.x_mean),
            y_name: r(self.y_mean),
            "differences": self.differences.iter().map(|v| r(*v)).collect::<Vec<f64>>(),
            "mean": r(self.mean),
            "std_error": r(self.std_error),
            "df": self.df,
            "t": (self.t * 1e4).round() / 1e4,
            "interval": [r(self.interval.0), r(self.interval.1)],
            "verdict": self.verdict.name(),
        })
    }
}

/// The two-sided critical value of Student's t: the t with P(|T| ≤ t) = `confidence` at `df`
/// degrees of freedom (the `statrs` crate's inverse CDF at (1 + `confidence`) / 2); `None` for
/// `df` = 0 or a confidence outside (0, 1).
pub fn t_critical(df: u32, confidence: f64) -> Option<f64> {
    if df == 0 || !(confidence > 0.0 && confidence < 1.0) {
        return None;
    }
    let t = StudentsT::new(0.0, 1.0, f64::from(df)).ok()?;
    let q = t.inverse_cdf(0.5 * (1.0 + confidence));
    q.is_finite().then_some(q)
}

/// The min and max of `v` (a figure per seed) as JSON `{"min", "max"}`, each passed through
/// `round` (the frame experiment rounds to 4 decimals, the hetero one passes the identity);
/// null when `v` is empty. NaN values are passed over (`f64::min`/`max`), and a bound that is
/// not finite is written as null.
pub fn spread(v: impl IntoIterator<Item = f64>, round: impl Fn(f64) -> f64) -> Value {
    let mut v = v.into_iter().peekable();
    if v.peek().is_none() {
        return Value::Null;
    }
    let (min, max) = v.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
        (lo.min(x), hi.max(x))
    });
    json!({"min": round(min), "max": round(max)})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_critical_matches_closed_forms_and_the_table() {
        // df = 1 (Cauchy): t = tan(0.975 π − π/2) = tan(0.475 π) = 12.7062.
        let t1 = t_critical(1, 0.95).unwrap();
        assert!(
            (t1 - (0.475 * std::f64::consts::PI).tan()).abs() < 1e-8,
            "{t1}"
        );
        // df = 2: P(|T| ≤ t) = t / √(t² + 2) = 0.95 gives t² = 2 · 0.9025 / 0.0975.
        let t2 = t_critical(2, 0.95).unwrap();
        assert!(
            (t2 - (2.0 * 0.9025 / 0.0975_f64).sqrt()).abs() < 1e-8,
            "{t2}"
        );
        assert!((t2 - 4.3027).abs() < 1e-4);
        // Printed tables (3-4 digits): df 3, 9, 11, 30; and the normal limit.
        for (df, want) in [(3, 3.1824), (9, 2.2622), (11, 2.2010), (30, 2.0423)] {
            let t = t_critical(df, 0.95).unwrap();
            assert!((t - want).abs() < 1e-4, "df {df}: {t} vs {want}");
        }
        assert!((t_critical(100_000, 0.95).unwrap() - 1.95996).abs() < 1e-4);
        assert_eq!(t_critical(0, 0.95), None);
        assert_eq!(t_critical(5, 1.0), None);
    }

    #[test]
    fn paired_comparison_of_a_hand_computed_case() {
        // d = (0, 0.2, 0.1): mean 0.1, sd 0.1, se 0.1/√3 = 0.057735, t(2) = 4.302653,
        // half width 0.248414: the interval (−0.148414, 0.348414) contains 0.
        let p = paired(&[1.0, 1.2, 1.1], &[1.0, 1.0, 1.0]).unwrap();
        assert_eq!(p.df, 2);
        assert!((p.mean - 0.1).abs() < 1e-12);
        assert!((p.std_error - 0.1 / 3f64.sqrt()).abs() < 1e-12);
        assert!((p.interval.0 + 0.148414).abs() < 1e-6, "{:?}", p.interval);
        assert!((p.interval.1 - 0.348414).abs() < 1e-6, "{:?}", p.interval);
        assert_eq!(p.verdict, Verdict::Undecided);
        assert!((p.x_mean - 1.1).abs() < 1e-12 && (p.y_mean - 1.0).abs() < 1e-12);
        // The same differences shifted up by 0.3: (0.3, 0.5, 0.4), interval (0.151586,
        // 0.648414), above 0; swapped sides trail.
        let up = paired(&[1.3, 1.5, 1.4], &[1.0, 1.0, 1.0]).unwrap();
        assert!((up.interval.0 - 0.151586).abs() < 1e-6);
        assert_eq!(up.verdict, Verdict::Leads);
        let down = paired(&[1.0, 1.0, 1.0], &[1.3, 1.5, 1.4]).unwrap();
        assert_eq!(down.verdict, Verdict::Trails);
        assert!((down.interval.1 + 0.151586).abs() < 1e-6);
        // Pairing matters: y moves with x, so the constant difference 0.01 leads with
        // no spread although either side alone spreads over 0.4.
        let tied = paired(&[1.0, 1.4, 1.2], &[0.99, 1.39, 1.19]).unwrap();
        assert!(tied.std_error < 1e-12);
        assert_eq!(tied.verdict, Verdict::Leads);
    }

    #[test]
    fn paired_refuses_what_it_cannot_compare() {
        assert_eq!(paired(&[1.0], &[1.0]), None);
        assert_eq!(paired(&[1.0, 2.0], &[1.0]), None);
        assert_eq!(paired(&[1.0, f64::NAN], &[1.0, 1.0]), None);
        let j = paired(&[1.0, 1.2, 1.1], &[1.0, 1.0, 1.0])
            .unwrap()
            .json("im", "other");
        assert_eq!(j["verdict"], "undecided");
        assert_eq!(j["df"], 2);
        assert_eq!(j["im"], 1.1);
        assert_eq!(j["interval"][1], 0.348414);
    }

    #[test]
    fn spread_is_the_min_and_max_rounded_as_asked() {
        let v = [1.23456, 0.98765, f64::NAN, 1.1];
        let j = spread(v, |x| x);
        assert_eq!(j, json!({"min": 0.98765, "max": 1.23456}));
        let r = spread(v, |x| (x * 1e2).round() / 1e2);
        assert_eq!(r, json!({"min": 0.99, "max": 1.23}));
        assert_eq!(spread(std::iter::empty(), |x| x), Value::Null);
        assert_eq!(spread([f64::NAN], |x| x), json!({"min": null, "max": null}));
    }
}
