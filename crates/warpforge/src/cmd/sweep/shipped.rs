//! The shipped experiment specs (`experiments/*.toml`) against the experiments' own
//! simulations: every spec point resolves to exactly the configuration the experiment command
//! builds for that workload (names aside; a CAWS oracle path is per run), and every experiment
//! simulation has its point.

use std::path::PathBuf;

use warpforge_timing::GpuConfig;

use super::spec::Spec;
use crate::cmd::experiment::{cawa, caws, ctrlc, darsie};

fn load(name: &str) -> Spec {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../experiments")
        .join(name);
    Spec::load(&p).unwrap_or_else(|e| panic!("{name}: {e:#}"))
}

/// A configuration as a comparable string (name and oracle file cleared).
fn key(workload: &str, mut c: GpuConfig) -> String {
    c.name.clear();
    c.core.caws.oracle.clear();
    format!("{workload} {}", serde_json::to_string(&c).unwrap())
}

/// The spec's points as keys, checking the size and that dependents name their provider.
fn spec_keys(s: &Spec) -> Vec<String> {
    let pts = s.points();
    let mut out: Vec<String> = pts
        .iter()
        .map(|p| {
            assert_eq!(p.size, "small", "{}: shipped specs run at small", s.name);
            if let Some(n) = &p.needs {
                let q = pts.iter().find(|q| q.id == n.point).expect("provider");
                assert_eq!((&q.workload, q.rep), (&p.workload, p.rep));
                assert!(q.needs.is_none());
            }
            let c = crate::cmd::config::resolve(Some(&p.config), &[], &p.overrides())
                .unwrap_or_else(|e| panic!("{}: {e:#}", p.id));
            key(&p.workload, c)
        })
        .collect();
    out.sort();
    out
}

/// An (empty) oracle file that `core.caws.oracle` accepts.
/// An empty CAWS oracle in a file of its own: one per call, because the tests run in parallel
/// and one test rewriting a shared file (truncate, then write) let another read it empty.
fn oracle_file() -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let p = std::env::temp_dir().join(format!("wf-shipped-oracle-{}-{n}.json", std::process::id()));
    std::fs::write(&p, r#"{"kernels": []}"#).unwrap();
    p
}

fn same(name: &str, spec: Vec<String>, mut exp: Vec<String>) {
    exp.sort();
    for k in &exp {
        assert!(
            spec.contains(k),
            "{name}: the experiment simulates a point the spec lacks: {}",
            &k[..k.len().min(400)]
        );
    }
    for k in &spec {
        assert!(
            exp.contains(k),
            "{name}: the spec has a point the experiment does not simulate: {}",
            &k[..k.len().min(400)]
        );
    }
    assert_eq!(spec.len(), exp.len(), "{name}: duplicated points");
}

#[test]
fn cawa_spec_is_the_experiments_policy_runs() {
    let s = load("cawa.toml");
    let base = crate::cmd::config::resolve(Some("gtx480-cawa"), &[], &[]).unwrap();
    let mut exp = Vec::new();
    let mut rr = None;
    for w in cawa::SENS.iter().chain(&cawa::NON_SENS) {
        for p in cawa::POLICIES {
            if p.name == "caws_oracle" {
                continue;
            }
            let c = cawa::policy_config(&base, p).unwrap();
            if p.name == "rr" {
                rr = Some(c.clone());
            }
            exp.push(key(w, c));
        }
        // The oracle pass and the CAWS run that reads its oracle.
        let rr = rr.clone().unwrap();
        exp.push(key(w, caws::baseline_config(&rr).unwrap()));
        let oracle = oracle_file();
        exp.push(key(
            w,
            caws::policy_config(&rr, "caws_avg", &oracle).unwrap(),
        ));
    }
    assert_eq!(exp.len(), 12 * 10);
    same("cawa", spec_keys(&s), exp);
    assert_eq!(s.needs.len(), 1);
}

#[test]
fn ctrlc_spec_is_the_experiments_six_configurations() {
    let s = load("ctrlc.toml");
    let base = GpuConfig::preset("gtx480-ctrlc").unwrap();
    let mut exp = Vec::new();
    for w in ctrlc::WORKLOADS {
        for c in ctrlc::CONFIGS {
            exp.push(key(w, ctrlc::config(&base, c).unwrap()));
        }
    }
    same("ctrlc", spec_keys(&s), exp);
    let names: Vec<&str> = s.variants.iter().map(|v| v.0.as_str()).collect();
    assert_eq!(
        names,
        ctrlc::CONFIGS,
        "variant names are the experiment's, in order"
    );
}

#[test]
fn darsie_spec_is_the_experiments_policies() {
    let s = load("darsie.toml");
    let base =
        crate::cmd::config::resolve(Some("qv100"), &[], &darsie::BASE_SETS.map(String::from))
            .unwrap();
    let mut exp = Vec::new();
    let wls = warpforge_workloads::darsie::TABLE_7_1_2D
        .iter()
        .chain(&warpforge_workloads::darsie::TABLE_7_1_1D);
    for w in wls {
        for c in darsie::policy_configs(&base).unwrap() {
            exp.push(key(w, c));
        }
    }
    same("darsie", spec_keys(&s), exp);
}

#[test]
fn caws_spec_is_the_experiments_two_passes() {
    let s = load("caws.toml");
    let cfg = crate::cmd::config::resolve(
        Some(crate::cmd::experiment::latency::DEFAULT_CONFIG),
        &[],
        &[],
    )
    .unwrap();
    let oracle = oracle_file();
    let mut exp = vec![key("bfs", caws::baseline_config(&cfg).unwrap())];
    for (n, _) in caws::POLICIES.iter().skip(1) {
        exp.push(key("bfs", caws::policy_config(&cfg, n, &oracle).unwrap()));
    }
    same("caws", spec_keys(&s), exp);
    // Every CAWS variant reads the oracle of the RR point.
    let pts = s.points();
    let rr = pts
        .iter()
        .find(|p| p.variant.as_deref() == Some("rr"))
        .unwrap();
    for p in &pts {
        let is_caws = p.variant.as_deref().unwrap().starts_with("caws");
        assert_eq!(
            p.needs.as_ref().map(|n| n.point.as_str()),
            is_caws.then_some(rr.id.as_str())
        );
    }
}
