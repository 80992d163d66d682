//! `warpforge sweep`, `report` and `compare` end to end on tiny inputs: spec validation before
//! any point runs, a local parallel sweep whose rows equal direct `warpforge run` results,
//! Parquet and CSV tables that agree, resumption (a finished sweep simulates nothing, a
//! SIGKILLed sweep completes every point exactly once), failed points listed with their error,
//! `compare` ratios, and the report page rendered by headless Chromium (skipped with a reason
//! where Chromium is not installed). The Slurm path is in `sweep_slurm.rs`.

mod common;

use common::{s, wf};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// A 4-point tiny sweep: two workloads x two warp schedulers, latency attribution on.
const SCHED_SPEC: &str = r#"
name = "sched"
workloads = ["kmn", "bfs"]
size = "tiny"
set = ["sim.latency_attribution=true"]
[grid]
"core.scheduler" = ["lrr", "gto"]
"#;

/// Reads a CSV into (header, rows).
fn read_csv(p: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_path(p).unwrap();
    let h = r.headers().unwrap().iter().map(str::to_string).collect();
    let rows = r
        .records()
        .map(|x| x.unwrap().iter().map(str::to_string).collect())
        .collect();
    (h, rows)
}

fn col(h: &[String], name: &str) -> usize {
    h.iter()
        .position(|x| x == name)
        .unwrap_or_else(|| panic!("no column `{name}` in {h:?}"))
}

/// Expects the spec refused (exit status 2, every needle in stderr, no panic) before the
/// output directory is created.
fn refused(spec_text: &str, needles: &[&str]) {
    let (_t, out_dir) = common::sweep_refused(spec_text, needles);
    assert!(
        !out_dir.exists(),
        "a refused spec created the output directory"
    );
}

#[test]
fn bad_specs_are_refused_before_any_point_runs() {
    refused(
        "workloads = [\"kmn\"]\nsize = \"tiny\"\n[grid]\n\"core.no_such_key\" = [1, 2]\n",
        &["bad.toml:4", "core.no_such_key", "unknown key"],
    );
    refused(
        "workloads = [\"kmn\"]\nsize = \"tiny\"\n[grid]\n\"core.scheduler\" = []\n",
        &["bad.toml:4", "grid.core.scheduler", "empty list"],
    );
    refused(
        "workloads = [\"kmn\", \"nosuchworkload\"]\nsize = \"tiny\"\n",
        &["bad.toml:1", "workloads", "nosuchworkload"],
    );
    refused(
        "workloads = [\"kmn\"]\nsize = \"tiny\"\nrepetitons = 2\n",
        &["bad.toml:3", "repetitons"],
    );
    refused(
        "workloads = [\"kmn\"]\nsize = \"tiny\"\n[grid]\n\"core.scheduler\" = [\"gto\", \"bogus\"]\n",
        &["bad.toml:4", "core.scheduler", "bogus"],
    );
    refused(
        "workloads = [\"kmn\"]\nsize = \"huge\"\n",
        &["bad.toml:2", "size", "huge"],
    );
    refused("workloads = [\"kmn\"]\nseeds = [1, 2]\n", &["seed_key"]);
}

#[test]
fn local_sweep_matches_direct_runs_resumes_and_compares() {
    let t = tempfile::tempdir().unwrap();
    let spec = write(t.path(), "sched.toml", SCHED_SPEC);
    let dir = t.path().join("out");
    let out = wf()
        .args(["sweep", s(&spec), "--out", s(&dir), "--jobs", "2"])
        .output()
        .unwrap();
    let so = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{so}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(so.contains("4 points, 0 already done, 4 to run"), "{so}");

    let (h, rows) = read_csv(&dir.join("results.csv"));
    assert_eq!(rows.len(), 4);
    let (cw, cs, cc, cst) = (
        col(&h, "workload"),
        col(&h, "core.scheduler"),
        col(&h, "cycles"),
        col(&h, "status"),
    );
    for name in [
        "point",
        "config",
        "rep",
        "point_wall_s",
        "ipc",
        "l1d.hit_rate",
        "stalls.mem_data",
        "avg_mem_latency",
        "latency.lifetime",
        "latency.data_miss",
    ] {
        col(&h, name);
    }
    // Expansion order: workloads outermost, grid values inner.
    let order: Vec<(String, String)> = rows
        .iter()
        .map(|r| (r[cw].clone(), r[cs].clone()))
        .collect();
    assert_eq!(
        order,
        [
            ("kmn", "lrr"),
            ("kmn", "gto"),
            ("bfs", "lrr"),
            ("bfs", "gto")
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
    );
    // Each row equals a direct `warpforge run` of the same point.
    for r in &rows {
        assert_eq!(r[cst], "ok");
        let j = t.path().join("direct.json");
        wf().args([
            "run",
            &r[cw],
            "--mode",
            "timing",
            "--size",
            "tiny",
            "--threads",
            "1",
            "--set",
            &format!("core.scheduler={}", r[cs]),
            "--set",
            "sim.latency_attribution=true",
            "--json",
            s(&j),
        ])
        .assert()
        .success();
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&j).unwrap()).unwrap();
        assert_eq!(
            r[cc],
            v["cycles"].to_string(),
            "cycles of {} {}",
            r[cw],
            r[cs]
        );
        assert_eq!(
            r[col(&h, "l1d.hits")],
            v["l1d"]["hits"].to_string(),
            "l1d.hits of {} {}",
            r[cw],
            r[cs]
        );
    }

    // Parquet holds the same rows and typed columns.
    let f = std::fs::File::open(dir.join("results.parquet")).unwrap();
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(f)
        .unwrap()
        .build()
        .unwrap();
    let batches: Vec<_> = reader.map(|b| b.unwrap()).collect();
    let n: usize = batches.iter().map(|b| b.num_rows()).sum();
    assert_eq!(n, 4);
    let b = &batches[0];
    let cycles = b
        .column_by_name("cycles")
        .unwrap()
        .as_any()
        .downcast_ref::<arrow_array::Int64Array>()
        .expect("cycles is Int64");
    let wl = b
        .column_by_name("workload")
        .unwrap()
        .as_any()
        .downcast_ref::<arrow_array::StringArray>()
        .expect("workload is Utf8");
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(cycles.value(i).to_string(), r[cc]);
        assert_eq!(wl.value(i), r[cw]);
    }
    assert!(b.column_by_name("ipc").unwrap().data_type() == &arrow_schema::DataType::Float64);

    // A second run simulates nothing and leaves the records untouched.
    let rec = std::fs::read_dir(dir.join("points"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .unwrap();
    let before = std::fs::read_to_string(&rec).unwrap();
    let out = wf()
        .args(["sweep", s(&spec), "--out", s(&dir), "--jobs", "2"])
        .output()
        .unwrap();
    let so = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(so.contains("4 already done, 0 to run"), "{so}");
    assert!(!so.contains("ran "), "{so}");
    assert_eq!(std::fs::read_to_string(&rec).unwrap(), before);

    // compare: lrr vs gto of kmn differ in cycles, with the ratio B/A.
    let pid = |wl: &str, sc: &str| {
        rows.iter()
            .find(|r| r[cw] == wl && r[cs] == sc)
            .map(|r| {
                dir.join("points")
                    .join(format!("{}.json", r[col(&h, "point")]))
            })
            .unwrap()
    };
    let (a, b2) = (pid("kmn", "lrr"), pid("kmn", "gto"));
    let out = wf().args(["compare", s(&a), s(&b2)]).output().unwrap();
    let so = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{so}");
    let ca: f64 = rows
        .iter()
        .find(|r| r[cw] == "kmn" && r[cs] == "lrr")
        .unwrap()[cc]
        .parse()
        .unwrap();
    let cb: f64 = rows
        .iter()
        .find(|r| r[cw] == "kmn" && r[cs] == "gto")
        .unwrap()[cc]
        .parse()
        .unwrap();
    let line = so
        .lines()
        .find(|l| l.split_whitespace().next() == Some("cycles"))
        .unwrap_or_else(|| panic!("no cycles line:\n{so}"));
    let ratio: f64 = line.split_whitespace().last().unwrap().parse().unwrap();
    assert!((ratio - cb / ca).abs() < 1e-4, "{line} vs {}", cb / ca);
    assert!(
        !so.lines().any(|l| l.starts_with("wall_s ")),
        "wall time shown without --all"
    );
    let out = wf().args(["compare", s(&a), s(&a)]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("no differences"));
    let out = wf().args(["compare", s(&a), s(&spec)]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));

    // report: an HTML page with inline SVG plots; rendered by Chromium where installed.
    let html = t.path().join("report.html");
    wf().args([
        "report",
        s(&dir),
        "-o",
        s(&html),
        "--baseline",
        "core.scheduler=lrr",
    ])
    .assert()
    .success();
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.matches("<svg").count() >= 4,
        "bars, stalls, latency, caches"
    );
    assert!(page.contains("Latency attribution"));
    assert!(page.contains("geomean"));
    check_rendered(&html, t.path());
    wf().args(["report", s(&dir), "-o", s(&html), "--metric", "nosuch"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("nosuch"));
}

/// Screenshots `html` in headless Chromium and checks that the plots' colours are drawn.
fn check_rendered(html: &Path, tmp: &Path) {
    let Some(chromium) = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|c| {
            std::process::Command::new(c)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
    else {
        println!("skipped: report rendering check: no chromium installed (.ci/run installs Debian's chromium)");
        return;
    };
    let png = tmp.join("shot.png");
    let out = std::process::Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--window-size=1280,1600",
            &format!("--screenshot={}", png.display()),
            &format!("file://{}", html.display()),
        ])
        .output()
        .unwrap();
    assert!(
        png.exists(),
        "no screenshot: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dec = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&png).unwrap()));
    let mut reader = dec.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let ch = info.color_type.samples();
    let px: Vec<&[u8]> = buf[..info.buffer_size()].chunks(ch).collect();
    let near = |p: &[u8], c: [u8; 3]| (0..3).all(|i| (p[i] as i32 - c[i] as i32).abs() <= 8);
    let white = px.iter().filter(|p| near(p, [255, 255, 255])).count();
    // The first two series colours (bars of lrr and gto, stall segments).
    let blue = px.iter().filter(|p| near(p, [31, 119, 180])).count();
    let orange = px.iter().filter(|p| near(p, [255, 127, 14])).count();
    println!(
        "screenshot {}x{}: {white} white, {blue} blue, {orange} orange of {} pixels",
        info.width,
        info.height,
        px.len()
    );
    assert!(white < px.len(), "blank page");
    assert!(
        blue > 500 && orange > 500,
        "plots not drawn (blue {blue}, orange {orange})"
    );
}

#[test]
fn failed_points_are_listed_and_killed_sweeps_complete_each_point_once() {
    let t = tempfile::tempdir().unwrap();
    // htw needs shared memory: 64 B per SM makes its points fail at run time, not at validation.
    let spec = write(
        t.path(),
        "fail.toml",
        "workloads = [\"htw\"]\nsize = \"tiny\"\n[grid]\n\"core.shared_bytes\" = [49152, 64]\n",
    );
    let dir = t.path().join("f");
    let out = wf()
        .args(["sweep", s(&spec), "--out", s(&dir)])
        .output()
        .unwrap();
    let so = String::from_utf8_lossy(&out.stdout);
    let se = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{so}\n{se}");
    assert!(so.contains("1 ok, 1 failed"), "{so}");
    assert!(
        so.contains("failed:") && so.contains("shared memory"),
        "{so}"
    );
    let (h, rows) = read_csv(&dir.join("results.csv"));
    let st: Vec<&str> = rows.iter().map(|r| r[col(&h, "status")].as_str()).collect();
    assert_eq!(st, ["ok", "failed"]);
    assert!(rows[1][col(&h, "error")].contains("shared memory"));
    assert!(rows[1][col(&h, "cycles")].is_empty());

    // SIGKILL a sweep of 12 points after some finished; the restart runs only the rest.
    let spec = write(
        t.path(),
        "k.toml",
        "workloads = [\"kmn\", \"bfs\"]\nsize = \"tiny\"\n[grid]\n\"core.scheduler\" = [\"lrr\", \"gto\", \"two_level\"]\n\"l1d.ways\" = [2, 4]\n",
    );
    let dir = t.path().join("k");
    let exe = assert_cmd::cargo::cargo_bin("warpforge");
    let mut child = std::process::Command::new(&exe)
        .args(["sweep", s(&spec), "--out", s(&dir), "--jobs", "1"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let count = |d: &Path| {
        std::fs::read_dir(d.join("points"))
            .map(|r| {
                r.filter(|e| {
                    let n = e.as_ref().unwrap().file_name();
                    let n = n.to_string_lossy();
                    !n.starts_with('.') && n.ends_with(".json")
                })
                .count()
            })
            .unwrap_or(0)
    };
    let t0 = std::time::Instant::now();
    while count(&dir) < 3 && t0.elapsed().as_secs() < 120 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let done = count(&dir);
    assert!(
        (3..12).contains(&done),
        "{done} points done before the kill"
    );
    let out = wf()
        .args(["sweep", s(&spec), "--out", s(&dir), "--jobs", "2"])
        .output()
        .unwrap();
    let so = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{so}");
    // The point in flight at the kill (if its record was not renamed in) runs again.
    let again = 12 - done;
    assert!(
        so.contains(&format!("{done} already done, {again} to run")),
        "{so}"
    );
    let (h, rows) = read_csv(&dir.join("results.csv"));
    assert_eq!(rows.len(), 12);
    let mut ids: Vec<&str> = rows.iter().map(|r| r[col(&h, "point")].as_str()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 12, "every point exactly once");
    assert!(rows.iter().all(|r| r[col(&h, "status")] == "ok"));
    assert_eq!(count(&dir), 12);
}
