//! `warpforge experiment latency`: Figure 3.2 of document 000 (Lee 2017 §3.2.4, spec 000 §2.4
//! and claim 1): for each workload of Table 3.2, under round robin (`lrr`), the average warp
//! execution time split into the stall factors of the latency attribution (§2.1, Algorithms 1
//! and 2: `sim.latency_attribution`). JSON and a stacked-bar SVG; the simulations run in
//! parallel through [`super::batch`] (cached).
//!
//! Averages are per warp over every warp of every kernel launch of the run (the document
//! averages over all warps of an application). Workloads are sorted by the share of their
//! warp time that is `scheduling` (latency hidden by the scheduler's rotation), as in the
//! document's figure. The default configuration is [`DEFAULT_CONFIG`] (Table 3.1 on GPGPU-Sim
//! 3.2.0); `--config gtx480` runs the same card with GPGPU-Sim 4's L1D values.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};
use warpforge_timing::GpuConfig;
use warpforge_workloads::Size;

use super::batch::{self, Options, Point};
use super::chart::{write_atomic, Chart};
use crate::cmd::list::abbreviation;

/// The configuration of Chapter 3 (`experiment latency` and `experiment caws`): Table 3.1 on
/// GPGPU-Sim 3.2.0, the version the document used (spec 000 §1.1): `gtx480-caws` is
/// `gtx480-cawa`'s 3.2.0 L1D MSHRs (32) and hit paths (L1D 1 cycle, shared memory 3) with
/// Table 3.1's 32-set, 4-way L1D.
pub const DEFAULT_CONFIG: &str = "gtx480-caws";

/// The workloads of Table 3.2 that exist here (`warpforge list`); Table 3.2's LEU (Leukocyte)
/// has no port and is left out.
pub const TABLE_3_2: &[&str] = &[
    "bt", "bp", "bfs", "gau", "htw", "hot", "kmn", "lmd", "lud", "myc", "nw", "pf", "pth", "sr1",
    "sr2", "sc", "sc_mid", "tpf",
];

/// The stall factors (keys of `LatencyReport`), in the order of the figure's stacks, with
/// the document's legend labels.
pub const FACTORS: &[(&str, &str)] = &[
    ("exec", "Exec"),
    ("scheduling", "Scheduling"),
    ("fetch", "Inst. Fetch"),
    ("control", "Ctrl Hzrd"),
    ("data_hazard", "Data Hzrd"),
    ("data_miss", "Data$"),
    ("mshr", "MSHR"),
    ("structural", "Strcl. Hzrd"),
    ("sync", "Sync."),
];

/// Arguments of `experiment latency`.
#[derive(clap::Args)]
pub struct LatencyArgs {
    /// Input size: tiny, small or paper.
    #[arg(long, default_value = "small")]
    size: Size,
    /// Timing configuration preset name or TOML file (default: Table 3.1 on GPGPU-Sim 3.2.0,
    /// the document's version; `gtx480` is the same card with GPGPU-Sim 4's L1D MSHRs and hit
    /// latencies).
    #[arg(long, default_value = DEFAULT_CONFIG)]
    config: String,
    /// Override one configuration key (repeatable); the scheduler is always `lrr`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Workloads (comma-separated; default: the 18 of Table 3.2 ported here).
    #[arg(long, value_delimiter = ',')]
    workloads: Vec<String>,
    /// Write the figure's data as JSON here.
    #[arg(long)]
    json: PathBuf,
    /// Also write `latency.svg` (stacked bars) into this directory.
    #[arg(long)]
    svg: Option<PathBuf>,
    /// Simulations at once (default: the cores available).
    #[arg(long)]
    jobs: Option<usize>,
    /// Do not read or write the simulation cache.
    #[arg(long)]
    no_cache: bool,
}

/// One workload of the figure.
#[derive(Debug, Clone)]
pub struct Row {
    /// Workload name.
    pub workload: String,
    /// Warps attributed (all launches).
    pub warps: u64,
    /// Average warp execution time, core cycles.
    pub lifetime: f64,
    /// Average cycles per warp of each factor, in [`FACTORS`] order.
    pub cycles: Vec<f64>,
    /// Simulated core cycles of the run.
    pub total_cycles: u64,
}

impl Row {
    /// The share of the average warp time spent in factor `key` (0..1).
    pub fn fraction(&self, key: &str) -> f64 {
        let i = FACTORS
            .iter()
            .position(|f| f.0 == key)
            .expect("a factor name");
        if self.lifetime > 0.0 {
            self.cycles[i] / self.lifetime
        } else {
            0.0
        }
    }

    /// The factor (other than exec and scheduling) with the largest share.
    pub fn dominant_stall(&self) -> &'static str {
        FACTORS
            .iter()
            .filter(|f| f.0 != "exec" && f.0 != "scheduling")
            .max_by(|a, b| self.fraction(a.0).total_cmp(&self.fraction(b.0)))
            .expect("factors")
            .0
    }
}

/// The configuration of the figure: `cfg` under round robin with the attribution on.
pub fn config(cfg: &GpuConfig) -> Result<GpuConfig> {
    let mut c = cfg.clone();
    c.set("core.scheduler", "lrr")?;
    c.set("sim.latency_attribution", "true")?;
    Ok(c)
}

/// Simulates `workloads` at `size` (through the batch runner) and returns their rows, sorted
/// by decreasing scheduling share.
pub fn measure(
    size: Size,
    cfg: &GpuConfig,
    workloads: &[&str],
    opts: &Options,
) -> Result<Vec<Row>> {
    let c = config(cfg)?;
    let points: Vec<Point> = workloads
        .iter()
        .map(|w| Point::new(w, size, c.clone()))
        .collect();
    let out = batch::run(&points, opts)?;
    let cached = out.iter().filter(|o| o.cached).count();
    if cached > 0 {
        eprintln!("{cached} of {} simulations read from the cache", out.len());
    }
    let mut rows = Vec::new();
    for (p, o) in points.iter().zip(&out) {
        if !o.stats["total"]["latency"].is_object() {
            bail!("{}: no latency attribution in the statistics", p.describe());
        }
        let num = |k: &str| o.total(&format!("latency.{k}")).unwrap_or(0.0);
        rows.push(Row {
            workload: p.workload.clone(),
            warps: num("warps") as u64,
            lifetime: num("lifetime"),
            cycles: FACTORS.iter().map(|f| num(f.0)).collect(),
            total_cycles: o.cycles(),
        });
    }
    rows.sort_by(|a, b| {
        b.fraction("scheduling")
            .total_cmp(&a.fraction("scheduling"))
            .then_with(|| a.workload.cmp(&b.workload))
    });
    Ok(rows)
}

/// The JSON document of the figure.
pub fn to_json(size: Size, cfg: &GpuConfig, rows: &[Row]) -> Value {
    let mut w = serde_json::Map::new();
    for r in rows {
        let cycles: serde_json::Map<String, Value> = FACTORS
            .iter()
            .zip(&r.cycles)
            .map(|(f, v)| (f.0.to_string(), json!(v)))
            .collect();
        let fraction: serde_json::Map<String, Value> = FACTORS
            .iter()
            .map(|f| (f.0.to_string(), json!(r.fraction(f.0))))
            .collect();
        w.insert(
            r.workload.clone(),
            json!({
                "label": abbreviation(&r.workload),
                "warps": r.warps,
                "avg_warp_cycles": r.lifetime,
                "cycles": cycles,
                "fraction": fraction,
                "dominant_stall": r.dominant_stall(),
                "total_cycles": r.total_cycles,
            }),
        );
    }
    json!({
        "experiment": "latency",
        "figure": "document 000 Figure 3.2 (Lee 2017 §3.2.4)",
        "size": size.name(),
        "config": cfg.name,
        "scheduler": "lrr",
        "factors": FACTORS.iter().map(|f| f.0).collect::<Vec<_>>(),
        "order": rows.iter().map(|r| r.workload.clone()).collect::<Vec<_>>(),
        "workloads": w,
    })
}

/// The stacked-bar figure (average warp time per factor, core cycles).
pub fn chart_svg(rows: &[Row]) -> Result<String> {
    let cats: Vec<String> = rows.iter().map(|r| abbreviation(&r.workload)).collect();
    let series: Vec<String> = FACTORS.iter().map(|f| f.1.to_string()).collect();
    // Shares of the warp time, so that short and long workloads compare.
    let values: Vec<Vec<f64>> = rows
        .iter()
        .map(|r| FACTORS.iter().map(|f| r.fraction(f.0)).collect())
        .collect();
    Chart {
        title: "Average warp time by stall factor under RR (Figure 3.2)",
        y_desc: "share of the average warp time",
        categories: &cats,
        series: &series,
        values: &values,
        stacked: true,
        reference: None,
    }
    .svg()
}

/// Runs `experiment latency`.
pub fn run(a: LatencyArgs) -> Result<()> {
    let cfg = crate::cmd::config::resolve(Some(&a.config), &[], &a.set)?;
    let names: Vec<String> = if a.workloads.is_empty() {
        TABLE_3_2.iter().map(|s| s.to_string()).collect()
    } else {
        a.workloads.clone()
    };
    for n in &names {
        crate::cmd::run::find_workload(n)?;
    }
    let refs: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
    let mut opts = Options::default();
    if let Some(j) = a.jobs {
        opts.jobs = j.max(1);
    }
    if a.no_cache {
        opts.cache = None;
    }
    let rows = measure(a.size, &cfg, &refs, &opts)?;
    let svg = a.svg.as_ref().map(|_| chart_svg(&rows)).transpose()?;
    let doc = to_json(a.size, &cfg, &rows);
    write_atomic(&a.json, serde_json::to_string_pretty(&doc)?.as_bytes())
        .with_context(|| format!("writing {}", a.json.display()))?;
    if let (Some(dir), Some(svg)) = (&a.svg, svg) {
        write_atomic(&dir.join("latency.svg"), svg.as_bytes())?;
    }
    println!(
        "{:<9} {:>10} {}",
        "workload",
        "warp cyc",
        FACTORS
            .iter()
            .map(|f| format!("{:>11}", f.1))
            .collect::<String>()
    );
    for r in &rows {
        println!(
            "{:<9} {:>10.0} {}",
            abbreviation(&r.workload),
            r.lifetime,
            FACTORS
                .iter()
                .map(|f| format!("{:>10.1}%", 100.0 * r.fraction(f.0)))
                .collect::<String>()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts() -> Options {
        Options {
            jobs: 2,
            cache: None,
            progress: false,
        }
    }

    fn row<'a>(rows: &'a [Row], w: &str) -> &'a Row {
        rows.iter().find(|r| r.workload == w).expect("workload row")
    }

    /// The invariants of the figure and the parts of claim 1 that hold at the tiny inputs
    /// (every Table 3.2 workload, ~5 s): the factors account for the whole warp time; SC_small
    /// and SC_mid stall mostly on Data$; MYC and NW mostly on instruction fetch and data
    /// hazards (few warps to hide them); control hazards are negligible everywhere; BT and TPF
    /// spend a large share at barriers. (The statements that need realistic inputs are checked
    /// at the small size by the ignored test below; docs/EXPERIMENTS.md has the comparison.)
    ///
    /// Control hazards: below 5% of the warp time everywhere on `gtx480` (GPGPU-Sim 4's hit
    /// paths) and on the default 3.2.0 preset except NW and PF, whose share there is 5.3-5.4%:
    /// their control-hazard cycles per warp are those of `gtx480` (asserted), but 3.2.0's
    /// 1-cycle L1D and 3-cycle shared-memory hits shorten the rest of their warps' time (NW
    /// 12.8k -> 10.5k cycles, PF 11.2k -> 7.9k), so the same branch waits are a larger share.
    /// They stay below 10% (the bound of the small-size test).
    #[test]
    fn claim_1_at_tiny_sizes() {
        let cfg = GpuConfig::preset(DEFAULT_CONFIG).unwrap();
        let rows = measure(Size::Tiny, &cfg, TABLE_3_2, &opts()).unwrap();
        assert_eq!(rows.len(), TABLE_3_2.len());
        let shorter_warps = ["nw", "pf"];
        for r in &rows {
            let sum: f64 = FACTORS.iter().map(|f| r.fraction(f.0)).sum();
            assert!(
                (sum - 1.0).abs() < 1e-9,
                "{}: shares sum to {sum}",
                r.workload
            );
            assert!(r.warps > 0 && r.lifetime > 0.0, "{r:?}");
            let bound = if shorter_warps.contains(&r.workload.as_str()) {
                0.1
            } else {
                0.05
            };
            assert!(
                r.fraction("control") < bound,
                "{}: control {r:?}",
                r.workload
            );
        }
        let v4 = GpuConfig::preset("gtx480").unwrap();
        let old = measure(Size::Tiny, &v4, &shorter_warps, &opts()).unwrap();
        let ci = FACTORS.iter().position(|f| f.0 == "control").unwrap();
        for o in &old {
            let r = row(&rows, &o.workload);
            assert!(o.fraction("control") < 0.05, "gtx480 {}: {o:?}", o.workload);
            let (a, b) = (o.cycles[ci], r.cycles[ci]);
            assert!(
                (a - b).abs() <= 0.03 * a,
                "{}: control cycles per warp {a} on gtx480, {b} on {DEFAULT_CONFIG}",
                o.workload
            );
            assert!(r.lifetime < o.lifetime, "{}: warps not shorter", o.workload);
        }
        for w in ["sc", "sc_mid"] {
            assert_eq!(row(&rows, w).dominant_stall(), "data_miss", "{w}");
        }
        for w in ["myc", "nw"] {
            let r = row(&rows, w);
            assert!(
                r.fraction("fetch") + r.fraction("data_hazard") > 0.5,
                "{w}: {r:?}"
            );
            assert!(
                r.fraction("scheduling") < 0.05,
                "{w}: nothing to hide behind"
            );
        }
        for w in ["bt", "tpf"] {
            assert!(row(&rows, w).fraction("sync") > 0.1, "{w}");
        }
        // Sorted by the hidden (scheduling) share, as the figure.
        assert!(rows
            .windows(2)
            .all(|p| p[0].fraction("scheduling") >= p[1].fraction("scheduling")));
    }

    /// Claim 1 at the small inputs (minutes on 2 cores), on the default (3.2.0) preset; NW's
    /// part is a stated departure there (below).
    #[test]
    #[ignore]
    fn claim_1_at_small_sizes() {
        let cfg = GpuConfig::preset(DEFAULT_CONFIG).unwrap();
        let rows = measure(Size::Small, &cfg, TABLE_3_2, &opts()).unwrap();
        for r in &rows {
            // Negligible: never the main stall, a few percent at most except PF (below).
            if r.workload != "pf" {
                assert!(r.fraction("control") < 0.1, "{}: control", r.workload);
            }
            assert_ne!(r.dominant_stall(), "control", "{}", r.workload);
        }
        // RR hides the most in BP; PTH hides a large share too.
        assert_eq!(rows[0].workload, "bp");
        assert!(row(&rows, "pth").fraction("scheduling") > 0.3);
        // MSHR contention in BFS and SR2.
        assert!(row(&rows, "bfs").fraction("mshr") > 0.1);
        assert!(row(&rows, "sr2").fraction("mshr") > 0.05);
        for w in ["sc", "sc_mid"] {
            assert_eq!(row(&rows, w).dominant_stall(), "data_miss", "{w}");
        }
        let myc = row(&rows, "myc");
        assert!(myc.fraction("fetch") + myc.fraction("data_hazard") > 0.5);
        // NW: the claim (Inst. Fetch + data hazards dominate) holds on `gtx480` (0.16 + 0.41)
        // but not on the default 3.2.0 preset (0.18 + 0.30 = 0.48; Data$ 0.36 is its largest
        // factor; after the CTA dispatcher fix, 308468a): 3.2.0's 3-cycle shared-memory path
        // (GPGPU-Sim 4: 26) shortens the dependent waits of NW's shared-memory wavefront,
        // which are data hazards (5.5k -> 3.4k cycles per warp; docs/EXPERIMENTS.md row 1).
        // Both sides are asserted, so a model change that moves either shows here; on both NW
        // hides nothing (few warps).
        let nw = row(&rows, "nw");
        let v4 = measure(
            Size::Small,
            &GpuConfig::preset("gtx480").unwrap(),
            &["nw", "pf"],
            &opts(),
        )
        .unwrap();
        let nw4 = row(&v4, "nw");
        // PF's divergent CDF search: as many control cycles per warp on both presets (1826 and
        // 1838 after the CTA dispatcher fix, 308468a), below 0.1 of GPGPU-Sim 4's warp, but
        // 3.2.0's short hit paths cut its data hazards (13.7k -> 4.9k cycles per warp), so on
        // the default preset the same cycles are 0.124 of a shorter warp (docs/EXPERIMENTS.md
        // row 1). Asserted as such: a change in PF's control cycles shows here.
        let (pf, pf4) = (row(&rows, "pf"), row(&v4, "pf"));
        let ci = FACTORS.iter().position(|f| f.0 == "control").unwrap();
        assert!(
            (pf.cycles[ci] - pf4.cycles[ci]).abs() <= 0.03 * pf4.cycles[ci],
            "{pf:?} vs {pf4:?}"
        );
        assert!(pf4.fraction("control") < 0.1, "{pf4:?}");
        assert!(pf.lifetime < pf4.lifetime, "{pf:?} vs {pf4:?}");
        assert!(
            pf.fraction("control") < pf.fraction("data_hazard"),
            "{pf:?}"
        );
        assert!(
            nw4.fraction("fetch") + nw4.fraction("data_hazard") > 0.5,
            "{nw4:?}"
        );
        assert!(
            nw.fraction("fetch") + nw.fraction("data_hazard") < 0.5,
            "{nw:?}"
        );
        let dh = FACTORS.iter().position(|f| f.0 == "data_hazard").unwrap();
        assert!(nw.cycles[dh] < 0.8 * nw4.cycles[dh], "{nw:?} vs {nw4:?}");
        for r in [nw, nw4] {
            assert!(r.fraction("scheduling") < 0.1, "{r:?}");
        }
        for w in ["bt", "tpf"] {
            assert!(row(&rows, w).fraction("sync") > 0.1, "{w}");
        }
    }

    #[test]
    fn writes_json_and_svg_and_refuses_unknown_workloads() {
        let dir = tempfile::tempdir().unwrap();
        let json = dir.path().join("out/lat.json");
        let args = |w: &str| LatencyArgs {
            size: Size::Tiny,
            config: DEFAULT_CONFIG.into(),
            set: vec![],
            workloads: vec!["nw".into(), w.into()],
            json: json.clone(),
            svg: Some(dir.path().join("svg")),
            jobs: Some(2),
            no_cache: true,
        };
        let e = run(args("nope")).unwrap_err();
        assert!(format!("{e:#}").contains("known:"), "{e:#}");
        assert!(!json.exists(), "no output for a refused run");
        run(args("bp")).unwrap();
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(v["workloads"]["nw"]["label"], "NW");
        assert_eq!(v["order"].as_array().unwrap().len(), 2);
        let f = &v["workloads"]["bp"]["fraction"];
        let sum: f64 = FACTORS.iter().map(|k| f[k.0].as_f64().unwrap()).sum();
        assert!((sum - 1.0).abs() < 1e-9);
        let svg = std::fs::read_to_string(dir.path().join("svg/latency.svg")).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("Data$") && svg.contains("NW"));
    }
}
