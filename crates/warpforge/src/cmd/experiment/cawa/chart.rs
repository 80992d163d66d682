//! Grouped bar charts (Lee 2017 Figure 4.10 style) as SVG, drawn with `plotters`' SVG backend.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Series colours, cycled.
const COLOURS: [RGBColor; 9] = [
    RGBColor(76, 114, 176),
    RGBColor(221, 132, 82),
    RGBColor(85, 168, 104),
    RGBColor(196, 78, 82),
    RGBColor(129, 114, 179),
    RGBColor(147, 120, 96),
    RGBColor(218, 139, 195),
    RGBColor(140, 140, 140),
    RGBColor(204, 185, 116),
];

/// A grouped bar chart: `values[g][s]` is series `s` in group `g` (`None`: no bar).
pub struct Bars<'a> {
    /// Title.
    pub title: &'a str,
    /// Y-axis label.
    pub y_desc: &'a str,
    /// Group labels along the x axis.
    pub groups: &'a [String],
    /// Series names (legend).
    pub series: &'a [String],
    /// Values by group, then series.
    pub values: &'a [Vec<Option<f64>>],
    /// A dashed horizontal line (1.0 for speed-ups).
    pub reference: Option<f64>,
}

fn e<T: std::fmt::Debug>(x: T) -> anyhow::Error {
    anyhow::anyhow!("drawing the chart: {x:?}")
}

/// The chart as an SVG document.
pub fn bars(b: &Bars) -> anyhow::Result<String> {
    let mut out = String::new();
    let ns = b.series.len().max(1);
    let width = (140 + b.groups.len() * (24 + 10 * ns)).clamp(700, 2400) as u32;
    {
        let root = SVGBackend::with_string(&mut out, (width, 460)).into_drawing_area();
        root.fill(&WHITE).map_err(e)?;
        let top = b
            .values
            .iter()
            .flatten()
            .flatten()
            .copied()
            .chain(b.reference)
            .filter(|v| v.is_finite())
            .fold(0.0f64, f64::max);
        let top = if top > 0.0 { top * 1.2 } else { 1.0 };
        let ng = b.groups.len().max(1) as f64;
        let mut chart = ChartBuilder::on(&root)
            .caption(b.title, ("sans-serif", 18))
            .margin(14)
            .x_label_area_size(40)
            .y_label_area_size(64)
            .build_cartesian_2d(0f64..ng, 0f64..top)
            .map_err(e)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .y_desc(b.y_desc)
            .draw()
            .map_err(e)?;
        let w = 0.8 / ns as f64;
        for (s, name) in b.series.iter().enumerate() {
            let c = COLOURS[s % COLOURS.len()];
            let bars = b.values.iter().enumerate().filter_map(|(g, row)| {
                let v = row.get(s).copied().flatten().filter(|v| v.is_finite())?;
                let x = g as f64 + 0.1 + w * s as f64;
                Some(Rectangle::new([(x, 0.0), (x + w, v)], c.filled()))
            });
            chart
                .draw_series(bars)
                .map_err(e)?
                .label(name.as_str())
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], c.filled()));
        }
        if let Some(r) = b.reference {
            chart
                .draw_series(LineSeries::new(
                    vec![(0.0, r), (ng, r)],
                    BLACK.stroke_width(1),
                ))
                .map_err(e)?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(e)?;
        let style = ("sans-serif", 12)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Top));
        for (g, name) in b.groups.iter().enumerate() {
            let (x, y) = chart.backend_coord(&(g as f64 + 0.5, 0.0));
            root.draw(&Text::new(name.as_str(), (x, y + 8), style.clone()))
                .map_err(e)?;
        }
        root.present().map_err(e)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_one_rectangle_per_value_and_the_labels() {
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
            assert!(svg.contains(&format!("{label}\n</text>")), "label {label}");
        }
        // 3 bars + 2 legend swatches + the background (+ chart frame rectangles).
        assert!(svg.matches("<rect").count() >= 6);
    }
}
