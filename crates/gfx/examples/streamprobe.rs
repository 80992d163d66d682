//! Debug probe of the critical marking per stream (issue 16 item 1): runs a title's FR-FCFS
//! baseline with its HL mix at `tiny` exactly as `experiment frame` does, then, for every stream
//! with DRAM reads, the runs with that stream ideal in the LLC (all of it, its critical part, its
//! non-critical part; the frame-rate gate held as claim 3 holds it), and prints per stream its
//! share of the DRAM reads, its critical share and the three FPS gains: a stream whose
//! non-critical part gains as much as its critical part is misclassified. Last, one run with
//! all those streams ideal at once against the sum of their single gains (claim 2, Fig. 4's
//! super-additivity).
//!
//! `cargo run --release -p warpforge-gfx --example streamprobe -- TITLE[,TITLE...] [JOBS]`
use warpforge_gfx::mem::Ideal;
use warpforge_gfx::{mix, sim::RunOpts, stream::Stream, title};

fn main() {
    let names = std::env::args().nth(1).unwrap_or("L4D".into());
    let jobs: usize = std::env::args()
        .nth(2)
        .and_then(|a| a.parse().ok())
        .unwrap_or(2);
    for name in names.split(',') {
        let t = title::by_name(name).expect("title");
        let base = mix::baseline(t, RunOpts::sized("tiny").expect("tiny"));
        let b = mix::run(&base).expect("run");
        let d = &b.dram;
        let total: u64 = d.reads.iter().sum();
        let bn: Vec<String> = b
            .bottleneck_share
            .iter()
            .map(|x| format!("{x:.2}"))
            .collect();
        println!(
            "{name} fps {:.2} bn(FE ZS SH CW BT) [{}] crit {:.3}",
            b.fps,
            bn.join(" "),
            d.total_critical() as f64 / total.max(1) as f64
        );
        let streams: Vec<Stream> = Stream::ALL
            .into_iter()
            .filter(|&s| d.reads[s as usize] * 200 > total)
            .collect();
        let mut runs = Vec::new();
        for &s in &streams {
            let mut m = [false; 8];
            m[s as usize] = true;
            for i in [
                Ideal::Streams(m),
                Ideal::StreamsWith(m, true),
                Ideal::StreamsWith(m, false),
            ] {
                let mut r = base.clone();
                r.ideal = Some(i);
                r.opts.cfg.held_gate = Some(t.below_target());
                runs.push(r);
            }
        }
        let mut all = [false; 8];
        for &s in &streams {
            all[s as usize] = true;
        }
        let mut r = base.clone();
        r.ideal = Some(Ideal::Streams(all));
        r.opts.cfg.held_gate = Some(t.below_target());
        runs.push(r);
        let next = std::sync::atomic::AtomicUsize::new(0);
        let out = std::sync::Mutex::new(vec![0.0; runs.len()]);
        std::thread::scope(|sc| {
            for _ in 0..jobs {
                sc.spawn(|| loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(r) = runs.get(i) else { break };
                    let f = mix::run(r).expect("run").fps;
                    out.lock().unwrap()[i] = f;
                });
            }
        });
        let out = out.into_inner().unwrap();
        for (k, &s) in streams.iter().enumerate() {
            let i = s as usize;
            let g = |j: usize| (out[3 * k + j] / b.fps - 1.0) * 100.0;
            println!(
                "  {:8} reads {:.3} crit {:.3}  ideal all {:+6.1}% crit-part {:+6.1}% noncrit-part {:+6.1}%",
                s.name(),
                d.reads[i] as f64 / total as f64,
                d.critical[i] as f64 / d.reads[i].max(1) as f64,
                g(0),
                g(1),
                g(2)
            );
        }
        let sum: f64 = (0..streams.len())
            .map(|k| (out[3 * k] / b.fps - 1.0) * 100.0)
            .sum();
        println!(
            "  set of these streams ideal {:+6.1}%  sum of their single gains {:+6.1}%",
            (out[3 * streams.len()] / b.fps - 1.0) * 100.0,
            sum
        );
    }
}
