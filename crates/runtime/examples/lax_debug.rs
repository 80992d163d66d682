//! Traces one benchmark under one policy: `--example lax_debug -- CUCKOO LAX high 40`.
use warpforge_runtime::lax::{self, gpu::GpuConfig, policy, workload};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let cal = workload::Calibration::builtin();
    let rate = workload::Rate::parse(&a[3]).expect("rate");
    let n: usize = a[4].parse().expect("n");
    let specs =
        workload::generate_jobs(&cal, &a[1], rate, n, 1 ^ (4 << 32) ^ (3 << 48)).expect("jobs");
    let mut p = policy::policy_by_name(&a[2]).expect("policy");
    let o = lax::simulate(&cal, &GpuConfig::default(), &specs, p.as_mut());
    for r in &o.admissions {
        println!(
            "adm job {} t={:.1}us ahead={:.1} own={:.1} dur={:.1} ok={}",
            r.job,
            r.now as f64 / 1e3,
            r.ahead / 1e3,
            r.own / 1e3,
            r.dur / 1e3,
            r.accepted
        );
    }
    for (i, j) in o.jobs.iter().enumerate() {
        println!(
            "job {i} arr={:.1}us fin={:?} lat={:?} met={} {:?}",
            j.arrival as f64 / 1e3,
            j.finish.map(|f| f as f64 / 1e3),
            j.finish.map(|f| (f - j.arrival) as f64 / 1e3),
            j.met(),
            j.state
        );
    }
}
