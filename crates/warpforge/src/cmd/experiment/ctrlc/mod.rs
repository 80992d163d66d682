//! `experiment ctrlc`: Lee (2017) Chapter 5 (spec 000 §5, §7.3, claims 17-24) on the timing
//! model: the 27 workloads of Table 5.3 on the `gtx480-ctrlc` preset (Table 5.1) under six L1D
//! configurations, the cache-sensitive (CS) split re-derived by the 16 KB -> 64 KB rule, Ctrl-C
//! against PC-based bypassing, the reuse-distance characterisation measured in the baseline's
//! L1D, and the static per-PC insertion-exponent sweep of Figure 5.5 for ELL, BFS and KMN.
//!
//! Configurations (all on `gtx480-ctrlc`): `baseline` (16 KB, 32 sets x 4 ways, allocate every
//! miss), `l1d_32k` and `l1d_64k` (64 and 128 sets: the capacity grows by sets so the hashed
//! index and associativity stay; the document does not say which), `no_l1d` (insertion
//! `bypass_all`: loads and stores go around the L1D), `pc_bypass` and `ctrlc` (insertion
//! policies of `mem::insertion`). The baseline also records the reuse-distance histogram and
//! the per-PC profile (`sim.reuse_histogram`, which does not change timing).
//!
//! Metric definitions (spec 000 §8.2): speed-up = baseline cycles / configuration cycles over
//! the whole run; CS = `l1d_64k` speed-up > 1.2; `geomean_cs` the geometric mean over CS
//! workloads (`mean_cs` the arithmetic one); `*_change_cs` the mean over CS workloads of the
//! per-workload relative change (configuration / baseline - 1); MPKI counts L1D misses
//! (bypasses included) per 1000 thread instructions; L1<->L2 traffic (`l1_l2_traffic`) is the
//! interconnect bytes between the SMs and the L2 in both directions (requests, write data,
//! headers, replies with their data: a read request carries no data, so the loads' traffic is
//! in the replies), and `l1_to_l2_request_bytes` the request direction alone; the zero-reuse
//! fraction is evicted lines
//! never hit over evicted lines, averaged over CS workloads.

mod report;
mod svg;

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use serde_json::json;
use warpforge_timing::mem::insertion::ctrlc as ctrl;
use warpforge_timing::GpuConfig;
use warpforge_workloads::Size;

use super::batch::{self, Outcome, Point};
use crate::cmd::write_atomically;

/// The 27 workloads of Table 5.3, in the table's order (spec 000 §7.3).
pub const WORKLOADS: [&str; 27] = [
    "bo", "pth", "hot", "bp", "fwt", "htw", "sr1", "nw", "sr2", "sc", "bt", "dct", "wc", "mis",
    "clr", "pf", "pvr", "bc", "csr", "fld", "ss", "bfs", "str", "ell", "prk", "mm", "kmn",
];

/// Configuration names, the baseline first.
pub const CONFIGS: [&str; 6] = [
    "baseline",
    "l1d_32k",
    "l1d_64k",
    "no_l1d",
    "pc_bypass",
    "ctrlc",
];

/// Workloads of the static per-PC exponent sweep (Figure 5.5, claim 19).
pub const SWEEP_WORKLOADS: [&str; 3] = ["ell", "bfs", "kmn"];
/// Exponents tried per PC (0, the baseline, is always a candidate).
pub const SWEEP_EXPONENTS: [u8; 4] = [1, 3, 5, 7];
/// PCs swept per workload: those with the most L1D misses in the baseline.
pub const SWEEP_PCS: usize = 4;

/// The speed-up over 16 KB at 64 KB above which a workload is cache-sensitive (§5.5).
pub const CS_THRESHOLD: f64 = 1.2;

/// Arguments of `experiment ctrlc`.
#[derive(clap::Args)]
pub struct CtrlcArgs {
    /// Input size: small (minutes) or paper (the document's inputs; hours); tiny for tests.
    #[arg(long, default_value = "small", value_parser = crate::cmd::run::parse_size)]
    size: Size,
    /// Write the results as JSON to this file.
    #[arg(long)]
    json: PathBuf,
    /// Also write speedup.svg and reuse_distance.svg into this directory.
    #[arg(long)]
    svg: Option<PathBuf>,
    /// Workloads (comma-separated; default: the 27 of Table 5.3).
    #[arg(long, value_delimiter = ',')]
    workloads: Vec<String>,
    /// Simulations at once (default: one per available core).
    #[arg(long)]
    jobs: Option<usize>,
    /// Do not read or write the simulation cache.
    #[arg(long)]
    no_cache: bool,
    /// Skip the static per-PC exponent sweep (claim 19).
    #[arg(long)]
    no_sweep: bool,
}

/// The configuration `name` of the experiment over `base`.
pub fn config(base: &GpuConfig, name: &str) -> Result<GpuConfig> {
    let mut c = base.clone();
    let set = |c: &mut GpuConfig, k: &str, v: &str| c.set(k, v).map_err(anyhow::Error::msg);
    match name {
        "baseline" => set(&mut c, "sim.reuse_histogram", "true")?,
        "l1d_32k" => set(&mut c, "l1d.sets", &(base.l1d.sets * 2).to_string())?,
        "l1d_64k" => set(&mut c, "l1d.sets", &(base.l1d.sets * 4).to_string())?,
        "no_l1d" => set(&mut c, "l1d.insertion", "bypass_all")?,
        "pc_bypass" | "ctrlc" => set(&mut c, "l1d.insertion", name)?,
        o => bail!("unknown configuration `{o}`"),
    }
    c.name = format!("{}+{name}", base.name);
    Ok(c)
}

/// Storage of Ctrl-C per SM in bytes for the preset's L1D (claim 24).
pub fn storage_bytes(base: &GpuConfig) -> f64 {
    ctrl::storage_bits((base.l1d.sets * base.l1d.ways) as u64) as f64 / 8.0
}

/// Runs the experiment.
pub fn run(a: CtrlcArgs) -> Result<()> {
    let workloads: Vec<String> = if a.workloads.is_empty() {
        WORKLOADS.iter().map(|s| s.to_string()).collect()
    } else {
        a.workloads.clone()
    };
    for w in &workloads {
        crate::cmd::run::find_workload(w)?;
    }
    if a.jobs == Some(0) {
        bail!("--jobs must be at least 1");
    }
    let base = GpuConfig::preset("gtx480-ctrlc").map_err(anyhow::Error::msg)?;
    let opts = batch::Options {
        jobs: a.jobs.unwrap_or_else(batch::default_jobs),
        cache: if a.no_cache {
            None
        } else {
            batch::default_cache_dir()
        },
        progress: std::io::IsTerminal::is_terminal(&std::io::stderr()),
    };
    let cfgs: Vec<GpuConfig> = CONFIGS
        .iter()
        .map(|n| config(&base, n))
        .collect::<Result<_>>()?;
    let mut points = Vec::new();
    for w in &workloads {
        for c in &cfgs {
            points.push(Point::new(w, a.size, c.clone()));
        }
    }
    let t0 = std::time::Instant::now();
    let out = batch::run(&points, &opts)?;
    let mut cached = out.iter().filter(|o| o.cached).count();
    let mut total = out.len();
    let mut runs: BTreeMap<(String, &str), Outcome> = BTreeMap::new();
    for (p, o) in points.iter().zip(out) {
        let cfg = CONFIGS[cfgs
            .iter()
            .position(|c| c.name == p.config.name)
            .expect("ours")];
        runs.insert((p.workload.clone(), cfg), o);
    }
    let mut result = report::summarise(&workloads, &runs, storage_bytes(&base));
    if !a.no_sweep {
        let sw: Vec<&String> = workloads
            .iter()
            .filter(|w| SWEEP_WORKLOADS.contains(&w.as_str()))
            .collect();
        let mut sweep_points = Vec::new();
        let mut plan = Vec::new();
        for w in &sw {
            let pcs = report::top_pcs(&runs[&((*w).clone(), "baseline")], SWEEP_PCS);
            for &pc in &pcs {
                for &n in &SWEEP_EXPONENTS {
                    let mut c = base.clone();
                    c.set("l1d.insertion", &format!("pc_exp:{pc}={n}"))
                        .map_err(anyhow::Error::msg)?;
                    c.name = format!("{}+pc_exp:{pc}={n}", base.name);
                    sweep_points.push(Point::new(w, a.size, c));
                    plan.push(((*w).clone(), pc, n));
                }
            }
        }
        let sout = batch::run(&sweep_points, &opts)?;
        cached += sout.iter().filter(|o| o.cached).count();
        total += sout.len();
        result["static_exponent"] = report::sweep(&runs, &plan, &sout);
    }
    result["size"] = json!(a.size.name());
    result["config"] = json!(base.name);
    result["wall_s"] = json!(t0.elapsed().as_secs_f64());
    result["simulations"] = json!({ "total": total, "from_cache": cached });
    print!("{}", report::text(&result));
    if let Some(dir) = &a.svg {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        svg::speedup(&result, &dir.join("speedup.svg"))?;
        svg::reuse(&result, &dir.join("reuse_distance.svg"))?;
    }
    write_atomically(&a.json, &serde_json::to_string_pretty(&result)?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configurations_differ_only_where_named() {
        let base = GpuConfig::preset("gtx480-ctrlc").unwrap();
        let c = |n| config(&base, n).unwrap();
        assert_eq!(
            c("l1d_32k").l1d.sets * c("l1d_32k").l1d.ways * 128,
            32 * 1024
        );
        assert_eq!(
            c("l1d_64k").l1d.sets * c("l1d_64k").l1d.ways * 128,
            64 * 1024
        );
        assert_eq!(c("ctrlc").l1d.insertion, "ctrlc");
        assert_eq!(c("no_l1d").l1d.insertion, "bypass_all");
        assert!(c("baseline").sim.reuse_histogram);
        for n in CONFIGS {
            c(n).validate().unwrap();
            assert_eq!(c(n).l2, base.l2, "{n}");
        }
        assert!(config(&base, "nope").is_err());
    }

    #[test]
    fn storage_is_608_bytes_on_table_5_1() {
        let base = GpuConfig::preset("gtx480-ctrlc").unwrap();
        assert_eq!(storage_bytes(&base), 608.0);
    }
}
