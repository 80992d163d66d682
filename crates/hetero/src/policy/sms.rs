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
//! `sms_09` and `sms_0` fix p = 0.9 and p = 0. \[INTERP\] A batch moves in one step (the original
//! moves one request per cycle); no low-intensity bypass of stage 1.

use super::{best_by, Cand, Ctx, MemPolicy};
use crate::config::PolicyConfig;
use crate::dram::DramEntry;
use crate::req::Source;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

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
    fifos: BTreeMap<Source, VecDeque<Item>>,
    banks: HashMap<(usize, u32), VecDeque<u64>>,
    heads: HashSet<u64>,
    where_: HashMap<u64, (usize, u32)>,
    in_system: BTreeMap<Source, u64>,
    rr: Option<Source>,
    batches: u64,
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
            banks: HashMap::new(),
            heads: HashSet::new(),
            where_: HashMap::new(),
            in_system: BTreeMap::new(),
            rr: None,
            batches: 0,
        }
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

    fn release(&mut self, src: Source, n: usize) {
        let q = self.fifos.get_mut(&src).expect("source");
        for _ in 0..n {
            let it = q.pop_front().expect("batch");
            let b = (it.key.0, it.key.1);
            let f = self.banks.entry(b).or_default();
            if f.is_empty() {
                self.heads.insert(it.tok);
            }
            f.push_back(it.tok);
            self.where_.insert(it.tok, b);
        }
        self.batches += 1;
    }
}

impl MemPolicy for Sms {
    fn eligible(&self, e: &DramEntry) -> bool {
        self.heads.contains(&e.tok)
    }

    fn pick(&mut self, _: &Ctx, c: &[Cand]) -> Option<usize> {
        // Only bank heads are candidates; among banks, the oldest head first.
        best_by(c, |x| (x.arrival, x.tok))
    }

    fn on_enqueue(&mut self, _: &Ctx, ch: usize, e: &DramEntry) {
        self.fifos.entry(e.source).or_default().push_back(Item {
            tok: e.tok,
            key: (ch, e.bank, e.row),
            arrival: e.arrival,
        });
        *self.in_system.entry(e.source).or_default() += 1;
    }

    fn on_served(&mut self, _: &Ctx, e: &DramEntry) {
        if let Some(b) = self.where_.remove(&e.tok) {
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
        let ready: Vec<(Source, usize)> = self
            .fifos
            .iter()
            .filter_map(|(s, q)| self.ready(*s, q, ctx.now).map(|n| (*s, n)))
            .collect();
        if ready.is_empty() {
            return;
        }
        let k = if self.p > 0.0 && self.rng.gen_bool(self.p) {
            (0..ready.len())
                .min_by_key(|&i| (self.in_system.get(&ready[i].0).copied().unwrap_or(0), i))
                .expect("non-empty")
        } else {
            // Round robin over the sources, the first ready one after the last served.
            match self.rr {
                Some(last) => ready.iter().position(|r| r.0 > last).unwrap_or(0),
                None => 0,
            }
        };
        self.rr = Some(ready[k].0);
        let (s, n) = ready[k];
        self.release(s, n);
    }

    fn counters(&self) -> Vec<(&'static str, f64)> {
        vec![("sms_batches", self.batches as f64)]
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
        let c = HeteroConfig::preset("hetero").unwrap().policy;
        let mut p = Sms::make(&c, 0.9);
        let g = GpuStatus::default();
        let ctx = |now| Ctx {
            now,
            dram_now: 0,
            gpu: &g,
        };
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
    fn sjf_prefers_the_source_with_fewer_requests() {
        let c = HeteroConfig::preset("hetero").unwrap().policy;
        let mut p = Sms::make(&c, 1.0);
        let g = GpuStatus::default();
        let ctx = |now| Ctx {
            now,
            dram_now: 0,
            gpu: &g,
        };
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
}
