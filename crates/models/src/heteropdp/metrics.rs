//! Metrics of document 000 §6.3 (Eqs 6.1–6.4 and 6.6).
//!
//! Slowdowns are ratios (1.0 = no slowdown); fairness is a fraction in (0, 1] (1.0 = perfectly
//! fair). Weights follow the document's convention: the native CPU process gets 0.5
//! (latency-tolerant) to 2.5 (latency-critical), the OpenCL process 1.0.

/// Eq 6.6: `slowdown = T_colocated / T_alone` (same device for both times).
pub fn slowdown(t_colocated: f64, t_alone: f64) -> f64 {
    if t_alone > 0.0 {
        t_colocated / t_alone
    } else {
        1.0
    }
}

/// Eq 6.1: `Fairness = min_i slowdown_i / max_i slowdown_i`; 1.0 for fewer than two processes.
pub fn fairness(slowdowns: &[f64]) -> f64 {
    let (lo, hi) = slowdowns
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), &s| {
            (lo.min(s), hi.max(s))
        });
    if slowdowns.len() < 2 || hi <= 0.0 {
        1.0
    } else {
        lo / hi
    }
}

/// Eq 6.2: `FairnessRatio = Fairness_CMP / Fairness_GPU` (> 1 prefers the CMP).
pub fn fairness_ratio(fair_cmp: f64, fair_gpu: f64) -> f64 {
    if fair_gpu > 0.0 {
        fair_cmp / fair_gpu
    } else {
        f64::INFINITY
    }
}

/// Eq 6.3: `WeightedSlowdown_i = slowdown_i × weight_i`.
pub fn weighted_slowdown(slowdown: f64, weight: f64) -> f64 {
    slowdown * weight
}

/// Eq 6.4: fairness of the weighted slowdowns; `weights` pairs with `slowdowns`.
pub fn weighted_fairness(slowdowns: &[f64], weights: &[f64]) -> f64 {
    let w: Vec<f64> = slowdowns
        .iter()
        .zip(weights)
        .map(|(&s, &w)| weighted_slowdown(s, w))
        .collect();
    fairness(&w)
}

/// Weighted speedup (Eyerman & Eeckhout, the definition §6.3 points to):
/// `Σ_i T_alone_i / T_shared_i = Σ_i 1 / slowdown_i`.
pub fn weighted_speedup(slowdowns: &[f64]) -> f64 {
    slowdowns
        .iter()
        .map(|&s| if s > 0.0 { 1.0 / s } else { 0.0 })
        .sum()
}
