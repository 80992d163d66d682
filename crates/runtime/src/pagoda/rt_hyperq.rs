//! CUDA-HyperQ baseline: every task is a kernel on one of 32 streams (hardware connections),
//! launched by one host thread (`cudaMemcpyAsync` + launch per task). The hardware dispatches at
//! threadblock granularity: a TB needs all its warp slots free on one SM, and its slots return
//! only when every warp of the TB has finished. Native shared memory and `__syncthreads`.

use super::machine::{Fifo, Recorder, RunStats, Sms};
use super::master::PagodaConfig;
use super::workload::TaskSet;
use crate::engine::{EventQueue, Time};
use std::collections::VecDeque;

#[derive(Debug, Clone, Copy)]
enum Ev {
    Landed(usize),
    Start(usize),
}

/// Runs `set` under HyperQ.
pub fn run(c: &PagodaConfig, set: &TaskSet) -> RunStats {
    let n = set.tasks.len();
    let k = c.hyperq_connections;
    let mut q = EventQueue::new();
    let mut host = Fifo::default();
    let mut copy = Fifo::default();
    let mut spawn = vec![0; n];
    let mut streams: Vec<VecDeque<usize>> = vec![VecDeque::new(); k];
    for (i, t) in set.tasks.iter().enumerate() {
        let th = host.serve(0, c.api_copy + c.api_launch);
        spawn[i] = th - c.api_copy - c.api_launch;
        let land = copy.serve(th, c.dma_setup + t.copy_ns as Time);
        q.push(land, Ev::Landed(i));
        streams[i % k].push_back(i);
    }
    let mut landed = vec![false; n];
    let mut busy = vec![false; k];
    let mut tbq: VecDeque<(usize, u32)> = VecDeque::new(); // (task, tb)
    let mut tb_left: Vec<u32> = vec![0; n]; // TBs not finished per task
    let mut warp_left: Vec<u32> = Vec::new(); // per started TB record
    let mut recs: Vec<(usize, usize, Time)> = Vec::new(); // warp -> (task, tb record, start)
    let mut tb_sm: Vec<(usize, u32)> = Vec::new(); // tb record -> (sm, warps)
    let mut sms = Sms::new(c);
    let mut rec = Recorder::default();
    for (i, t) in set.tasks.iter().enumerate() {
        tb_left[i] = t.tbs;
    }
    let try_start = |s: usize,
                     now: Time,
                     busy: &mut Vec<bool>,
                     landed: &Vec<bool>,
                     streams: &Vec<VecDeque<usize>>,
                     q: &mut EventQueue<Ev>| {
        if !busy[s] {
            if let Some(&i) = streams[s].front() {
                if landed[i] {
                    busy[s] = true;
                    q.push(now + c.launch_latency, Ev::Start(i));
                }
            }
        }
    };
    loop {
        // dispatch waiting TBs at the current time
        let te = q.peek_time();
        let tw = sms.next_finish();
        // a warp finishing no later than the next event goes first
        let warp_done = match (te, tw) {
            (None, None) => break,
            (_, Some((w, sm))) if te.is_none_or(|t| w <= t) => Some((w, sm)),
            _ => None,
        };
        let now;
        if let Some((w, sm)) = warp_done {
            now = w;
            let id = sms.finish(w, sm);
            let (task, tbr, start) = recs[id];
            rec.warp_time(w - start);
            warp_left[tbr] -= 1;
            if warp_left[tbr] == 0 {
                let (sm, warps) = tb_sm[tbr];
                sms.release_tb(sm, warps);
                tb_left[task] -= 1;
                if tb_left[task] == 0 {
                    rec.task_done(spawn[task], w);
                    let s = task % k;
                    streams[s].pop_front();
                    busy[s] = false;
                    try_start(s, w, &mut busy, &landed, &streams, &mut q);
                }
            }
        } else {
            let (t, ev) = q.pop().expect("peeked");
            now = t;
            match ev {
                Ev::Landed(i) => {
                    landed[i] = true;
                    try_start(i % k, t, &mut busy, &landed, &streams, &mut q);
                }
                Ev::Start(i) => {
                    for tb in 0..set.tasks[i].tbs {
                        tbq.push_back((i, tb));
                    }
                }
            }
        }
        while let Some(&(i, _tb)) = tbq.front() {
            let t = &set.tasks[i];
            let w = t.warps_per_tb();
            let Some(sm) = sms.reserve_tb(w) else { break };
            tbq.pop_front();
            let tbr = tb_sm.len();
            tb_sm.push((sm, w));
            warp_left.push(w);
            for _ in 0..w {
                recs.push((i, tbr, now));
                sms.start(now, sm, recs.len() - 1, t.compute_ns);
            }
        }
    }
    rec.stats(c.sms)
}
