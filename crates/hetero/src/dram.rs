//! DDR3 memory controllers (spec 004 §7.2, §10.1 items 1-2): per channel one rank of banks with
//! open-page row buffers and the ACT/PRE/RD/WR timing of DDR3-2133 (tCL, tRCD, tRP, tRAS, tRC,
//! tRRD, tFAW, tCWL, tWR, tWTR, tRTP, BL8 bus occupancy, all-bank refresh), a read queue whose
//! order is chosen by the memory policy ([`crate::policy`]) among the requests whose next
//! command may issue now ("first ready"), and a write queue drained FR-FCFS between watermarks
//! (3/4 full to 1/4 full, or whenever no read waits) identically under every policy
//! [INTERP: §5.5 leaves writes open]. Cycles here are DRAM command cycles.

use crate::config::DramConfig;
use crate::policy::{Cand, Ctx, MemPolicy};
use crate::req::Source;

/// Where a block lives in DRAM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Loc {
    /// Channel.
    pub channel: usize,
    /// Bank within the channel.
    pub bank: u32,
    /// Row.
    pub row: u32,
}

/// Address mapping [INTERP: not given]: row : bank : channel : column, with the bank index
/// XOR-ed with the low row bits (permutation-based interleaving), so that a row's 8 KB of
/// consecutive blocks are row hits and strided streams spread over the banks.
pub fn locate(c: &DramConfig, line: u64) -> Loc {
    let per_row = (c.row_bytes / 64) as u64;
    let rest = line / per_row;
    let channel = (rest % c.channels as u64) as usize;
    let rest = rest / c.channels as u64;
    let banks = c.banks as u64;
    let row = rest / banks;
    let bank = ((rest % banks) ^ (row % banks)) as u32;
    Loc {
        channel,
        bank,
        row: row as u32,
    }
}

/// Whether `e`'s next command is its column access: its row is open in `b` and either the
/// bank has served fewer than `cap` row hits since the activation (`cap` 0: no limit) or `e`
/// itself activated the row (DRAMSim2 keeps an activate's own column access).
fn col_open(b: &Bank, e: &DramEntry, cap: u32) -> bool {
    b.open == Some(e.row) && (cap == 0 || b.hits < cap || e.activated)
}

/// A request waiting in a controller queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DramEntry {
    /// Memory-side token (unique while queued).
    pub tok: u64,
    /// Block number.
    pub line: u64,
    /// Requester (for a write-back: the owner of the evicted block, or the writer).
    pub source: Source,
    /// The GPU criticality bit.
    pub critical: bool,
    /// CPU cycle at which it entered the queue.
    pub arrival: u64,
    /// Bank.
    pub bank: u32,
    /// Row.
    pub row: u32,
    /// An activate was issued for it (its access is a row miss).
    pub activated: bool,
}

#[derive(Debug, Clone, Copy, Default)]
struct Bank {
    open: Option<u32>,
    next_act: u64,
    next_pre: u64,
    next_col: u64,
    /// Row hits served since the row was activated ([`DramConfig::row_hit_cap`]).
    hits: u32,
    /// The part of tRP a scaled GPU precharge of this bank cut (DRAM cycles; see
    /// [`Channel::bank_time`]), owed to the next scaled GPU activation.
    pre_owed: u64,
    /// DRAM cycle at which the open row would be open with unscaled timings (activation +
    /// owed tRP + tRCD): no read of the row returns data before it + tCL + burst.
    row_ready: u64,
}

/// Counters of one channel.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct DramStats {
    /// Reads served.
    pub reads: u64,
    /// Writes served.
    pub writes: u64,
    /// Accesses that found their row open.
    pub row_hits: u64,
    /// Activates.
    pub activates: u64,
    /// Precharges (not counting refresh).
    pub precharges: u64,
    /// Data-bus busy cycles.
    pub busy_cycles: u64,
    /// Bank cycles held by activations: tRC per activation, a scaled GPU activation's tRC
    /// over `gpu_bus_div` ([`DramConfig::gpu_bus_div`]).
    pub bank_cycles: u64,
    /// DRAM cycles.
    pub cycles: u64,
}

/// A read whose data has been transferred: `tok` at DRAM cycle `at`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadDone {
    /// Token.
    pub tok: u64,
    /// DRAM cycle at which the last data beat arrives.
    pub at: u64,
    /// The entry.
    pub entry: DramEntry,
}

/// One controller.
pub struct Channel {
    c: DramConfig,
    /// Read queue, arrival order.
    pub reads: Vec<DramEntry>,
    /// Write queue, arrival order.
    pub writes: Vec<DramEntry>,
    draining: bool,
    banks: Vec<Bank>,
    acts: [u64; 4],
    next_act_any: u64,
    next_cas: u64,
    next_rd: u64,
    next_wr: u64,
    bus_free: u64,
    /// Activations counted towards tRRD/tFAW (`acts` is indexed by it).
    faw_n: u64,
    /// GPU bus time owed, in 1/`gpu_bus_div` cycles, and GPU activations not yet counted
    /// ([`DramConfig::gpu_bus_div`]).
    gpu_bus_acc: u64,
    gpu_act_acc: u64,
    next_ref: u64,
    cands: Vec<Cand>,
    hit_pending: Vec<bool>,
    /// Per queue entry: eligible this cycle (scratch of [`Channel::cycle`]).
    elig: Vec<bool>,
    /// After a cycle that found no command able to issue: the first DRAM cycle at which one
    /// could, and the queue lengths then. Until that cycle, with the same queue lengths (the
    /// queues only grow from outside, entries leave only by [`Channel::issue`], which resets
    /// it, as refresh does) and a policy that holds no reads, nothing can issue either: the
    /// scan is skipped (no policy hook is called in such a cycle).
    blocked: Option<(u64, usize, usize)>,
    /// DRAM cycles in which the channel served its write queue (draining, or no read queued).
    pub write_cycles: u64,
    /// Counters.
    pub stats: DramStats,
}

impl Channel {
    /// An idle channel.
    pub fn new(c: &DramConfig) -> Self {
        Self {
            c: c.clone(),
            reads: Vec::with_capacity(c.read_queue as usize),
            writes: Vec::with_capacity(c.write_queue as usize),
            draining: false,
            banks: vec![Bank::default(); c.banks as usize],
            acts: [0; 4],
            next_act_any: 0,
            next_cas: 0,
            next_rd: 0,
            next_wr: 0,
            bus_free: 0,
            faw_n: 0,
            gpu_bus_acc: 0,
            gpu_act_acc: 0,
            next_ref: if c.t_refi == 0 {
                u64::MAX
            } else {
                c.t_refi as u64
            },
            cands: Vec::new(),
            hit_pending: vec![false; c.banks as usize],
            elig: Vec::new(),
            blocked: None,
            write_cycles: 0,
            stats: DramStats::default(),
        }
    }

    /// Room in the read (or write) queue.
    pub fn can_accept(&self, write: bool) -> bool {
        if write {
            self.writes.len() < self.c.write_queue as usize
        } else {
            self.reads.len() < self.c.read_queue as usize
        }
    }

    /// Moves reads from `waiting` (reads that reached this controller while its read queue was
    /// full, arrival order) into the read queue while it has room, in the order the policy
    /// ranks them ([`MemPolicy::admit`]; row hits judged against the rows open now), calling
    /// [`MemPolicy::on_enqueue`] for each. Returns how many entered.
    pub fn admit(
        &mut self,
        waiting: &mut std::collections::VecDeque<DramEntry>,
        ctx: &Ctx,
        ch: usize,
        policy: &mut dyn MemPolicy,
    ) -> usize {
        let mut n = 0;
        while self.can_accept(false) && !waiting.is_empty() {
            let i = if waiting.len() == 1 || self.c.fifo_admission {
                0
            } else {
                self.cands.clear();
                for (pos, e) in waiting.iter().enumerate() {
                    self.cands.push(Cand {
                        pos,
                        row_hit: self.banks[e.bank as usize].open == Some(e.row),
                        source: e.source,
                        critical: e.critical,
                        arrival: e.arrival,
                        bank: e.bank,
                        tok: e.tok,
                    });
                }
                let k = policy.admit(ctx, ch, &self.cands);
                self.cands.get(k).map_or(0, |c| c.pos)
            };
            let e = waiting.remove(i).expect("index in range");
            policy.on_enqueue(ctx, ch, &e);
            self.reads.push(e);
            n += 1;
        }
        n
    }

    /// Whether anything is queued.
    pub fn busy(&self) -> bool {
        !self.reads.is_empty() || !self.writes.is_empty()
    }

    /// One DRAM command cycle at DRAM cycle `now`: issues at most one command. Returns a read
    /// whose column command issued (its data arrives at [`ReadDone::at`]).
    pub fn cycle(
        &mut self,
        now: u64,
        ctx: &Ctx,
        ch: usize,
        policy: &mut dyn MemPolicy,
    ) -> Option<ReadDone> {
        self.stats.cycles += 1;
        if now >= self.next_ref {
            // All-bank refresh: rows close, no activate for tRFC.
            for b in &mut self.banks {
                b.open = None;
                b.pre_owed = 0;
                b.next_act = b.next_act.max(now + self.c.t_rfc as u64);
            }
            self.next_ref += self.c.t_refi as u64;
            self.blocked = None;
        }
        if self.reads.is_empty() && self.writes.is_empty() {
            return None;
        }
        let cap = self.c.write_queue as usize;
        if self.writes.len() * 4 >= cap * 3 {
            self.draining = true;
        } else if self.writes.len() * 4 <= cap {
            self.draining = false;
        }
        let write = !self.writes.is_empty() && (self.draining || self.reads.is_empty());
        self.write_cycles += write as u64;
        let holds = policy.holds_reads();
        if let Some((until, nr, nw)) = self.blocked {
            if now < until && nr == self.reads.len() && nw == self.writes.len() && !holds {
                return None;
            }
        }
        self.blocked = None;
        // Candidates: requests whose next command may issue now. Each entry's eligibility is
        // asked once (`MemPolicy::eligible` takes `&self`), and the tFAW window once per cycle.
        self.cands.clear();
        self.hit_pending.iter_mut().for_each(|h| *h = false);
        self.elig.clear();
        // The first cycle at which some entry's next command could issue (entries that cannot
        // issue now; u64::MAX: none until the state changes).
        let mut first = u64::MAX;
        {
            let q = if write { &self.writes } else { &self.reads };
            let cap = self.c.row_hit_cap;
            let ask = !write && policy.holds_reads();
            for e in q {
                let ok = !ask || policy.eligible(e);
                self.elig.push(ok);
                if ok && col_open(&self.banks[e.bank as usize], e, cap) {
                    self.hit_pending[e.bank as usize] = true;
                }
            }
            let oldest = *self.acts.iter().min().expect("4");
            let faw_at = if self.faw_n < 4 {
                0
            } else {
                oldest + self.c.t_faw as u64
            };
            let faw_ok = now >= faw_at;
            for (pos, e) in q.iter().enumerate() {
                if !self.elig[pos] {
                    continue;
                }
                let b = &self.banks[e.bank as usize];
                let (ok, row_hit) = match b.open {
                    _ if col_open(b, e, cap) => {
                        let ok = self.cas_ok(now, b, write);
                        if !ok {
                            first = first.min(self.cas_at(b, write));
                        }
                        (ok, true)
                    }
                    Some(_) => {
                        let blocked = self.hit_pending[e.bank as usize];
                        let ok = now >= b.next_pre && !blocked;
                        if !ok && !blocked {
                            first = first.min(b.next_pre);
                        }
                        (ok, false)
                    }
                    None => {
                        let ok = now >= b.next_act && now >= self.next_act_any && faw_ok;
                        if !ok {
                            first = first.min(b.next_act.max(self.next_act_any).max(faw_at));
                        }
                        (ok, false)
                    }
                };
                if ok {
                    self.cands.push(Cand {
                        pos,
                        row_hit,
                        source: e.source,
                        critical: e.critical,
                        arrival: e.arrival,
                        bank: e.bank,
                        tok: e.tok,
                    });
                }
            }
        }
        if self.cands.is_empty() {
            if !holds {
                self.blocked = Some((first, self.reads.len(), self.writes.len()));
            }
            return None;
        }
        let pick = if write {
            // FR-FCFS for writes under every policy.
            (0..self.cands.len()).min_by_key(|&i| (!self.cands[i].row_hit, self.cands[i].arrival))
        } else {
            let p = policy.pick(ctx, &self.cands);
            if let Some(i) = p {
                policy.on_issue(ctx, ch, &self.cands[i], &self.cands);
            }
            p
        };
        let cand = self.cands[pick?];
        self.issue(now, cand.pos, write)
    }

    /// The first cycle at which [`Channel::cas_ok`] holds, the state unchanged.
    fn cas_at(&self, b: &Bank, write: bool) -> u64 {
        let lat = if write { self.c.t_cwl } else { self.c.t_cl } as u64;
        b.next_col
            .max(self.next_cas)
            .max(self.bus_free.saturating_sub(lat))
            .max(if write { self.next_wr } else { self.next_rd })
    }

    fn cas_ok(&self, now: u64, b: &Bank, write: bool) -> bool {
        let lat = if write { self.c.t_cwl } else { self.c.t_cl } as u64;
        now >= b.next_col
            && now >= self.next_cas
            && now + lat >= self.bus_free
            && now >= if write { self.next_wr } else { self.next_rd }
    }

    /// Data-bus cycles the burst of a request from `source` occupies: `burst`, or for a GPU
    /// request `burst / gpu_bus_div` on average (the remainder carried).
    fn bus_cycles(&mut self, source: Source) -> u64 {
        let (bl, div) = (self.c.burst as u64, self.c.gpu_bus_div.max(1) as u64);
        if div == 1 || !source.is_gpu() {
            return bl;
        }
        self.gpu_bus_acc += bl;
        let occ = self.gpu_bus_acc / div;
        self.gpu_bus_acc %= div;
        occ
    }

    /// Whether an activation for `source` counts towards tRRD/tFAW: always for the CPU, once per
    /// `gpu_bus_div` for the GPU.
    fn act_counts(&mut self, source: Source) -> bool {
        let div = self.c.gpu_bus_div.max(1) as u64;
        if div == 1 || !source.is_gpu() {
            return true;
        }
        self.gpu_act_acc += 1;
        if self.gpu_act_acc >= div {
            self.gpu_act_acc -= div;
            true
        } else {
            false
        }
    }

    /// Bank time of a command timing `t` for a request from `source`: `t`, or, with
    /// [`DramConfig::gpu_bank_scaled`], for a GPU request at `gpu_bus_div` k > 1, `t / k`
    /// rounded to the nearest cycle (at least 1). \[INTERP\] The scaled 3D frame's GPU issues k times the full-size frame's DRAM requests per cycle, each
    /// standing for 1/k of a full-size one: as its burst holds 1/k of the data bus, its row
    /// miss holds its bank (tRCD, tRAS, tRC, tRP, tRTP, write recovery) for 1/k of the time, so
    /// that bank occupancy per byte is the full-size frame's. The reads' latency is kept: no
    /// read of a row a scaled GPU activation opened returns data before the row would be open
    /// unscaled (the activation + the tRP its precharge was spared + tRCD) + tCL + burst
    /// ([`ReadDone::at`]); the row's column commands and bursts may issue earlier, inside the
    /// scaled tRCD.
    fn bank_time(&self, source: Source, t: u32) -> u64 {
        let div = self.c.gpu_bus_div.max(1) as u64;
        if div == 1 || !self.c.gpu_bank_scaled || !source.is_gpu() {
            return t as u64;
        }
        ((t as u64 + div / 2) / div).max(1)
    }

    fn issue(&mut self, now: u64, pos: usize, write: bool) -> Option<ReadDone> {
        self.blocked = None;
        let e = if write {
            self.writes[pos]
        } else {
            self.reads[pos]
        };
        let col = col_open(&self.banks[e.bank as usize], &e, self.c.row_hit_cap);
        let occ = if col { self.bus_cycles(e.source) } else { 0 };
        let counts = match self.banks[e.bank as usize].open {
            None => self.act_counts(e.source),
            _ => true,
        };
        let bi = e.bank as usize;
        let t_rtp = self.bank_time(e.source, self.c.t_rtp);
        let t_wrec = self.bank_time(e.source, self.c.t_cwl + self.c.burst + self.c.t_wr);
        let t_rp = self.bank_time(e.source, self.c.t_rp);
        let (t_rcd, t_ras, t_rc) = (
            self.bank_time(e.source, self.c.t_rcd),
            self.bank_time(e.source, self.c.t_ras),
            self.bank_time(e.source, self.c.t_rc),
        );
        let c = &self.c;
        match self.banks[bi].open {
            _ if col => {
                let bl = c.burst as u64;
                let b = &mut self.banks[bi];
                self.next_cas = now + occ;
                self.stats.busy_cycles += occ;
                if e.activated {
                    // counted as a miss
                } else {
                    self.stats.row_hits += 1;
                    b.hits += 1;
                }
                if write {
                    let busy = now + c.t_cwl as u64 + occ;
                    self.bus_free = busy;
                    self.next_rd = self.next_rd.max(busy + c.t_wtr as u64);
                    // Write recovery: tCWL + burst + tWR after the command (`bank_time`).
                    b.next_pre = b.next_pre.max(now + t_wrec);
                    self.writes.remove(pos);
                    self.stats.writes += 1;
                    None
                } else {
                    let end = now.max(b.row_ready) + c.t_cl as u64 + bl;
                    self.bus_free = now + c.t_cl as u64 + occ;
                    let turn = (c.t_cl as u64 + occ + 2).saturating_sub(c.t_cwl as u64);
                    self.next_wr = self.next_wr.max(now + turn);
                    b.next_pre = b.next_pre.max(now + t_rtp);
                    self.reads.remove(pos);
                    self.stats.reads += 1;
                    Some(ReadDone {
                        tok: e.tok,
                        at: end,
                        entry: e,
                    })
                }
            }
            Some(_) => {
                let b = &mut self.banks[bi];
                b.open = None;
                b.next_act = b.next_act.max(now + t_rp);
                b.pre_owed = c.t_rp as u64 - t_rp;
                self.stats.precharges += 1;
                None
            }
            None => {
                let b = &mut self.banks[bi];
                b.open = Some(e.row);
                b.hits = 0;
                b.next_col = now + t_rcd;
                b.next_pre = now + t_ras;
                b.next_act = now + t_rc;
                // Only a scaled GPU read is owed what the scaling cut (a CPU activation right
                // after a scaled GPU precharge waited less for it, as it would for 1/k of it).
                let pre = std::mem::take(&mut b.pre_owed);
                b.row_ready = now + c.t_rcd as u64 + if t_rcd < c.t_rcd as u64 { pre } else { 0 };
                self.stats.bank_cycles += t_rc;
                if counts {
                    self.next_act_any = now + c.t_rrd as u64;
                    self.acts[(self.faw_n % 4) as usize] = now;
                    self.faw_n += 1;
                }
                self.stats.activates += 1;
                if write {
                    self.writes[pos].activated = true;
                } else {
                    self.reads[pos].activated = true;
                }
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::HeteroConfig;
    use crate::policy::{self, GpuStatus};

    fn entry(tok: u64, bank: u32, row: u32, source: Source, arrival: u64) -> DramEntry {
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

    fn run(ch: &mut Channel, p: &mut dyn MemPolicy, from: u64, until: u64) -> Vec<(u64, u64)> {
        let g = GpuStatus::default();
        let mut out = vec![];
        for now in from..until {
            let ctx = Ctx {
                now,
                gpu: &g,
                dram_now: now,
            };
            if let Some(d) = ch.cycle(now, &ctx, 0, p) {
                out.push((d.tok, d.at));
            }
        }
        out
    }

    #[test]
    fn closed_row_read_costs_rcd_cl_burst_and_conflict_adds_rp() {
        let c = HeteroConfig::preset("hetero").unwrap();
        let mut p = policy::create(&c.policy).unwrap();
        let mut ch = Channel::new(&c.dram);
        ch.reads.push(entry(1, 0, 5, Source::Cpu(0), 0));
        ch.reads.push(entry(2, 0, 6, Source::Cpu(0), 0));
        let d = run(&mut ch, p.as_mut(), 0, 400);
        // ACT 0, RD 14, data ends 14+14+4 = 32.
        assert_eq!(d[0], (1, 32));
        // PRE at tRAS 36, ACT at max(36+14, tRC 50) = 50, RD 64, data 82.
        assert_eq!(d[1], (2, 82));
        assert_eq!(ch.stats.activates, 2);
        assert_eq!(ch.stats.precharges, 1);
    }

    /// `dram.gpu_bus_div`: a GPU burst holds the data bus for `burst / div` cycles on average
    /// (the scaled 3D frame's traffic), a CPU burst for `burst`; each read's own latency stays
    /// tRCD + tCL + burst, and div 1 is the unscaled channel.
    #[test]
    fn gpu_bursts_share_the_bus_by_the_divisor_and_keep_their_latency() {
        let last = |div: &str, source: Source| {
            let mut c = HeteroConfig::preset("hetero").unwrap();
            c.set("dram.gpu_bus_div", div).unwrap();
            c.set("dram.row_hit_cap", "0").unwrap(); // 16 hits to one row in a row
            let mut p = policy::create(&c.policy).unwrap();
            let mut ch = Channel::new(&c.dram);
            for t in 0..16 {
                ch.reads.push(entry(t + 1, 0, 5, source, 0));
            }
            let d = run(&mut ch, p.as_mut(), 0, 400);
            assert_eq!(d.len(), 16);
            assert_eq!(d[0].1, 32, "first read: ACT 0, RD 14, data 14+14+4");
            (d[15].1, ch.stats.busy_cycles)
        };
        // 16 row hits back to back: one burst (4 cycles) apart.
        assert_eq!(last("1", Source::Gpgpu), (32 + 15 * 4, 64));
        assert_eq!(last("4", Source::Cpu(0)), (32 + 15 * 4, 64));
        // A quarter of the bus each: one cycle apart, every read still tCL + burst long.
        assert_eq!(last("4", Source::Gpgpu), (32 + 15, 16));
        assert_eq!(last("4", Source::Gfx(3)), (32 + 15, 16));
        // 16: one burst-cycle per 4 GPU bursts (at most one command a cycle).
        let (end, busy) = last("16", Source::Gfx(3));
        assert_eq!(busy, 4);
        assert_eq!(end, 32 + 15);
    }

    /// The scaled-burst bank-time rule ([`Channel::bank_time`]): two reads to different rows
    /// of one bank. Unscaled (div 1, or a CPU read at any div) the second waits for tRAS + tRP
    /// (tRC) after the first's activation; a GPU read at div 16 holds the bank for 1/16 of
    /// each timing (tRCD 1, tRAS 2, tRP 1, tRTP 1, tRC 3 cycles), so the bank frees up 16x
    /// sooner, while each read's own latency stays the unscaled one (the first 32 cycles, the
    /// second tRP + tRCD + tCL + burst = 46 after its precharge).
    #[test]
    fn a_scaled_gpu_row_miss_holds_its_bank_for_one_kth_of_the_time() {
        let two_with = |div: &str, source: Source, scaled: bool| {
            let mut c = HeteroConfig::preset("hetero").unwrap();
            c.set("dram.gpu_bus_div", div).unwrap();
            c.set("dram.gpu_bank_scaled", &scaled.to_string()).unwrap();
            let mut p = policy::create(&c.policy).unwrap();
            let mut ch = Channel::new(&c.dram);
            ch.reads.push(entry(1, 0, 5, source, 0));
            ch.reads.push(entry(2, 0, 6, source, 0));
            let d = run(&mut ch, p.as_mut(), 0, 400);
            assert_eq!((ch.stats.activates, ch.stats.precharges), (2, 1));
            (d, ch.stats.bank_cycles)
        };
        let two = |div: &str, source: Source| two_with(div, source, true);
        let unscaled = (vec![(1, 32), (2, 82)], 2 * 50);
        // The rule is off by default (`dram.gpu_bank_scaled`): a GPU row miss at div 16 then
        // holds its bank for the full timings.
        assert_eq!(two_with("16", Source::Gfx(0), false), unscaled);
        assert_eq!(two("1", Source::Gfx(0)), unscaled);
        assert_eq!(two("16", Source::Cpu(0)), unscaled);
        assert_eq!(two("1", Source::Gpgpu), unscaled);
        // ACT 0, RD 1 (data 1+14+4, +13 of tRCD owed = 32); PRE 2, ACT 3, RD 4 (data 4+14+4,
        // +13 tRP +13 tRCD owed = 48): the bank was held 3 + 3 cycles, not 50 + 50.
        assert_eq!(two("16", Source::Gfx(0)), (vec![(1, 32), (2, 48)], 2 * 3));
        assert_eq!(two("16", Source::Gpgpu).1, 6);
        // div 4: tRCD 4 (3.5 rounded), tRAS 9, tRP 4 (3.5), tRC 13 (12.5), tRTP 2.
        let (d, bank) = two("4", Source::Gfx(0));
        assert_eq!(bank, 2 * 13);
        assert_eq!(d[0], (1, 32));
        // PRE at max(tRAS 9, RD 4 + tRTP 2) = 9, ACT at max(9 + 4, tRC 13) = 13, RD 17, data
        // 17 + 18 + (14 - 4) + (14 - 4) = 55.
        assert_eq!(d[1], (2, 55));
        // A CPU read behind a scaled GPU row miss waits for the GPU's bank time only.
        let mut c = HeteroConfig::preset("hetero").unwrap();
        c.set("dram.gpu_bus_div", "16").unwrap();
        c.set("dram.gpu_bank_scaled", "true").unwrap();
        let mut p = policy::create(&c.policy).unwrap();
        let mut ch = Channel::new(&c.dram);
        ch.reads.push(entry(1, 0, 5, Source::Gfx(0), 0));
        ch.reads.push(entry(2, 0, 6, Source::Cpu(0), 0));
        let d = run(&mut ch, p.as_mut(), 0, 400);
        // PRE at 2 (CPU: tRP 14), ACT 16, RD 30, data 30 + 18 = 48, nothing owed.
        assert_eq!(d, vec![(1, 32), (2, 48)]);
        assert_eq!(ch.stats.bank_cycles, 3 + 50);
    }

    #[test]
    fn frfcfs_serves_a_younger_row_hit_before_an_older_conflict() {
        let c = HeteroConfig::preset("hetero").unwrap();
        let mut p = policy::create(&c.policy).unwrap();
        let mut ch = Channel::new(&c.dram);
        ch.reads.push(entry(1, 0, 5, Source::Cpu(0), 0));
        run(&mut ch, p.as_mut(), 0, 20); // row 5 open, tok 1 issued at 14
        ch.reads.push(entry(2, 0, 7, Source::Cpu(1), 21));
        ch.reads.push(entry(3, 0, 5, Source::Cpu(2), 22));
        let d = run(&mut ch, p.as_mut(), 20, 300);
        let order: Vec<u64> = d.iter().map(|x| x.0).collect();
        assert_eq!(order, vec![3, 2]);
        assert_eq!(ch.stats.row_hits, 1);
    }

    /// DRAMSim2's open-page row-access cap (`dram.row_hit_cap`, spec 004 §5.1's DRAM
    /// simulator): after `cap` row hits since its activation a row stops serving column
    /// accesses and is closed, so an older conflicting request goes next instead of waiting
    /// behind an endless stream of younger row hits; uncapped FR-FCFS serves every hit first.
    #[test]
    fn row_hit_cap_closes_a_row_after_cap_hits_for_an_older_conflict() {
        let order = |cap: &str| {
            let mut c = HeteroConfig::preset("hetero").unwrap();
            c.set("dram.row_hit_cap", cap).unwrap();
            let mut p = policy::create(&c.policy).unwrap();
            let mut ch = Channel::new(&c.dram);
            ch.reads.push(entry(1, 0, 5, Source::Gpgpu, 0));
            run(&mut ch, p.as_mut(), 0, 10); // row 5 activated for tok 1
            ch.reads.push(entry(2, 0, 7, Source::Cpu(0), 10)); // the older conflict
            for t in 3..9 {
                ch.reads.push(entry(t, 0, 5, Source::Gpgpu, 8 + t)); // six younger row hits
            }
            let d = run(&mut ch, p.as_mut(), 10, 1000);
            (d.iter().map(|x| x.0).collect::<Vec<u64>>(), ch.stats)
        };
        let (o, st) = order("0");
        assert_eq!(o, vec![1, 3, 4, 5, 6, 7, 8, 2], "uncapped: every hit first");
        assert_eq!((st.row_hits, st.activates, st.precharges), (6, 2, 1));
        let (o, st) = order("4");
        assert_eq!(o, vec![1, 3, 4, 5, 6, 2, 7, 8], "4 hits, then the conflict");
        // Row 5 opened twice (its last two requests re-activate it), row 7 once.
        assert_eq!((st.row_hits, st.activates, st.precharges), (5, 3, 2));
    }

    /// Spec 004 §5.3/§5.5: the policy ranks every pending request, so a read waiting for a
    /// full read queue enters it in the policy's order, not in arrival order.
    #[test]
    fn full_read_queue_admits_waiting_reads_in_the_policy_order() {
        let mut c = HeteroConfig::preset("hetero").unwrap();
        c.set("dram.read_queue", "2").unwrap();
        let admitted_with = |name: &str, gpu_favoring_cpu_over_ng: bool| {
            let mut pc = c.policy.clone();
            pc.name = name.to_string();
            pc.gpu_favoring_cpu_over_ng = gpu_favoring_cpu_over_ng;
            let mut p = policy::create(&pc).unwrap();
            let mut ch = Channel::new(&c.dram);
            ch.reads.push(entry(1, 0, 1, Source::Gpgpu, 0));
            ch.reads.push(entry(2, 1, 1, Source::Gpgpu, 1));
            let mut waiting: std::collections::VecDeque<_> = [
                entry(3, 2, 1, Source::Gpgpu, 2),
                entry(4, 3, 1, Source::Gpgpu, 3),
                entry(5, 4, 1, Source::Cpu(0), 4),
            ]
            .into();
            let g = GpuStatus::default();
            let ctx = Ctx {
                now: 10,
                dram_now: 10,
                gpu: &g,
            };
            assert_eq!(ch.admit(&mut waiting, &ctx, 0, p.as_mut()), 0, "queue full");
            ch.reads.remove(0);
            assert_eq!(ch.admit(&mut waiting, &ctx, 0, p.as_mut()), 1);
            assert_eq!(waiting.len(), 2);
            ch.reads.last().unwrap().tok
        };
        let admitted = |name: &str| admitted_with(name, c.policy.gpu_favoring_cpu_over_ng);
        // IM and GPU-favoring rank the CPU read above non-critical GPU reads (§4.3, the
        // digest's §5.5 levels); GPU-favoring's ablation `gpu_favoring_cpu_over_ng = false`
        // raises only critical GPU reads: none here, so the oldest.
        assert_eq!(admitted("im"), 5);
        assert_eq!(admitted("gpu_favoring"), 5);
        assert_eq!(admitted_with("gpu_favoring", false), 3);
        // FR-FCFS: no row is open, so the oldest.
        assert_eq!(admitted("frfcfs"), 3);
        // All-GPU priority: the oldest GPU read.
        assert_eq!(admitted("all_gpu"), 3);
    }

    #[test]
    fn frfcfs_admits_a_waiting_row_hit_first() {
        let mut c = HeteroConfig::preset("hetero").unwrap();
        c.set("dram.read_queue", "1").unwrap();
        let mut p = policy::create(&c.policy).unwrap();
        let mut ch = Channel::new(&c.dram);
        ch.reads.push(entry(1, 0, 5, Source::Cpu(0), 0));
        run(&mut ch, p.as_mut(), 0, 20); // opens row 5 of bank 0, serves tok 1
        assert!(ch.reads.is_empty());
        let mut waiting: std::collections::VecDeque<_> = [
            entry(2, 0, 9, Source::Cpu(1), 21),
            entry(3, 0, 5, Source::Cpu(2), 22),
        ]
        .into();
        let g = GpuStatus::default();
        let ctx = Ctx {
            now: 30,
            dram_now: 30,
            gpu: &g,
        };
        assert_eq!(ch.admit(&mut waiting, &ctx, 0, p.as_mut()), 1);
        assert_eq!(ch.reads[0].tok, 3, "the younger row hit enters first");
    }

    #[test]
    fn fifo_admission_takes_the_oldest_waiting_read_whatever_the_policy() {
        // DRAMSim2's transaction queue is fed in arrival order: a waiting CPU read that arrived
        // first enters before younger GPU row hits, under FR-FCFS and GPU-favoring alike; and a
        // younger CPU read does not overtake older GPU reads at admission.
        let mut c = HeteroConfig::preset("hetero").unwrap();
        c.set("dram.read_queue", "1").unwrap();
        c.set("dram.fifo_admission", "true").unwrap();
        for name in ["frfcfs", "gpu_favoring", "im", "sms_0"] {
            let mut pc = c.policy.clone();
            pc.name = name.to_string();
            let mut p = policy::create(&pc).unwrap();
            let mut ch = Channel::new(&c.dram);
            let g = GpuStatus::default();
            let ctx = Ctx {
                now: 0,
                dram_now: 0,
                gpu: &g,
            };
            let mut first: std::collections::VecDeque<_> =
                [entry(1, 0, 5, Source::Gpgpu, 0)].into();
            ch.admit(&mut first, &ctx, 0, p.as_mut());
            run(&mut ch, p.as_mut(), 0, 5000); // opens row 5 of bank 0 (SMS batches first)
            assert!(ch.reads.is_empty(), "{name}");
            let mut waiting: std::collections::VecDeque<_> = [
                entry(2, 0, 9, Source::Cpu(1), 21),
                entry(3, 0, 5, Source::Gpgpu, 22),
                entry(4, 1, 5, Source::Cpu(0), 23),
            ]
            .into();
            let g = GpuStatus::default();
            let ctx = Ctx {
                now: 30,
                dram_now: 30,
                gpu: &g,
            };
            let mut order = vec![];
            while !waiting.is_empty() {
                assert_eq!(ch.admit(&mut waiting, &ctx, 0, p.as_mut()), 1, "{name}");
                order.push(ch.reads.pop().unwrap().tok);
            }
            assert_eq!(order, vec![2, 3, 4], "{name}");
        }
        // Without it FR-FCFS admits the younger row hit first (frfcfs_admits_a_waiting_row_hit_first).
    }

    #[test]
    fn mapping_keeps_a_row_of_blocks_together_and_alternates_channels() {
        let c = HeteroConfig::preset("hetero").unwrap().dram;
        let a = locate(&c, 0);
        let b = locate(&c, 127);
        assert_eq!((a.channel, a.bank, a.row), (b.channel, b.bank, b.row));
        assert_ne!(locate(&c, 128).channel, a.channel);
    }
}
