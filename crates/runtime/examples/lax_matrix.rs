//! Prints the LAX experiment matrix (jobs meeting deadline, waste) for quick calibration runs:
//! `cargo run --release -p warpforge-runtime --example lax_matrix -- high 128`.
use warpforge_runtime::lax::{self, gpu::GpuConfig, policy, workload};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rate = workload::Rate::parse(args.get(1).map_or("high", String::as_str)).expect("rate");
    let jobs: usize = args.get(2).map_or(128, |s| s.parse().expect("jobs"));
    let cal = workload::Calibration::builtin();
    let pols = policy::policy_names();
    let t = std::time::Instant::now();
    let r = lax::run_experiment(
        &cal,
        &GpuConfig::default(),
        rate,
        &pols,
        &workload::BENCHMARKS,
        jobs,
        1,
        &mut |_, _| {},
    )
    .expect("experiment");
    print!("{:<8}", "");
    for p in &r.policies {
        print!("{p:>8}");
    }
    println!();
    for b in &r.benches {
        print!("{b:<8}");
        for p in &r.policies {
            let m = r.cell(b, p).unwrap();
            print!("{:>4}/{:<3}", m.met, m.rejected);
        }
        println!();
    }
    print!("{:<8}", "met/RR");
    for p in &r.policies {
        print!("{:>8.2}", r.met_ratio(p, "RR").unwrap());
    }
    println!();
    print!("{:<8}", "waste%");
    for p in &r.policies {
        print!("{:>8.0}", 100.0 * r.wasted_geomean(p).unwrap());
    }
    println!("\n{:.2?}", t.elapsed());
}
