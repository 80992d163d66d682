//! Debug probe of the policy runs (issue 16, IM's FPS loss): runs a title's HL mix at `tiny`
//! under FR-FCFS and each named policy exactly as `experiment frame` does, and prints per policy
//! the FPS ratio, the mean per-core CPU IPC ratio over FR-FCFS, the share of cycles with the
//! frame-rate gate open (predicted FPS below target), the critical share of the GPU's DRAM reads
//! and the bottleneck shares (FE ZS SH CW BT).
//!
//! POLICY may also be `ideal_critical` or `ideal_noncritical` (FR-FCFS with that set ideal in the
//! LLC, the gate held: claim 3's runs). Also printed: the mean DRAM latency of the GPU's
//! non-critical / critical reads (memory cycles), the DRAM bus utilisation and the banks' share
//! of time held by activations (activates x tRC).
//!
//! `cargo run --release -p warpforge-gfx --example polprobe -- TITLE[,TITLE...] [POLICY[:key=value...][@always|@never],...] [key=value[:key=value...]]`
//! (the last argument: machine settings of every run, the baseline's included, e.g.
//! `dram.gpu_bank_scaled=true`).
use warpforge_gfx::mem::Ideal;
use warpforge_gfx::pipeline::memif::Marking;
use warpforge_gfx::{mix, sim::RunOpts, title};

fn main() {
    let names = std::env::args().nth(1).unwrap_or("L4D".into());
    let pols = std::env::args()
        .nth(2)
        .unwrap_or("gpu_favoring,im,im_sched,im_llc".into());
    for name in names.split(',') {
        let t = title::by_name(name).expect("title");
        let mut base = mix::baseline(t, RunOpts::sized("tiny").expect("tiny"));
        let common: Vec<String> = std::env::args()
            .nth(3)
            .map(|a| a.split(':').map(str::to_string).collect())
            .unwrap_or_default();
        base.sets = common.clone();
        let b = mix::run(&base).expect("run");
        let line = |p: &str, r: &mix::MixResult| {
            let cpu = r
                .cpu_ipc
                .iter()
                .zip(&b.cpu_ipc)
                .map(|(x, y)| x / y.max(1e-9))
                .sum::<f64>()
                / r.cpu_ipc.len().max(1) as f64;
            let crit = r.dram.total_critical() as f64 / r.dram.total().max(1) as f64;
            let bn: Vec<String> = r
                .bottleneck_share
                .iter()
                .map(|x| format!("{x:.2}"))
                .collect();
            let pc: Vec<String> = r
                .policy_counters
                .iter()
                .map(|(k, v)| format!("{k}={v:.3}"))
                .collect();
            println!(
                "{name:6} {p:13} fps {:7.2} ({:+.3}) cpu {cpu:.3} gate {:.2} crit {crit:.2} lat ng/cg {:.0}/{:.0} util {:.2} banks {:.2} bn [{}] {}",
                r.fps,
                r.fps / b.fps - 1.0,
                r.gate_share,
                r.gpu_dram_latency[0],
                r.gpu_dram_latency[1],
                r.dram_util,
                r.dram_bank_busy,
                bn.join(" "),
                pc.join(" ")
            );
        };
        line("frfcfs", &b);
        for p in pols.split(',') {
            let mut run = base.clone();
            // POLICY or POLICY:key=value:key=value (extra machine settings); a `@always` or
            // `@never` suffix marks every GPU access critical / none.
            let (p, marking) = match p.split_once('@') {
                Some((p, "always")) => (p, Marking::Always),
                Some((p, "never")) => (p, Marking::Never),
                _ => (p, Marking::Algorithm),
            };
            run.marking = marking;
            let mut parts = p.split(':');
            run.policy = parts.next().unwrap_or(p).to_string();
            // `ideal_critical` / `ideal_noncritical`: FR-FCFS with that set ideal in the LLC and
            // the gate held at the title's side of the target, as claim 3's runs.
            let ideal = match run.policy.as_str() {
                "ideal_critical" => Some(Ideal::Critical),
                "ideal_noncritical" => Some(Ideal::NonCritical),
                _ => None,
            };
            if ideal.is_some() {
                run.policy = "frfcfs".into();
                run.ideal = ideal;
                run.opts.cfg.held_gate = Some(t.below_target());
            }
            run.sets = common
                .iter()
                .cloned()
                .chain(parts.map(str::to_string))
                .collect();
            let r = mix::run(&run).expect("run");
            line(p, &r);
        }
    }
}
