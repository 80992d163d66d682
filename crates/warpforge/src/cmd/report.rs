//! `warpforge report DIR -o report.html`: a self-contained HTML page with SVG plots of a sweep.
//!
//! The page holds, from the sweep's results (the rows of `DIR/results.csv`, rebuilt from the
//! point records so that a running sweep can be reported too):
//! - per-group bars (`--group`, default `workload`) of `--metric` (default `ipc`) normalised to
//!   a baseline (a ratio, 1.0 = baseline), with a `geomean` group over the groups; the bars of
//!   a group are the sweep's variants (its grid values and configs), or the values of `--x`;
//!   the baseline is the first variant, or the rows matching `--baseline KEY=VALUE[,KEY=VALUE]`;
//! - with `--x KEY` on a numeric axis: the normalised metric against that axis, one line per
//!   group and a bold geomean line;
//! - stall stacks: each point's issue-slot stall cycles by reason (`stalls.*`), as fractions,
//!   and, when the sweep ran with `sim.latency_attribution = true`, each point's average warp
//!   lifetime split by factor (`latency.*`, Lee 2017 §3.2, Figure 3.2);
//! - cache and DRAM statistics per point (L1D / L2 hit rates, DRAM row-hit rate and bandwidth
//!   utilisation);
//! - the failed and missing points with their errors, and the table itself.
//!
//! Points run several times (repetitions) or differing in axes that are not shown are combined
//! by their geometric mean.
//!
//! Derived figures (what the experiments compute from two runs):
//! - `--metric speedup` (when the table has no `speedup` column): the baseline's `cycles` over
//!   the point's, a ratio (1.0 = baseline; Lee 2017 §8.2's speed-up over the whole run);
//! - `--subset NAME=A,B,C`: a `geomean NAME` group, the geometric mean over groups A, B, C;
//!   `--subset 'NAME=SERIES>X'` (or `>=`, `<`, `<=`) selects the groups whose normalised value
//!   of series SERIES passes the test, e.g. Ctrl-C's cache-sensitive set `cs=l1d_64k>1.2`;
//! - `--json FILE`: the normalised values, the geomeans and the subsets (members and geomeans)
//!   as JSON, for scripts and tests.

pub mod charts;

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

use super::experiment::stats::geomean_positive;
use super::sweep::table::{Cell, Table};
use super::sweep::Manifest;

/// Arguments of `warpforge report`.
#[derive(clap::Args)]
pub struct Args {
    /// Sweep directory (`warpforge sweep --out DIR`).
    pub dir: PathBuf,
    /// Output HTML file.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Column plotted (any numeric column of results.csv, e.g. `ipc`, `cycles`, `l1d.mpki`).
    #[arg(long, default_value = "ipc")]
    pub metric: String,
    /// Baseline rows, `KEY=VALUE[,KEY=VALUE...]` over the table's columns (e.g.
    /// `core.scheduler=lrr`); default: the first variant of each group.
    #[arg(long)]
    pub baseline: Option<String>,
    /// Column whose values form the bars of a group (and the x axis of the line plot when
    /// numeric); default: every varying axis and config together.
    #[arg(long)]
    pub x: Option<String>,
    /// Column that forms the groups of bars.
    #[arg(long, default_value = "workload")]
    pub group: String,
    /// A geomean over a subset of the groups (repeatable): `NAME=A,B,C` (group names) or
    /// `NAME=SERIES>X` (also `>=`, `<`, `<=`: the groups whose normalised SERIES passes).
    #[arg(long = "subset", value_name = "NAME=GROUPS|RULE")]
    pub subsets: Vec<String>,
    /// Also write the normalised values, geomeans and subsets as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

/// The derived metric `speedup`: the baseline's cycles over the point's.
pub const SPEEDUP: &str = "speedup";

/// A `--subset`: its name and how its groups are chosen.
#[derive(Debug, Clone, PartialEq)]
enum SubsetSel {
    /// Listed group names.
    Groups(Vec<String>),
    /// Groups whose normalised value of `series` compares (`op`) with `threshold`.
    Rule {
        series: String,
        op: &'static str,
        threshold: f64,
    },
}

/// Parses `NAME=A,B,C` or `NAME=SERIES>X`.
fn parse_subset(s: &str) -> anyhow::Result<(String, SubsetSel)> {
    let (name, sel) = s
        .split_once('=')
        .filter(|(n, _)| !n.trim().is_empty())
        .with_context(|| format!("--subset `{s}`: expected NAME=A,B,C or NAME=SERIES>X"))?;
    for op in [">=", "<=", ">", "<"] {
        if let Some((series, x)) = sel.split_once(op) {
            let threshold: f64 = x
                .trim()
                .parse()
                .map_err(|_| anyhow::anyhow!("--subset `{s}`: `{}` is not a number", x.trim()))?;
            return Ok((
                name.trim().to_string(),
                SubsetSel::Rule {
                    series: series.trim().to_string(),
                    op,
                    threshold,
                },
            ));
        }
    }
    let groups: Vec<String> = sel
        .split(',')
        .map(|g| g.trim().to_string())
        .filter(|g| !g.is_empty())
        .collect();
    if groups.is_empty() {
        bail!("--subset `{s}`: no group named");
    }
    Ok((name.trim().to_string(), SubsetSel::Groups(groups)))
}

/// The members of subset `sel` among `groups` with per-group normalised `values`.
fn subset_members(
    sel: &SubsetSel,
    groups: &[String],
    series: &[String],
    values: &[Vec<Option<f64>>],
) -> anyhow::Result<Vec<usize>> {
    match sel {
        SubsetSel::Groups(names) => names
            .iter()
            .map(|n| {
                groups.iter().position(|g| g == n).with_context(|| {
                    format!("--subset: no group `{n}` (groups: {})", groups.join(", "))
                })
            })
            .collect(),
        SubsetSel::Rule {
            series: sname,
            op,
            threshold,
        } => {
            let si = series.iter().position(|s| s == sname).with_context(|| {
                format!(
                    "--subset: no series `{sname}` (series: {})",
                    series.join(", ")
                )
            })?;
            Ok((0..groups.len())
                .filter(|&g| {
                    values[g][si].is_some_and(|v| match *op {
                        ">" => v > *threshold,
                        ">=" => v >= *threshold,
                        "<" => v < *threshold,
                        _ => v <= *threshold,
                    })
                })
                .collect())
        }
    }
}

/// Escapes text for HTML.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Short name of a config (file stem of a path).
fn config_label(c: &str) -> String {
    Path::new(c)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| c.to_string())
}

/// The rows of a sweep table with what the plots need.
struct Rows<'a> {
    table: &'a Table,
    ok: Vec<usize>,
    group: Vec<String>,
    series: Vec<String>,
}

fn cell<'t>(t: &'t Table, r: usize, name: &str) -> &'t Cell {
    static NULL: Cell = Cell::Null;
    t.col(name).map(|c| &t.rows[r][c]).unwrap_or(&NULL)
}

/// First-appearance order of `v`.
fn uniq(v: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for x in v {
        if !out.contains(x) {
            out.push(x.clone());
        }
    }
    out
}

impl<'a> Rows<'a> {
    fn new(t: &'a Table, axes: &[String], args: &Args) -> anyhow::Result<Rows<'a>> {
        if t.col(&args.group).is_none() {
            bail!(
                "--group `{}`: no such column (columns: {})",
                args.group,
                t.names.join(", ")
            );
        }
        if let Some(x) = &args.x {
            if t.col(x).is_none() {
                bail!(
                    "--x `{x}`: no such column (columns: {})",
                    t.names.join(", ")
                );
            }
        }
        let ok: Vec<usize> = (0..t.rows.len())
            .filter(|&r| cell(t, r, "status").text() == "ok")
            .collect();
        // Varying axes (and config) make the default series label.
        let varies = |name: &str| {
            uniq(
                &ok.iter()
                    .map(|&r| cell(t, r, name).text())
                    .collect::<Vec<_>>(),
            )
            .len()
                > 1
        };
        let mut label_cols: Vec<String> = Vec::new();
        if varies("config") && args.group != "config" {
            label_cols.push("config".into());
        }
        for a in axes {
            if varies(a) && *a != args.group {
                label_cols.push(a.clone());
            }
        }
        let mut group = Vec::new();
        let mut series = Vec::new();
        for &r in &ok {
            group.push(cell(t, r, &args.group).text());
            series.push(match &args.x {
                Some(x) => cell(t, r, x).text(),
                None if label_cols.is_empty() => config_label(&cell(t, r, "config").text()),
                None => label_cols
                    .iter()
                    .map(|c| {
                        let v = cell(t, r, c).text();
                        if c == "config" {
                            config_label(&v)
                        } else if label_cols.len() == 1 {
                            v
                        } else {
                            format!("{}={v}", c.rsplit('.').next().unwrap_or(c))
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(" "),
            });
        }
        Ok(Rows {
            table: t,
            ok,
            group,
            series,
        })
    }

    fn value(&self, i: usize, metric: &str) -> Option<f64> {
        cell(self.table, self.ok[i], metric).as_f64()
    }
}

/// Group labels, series labels and `values[group][series]`.
type Grouped = (Vec<String>, Vec<String>, Vec<Vec<Option<f64>>>);

/// The normalised metric: `(groups, series, values[g][s])` (the `speedup` metric is the
/// baseline's cycles over the point's; any other, the point's value over the baseline's).
fn normalised(rows: &Rows, metric: &str, baseline: Option<&str>) -> anyhow::Result<Grouped> {
    let invert = metric == SPEEDUP && rows.table.col(SPEEDUP).is_none();
    let metric = if invert { "cycles" } else { metric };
    let groups = uniq(&rows.group);
    let series = uniq(&rows.series);
    let filter: Vec<(String, String)> = match baseline {
        Some(b) => b
            .split(',')
            .map(|kv| {
                let (k, v) = kv
                    .split_once('=')
                    .with_context(|| format!("--baseline `{kv}`: expected KEY=VALUE"))?;
                if rows.table.col(k.trim()).is_none() {
                    bail!("--baseline: no column `{}`", k.trim());
                }
                Ok((k.trim().to_string(), v.trim().to_string()))
            })
            .collect::<anyhow::Result<_>>()?,
        None => Vec::new(),
    };
    let mut values = Vec::new();
    for g in &groups {
        let in_g: Vec<usize> = (0..rows.ok.len())
            .filter(|&i| &rows.group[i] == g)
            .collect();
        let mean_of = |sel: &dyn Fn(usize) -> bool| {
            geomean_positive(
                &in_g
                    .iter()
                    .filter(|&&i| sel(i))
                    .filter_map(|&i| rows.value(i, metric))
                    .collect::<Vec<_>>(),
            )
        };
        let base = if filter.is_empty() {
            let first = in_g.first().map(|&i| rows.series[i].clone());
            mean_of(&|i| Some(&rows.series[i]) == first.as_ref())
        } else {
            mean_of(&|i| {
                filter
                    .iter()
                    .all(|(k, v)| cell(rows.table, rows.ok[i], k).text() == *v)
            })
        };
        values.push(
            series
                .iter()
                .map(|s| {
                    let (v, b) = (mean_of(&|i| &rows.series[i] == s)?, base?);
                    Some(if invert { b / v } else { v / b })
                })
                .collect::<Vec<_>>(),
        );
    }
    Ok((groups, series, values))
}

/// Per series, the geometric mean of `values` over the groups `members`.
fn geomean_over(
    members: &[usize],
    n_series: usize,
    values: &[Vec<Option<f64>>],
) -> Vec<Option<f64>> {
    (0..n_series)
        .map(|s| {
            geomean_positive(
                &members
                    .iter()
                    .filter_map(|&g| values[g][s])
                    .collect::<Vec<_>>(),
            )
        })
        .collect()
}

/// The derived figures of a report: the normalised values and their geomeans.
struct Derived {
    groups: Vec<String>,
    series: Vec<String>,
    values: Vec<Vec<Option<f64>>>,
    /// Over every group.
    geomean: Vec<Option<f64>>,
    /// `(name, member groups, geomean per series)` of each `--subset`.
    subsets: Vec<(String, Vec<String>, Vec<Option<f64>>)>,
}

impl Derived {
    fn new(rows: &Rows, args: &Args) -> anyhow::Result<Derived> {
        let sels: Vec<(String, SubsetSel)> = args
            .subsets
            .iter()
            .map(|s| parse_subset(s))
            .collect::<anyhow::Result<_>>()?;
        let (groups, series, values) = normalised(rows, &args.metric, args.baseline.as_deref())?;
        let all: Vec<usize> = (0..groups.len()).collect();
        let geomean = geomean_over(&all, series.len(), &values);
        let mut subsets = Vec::new();
        for (name, sel) in &sels {
            let m = subset_members(sel, &groups, &series, &values)?;
            subsets.push((
                name.clone(),
                m.iter().map(|&g| groups[g].clone()).collect(),
                geomean_over(&m, series.len(), &values),
            ));
        }
        Ok(Derived {
            groups,
            series,
            values,
            geomean,
            subsets,
        })
    }

    /// The bars: every group, then `geomean` (with more than one group) and one
    /// `geomean NAME` per subset.
    fn bars(&self) -> (Vec<String>, Vec<Vec<Option<f64>>>) {
        let mut groups = self.groups.clone();
        let mut values = self.values.clone();
        if groups.len() > 1 {
            groups.push("geomean".into());
            values.push(self.geomean.clone());
        }
        for (n, _, g) in &self.subsets {
            groups.push(format!("geomean {n}"));
            values.push(g.clone());
        }
        (groups, values)
    }

    /// The JSON of `--json`.
    fn json(&self, args: &Args) -> serde_json::Value {
        use serde_json::{json, Map, Value};
        let by_series = |v: &[Option<f64>]| -> Value {
            Value::Object(
                self.series
                    .iter()
                    .zip(v)
                    .map(|(s, x)| (s.clone(), x.map_or(Value::Null, |x| json!(x))))
                    .collect::<Map<_, _>>(),
            )
        };
        json!({
            "metric": args.metric,
            "baseline": args.baseline,
            "group": args.group,
            "groups": self.groups,
            "series": self.series,
            "values": self.groups.iter().zip(&self.values)
                .map(|(g, v)| (g.clone(), by_series(v)))
                .collect::<Map<_, _>>(),
            "geomean": by_series(&self.geomean),
            "subsets": self.subsets.iter()
                .map(|(n, m, g)| (n.clone(), json!({"groups": m, "geomean": by_series(g)})))
                .collect::<Map<_, _>>(),
        })
    }
}

fn html_table(t: &Table) -> String {
    let mut s = String::from("<table><thead><tr>");
    for n in &t.names {
        s += &format!("<th>{}</th>", esc(n));
    }
    s += "</tr></thead><tbody>\n";
    for r in &t.rows {
        s += "<tr>";
        for c in r {
            let text = match c {
                Cell::Float(f) => format!("{f:.6}"),
                other => other.text(),
            };
            s += &format!("<td>{}</td>", esc(&text));
        }
        s += "</tr>\n";
    }
    s + "</tbody></table>\n"
}

/// Builds the page and the derived figures' JSON (`--json`) for sweep directory `dir`.
pub fn render(dir: &Path, args: &Args) -> anyhow::Result<(String, serde_json::Value)> {
    let m = Manifest::load(dir)?;
    let t = m.table(dir);
    let rows = Rows::new(&t, &m.axes, args)?;
    if rows.ok.is_empty() {
        bail!("{}: no finished point to report", dir.display());
    }
    let metric_col = if args.metric == SPEEDUP && t.col(SPEEDUP).is_none() {
        "cycles"
    } else {
        args.metric.as_str()
    };
    match t.col(metric_col) {
        Some(_)
            if rows
                .ok
                .iter()
                .any(|&r| cell(&t, r, metric_col).as_f64().is_some()) => {}
        _ => {
            let numeric: Vec<&str> = t
                .names
                .iter()
                .filter(|n| {
                    rows.ok
                        .iter()
                        .any(|&r| matches!(cell(&t, r, n), Cell::Int(_) | Cell::Float(_)))
                })
                .map(String::as_str)
                .collect();
            bail!(
                "--metric `{}`: not a numeric column of the results (numeric columns: {})",
                args.metric,
                numeric.join(", ")
            );
        }
    }
    let mut figs: Vec<(String, String)> = Vec::new();
    let derived = Derived::new(&rows, args)?;
    let (groups, values) = derived.bars();
    let series = derived.series.clone();
    let base_desc = args.baseline.clone().unwrap_or_else(|| {
        format!(
            "{} (first variant)",
            series.first().cloned().unwrap_or_default()
        )
    });
    figs.push((
        format!("{} normalised to baseline {base_desc}", args.metric),
        charts::bars(&charts::Bars {
            title: &format!("{} / baseline", args.metric),
            y_desc: &format!("{} (ratio to baseline)", args.metric),
            groups: &groups,
            series: &series,
            values: &values,
            reference: Some(1.0),
        })?,
    ));
    // Line plot over a numeric --x.
    if let Some(x) = &args.x {
        let xs: Option<Vec<f64>> = series.iter().map(|s| s.parse::<f64>().ok()).collect();
        if let Some(xs) = xs {
            let mut lines: Vec<charts::Line> = Vec::new();
            for (g, row) in groups.iter().zip(&values) {
                let mut pts: Vec<(f64, f64)> = xs
                    .iter()
                    .zip(row)
                    .filter_map(|(&x, v)| Some((x, (*v)?)))
                    .collect();
                pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                lines.push((g.clone(), pts, g.starts_with("geomean")));
            }
            figs.push((
                format!("{} (normalised) against {x}", args.metric),
                charts::lines(
                    &format!("{} / baseline vs {x}", args.metric),
                    x,
                    &format!("{} (ratio)", args.metric),
                    &lines,
                )?,
            ));
        }
    }
    // Per-point labels for the stacks and cache charts.
    let labels: Vec<String> = (0..rows.ok.len())
        .map(|i| format!("{} {}", rows.group[i], rows.series[i]))
        .collect();
    // Idle slots (no warp at all) are not stalls; they would swamp the picture.
    let stall_cols: Vec<&String> = t
        .names
        .iter()
        .filter(|n| n.starts_with("stalls.") && *n != "stalls.idle")
        .collect();
    // Per point, each column's share of the columns' sum, with the segment names (`prefix` cut).
    let shares = |cols: &[&String], prefix: &str| -> (Vec<String>, Vec<Vec<f64>>) {
        let segs = cols
            .iter()
            .map(|n| n.trim_start_matches(prefix).to_string())
            .collect();
        let fr = rows
            .ok
            .iter()
            .map(|&r| {
                let v: Vec<f64> = cols
                    .iter()
                    .map(|n| cell(&t, r, n).as_f64().unwrap_or(0.0))
                    .collect();
                let sum: f64 = v.iter().sum();
                v.iter()
                    .map(|x| if sum > 0.0 { x / sum } else { 0.0 })
                    .collect()
            })
            .collect();
        (segs, fr)
    };
    if !stall_cols.is_empty() {
        let (segs, fr) = shares(&stall_cols, "stalls.");
        figs.push((
            "Stall cycles by reason (fraction of each point's stall cycles; idle slots left out)"
                .into(),
            charts::stacks(
                "stall breakdown",
                "fraction of stall cycles",
                &labels,
                &segs,
                &fr,
            )?,
        ));
    }
    // Latency attribution (`sim.latency_attribution = true`): per-warp cycles by factor.
    let lat_cols: Vec<&String> = t
        .names
        .iter()
        .filter(|n| {
            n.starts_with("latency.")
                && !["latency.warps", "latency.lifetime"].contains(&n.as_str())
        })
        .collect();
    if !lat_cols.is_empty()
        && rows
            .ok
            .iter()
            .any(|&r| cell(&t, r, lat_cols[0]).as_f64().is_some())
    {
        let (segs, fr) = shares(&lat_cols, "latency.");
        figs.push((
            "Latency attribution (fraction of the average warp lifetime by factor, Lee 2017 Fig. 3.2)".into(),
            charts::stacks("latency attribution", "fraction of warp lifetime", &labels, &segs, &fr)?,
        ));
    }
    let cache_cols: Vec<&str> = [
        "l1d.hit_rate",
        "l2.hit_rate",
        "dram.row_hit_rate",
        "dram.bandwidth_utilization",
    ]
    .into_iter()
    .filter(|c| t.col(c).is_some())
    .collect();
    if !cache_cols.is_empty() {
        let vals: Vec<Vec<Option<f64>>> = rows
            .ok
            .iter()
            .map(|&r| cache_cols.iter().map(|c| cell(&t, r, c).as_f64()).collect())
            .collect();
        let names: Vec<String> = cache_cols.iter().map(|s| s.to_string()).collect();
        figs.push((
            "Cache and DRAM statistics (fractions)".into(),
            charts::bars(&charts::Bars {
                title: "cache / DRAM",
                y_desc: "fraction",
                groups: &labels,
                series: &names,
                values: &vals,
                reference: None,
            })?,
        ));
    }
    let status = |w: &str| {
        (0..t.rows.len())
            .filter(|&r| cell(&t, r, "status").text() == w)
            .count()
    };
    let mut html = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>warpforge sweep {name}</title>\n\
<style>body{{font-family:sans-serif;margin:1.5em}}figure{{margin:1em 0}}figure svg{{max-width:100%;height:auto;border:1px solid #ddd}}\
table{{border-collapse:collapse;font-size:12px}}td,th{{border:1px solid #ccc;padding:2px 5px}}.failed{{color:#b00}}</style></head><body>\n\
<h1>Sweep <code>{name}</code></h1>\n<p>{n} points: {ok} ok, {failed} failed, {pending} not run. Metric <code>{metric}</code>, groups <code>{group}</code>.</p>\n",
        name = esc(&m.name),
        n = t.rows.len(),
        ok = status("ok"),
        failed = status("failed"),
        pending = status("pending"),
        metric = esc(&args.metric),
        group = esc(&args.group),
    );
    for (i, (caption, svg)) in figs.iter().enumerate() {
        html += &format!(
            "<h2>{}</h2>\n<figure class=\"plot\" id=\"plot{i}\">\n{svg}\n</figure>\n",
            esc(caption)
        );
    }
    let bad: Vec<usize> = (0..t.rows.len())
        .filter(|&r| cell(&t, r, "status").text() != "ok")
        .collect();
    if !bad.is_empty() {
        html += "<h2 class=\"failed\">Failed or missing points</h2>\n<ul>\n";
        for r in bad {
            html += &format!(
                "<li class=\"failed\"><code>{}</code> {} {}: {}</li>\n",
                esc(&cell(&t, r, "point").text()),
                esc(&cell(&t, r, "workload").text()),
                esc(&cell(&t, r, "status").text()),
                esc(&cell(&t, r, "error").text())
            );
        }
        html += "</ul>\n";
    }
    html += "<h2>Results</h2>\n";
    html += &html_table(&t);
    html += "</body></html>\n";
    Ok((html, derived.json(args)))
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    let (html, json) = render(&args.dir, &args)?;
    if let Some(j) = &args.json {
        super::sweep::point::write_atomic(
            j,
            (serde_json::to_string_pretty(&json)? + "\n").as_bytes(),
        )?;
        println!("wrote {}", j.display());
    }
    super::sweep::point::write_atomic(&args.output, html.as_bytes())?;
    println!("wrote {}", args.output.display());
    Ok(())
}
