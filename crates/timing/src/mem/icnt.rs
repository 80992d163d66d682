//! One direction of the interconnect (spec 000 §8.1 item 4): a crossbar from `n_src` injection
//! queues to `n_dst` ejection buffers. Each cycle every free destination port takes the head
//! packet of one source (round robin among the sources whose head targets it); a packet of `f`
//! flits holds its source and destination ports for `ceil(f / flits_per_cycle)` cycles and
//! arrives `latency` cycles after its head flit left. Ejection buffers are bounded (in-flight plus
//! arrived packets), which back-pressures the sources. Two instances form the request and reply
//! networks, as in GPGPU-Sim's two subnets.
//!
//! Decision: the single-stage butterfly of GPGPU-Sim's `config_fermi_islip.icnt` is modelled as
//! this crossbar with a fixed pipeline latency (no VC or iSLIP allocation detail).

use super::req::MemReq;
use crate::config::IcntConfig;
use crate::stats::counters;
use std::collections::VecDeque;

counters! {
    /// Traffic of one network.
    NetStats {
        /// Packets delivered.
        packets,
        /// Bytes delivered (headers included).
        bytes,
        /// Flits delivered.
        flits,
    }
}

/// Where a network finds the packets waiting to enter it.
pub trait Sources {
    /// The head packet of source `s`.
    fn head(&self, s: usize) -> Option<&MemReq>;
    /// Removes the head packet of source `s`.
    fn pop(&mut self, s: usize) -> MemReq;
    /// The sources that may have a head this cycle (`None`: every source). A machine with
    /// many idle SMs names only its awake ones, so that the network's cost follows the
    /// traffic, not the machine.
    fn active(&self) -> Option<&[u32]> {
        None
    }
}

/// One network.
pub struct Network {
    header: u32,
    flit_bytes: u32,
    fpc: u32,
    latency: u64,
    cap: usize,
    to_sm: bool,
    src_free: Vec<u64>,
    dst_free: Vec<u64>,
    rr: Vec<usize>,
    heads: Vec<u32>,
    /// Sources whose `heads` entry was set this cycle (the others are `NONE`).
    headed: Vec<u32>,
    dst_q: Vec<VecDeque<(u64, MemReq)>>,
    /// Destinations with a non-empty queue, in no particular order.
    occupied: Vec<u32>,
    /// Scratch: the destinations headed for this cycle.
    dests: Vec<u32>,
    /// Per destination: packets taken out early by [`Network::pop_held`] this cycle, still
    /// counted against the ejection buffer by the next [`Network::cycle`].
    held: Vec<u32>,
    /// Destinations with a non-zero `held` count.
    held_list: Vec<u32>,
    /// Empty queues kept between [`Network::return_queues`] and the next
    /// [`Network::lend_queues`] (their buffers are reused).
    spare: Vec<VecDeque<(u64, MemReq)>>,
    /// Counters.
    pub stats: NetStats,
}

const NONE: u32 = u32::MAX;

impl Network {
    /// A network from `n_src` sources to `n_dst` destinations; `to_sm` routes by `req.sm`
    /// (replies), otherwise by `req.slice` (requests).
    pub fn new(c: &IcntConfig, n_src: usize, n_dst: usize, to_sm: bool) -> Self {
        Self::build(c, n_src, n_dst, to_sm, true)
    }

    /// [`Network::new`] whose destinations get their buffers from [`Network::reserve_dst`]
    /// (the reply network of a GPU whose SMs are built at their first CTA: a destination that
    /// never receives a packet costs no buffer).
    pub fn new_lazy(c: &IcntConfig, n_src: usize, n_dst: usize, to_sm: bool) -> Self {
        Self::build(c, n_src, n_dst, to_sm, false)
    }

    /// Allocates destination `d`'s buffer (as [`Network::new`] does for every destination), so
    /// that the queue does not grow while packets flow.
    pub fn reserve_dst(&mut self, d: usize) {
        let q = &mut self.dst_q[d];
        q.reserve(self.cap.min(64).saturating_sub(q.len()));
    }

    fn build(c: &IcntConfig, n_src: usize, n_dst: usize, to_sm: bool, buffers: bool) -> Self {
        // The request network's L2-slice destinations buffer `output_buffer` packets when set.
        let cap = if !to_sm && c.output_buffer > 0 {
            c.output_buffer
        } else {
            c.ejection_buffer
        };
        Self {
            header: c.header_bytes,
            flit_bytes: c.flit_bytes,
            fpc: c.flits_per_cycle,
            latency: c.latency.max(1) as u64,
            cap: cap as usize,
            to_sm,
            src_free: vec![0; n_src],
            dst_free: vec![0; n_dst],
            rr: vec![0; n_dst],
            heads: vec![NONE; n_src],
            headed: Vec::with_capacity(n_src.min(64)),
            occupied: Vec::with_capacity(n_dst.min(64)),
            dests: Vec::with_capacity(n_dst.min(64)),
            held: vec![0; n_dst],
            held_list: Vec::new(),
            spare: Vec::new(),
            dst_q: (0..n_dst)
                .map(|_| {
                    if buffers {
                        VecDeque::with_capacity(cap.min(64) as usize)
                    } else {
                        VecDeque::new()
                    }
                })
                .collect(),
            stats: NetStats::default(),
        }
    }

    /// Flits of a packet.
    pub fn flits(&self, r: &MemReq) -> u32 {
        r.wire_bytes(self.header).div_ceil(self.flit_bytes)
    }

    /// Whether packets are in flight or waiting at a destination.
    pub fn busy(&self) -> bool {
        !self.occupied.is_empty()
    }

    /// Idle skipping: the earliest cycle (of this network's clock, `>= now`) at which a packet
    /// reaches the head of an ejection buffer; `None` when nothing is in flight. Injection is
    /// not covered: the caller checks that every source queue is empty.
    pub fn next_event(&self, now: u64) -> Option<u64> {
        self.occupied
            .iter()
            .filter_map(|&d| self.dst_q[d as usize].front().map(|&(t, _)| t.max(now)))
            .min()
    }

    /// The destinations that have packets queued (arrived or in flight), in no particular order.
    pub fn occupied(&self) -> &[u32] {
        &self.occupied
    }

    /// One interconnect cycle.
    pub fn cycle(&mut self, now: u64, src: &mut impl Sources) {
        for s in self.headed.drain(..) {
            self.heads[s as usize] = NONE;
        }
        let ns = self.heads.len();
        let scan = |s: usize, heads: &mut [u32], headed: &mut Vec<u32>| {
            if let Some(r) = src.head(s) {
                if self.src_free[s] <= now {
                    heads[s] = if self.to_sm {
                        r.sm as u32
                    } else {
                        r.slice as u32
                    };
                    headed.push(s as u32);
                }
            }
        };
        match src.active() {
            Some(list) => {
                for &s in list {
                    scan(s as usize, &mut self.heads, &mut self.headed);
                }
            }
            None => {
                for s in 0..ns {
                    scan(s, &mut self.heads, &mut self.headed);
                }
            }
        }
        if self.headed.is_empty() {
            return;
        }
        // Destinations are independent (a source heads for one destination only), so only
        // those some source heads for are visited.
        let mut dests = std::mem::take(&mut self.dests);
        dests.clear();
        dests.extend(self.headed.iter().map(|&s| self.heads[s as usize]));
        dests.sort_unstable();
        dests.dedup();
        for &d in &dests {
            let d = d as usize;
            if self.dst_free[d] > now || self.dst_q[d].len() + self.held[d] as usize >= self.cap {
                continue;
            }
            // Round robin: the first source at or after `rr[d]` (cyclically) headed for `d`.
            let start = self.rr[d];
            let pick = self
                .headed
                .iter()
                .map(|&s| s as usize)
                .filter(|&s| self.heads[s] == d as u32)
                .min_by_key(|&s| (s + ns - start) % ns);
            let Some(s) = pick else { continue };
            let r = src.pop(s);
            self.heads[s] = NONE;
            let f = self.flits(&r);
            let occ = f.div_ceil(self.fpc) as u64;
            self.src_free[s] = now + occ;
            self.dst_free[d] = now + occ;
            self.rr[d] = (s + 1) % ns;
            self.stats.packets += 1;
            self.stats.flits += f as u64;
            self.stats.bytes += r.wire_bytes(self.header) as u64;
            if self.dst_q[d].is_empty() {
                self.occupied.push(d as u32);
            }
            self.dst_q[d].push_back((now + self.latency + occ - 1, r));
        }
        self.dests = dests;
    }

    /// Moves every destination's queue of (arrival cycle, packet) out of the network, so that
    /// the window engine's memory partitions (`sim.window_partitions`) can each take their own
    /// slices' arrivals on any thread; [`Network::restore_queues`] puts them back. Nothing may
    /// use the network in between.
    pub fn take_queues(&mut self) -> Vec<VecDeque<(u64, MemReq)>> {
        std::mem::take(&mut self.dst_q)
    }

    /// [`Network::take_queues`] while the network keeps running: every destination's queue
    /// moves out, and the packets in it still count against its buffer (as [`Network::pop_held`]
    /// ones do) until [`Network::return_queues`]; the network's own queues start empty and
    /// take what it delivers meanwhile. Lets the window engine run a span's request network
    /// while its memory partitions take the arrivals that were queued before it
    /// (`gpu/parts.rs`).
    pub fn lend_queues(&mut self) -> Vec<VecDeque<(u64, MemReq)>> {
        debug_assert!(self.held_list.is_empty(), "lent with held packets");
        for (d, q) in self.dst_q.iter().enumerate() {
            if !q.is_empty() {
                self.held[d] = q.len() as u32;
                self.held_list.push(d as u32);
            }
        }
        let mut fresh = std::mem::take(&mut self.spare);
        fresh.resize_with(self.dst_q.len(), VecDeque::new);
        std::mem::replace(&mut self.dst_q, fresh)
    }

    /// Takes back the queues [`Network::lend_queues`] lent (packets may have been removed from
    /// their fronts): each destination's packets delivered since follow the lent queue's
    /// remaining ones, in delivery order.
    pub fn return_queues(&mut self, mut q: Vec<VecDeque<(u64, MemReq)>>) {
        self.release_held();
        for (old, new) in q.iter_mut().zip(self.dst_q.iter_mut()) {
            if old.is_empty() {
                std::mem::swap(old, new);
            } else if !new.is_empty() {
                old.extend(new.drain(..));
            }
        }
        self.spare = std::mem::take(&mut self.dst_q);
        self.restore_queues(q);
    }

    /// Interconnect cycles from a packet's head flit leaving its source to its arrival, at
    /// least 1 (`icnt.latency`).
    pub fn latency(&self) -> u64 {
        self.latency
    }

    /// Puts back the queues [`Network::take_queues`] moved out (packets may have been removed
    /// from their fronts).
    pub fn restore_queues(&mut self, q: Vec<VecDeque<(u64, MemReq)>>) {
        self.dst_q = q;
        self.occupied.clear();
        let occupied = (0..self.dst_q.len()).filter(|&d| !self.dst_q[d].is_empty());
        self.occupied.extend(occupied.map(|d| d as u32));
    }

    /// The packet that has arrived at destination `d` by `now`, if any (not removed).
    pub fn peek(&self, d: usize, now: u64) -> Option<&MemReq> {
        match self.dst_q[d].front() {
            Some((t, r)) if *t <= now => Some(r),
            _ => None,
        }
    }

    /// Removes the packet `peek` returned.
    pub fn pop(&mut self, d: usize) -> MemReq {
        let r = self.dst_q[d].pop_front().expect("peeked").1;
        if self.dst_q[d].is_empty() {
            let k = self.occupied.iter().position(|&o| o as usize == d);
            self.occupied
                .swap_remove(k.expect("a queued destination is listed"));
        }
        r
    }

    /// [`Network::pop`] ahead of this cycle's [`Network::cycle`]: the packet leaves the
    /// ejection buffer now but still occupies its slot for the next `cycle`'s back-pressure
    /// check, as if it had been removed after it. This lets the engine hand a cycle's arrived
    /// replies to the SMs before it runs the rest of the memory side of that cycle (the
    /// overlapped engine of [`crate::gpu`]); [`Network::release_held`] ends the cycle.
    pub fn pop_held(&mut self, d: usize) -> MemReq {
        let r = self.pop(d);
        if self.held[d] == 0 {
            self.held_list.push(d as u32);
        }
        self.held[d] += 1;
        r
    }

    /// Forgets the [`Network::pop_held`] counts (after the cycle they belong to).
    pub fn release_held(&mut self) {
        for d in self.held_list.drain(..) {
            self.held[d as usize] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem::req::{ReqKind, ReqSrc};

    struct Q(Vec<VecDeque<MemReq>>);
    impl Sources for Q {
        fn head(&self, s: usize) -> Option<&MemReq> {
            self.0[s].front()
        }
        fn pop(&mut self, s: usize) -> MemReq {
            self.0[s].pop_front().unwrap()
        }
    }

    fn req(kind: ReqKind, bytes: u32, slice: u16) -> MemReq {
        MemReq {
            addr: 0,
            bytes,
            kind,
            src: ReqSrc::L1d,
            bypass: false,
            sm: 0,
            slice,
            id: 0,
            born: 0,
            crit: false,
            miss_pc: 0,
        }
    }

    fn cfg() -> IcntConfig {
        crate::GpuConfig::preset("gtx480").unwrap().icnt
    }

    #[test]
    fn latency_serialisation_and_byte_counts() {
        let mut c = cfg();
        c.flits_per_cycle = 1;
        let mut n = Network::new(&c, 2, 2, false);
        // A 128 B write = 136 B = 4 flits of 40 B; a read = 1 flit.
        let mut q = Q(vec![
            VecDeque::from(vec![req(ReqKind::Write, 128, 0), req(ReqKind::Read, 0, 0)]),
            VecDeque::new(),
        ]);
        let mut arrivals = vec![];
        for now in 0..20 {
            n.cycle(now, &mut q);
            while n.peek(0, now).is_some() {
                arrivals.push((now, n.pop(0).kind));
            }
        }
        // Write leaves at 0, holds the port 4 cycles, arrives at 0 + 4 + 3 = 7; read leaves at 4.
        assert_eq!(arrivals, vec![(7, ReqKind::Write), (8, ReqKind::Read)]);
        assert_eq!(n.stats.bytes, 136 + 8);
        assert_eq!(n.stats.flits, 5);
    }

    #[test]
    fn destination_contention_round_robins_and_backpressures() {
        let mut c = cfg();
        c.ejection_buffer = 2;
        let mut n = Network::new(&c, 2, 1, false);
        let mut q = Q(vec![
            VecDeque::from(vec![req(ReqKind::Read, 0, 0); 3]),
            VecDeque::from(vec![req(ReqKind::Read, 0, 0); 3]),
        ]);
        for now in 0..10 {
            n.cycle(now, &mut q);
        }
        // Nothing drained: only 2 packets admitted, one from each source.
        assert_eq!((q.0[0].len(), q.0[1].len()), (2, 2));
        let mut got = 0;
        for now in 10..40 {
            while n.peek(0, now).is_some() {
                n.pop(0);
                got += 1;
            }
            n.cycle(now, &mut q);
        }
        assert_eq!(got, 6);
    }

    /// `icnt.output_buffer` sizes the request network's L2-slice buffers (GPGPU-Sim's local
    /// crossbar output buffer); the reply network's SM buffers keep `ejection_buffer`.
    #[test]
    fn output_buffer_sizes_the_request_network_destinations_only() {
        let mut c = cfg();
        c.ejection_buffer = 2;
        c.output_buffer = 5;
        let admitted = |c: &IcntConfig, to_sm: bool| {
            let mut n = Network::new(c, 2, 1, to_sm);
            let mut q = Q(vec![
                VecDeque::from(vec![req(ReqKind::Read, 0, 0); 4]),
                VecDeque::from(vec![req(ReqKind::Read, 0, 0); 4]),
            ]);
            for now in 0..40 {
                n.cycle(now, &mut q);
            }
            8 - q.0[0].len() - q.0[1].len()
        };
        assert_eq!(admitted(&c, false), 5, "requests: output_buffer");
        assert_eq!(admitted(&c, true), 2, "replies: ejection_buffer");
        c.output_buffer = 0;
        assert_eq!(admitted(&c, false), 2, "0: ejection_buffer for both");
    }

    /// Taking arrived packets out with `pop_held` before a cycle back-pressures that cycle
    /// exactly like taking them out after it; a plain `pop` before the cycle would not.
    /// A span of `icnt.latency` cycles run with the queues lent (the consumer takes arrivals
    /// from the lent queues while the network runs) leaves the network exactly as running the
    /// span first and taking the arrivals after it: the lent packets back-pressure the sources,
    /// and the span's deliveries follow what the consumer left.
    #[test]
    fn lent_queues_back_pressure_and_merge_like_a_sequential_span() {
        let mut c = cfg();
        c.ejection_buffer = 3;
        c.latency = 4;
        let traffic = || {
            Q(vec![
                VecDeque::from(vec![req(ReqKind::Read, 0, 0); 6]),
                VecDeque::from(vec![req(ReqKind::Read, 0, 0); 6]),
            ])
        };
        let arrivals = |n: &Network| n.dst_q[0].iter().map(|&(t, _)| t).collect::<Vec<_>>();
        let mut runs = vec![];
        for lend in [false, true] {
            let (mut n, mut q) = (Network::new(&c, 2, 1, false), traffic());
            for now in 0..5 {
                n.cycle(now, &mut q);
            }
            let mut log = vec![];
            for span in [5u64, 9, 13, 17, 21, 25] {
                // The consumer takes two arrivals per span at most (a slow slice).
                let take = |qs: &mut Vec<VecDeque<(u64, MemReq)>>, log: &mut Vec<u64>| {
                    for _ in 0..2 {
                        if qs[0].front().is_some_and(|&(t, _)| t < span + 4) {
                            log.push(qs[0].pop_front().unwrap().0);
                        }
                    }
                };
                if lend {
                    let mut qs = n.lend_queues();
                    take(&mut qs, &mut log);
                    for now in span..span + 4 {
                        n.cycle(now, &mut q);
                    }
                    n.return_queues(qs);
                } else {
                    for now in span..span + 4 {
                        n.cycle(now, &mut q);
                    }
                    let mut qs = n.take_queues();
                    take(&mut qs, &mut log);
                    n.restore_queues(qs);
                }
                log.push(1000 + n.stats.packets);
                log.extend(arrivals(&n));
            }
            runs.push(log);
        }
        assert_eq!(runs[0], runs[1]);
        // The buffer (3 packets) filled and drained: more than 3 packets got through.
        assert!(
            runs[0].iter().any(|&x| (1004..2000).contains(&x)),
            "the consumer freed room: {:?}",
            runs[0]
        );
    }

    #[test]
    fn held_pops_count_until_the_cycle_ends() {
        let mut c = cfg();
        c.ejection_buffer = 1;
        c.latency = 1;
        // Same traffic three times: pop after each cycle, `pop_held` before it, `pop` before it.
        let mut log = [vec![], vec![], vec![]];
        for (k, log) in log.iter_mut().enumerate() {
            let mut n = Network::new(&c, 2, 1, false);
            let mut q = Q(vec![
                VecDeque::from(vec![req(ReqKind::Read, 0, 0); 4]),
                VecDeque::from(vec![req(ReqKind::Read, 0, 0); 4]),
            ]);
            for now in 0..40 {
                if k > 0 {
                    while n.peek(0, now).is_some() {
                        if k == 1 {
                            n.pop_held(0);
                        } else {
                            n.pop(0);
                        }
                        log.push(now);
                    }
                }
                n.cycle(now, &mut q);
                n.release_held();
                if k == 0 {
                    while n.peek(0, now).is_some() {
                        n.pop(0);
                        log.push(now);
                    }
                }
            }
            assert_eq!(log.len(), 8, "every packet delivered");
        }
        assert_eq!(
            log[0], log[1],
            "held pops back-pressure like pops after the cycle"
        );
        // A one-packet buffer admits a packet every other cycle when the slot is freed after
        // the cycle, every cycle when freed before it.
        assert_eq!(log[0], [1, 3, 5, 7, 9, 11, 13, 15]);
        assert_ne!(log[0], log[2]);
    }
}
