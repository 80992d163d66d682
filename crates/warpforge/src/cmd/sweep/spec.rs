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
//! "core.scheduler" = ["lrr", "gto"]   # of all lists (times workloads, configs, variants,
//! "l1d.ways" = [4, 8]                 # seeds, repetitions) is the set of points
//!
//! [variants.rr]                       # optional: named variants, one axis (`variant`) whose
//! "core.scheduler" = "lrr"            # values set several keys at once, in file order
//! [variants.cawa]
//! "core.scheduler" = "gcaws"
//! "l1d.replacement" = "cacp"
//!
//! [needs.caws]                        # optional: the points of variant `caws` run after the
//! from = "rr"                         # point of variant `rr` with the same workload, config,
//! make = "caws_oracle"                # grid values and repetition, with `key` set to the file
//! key = "core.caws.oracle"            # `make` derives from that point's statistics
//! ```
//!
//! Every point's configuration is resolved (preset, `set`, variant, grid values) before
//! anything runs, so an unknown key, a bad value, an empty grid list, an unknown variant or
//! product or an unknown workload is refused up front with the file, the line and the key.

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
    #[serde(default)]
    variants: BTreeMap<String, toml::Spanned<BTreeMap<String, toml::Value>>>,
    #[serde(default)]
    needs: BTreeMap<String, toml::Spanned<RawNeed>>,
}

/// A `[needs.VARIANT]` table as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawNeed {
    from: String,
    make: String,
    key: String,
}

/// A dependency between variants (`[needs.VARIANT]`): the points of `variant` need the product
/// `make` of the point of variant `from` that matches them in everything else, passed as the
/// configuration key `key`.
#[derive(Clone, Debug)]
pub struct NeedSpec {
    /// The dependent variant.
    pub variant: String,
    /// The variant whose points provide.
    pub from: String,
    /// The product (a name of [`super::product::PRODUCTS`]).
    pub make: String,
    /// The configuration key set to the product's path.
    pub key: String,
}

/// A point's dependency on another point of its sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Need {
    /// Id of the point that must finish first.
    pub point: String,
    /// The product made from that point's statistics.
    pub make: String,
    /// The configuration key set to the product's path (inside the sweep directory).
    pub key: String,
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
    /// Named variants in file order, each with its `--set` strings (empty: no variant axis).
    pub variants: Vec<(String, Vec<String>)>,
    /// Dependencies between variants.
    pub needs: Vec<NeedSpec>,
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
    /// The named variant (`[variants.NAME]`), if the spec has a variant axis.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// The variant's overrides, applied after `set` and before `params`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variant_set: Vec<String>,
    /// The point that must finish first and what is derived from it (`[needs]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub needs: Option<Need>,
}

impl Point {
    /// The value of table column `axis`: the variant for `variant`, else a grid value.
    pub fn axis_value(&self, axis: &str) -> Option<&str> {
        if axis == VARIANT_AXIS {
            return self.variant.as_deref();
        }
        self.params
            .iter()
            .find(|(k, _)| k == axis)
            .map(|(_, v)| v.as_str())
    }

    /// Every override of the point in order: `set`, the variant's, the grid values.
    pub fn overrides(&self) -> Vec<String> {
        self.set
            .iter()
            .chain(&self.variant_set)
            .cloned()
            .chain(self.params.iter().map(|(k, v)| format!("{k}={v}")))
            .collect()
    }

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
            for s in self.overrides() {
                a.push("--set".into());
                a.push(s);
            }
        }
        a
    }
}

/// The table column of the variant axis.
pub const VARIANT_AXIS: &str = "variant";

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
        // Named variants, in file order.
        let mut raw_variants: Vec<(&String, &toml::Spanned<BTreeMap<String, toml::Value>>)> =
            raw.variants.iter().collect();
        raw_variants.sort_by_key(|(_, v)| v.span().start);
        let mut variants = Vec::new();
        let mut variant_spans = Vec::new();
        for (name, keys) in raw_variants {
            let mut sets = Vec::new();
            for (k, v) in keys.get_ref() {
                let v = scalar_string(v).ok_or_else(|| {
                    err(
                        keys.span(),
                        &format!("variants.{name}.{k}"),
                        "values must be strings, numbers or booleans".into(),
                    )
                })?;
                if raw.grid.contains_key(k) || raw.seed_key.as_deref() == Some(k) {
                    return Err(err(
                        keys.span(),
                        &format!("variants.{name}.{k}"),
                        format!("`{k}` is also a [grid] or seed key"),
                    ));
                }
                sets.push(format!("{k}={v}"));
            }
            variants.push((name.clone(), sets));
            variant_spans.push(keys.span());
        }
        let mut needs = Vec::new();
        for (variant, n) in &raw.needs {
            let at = |k: &str, msg: String| err(n.span(), &format!("needs.{variant}.{k}"), msg);
            let r = n.get_ref();
            let known = || {
                variants
                    .iter()
                    .map(|(v, _)| v.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            if !raw.variants.contains_key(variant) {
                return Err(err(
                    n.span(),
                    &format!("needs.{variant}"),
                    format!("no variant `{variant}` (variants: {})", known()),
                ));
            }
            if !raw.variants.contains_key(&r.from) || r.from == *variant {
                return Err(at(
                    "from",
                    format!(
                        "`{}` is not another variant (variants: {})",
                        r.from,
                        known()
                    ),
                ));
            }
            if raw.needs.contains_key(&r.from) {
                return Err(at(
                    "from",
                    format!("variant `{}` has needs itself (one level only)", r.from),
                ));
            }
            if super::product::find(&r.make).is_none() {
                return Err(at(
                    "make",
                    format!(
                        "unknown product `{}` (known: {})",
                        r.make,
                        super::product::names().join(", ")
                    ),
                ));
            }
            if raw.variants[variant].get_ref().contains_key(&r.key) || raw.grid.contains_key(&r.key)
            {
                return Err(at(
                    "key",
                    format!("`{}` is also set by the variant or the grid", r.key),
                ));
            }
            needs.push(NeedSpec {
                variant: variant.clone(),
                from: r.from.clone(),
                make: r.make.clone(),
                key: r.key.clone(),
            });
        }
        if mode == "functional"
            && (!grid.is_empty()
                || !raw.set.is_empty()
                || raw.configs.is_some()
                || !variants.is_empty())
        {
            bail!(
                "{file}: keys `grid`, `variants`, `set`, `configs` and `seeds` apply to mode = \"timing\" only"
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
            variants,
            needs,
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
                for ((name, sets), span) in spec.variants.iter().zip(&variant_spans) {
                    let mut probe = cfg.clone();
                    let res = probe
                        .apply_overrides(sets)
                        .and_then(|_| match probe.validate() {
                            // A constraint with a grid axis is checked on the combinations.
                            Err(e)
                                if !sets.iter().any(|s| s.starts_with(&format!("{}=", e.key))) =>
                            {
                                Ok(())
                            }
                            r => r,
                        });
                    res.map_err(|e| {
                        err(
                            span.clone(),
                            &format!("variants.{name}.{}", e.key),
                            format!("{e}"),
                        )
                    })?;
                    for n in spec.needs.iter().filter(|n| n.from == *name) {
                        super::product::find(&n.make)
                            .expect("checked above")
                            .check(&probe)
                            .map_err(|m| {
                                err(
                                    span.clone(),
                                    &format!("variants.{name}"),
                                    format!(
                                        "provides `{}` to variant `{}`: {m}",
                                        n.make, n.variant
                                    ),
                                )
                            })?;
                    }
                }
                for p in spec.points() {
                    if &p.config != c || p.rep != 0 {
                        continue;
                    }
                    let sets: Vec<String> = p
                        .variant_set
                        .iter()
                        .cloned()
                        .chain(p.params.iter().map(|(k, v)| format!("{k}={v}")))
                        .collect();
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
        let variants: Vec<Option<&(String, Vec<String>)>> = if self.variants.is_empty() {
            vec![None]
        } else {
            self.variants.iter().map(Some).collect()
        };
        let mut out: Vec<Point> = Vec::new();
        for w in &self.workloads {
            for c in &self.configs {
                for v in &variants {
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
                                variant: v.map(|v| v.0.clone()),
                                variant_set: v.map(|v| v.1.clone()).unwrap_or_default(),
                                needs: None,
                            };
                            p.id = p.compute_id();
                            out.push(p);
                        }
                    }
                }
            }
        }
        // Dependencies: the provider matches the dependent point in all but the variant.
        for n in &self.needs {
            for i in 0..out.len() {
                if out[i].variant.as_deref() != Some(n.variant.as_str()) {
                    continue;
                }
                let q = &out[i];
                let provider = out
                    .iter()
                    .find(|o| {
                        o.variant.as_deref() == Some(n.from.as_str())
                            && o.workload == q.workload
                            && o.config == q.config
                            && o.params == q.params
                            && o.rep == q.rep
                    })
                    .expect("every variant has the same points")
                    .id
                    .clone();
                out[i].needs = Some(Need {
                    point: provider,
                    make: n.make.clone(),
                    key: n.key.clone(),
                });
                out[i].id = out[i].compute_id();
            }
        }
        out
    }

    /// The table's parameter columns, in order: `variant` (when the spec has variants), then
    /// the grid axes.
    pub fn axes(&self) -> Vec<String> {
        (!self.variants.is_empty())
            .then(|| VARIANT_AXIS.to_string())
            .into_iter()
            .chain(self.grid.iter().map(|(k, _)| k.clone()))
            .collect()
    }
}

impl Point {
    /// The stable identifier of the point's contents (the id of a point without a variant is
    /// what it was before variants existed, so older sweep directories resume).
    fn compute_id(&self) -> String {
        let mut key = serde_json::to_string(&(
            &self.workload,
            &self.size,
            &self.mode,
            &self.config,
            &self.set,
            &self.params,
            self.rep,
        ))
        .expect("serialisable");
        if self.variant.is_some() {
            key += &serde_json::to_string(&(&self.variant, &self.variant_set, &self.needs))
                .expect("serialisable");
        }
        format!("{}-{}", self.workload, stable_hash(&key))
    }
}
