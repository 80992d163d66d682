//! The regression models of document 000 §6.5 (Eq 6.5, Appendix A): `Time = Σ_i coef_i ×
//! factor1_i × factor2_i` over every main effect (factor × 1) and every pairwise product of
//! distinct factors, no intercept, fitted by least squares (nalgebra's SVD), and the K-fold
//! cross-validation that prunes the training set (claim 31).
//!
//! Decisions (the document leaves them open):
//! * the fit minimises the error of `ln(time)` ([`Weighting::Log`]: Gauss–Newton from the
//!   relative fit), because the measured times span several orders of magnitude and plain least
//!   squares would fit only the longest kernels; [`Weighting::Relative`] (rows weighted by
//!   `1 / time`) was the earlier choice, but minimising `Σ((ŷ − y)/y)²` biases every prediction
//!   low (an over-prediction costs without bound, an under-prediction at most 1): on the suite
//!   72–82% of the held-out predictions were below the measured time, median ratio 0.82;
//!   [`Weighting::Absolute`] gives the plain fit;
//! * columns are scaled to unit maximum before the solve (the solution is the same in exact
//!   arithmetic; the scaling keeps the SVD's rank decision meaningful for counts near 1e9 and
//!   products near 1e18); rank-deficient systems get the minimum-norm solution;
//! * the pruning score is the cross-validated R² of `ln(time)` (errors are multiplicative), and
//!   a group is one kernel (all its sizes fall in the same fold).

use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

/// One training or test observation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// Cross-validation group (the kernel; its input sizes share a fold).
    pub group: String,
    /// Factor values, in the model's factor order.
    pub x: Vec<f64>,
    /// Measured time, s.
    pub y: f64,
}

/// A term: a main effect `(i, None)` or the product of factors `i < j`.
pub type Term = (usize, Option<usize>);

/// Row weighting of the least-squares fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Weighting {
    /// Plain least squares on the times.
    Absolute,
    /// Each row divided by its measured time (relative error).
    Relative,
    /// Least squares on `ln(time)` of the (linear) model: Gauss–Newton iterations from the
    /// [`Weighting::Relative`] solution, each a least-squares solve of the model linearised at
    /// the current prediction (rows divided by it), with step halving.
    Log,
}

/// Gauss–Newton iterations of [`Weighting::Log`] at most.
pub const LOG_ITERATIONS: usize = 30;

/// How a model is fitted.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Fit {
    /// Row weighting.
    pub weighting: Weighting,
    /// Singular values below `rcond × σ_max` (of the column-scaled system) are dropped
    /// (truncated-SVD least squares); 0 keeps every numerically non-zero one.
    pub rcond: f64,
}

impl Default for Fit {
    fn default() -> Self {
        Fit {
            weighting: Weighting::Relative,
            rcond: 0.0,
        }
    }
}

/// Truncation levels [`select_rcond`] tries.
pub const RCOND_CANDIDATES: [f64; 10] =
    [0.0, 1e-10, 1e-8, 1e-6, 1e-4, 1e-3, 1e-2, 3e-2, 1e-1, 3e-1];

/// Every main effect, then every pairwise product (`n + n(n−1)/2` terms: 36 for 8 factors, 55
/// for 10, 45 for 9, as Appendix A counts them).
pub fn all_terms(n_factors: usize) -> Vec<Term> {
    let mut t: Vec<Term> = (0..n_factors).map(|i| (i, None)).collect();
    for i in 0..n_factors {
        for j in i + 1..n_factors {
            t.push((i, Some(j)));
        }
    }
    t
}

/// The value of one term for factor values `x`.
pub fn term_value(x: &[f64], t: Term) -> f64 {
    match t.1 {
        None => x[t.0],
        Some(j) => x[t.0] * x[j],
    }
}

/// A fitted model (Eq 6.5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Model {
    /// Factor names, in order.
    pub factors: Vec<String>,
    /// Terms, in coefficient order.
    pub terms: Vec<Term>,
    /// Coefficients (time units per factor-product unit).
    pub coef: Vec<f64>,
}

/// Fitting failures.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum FitError {
    /// No samples.
    #[error("no training samples")]
    Empty,
    /// A sample's factor count differs from the model's.
    #[error("sample {index} has {got} factors, the model {want}")]
    Arity {
        /// Sample index.
        index: usize,
        /// Factors given.
        got: usize,
        /// Factors expected.
        want: usize,
    },
    /// A non-finite target (or a non-positive one under relative weighting), or a non-finite
    /// factor.
    #[error("sample {0} has a non-finite factor or a non-positive time")]
    BadValue(usize),
    /// The SVD did not converge.
    #[error("least-squares solve failed: {0}")]
    Solve(String),
}

impl Model {
    /// Predicted time for factor values `x`, s (may be negative: a linear model is not bounded).
    pub fn predict(&self, x: &[f64]) -> f64 {
        self.terms
            .iter()
            .zip(&self.coef)
            .map(|(&t, c)| c * term_value(x, t))
            .sum()
    }

    /// Least-squares fit of every main effect and pairwise product of `factors`.
    pub fn fit(factors: &[String], samples: &[Sample], fit: Fit) -> Result<Model, FitError> {
        let terms = all_terms(factors.len());
        Self::fit_terms(factors, terms, samples, fit)
    }

    /// Least-squares fit of the given terms.
    pub fn fit_terms(
        factors: &[String],
        terms: Vec<Term>,
        samples: &[Sample],
        fit: Fit,
    ) -> Result<Model, FitError> {
        let w = fit.weighting;
        if samples.is_empty() {
            return Err(FitError::Empty);
        }
        for (i, s) in samples.iter().enumerate() {
            if s.x.len() != factors.len() {
                return Err(FitError::Arity {
                    index: i,
                    got: s.x.len(),
                    want: factors.len(),
                });
            }
            let y_ok = s.y.is_finite() && (s.y > 0.0 || w == Weighting::Absolute);
            if !y_ok || s.x.iter().any(|v| !v.is_finite()) {
                return Err(FitError::BadValue(i));
            }
        }
        let (m, n) = (samples.len(), terms.len());
        let mut x = DMatrix::<f64>::zeros(m, n);
        for (r, s) in samples.iter().enumerate() {
            for (c, &t) in terms.iter().enumerate() {
                x[(r, c)] = term_value(&s.x, t);
            }
        }
        let y: Vec<f64> = samples.iter().map(|s| s.y).collect();
        let rows = |w: &dyn Fn(usize) -> f64, b: &dyn Fn(usize) -> f64| {
            let mut a = x.clone();
            let mut v = DVector::<f64>::zeros(m);
            for r in 0..m {
                let wr = w(r);
                a.row_mut(r).iter_mut().for_each(|e| *e *= wr);
                v[r] = b(r);
            }
            (a, v)
        };
        let coef = match w {
            Weighting::Absolute => {
                let (a, b) = rows(&|_| 1.0, &|r| y[r]);
                solve(a, b, fit.rcond)?
            }
            Weighting::Relative | Weighting::Log => {
                let (a, b) = rows(&|r| 1.0 / y[r], &|_| 1.0);
                let mut c = solve(a, b, fit.rcond)?;
                if w == Weighting::Log {
                    c = gauss_newton_log(&x, &y, c, fit.rcond)?;
                }
                c
            }
        };
        Ok(Model {
            factors: factors.to_vec(),
            terms,
            coef,
        })
    }
}

/// Predictions floored where the log objective floors them (1e-3 of the measured time).
fn floored(x: &DMatrix<f64>, c: &[f64], y: &[f64]) -> Vec<f64> {
    let p = x * DVector::from_column_slice(c);
    p.iter().zip(y).map(|(p, y)| p.max(y * 1e-3)).collect()
}

fn log_sse(p: &[f64], y: &[f64]) -> f64 {
    p.iter().zip(y).map(|(p, y)| (p / y).ln().powi(2)).sum()
}

/// Minimises `Σ (ln ŷ − ln y)²` over the coefficients of `ŷ = X c` from `c`: at each step the
/// model is linearised at the current (floored) prediction `p`, `ln ŷ' ≈ ln p + (ŷ' − p)/p`,
/// and the linear least squares `Σ (X_r c'/p_r − (1 + ln y_r − ln p_r))²` is solved; a step that
/// does not lower the objective is halved (up to 8 times), then the iteration stops.
fn gauss_newton_log(
    x: &DMatrix<f64>,
    y: &[f64],
    mut c: Vec<f64>,
    rcond: f64,
) -> Result<Vec<f64>, FitError> {
    let mut p = floored(x, &c, y);
    let mut obj = log_sse(&p, y);
    for _ in 0..LOG_ITERATIONS {
        let mut a = x.clone();
        let mut b = DVector::<f64>::zeros(y.len());
        for r in 0..y.len() {
            a.row_mut(r).iter_mut().for_each(|e| *e /= p[r]);
            b[r] = 1.0 + (y[r] / p[r]).ln();
        }
        let target = solve(a, b, rcond)?;
        let mut step = 1.0;
        let mut accepted = false;
        for _ in 0..8 {
            let trial: Vec<f64> = c
                .iter()
                .zip(&target)
                .map(|(c0, t)| c0 + step * (t - c0))
                .collect();
            let pt = floored(x, &trial, y);
            let ot = log_sse(&pt, y);
            if ot < obj {
                let gain = (obj - ot) / obj.max(f64::MIN_POSITIVE);
                c = trial;
                p = pt;
                obj = ot;
                accepted = gain > 1e-6;
                break;
            }
            step *= 0.5;
        }
        if !accepted {
            break;
        }
    }
    Ok(c)
}

/// Truncated-SVD least squares of `a c = b` with the columns scaled to unit maximum (the
/// solution is the same in exact arithmetic; the scaling keeps the rank decision meaningful);
/// singular values below `max(rcond, 16 ε max(m, n))` of the largest are dropped.
fn solve(mut a: DMatrix<f64>, b: DVector<f64>, rcond: f64) -> Result<Vec<f64>, FitError> {
    let (m, n) = a.shape();
    let mut scale = vec![1.0; n];
    for (c, sc) in scale.iter_mut().enumerate() {
        let mx = a.column(c).iter().fold(0.0f64, |acc, v| acc.max(v.abs()));
        if mx > 0.0 {
            *sc = mx;
            a.column_mut(c).iter_mut().for_each(|v| *v /= mx);
        }
    }
    let svd = a.svd(true, true);
    let smax = svd.singular_values.max();
    let eps = smax * ((m.max(n) as f64) * f64::EPSILON * 16.0).max(rcond);
    let sol = svd
        .solve(&b, eps)
        .map_err(|e| FitError::Solve(e.to_string()))?;
    Ok(sol.iter().zip(&scale).map(|(v, s)| v / s).collect())
}

/// R² of `ln(time)`: `1 − Σ(ln ŷ − ln y)² / Σ(ln y − mean)²`; predictions are floored at 1e-3 of
/// the measured time (a non-positive prediction counts as a 1000× error).
pub fn r2_log(pred: &[f64], meas: &[f64]) -> f64 {
    let n = meas.len() as f64;
    if meas.is_empty() {
        return 0.0;
    }
    let ly: Vec<f64> = meas.iter().map(|y| y.ln()).collect();
    let mean = ly.iter().sum::<f64>() / n;
    let ss_tot: f64 = ly.iter().map(|v| (v - mean).powi(2)).sum();
    let ss_res: f64 = pred
        .iter()
        .zip(meas)
        .map(|(p, y)| (p.max(y * 1e-3).ln() - y.ln()).powi(2))
        .sum();
    if ss_tot > 0.0 {
        1.0 - ss_res / ss_tot
    } else {
        0.0
    }
}

/// The K-fold split by group: groups (sorted) go to folds round robin.
#[derive(Debug, Clone, PartialEq)]
pub struct Folds {
    groups: Vec<String>,
    /// Number of folds (at least 2, at most the number of groups when there are more than 2).
    pub k: usize,
}

impl Folds {
    /// The folds of `samples`' groups for a requested `k`.
    pub fn new(samples: &[Sample], k: usize) -> Folds {
        let mut groups: Vec<String> = samples.iter().map(|s| s.group.clone()).collect();
        groups.sort_unstable();
        groups.dedup();
        let k = k.clamp(2, groups.len().max(2));
        Folds { groups, k }
    }

    /// Fold of group `g` (0 for an unknown group).
    pub fn of(&self, g: &str) -> usize {
        self.groups
            .binary_search_by(|x| x.as_str().cmp(g))
            .map(|i| i % self.k)
            .unwrap_or(0)
    }

    /// Held-out predictions: for each fold, `fit` is given the other folds' samples and the
    /// predictor it returns is applied to the fold's own samples. One prediction per sample, in
    /// sample order; `default` where a fold had no training samples.
    pub fn held_out<P, E>(
        &self,
        samples: &[Sample],
        default: f64,
        fit: impl Fn(&[Sample]) -> Result<P, E>,
    ) -> Result<Vec<f64>, E>
    where
        P: Fn(&[f64]) -> f64,
    {
        let mut pred = vec![default; samples.len()];
        for f in 0..self.k {
            let train: Vec<Sample> = samples
                .iter()
                .filter(|s| self.of(&s.group) != f)
                .cloned()
                .collect();
            if train.is_empty() {
                continue;
            }
            let predict = fit(&train)?;
            for (i, s) in samples.iter().enumerate() {
                if self.of(&s.group) == f {
                    pred[i] = predict(&s.x);
                }
            }
        }
        Ok(pred)
    }
}

/// Held-out predictions of K-fold cross-validation by group ([`Folds`]); returns one prediction
/// per sample (in sample order).
pub fn cross_validate(
    factors: &[String],
    samples: &[Sample],
    k: usize,
    fit: Fit,
) -> Result<Vec<f64>, FitError> {
    Folds::new(samples, k).held_out(samples, 0.0, |train| {
        let m = Model::fit(factors, train, fit)?;
        Ok(move |x: &[f64]| m.predict(x))
    })
}

/// Outcome of the K-fold pruning of the training pool (claim 31).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pruning {
    /// Folds (test passes).
    pub folds: usize,
    /// Kernels (groups) in the pool.
    pub pool: usize,
    /// Kernels kept.
    pub kept: Vec<String>,
    /// Kernels removed, in removal order.
    pub removed: Vec<String>,
    /// Cross-validated R² of ln(time) over the whole pool.
    pub cv_r2_pool: f64,
    /// Cross-validated R² of ln(time) over the kept set.
    pub cv_r2_kept: f64,
}

/// Greedy K-fold pruning: repeatedly drops the kernel with the largest mean held-out
/// |ln(ŷ/y)| while that raises the cross-validated R², removing at most `max_removed` of the
/// pool's kernels (a fraction).
pub fn prune(
    factors: &[String],
    samples: &[Sample],
    k: usize,
    max_removed: f64,
    fit: Fit,
) -> Result<Pruning, FitError> {
    let mut groups: Vec<String> = samples.iter().map(|s| s.group.clone()).collect();
    groups.sort_unstable();
    groups.dedup();
    let pool = groups.len();
    let limit = (pool as f64 * max_removed).floor() as usize;
    let mut cur: Vec<Sample> = samples.to_vec();
    let score = |set: &[Sample]| -> Result<(f64, Vec<f64>), FitError> {
        let p = cross_validate(factors, set, k, fit)?;
        let y: Vec<f64> = set.iter().map(|s| s.y).collect();
        Ok((r2_log(&p, &y), p))
    };
    let (r2_pool, mut pred) = score(&cur)?;
    let mut best = r2_pool;
    let mut removed = Vec::new();
    while removed.len() < limit {
        // Mean held-out log error per group.
        let mut err: Vec<(String, f64, usize)> = Vec::new();
        for (s, p) in cur.iter().zip(&pred) {
            let e = (p.max(s.y * 1e-3) / s.y).ln().abs();
            match err.iter_mut().find(|(g, _, _)| *g == s.group) {
                Some(x) => {
                    x.1 += e;
                    x.2 += 1;
                }
                None => err.push((s.group.clone(), e, 1)),
            }
        }
        let Some(worst) = err
            .iter()
            .map(|(g, e, n)| (g, e / *n as f64))
            .fold(None::<(&String, f64)>, |b, (g, e)| match b {
                Some((_, be)) if be >= e => b,
                _ => Some((g, e)),
            })
            .map(|(g, _)| g.clone())
        else {
            break;
        };
        let next: Vec<Sample> = cur.iter().filter(|s| s.group != worst).cloned().collect();
        let remaining = pool - removed.len() - 1;
        if remaining < 3 {
            break;
        }
        let (r2, p) = score(&next)?;
        if r2 <= best {
            break;
        }
        best = r2;
        cur = next;
        pred = p;
        removed.push(worst);
    }
    let kept = groups
        .into_iter()
        .filter(|g| !removed.contains(g))
        .collect();
    Ok(Pruning {
        folds: k,
        pool,
        kept,
        removed,
        cv_r2_pool: r2_pool,
        cv_r2_kept: best,
    })
}

/// Cross-validated R² of ln(time) of `samples` under `fit`.
pub fn cv_r2(factors: &[String], samples: &[Sample], k: usize, fit: Fit) -> Result<f64, FitError> {
    let p = cross_validate(factors, samples, k, fit)?;
    let y: Vec<f64> = samples.iter().map(|s| s.y).collect();
    Ok(r2_log(&p, &y))
}

/// The truncation of [`RCOND_CANDIDATES`] with the best cross-validated R² of ln(time) (model
/// selection on the training data only; the first best wins ties).
pub fn select_rcond(
    factors: &[String],
    samples: &[Sample],
    k: usize,
    weighting: Weighting,
) -> Result<(f64, f64), FitError> {
    select_fit(factors, samples, k, &[weighting]).map(|(f, r2)| (f.rcond, r2))
}

/// The row weighting of `weightings` and the truncation of [`RCOND_CANDIDATES`] with the best
/// cross-validated R² of ln(time) (training data only; the first best wins ties).
pub fn select_fit(
    factors: &[String],
    samples: &[Sample],
    k: usize,
    weightings: &[Weighting],
) -> Result<(Fit, f64), FitError> {
    let mut best = (Fit::default(), f64::NEG_INFINITY);
    for &weighting in weightings {
        for rcond in RCOND_CANDIDATES {
            let fit = Fit { weighting, rcond };
            let r2 = cv_r2(factors, samples, k, fit)?;
            if r2 > best.1 {
                best = (fit, r2);
            }
        }
    }
    Ok(best)
}
