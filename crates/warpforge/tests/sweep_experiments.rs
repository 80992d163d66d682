//! The seed experiments as sweeps (`experiments/*.toml`): named variants and `[needs]`
//! dependencies are validated before any point runs; the two-pass CAWS sweep runs its CAWS
//! points after the RR point whose oracle they read; and `warpforge report`'s derived figures
//! (`--metric speedup`, `--subset`) equal the experiment commands' JSON for the same points at
//! size tiny (CAWS speed-ups, CAWA's Sens/all geomeans, Ctrl-C's CS set and geomeans).

mod common;

use common::{s, wf};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn shipped(name: &str) -> String {
    s(&root().join("experiments").join(name)).to_string()
}

fn read_json(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// Runs `warpforge ARGS` in `dir`, expecting success.
fn ok(dir: &Path, args: &[&str]) {
    let out = wf().current_dir(dir).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "warpforge {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn close(a: &Value, b: &Value, what: &str) {
    let (x, y) = (a.as_f64(), b.as_f64());
    match (x, y) {
        (Some(x), Some(y)) => assert!(
            (x - y).abs() <= 1e-9 * y.abs().max(1.0),
            "{what}: report {x} vs experiment {y}"
        ),
        _ => assert_eq!(a, b, "{what}"),
    }
}

/// Expects the spec refused (exit status 2, every needle in stderr, no panic) with no point run.
fn refused(spec_text: &str, needles: &[&str]) {
    let (_t, out_dir) = common::sweep_refused(spec_text, needles);
    assert!(!out_dir.join("points").exists(), "a point ran");
}

const HEAD: &str = "workloads = [\"bfs\"]\nsize = \"tiny\"\n";

#[test]
fn bad_variants_and_needs_are_refused_with_file_line_and_key() {
    // An unknown key in a variant, on its table's line.
    refused(
        &format!("{HEAD}[variants.a]\n\"core.scheduler\" = \"lrr\"\n[variants.b]\n\"core.no_such\" = 1\n"),
        &["bad.toml:5", "variants.b.core.no_such"],
    );
    // A bad value.
    refused(
        &format!("{HEAD}[variants.a]\n\"core.scheduler\" = \"no_such_scheduler\"\n"),
        &[
            "bad.toml:3",
            "variants.a.core.scheduler",
            "no_such_scheduler",
        ],
    );
    // A variant key that is also a grid axis.
    refused(
        &format!("{HEAD}[grid]\n\"core.scheduler\" = [\"lrr\"]\n[variants.a]\n\"core.scheduler\" = \"gto\"\n"),
        &["variants.a.core.scheduler", "also a [grid]"],
    );
    let two = format!(
        "{HEAD}set = [\"sim.warp_times=true\"]\n[variants.rr]\n\"core.scheduler\" = \"lrr\"\n[variants.c]\n\"core.scheduler\" = \"caws\"\n"
    );
    // Needs: an unknown product, an unknown provider, a dependent that is no variant.
    refused(
        &format!("{two}[needs.c]\nfrom = \"rr\"\nmake = \"no_such\"\nkey = \"core.caws.oracle\"\n"),
        &["needs.c.make", "unknown product `no_such`", "caws_oracle"],
    );
    refused(
        &format!(
            "{two}[needs.c]\nfrom = \"x\"\nmake = \"caws_oracle\"\nkey = \"core.caws.oracle\"\n"
        ),
        &["needs.c.from", "`x` is not another variant", "rr, c"],
    );
    refused(
        &format!(
            "{two}[needs.d]\nfrom = \"rr\"\nmake = \"caws_oracle\"\nkey = \"core.caws.oracle\"\n"
        ),
        &["needs.d", "no variant `d`"],
    );
    // A provider that cannot make the product (no warp times recorded).
    refused(
        &format!("{HEAD}[variants.rr]\n\"core.scheduler\" = \"lrr\"\n[variants.c]\n\"core.scheduler\" = \"caws\"\n[needs.c]\nfrom = \"rr\"\nmake = \"caws_oracle\"\nkey = \"core.caws.oracle\"\n"),
        &["variants.rr", "sim.warp_times = true"],
    );
    // --only naming no point.
    let t = tempfile::tempdir().unwrap();
    let out = wf()
        .args([
            "sweep",
            &shipped("caws.toml"),
            "--out",
            s(&t.path().join("o")),
        ])
        .args(["--only", "variant=nope"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no point has variant = `nope`"));
}

#[test]
fn caws_two_pass_sweep_equals_experiment_caws() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("sw");
    ok(
        t.path(),
        &[
            "sweep",
            &shipped("caws.toml"),
            "--size",
            "tiny",
            "--out",
            s(&dir),
        ],
    );
    // The CAWS points read the oracle made from the RR point's run.
    let m = read_json(&dir.join("sweep.json"));
    let pts = m["points"].as_array().unwrap();
    let rr = pts.iter().find(|p| p["variant"] == "rr").unwrap();
    let mut dependents = 0;
    for p in pts.iter().filter(|p| !p["needs"].is_null()) {
        dependents += 1;
        assert_eq!(p["needs"]["point"], rr["id"]);
        let id = p["id"].as_str().unwrap();
        let log = std::fs::read_to_string(dir.join("logs").join(format!("{id}.log"))).unwrap();
        let rec = read_json(&dir.join("points").join(format!("{id}.json")));
        assert_eq!(rec["status"], "ok", "{log}");
        let oracle = dir
            .join("products")
            .join(format!("{}.caws_oracle.json", rr["id"].as_str().unwrap()));
        assert!(oracle.exists());
        // The oracle holds the RR run's warps.
        let o = read_json(&oracle);
        assert!(!o["kernels"].as_array().unwrap().is_empty());
    }
    assert_eq!(dependents, 3);
    ok(
        t.path(),
        &[
            "report",
            s(&dir),
            "-o",
            "r.html",
            "--metric",
            "speedup",
            "--baseline",
            "variant=rr",
            "--json",
            "r.json",
        ],
    );
    ok(
        t.path(),
        &[
            "experiment",
            "caws",
            "--size",
            "tiny",
            "--no-cache",
            "--json",
            "e.json",
        ],
    );
    let (r, e) = (
        read_json(&t.path().join("r.json")),
        read_json(&t.path().join("e.json")),
    );
    for (name, v) in e["speedup"].as_object().unwrap() {
        close(
            &r["values"]["bfs"][name],
            v,
            &format!("caws speedup {name}"),
        );
    }
    assert_eq!(e["speedup"].as_object().unwrap().len(), 5);
}

#[test]
fn cawa_report_geomeans_equal_experiment_cawa() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("sw");
    ok(
        t.path(),
        &[
            "sweep",
            &shipped("cawa.toml"),
            "--size",
            "tiny",
            "--out",
            s(&dir),
            "--only",
            "workload=bfs,kmn,bp",
            "--only",
            "variant=rr,gto,cawa",
        ],
    );
    ok(
        t.path(),
        &[
            "report",
            s(&dir),
            "-o",
            "r.html",
            "--metric",
            "speedup",
            "--baseline",
            "variant=rr",
            "--subset",
            "sens=bfs,kmn",
            "--json",
            "r.json",
        ],
    );
    ok(
        t.path(),
        &[
            "experiment",
            "cawa",
            "--size",
            "tiny",
            "--no-cache",
            "--policy",
            "gto,cawa",
            "--workload",
            "bfs,kmn,bp",
            "--json",
            "e.json",
        ],
    );
    let (r, e) = (
        read_json(&t.path().join("r.json")),
        read_json(&t.path().join("e.json")),
    );
    assert_eq!(e["sens"], serde_json::json!(["bfs", "kmn"]));
    assert_eq!(r["subsets"]["sens"]["groups"], e["sens"]);
    for p in ["rr", "gto", "cawa"] {
        close(
            &r["subsets"]["sens"]["geomean"][p],
            &e["geomean_sens"][p],
            p,
        );
        close(&r["geomean"][p], &e["geomean_all"][p], p);
        for w in ["bfs", "kmn", "bp"] {
            close(&r["values"][w][p], &e["speedup"][p][w], &format!("{p} {w}"));
        }
    }
}

#[test]
fn ctrlc_report_cs_split_and_geomeans_equal_experiment_ctrlc() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("sw");
    let wls = "bfs,kmn,mm";
    ok(
        t.path(),
        &[
            "sweep",
            &shipped("ctrlc.toml"),
            "--size",
            "tiny",
            "--out",
            s(&dir),
            "--only",
            &format!("workload={wls}"),
        ],
    );
    ok(
        t.path(),
        &[
            "report",
            s(&dir),
            "-o",
            "r.html",
            "--metric",
            "speedup",
            "--baseline",
            "variant=baseline",
            "--subset",
            "cs=l1d_64k>1.2",
            "--subset",
            "ns=l1d_64k<=1.2",
            "--json",
            "r.json",
        ],
    );
    ok(
        t.path(),
        &[
            "experiment",
            "ctrlc",
            "--size",
            "tiny",
            "--no-cache",
            "--no-sweep",
            "--workloads",
            wls,
            "--json",
            "e.json",
        ],
    );
    let (r, e) = (
        read_json(&t.path().join("r.json")),
        read_json(&t.path().join("e.json")),
    );
    assert_eq!(r["subsets"]["cs"]["groups"], e["cs_workloads"]);
    assert_eq!(r["subsets"]["ns"]["groups"], e["ns_workloads"]);
    // At tiny, KMN is cache-sensitive and BFS is not: both subsets are non-trivial.
    assert!(!e["cs_workloads"].as_array().unwrap().is_empty());
    assert!(!e["ns_workloads"].as_array().unwrap().is_empty());
    for c in ["l1d_32k", "l1d_64k", "no_l1d", "pc_bypass", "ctrlc"] {
        close(&r["subsets"]["cs"]["geomean"][c], &e["geomean_cs"][c], c);
        close(&r["geomean"][c], &e["geomean_all"][c], c);
    }
}
