//! Staged memory scheduling (Ausavarungnirun et al., ISCA 2012; spec 004 §5.7), three stages:
//! 1. per-source FIFOs (each CPU core, the GPU) where requests form **batches** of consecutive
//!    requests to one row; a batch is ready when a request to another row follows it, the FIFO
//!    holds `sms_fifo` requests, or its oldest request is older than the source's age threshold
//!    (`sms_age_cpu`, larger `sms_age_gpu`);
//! 2. the batch scheduler: with probability `sms_sjf` the ready batch of the source with the
//!    fewest requests in the system (shortest job first), otherwise round robin over sources;
//!    the whole batch moves to stage 3;
//! 3. per-bank FIFOs served strictly in order (only a bank's head request may issue commands).
//!
//! As in the original, every memory controller has its own SMS: the source FIFOs and the batch
//! scheduler are per channel (a source's requests to one channel never wait behind its batch
//! for the other), and each channel's batch scheduler moves one batch per DRAM cycle.
//!
//! As in the original, requests **bypass** stages 1-2 (straight to their bank FIFO) when the
//! system is lightly loaded (the channel's SMS holds fewer than `sms_bypass_load` requests) or
//! their source is of low memory intensity (fewer than `sms_low_intensity` requests per 1000
//! CPU cycles over the last `interval`); and the per-source FIFOs give every source its own
//! share of the request buffer: a read waiting for the controller's full read queue enters it
//! for the source with the fewest requests queued in that channel ([`MemPolicy::admit`]), so a
//! flooding GPU cannot hold the entries the CPUs' batches need.
//!
//! `sms_09` and `sms_0` fix p = 0.9 and p = 0. \[INTERP\] A batch moves in one step (the original
//! moves one request per cycle); shortest-job-first counts a source's requests in the whole
//! system; intensity is counted per cycle, not per instruction.

use super::{best_by, Cand, Ctx, MemPolicy};
use crate::config::PolicyConfig;
use crate::dram::DramEntry;
use crate::fasthash::{FastMap, FastSet};
use crate::req::Source;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

#[derive(Clone, Copy)]
struct Item {
    tok: u64,
    key: (usize, u32, u32),
    arrival: u64,
}

struct Sms {
    p: f64,
    fifo_cap: usize,
    age_cpu: u64,
    age_gpu: u64,
    rng: ChaCha8Rng,
    /// Stage 1: per (channel, source) FIFOs.
    fifos: BTreeMap<(usize, Source), VecDeque<Item>>,
    // Never iterated: fast deterministic hashing (docs/PERFORMANCE.md, "Session 14").
    banks: FastMap<(usize, u32), VecDeque<u64>>,
    heads: FastSet<u64>,
    where_: FastMap<u64, (usize, u32)>,
    in_system: BTreeMap<Source, u64>,
    /// Round-robin pointer of each channel's batch scheduler.
    rr: BTreeMap<usize, Source>,
    batches: u64,
    /// Requests held (stages 1 and 3) per (channel, source).
    queued: BTreeMap<(usize, Source), u64>,
    bypass_load: u64,
    low_rate: f64,
    interval: u64,
    interval_end: u64,
    /// Requests per source in the current interval.
    arrivals: BTreeMap<Source, u64>,
    /// Sources of low memory intensity in the last interval.
    low: BTreeSet<Source>,
    bypassed: u64,
    /// Scratch of [`MemPolicy::tick`]: the ready batches (no allocation per DRAM cycle).
    ready_buf: Vec<((usize, Source), usize)>,
}

impl Sms {
    fn make(c: &PolicyConfig, p: f64) -> Self {
        Self {
            p,
            fifo_cap: c.sms_fifo as usize,
            age_cpu: c.sms_age_cpu,
            age_gpu: c.sms_age_gpu,
            rng: ChaCha8Rng::seed_from_u64(c.seed),
            fifos: BTreeMap::new(),
            banks: FastMap::default(),
            heads: FastSet::default(),
            where_: FastMap::default(),
            in_system: BTreeMap::new(),
            rr: BTreeMap::new(),
            batches: 0,
            queued: BTreeMap::new(),
            bypass_load: c.sms_bypass_load as u64,
            low_rate: c.sms_low_intensity,
            interval: c.interval.max(1),
            interval_end: c.interval.max(1),
            arrivals: BTreeMap::new(),
            low: BTreeSet::new(),
            bypassed: 0,
            ready_buf: Vec::new(),
        }
    }

    /// Stage 3: `tok` joins the FIFO of bank `b`.
    fn enter_bank(&mut self, tok: u64, b: (usize, u32)) {
        let f = self.banks.entry(b).or_default();
        if f.is_empty() {
            self.heads.insert(tok);
        }
        f.push_back(tok);
        self.where_.insert(tok, b);
    }

    fn held(&self, ch: usize) -> u64 {
        self.queued
            .range((ch, Source::Cpu(0))..)
            .take_while(|(k, _)| k.0 == ch)
            .map(|(_, n)| n)
            .sum()
    }

    /// Length of the head batch of `q` if it is ready at `now`.
    fn ready(&self, src: Source, q: &VecDeque<Item>, now: u64) -> Option<usize> {
        let first = q.front()?;
        let n = q.iter().take_while(|i| i.key == first.key).count();
        let age = if src.is_gpu() {
            self.age_gpu
        } else {
            self.age_cpu
        };
        (n < q.len() || q.len() >= self.fifo_cap || now >= first.arrival + age).then_some(n)
    }

    fn release(&mut self, key: (usize, Source), n: usize) {
        for _ in 0..n {
            let q = self.fifos.get_mut(&key).expect("source");
            let it = q.pop_front().expect("batch");
            self.enter_bank(it.tok, (it.key.0, it.key.1));
        }
        self.batches += 1;
    }
}

impl MemPolicy for Sms {
    fn eligible(&self, e: &DramEntry) -> bool {
        self.heads.contains(&e.tok)
    }

    fn holds_reads(&self) -> bool {
        true
    }

    /// The shortest-job-first draw with probability `p` (§5.7): SMS-0.9 draws, SMS-0 never asks
    /// the generator.
    fn draws_random(&self) -> bool {
        self.p > 0.0
    }

    fn pick(&mut self, _: &Ctx, c: &[Cand]) -> Option<usize> {
        // Only bank heads are candidates; among banks, the oldest head first.
        best_by(c, |x| (x.arrival, x.tok))
    }

    fn admit(&mut self, _: &Ctx, ch: usize, waiting: &[Cand]) -> usize {
        best_by(waiting, |x| {
            (
                self.queued.get(&(ch, x.source)).copied().unwrap_or(0),
                x.arrival,
                x.tok,
            )
        })
        .unwrap_or(0)
    }

    fn on_enqueue(&mut self, _: &Ctx, ch: usize, e: &DramEntry) {
        *self.arrivals.entry(e.source).or_default() += 1;
        *self.in_system.entry(e.source).or_default() += 1;
        let light = self.held(ch) < self.bypass_load;
        *self.queued.entry((ch, e.source)).or_default() += 1;
        if light || self.low.contains(&e.source) {
            self.bypassed += 1;
            self.enter_bank(e.tok, (ch, e.bank));
            return;
        }
        self.fifos
            .entry((ch, e.source))
            .or_default()
            .push_back(Item {
                tok: e.tok,
                key: (ch, e.bank, e.row),
                arrival: e.arrival,
            });
    }

    fn on_served(&mut self, _: &Ctx, e: &DramEntry) {
        if let Some(b) = self.where_.remove(&e.tok) {
            if let Some(n) = self.queued.get_mut(&(b.0, e.source)) {
                *n -= 1;
            }
            let f = self.banks.get_mut(&b).expect("bank fifo");
            debug_assert_eq!(f.front(), Some(&e.tok));
            f.pop_front();
            self.heads.remove(&e.tok);
            if let Some(&h) = f.front() {
                self.heads.insert(h);
            }
        }
        if let Some(n) = self.in_system.get_mut(&e.source) {
            *n -= 1;
        }
    }

    fn tick(&mut self, ctx: &Ctx) {
        if ctx.now >= self.interval_end {
            let limit = self.low_rate * self.interval as f64 / 1000.0;
            self.low = self
                .in_system
                .keys()
                .filter(|s| (self.arrivals.get(s).copied().unwrap_or(0) as f64) < limit)
                .copied()
                .collect();
            self.arrivals.clear();
            self.interval_end += self.interval;
        }
        let mut ready = std::mem::take(&mut self.ready_buf);
        ready.clear();
        ready.extend(
            self.fifos
                .iter()
                .filter_map(|(k, q)| self.ready(k.1, q, ctx.now).map(|n| (*k, n))),
        );
        let mut i = 0;
        while i < ready.len() {
            // The ready batches of one channel (the map is ordered by channel, then source).
            let ch = ready[i].0 .0;
            let j = ready[i..]
                .iter()
                .position(|r| r.0 .0 != ch)
                .map_or(ready.len(), |d| i + d);
            let r = &ready[i..j];
            let k = if self.p > 0.0 && self.rng.gen_bool(self.p) {
                (0..r.len())
                    .min_by_key(|&x| (self.in_system.get(&r[x].0 .1).copied().unwrap_or(0), x))
                    .expect("non-empty")
            } else {
                // Round robin over the sources, the first ready one after the last served.
                match self.rr.get(&ch) {
                    Some(last) => r.iter().position(|x| x.0 .1 > *last).unwrap_or(0),
                    None => 0,
                }
            };
            self.rr.insert(ch, r[k].0 .1);
            let (key, n) = r[k];
            self.release(key, n);
            i = j;
        }
        self.ready_buf = ready;
    }

    fn counters(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("sms_batches", self.batches as f64),
            ("sms_bypassed", self.bypassed as f64),
        ]
    }
}

/// SMS with shortest-job-first probability 0.9.
pub fn new_09(c: &PolicyConfig) -> Box<dyn MemPolicy> {
    Box::new(Sms::make(c, 0.9))
}

/// SMS with round-robin batch selection only.
pub fn new_0(c: &PolicyConfig) -> Box<dyn MemPolicy> {
    Box::new(Sms::make(c, 0.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::HeteroConfig;
    use crate::policy::GpuStatus;

    /// A policy context at memory-side cycle `now` (DRAM cycle 0).
    fn at(gpu: &GpuStatus, now: u64) -> Ctx<'_> {
        Ctx {
            now,
            dram_now: 0,
            gpu,
        }
    }

    fn e(tok: u64, source: Source, bank: u32, row: u32, arrival: u64) -> DramEntry {
        DramEntry {
            tok,
            line: tok,
            source,
            critical: false,
            arrival,
            bank,
            row,
            activated: false,
        }
    }

    #[test]
    fn batches_form_by_row_and_release_whole_and_banks_serve_in_order() {
        let mut c = HeteroConfig::preset("hetero").unwrap().policy;
        c.sms_bypass_load = 0; // batch formation under load
        let mut p = Sms::make(&c, 0.9);
        let g = GpuStatus::default();
        let ctx = |now| at(&g, now);
        // GPU: two requests to row 1, then one to row 2 -> the row-1 batch is ready.
        p.on_enqueue(&ctx(0), 0, &e(1, Source::Gpgpu, 0, 1, 0));
        p.on_enqueue(&ctx(0), 0, &e(2, Source::Gpgpu, 0, 1, 0));
        p.tick(&ctx(1));
        assert!(
            !p.eligible(&e(1, Source::Gpgpu, 0, 1, 0)),
            "batch still open"
        );
        p.on_enqueue(&ctx(2), 0, &e(3, Source::Gpgpu, 0, 2, 2));
        p.tick(&ctx(3));
        assert!(p.eligible(&e(1, Source::Gpgpu, 0, 1, 0)), "head of bank 0");
        assert!(
            !p.eligible(&e(2, Source::Gpgpu, 0, 1, 0)),
            "second in the bank FIFO"
        );
        assert!(
            !p.eligible(&e(3, Source::Gpgpu, 0, 2, 2)),
            "next batch not formed"
        );
        p.on_served(&ctx(4), &e(1, Source::Gpgpu, 0, 1, 0));
        assert!(p.eligible(&e(2, Source::Gpgpu, 0, 1, 0)));
        // A lone CPU request becomes ready after its (short) age threshold.
        p.on_enqueue(&ctx(10), 0, &e(9, Source::Cpu(0), 3, 7, 10));
        p.tick(&ctx(11));
        assert!(!p.eligible(&e(9, Source::Cpu(0), 3, 7, 10)));
        p.tick(&ctx(10 + c.sms_age_cpu));
        assert!(p.eligible(&e(9, Source::Cpu(0), 3, 7, 10)));
    }

    #[test]
    fn each_channel_has_its_own_fifos_and_batch_scheduler() {
        let mut c = HeteroConfig::preset("hetero").unwrap().policy;
        c.sms_bypass_load = 0; // batch formation under load
        let mut p = Sms::make(&c, 0.0);
        let g = GpuStatus::default();
        let ctx = |now| at(&g, now);
        // CPU 0: an open batch on channel 0 (row 1, not aged), then a request to channel 1.
        p.on_enqueue(&ctx(0), 0, &e(1, Source::Cpu(0), 0, 1, 0));
        p.on_enqueue(&ctx(0), 1, &e(2, Source::Cpu(0), 0, 4, 0));
        // GPU: a closed batch on each channel.
        for (t, ch) in [(3, 0), (4, 0), (5, 1), (6, 1)] {
            p.on_enqueue(&ctx(0), ch, &e(t, Source::Gpgpu, 2, t as u32, 0));
        }
        p.tick(&ctx(1));
        assert!(
            !p.eligible(&e(1, Source::Cpu(0), 0, 1, 0)),
            "channel 0's CPU batch is still open"
        );
        assert!(
            !p.eligible(&e(2, Source::Cpu(0), 0, 4, 0)),
            "channel 1's CPU batch is still open too (not closed by channel 0's)"
        );
        assert!(
            p.eligible(&e(3, Source::Gpgpu, 2, 3, 0)) && p.eligible(&e(5, Source::Gpgpu, 2, 5, 0)),
            "one batch released on each channel in the same cycle"
        );
        p.tick(&ctx(c.sms_age_cpu));
        assert!(p.eligible(&e(1, Source::Cpu(0), 0, 1, 0)));
        assert!(p.eligible(&e(2, Source::Cpu(0), 0, 4, 0)));
    }

    #[test]
    fn sjf_prefers_the_source_with_fewer_requests() {
        let mut c = HeteroConfig::preset("hetero").unwrap().policy;
        c.sms_bypass_load = 0; // batch formation under load
        let mut p = Sms::make(&c, 1.0);
        let g = GpuStatus::default();
        let ctx = |now| at(&g, now);
        for t in 0..6 {
            p.on_enqueue(&ctx(0), 0, &e(t, Source::Gpgpu, 1, t as u32, 0));
        }
        p.on_enqueue(&ctx(0), 0, &e(10, Source::Cpu(1), 2, 5, 0));
        p.on_enqueue(&ctx(0), 0, &e(11, Source::Cpu(1), 2, 6, 0));
        p.tick(&ctx(1));
        assert!(
            p.eligible(&e(10, Source::Cpu(1), 2, 5, 0)),
            "CPU (2 requests) before GPU (6)"
        );
        assert!(!p.eligible(&e(0, Source::Gpgpu, 1, 0, 0)));
    }

    #[test]
    fn light_load_and_low_intensity_sources_bypass_batch_formation() {
        let c = HeteroConfig::preset("hetero").unwrap().policy;
        let mut p = Sms::make(&c, 0.0);
        let g = GpuStatus::default();
        let ctx = |now| at(&g, now);
        // An empty channel: a lone CPU request goes straight to its bank FIFO.
        p.on_enqueue(&ctx(0), 0, &e(1, Source::Cpu(0), 3, 7, 0));
        assert!(p.eligible(&e(1, Source::Cpu(0), 3, 7, 0)), "light load");
        // Load the channel with GPU requests: the GPU's next request is batched.
        let lim = (c.sms_low_intensity * c.interval as f64 / 1000.0) as u64;
        let m = lim.max(c.sms_bypass_load as u64) + 1;
        for t in 0..m {
            p.on_enqueue(&ctx(0), 0, &e(100 + t, Source::Gpgpu, 1, 1, 0));
        }
        p.on_enqueue(&ctx(0), 0, &e(200, Source::Gpgpu, 2, 9, 0));
        p.tick(&ctx(1));
        assert!(!p.eligible(&e(200, Source::Gpgpu, 2, 9, 0)), "batched");
        // After an interval in which CPU 0 sent one request (low intensity) its requests
        // bypass even under load; the GPU's (above the rate) do not.
        p.tick(&ctx(c.interval));
        let t = c.interval;
        p.on_enqueue(&ctx(t), 0, &e(2, Source::Cpu(0), 4, 7, t));
        assert!(p.eligible(&e(2, Source::Cpu(0), 4, 7, t)), "low intensity");
        p.on_enqueue(&ctx(t), 0, &e(300, Source::Gpgpu, 5, 3, t));
        assert!(!p.eligible(&e(300, Source::Gpgpu, 5, 3, t)), "intense GPU");
    }

    #[test]
    fn full_read_queue_admits_for_the_source_with_fewest_queued_requests() {
        let c = HeteroConfig::preset("hetero").unwrap().policy;
        let mut p = Sms::make(&c, 0.0);
        let g = GpuStatus::default();
        let ctx = Ctx {
            now: 0,
            dram_now: 0,
            gpu: &g,
        };
        for t in 0..4 {
            p.on_enqueue(&ctx, 0, &e(t, Source::Gpgpu, 1, t as u32, 0));
        }
        p.on_enqueue(&ctx, 1, &e(9, Source::Cpu(2), 1, 1, 0));
        let cand = |tok: u64, source: Source, arrival: u64| Cand {
            pos: 0,
            row_hit: false,
            source,
            critical: false,
            arrival,
            bank: 0,
            tok,
        };
        let waiting = [
            cand(10, Source::Gpgpu, 1),
            cand(11, Source::Cpu(1), 2),
            cand(12, Source::Cpu(2), 3),
        ];
        // Channel 0: the GPU holds 4, CPU 1 and 2 none: the oldest of those, CPU 1.
        assert_eq!(p.admit(&ctx, 0, &waiting), 1);
        // Channel 1: CPU 2 holds one, the GPU and CPU 1 none: the GPU's (oldest).
        assert_eq!(p.admit(&ctx, 1, &waiting), 0);
    }
}
