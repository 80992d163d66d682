//! The session-25 `fefeed` diagnostic (docs/EXPERIMENTS.md, "Diagnostic: what feeds SH"): on each
//! title's HL mix at `tiny` (the runs of `experiment frame --seeds 1`), FR-FCFS, IM, and IM with
//! ZS's, FE's or both units' reads forced critical at every period (`Marking::AlgorithmWith`, as
//! `mixrun ... with-UNITS`), one line per run of `key=value` figures: FPS, the CPU's weighted
//! speedup (shared over alone IPC, section 8.5, alone runs as the experiment's), the SH-feed
//! causes (`unit_states.sh_feed.causes`), FE's and ZS's states, the stalls on their reads, and
//! FE's vertex/index DRAM reads by class (count, mean latency in memory cycles). A diagnostic; no
//! model change.
//!
//! `cargo run --release -p warpforge-gfx --example fefeed -- TITLE[,TITLE...]`

use warpforge_gfx::pipeline::memif::Marking;
use warpforge_gfx::pipeline::probe::Cause;
use warpforge_gfx::{mix, sim::RunOpts, title};

fn main() {
    let names = std::env::args().nth(1).unwrap_or_else(|| "HDR2".into());
    let kinds: [(&str, &str, Option<[bool; 5]>); 5] = [
        ("frfcfs", "frfcfs", None),
        ("im", "im", None),
        ("im+zs", "im", Some([false, true, false, false, false])),
        ("im+fe", "im", Some([true, false, false, false, false])),
        ("im+fe,zs", "im", Some([true, true, false, false, false])),
    ];
    for name in names.split(',') {
        let t = title::by_name(name).expect("title");
        let i = title::TITLES
            .iter()
            .position(|x| x.name == t.name)
            .expect("listed");
        let opts = RunOpts::sized("tiny").expect("tiny");
        let apps = mix::cpu_mixes(i)[0].1;
        let alone: Vec<f64> = apps
            .iter()
            .map(|a| mix::alone_ipc(a, 16384, opts.mem_div, 2_000_000, 11).expect("alone"))
            .collect();
        for (label, policy, force) in kinds {
            let mut run = mix::baseline(t, opts.clone());
            run.policy = policy.to_string();
            run.cpu = apps.to_vec();
            if policy == "im" {
                run.sets = vec!["policy.seed=1".to_string()];
            }
            if let Some(f) = force {
                run.marking = Marking::AlgorithmWith(f);
            }
            let r = mix::run(&run).expect("run");
            let ws: f64 = r.cpu_ipc.iter().zip(&alone).map(|(x, a)| x / a).sum();
            let s = &r.unit_states;
            let n = s.sh_starved.max(1) as f64;
            let mut line = format!(
                "title={} kind={} complete={} fps={:.4} ws={:.4}",
                t.name, label, r.complete, r.fps, ws
            );
            line += &format!(
                " sh_starved={:.3}",
                s.sh_starved as f64 / s.probes.max(1) as f64
            );
            for c in Cause::ALL {
                line += &format!(" c.{}={:.3}", c.name(), s.cause[c as usize] as f64 / n);
            }
            for (u, un) in [(0usize, "fe"), (1, "zs")] {
                let m = s.samples[u].max(1) as f64;
                line += &format!(
                    " {un}.busy={:.3} {un}.starved={:.3} {un}.blocked={:.3} {un}.wait={:.3} {un}.thr={:.4}",
                    s.busy[u] as f64 / m,
                    s.starved[u] as f64 / m,
                    s.blocked[u] as f64 / m,
                    s.wait_read[u] as f64 / m,
                    s.done[u] / s.peak[u].max(1e-9)
                );
                let g = r.gpu_waits.samples.max(1) as f64;
                line += &format!(
                    " {un}.stall_nc={:.3} {un}.stall_c={:.3}",
                    r.stalls.noncritical[u] as f64 / g,
                    r.stalls.critical[u] as f64 / g
                );
            }
            let w = &r.waits[0];
            let m = w.samples.max(1) as f64;
            line += &format!(
                " few.busy={:.3} few.c={:.3} few.nc={:.3} few.both={:.3} few.unsent={:.3} few.blocked={:.3}",
                w.busy as f64 / m,
                w.wait_critical as f64 / m,
                w.wait_noncritical as f64 / m,
                w.wait_both as f64 / m,
                w.wait_unsent as f64 / m,
                w.blocked as f64 / m
            );
            let (fw, zw) = (&s.fe_when_starved, &s.zs_when_starved);
            line += &format!(
                " fe_shs.c={:.3} fe_shs.nc={:.3} zs_shs.c={:.3} zs_shs.nc={:.3}",
                fw.wait_critical as f64 / fw.samples.max(1) as f64,
                fw.wait_noncritical as f64 / fw.samples.max(1) as f64,
                zw.wait_critical as f64 / zw.samples.max(1) as f64,
                zw.wait_noncritical as f64 / zw.samples.max(1) as f64
            );
            for (k, sn) in [(0usize, "index"), (1, "vertex"), (2, "hiz"), (3, "depth")] {
                let [nc, c] = r.gpu_dram_latency_by_stream[k];
                line += &format!(
                    " lat.{sn}.nc={:.0}/{} lat.{sn}.c={:.0}/{}",
                    nc.0, nc.1, c.0, c.1
                );
            }
            let a = &s.fe_ahead;
            let k = a.samples.max(1) as f64;
            let h = a.head_missing.max(1) as f64;
            line += &format!(
                " la.samples={} la.head_missing={:.3} la.draw_start={:.3} la.next_queued={:.3} la.window={:.2} la.present={:.2} la.pending={:.2} la.missing={:.2} la.lead={:.2} la.cut={:.3} la.draw_blocks={:.1} la.in_flight={:.2}",
                a.samples,
                a.head_missing as f64 / k,
                a.head_missing_draw_start as f64 / h,
                a.head_missing_next_queued as f64 / h,
                a.window as f64 / k,
                a.present as f64 / k,
                a.pending as f64 / k,
                a.missing as f64 / k,
                a.lead as f64 / k,
                a.window_cut as f64 / k,
                a.draw_blocks as f64 / k,
                a.in_flight as f64 / k
            );
            println!("{line}");
        }
    }
}
