//! Mixes of spec 004 §8.2-§8.4: each GPGPU workload (our CUDA workloads standing in for
//! Table 3's applications) with one four-way CPU mix of each class: H (four H-group
//! applications), L (four L-group), HL (two of each), all drawn deterministically from the
//! seeded SPEC CPU2006 substitutes of `warpforge_hetero::cpu::synth`, and optionally T (the
//! recorded real-program traces in `crates/hetero/traces`).

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use warpforge_hetero::cpu::synth::{self, Class};

/// Table 3's GPGPU applications and the workloads of ours that stand in for them.
pub const GPU_APPS: [(&str, &str, &str); 6] = [
    (
        "LBM",
        "sc",
        "Parboil LBM (streaming stencil) -> streamcluster: coalesced streaming, low reuse",
    ),
    (
        "CFD",
        "sr1",
        "Rodinia CFD (unstructured gathers) -> SRAD v1: stencil with index-array gathers",
    ),
    ("BFS", "bfs", "Rodinia BFS -> Rodinia BFS"),
    (
        "FASTWALSH",
        "fwt",
        "CUDA SDK fastWalshTransform -> NVIDIA SDK FWT",
    ),
    (
        "BLACKSCHOLES",
        "bo",
        "CUDA SDK BlackScholes -> NVIDIA SDK binomial options (options pricing)",
    ),
    (
        "REDUCTION",
        "bp",
        "CUDA SDK reduction -> Rodinia backprop (streaming + shared tree reduction)",
    ),
];

/// The recorded traces (crates/hetero/traces/NAME.wft.xz).
pub const TRACES: [&str; 3] = ["gzip", "sort", "cc1"];

/// One CPU co-runner.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CpuApp {
    /// A SPEC CPU2006 substitute stream.
    Spec(String),
    /// A recorded trace.
    Trace(String),
}

impl CpuApp {
    /// Display name.
    pub fn name(&self) -> String {
        match self {
            CpuApp::Spec(n) => n.clone(),
            CpuApp::Trace(n) => format!("trace:{n}"),
        }
    }
}

/// One heterogeneous mix.
#[derive(Debug, Clone, Serialize)]
pub struct Mix {
    /// Our workload.
    pub gpu: String,
    /// The Table 3 application it stands for.
    pub stands_for: String,
    /// H, L, HL or T.
    pub class: String,
    /// The four CPU co-runners, core 0 first.
    pub cpu: Vec<CpuApp>,
}

fn group(c: Class) -> Vec<&'static str> {
    synth::APPS
        .iter()
        .filter(|a| a.class == c)
        .map(|a| a.name)
        .collect()
}

/// The CPU apps of a `class` mix for GPU application number `k` (seeded by `k` and the class).
pub fn cpu_mix(class: &str, k: usize) -> anyhow::Result<Vec<CpuApp>> {
    let seed = k as u64 * 31 + class.len() as u64;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let pick = |g: Vec<&'static str>, n: usize, rng: &mut ChaCha8Rng| -> Vec<CpuApp> {
        g.choose_multiple(rng, n)
            .map(|s| CpuApp::Spec(s.to_string()))
            .collect()
    };
    Ok(match class {
        "H" => pick(group(Class::H), 4, &mut rng),
        "L" => pick(group(Class::L), 4, &mut rng),
        "HL" => {
            let mut v = pick(group(Class::H), 2, &mut rng);
            v.extend(pick(group(Class::L), 2, &mut rng));
            v
        }
        "T" => {
            let mut v: Vec<CpuApp> = TRACES
                .iter()
                .map(|t| CpuApp::Trace(t.to_string()))
                .collect();
            v.push(CpuApp::Trace(TRACES[k % TRACES.len()].to_string()));
            v
        }
        o => anyhow::bail!("unknown mix class `{o}` (known: H, L, HL, T)"),
    })
}

/// Every mix of `workloads` (our names) and `classes`.
pub fn mixes(workloads: &[String], classes: &[String]) -> anyhow::Result<Vec<Mix>> {
    let mut out = Vec::new();
    for (k, w) in workloads.iter().enumerate() {
        let stands = GPU_APPS
            .iter()
            .find(|a| a.1 == w)
            .map_or("(not in Table 3)".to_string(), |a| a.0.to_string());
        for c in classes {
            out.push(Mix {
                gpu: w.clone(),
                stands_for: stands.clone(),
                class: c.clone(),
                cpu: cpu_mix(c, k)?,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixes_follow_the_class_rules_and_are_deterministic() {
        for k in 0..6 {
            let h = cpu_mix("H", k).unwrap();
            let l = cpu_mix("L", k).unwrap();
            let hl = cpu_mix("HL", k).unwrap();
            let class = |a: &CpuApp| match a {
                CpuApp::Spec(n) => synth::find(n).unwrap().class,
                CpuApp::Trace(_) => unreachable!(),
            };
            assert!(h.iter().all(|a| class(a) == Class::H) && h.len() == 4);
            assert!(l.iter().all(|a| class(a) == Class::L) && l.len() == 4);
            assert_eq!(hl.iter().filter(|a| class(a) == Class::H).count(), 2);
            assert_eq!(h, cpu_mix("H", k).unwrap());
        }
        assert!(cpu_mix("X", 0).is_err());
    }
}
