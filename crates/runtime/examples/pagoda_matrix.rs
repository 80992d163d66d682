//! Quick Pagoda matrix: `--example pagoda_matrix -- 32768 128`.
use warpforge_runtime::pagoda::{self, master::PagodaConfig, workload};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let n: usize = a.get(1).map_or(4096, |s| s.parse().unwrap());
    let threads: u32 = a.get(2).map_or(128, |s| s.parse().unwrap());
    let c = PagodaConfig::default();
    let t = std::time::Instant::now();
    let copies = a.get(3).is_none_or(|s| s == "copies");
    let names: Vec<&str> = pagoda::RUNTIMES.iter().map(|r| r.0).collect();
    let cells = pagoda::run_experiment(
        &c,
        &workload::BENCH_NAMES,
        &names,
        n,
        threads,
        copies,
        1,
        &mut |_, _| {},
    )
    .unwrap();
    for b in workload::BENCH_NAMES {
        print!("{b:<6}");
        for (r, _) in pagoda::RUNTIMES {
            if let Some(x) = cells.iter().find(|x| x.bench == b && x.runtime == *r) {
                print!(
                    " {r}={:.2}ms/{:.0}us/w{:.0}",
                    x.stats.makespan as f64 / 1e6,
                    x.stats.mean_latency / 1e3,
                    x.stats.mean_warps_per_sm
                );
            }
        }
        println!();
    }
    for (r, _) in pagoda::RUNTIMES {
        println!(
            "Pagoda over {r}: {:.2}",
            pagoda::geomean_speedup(&cells, "Pagoda", r)
        );
    }
    println!("{:.2?}", t.elapsed());
}
