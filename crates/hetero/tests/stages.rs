//! The per-stage breakdown of read latency (`MemSystem::read_stages`): on a hand-built burst of
//! GPU read misses followed by one CPU read, every LLC-missing read's stages add up to the
//! latency the requester measured, the controller stages agree with `wait_stats`, and the CPU
//! read's wait is where the structure puts it (the full LLC MSHR pool, then the reads ahead of
//! it at the controller).

use warpforge_hetero::{HeteroConfig, MemSystem, Request, Source};

/// Issues `gpu` GPU read misses (distinct blocks, one DRAM row apart so that none is a row hit
/// of another) and, 50 cycles later, one CPU read miss, and runs until all have completed.
fn burst(cfg: &HeteroConfig, gpu: u64) -> MemSystem {
    let mut m = MemSystem::new(cfg);
    for i in 0..gpu {
        // 8 KB rows: i * 8 KB * 2 channels * 8 banks walks rows, channels and banks.
        m.issue(Request::read(i, i * 8192, Source::Gpgpu));
    }
    // The CPU read comes after every GPU lookup has been made.
    let mut t = 50;
    m.advance_to(t);
    let mut done = m.drain_completions().count() as u64;
    m.issue(Request::read(gpu, 0x7_0000_0000, Source::Cpu(0)));
    while done < gpu + 1 {
        t += 1;
        m.advance_to(t);
        done += m.drain_completions().count() as u64;
        assert!(t < 10_000_000, "requests never completed");
    }
    m
}

#[test]
fn stages_add_up_to_the_measured_latency_of_every_miss() {
    for (fifo, queue) in [("false", "64"), ("true", "32")] {
        let mut c = HeteroConfig::preset("hetero").unwrap();
        c.set("dram.fifo_admission", fifo).unwrap();
        c.set("dram.read_queue", queue).unwrap();
        // 600 GPU misses: more than the 512 LLC MSHRs, so the last ones wait for one.
        let m = burst(&c, 600);
        let (gs, cs) = m.read_stages();
        let (gw, cw) = m.wait_stats();
        for (s, w, src, n) in [(gs, gw, Source::Gpgpu, 600), (cs, cw, Source::Cpu(0), 1)] {
            assert_eq!(s.misses, n, "fifo={fifo}");
            assert_eq!(s.merged, 0);
            let sum = s.lookup + s.llc_mshr_wait + s.to_mc + s.front + s.queue + s.dram + s.back;
            assert_eq!(sum, s.latency, "fifo={fifo}: stages {s:?}");
            assert_eq!(s.latency, m.source_stat(src).latency_sum, "fifo={fifo}");
            assert_eq!(s.front, w.front_cycles);
            assert_eq!(s.queue, w.queue_cycles);
            // DRAM service: at least tCL + burst (18 DRAM cycles, 67 CPU cycles) per read.
            assert!(s.dram >= 67 * n, "fifo={fifo}: {s:?}");
        }
        // 88 GPU misses found every MSHR busy; the CPU read, issued last, too.
        assert!(gs.llc_mshr_wait > 0, "fifo={fifo}: {gs:?}");
        assert!(cs.llc_mshr_wait > 0, "fifo={fifo}: {cs:?}");
        // No write traffic: no drain.
        assert_eq!(cw.drain_dram_cycles, 0);
    }
}

/// `wait_stats_by_class` splits the GPU's `wait_stats` by the criticality bit (session 20,
/// diagnostic of spec 004 claims 7-8): CG plus NG is the GPU's entry field by field, the CPU
/// class is the CPU's entry, and each read lands in the class it was marked with.
#[test]
fn waits_by_class_split_the_gpu_side_by_the_critical_bit() {
    let m = marked_burst(|i| i % 4 == 0);
    let (g, cpu) = m.wait_stats();
    let [cg, ng, cc] = m.wait_stats_by_class();
    assert_eq!((cg.reads, ng.reads, cc.reads), (50, 150, 1));
    assert_eq!(cc, cpu);
    assert_eq!(cg.front_cycles + ng.front_cycles, g.front_cycles);
    assert_eq!(cg.queue_cycles + ng.queue_cycles, g.queue_cycles);
    assert_eq!(cg.row_hits + ng.row_hits, g.row_hits);
    for k in 0..3 {
        assert_eq!(
            cg.passed_by[k] + ng.passed_by[k],
            g.passed_by[k],
            "class {k}"
        );
        assert_eq!(
            cg.ahead_queue[k] + ng.ahead_queue[k],
            g.ahead_queue[k],
            "class {k}"
        );
    }
}

/// Issues 200 GPU read misses, each critical iff `crit(i)`, and one CPU read miss, and runs
/// until all have completed.
fn marked_burst(crit: impl Fn(u64) -> bool) -> MemSystem {
    let c = HeteroConfig::preset("hetero").unwrap();
    let mut m = MemSystem::new(&c);
    for i in 0..200u64 {
        let mut r = Request::read(i, i * 8192, Source::Gpgpu);
        r.critical = crit(i);
        m.issue(r);
    }
    m.issue(Request::read(200, 0x7_0000_0000, Source::Cpu(0)));
    let (mut t, mut done) = (0, 0);
    while done < 201 {
        t += 1;
        m.advance_to(t);
        done += m.drain_completions().count();
        assert!(t < 10_000_000, "requests never completed");
    }
    m
}

/// `front_cg` (session 22, the diagnostic of the CG-first order's gaps): the mean number of
/// critical GPU reads waiting in front of the controllers, the share of samples with none and
/// the share with no GPU read at all. 200 reads over two 64-entry read queues leave ~36 per
/// channel in front at first, then the front empties.
#[test]
fn front_cg_counts_only_the_critical_gpu_reads_waiting_in_front() {
    // No read critical: never a CG in front, but GPU reads wait there for a while.
    let m = marked_burst(|_| false);
    let (cg, no_cg, no_gpu) = m.front_cg();
    let front = m.read_queue_occupancy().1;
    assert_eq!((cg, no_cg), (0.0, 1.0));
    assert!(
        front > 0.0 && no_gpu > 0.0 && no_gpu < 1.0,
        "{front} {no_gpu}"
    );
    // Every GPU read critical: a sample without a CG is one without a GPU read, and the CG
    // mean is the front's mean less the lone CPU read's share.
    let m = marked_burst(|_| true);
    let (cg, no_cg, no_gpu) = m.front_cg();
    let front = m.read_queue_occupancy().1;
    assert_eq!(no_cg, no_gpu);
    assert!(cg > 0.0 && cg <= front && cg > 0.9 * front, "{cg} {front}");
    // One in four critical: between the two.
    let m = marked_burst(|i| i % 4 == 0);
    let (cg_q, no_cg_q, no_gpu_q) = m.front_cg();
    assert!(cg_q > 0.0 && cg_q < 0.5 * cg, "{cg_q} {cg}");
    assert!(no_cg_q >= no_gpu_q && no_cg_q < 1.0, "{no_cg_q} {no_gpu_q}");
}
