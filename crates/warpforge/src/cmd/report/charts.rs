//! SVG charts of `warpforge report`, drawn with `plotters`' SVG backend (text as SVG `<text>`
//! elements, rendered by the browser).

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Colours of the series, cycled.
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// The colour of series `i`.
pub fn colour(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// One line of [`lines`]: its label, its points and whether it is emphasised (black, thick).
pub type Line = (String, Vec<(f64, f64)>, bool);

/// Width in pixels of the legend column right of each chart.
const LEGEND_W: u32 = 200;

/// Draws a legend of filled boxes in colours `colour(0..)` (or black for `bold` lines) into the
/// column `area`.
fn legend_entries(
    area: &Area,
    names: &[String],
    mark: &dyn Fn(usize, i32) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    for (i, name) in names.iter().enumerate() {
        let y = 50 + 18 * i as i32;
        mark(i, y)?;
        let style = ("sans-serif", 12)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Left, VPos::Center));
        area.draw(&Text::new(name.clone(), (28, y), style))
            .map_err(err)?;
    }
    Ok(())
}

/// A legend of coloured boxes (series `i` in `colour(i)`).
fn legend(area: &Area, names: &[String]) -> anyhow::Result<()> {
    legend_entries(area, names, &|i, y| {
        area.draw(&Rectangle::new(
            [(10, y - 5), (20, y + 5)],
            colour(i).filled(),
        ))
        .map_err(err)
    })
}

/// A legend of line marks (`bold[i]`: black and thick, as drawn).
fn legend_lines(area: &Area, names: &[String], bold: &[bool]) -> anyhow::Result<()> {
    legend_entries(area, names, &|i, y| {
        let (c, w) = if bold[i] { (BLACK, 3) } else { (colour(i), 2) };
        area.draw(&PathElement::new(vec![(6, y), (22, y)], c.stroke_width(w)))
            .map_err(err)
    })
}

fn err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow::anyhow!("drawing chart: {e:?}")
}

/// Grouped bars: `values[g][s]` is series `s` in group `g` (`None`: no bar). A dashed line at
/// `reference` (e.g. 1.0 for normalised values) when given.
pub struct Bars<'a> {
    /// Chart title.
    pub title: &'a str,
    /// Y-axis description.
    pub y_desc: &'a str,
    /// Group labels (x axis).
    pub groups: &'a [String],
    /// Series labels (legend).
    pub series: &'a [String],
    /// Values per group and series.
    pub values: &'a [Vec<Option<f64>>],
    /// Horizontal reference line.
    pub reference: Option<f64>,
}

/// Draws `b` as an SVG document string.
pub fn bars(b: &Bars) -> anyhow::Result<String> {
    let mut svg = String::new();
    let width = (120 + b.groups.len() * (30 + 14 * b.series.len())).clamp(640, 2400) as u32;
    {
        let root: Area =
            SVGBackend::with_string(&mut svg, (width + LEGEND_W, 420)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (plot, legend_area) = root.split_horizontally(width);
        let ymax = b
            .values
            .iter()
            .flatten()
            .flatten()
            .copied()
            .chain(b.reference)
            .filter(|v| v.is_finite())
            .fold(0.0f64, f64::max);
        let ymax = if ymax > 0.0 { ymax * 1.15 } else { 1.0 };
        let n = b.groups.len().max(1) as f64;
        let mut chart = ChartBuilder::on(&plot)
            .caption(b.title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(70)
            .y_label_area_size(60)
            .build_cartesian_2d(0f64..n, 0f64..ymax)
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .y_desc(b.y_desc)
            .draw()
            .map_err(err)?;
        let ns = b.series.len().max(1) as f64;
        for s in 0..b.series.len() {
            let c = colour(s);
            let rects: Vec<_> = b
                .values
                .iter()
                .enumerate()
                .filter_map(|(g, row)| {
                    let v = row.get(s).copied().flatten()?;
                    let x0 = g as f64 + 0.1 + 0.8 * s as f64 / ns;
                    Some(Rectangle::new([(x0, 0.0), (x0 + 0.8 / ns, v)], c.filled()))
                })
                .collect();
            chart.draw_series(rects).map_err(err)?;
        }
        legend(&legend_area, b.series)?;
        if let Some(r) = b.reference {
            chart
                .draw_series(DashedLineSeries::new(
                    vec![(0.0, r), (n, r)],
                    6,
                    4,
                    BLACK.stroke_width(1),
                ))
                .map_err(err)?;
        }
        group_labels(&root, &chart, b.groups)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// Writes `groups` under the x axis of `chart`, one per unit interval, rotated when long.
fn group_labels(
    root: &Area,
    chart: &ChartContext<
        SVGBackend,
        Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
    >,
    groups: &[String],
) -> anyhow::Result<()> {
    let long = groups.iter().any(|g| g.len() > 10) && groups.len() > 4;
    for (g, name) in groups.iter().enumerate() {
        let (px, py) = chart.backend_coord(&(g as f64 + 0.5, 0.0));
        let style = if long {
            ("sans-serif", 11)
                .into_font()
                .transform(FontTransform::Rotate270)
                .color(&BLACK)
                .pos(Pos::new(HPos::Right, VPos::Center))
        } else {
            ("sans-serif", 12)
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Center, VPos::Top))
        };
        root.draw(&Text::new(name.clone(), (px, py + 6), style))
            .map_err(err)?;
    }
    Ok(())
}

/// Lines over a numeric x axis: `lines[i] = (label, points, emphasised)`.
pub fn lines(title: &str, x_desc: &str, y_desc: &str, lines: &[Line]) -> anyhow::Result<String> {
    let mut svg = String::new();
    {
        let root: Area =
            SVGBackend::with_string(&mut svg, (720 + LEGEND_W, 420)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (plot, legend_area) = root.split_horizontally(720);
        let pts = lines
            .iter()
            .flat_map(|l| l.1.iter())
            .filter(|p| p.0.is_finite() && p.1.is_finite());
        let (mut x0, mut x1, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, 0.0f64);
        for &(x, y) in pts {
            x0 = x0.min(x);
            x1 = x1.max(x);
            y1 = y1.max(y);
        }
        if !x0.is_finite() {
            (x0, x1) = (0.0, 1.0);
        }
        if x1 <= x0 {
            x1 = x0 + 1.0;
        }
        let pad = (x1 - x0) * 0.05;
        let mut chart = ChartBuilder::on(&plot)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d((x0 - pad)..(x1 + pad), 0f64..(y1.max(1e-9) * 1.15))
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc(y_desc)
            .draw()
            .map_err(err)?;
        for (i, (_, p, bold)) in lines.iter().enumerate() {
            let c = if *bold { BLACK } else { colour(i) };
            let w = if *bold { 3 } else { 2 };
            chart
                .draw_series(LineSeries::new(p.clone(), c.stroke_width(w)))
                .map_err(err)?;
            chart
                .draw_series(p.iter().map(|&q| Circle::new(q, 3, c.filled())))
                .map_err(err)?;
        }
        let names: Vec<String> = lines.iter().map(|l| l.0.clone()).collect();
        let bold: Vec<bool> = lines.iter().map(|l| l.2).collect();
        legend_lines(&legend_area, &names, &bold)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// Stacked bars: `values[g][s]` is segment `s` of bar `g` (fractions of the bar's total).
pub fn stacks(
    title: &str,
    y_desc: &str,
    bars: &[String],
    segments: &[String],
    values: &[Vec<f64>],
) -> anyhow::Result<String> {
    let mut svg = String::new();
    let width = (140 + bars.len() * 28).clamp(640, 2400) as u32;
    {
        let root: Area =
            SVGBackend::with_string(&mut svg, (width + LEGEND_W, 460)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (plot, legend_area) = root.split_horizontally(width);
        let n = bars.len().max(1) as f64;
        let mut chart = ChartBuilder::on(&plot)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(110)
            .y_label_area_size(60)
            .build_cartesian_2d(0f64..n, 0f64..1.0)
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .y_desc(y_desc)
            .draw()
            .map_err(err)?;
        for s in 0..segments.len() {
            let c = colour(s);
            let rects: Vec<_> = values
                .iter()
                .enumerate()
                .map(|(g, row)| {
                    let below: f64 = row[..s].iter().sum();
                    Rectangle::new(
                        [(g as f64 + 0.15, below), (g as f64 + 0.85, below + row[s])],
                        c.filled(),
                    )
                })
                .collect();
            chart.draw_series(rects).map_err(err)?;
        }
        legend(&legend_area, segments)?;
        group_labels(&root, &chart, bars)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_draw_one_rectangle_per_value_and_every_label() {
        let groups = vec!["bfs".to_string(), "kmn".to_string()];
        let series = vec!["gto".to_string(), "cawa".to_string()];
        let values = vec![vec![Some(1.1), Some(1.2)], vec![Some(0.9), None]];
        let svg = bars(&Bars {
            title: "t",
            y_desc: "speed-up",
            groups: &groups,
            series: &series,
            values: &values,
            reference: Some(1.0),
        })
        .unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..40.min(svg.len())]);
        for label in ["bfs", "kmn", "gto", "cawa"] {
            assert!(
                svg.contains(&format!(">{label}")) || svg.contains(&format!("{label}\n</text>")),
                "label {label}"
            );
        }
        // The 3 bars, the 2 legend swatches and the background at least.
        assert!(svg.matches("<rect").count() >= 6);
    }
}
