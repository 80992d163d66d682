//! SVG figures of `experiment ctrlc`: the speed-up bars of Figure 5.7 and the reuse-distance
//! histograms of Figure 5.3, drawn with plotters from the experiment's JSON.

use std::path::Path;

use anyhow::{anyhow, Result};
use plotters::prelude::*;
use serde_json::Value;

use super::CONFIGS;

const COLORS: [RGBColor; 5] = [
    RGBColor(166, 206, 227),
    RGBColor(31, 120, 180),
    RGBColor(178, 223, 138),
    RGBColor(251, 154, 153),
    RGBColor(227, 26, 28),
];

fn names(r: &Value, key: &str) -> Vec<String> {
    r[key]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

fn err<E: std::fmt::Debug>(path: &Path) -> impl Fn(E) -> anyhow::Error + '_ {
    move |e| anyhow!("drawing {}: {e:?}", path.display())
}

/// Grouped bars: per workload (then the CS geometric mean), the speed-up of every
/// non-baseline configuration; CS workloads are marked `*`.
pub fn speedup(r: &Value, path: &Path) -> Result<()> {
    let ws = names(r, "workloads");
    let cs = names(r, "cs_workloads");
    let mut groups: Vec<(String, Vec<f64>)> = ws
        .iter()
        .map(|w| {
            let label = if cs.contains(w) {
                format!("{w}*")
            } else {
                w.clone()
            };
            let v = CONFIGS[1..]
                .iter()
                .map(|c| r["speedup"][c][w].as_f64().unwrap_or(0.0))
                .collect();
            (label, v)
        })
        .collect();
    groups.push((
        "GM-CS".into(),
        CONFIGS[1..]
            .iter()
            .map(|c| r["geomean_cs"][c].as_f64().unwrap_or(0.0))
            .collect(),
    ));
    let ymax = groups
        .iter()
        .flat_map(|g| g.1.iter().copied())
        .fold(1.0f64, f64::max)
        * 1.1;
    let e = err(path);
    let root = SVGBackend::new(path, (1400, 500)).into_drawing_area();
    root.fill(&WHITE).map_err(&e)?;
    let n = groups.len();
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "Speed-up over the 16 KB L1D (Lee 2017 Fig. 5.1/5.7)",
            ("sans-serif", 20),
        )
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(0f64..n as f64, 0f64..ymax)
        .map_err(&e)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .light_line_style(TRANSPARENT)
        .y_desc("speed-up")
        .draw()
        .map_err(&e)?;
    let style = ("sans-serif", 11).into_text_style(&root);
    chart
        .draw_series(groups.iter().enumerate().map(|(i, g)| {
            EmptyElement::at((i as f64 + 0.5, 0.0))
                + Text::new(g.0.clone(), (-12, 6), style.clone())
        }))
        .map_err(&e)?;
    let k = CONFIGS.len() - 1;
    let width = 0.8 / k as f64;
    for (ci, c) in CONFIGS[1..].iter().enumerate() {
        let color = COLORS[ci % COLORS.len()];
        chart
            .draw_series(groups.iter().enumerate().map(|(i, g)| {
                let x0 = i as f64 + 0.1 + ci as f64 * width;
                Rectangle::new([(x0, 0.0), (x0 + width, g.1[ci])], color.filled())
            }))
            .map_err(&e)?
            .label(*c)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled()));
    }
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(0.0, 1.0), (n as f64, 1.0)],
            BLACK,
        )))
        .map_err(&e)?;
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(&e)?;
    root.present().map_err(&e)?;
    Ok(())
}

/// One small histogram per workload: the fraction of reused L1D loads per per-set stack
/// distance bin.
pub fn reuse(r: &Value, path: &Path) -> Result<()> {
    let ws = names(r, "workloads");
    let bins = [
        "0", "1", "2-3", "4-7", "8-15", "16-31", "32-63", "64-127", ">=128",
    ];
    let cols = 6;
    let rows = ws.len().div_ceil(cols).max(1);
    let e = err(path);
    let root =
        SVGBackend::new(path, (cols as u32 * 240, rows as u32 * 180 + 40)).into_drawing_area();
    root.fill(&WHITE).map_err(&e)?;
    let (title, body) = root.split_vertically(40);
    title
        .draw_text(
            "L1D reuse distance (per-set stack distance) of reused loads, baseline 16 KB (Lee 2017 Fig. 5.3)",
            &("sans-serif", 18).into_text_style(&title),
            (10, 10),
        )
        .map_err(&e)?;
    let cells = body.split_evenly((rows, cols));
    for (w, cell) in ws.iter().zip(cells.iter()) {
        let fr: Vec<f64> = bins
            .iter()
            .map(|b| {
                r["reuse_distance"][w]["fractions"][b]
                    .as_f64()
                    .unwrap_or(0.0)
            })
            .collect();
        let mut chart = ChartBuilder::on(cell)
            .caption(w.to_uppercase(), ("sans-serif", 14))
            .margin(5)
            .x_label_area_size(20)
            .y_label_area_size(30)
            .build_cartesian_2d(0f64..bins.len() as f64, 0f64..1.0)
            .map_err(&e)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .light_line_style(TRANSPARENT)
            .y_labels(3)
            .draw()
            .map_err(&e)?;
        let style = ("sans-serif", 8).into_text_style(cell);
        chart
            .draw_series(bins.iter().enumerate().map(|(i, b)| {
                EmptyElement::at((i as f64 + 0.5, 0.0)) + Text::new(*b, (-8, 4), style.clone())
            }))
            .map_err(&e)?;
        chart
            .draw_series(fr.iter().enumerate().map(|(i, &v)| {
                Rectangle::new(
                    [(i as f64 + 0.1, 0.0), (i as f64 + 0.9, v)],
                    COLORS[1].filled(),
                )
            }))
            .map_err(&e)?;
    }
    root.present().map_err(&e)?;
    Ok(())
}
