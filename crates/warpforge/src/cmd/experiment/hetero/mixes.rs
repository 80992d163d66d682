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

/// One of Table 3's GPGPU applications (spec 004 §8.2) and the workloads of ours that run it.
#[derive(Debug, Clone, Copy)]
pub struct GpuApp {
    /// Table 3's name.
    pub app: &'static str,
    /// The workload run by default: our implementation of the application where it exists,
    /// else the stand-in.
    pub default: &'static str,
    /// The stand-in of earlier runs (a workload of ours with a similar access pattern), run
    /// with `--stand-ins`.
    pub stand_in: &'static str,
    /// The workload whose `paper` input is Table 3's, run by default at `--size paper`: `default`
    /// itself, except for BFS, whose `bfs` keeps the CAWA set's 65,536-node paper input
    /// (`bfs1m`: the 1M-node graph). FASTWALSH's `fwt` keeps the Ctrl-C set's 32K samples
    /// (Table 3's 8192 x 256 grid is the SDK's 8M samples, 64 MB, beyond this machine's time).
    pub document: &'static str,
    /// What runs and why.
    pub description: &'static str,
}

/// Table 3's applications in the document's order; a mix's CPU co-runners are seeded by the
/// position here, so a stand-in and the real application get the same co-runners.
pub const GPU_APPS: [GpuApp; 6] = [
    GpuApp {
        app: "LBM",
        default: "lbm",
        stand_in: "sc",
        document: "lbm",
        description: "Parboil LBM -> lbm, our D3Q19 stream-collide over a structure-of-arrays \
                      lattice (stand-in: sc, streamcluster)",
    },
    GpuApp {
        app: "CFD",
        default: "cfd",
        stand_in: "sr1",
        document: "cfd",
        description: "Rodinia CFD -> cfd, our euler3d with neighbour gathers through an index \
                      array on a generated unstructured mesh (stand-in: sr1, SRAD v1)",
    },
    GpuApp {
        app: "BFS",
        default: "bfs",
        stand_in: "bfs",
        document: "bfs1m",
        description: "Rodinia BFS -> Rodinia BFS",
    },
    GpuApp {
        app: "FASTWALSH",
        default: "fwt",
        stand_in: "fwt",
        document: "fwt",
        description: "CUDA SDK fastWalshTransform -> NVIDIA SDK FWT",
    },
    GpuApp {
        app: "BLACKSCHOLES",
        default: "bs",
        stand_in: "bo",
        document: "bs",
        description:
            "CUDA SDK BlackScholes -> bs, our BlackScholes (stand-in: bo, binomial options)",
    },
    GpuApp {
        app: "REDUCTION",
        default: "red",
        stand_in: "bp",
        document: "red",
        description: "CUDA SDK reduction -> red, our reduce6-style tree reduction (stand-in: bp, \
                      Rodinia backprop)",
    },
];

/// The workloads run by default (`stand_ins = false`: our implementations of Table 3 where they
/// exist) or the six stand-ins of earlier runs.
pub fn default_workloads(stand_ins: bool) -> Vec<String> {
    GPU_APPS
        .iter()
        .map(|a| if stand_ins { a.stand_in } else { a.default }.to_string())
        .collect()
}

/// The workloads run by default at `--size paper`: those whose `paper` input is Table 3's
/// ([`GpuApp::document`]).
pub fn document_workloads() -> Vec<String> {
    GPU_APPS.iter().map(|a| a.document.to_string()).collect()
}

/// The Table 3 application that workload `w` runs or stands in for, with its position.
pub fn table3(w: &str) -> Option<(usize, &'static GpuApp)> {
    GPU_APPS
        .iter()
        .enumerate()
        .find(|(_, a)| a.default == w || a.stand_in == w || a.document == w)
}

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

/// Every mix of `workloads` (our names) and `classes`. A workload of Table 3 (real or stand-in)
/// gets the co-runners of its application's position; any other those of its position in
/// `workloads`.
pub fn mixes(workloads: &[String], classes: &[String]) -> anyhow::Result<Vec<Mix>> {
    let mut out = Vec::new();
    for (i, w) in workloads.iter().enumerate() {
        let (k, stands) = match table3(w) {
            Some((k, a)) => (k, a.app.to_string()),
            None => (i, "(not in Table 3)".to_string()),
        };
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

    #[test]
    fn real_applications_and_their_stand_ins_share_the_co_runners() {
        let exists = |w: &str| crate::cmd::run::find_workload(w).is_ok();
        let real = default_workloads(false);
        let old = default_workloads(true);
        assert_eq!(old, ["sc", "sr1", "bfs", "fwt", "bo", "bp"]);
        for (r, o) in real.iter().zip(&old) {
            assert!(exists(r), "default workload `{r}` exists");
            assert!(exists(o), "stand-in `{o}` exists");
        }
        let classes = ["H".to_string(), "L".to_string(), "HL".to_string()];
        let a = mixes(&real, &classes).unwrap();
        let b = mixes(&old, &classes).unwrap();
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.stands_for, y.stands_for);
            assert_eq!(x.cpu, y.cpu, "{} vs {}", x.gpu, y.gpu);
        }
        // A subset keeps each application's co-runners.
        let one = mixes(&[real[4].clone()], &classes).unwrap();
        assert_eq!(one[0].cpu, a[12].cpu);
        assert_eq!(one[0].stands_for, "BLACKSCHOLES");
        // The document-input workloads too (bfs1m: BFS).
        let doc = mixes(&document_workloads(), &classes).unwrap();
        assert_eq!(doc[6].gpu, "bfs1m");
        for (x, y) in a.iter().zip(&doc) {
            assert_eq!((&x.stands_for, &x.cpu), (&y.stands_for, &y.cpu));
        }
        for w in document_workloads() {
            assert!(exists(&w), "document-input workload `{w}` exists");
        }
        let other = mixes(&["nw".to_string()], &classes).unwrap();
        assert_eq!(other[0].stands_for, "(not in Table 3)");
        assert_eq!(other[0].cpu, a[0].cpu, "position 0 in the list");
    }
}
