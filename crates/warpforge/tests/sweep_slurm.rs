//! `warpforge sweep --slurm` on a real single-node Slurm cluster (munged + slurmctld + slurmd
//! from Debian's packages, started by `scripts/slurm_local.sh` in a private work directory on
//! private ports): the table of a Slurm sweep equals the local sweep's (apart from wall-clock
//! columns), and `--no-wait` + `--collect` gives the same table; a two-pass sweep (CAWS after
//! the RR point whose oracle it reads) runs as two arrays, the second `afterany` the first.
//! `.ci/run` installs the packages; where they are missing, or the test does not run as root
//! (the daemons must), it prints why and skips.

mod common;

use common::{s, wf};
use std::path::{Path, PathBuf};

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/slurm_local.sh")
}

/// Why Slurm cannot run here, if it cannot.
fn missing() -> Option<String> {
    let uid = std::process::Command::new("id").arg("-u").output().ok()?;
    if String::from_utf8_lossy(&uid.stdout).trim() != "0" {
        return Some("not root (slurmd and slurmctld must run as root)".into());
    }
    for bin in [
        "slurmctld",
        "slurmd",
        "sbatch",
        "squeue",
        "scontrol",
        "munged",
        "mungekey",
    ] {
        let found = std::process::Command::new("sh")
            .args(["-c", &format!("command -v {bin}")])
            .output()
            .is_ok_and(|o| o.status.success());
        if !found {
            return Some(format!(
                "`{bin}` not installed (.ci/run installs slurmctld slurmd slurm-client munge)"
            ));
        }
    }
    None
}

/// A running throwaway cluster, stopped on drop.
struct Cluster {
    work: tempfile::TempDir,
    ports: (u16, u16),
}

impl Cluster {
    fn cmd(&self, what: &str) -> std::process::Output {
        std::process::Command::new("bash")
            .arg(script())
            .args(["-w", s(self.work.path()), what])
            .env("SLURM_LOCAL_CTLD_PORT", self.ports.0.to_string())
            .env("SLURM_LOCAL_SLURMD_PORT", self.ports.1.to_string())
            .env("SLURM_LOCAL_CTLD_HOST", "localhost")
            .env("SLURM_LOCAL_NODENAME", "wf-node")
            .output()
            .unwrap()
    }

    fn start() -> Cluster {
        // munged wants every parent of its socket world-executable and not group-writable.
        let work = tempfile::Builder::new()
            .prefix("wf-slurm")
            .tempdir_in("/tmp")
            .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(work.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let base = 21000 + (std::process::id() % 4000) as u16 * 2;
        let c = Cluster {
            work,
            ports: (base, base + 1),
        };
        let out = c.cmd("start");
        assert!(
            out.status.success(),
            "starting Slurm failed:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        c
    }

    fn conf(&self) -> PathBuf {
        self.work.path().join("etc/slurm.conf")
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let out = self.cmd("stop");
        if !out.status.success() {
            eprintln!("stopping Slurm: {}", String::from_utf8_lossy(&out.stderr));
        }
    }
}

/// The CSV without the columns that measure the host (wall times, speed).
fn table(dir: &Path) -> Vec<Vec<(String, String)>> {
    let mut r = csv::Reader::from_path(dir.join("results.csv")).unwrap();
    let h: Vec<String> = r.headers().unwrap().iter().map(str::to_string).collect();
    r.records()
        .map(|rec| {
            h.iter()
                .zip(rec.unwrap().iter())
                .filter(|(k, _)| {
                    !["point_wall_s", "wall_s", "sm_cycles_per_s"].contains(&k.as_str())
                })
                .map(|(k, v)| (k.clone(), v.to_string()))
                .collect()
        })
        .collect()
}

#[test]
fn slurm_sweep_equals_local_sweep() {
    if let Some(why) = missing() {
        println!("skipped: Slurm sweep test: {why}");
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let spec = t.path().join("s.toml");
    std::fs::write(
        &spec,
        "name = \"slurm test\"\nworkloads = [\"kmn\", \"bfs\"]\nsize = \"tiny\"\n[grid]\n\"core.scheduler\" = [\"lrr\", \"gto\"]\n",
    )
    .unwrap();
    let local = t.path().join("local");
    wf().args(["sweep", s(&spec), "--out", s(&local), "--jobs", "2"])
        .assert()
        .success();

    let cluster = Cluster::start();
    let t0 = std::time::Instant::now();
    let remote = t.path().join("slurm");
    let out = wf()
        .env("SLURM_CONF", cluster.conf())
        .args([
            "sweep",
            s(&spec),
            "--out",
            s(&remote),
            "--slurm",
            "--chunk",
            "2",
            "--time",
            "5",
        ])
        .output()
        .unwrap();
    let so = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{so}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        so.contains("submitted 4 point(s) as Slurm job array"),
        "{so}"
    );
    assert!(so.contains("2 task(s)"), "{so}");
    println!(
        "Slurm sweep of 4 points: {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    let slurm_rows = table(&remote);
    assert_eq!(slurm_rows.len(), 4);
    assert_eq!(
        slurm_rows,
        table(&local),
        "Slurm table differs from the local one"
    );
    // The array tasks ran the points (their output files name them).
    let outs: Vec<_> = std::fs::read_dir(remote.join("slurm"))
        .unwrap()
        .filter_map(|e| {
            let n = e.unwrap().file_name().to_string_lossy().into_owned();
            n.ends_with(".out").then_some(n)
        })
        .collect();
    assert_eq!(outs.len(), 2, "{outs:?}");

    // --no-wait returns at once; --collect writes the same table once the tasks are done.
    let nw = t.path().join("nowait");
    let out = wf()
        .env("SLURM_CONF", cluster.conf())
        .args(["sweep", s(&spec), "--out", s(&nw), "--slurm", "--no-wait"])
        .output()
        .unwrap();
    let so = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{so}");
    assert!(so.contains("--collect"), "{so}");
    let t0 = std::time::Instant::now();
    loop {
        let c = wf().args(["sweep", "--collect", s(&nw)]).output().unwrap();
        if c.status.success() {
            break;
        }
        assert!(
            t0.elapsed().as_secs() < 180,
            "no-wait sweep never completed"
        );
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
    assert_eq!(table(&nw), table(&local));
    // Everything done: a second --slurm run submits nothing.
    let out = wf()
        .env("SLURM_CONF", cluster.conf())
        .args(["sweep", s(&spec), "--out", s(&remote), "--slurm"])
        .output()
        .unwrap();
    let so = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{so}");
    assert!(
        so.contains("4 already done, 0 to run") && !so.contains("submitted"),
        "{so}"
    );

    // Two passes (experiments/caws.toml): the CAWS points, which read the oracle of the RR
    // point, are a second array that depends on the first; the table equals the local one.
    let caws = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments/caws.toml");
    let caws_local = t.path().join("caws-local");
    wf().args(["sweep", s(&caws), "--size", "tiny", "--out", s(&caws_local)])
        .args(["--jobs", "2"])
        .assert()
        .success();
    let caws_remote = t.path().join("caws-slurm");
    let out = wf()
        .env("SLURM_CONF", cluster.conf())
        .args([
            "sweep",
            s(&caws),
            "--size",
            "tiny",
            "--out",
            s(&caws_remote),
        ])
        .args(["--slurm", "--time", "5"])
        .output()
        .unwrap();
    let so = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{so}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        so.matches("submitted 3 point(s) as Slurm job array")
            .count(),
        2,
        "{so}"
    );
    let sdir = caws_remote.join("slurm");
    let job1 = std::fs::read_to_string(sdir.join("batch-1.job")).unwrap();
    let script2 = std::fs::read_to_string(sdir.join("batch-2.sh")).unwrap();
    assert!(
        script2.contains(&format!("#SBATCH --dependency=afterany:{}", job1.trim())),
        "{script2}"
    );
    let ids: String = std::fs::read_to_string(sdir.join("batch-2.json")).unwrap();
    assert_eq!(ids.matches("bfs-").count(), 3, "{ids}");
    assert_eq!(table(&caws_remote), table(&caws_local));
    drop(cluster);
}
