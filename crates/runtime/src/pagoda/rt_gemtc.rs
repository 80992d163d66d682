//! GeMTC baseline: a persistent SuperKernel whose workers run one task per threadblock. The host
//! sends tasks in batches (one bulk copy per batch); workers take tasks from, and post results
//! to, a single FIFO queue in global memory whose operations serialise; a batch is over when its
//! slowest task is, and the host (polling) then sends the next batch. No shared-memory or
//! TB-barrier virtualisation is needed since each task is exactly one worker TB.

use super::machine::{Fifo, Recorder, RunStats, Sms};
use super::master::PagodaConfig;
use super::workload::TaskSet;
use crate::engine::{EventQueue, Time};
use std::collections::VecDeque;

#[derive(Debug, Clone, Copy)]
enum Ev {
    Batch,
    Landed(usize, usize),
    Start(usize, usize),
    Poll,
}

/// Runs `set` under GeMTC.
pub fn run(c: &PagodaConfig, set: &TaskSet) -> RunStats {
    let n = set.tasks.len();
    let mut q = EventQueue::new();
    let mut host = Fifo::default();
    let mut copy = Fifo::default();
    let mut fifo = Fifo::default();
    let mut sms = Sms::new(c);
    let mut rec = Recorder::default();
    let mut spawn = vec![0; n];
    let mut waiting: VecDeque<usize> = VecDeque::new();
    let mut warp_left = vec![0u32; n];
    let mut where_sm = vec![0usize; n];
    let mut recs: Vec<(usize, Time)> = Vec::new();
    let (mut next, mut done, mut batch_end) = (0usize, 0usize, 0usize);
    q.push(0, Ev::Batch);
    loop {
        let te = q.peek_time();
        let tw = sms.next_finish();
        let now = match (te, tw) {
            (None, None) => break,
            (t, Some((w, sm))) if t.is_none_or(|t| w <= t) => {
                let id = sms.finish(w, sm);
                let (i, start) = recs[id];
                rec.warp_time(w - start);
                warp_left[i] -= 1;
                if warp_left[i] == 0 {
                    sms.release_tb(where_sm[i], set.tasks[i].warps());
                    let posted = fifo.serve(w, c.gemtc_queue_op);
                    rec.task_done(spawn[i], posted);
                    done += 1;
                }
                w
            }
            _ => {
                let (t, ev) = q.pop().expect("peeked");
                match ev {
                    Ev::Batch => {
                        let end = (next + c.gemtc_batch).min(n);
                        let bytes: f64 = set.tasks[next..end].iter().map(|t| t.copy_ns).sum();
                        let th = host.serve(t, c.api_copy);
                        for s in spawn.iter_mut().take(end).skip(next) {
                            *s = t;
                        }
                        let land = copy.serve(th, c.dma_setup + bytes as Time);
                        q.push(land, Ev::Landed(next, end));
                        next = end;
                        batch_end = end;
                        q.push(land + c.poll, Ev::Poll);
                    }
                    Ev::Landed(a, b) => waiting.extend(a..b),
                    Ev::Start(i, sm) => {
                        let t0 = &set.tasks[i];
                        for _ in 0..t0.warps() {
                            recs.push((i, t));
                            sms.start(t, sm, recs.len() - 1, t0.compute_ns);
                        }
                    }
                    Ev::Poll => {
                        if done >= batch_end {
                            if next < n {
                                q.push(t, Ev::Batch);
                            }
                        } else {
                            q.push(t + c.poll, Ev::Poll);
                        }
                    }
                }
                t
            }
        };
        while let Some(&i) = waiting.front() {
            let t = &set.tasks[i];
            let Some(sm) = sms.reserve_tb(t.warps()) else {
                break;
            };
            waiting.pop_front();
            warp_left[i] = t.warps();
            where_sm[i] = sm;
            let start = fifo.serve(now, c.gemtc_queue_op);
            q.push(start, Ev::Start(i, sm));
        }
    }
    rec.stats(c.sms)
}
