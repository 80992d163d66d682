//! Every workload of the suite runs in timing mode at `tiny` size with its output check passing,
//! and its statistics are identical whether the SMs are stepped on one thread or two, with the
//! one-cycle engine and with a 4-cycle synchronisation window (`sim.window`), plain and with the
//! memory side overlapped (`sim.window_overlap`), and overlapped with the memory side split by
//! partition (`sim.window_partitions`), also with the interconnect off the core clock
//! (`gtx480-cawa`).

use warpforge_simt::Device;
use warpforge_timing::{GpuConfig, KernelStats, TimingRunner};
use warpforge_workloads::{registry, Check, Size};

fn run(w: &dyn warpforge_workloads::Workload, threads: usize) -> Vec<KernelStats> {
    run_window(w, threads, 1)
}

fn run_window(
    w: &dyn warpforge_workloads::Workload,
    threads: usize,
    window: u32,
) -> Vec<KernelStats> {
    run_window_overlap(w, threads, window, false)
}

fn run_window_overlap(
    w: &dyn warpforge_workloads::Workload,
    threads: usize,
    window: u32,
    overlap: bool,
) -> Vec<KernelStats> {
    run_split(w, threads, window, overlap, false)
}

fn run_split(
    w: &dyn warpforge_workloads::Workload,
    threads: usize,
    window: u32,
    overlap: bool,
    partitions: bool,
) -> Vec<KernelStats> {
    run_preset(w, "gtx480", threads, window, overlap, partitions)
}

fn run_preset(
    w: &dyn warpforge_workloads::Workload,
    preset: &str,
    threads: usize,
    window: u32,
    overlap: bool,
    partitions: bool,
) -> Vec<KernelStats> {
    let name = w.info().name;
    let mut dev = Device::new();
    let mut cfg = GpuConfig::preset(preset).unwrap();
    cfg.set("sim.window", &window.to_string()).unwrap();
    cfg.set("sim.window_overlap", &overlap.to_string()).unwrap();
    cfg.set("sim.window_partitions", &partitions.to_string())
        .unwrap();
    dev.set_runner(Box::new(TimingRunner::new(cfg, threads)));
    let check = w
        .run(&mut dev, Size::Tiny)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(check, Check::Passed, "{name}: output check in timing mode");
    let mut r = dev.take_runner().unwrap();
    let t = r.as_any_mut().downcast_mut::<TimingRunner>().unwrap();
    t.kernels().to_vec()
}

#[test]
fn every_workload_passes_and_is_identical_on_one_and_two_threads() {
    let mut n = 0;
    for w in registry() {
        let a = run(w, 1);
        let b = run(w, 2);
        assert!(!a.is_empty(), "{}: no launch simulated", w.info().name);
        assert!(a.iter().all(|k| k.cycles > 0 && k.warp_insts > 0));
        assert_eq!(
            a,
            b,
            "{}: statistics differ between 1 and 2 threads",
            w.info().name
        );
        // The window engine: output check (inside `run_window`), identical for 1 and 2
        // threads; the cycle change is printed (`--nocapture`) for docs/PERFORMANCE.md.
        let c = run_window(w, 1, 4);
        assert_eq!(
            c,
            run_window(w, 2, 4),
            "{}: window 4, statistics differ between 1 and 2 threads",
            w.info().name
        );
        // The overlapped window (`sim.window_overlap`): the same checks.
        let o = run_window_overlap(w, 1, 4, true);
        assert_eq!(
            o,
            run_window_overlap(w, 2, 4, true),
            "{}: overlapped window 4, statistics differ between 1 and 2 threads",
            w.info().name
        );
        // Overlapped and split by memory partition (`sim.window_partitions`): the same.
        let p = run_split(w, 1, 4, true, true);
        assert_eq!(
            p,
            run_split(w, 2, 4, true, true),
            "{}: overlapped window 4 split by partition, statistics differ between 1 and 2 \
             threads",
            w.info().name
        );
        let cyc = |v: &[KernelStats]| v.iter().map(|k| k.cycles).sum::<u64>();
        eprintln!(
            "window4 {} cycles {} -> {} ({:.4}x) overlapped {} ({:.4}x) partitions {} ({:.4}x, \
             {:.4}x of overlapped)",
            w.info().name,
            cyc(&a),
            cyc(&c),
            cyc(&c) as f64 / cyc(&a) as f64,
            cyc(&o),
            cyc(&o) as f64 / cyc(&a) as f64,
            cyc(&p),
            cyc(&p) as f64 / cyc(&a) as f64,
            cyc(&p) as f64 / cyc(&o) as f64
        );
        n += 1;
    }
    assert!(n >= 6);
}

/// The window engine on the GPGPU-Sim 3.2.0 preset `gtx480-cawa`, whose interconnect runs at
/// twice the core clock (1400 MHz): every workload passes its output check with the overlapped
/// window split by partition (a span then has 8 interconnect ticks, more than the 4-cycle
/// latency, so the request network runs before the partitions), with statistics identical on
/// one and two threads.
#[test]
fn every_workload_runs_windowed_with_the_interconnect_at_twice_the_core_clock() {
    let mut n = 0;
    for w in registry() {
        let a = run_preset(w, "gtx480-cawa", 1, 4, true, true);
        assert!(a.iter().all(|k| k.cycles > 0), "{}", w.info().name);
        assert_eq!(
            a,
            run_preset(w, "gtx480-cawa", 2, 4, true, true),
            "{}: gtx480-cawa, overlapped window 4 split by partition, statistics differ \
             between 1 and 2 threads",
            w.info().name
        );
        n += 1;
    }
    assert!(n >= 6);
}

/// More stepping threads than the machine has cores (CI has two): workers are descheduled in
/// the middle of phases and the main thread steps their SMs itself; the statistics must not
/// change (the one-cycle engine, and the overlapped window split by partition).
#[test]
fn oversubscribed_thread_team_gives_identical_statistics() {
    for name in ["bfs", "mm", "nw"] {
        let w = registry()
            .iter()
            .copied()
            .find(|w| w.info().name == name)
            .unwrap();
        let a = run(w, 1);
        for threads in [5, 15] {
            assert_eq!(a, run(w, threads), "{name}: {threads} threads");
        }
        // The split overlapped window: partition jobs wait for the request network, whose
        // thread may be descheduled, and the reply network runs wherever the last partition
        // ends.
        let s = run_split(w, 1, 4, true, true);
        assert_eq!(
            s,
            run_split(w, 5, 4, true, true),
            "{name}: split overlapped window, 5 threads"
        );
    }
}
