//! Sweep specification files (`SPEC.toml`) and their expansion into points.
//!
//! ```toml
//! name = "schedulers"                 # optional, used in titles
//! workloads = ["kmn", "bfs"]          # built-in workload names (`warpforge list`)
//! size = "tiny"                       # tiny | small | paper (default small)
//! mode = "timing"                     # timing | functional (default timing)
//! configs = ["gtx480"]                # presets or TOML files (relative to the spec file)
//! set = ["l1d.sets=8"]                # overrides applied to every point (optional)
//! threads = 1                         # simulation threads of each point (default 1)
//! repetitions = 1                     # runs of each point (default 1; column `rep`)
//! seed_key = "some.key"               # optional: a configuration key that takes `seeds`
//! seeds = [1, 2]                      # optional: values of `seed_key`, one grid axis more
//!
//! [grid]                              # `--set` keys and their values; the cross product
//! "core.scheduler" = ["lrr", "gto"]   # of all lists (times workloads, configs, seeds,
//! "l1d.ways" = [4, 8]                 # repetitions) is the set of points
//! ```
//!
//! Every point's configuration is resolved (preset, `set`, grid values) before anything runs,
//! so an unknown key, a bad value, an empty grid list or an unknown workload is refused up
//! front with the file, the line and the key.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};
use warpforge_workloads::Size;

/// The file as written (serde layout).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpec {
    name: Option<String>,
    workloads: toml::Spanned<Vec<String>>,
    size: Option<toml::Spanned<String>>,
    mode: Option<toml::Spanned<String>>,
    configs: Option<toml::Spanned<Vec<String>>>,
    #[serde(default)]
    set: Vec<String>,
    threads: Option<usize>,
    repetitions: Option<toml::Spanned<usize>>,
    seed_key: Option<String>,
    seeds: Option<toml::Spanned<Vec<toml::Value>>>,
    #[serde(default)]
    grid: BTreeMap<String, toml::Spanned<Vec<toml::Value>>>,
}

/// A parsed, validated sweep specification.
#[derive(Clone, Debug)]
pub struct Spec {
    /// Title of the sweep (the file stem when the file names none).
    pub name: String,
    /// Workload names, in the file's order.
    pub workloads: Vec<String>,
    /// Input size of every point.
    pub size: Size,
    /// `timing` or `functional`.
    pub mode: String,
    /// Configuration presets or files (files as absolute paths).
    pub configs: Vec<String>,
    /// Overrides applied to every point before the grid's.
    pub set: Vec<String>,
    /// Simulation threads of each point.
    pub threads: usize,
    /// Runs of each point.
    pub repetitions: usize,
    /// Grid axes in the file's key order (sorted by key; seeds last), each with its values as
    /// `--set` strings.
    pub grid: Vec<(String, Vec<String>)>,
}

/// One simulation of a sweep: what `warpforge run` is called with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// Stable identifier: a hash of everything below, so results survive spec edits.
    pub id: String,
    /// Position in the spec's expansion order.
    pub index: usize,
    /// Workload name.
    pub workload: String,
    /// Size name.
    pub size: String,
    /// `timing` or `functional`.
    pub mode: String,
    /// Configuration preset or file.
    pub config: String,
    /// `(key, value)` of each grid axis, in the spec's axis order.
    pub params: Vec<(String, String)>,
    /// Overrides applied before `params`.
    pub set: Vec<String>,
    /// Repetition number, from 0.
    pub rep: usize,
    /// Simulation threads.
    pub threads: usize,
}

impl Point {
    /// The `warpforge run` arguments of this point, without `--json`.
    pub fn run_args(&self) -> Vec<String> {
        let mut a = vec![
            "run".to_string(),
            self.workload.clone(),
            "--mode".into(),
            self.mode.clone(),
            "--size".into(),
            self.size.clone(),
        ];
        if self.mode == "timing" {
            a.push("--config".into());
            a.push(self.config.clone());
            a.push("--threads".into());
            a.push(self.threads.to_string());
            for s in self
                .set
                .iter()
                .cloned()
                .chain(self.params.iter().map(|(k, v)| format!("{k}={v}")))
            {
                a.push("--set".into());
                a.push(s);
            }
        }
        a
    }
}

/// A TOML scalar as a `--set` value string; `None` for tables and arrays.
fn scalar_string(v: &toml::Value) -> Option<String> {
    match v {
        toml::Value::String(s) => Some(s.clone()),
        toml::Value::Integer(i) => Some(i.to_string()),
        toml::Value::Float(f) => Some(f.to_string()),
        toml::Value::Boolean(b) => Some(b.to_string()),
        toml::Value::Datetime(d) => Some(d.to_string()),
        _ => None,
    }
}

/// 1-based line of byte offset `at` in `text`.
fn line_of(text: &str, at: usize) -> usize {
    text[..at.min(text.len())].matches('\n').count() + 1
}

/// FNV-1a 64-bit hash of `s` as 16 hex digits (stable across builds and platforms).
pub fn stable_hash(s: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

impl Spec {
    /// Reads and validates `path`.
    pub fn load(path: &Path) -> anyhow::Result<Spec> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading sweep spec {}", path.display()))?;
        Self::parse(&text, path)
    }

    /// Parses and validates `text` (read from `path`, used in messages and to resolve config
    /// files relative to the spec).
    pub fn parse(text: &str, path: &Path) -> anyhow::Result<Spec> {
        let file = path.display();
        let raw: RawSpec = toml::from_str(text).map_err(|e| {
            let at = e
                .span()
                .map(|s| format!(":{}", line_of(text, s.start)))
                .unwrap_or_default();
            anyhow::anyhow!("{file}{at}: {}", e.message())
        })?;
        let err = |span: std::ops::Range<usize>, key: &str, msg: String| {
            anyhow::anyhow!("{file}:{}: key `{key}`: {msg}", line_of(text, span.start))
        };
        if raw.workloads.get_ref().is_empty() {
            return Err(err(raw.workloads.span(), "workloads", "empty list".into()));
        }
        for w in raw.workloads.get_ref() {
            if let Err(e) = super::super::run::find_workload(w) {
                return Err(err(raw.workloads.span(), "workloads", format!("{e:#}")));
            }
        }
        let size = match &raw.size {
            Some(s) => s
                .get_ref()
                .parse::<Size>()
                .map_err(|e| err(s.span(), "size", e))?,
            None => Size::Small,
        };
        let mode = match &raw.mode {
            Some(m) if m.get_ref() == "timing" || m.get_ref() == "functional" => {
                m.get_ref().clone()
            }
            Some(m) => {
                return Err(err(
                    m.span(),
                    "mode",
                    format!(
                        "unknown mode `{}` (expected timing or functional)",
                        m.get_ref()
                    ),
                ))
            }
            None => "timing".into(),
        };
        let base = path.parent().unwrap_or(Path::new("."));
        let configs: Vec<String> = match &raw.configs {
            Some(c) if c.get_ref().is_empty() => {
                return Err(err(c.span(), "configs", "empty list".into()))
            }
            Some(c) => c
                .get_ref()
                .iter()
                .map(|n| {
                    if n.ends_with(".toml") {
                        let p = base.join(n);
                        std::fs::canonicalize(&p)
                            .map(|p| p.display().to_string())
                            .map_err(|e| err(c.span(), "configs", format!("{}: {e}", p.display())))
                    } else {
                        Ok(n.clone())
                    }
                })
                .collect::<anyhow::Result<_>>()?,
            None => vec!["gtx480".into()],
        };
        let repetitions = match &raw.repetitions {
            Some(r) if *r.get_ref() == 0 => {
                return Err(err(r.span(), "repetitions", "must be at least 1".into()))
            }
            Some(r) => *r.get_ref(),
            None => 1,
        };
        let threads = raw.threads.unwrap_or(1);
        if threads == 0 {
            bail!("{file}: key `threads`: must be at least 1");
        }
        let mut grid = Vec::new();
        let mut spans = Vec::new();
        for (k, vs) in &raw.grid {
            if vs.get_ref().is_empty() {
                return Err(err(vs.span(), &format!("grid.{k}"), "empty list".into()));
            }
            let vals = vs
                .get_ref()
                .iter()
                .map(|v| {
                    scalar_string(v).ok_or_else(|| {
                        err(
                            vs.span(),
                            &format!("grid.{k}"),
                            "values must be strings, numbers or booleans".into(),
                        )
                    })
                })
                .collect::<anyhow::Result<Vec<_>>>()?;
            grid.push((k.clone(), vals));
            spans.push(vs.span());
        }
        match (&raw.seed_key, &raw.seeds) {
            (Some(k), Some(s)) => {
                if s.get_ref().is_empty() {
                    return Err(err(s.span(), "seeds", "empty list".into()));
                }
                if raw.grid.contains_key(k) {
                    return Err(err(
                        s.span(),
                        "seed_key",
                        format!("`{k}` is also a [grid] key"),
                    ));
                }
                let vals = s
                    .get_ref()
                    .iter()
                    .map(|v| scalar_string(v).unwrap_or_default())
                    .collect();
                grid.push((k.clone(), vals));
                spans.push(s.span());
            }
            (None, Some(s)) => {
                return Err(err(
                    s.span(),
                    "seeds",
                    "needs `seed_key`, the configuration key the seeds are set on".into(),
                ))
            }
            (Some(_), None) => bail!("{file}: key `seed_key`: given without `seeds`"),
            (None, None) => {}
        }
        if mode == "functional"
            && (!grid.is_empty() || !raw.set.is_empty() || raw.configs.is_some())
        {
            bail!(
                "{file}: keys `grid`, `set`, `configs` and `seeds` apply to mode = \"timing\" only"
            );
        }
        let spec = Spec {
            name: raw.name.clone().unwrap_or_else(|| {
                path.file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "sweep".into())
            }),
            workloads: raw.workloads.get_ref().clone(),
            size,
            mode,
            configs,
            set: raw.set.clone(),
            threads,
            repetitions,
            grid,
        };
        // Resolve every configuration once per (config, axis value) so that a bad key or value
        // is refused before any point runs, naming the key and its line; then every combination
        // (cross-field constraints).
        if spec.mode == "timing" {
            for c in &spec.configs {
                let cfg = super::super::config::resolve(Some(c), &[], &spec.set)
                    .map_err(|e| anyhow::anyhow!("{file}: configs `{c}` with `set`: {e:#}"))?;
                for ((k, vals), span) in spec.grid.iter().zip(&spans) {
                    for v in vals {
                        let mut probe = cfg.clone();
                        let res = probe.set(k, v).and_then(|_| match probe.validate() {
                            // A constraint between axes is checked on the combinations below.
                            Err(e) if e.key != *k => Ok(()),
                            r => r,
                        });
                        res.map_err(|e| {
                            err(
                                span.clone(),
                                &format!("grid.{k}"),
                                format!("value `{v}`: {e}"),
                            )
                        })?;
                    }
                }
                for p in spec.points() {
                    if &p.config != c || p.rep != 0 {
                        continue;
                    }
                    let sets: Vec<String> =
                        p.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    let mut probe = cfg.clone();
                    probe
                        .apply_overrides(&sets)
                        .and_then(|_| probe.validate())
                        .map_err(|e| {
                            anyhow::anyhow!("{file}: configs `{c}` with {}: {e}", sets.join(" "))
                        })?;
                }
            }
        }
        Ok(spec)
    }

    /// The points, in order: workloads outermost, then configs, then grid axes (first axis
    /// outermost), repetitions innermost.
    pub fn points(&self) -> Vec<Point> {
        let mut combos: Vec<Vec<(String, String)>> = vec![Vec::new()];
        for (k, vals) in &self.grid {
            combos = combos
                .into_iter()
                .flat_map(|c| {
                    vals.iter().map(move |v| {
                        let mut c = c.clone();
                        c.push((k.clone(), v.clone()));
                        c
                    })
                })
                .collect();
        }
        let mut out = Vec::new();
        for w in &self.workloads {
            for c in &self.configs {
                for params in &combos {
                    for rep in 0..self.repetitions {
                        let mut p = Point {
                            id: String::new(),
                            index: out.len(),
                            workload: w.clone(),
                            size: self.size.name().to_string(),
                            mode: self.mode.clone(),
                            config: c.clone(),
                            params: params.clone(),
                            set: self.set.clone(),
                            rep,
                            threads: self.threads,
                        };
                        let key = serde_json::to_string(&(
                            &p.workload,
                            &p.size,
                            &p.mode,
                            &p.config,
                            &p.set,
                            &p.params,
                            p.rep,
                        ))
                        .expect("serialisable");
                        p.id = format!("{}-{}", p.workload, stable_hash(&key));
                        out.push(p);
                    }
                }
            }
        }
        out
    }

    /// The grid axis names (the table's parameter columns), in order.
    pub fn axes(&self) -> Vec<String> {
        self.grid.iter().map(|(k, _)| k.clone()).collect()
    }
}
