//! `wf-fuzz TARGET [--seconds S] [--corpus DIR]... [--out DIR] [--seed N]`: fuzzes one parser
//! of warpforge (see `wf-fuzz --list`); `wf-fuzz TARGET --replay FILE...` runs saved inputs.
//! Exit status: 0 no crash, 1 a panic was found, 3 a hang or an oversized allocation (the
//! input is saved under `OUT/crashes/TARGET/`), 2 bad usage.

use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;
use warpforge_fuzz::engine::{self, Options, Outcome};

#[global_allocator]
static ALLOC: warpforge_fuzz::alloc::Bounded = warpforge_fuzz::alloc::Bounded;

/// Fuzz one of warpforge's input parsers.
#[derive(Parser)]
#[command(name = "wf-fuzz")]
struct Cli {
    /// Target: ptx, trace, config or gpgpusim.
    target: Option<String>,
    /// List the targets.
    #[arg(long)]
    list: bool,
    /// Wall-clock seconds to fuzz.
    #[arg(long, default_value_t = 60.0)]
    seconds: f64,
    /// Stop after this many executions.
    #[arg(long, default_value_t = u64::MAX)]
    max_execs: u64,
    /// Folders searched for seed files (default: the repository root).
    #[arg(long = "corpus", value_name = "DIR")]
    corpus: Vec<PathBuf>,
    /// Output folder: kept inputs in OUT/corpus/TARGET, crashes in OUT/crashes/TARGET.
    #[arg(long, default_value = "target/fuzz")]
    out: PathBuf,
    /// RNG seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Largest input in bytes.
    #[arg(long, default_value_t = 64 * 1024)]
    max_len: usize,
    /// An input running longer than this many milliseconds is a hang.
    #[arg(long, default_value_t = 10_000)]
    hang_ms: u64,
    /// Largest single allocation in MiB.
    #[arg(long, default_value_t = 2048)]
    max_alloc_mib: usize,
    /// Run these saved inputs instead of fuzzing.
    #[arg(long, num_args = 1.., value_name = "FILE")]
    replay: Vec<PathBuf>,
}

fn main() {
    let cli = Cli::parse();
    if cli.list {
        for t in warpforge_fuzz::TARGETS {
            println!("{:10} {}", t.name, t.about);
        }
        return;
    }
    let Some(name) = cli.target.as_deref() else {
        eprintln!("error: name a target (wf-fuzz --list)");
        std::process::exit(2);
    };
    let Some(t) = warpforge_fuzz::find(name) else {
        eprintln!("error: unknown target `{name}` (wf-fuzz --list)");
        std::process::exit(2);
    };
    if !cli.replay.is_empty() {
        let mut bad = 0;
        for f in &cli.replay {
            let data = std::fs::read(f).unwrap_or_else(|e| {
                eprintln!("error: {}: {e}", f.display());
                std::process::exit(2);
            });
            let out = engine::run_input(t, &data);
            println!("{}: {out:?}", f.display());
            bad += usize::from(matches!(out, Outcome::Panic(_)));
        }
        std::process::exit(i32::from(bad > 0));
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let o = Options {
        seconds: cli.seconds,
        max_execs: cli.max_execs,
        seed: cli.seed,
        corpus_dirs: if cli.corpus.is_empty() {
            vec![root]
        } else {
            cli.corpus
        },
        out: Some(cli.out),
        max_len: cli.max_len,
        hang: Duration::from_millis(cli.hang_ms),
        max_alloc: cli.max_alloc_mib << 20,
    };
    let r = engine::fuzz(t, &o);
    println!(
        "{}: {} execs in {:.1} s ({:.0}/s), {} seeds, corpus {}, {} outcome shapes, {} crashes",
        t.name,
        r.execs,
        r.seconds,
        r.execs as f64 / r.seconds.max(1e-9),
        r.seeds,
        r.corpus,
        r.shapes,
        r.crashes.len()
    );
    for (m, p) in &r.crashes {
        println!(
            "  panic: {m} ({})",
            p.as_ref()
                .map_or("not saved".into(), |p| p.display().to_string())
        );
    }
    std::process::exit(i32::from(!r.crashes.is_empty()));
}
