//! SVG bar charts of the chapter experiments (plotters' SVG backend; text as SVG `<text>`).
//! Files are written atomically (temporary file + rename).

use std::path::Path;

use anyhow::{Context, Result};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

const PALETTE: [RGBColor; 9] = [
    RGBColor(31, 119, 180),
    RGBColor(174, 199, 232),
    RGBColor(255, 187, 120),
    RGBColor(214, 39, 40),
    RGBColor(255, 152, 150),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(44, 160, 44),
    RGBColor(127, 127, 127),
];

fn err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow::anyhow!("drawing chart: {e:?}")
}

/// Bars per category: `values[c][s]` is series `s` of category `c`. `stacked`: the series of a
/// category are stacked into one bar (a breakdown); otherwise they stand side by side.
pub struct Chart<'a> {
    /// Title.
    pub title: &'a str,
    /// Y-axis description (with units).
    pub y_desc: &'a str,
    /// Category labels (x axis).
    pub categories: &'a [String],
    /// Series labels (legend).
    pub series: &'a [String],
    /// Values per category and series.
    pub values: &'a [Vec<f64>],
    /// Stack the series.
    pub stacked: bool,
    /// A horizontal reference line (e.g. 1.0 for speed-ups).
    pub reference: Option<f64>,
}

impl Chart<'_> {
    /// The chart as an SVG document.
    pub fn svg(&self) -> Result<String> {
        let mut out = String::new();
        let n = self.categories.len().max(1);
        let width = (160 + n * 56).clamp(640, 2000) as u32;
        {
            let full = SVGBackend::with_string(&mut out, (width + 150, 460)).into_drawing_area();
            full.fill(&WHITE).map_err(err)?;
            // The legend stands right of the plot, never over a bar.
            let (root, legend) = full.split_horizontally(width);
            let top = self
                .values
                .iter()
                .map(|r| {
                    if self.stacked {
                        r.iter().sum::<f64>()
                    } else {
                        r.iter().copied().fold(0.0, f64::max)
                    }
                })
                .chain(self.reference)
                .filter(|v| v.is_finite())
                .fold(0.0f64, f64::max);
            let ymax = if top > 0.0 { top * 1.1 } else { 1.0 };
            let mut chart = ChartBuilder::on(&root)
                .caption(self.title, ("sans-serif", 18))
                .margin(12)
                .x_label_area_size(50)
                .y_label_area_size(70)
                .build_cartesian_2d(0f64..n as f64, 0f64..ymax)
                .map_err(err)?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_labels(0)
                .y_desc(self.y_desc)
                .draw()
                .map_err(err)?;
            let ns = self.series.len().max(1);
            let mut base = vec![0.0f64; n];
            for (s, name) in self.series.iter().enumerate() {
                let c = PALETTE[s % PALETTE.len()];
                let mut rects = Vec::new();
                for (i, row) in self.values.iter().enumerate() {
                    let v = row.get(s).copied().unwrap_or(0.0);
                    let r = if self.stacked {
                        let r = [(i as f64 + 0.15, base[i]), (i as f64 + 0.85, base[i] + v)];
                        base[i] += v;
                        r
                    } else {
                        let x0 = i as f64 + 0.1 + 0.8 * s as f64 / ns as f64;
                        [(x0, 0.0), (x0 + 0.8 / ns as f64, v)]
                    };
                    rects.push(Rectangle::new(r, c.filled()));
                }
                chart.draw_series(rects).map_err(err)?;
                let y = 40 + 20 * s as i32;
                legend
                    .draw(&Rectangle::new([(8, y - 6), (20, y + 6)], c.filled()))
                    .map_err(err)?;
                legend
                    .draw(&Text::new(
                        name.clone(),
                        (26, y),
                        ("sans-serif", 12)
                            .into_font()
                            .color(&BLACK)
                            .pos(Pos::new(HPos::Left, VPos::Center)),
                    ))
                    .map_err(err)?;
            }
            if let Some(r) = self.reference {
                chart
                    .draw_series(LineSeries::new(vec![(0.0, r), (n as f64, r)], BLACK))
                    .map_err(err)?;
            }
            for (i, name) in self.categories.iter().enumerate() {
                let (px, py) = chart.backend_coord(&(i as f64 + 0.5, 0.0));
                let style = ("sans-serif", 12)
                    .into_font()
                    .color(&BLACK)
                    .pos(Pos::new(HPos::Center, VPos::Top));
                root.draw(&Text::new(name.clone(), (px, py + 6), style))
                    .map_err(err)?;
            }
            full.present().map_err(err)?;
        }
        Ok(out)
    }
}

/// Labelled points on two linear axes, with reference lines at 1.0 (speed-up scatter plots).
pub struct Scatter<'a> {
    /// Title.
    pub title: &'a str,
    /// X-axis description.
    pub x_desc: &'a str,
    /// Y-axis description.
    pub y_desc: &'a str,
    /// (label, x, y).
    pub points: &'a [(String, f64, f64)],
}

impl Scatter<'_> {
    /// The chart as an SVG document.
    pub fn svg(&self) -> Result<String> {
        let finite: Vec<&(String, f64, f64)> = self
            .points
            .iter()
            .filter(|p| p.1.is_finite() && p.2.is_finite())
            .collect();
        let span = |f: &dyn Fn(&(String, f64, f64)) -> f64| {
            let lo = finite.iter().map(|p| f(p)).fold(1.0f64, f64::min);
            let hi = finite.iter().map(|p| f(p)).fold(1.0f64, f64::max);
            let pad = ((hi - lo) * 0.15).max(0.02);
            (lo - pad)..(hi + pad)
        };
        let (xr, yr) = (span(&|p| p.1), span(&|p| p.2));
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (720, 520)).into_drawing_area();
            root.fill(&WHITE).map_err(err)?;
            let mut chart = ChartBuilder::on(&root)
                .caption(self.title, ("sans-serif", 18))
                .margin(16)
                .x_label_area_size(44)
                .y_label_area_size(60)
                .build_cartesian_2d(xr.clone(), yr.clone())
                .map_err(err)?;
            chart
                .configure_mesh()
                .x_desc(self.x_desc)
                .y_desc(self.y_desc)
                .draw()
                .map_err(err)?;
            let grey = RGBColor(150, 150, 150);
            chart
                .draw_series(LineSeries::new([(1.0, yr.start), (1.0, yr.end)], grey))
                .map_err(err)?;
            chart
                .draw_series(LineSeries::new([(xr.start, 1.0), (xr.end, 1.0)], grey))
                .map_err(err)?;
            for (i, p) in finite.iter().enumerate() {
                let c = PALETTE[i % PALETTE.len()];
                chart
                    .draw_series(std::iter::once(Circle::new((p.1, p.2), 5, c.filled())))
                    .map_err(err)?;
                chart
                    .draw_series(std::iter::once(Text::new(
                        p.0.clone(),
                        (p.1, p.2),
                        ("sans-serif", 14).into_font().color(&BLACK),
                    )))
                    .map_err(err)?;
            }
            root.present().map_err(err)?;
        }
        Ok(out)
    }
}

/// Writes `bytes` to `path` whole or not at all ([`crate::cmd::write_atomically`]), creating
/// the parent folder first.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(d) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
    }
    crate::cmd::write_atomically(path, bytes)
}
