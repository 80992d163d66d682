//! Static fusion baseline (KernelMerge-style): `fusion_batch` tasks fused into one kernel with a
//! fixed threadblock size of 256 threads. A task with fewer threads leaves the rest of its TB idle
//! (its warp slots stay reserved), and a fused kernel, hence every task in it, completes with its
//! longest task. Fused kernels run one after another on one stream; the next batch's copy
//! overlaps the current kernel.

use super::machine::{Fifo, Recorder, RunStats, Sms};
use super::master::PagodaConfig;
use super::workload::TaskSet;
use crate::engine::{EventQueue, Time};
use std::collections::VecDeque;

/// Runs `set` under static fusion.
pub fn run(c: &PagodaConfig, set: &TaskSet) -> RunStats {
    let n = set.tasks.len();
    let mut host = Fifo::default();
    let mut copy = Fifo::default();
    let mut sms = Sms::new(c);
    let mut rec = Recorder::default();
    let tb_warps = c.fusion_tb.div_ceil(32);
    // host side: all batches issued up front (asynchronous), copies serialised on the engine
    let mut batches = Vec::new();
    let mut i = 0;
    while i < n {
        let end = (i + c.fusion_batch).min(n);
        let th = host.serve(0, c.api_copy + c.api_launch);
        let bytes: f64 = set.tasks[i..end].iter().map(|t| t.copy_ns).sum();
        let land = copy.serve(th, c.dma_setup + bytes as Time);
        batches.push((i, end, th - c.api_copy - c.api_launch, land));
        i = end;
    }
    let mut q: EventQueue<()> = EventQueue::new();
    let mut prev_done: Time = 0;
    let mut recs: Vec<(usize, Time)> = Vec::new();
    for (a, b, spawn, land) in batches {
        let start = land.max(prev_done) + c.launch_latency;
        let mut tbq: VecDeque<usize> = (a..b).collect();
        let mut warps_left: Vec<u32> = set.tasks[a..b]
            .iter()
            .map(|t| t.warps().min(tb_warps))
            .collect();
        let mut sm_of = vec![0usize; b - a];
        let mut left = b - a;
        let mut now = start;
        recs.clear();
        while left > 0 {
            while let Some(&i) = tbq.front() {
                let Some(sm) = sms.reserve_tb(tb_warps) else {
                    break;
                };
                tbq.pop_front();
                sm_of[i - a] = sm;
                let t = &set.tasks[i];
                for _ in 0..warps_left[i - a] {
                    recs.push((i, now));
                    sms.start(now, sm, recs.len() - 1, t.compute_ns);
                }
            }
            let (w, sm) = sms.next_finish().expect("resident warps while TBs remain");
            now = w;
            let id = sms.finish(w, sm);
            let (i, st) = recs[id];
            rec.warp_time(w - st);
            warps_left[i - a] -= 1;
            if warps_left[i - a] == 0 {
                sms.release_tb(sm_of[i - a], tb_warps);
                left -= 1;
            }
        }
        for _ in a..b {
            rec.task_done(spawn, now);
        }
        prev_done = now;
        q.push(now, ());
    }
    rec.stats(c.sms)
}
