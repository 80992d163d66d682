//! The results table of a sweep: one row per point, written as CSV and Parquet.
//!
//! Columns, in order: `point` (id), `index`, `workload`, `size`, `mode`, `config`, one column
//! per grid axis (named by its `--set` key), `rep`, `status` (`ok`, `failed` or `pending`),
//! `error`, `point_wall_s` (wall time of the point's process, seconds), then every scalar of the
//! run's JSON flattened with dots (`cycles`, `ipc`, `l1d.hit_rate`, `stalls.mem_data`,
//! `power.energy_j`, `wall_s`, ...; of `stats`, the run totals not already at the top level, such
//! as `avg_mem_latency` and `latency.*`, but not the per-kernel entries or `raw` counters), sorted
//! by name. A
//! column whose values are all integers is Int64, all numbers Float64, otherwise Utf8; missing
//! values are null (empty in CSV).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use anyhow::Context;
use serde_json::Value;

use super::point::{write_atomic, Record};
use super::spec::Point;

/// One cell.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// Missing.
    Null,
    /// An integer.
    Int(i64),
    /// A number.
    Float(f64),
    /// Text.
    Text(String),
}

impl Cell {
    /// The cell as a number, if it is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Cell::Int(i) => Some(*i as f64),
            Cell::Float(f) => Some(*f),
            Cell::Text(t) => t.parse().ok(),
            Cell::Null => None,
        }
    }

    /// The cell as CSV / display text.
    pub fn text(&self) -> String {
        match self {
            Cell::Null => String::new(),
            Cell::Int(i) => i.to_string(),
            Cell::Float(f) => f.to_string(),
            Cell::Text(t) => t.clone(),
        }
    }
}

/// A column-major table.
#[derive(Clone, Debug, Default)]
pub struct Table {
    /// Column names.
    pub names: Vec<String>,
    /// Rows, each with one cell per column.
    pub rows: Vec<Vec<Cell>>,
}

/// Flattens the scalars of `v` under `prefix` into `out` (objects with dots; arrays skipped).
pub fn flatten(prefix: &str, v: &Value, out: &mut BTreeMap<String, Cell>) {
    let key = |k: &str| {
        if prefix.is_empty() {
            k.to_string()
        } else {
            format!("{prefix}.{k}")
        }
    };
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                flatten(&key(k), x, out);
            }
        }
        Value::Array(_) => {}
        Value::Null => {
            out.insert(prefix.to_string(), Cell::Null);
        }
        Value::Bool(b) => {
            out.insert(prefix.to_string(), Cell::Text(b.to_string()));
        }
        Value::Number(n) => {
            let c = match n.as_i64() {
                Some(i) => Cell::Int(i),
                None => Cell::Float(n.as_f64().unwrap_or(f64::NAN)),
            };
            out.insert(prefix.to_string(), c);
        }
        Value::String(s) => {
            out.insert(prefix.to_string(), Cell::Text(s.clone()));
        }
    }
}

/// Fixed leading columns (before the axes).
const LEAD: [&str; 6] = ["point", "index", "workload", "size", "mode", "config"];
/// Fixed columns after the axes.
const MID: [&str; 4] = ["rep", "status", "error", "point_wall_s"];

impl Table {
    /// The table of `points` (in order) with their `records` (`None`: not run yet), with
    /// `axes` as parameter columns.
    pub fn build(axes: &[String], points: &[Point], records: &[Option<Record>]) -> Table {
        let mut stats: Vec<BTreeMap<String, Cell>> = Vec::new();
        let mut stat_names = std::collections::BTreeSet::new();
        let fixed: std::collections::BTreeSet<&str> = LEAD
            .iter()
            .chain(MID.iter())
            .copied()
            .chain(axes.iter().map(String::as_str))
            .collect();
        for r in records {
            let mut m = BTreeMap::new();
            if let Some(Value::Object(o)) = r.as_ref().and_then(|r| r.result.as_ref()) {
                for (k, v) in o {
                    if k != "stats" && !fixed.contains(k.as_str()) {
                        flatten(k, v, &mut m);
                    }
                }
                // Run totals that are not repeated at the top level (`avg_mem_latency`, the
                // latency attribution `latency.*` when `sim.latency_attribution` is on); the raw
                // per-component counters are left to the point records.
                if let Some(Value::Object(t)) = o.get("stats").and_then(|s| s.get("total")) {
                    for (k, v) in t {
                        if k != "raw" && !o.contains_key(k) && !fixed.contains(k.as_str()) {
                            flatten(k, v, &mut m);
                        }
                    }
                }
            }
            m.retain(|k, _| !fixed.contains(k.as_str()));
            stat_names.extend(m.keys().cloned());
            stats.push(m);
        }
        let mut names: Vec<String> = LEAD.iter().map(|s| s.to_string()).collect();
        names.extend(axes.iter().cloned());
        names.extend(MID.iter().map(|s| s.to_string()));
        names.extend(stat_names.iter().cloned());
        let mut rows = Vec::new();
        for ((p, r), st) in points.iter().zip(records).zip(stats) {
            let mut row = vec![
                Cell::Text(p.id.clone()),
                Cell::Int(p.index as i64),
                Cell::Text(p.workload.clone()),
                Cell::Text(p.size.clone()),
                Cell::Text(p.mode.clone()),
                Cell::Text(p.config.clone()),
            ];
            for a in axes {
                row.push(
                    p.axis_value(a)
                        .map(|v| Cell::Text(v.to_string()))
                        .unwrap_or(Cell::Null),
                );
            }
            row.push(Cell::Int(p.rep as i64));
            match r {
                Some(r) => {
                    row.push(Cell::Text(r.status.clone()));
                    row.push(r.error.clone().map(Cell::Text).unwrap_or(Cell::Null));
                    row.push(Cell::Float(r.wall_s));
                }
                None => {
                    row.push(Cell::Text("pending".into()));
                    row.push(Cell::Null);
                    row.push(Cell::Null);
                }
            }
            for n in &stat_names {
                row.push(st.get(n).cloned().unwrap_or(Cell::Null));
            }
            rows.push(row);
        }
        Table { names, rows }
    }

    /// Index of column `name`.
    pub fn col(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// The kind of column `c`: 0 = all integers, 1 = all numbers, 2 = text (nulls ignored).
    fn kind(&self, c: usize) -> u8 {
        let mut k = 0;
        for r in &self.rows {
            k = k.max(match &r[c] {
                Cell::Null | Cell::Int(_) => 0,
                Cell::Float(_) => 1,
                Cell::Text(_) => 2,
            });
        }
        k
    }

    /// Writes the table as CSV to `path` (atomically).
    pub fn write_csv(&self, path: &Path) -> anyhow::Result<()> {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(&self.names)?;
        for r in &self.rows {
            w.write_record(r.iter().map(Cell::text))?;
        }
        let bytes = w.into_inner().context("finishing CSV")?;
        write_atomic(path, &bytes)
    }

    /// Writes the table as Parquet (snappy) to `path` (atomically).
    pub fn write_parquet(&self, path: &Path) -> anyhow::Result<()> {
        use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
        use arrow_schema::{DataType, Field, Schema};
        let mut fields = Vec::new();
        let mut cols: Vec<ArrayRef> = Vec::new();
        for (c, name) in self.names.iter().enumerate() {
            let cells = self.rows.iter().map(|r| &r[c]);
            match self.kind(c) {
                0 => {
                    fields.push(Field::new(name, DataType::Int64, true));
                    cols.push(Arc::new(Int64Array::from_iter(cells.map(|x| match x {
                        Cell::Int(i) => Some(*i),
                        _ => None,
                    }))));
                }
                1 => {
                    fields.push(Field::new(name, DataType::Float64, true));
                    cols.push(Arc::new(Float64Array::from_iter(cells.map(Cell::as_f64))));
                }
                _ => {
                    fields.push(Field::new(name, DataType::Utf8, true));
                    cols.push(Arc::new(StringArray::from_iter(cells.map(|x| match x {
                        Cell::Null => None,
                        other => Some(other.text()),
                    }))));
                }
            }
        }
        let schema = Arc::new(Schema::new(fields));
        let batch = RecordBatch::try_new(schema.clone(), cols).context("building Arrow batch")?;
        let props = parquet::file::properties::WriterProperties::builder()
            .set_compression(parquet::basic::Compression::SNAPPY)
            .build();
        let mut buf = Vec::new();
        let mut w = parquet::arrow::ArrowWriter::try_new(&mut buf, schema, Some(props))
            .context("starting Parquet writer")?;
        w.write(&batch).context("writing Parquet")?;
        w.close().context("finishing Parquet")?;
        write_atomic(path, &buf)
    }
}
