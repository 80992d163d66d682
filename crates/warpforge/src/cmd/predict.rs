//! `warpforge predict WORKLOAD --gpu NAME`: runs a workload functionally with the models'
//! instruction analyser installed, then predicts its execution with the analytical models of
//! document 002 (MWP-CWP cycles, CPI, MWP, CWP, the case and the bottleneck; power, energy and the
//! IPP optimal number of SMs where the device has power parameters).
//!
//! `--all` predicts every registered workload and prints one line each. Erratum options select the
//! alternatives of `docs/MODELS.md`; the defaults are the thesis as written.
//!
//! JSON output (`--json FILE`), stable field names: `workload`, `size`, `gpu`, `cycles`, `time_s`,
//! `cpi`, `mwp`, `cwp`, `case`, `bottleneck`, `power_w`, `energy_j`, `ipp_optimal_sms`,
//! `ipp_savings`, `inputs` (the dominant launch's model inputs), `occupancy`, `kernels` (per kernel
//! name: launches, cycles, case, MWP, CWP, N), `launches` (full per-launch detail), `options`,
//! `analyser_s` (functional run), `model_s` (model evaluation). With `--all` the file holds an
//! array of these objects.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use serde::Serialize;
use warpforge_models::analyser::{Analyser, KernelProfile};
use warpforge_models::mwp_cwp::KernelInputs;
use warpforge_models::occupancy::Occupancy;
use warpforge_models::options::{
    CacheMix, CriticalWarp, DepIssue, FetchStall, IssueFloor, L1Mix, LdstFloor, MFactorSource,
    MemLCoal, ModelOptions, NpwForm, RepRounding, SmemConflicts, SyncWarps,
};
use warpforge_models::params::{self, DeviceParams};
use warpforge_models::predict::{predict, Prediction};
use warpforge_simt::Device;
use warpforge_workloads::{registry, Check, Size, Workload};

use super::run::{find_workload, parse_size};

/// Erratum 1 choices.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum MemLCoalArg {
    /// Eq (13): Mem_LD + Departure_del_coal.
    Thesis,
    /// Mem_LD only.
    MemLd,
}

/// Erratum 5 choices.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum SyncArg {
    /// Eq (26): NpWB = min(MWP, warps per block).
    Npwb,
    /// MWP.
    Mwp,
}

/// Erratum 6 choices.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum NpwArg {
    /// N x Mem_req / (Mem_req - Ind_mem_req).
    Total,
    /// Eq (28) as printed.
    Literal,
}

/// Erratum 8 choices.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum MFactorArg {
    /// Table 6 measured values.
    Experimental,
    /// Table 6 CUDA-manual values.
    Manual,
}

/// Erratum 2 choices.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum IssueFloorArg {
    /// Bounded below by the issue time.
    Floor,
    /// The printed formulas, unbounded.
    Printed,
}

/// Eq (20) choices.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum RepArg {
    /// Whole rounds (default).
    Ceil,
    /// Fractional rounds, as printed.
    Fractional,
}

/// Arguments of `warpforge predict`.
#[derive(clap::Args)]
pub struct Args {
    /// Workload name (see `warpforge list`); omit with `--all`.
    #[arg(required_unless_present = "all", conflicts_with = "all")]
    pub workload: Option<String>,
    /// Predict every registered workload.
    #[arg(long)]
    pub all: bool,
    /// Input size: tiny, small or paper.
    #[arg(long, default_value = "small", value_parser = parse_size)]
    pub size: Size,
    /// Device parameter set (8800gtx, fx5600, 8800gt, gtx280, gtx580, e5645, gtx480) or a
    /// parameter file (`*.toml`, same schema as `crates/models/params/`).
    #[arg(long)]
    pub gpu: String,
    /// Write the prediction(s) as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Print every launch, not only the per-kernel summary.
    #[arg(long)]
    pub launches: bool,
    /// Erratum 1: latency of a coalesced request.
    #[arg(long, value_enum, default_value = "thesis")]
    pub mem_l_coal: MemLCoalArg,
    /// Erratum 5: warps that pay the synchronisation delay.
    #[arg(long, value_enum, default_value = "npwb")]
    pub sync: SyncArg,
    /// Erratum 6: form of N_pw.
    #[arg(long, value_enum, default_value = "total")]
    pub npw: NpwArg,
    /// Erratum 8: M_Factor column of Table 6.
    #[arg(long, value_enum, default_value = "experimental")]
    pub m_factor: MFactorArg,
    /// Eq (20): block rounds per SM (`ceil`: whole rounds of the busiest SM; `fractional`: as
    /// printed).
    #[arg(long, value_enum, default_value = "ceil")]
    pub rep: RepArg,
    /// Erratum 2: `floor` never predicts fewer cycles than the SM needs to issue its warps;
    /// `printed` applies the case formulas unbounded.
    #[arg(long, value_enum, default_value = "floor")]
    pub issue_floor: IssueFloorArg,
    /// Extension off: ignore the dependent-instruction latency (devices with `core.dep_latency`).
    #[arg(long)]
    pub no_dep: bool,
    /// Extension off: ignore the L2 hit mix (devices with `memory.l2_latency`).
    #[arg(long)]
    pub no_cache: bool,
    /// Extension off: ignore the L1 hit mix (devices with `memory.l1_latency`).
    #[arg(long)]
    pub no_l1: bool,
    /// Extension off: no LD/ST-unit throughput floor (devices with `memory.ldst_pass_cycles`).
    #[arg(long)]
    pub no_ldst: bool,
    /// Extension off: shared accesses count one LD/ST pass whatever their bank conflicts
    /// (devices with `memory.shared_banks`).
    #[arg(long)]
    pub no_smem_conflicts: bool,
    /// Extension off: every warp runs the average instruction count (no longest-warp bound).
    #[arg(long)]
    pub no_crit: bool,
    /// Extension off: every instruction fetch hits (devices with `memory.l1i_sets`).
    #[arg(long)]
    pub no_fetch: bool,
    /// Also simulate the workload on the timing model with this configuration preset (e.g.
    /// `gtx480`) and report, per kernel launch, simulated cycles next to the prediction and the
    /// power and energy the power model gives from the simulation's activity counters.
    #[arg(long, value_name = "CONFIG")]
    pub simulate: Option<String>,
}

impl Args {
    fn options(&self) -> ModelOptions {
        ModelOptions {
            mem_l_coal: match self.mem_l_coal {
                MemLCoalArg::Thesis => MemLCoal::Thesis,
                MemLCoalArg::MemLd => MemLCoal::MemLdOnly,
            },
            sync_warps: match self.sync {
                SyncArg::Npwb => SyncWarps::NpWB,
                SyncArg::Mwp => SyncWarps::Mwp,
            },
            npw: match self.npw {
                NpwArg::Total => NpwForm::TotalOverDependent,
                NpwArg::Literal => NpwForm::Literal,
            },
            m_factor: match self.m_factor {
                MFactorArg::Experimental => MFactorSource::Experimental,
                MFactorArg::Manual => MFactorSource::Manual,
            },
            reg_file: Default::default(),
            rep: match self.rep {
                RepArg::Fractional => RepRounding::Fractional,
                RepArg::Ceil => RepRounding::Ceil,
            },
            issue_floor: match self.issue_floor {
                IssueFloorArg::Floor => IssueFloor::Floor,
                IssueFloorArg::Printed => IssueFloor::Printed,
            },
            dep: if self.no_dep {
                DepIssue::Off
            } else {
                DepIssue::Chapter5
            },
            cache: if self.no_cache {
                CacheMix::Off
            } else {
                CacheMix::L2Mix
            },
            l1: if self.no_l1 {
                L1Mix::Off
            } else {
                L1Mix::Interleaved
            },
            ldst: if self.no_ldst {
                LdstFloor::Off
            } else {
                LdstFloor::Floor
            },
            smem: if self.no_smem_conflicts {
                SmemConflicts::Off
            } else {
                SmemConflicts::Passes
            },
            crit: if self.no_crit {
                CriticalWarp::Off
            } else {
                CriticalWarp::Floor
            },
            fetch: if self.no_fetch {
                FetchStall::Off
            } else {
                FetchStall::Serial
            },
        }
    }
}

/// Per-kernel-name summary.
#[derive(Debug, Clone, Serialize)]
pub struct KernelSummary {
    /// Launches of this kernel.
    pub launches: usize,
    /// Predicted cycles over those launches.
    pub cycles: f64,
    /// Case of the longest launch.
    pub case: String,
    /// MWP of the longest launch.
    pub mwp: f64,
    /// CWP of the longest launch.
    pub cwp: f64,
    /// N of the longest launch.
    pub n: f64,
    /// Chapter V category of the longest launch.
    pub category: Option<u8>,
}

/// The JSON record of one workload.
#[derive(Debug, Clone, Serialize)]
pub struct Record {
    workload: String,
    size: String,
    gpu: String,
    cycles: f64,
    time_s: f64,
    cpi: f64,
    mwp: f64,
    cwp: f64,
    case: String,
    bottleneck: String,
    power_w: Option<f64>,
    energy_j: Option<f64>,
    ipp_optimal_sms: Option<u32>,
    ipp_savings: Option<warpforge_models::ipp::EnergySavings>,
    inputs: Option<KernelInputs>,
    occupancy: Option<Occupancy>,
    kernels: BTreeMap<String, KernelSummary>,
    launches: Vec<warpforge_models::predict::LaunchPrediction>,
    ipp_sweep: Vec<warpforge_models::ipp::SweepPoint>,
    options: ModelOptions,
    check: String,
    analyser_s: f64,
    model_s: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    simulated: Option<Vec<SimulatedLaunch>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sim_wall_s: Option<f64>,
}

/// Runs `w` functionally with the analyser for `dev`'s coalescing rules.
pub fn analyse(
    w: &dyn Workload,
    size: Size,
    dev: &DeviceParams,
    opts: &ModelOptions,
) -> anyhow::Result<(Vec<KernelProfile>, Check, f64)> {
    let analyser = Analyser::for_device(dev, opts.m_factor, opts.reg_file);
    super::observed::run_observed(w, size, analyser, |a| a.take_profiles())
}

fn summarise(p: &Prediction) -> BTreeMap<String, KernelSummary> {
    let mut out: BTreeMap<String, KernelSummary> = BTreeMap::new();
    let mut longest: BTreeMap<String, f64> = BTreeMap::new();
    for l in &p.launches {
        let e = out.entry(l.kernel.clone()).or_insert(KernelSummary {
            launches: 0,
            cycles: 0.0,
            case: String::new(),
            mwp: 0.0,
            cwp: 0.0,
            n: 0.0,
            category: None,
        });
        e.launches += 1;
        e.cycles += l.model.exec_cycles;
        let best = longest.entry(l.kernel.clone()).or_insert(-1.0);
        if l.model.exec_cycles > *best {
            *best = l.model.exec_cycles;
            e.case = l.model.case.id().to_string();
            e.mwp = l.model.mwp;
            e.cwp = l.model.cwp;
            e.n = l.model.n;
            e.category = l.category;
        }
    }
    out
}

/// Analyses and predicts one workload.
pub fn predict_workload(
    w: &dyn Workload,
    size: Size,
    dev: &DeviceParams,
    opts: &ModelOptions,
) -> anyhow::Result<(Record, Prediction)> {
    let name = w.info().name;
    let (profiles, check, analyser_s) = analyse(w, size, dev, opts)?;
    if let Check::Failed(m) = &check {
        eprintln!("warning: `{name}` output check failed ({m}); predicting from its instruction stream anyway");
    }
    let t0 = Instant::now();
    let p = predict(dev, &profiles, opts)
        .with_context(|| format!("predicting `{name}` on {}", dev.name))?;
    let model_s = t0.elapsed().as_secs_f64();
    let dominant = p
        .launches
        .iter()
        .max_by(|a, b| a.model.exec_cycles.total_cmp(&b.model.exec_cycles));
    let rec = Record {
        workload: name.to_string(),
        size: size.name().to_string(),
        gpu: dev.name.clone(),
        cycles: p.cycles,
        time_s: p.time_s,
        cpi: p.cpi,
        mwp: p.mwp,
        cwp: p.cwp,
        case: p.case.clone(),
        bottleneck: p.bottleneck.clone(),
        power_w: p.power_w,
        energy_j: p.energy_j,
        ipp_optimal_sms: p.ipp_optimal_sms,
        ipp_savings: p.ipp_savings,
        inputs: dominant.map(|l| l.inputs),
        occupancy: dominant.map(|l| l.occupancy),
        kernels: summarise(&p),
        launches: p.launches.clone(),
        ipp_sweep: p.ipp_sweep.clone(),
        options: *opts,
        check: match check {
            Check::Passed => "passed".into(),
            Check::Failed(_) => "failed".into(),
        },
        analyser_s,
        model_s,
        simulated: None,
        sim_wall_s: None,
    };
    Ok((rec, p))
}

fn print_one(rec: &Record, dev: &DeviceParams, p: &Prediction, all_launches: bool) {
    println!(
        "{} ({}) on {} — {}",
        rec.workload, rec.size, dev.name, dev.description
    );
    println!(
        "  {} launches of {} kernels; analyser run {:.2} s, model {:.3} ms",
        p.launches.len(),
        rec.kernels.len(),
        rec.analyser_s,
        rec.model_s * 1e3
    );
    println!(
        "  predicted cycles {:.0} ({:.3} ms at {} GHz), CPI {:.2}",
        rec.cycles,
        rec.time_s * 1e3,
        dev.core.freq_ghz,
        rec.cpi
    );
    if let Some(i) = &rec.inputs {
        println!(
            "  dominant launch: MWP {:.2}, CWP {:.2}, {} — per warp: {:.1} comp, {:.2} coalesced + {:.2} uncoalesced mem ({:.1} transactions each), {:.2} barriers",
            rec.mwp, rec.cwp, rec.case, i.comp_insts, i.coal_mem_insts, i.uncoal_mem_insts, i.uncoal_per_mw, i.synch_insts
        );
    }
    if let Some(o) = &rec.occupancy {
        println!(
            "  occupancy {:.2} ({} blocks/SM on {} SMs, limited by {:?})",
            o.occupancy, o.active_blocks_per_sm, o.active_sms, o.limit
        );
    }
    println!("  bottleneck: {}", rec.bottleneck);
    match (rec.power_w, rec.energy_j) {
        (Some(w), Some(j)) => {
            print!("  power {w:.1} W, energy {:.4} J", j);
            if let (Some(opt), Some(s)) = (rec.ipp_optimal_sms, &rec.ipp_savings) {
                print!(
                    "; IPP optimal SMs {opt} of {} (energy saving {:.1}% runtime+idle, {:.1}% runtime, {:.1}% power-gated)",
                    dev.core.num_sms,
                    100.0 * s.saving_runtime_idle,
                    100.0 * s.saving_runtime,
                    100.0 * s.saving_power_gating
                );
            }
            println!();
        }
        _ => println!(
            "  power: no power parameters for {} in the document",
            dev.name
        ),
    }
    println!(
        "  {:<28} {:>8} {:>14} {:>13} {:>7} {:>7} {:>6} {:>4}",
        "kernel", "launches", "cycles", "case", "MWP", "CWP", "N", "cat"
    );
    for (k, s) in &rec.kernels {
        println!(
            "  {:<28} {:>8} {:>14.0} {:>13} {:>7.2} {:>7.2} {:>6.1} {:>4}",
            truncate(k, 28),
            s.launches,
            s.cycles,
            s.case,
            s.mwp,
            s.cwp,
            s.n,
            s.category.map_or("-".to_string(), |c| c.to_string())
        );
    }
    if all_launches {
        for (i, l) in p.launches.iter().enumerate() {
            println!(
                "  #{i:<4} {:<24} {:>12.0} cyc {:>13} MWP {:>6.2} CWP {:>6.2} N {:>5.1} rep {:>7.2} {}",
                truncate(&l.kernel, 24),
                l.model.exec_cycles,
                l.model.case.id(),
                l.model.mwp,
                l.model.cwp,
                l.model.n,
                l.model.rep,
                l.bottleneck
            );
        }
    }
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n - 1).collect();
        t.push('~');
        t
    }
}

/// Power of one simulated launch from its activity counters (item 6): instruction-side unit
/// counts come from the analyser (installed as the observer of the timing run), memory-side ones
/// from the timing model's counters (L1 and L2 accesses; global-memory accesses scaled by the
/// simulated DRAM share of L2 traffic).
#[derive(Debug, Clone, Serialize)]
pub struct SimulatedLaunch {
    /// Kernel name.
    pub kernel: String,
    /// Simulated cycles.
    pub sim_cycles: u64,
    /// Predicted cycles of the same launch.
    pub predicted_cycles: f64,
    /// GPU power from the activity counters, W (`None` without power parameters).
    pub power_w: Option<f64>,
    /// Energy, J.
    pub energy_j: Option<f64>,
}

fn simulate_power(
    w: &dyn Workload,
    size: Size,
    dev: &DeviceParams,
    opts: &ModelOptions,
    config: &str,
    pred: &Prediction,
) -> anyhow::Result<(Vec<SimulatedLaunch>, f64)> {
    use warpforge_models::activity::simulated_power;
    use warpforge_timing::TimingRunner;
    let cfg = super::config::resolve(Some(config), &[], &[])?;
    let machine = super::run::sim_machine(&cfg);
    let mut device = Device::new();
    device.set_runner(Box::new(TimingRunner::new(cfg, 1)));
    device.set_observer(Some(Box::new(Analyser::new(
        dev.memory.coalescing,
        opts.m_factor,
        opts.reg_file,
    ))));
    let t0 = Instant::now();
    w.run(&mut device, size)
        .with_context(|| format!("simulating `{}` on {config}", w.info().name))?;
    let wall = t0.elapsed().as_secs_f64();
    let profiles = device
        .observer_mut()
        .and_then(|o| {
            o.as_any_mut()
                .downcast_mut::<Analyser>()
                .map(|a| a.take_profiles())
        })
        .context("the instruction analyser was removed during the run")?;
    let mut boxed = device
        .take_runner()
        .context("the timing runner was removed")?;
    let stats = boxed
        .as_any_mut()
        .downcast_mut::<TimingRunner>()
        .context("not a timing runner")?
        .stats();
    let mut out = Vec::new();
    for (i, (p, k)) in profiles.iter().zip(&stats.kernels).enumerate() {
        let act = super::run::activity(p.units, p.blocks, k);
        let pb = simulated_power(dev, machine, &act);
        out.push(SimulatedLaunch {
            kernel: k.kernel.clone(),
            sim_cycles: k.cycles,
            predicted_cycles: pred.launches.get(i).map_or(0.0, |l| l.model.exec_cycles),
            power_w: pb.as_ref().map(|b| b.avg_power_w),
            energy_j: pb.as_ref().map(|b| b.energy_j),
        });
    }
    Ok((out, wall))
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    let dev = params::load(&args.gpu)?;
    let opts = args.options();
    let workloads: Vec<&'static dyn Workload> = if args.all {
        registry()
    } else {
        vec![find_workload(args.workload.as_deref().unwrap_or_default())?]
    };
    let mut records = Vec::new();
    let mut failures = Vec::new();
    for w in workloads {
        match predict_workload(w, args.size, &dev, &opts) {
            Ok((rec, p)) => {
                if args.all {
                    println!(
                        "{:<8} cycles {:>14.0} CPI {:>7.2} MWP {:>6.2} CWP {:>6.2} {:<12} power {:>7} IPP SMs {:>3}  {}",
                        rec.workload,
                        rec.cycles,
                        rec.cpi,
                        rec.mwp,
                        rec.cwp,
                        rec.case,
                        rec.power_w.map_or("-".into(), |w| format!("{w:.1} W")),
                        rec.ipp_optimal_sms.map_or("-".into(), |s| s.to_string()),
                        rec.bottleneck
                    );
                } else {
                    print_one(&rec, &dev, &p, args.launches);
                }
                let mut rec = rec;
                if let Some(cfg) = &args.simulate {
                    let (sims, wall) = simulate_power(w, args.size, &dev, &opts, cfg, &p)?;
                    let sim_cycles: u64 = sims.iter().map(|s| s.sim_cycles).sum();
                    let energy: Option<f64> = sims.iter().map(|s| s.energy_j).sum();
                    println!(
                        "  simulated on {cfg}: {sim_cycles} cycles in {wall:.2} s (prediction/simulation {:.2}; model {:.0}x faster){}",
                        rec.cycles / sim_cycles.max(1) as f64,
                        wall / rec.model_s.max(1e-9),
                        energy.map_or(String::new(), |e| format!(
                            ", energy from activity counters {e:.4} J ({:.1} W average)",
                            e / (sim_cycles as f64 / (dev.core.freq_ghz * 1e9)).max(1e-12)
                        ))
                    );
                    if args.launches {
                        for s in &sims {
                            println!(
                                "    {:<24} sim {:>10} pred {:>12.0} power {}",
                                truncate(&s.kernel, 24),
                                s.sim_cycles,
                                s.predicted_cycles,
                                s.power_w.map_or("-".into(), |w| format!("{w:.1} W"))
                            );
                        }
                    }
                    rec.simulated = Some(sims);
                    rec.sim_wall_s = Some(wall);
                }
                records.push(rec);
            }
            Err(e) if args.all => {
                eprintln!("error: {}: {e:#}", w.info().name);
                failures.push(w.info().name);
            }
            Err(e) => return Err(e),
        }
    }
    if let Some(path) = &args.json {
        let text = if args.all {
            serde_json::to_string_pretty(&records)?
        } else {
            serde_json::to_string_pretty(&records[0])?
        };
        warpforge_core::output::write_atomic(path, text)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    if !failures.is_empty() {
        anyhow::bail!("prediction failed for: {}", failures.join(", "));
    }
    Ok(())
}
