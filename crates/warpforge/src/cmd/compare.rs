//! `warpforge compare A.json B.json`: the statistics that differ between two runs.
//!
//! Both files are `warpforge run --json` (or `trace run --json`) results, or sweep point
//! records (`DIR/points/<id>.json`, whose `result` is compared). Every scalar is flattened to a
//! dotted key (`l1d.hit_rate`, `stats.kernels.0.cycles`, ...); the keys whose values differ are
//! printed with both values and the ratio B/A (1.0 = unchanged), then the keys present in only
//! one file. Wall-clock figures (`wall_s`, `sm_cycles_per_s`, `threads`, and `team`: what
//! `--threads auto`'s team did) differ between any two runs and are left out unless `--all` is
//! given. `--tolerance F` hides relative differences up
//! to F.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use serde_json::Value;

/// Arguments of `warpforge compare`.
#[derive(clap::Args)]
pub struct Args {
    /// First run's JSON (the baseline of the ratios).
    pub a: PathBuf,
    /// Second run's JSON.
    pub b: PathBuf,
    /// Also compare wall-clock figures (wall_s, sm_cycles_per_s, threads).
    #[arg(long)]
    pub all: bool,
    /// Hide numeric differences whose relative size |B-A|/max(|A|,|B|) is at most this.
    #[arg(long, default_value_t = 0.0)]
    pub tolerance: f64,
}

/// Keys that measure the host, not the simulated machine.
const WALL_KEYS: [&str; 4] = ["wall_s", "sm_cycles_per_s", "threads", "point_wall_s"];

/// Flattens every scalar of `v` (objects and arrays) into dotted keys.
pub fn flatten_all(prefix: &str, v: &Value, out: &mut BTreeMap<String, Value>) {
    let key = |k: &str| {
        if prefix.is_empty() {
            k.to_string()
        } else {
            format!("{prefix}.{k}")
        }
    };
    match v {
        Value::Object(m) => m.iter().for_each(|(k, x)| flatten_all(&key(k), x, out)),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, x)| flatten_all(&key(&i.to_string()), x, out)),
        x => {
            out.insert(prefix.to_string(), x.clone());
        }
    }
}

fn load(path: &Path) -> anyhow::Result<BTreeMap<String, Value>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut v: Value = serde_json::from_str(&text)
        .with_context(|| format!("{}: not a JSON file", path.display()))?;
    if !v.is_object() {
        bail!(
            "{}: expected a JSON object (a run's --json output)",
            path.display()
        );
    }
    // A sweep point record: compare its run result.
    if v.get("point").is_some() && v.get("result").is_some() {
        v = v["result"].take();
        if v.is_null() {
            bail!("{}: a failed sweep point (no result)", path.display());
        }
    }
    let mut out = BTreeMap::new();
    flatten_all("", &v, &mut out);
    Ok(out)
}

/// One differing key: `(key, a, b, ratio b/a)`.
pub type Diff = (String, Option<Value>, Option<Value>, Option<f64>);

/// The keys of `a` and `b` whose values differ (see the module documentation).
pub fn diff(
    a: &BTreeMap<String, Value>,
    b: &BTreeMap<String, Value>,
    all: bool,
    tolerance: f64,
) -> Vec<Diff> {
    let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    let mut out = Vec::new();
    for k in keys {
        let last = k.rsplit('.').next().unwrap_or(k);
        // `team`: what `--threads auto`'s team did on this host (`run --json`).
        if !all && (WALL_KEYS.contains(&last) || k.starts_with("team.")) {
            continue;
        }
        let (x, y) = (a.get(k), b.get(k));
        if x == y {
            continue;
        }
        let (fx, fy) = (x.and_then(Value::as_f64), y.and_then(Value::as_f64));
        let ratio = match (fx, fy) {
            (Some(p), Some(q)) => {
                let scale = p.abs().max(q.abs());
                if scale > 0.0 && (q - p).abs() / scale <= tolerance {
                    continue;
                }
                (p != 0.0).then(|| q / p)
            }
            _ => None,
        };
        out.push((k.clone(), x.cloned(), y.cloned(), ratio));
    }
    out
}

fn show(v: &Option<Value>) -> String {
    match v {
        None => "-".into(),
        Some(Value::String(s)) => s.clone(),
        Some(x) => x.to_string(),
    }
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    if args.tolerance.is_nan() || args.tolerance < 0.0 {
        bail!("--tolerance must be a non-negative number");
    }
    let a = load(&args.a)?;
    let b = load(&args.b)?;
    let d = diff(&a, &b, args.all, args.tolerance);
    if d.is_empty() {
        println!(
            "no differences ({} keys compared{})",
            a.len().max(b.len()),
            if args.all {
                ""
            } else {
                "; wall-clock figures left out, see --all"
            }
        );
        return Ok(());
    }
    let w = d.iter().map(|x| x.0.len()).max().unwrap_or(3).max(3);
    println!("{:<w$}  {:>20}  {:>20}  {:>10}", "key", "A", "B", "B/A");
    for (k, x, y, r) in &d {
        println!(
            "{k:<w$}  {:>20}  {:>20}  {:>10}",
            show(x),
            show(y),
            r.map(|r| format!("{r:.4}")).unwrap_or_else(|| "-".into())
        );
    }
    println!("{} of {} keys differ", d.len(), a.len().max(b.len()));
    Ok(())
}
