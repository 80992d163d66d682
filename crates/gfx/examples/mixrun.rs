//! One run of `experiment frame` alone, for profiling and for before/after equivalence checks of
//! the simulator's speed work (docs/PERFORMANCE.md, "Session 13"): the title with its HL CPU mix
//! (or H / L) under a policy, exactly as the experiment's plan builds it, and the whole
//! `MixResult` printed with `{:#?}` (every float in its shortest exact form, so two builds'
//! outputs are equal only if their results are bit-identical). No wall-clock field is printed.
//!
//! `cargo run --release -p warpforge-gfx --example mixrun -- TITLE [POLICY] [KIND] [MAX_FRAME_CYCLES] [MIX] [SIZE] [SETS]`
//!
//! KIND: `base` (default; algorithm marking, 16 MB LLC), `llc8` (8 MB LLC), `crit` / `noncrit`
//! (the critical / non-critical accesses ideal in the LLC, gate held as in the experiment),
//! `held` (the baseline with the gate held as in `crit` / `noncrit`, nothing ideal: the
//! classification those runs idealise, with its diagnostics), `random` (random marking at 0.5
//! per stream), `all` (every GPU access critical, no gate), `none` (no GPU access critical) or
//! `with-UNITS` (e.g. `with-fe` or `with-fe,zs`: the algorithm's marking with those units taken
//! as bottlenecked at every period, through the gate; a diagnostic). MAX_FRAME_CYCLES (default
//! 50M, the experiment's) caps each frame's GPU cycles: a small cap gives a short, partial run
//! for callgrind. MIX: HL (default), H or L. SIZE: tiny (default) or small. SETS:
//! comma-separated `key=value` settings of the machine configuration (`experiment frame
//! --set`), e.g. `policy.im_sched_draw_on_arrival=false,policy.im_sched_pending_denominator=false`
//! or `gfx.raise_pending=false` or `gfx.contexts=32`.

use warpforge_gfx::mem::Ideal;
use warpforge_gfx::pipeline::memif::Marking;
use warpforge_gfx::{mix, sim::RunOpts, title};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |i: usize, d: &str| args.get(i).cloned().unwrap_or_else(|| d.to_string());
    let name = arg(1, "GT1");
    let policy = arg(2, "frfcfs");
    let kind = arg(3, "base");
    let max: u64 = arg(4, "50000000")
        .parse()
        .expect("MAX_FRAME_CYCLES: a number");
    let mix_name = arg(5, "HL");
    let size = arg(6, "tiny");
    let sets: Vec<String> = args
        .get(7)
        .map(|s| s.split(',').map(str::to_string).collect())
        .unwrap_or_default();
    let t = title::by_name(&name).expect("title");
    let i = title::TITLES
        .iter()
        .position(|x| x.name == t.name)
        .expect("listed");
    let mut opts = RunOpts::sized(&size).expect("size: tiny or small");
    opts.max_frame_cycles = max;
    let mut run = mix::baseline(t, opts);
    run.policy = policy;
    run.sets = sets;
    run.cpu = mix::cpu_mixes(i)
        .into_iter()
        .find(|m| m.0 == mix_name)
        .expect("mix: HL, H or L")
        .1
        .to_vec();
    match kind.as_str() {
        "base" => {}
        "llc8" => run.llc_kb = 8192,
        "crit" | "noncrit" => {
            run.ideal = Some(if kind == "crit" {
                Ideal::Critical
            } else {
                Ideal::NonCritical
            });
            run.opts.cfg.held_gate = Some(t.below_target());
        }
        "held" => run.opts.cfg.held_gate = Some(t.below_target()),
        "random" => run.marking = Marking::Random([0.5; 8]),
        "all" => run.marking = Marking::Always,
        "none" => run.marking = Marking::Never,
        k if k.starts_with("with-") => {
            // with-fe, with-zs, with-sh, with-cw, with-bt (comma-joined allowed): the
            // algorithm's marking plus those units always flagged (a diagnostic).
            let mut f = [false; 5];
            for u in k["with-".len()..].split(',') {
                let i = ["fe", "zs", "sh", "cw", "bt"]
                    .iter()
                    .position(|x| *x == u)
                    .expect("unit: fe, zs, sh, cw or bt");
                f[i] = true;
            }
            run.marking = Marking::AlgorithmWith(f);
        }
        k => panic!(
            "unknown KIND `{k}` (base, llc8, crit, noncrit, held, random, all, none, with-UNITS)"
        ),
    }
    let r = mix::run(&run).expect("run");
    println!("{} {} {} {} {}", t.name, run.policy, kind, mix_name, size);
    println!("{r:#?}");
}
