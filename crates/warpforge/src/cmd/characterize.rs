//! `warpforge characterize WORKLOAD`: characterises a workload from a functional run with the
//! [`Characterizer`] observer (in `warpforge_workloads::profile`): dynamic warp and thread
//! instructions, instruction mix, SIMD efficiency, coalescing (32 B sectors and 128 B lines per
//! global request), footprint, barriers per CTA, registers and shared memory, launch shapes.
//!
//! `--redundancy` runs the TB-redundancy limit study instead (document 003 §2, [`super::redundancy`]):
//! per kernel, the share of dynamic warp instructions that are TB-redundant (uniform, affine,
//! unstructured), warp-uniform, and skippable under DARSIE's static marking.
//!
//! `--all` characterises every registered workload; `--markdown` prints the summary table used in
//! `docs/WORKLOADS.md` (`warpforge characterize --all --size small --markdown`).

use std::path::PathBuf;

use anyhow::{bail, Context};
use serde_json::json;
use warpforge_workloads::profile::{Characterizer, Profile};
use warpforge_workloads::{registry, Check, Size, Workload};

use super::list::{abbreviation, check_word, find_workload, parse_size};

/// Arguments of `warpforge characterize`.
#[derive(clap::Args)]
pub struct Args {
    /// Workload name (see `warpforge list`); omit with `--all`.
    #[arg(required_unless_present = "all", conflicts_with = "all")]
    pub workload: Option<String>,
    /// Characterise every registered workload.
    #[arg(long)]
    pub all: bool,
    /// Input size: tiny, small or paper.
    #[arg(long, default_value = "small", value_parser = parse_size)]
    pub size: Size,
    /// Write the profile(s) as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Print a Markdown summary table instead of the per-workload report.
    #[arg(long)]
    pub markdown: bool,
    /// Run the TB-redundancy limit study (document 003 §2) instead of the profile.
    #[arg(long)]
    pub redundancy: bool,
}

struct Outcome {
    name: &'static str,
    profile: Profile,
    check: Check,
    wall: f64,
}

fn characterize(w: &dyn Workload, size: Size) -> anyhow::Result<Outcome> {
    let (profile, check, wall) =
        super::observed::run_observed(w, size, Characterizer::new(), |c| c.profile())?;
    Ok(Outcome {
        name: w.info().name,
        profile,
        check,
        wall,
    })
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    let workloads: Vec<&'static dyn Workload> = match &args.workload {
        Some(n) => vec![find_workload(n)?],
        None => registry(),
    };
    if args.redundancy {
        return run_redundancy(&args, &workloads);
    }
    let mut outcomes = Vec::new();
    for w in workloads {
        if args.all {
            eprintln!("characterizing {} ({})...", w.info().name, args.size.name());
        }
        let o = characterize(w, args.size)?;
        if !args.markdown {
            print_report(&o, args.size);
        }
        outcomes.push(o);
    }
    if args.markdown {
        print!("{}", markdown(&outcomes));
    }
    if let Some(path) = &args.json {
        let list: Vec<_> = outcomes
            .iter()
            .map(|o| {
                json!({
                    "workload": o.name,
                    "size": args.size.name(),
                    "check": check_word(&o.check),
                    "wall_s": o.wall,
                    "profile": o.profile,
                    "labels": o.profile.labels(),
                })
            })
            .collect();
        let v = if args.all {
            json!(list)
        } else {
            list[0].clone()
        };
        warpforge_core::output::write_atomic(path, serde_json::to_string_pretty(&v)? + "\n")
            .with_context(|| format!("writing {}", path.display()))?;
    }
    let failed: Vec<&str> = outcomes
        .iter()
        .filter(|o| matches!(o.check, Check::Failed(_)))
        .map(|o| o.name)
        .collect();
    if !failed.is_empty() {
        bail!("output check failed for: {}", failed.join(", "));
    }
    Ok(())
}

/// `--redundancy`: the limit study of every selected workload.
fn run_redundancy(args: &Args, workloads: &[&'static dyn Workload]) -> anyhow::Result<()> {
    let mut rows = Vec::new();
    let mut failed = Vec::new();
    for w in workloads {
        if args.all {
            eprintln!("limit study of {} ({})...", w.info().name, args.size.name());
        }
        let (r, check) = super::redundancy::study(*w, args.size)?;
        if matches!(check, Check::Failed(_)) {
            failed.push(w.info().name);
        }
        rows.extend(r);
    }
    print!("{}", super::redundancy::markdown(&rows));
    if let Some(path) = &args.json {
        let v = json!({"size": args.size.name(), "rows": rows});
        super::write_atomically(path, serde_json::to_string_pretty(&v)? + "\n")?;
    }
    if !failed.is_empty() {
        bail!("output check failed for: {}", failed.join(", "));
    }
    Ok(())
}

fn pct(n: u64, d: u64) -> f64 {
    if d == 0 {
        0.0
    } else {
        100.0 * n as f64 / d as f64
    }
}

fn print_report(o: &Outcome, size: Size) {
    let p = &o.profile;
    let m = &p.mix;
    let t = p.warp_insts;
    println!(
        "== {} ({}), size {} ==",
        o.name,
        abbreviation(o.name),
        size.name()
    );
    match &o.check {
        Check::Passed => println!("check: passed ({:.2} s functional)", o.wall),
        Check::Failed(msg) => println!("check: FAILED: {msg}"),
    }
    println!(
        "dynamic instructions: {} warp, {} thread",
        p.warp_insts, p.thread_insts
    );
    println!(
        "average active lanes per warp instruction: {:.2} of 32 (SIMD efficiency {:.1}%)",
        p.avg_active_lanes,
        100.0 * p.avg_active_lanes / 32.0
    );
    println!("instruction mix (% of warp instructions):");
    let rows = [
        ("integer", m.int),
        ("fp", m.fp),
        ("sfu/conv", m.sfu),
        ("ld.global", m.ld_global),
        ("st.global", m.st_global),
        ("ld/st.local", m.ldst_local),
        ("ld.shared", m.ld_shared),
        ("st.shared", m.st_shared),
        ("ld.const/param", m.ld_const_param),
        ("tex", m.tex),
        ("atomic", m.atomic),
        ("branch", m.branch),
        ("barrier", m.barrier),
        ("other", m.other),
    ];
    for (k, v) in rows {
        println!("  {k:<15} {:>6.2}%  ({v})", pct(v, t));
    }
    println!(
        "global memory: {} requests, {:.2} sectors (32 B) and {:.2} lines (128 B) per request",
        p.global_requests, p.sectors_per_request, p.lines_per_request
    );
    println!(
        "footprint: {} distinct 128 B lines ({:.1} KiB)",
        p.footprint_lines,
        p.footprint_bytes as f64 / 1024.0
    );
    println!("barriers per CTA: {:.2}", p.barriers_per_cta);
    println!("labels: {}", p.labels().join(", "));
    println!("kernels ({} launches):", p.launches);
    for (name, k) in &p.kernels {
        println!(
            "  {name}: {} launches, {} warp insts, {} regs/thread, {} B shared/CTA, {} B local/thread, {:.2} barriers/CTA",
            k.launches, k.warp_insts, k.regs_per_thread, k.shared_bytes_per_cta, k.local_bytes_per_thread, k.barriers_per_cta
        );
        for s in &k.shapes {
            println!(
                "    grid {} x block {}, {} B shared: {} launch(es)",
                s.grid, s.block, s.shared_bytes, s.count
            );
        }
    }
    println!();
}

/// The summary table of `docs/WORKLOADS.md`.
fn markdown(outcomes: &[Outcome]) -> String {
    let mut s = String::new();
    s.push_str("| workload | launches | warp insts | thread insts | lanes | int % | fp % | sfu % | gmem % | smem % | branch % | bar % | atom % | sect/req | lines/req | footprint KiB | bar/CTA | regs | smem B/CTA | block | check | behaviour |\n");
    s.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|\n");
    for o in outcomes {
        let p = &o.profile;
        let m = &p.mix;
        let t = p.warp_insts;
        let gmem = m.ld_global + m.st_global + m.ldst_local;
        let smem = m.ld_shared + m.st_shared;
        let regs = p
            .kernels
            .values()
            .map(|k| k.regs_per_thread)
            .max()
            .unwrap_or(0);
        let shared = p
            .kernels
            .values()
            .map(|k| k.shared_bytes_per_cta)
            .max()
            .unwrap_or(0);
        let mut blocks: Vec<String> = p
            .kernels
            .values()
            .flat_map(|k| k.shapes.iter().map(|sh| sh.block.to_string()))
            .collect();
        blocks.sort();
        blocks.dedup();
        s.push_str(&format!(
            "| {} | {} | {} | {} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.2} | {:.2} | {:.0} | {:.1} | {} | {} | {} | {} | {} |\n",
            o.name,
            p.launches,
            p.warp_insts,
            p.thread_insts,
            p.avg_active_lanes,
            pct(m.int, t),
            pct(m.fp, t),
            pct(m.sfu, t),
            pct(gmem, t),
            pct(smem, t),
            pct(m.branch, t),
            pct(m.barrier, t),
            pct(m.atomic, t),
            p.sectors_per_request,
            p.lines_per_request,
            p.footprint_bytes as f64 / 1024.0,
            p.barriers_per_cta,
            regs,
            shared,
            blocks.join(" "),
            check_word(&o.check),
            p.labels().join(", "),
        ));
    }
    s
}
