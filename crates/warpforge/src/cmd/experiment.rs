//! `warpforge experiment` subcommands: reproduce the documents' experiments.
//!
//! - `lax`: document 003 Ch. 6 (Figs. 6.2–6.5, Tables 6.4–6.6) on the runtime-level simulator.
//! - `pagoda`: document 003 Ch. 5 (Figs. 5.6, 5.8–5.10) on the runtime-level simulator.
//! - `ctrlc`: document 000 Ch. 5 (Ctrl-C L1D bypassing, claims 17-24) on the timing model.
//! - `cawa`: document 000 Ch. 4 (Figs. 4.10–4.16: CAWA, gCAWS, CACP) on the timing model.
//! - [`batch`]: the parallel, cached runner of timing simulations that the chapter experiments use.
//! - `latency`: document 000 Figure 3.2 (latency attribution under RR, see [`latency`]).
//! - `caws`: document 000 Table 3.3 and Figures 3.3/3.5/3.6 (oracle CAWS on BFS, see [`caws`]).
//! - `lax-calibrate`: derives the LAX kernel costs from kernels simulated on the timing model
//!   (see [`lax_calibrate`]); `lax --calibration FILE` consumes the table it writes.
//! - `hetero`: document 004, CPU-GPU shared LLC/DRAM policies in GPGPU mixes (see [`hetero`]).
//! - `darsie`: document 003 Ch. 7 (DARSIE vs UV and DAC-IDEAL, limit study; see [`darsie`]).
//! - `heteropdp`: document 000 Ch. 6, CPU-or-GPU target prediction (see [`heteropdp`]).
//! - `frame`: document 004's 3D rendering half: access criticality, the frame-rate estimator and
//!   the memory policies on the `warpforge_gfx` pipeline (see [`frame`]).

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use warpforge_runtime::lax::{self, gpu::GpuConfig, policy, workload};
use warpforge_runtime::pagoda;

pub mod batch;
pub mod cawa;
pub mod caws;
pub mod chart;
pub mod ctrlc;
pub mod darsie;
pub mod frame;
pub mod hetero;
pub mod heteropdp;
pub mod latency;
pub mod lax_calibrate;
pub mod paired;
pub mod stats;

/// Subcommands of `warpforge experiment`.
#[derive(clap::Subcommand)]
pub enum Command {
    /// LAX deadline-aware job scheduling (document 003, Ch. 6).
    Lax(LaxArgs),
    /// Pagoda narrow-task runtime (document 003, Ch. 5).
    Pagoda(PagodaArgs),
    /// Derive the LAX calibration table from the timing model (document 003 Table 3.1 kernels).
    LaxCalibrate(lax_calibrate::LaxCalibrateArgs),
    /// CPU-GPU processor with shared LLC and DRAM: GPU-access criticality and memory policies
    /// (document 004, GPGPU mixes).
    Hetero(hetero::HeteroArgs),
    /// HeteroPDP CPU-or-GPU target prediction under memory interference (document 000, Ch. 6).
    Heteropdp(heteropdp::HeteropdpArgs),
    /// Latency attribution under RR per workload (document 000 Figure 3.2).
    Latency(latency::LatencyArgs),
    /// CAWS with oracle criticality on BFS (document 000 Table 3.3, Figures 3.3, 3.5, 3.6).
    Caws(caws::CawsArgs),
    /// Ctrl-C adaptive L1D bypassing on the timing model (document 000, Ch. 5).
    Ctrlc(ctrlc::CtrlcArgs),
    /// CAWA: criticality-aware warp scheduling and cache prioritization (document 000, Ch. 4).
    Cawa(cawa::CawaArgs),
    /// 3D rendering: GPU access criticality, frame-rate estimation, policies (document 004).
    Frame(frame::FrameArgs),
    /// DARSIE redundant-instruction elimination vs UV and DAC-IDEAL (document 003, Ch. 7).
    Darsie(darsie::DarsieArgs),
}

/// Arguments of `experiment lax`.
#[derive(clap::Args)]
pub struct LaxArgs {
    /// Arrival rate of Table 6.3: low, medium or high.
    #[arg(long, default_value = "high")]
    rate: String,
    /// Policies to run (comma-separated; default: all). RR is always added as the baseline.
    #[arg(long, value_delimiter = ',')]
    policy: Vec<String>,
    /// Benchmarks to run (comma-separated; default: all eight of Table 6.3).
    #[arg(long, value_delimiter = ',')]
    bench: Vec<String>,
    /// Jobs per benchmark (the document uses 128).
    #[arg(long, default_value_t = 128, value_parser = parse_count)]
    jobs: usize,
    /// Seed of the arrival process.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Calibration table (TOML) replacing the built-in one.
    #[arg(long)]
    calibration: Option<PathBuf>,
    /// Also write every (benchmark, policy) cell as CSV to this file.
    #[arg(long)]
    csv: Option<PathBuf>,
}

/// Parses a job/task count (clap value parser): a whole number of at least 1.
fn parse_count(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("must be at least 1 (an experiment with no work has no statistics)".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("not a count: {e}")),
    }
}

/// Arguments of `experiment pagoda`.
#[derive(clap::Args)]
pub struct PagodaArgs {
    /// Tasks per benchmark (the document uses 32K; SLUD scales by 273/32).
    #[arg(long, default_value_t = 32768, value_parser = parse_count)]
    tasks: usize,
    /// Benchmarks to run (comma-separated; default: all of Table 5.4 plus MPE).
    #[arg(long, value_delimiter = ',')]
    bench: Vec<String>,
    /// Seed of the task generator.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Also write every (benchmark, runtime) cell as CSV to this file.
    #[arg(long)]
    csv: Option<PathBuf>,
}

/// Runs the subcommand.
pub fn run(cmd: Command) -> Result<()> {
    match cmd {
        Command::Lax(a) => run_lax(a),
        Command::Pagoda(a) => run_pagoda(a),
        Command::LaxCalibrate(a) => lax_calibrate::run(a),
        Command::Hetero(a) => hetero::run(a),
        Command::Heteropdp(a) => heteropdp::run(a),
        Command::Latency(a) => latency::run(a),
        Command::Caws(a) => caws::run(a),
        Command::Ctrlc(a) => ctrlc::run(a),
        Command::Cawa(a) => cawa::run(a),
        Command::Frame(a) => frame::run(a),
        Command::Darsie(a) => darsie::run(a),
    }
}

fn bar(len: u64) -> ProgressBar {
    let pb = ProgressBar::new(len);
    pb.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}")
            .expect("static template")
            .progress_chars("=> "),
    );
    pb
}

fn run_lax(a: LaxArgs) -> Result<()> {
    let rate = workload::Rate::parse(&a.rate)?;
    let cal = match &a.calibration {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("reading calibration {}", p.display()))?;
            workload::Calibration::from_toml(&text, &p.display().to_string())?
        }
        None => workload::Calibration::builtin(),
    };
    let mut policies: Vec<String> = if a.policy.is_empty() {
        policy::policy_names()
            .iter()
            .map(|s| s.to_string())
            .collect()
    } else {
        a.policy.clone()
    };
    for p in &policies {
        policy::policy_by_name(p)?; // validate before running anything
    }
    if !policies.iter().any(|p| p.eq_ignore_ascii_case("RR")) {
        policies.insert(0, "RR".into());
    }
    let benches: Vec<String> = if a.bench.is_empty() {
        workload::BENCHMARKS.iter().map(|s| s.to_string()).collect()
    } else {
        a.bench.clone()
    };
    let pols: Vec<&str> = policies.iter().map(String::as_str).collect();
    let bs: Vec<&str> = benches.iter().map(String::as_str).collect();
    let gpu = GpuConfig::default();
    let pb = bar((pols.len() * bs.len()) as u64);
    let report = lax::run_experiment(&cal, &gpu, rate, &pols, &bs, a.jobs, a.seed, &mut |b, p| {
        pb.set_message(format!("{b} {p}"));
        pb.inc(1);
    })?;
    pb.finish_and_clear();
    print!("{}", lax_text(&report));
    if let Some(path) = &a.csv {
        write_lax_csv(&report, path)?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

/// Formats one metric of a cell.
type MetricFmt = fn(&lax::RunMetrics) -> String;

/// Renders the LAX report as text tables.
fn lax_text(r: &lax::Report) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let w = 8;
    let header = |s: &mut String, title: &str| {
        let _ = writeln!(s, "\n{title}");
        let _ = write!(s, "{:<8}", "bench");
        for p in &r.policies {
            let _ = write!(s, "{p:>w$}");
        }
        let _ = writeln!(s);
    };
    let _ = writeln!(
        s,
        "LAX experiment (document 003 Ch. 6): rate {}, {} jobs per benchmark",
        r.rate.name(),
        r.cells.first().map_or(0, |c| c.m.jobs)
    );
    let tables: [(&str, MetricFmt); 5] = [
        ("Jobs meeting their deadline (count)", |m| m.met.to_string()),
        (
            "Wasted work: % of completed WGs from jobs that missed (Fig. 6.5)",
            |m| format!("{:.0}", m.wasted * 100.0),
        ),
        ("Energy per successful job, mJ (Table 6.4)", |m| {
            format!("{:.2}", m.energy_mj)
        }),
        ("Successful jobs per second (Table 6.5)", |m| {
            format!("{:.0}", m.throughput)
        }),
        (
            "99th-percentile latency of completed jobs, ms (Table 6.6)",
            |m| format!("{:.2}", m.p99_ms),
        ),
    ];
    for (title, f) in tables {
        header(&mut s, title);
        for b in &r.benches {
            let _ = write!(s, "{b:<8}");
            for p in &r.policies {
                let v = r.cell(b, p).map(f).unwrap_or_default();
                let _ = write!(s, "{v:>w$}");
            }
            let _ = writeln!(s);
        }
    }
    let _ = writeln!(
        s,
        "\nSummary (geomean over benchmarks; doc = document 003 at the high rate)"
    );
    let _ = writeln!(
        s,
        "{:<8}{:>12}{:>8}{:>12}{:>8}",
        "policy", "met/RR", "doc", "wasted %", "doc"
    );
    for p in &r.policies {
        let ratio = r.met_ratio(p, "RR").unwrap_or(f64::NAN);
        let wasted = r.wasted_geomean(p).unwrap_or(f64::NAN) * 100.0;
        let doc_ratio = match (r.rate, *p) {
            (workload::Rate::High, _) => lax::reference::lookup(lax::reference::MET_VS_RR_HIGH, p),
            (rate, "LAX") => Some(lax::reference::LAX_VS_RR[rate.index()]),
            _ => None,
        };
        let doc_w = (r.rate == workload::Rate::High)
            .then(|| lax::reference::lookup(lax::reference::WASTED_HIGH, p))
            .flatten();
        let fmt =
            |v: Option<f64>, scale: f64| v.map_or("-".into(), |v| format!("{:.2}", v * scale));
        let _ = writeln!(
            s,
            "{p:<8}{ratio:>12.2}{:>8}{wasted:>12.0}{:>8}",
            fmt(doc_ratio, 1.0),
            doc_w.map_or("-".into(), |v| format!("{:.0}", v * 100.0))
        );
    }
    s
}

fn write_lax_csv(r: &lax::Report, path: &PathBuf) -> Result<()> {
    let mut w = csv::Writer::from_writer(
        warpforge_core::output::AtomicFile::create(path)
            .with_context(|| format!("creating {}", path.display()))?,
    );
    w.write_record([
        "rate",
        "bench",
        "policy",
        "jobs",
        "met",
        "rejected",
        "wasted",
        "energy_mj",
        "throughput",
        "p99_ms",
    ])?;
    for c in &r.cells {
        let m = &c.m;
        w.write_record([
            r.rate.name().to_string(),
            c.bench.to_string(),
            c.policy.to_string(),
            m.jobs.to_string(),
            m.met.to_string(),
            m.rejected.to_string(),
            format!("{:.4}", m.wasted),
            format!("{:.4}", m.energy_mj),
            format!("{:.1}", m.throughput),
            format!("{:.4}", m.p99_ms),
        ])?;
    }
    w.into_inner()
        .map_err(|e| anyhow::anyhow!("writing {}: {}", path.display(), e.error()))?
        .commit()
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

fn run_pagoda(a: PagodaArgs) -> Result<()> {
    use pagoda::{geomean_speedup, master::PagodaConfig, workload, RUNTIMES};
    let c = PagodaConfig::default();
    let benches: Vec<String> = if a.bench.is_empty() {
        workload::BENCH_NAMES
            .iter()
            .map(|s| s.to_string())
            .collect()
    } else {
        a.bench.clone()
    };
    let bs: Vec<&str> = benches.iter().map(String::as_str).collect();
    for b in &bs {
        workload::generate(b, 1, 128, 0, None)?; // reject bad names before any work
    }
    let all: Vec<&str> = RUNTIMES.iter().map(|r| r.0).collect();
    // (title, threads per task (0 = irregular), copies included)
    let settings: [(&str, u32, bool); 3] = [
        (
            "Fig. 5.6: overall, 128 threads/task, copies included",
            128,
            true,
        ),
        (
            "Fig. 5.8/5.9: irregular tasks (32-256 threads, random sizes), compute only",
            0,
            false,
        ),
        (
            "Fig. 5.10: lock-step overhead, 128 threads/task, compute only",
            128,
            false,
        ),
    ];
    let pb = bar((settings.len() * bs.len() * all.len()) as u64);
    let mut out = String::new();
    let mut rows: Vec<(String, pagoda::Cell)> = Vec::new();
    use std::fmt::Write;
    for (title, threads, copies) in settings {
        let cells = pagoda::run_experiment(
            &c,
            &bs,
            &all,
            a.tasks,
            threads,
            copies,
            a.seed,
            &mut |b, r| {
                pb.set_message(format!("{b} {r}"));
                pb.inc(1);
            },
        )?;
        let _ = writeln!(out, "\n{title}: makespan (ms) and Pagoda's speed-up");
        let _ = write!(out, "{:<6}", "bench");
        for (r, _) in RUNTIMES {
            let _ = write!(out, "{r:>14}");
        }
        let _ = writeln!(out);
        let mut seen: Vec<&str> = Vec::new();
        for cell in &cells {
            if !seen.contains(&cell.bench.as_str()) {
                seen.push(&cell.bench);
            }
        }
        for b in &seen {
            let _ = write!(out, "{b:<6}");
            for (r, _) in RUNTIMES {
                let v = cells
                    .iter()
                    .find(|x| x.bench == *b && x.runtime == *r)
                    .map_or("-".to_string(), |x| {
                        let sp = pagoda::speedup(&cells, b, "Pagoda", r).unwrap_or(f64::NAN);
                        format!("{:.1} ({sp:.2}x)", x.stats.makespan as f64 / 1e6)
                    });
                let _ = write!(out, "{v:>14}");
            }
            let _ = writeln!(out);
        }
        let _ = write!(out, "{:<6}", "geo");
        for (r, _) in RUNTIMES {
            let _ = write!(
                out,
                "{:>14}",
                format!("{:.2}x", geomean_speedup(&cells, "Pagoda", r))
            );
        }
        let _ = writeln!(out);
        if threads == 0 {
            let lat = |r: &str| {
                lax::geomean(
                    cells
                        .iter()
                        .filter(|x| x.runtime == r)
                        .map(|x| x.stats.mean_latency.max(1.0)),
                )
            };
            let _ = writeln!(
                out,
                "response time (document: total execution time / tasks): Fusion {:.0}% longer than \
                 Pagoda (document: 40-440%); mean spawn-to-completion latency: Fusion {:.0}% longer",
                (geomean_speedup(&cells, "Pagoda", "Fusion") - 1.0) * 100.0,
                (lat("Fusion") / lat("Pagoda") - 1.0) * 100.0
            );
        }
        rows.extend(cells.into_iter().map(|x| (title.to_string(), x)));
    }
    pb.finish_and_clear();
    println!(
        "Pagoda experiment (document 003 Ch. 5): {} tasks per benchmark (SLUD x 273/32)",
        a.tasks
    );
    print!("{out}");
    println!("\nDocument: Pagoda over HyperQ 1.76x, GeMTC 1.44x, 20-core CPU 5.52x (Fig. 5.6); over HyperQ 1.8x and");
    println!("static fusion 1.79x on irregular tasks (Fig. 5.8); Pagoda-batch 29% slower than Pagoda (Fig. 5.10).");
    if let Some(path) = &a.csv {
        let mut w = csv::Writer::from_writer(
            warpforge_core::output::AtomicFile::create(path)
                .with_context(|| format!("creating {}", path.display()))?,
        );
        w.write_record([
            "setting",
            "bench",
            "runtime",
            "makespan_ms",
            "mean_latency_us",
            "tasks",
            "warps_per_sm",
        ])?;
        for (t, x) in &rows {
            w.write_record([
                t.clone(),
                x.bench.clone(),
                x.runtime.to_string(),
                format!("{:.4}", x.stats.makespan as f64 / 1e6),
                format!("{:.2}", x.stats.mean_latency / 1e3),
                x.stats.tasks.to_string(),
                format!("{:.2}", x.stats.mean_warps_per_sm),
            ])?;
        }
        w.into_inner()
            .map_err(|e| anyhow::anyhow!("writing {}: {}", path.display(), e.error()))?
            .commit()
            .with_context(|| format!("writing {}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}
