//! The GPU's side of the memory interface: the GPU-internal caches, the miss table mapping tokens
//! to fills, the outgoing queue to the LLC and the per-access criticality bit (section 2.6).

use std::collections::VecDeque;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::bottleneck::Bottleneck;
use crate::cache::{Cache, State};
use crate::mem::{Access, GpuMemory, BLOCK};
use crate::stream::Stream;
use warpforge_hetero::fasthash::FastMap;

/// How accesses get their critical bit.
#[derive(Clone, Debug, PartialEq)]
pub enum Marking {
    /// Section 2.6: the originating unit is bottlenecked and the predicted FPS is below target.
    Algorithm,
    /// No access is critical.
    Never,
    /// Every access is critical.
    Always,
    /// Each access of stream `s` is critical with probability `p[s as usize]` (claim 5's random
    /// marking with the algorithm's per-stream critical counts).
    Random([f64; 8]),
    /// Diagnostic (claims 5 and 8, not a mechanism): [`Marking::Algorithm`] with the units set
    /// here (index = `Unit as usize`) taken as bottlenecked at every period, through the same
    /// frame-rate gate: how much of a policy's result the unmarked accesses of one unit carry.
    AlgorithmWith([bool; 5]),
}

/// Per-stream access counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct StreamCounts {
    /// Reads (misses of the GPU-internal cache sent to the LLC), per stream.
    pub reads: [u64; 8],
    /// Writes (write-backs, blitter stores), per stream.
    pub writes: [u64; 8],
    /// Accesses with the critical bit, per stream.
    pub critical: [u64; 8],
    /// Accesses whose unit Algorithm 1 had flagged at issue, before the frame-rate gate (the
    /// classification of Figures 8-9; diagnostic of claim 4), per stream.
    pub marked: [u64; 8],
}

impl StreamCounts {
    /// All accesses.
    pub fn total(&self) -> u64 {
        self.reads.iter().chain(&self.writes).sum()
    }

    /// All critical accesses.
    pub fn total_critical(&self) -> u64 {
        self.critical.iter().sum()
    }
}

/// Caches, miss tokens and the outgoing queue.
pub struct MemIf {
    /// The caches, indexed by the ids the pipeline assigns.
    pub caches: Vec<Cache>,
    streams: Vec<Stream>,
    pending: Vec<usize>,
    tokens: Vec<Option<(usize, u64)>>,
    free_tokens: Vec<u64>,
    in_flight: usize,
    out: VecDeque<Access>,
    cap: usize,
    done: Vec<u64>,
    filled: Vec<(usize, u64)>,
    /// The bottleneck vector of the last Algorithm 1 run.
    pub bottleneck: Bottleneck,
    /// The frame-rate estimator predicts FPS below target.
    pub below_target: bool,
    /// Marking rule.
    pub marking: Marking,
    rng: ChaCha8Rng,
    /// Access counts.
    pub counts: StreamCounts,
    /// The critical bit and the token of every read in flight, by [`awaited_key`] (which reads
    /// the units wait for, [`MemIf::awaited`]; the token of a read to raise).
    awaited: FastMap<u64, (bool, u64)>,
    /// A non-critical read in flight that an access marked critical now finds pending (a
    /// secondary miss merging into it) becomes critical ([`crate::pipeline::Config::raise_pending`]).
    pub raise_pending: bool,
    /// Reads already sent to the memory side that were raised since the last
    /// [`MemIf::tick`]: (token, address), handed to [`GpuMemory::upgrade`] there.
    raised: Vec<(u64, u64)>,
    /// Reads raised so far (diagnostic).
    pub raised_reads: u64,
    /// The (cache, block) pairs of the quads looked at so far in the current look-ahead window
    /// ([`MemIf::window_start`], [`MemIf::ensure_window`]).
    window: Vec<(usize, u64)>,
}

/// The key of block `block` of cache `c` in [`MemIf`]'s in-flight table.
fn awaited_key(c: usize, block: u64) -> u64 {
    ((c as u64) << 40) | block
}

impl MemIf {
    /// An interface with an outgoing queue of `cap` reads.
    pub fn new(cap: usize, marking: Marking, seed: u64) -> Self {
        Self {
            caches: Vec::new(),
            streams: Vec::new(),
            pending: Vec::new(),
            tokens: Vec::new(),
            free_tokens: Vec::new(),
            in_flight: 0,
            out: VecDeque::new(),
            cap,
            done: Vec::new(),
            filled: Vec::new(),
            bottleneck: [false; 5],
            below_target: true,
            marking,
            rng: ChaCha8Rng::seed_from_u64(seed),
            counts: StreamCounts::default(),
            awaited: FastMap::default(),
            raise_pending: false,
            raised: Vec::new(),
            raised_reads: 0,
            window: Vec::new(),
        }
    }

    /// Adds a cache whose write-backs belong to `stream`; returns its id.
    pub fn add_cache(&mut self, bytes: u64, ways: usize, stream: Stream) -> usize {
        self.caches.push(Cache::new(bytes, ways));
        self.streams.push(stream);
        self.pending.push(0);
        self.caches.len() - 1
    }

    fn critical(&mut self, s: Stream) -> bool {
        match &self.marking {
            Marking::Algorithm => self.bottleneck[s.unit() as usize] && self.below_target,
            Marking::AlgorithmWith(forced) => {
                let u = s.unit() as usize;
                (self.bottleneck[u] || forced[u]) && self.below_target
            }
            Marking::Never => false,
            Marking::Always => true,
            Marking::Random(p) => {
                let p = p[s as usize];
                self.rng.gen_bool(p.clamp(0.0, 1.0))
            }
        }
    }

    /// Whether an access of stream `s` would be marked critical now, without a random draw:
    /// the algorithm's markings; `Always` reads are critical from their issue, `Never` reads
    /// never, and random marking draws once per read at its issue.
    fn marks_now(&self, s: Stream) -> bool {
        match &self.marking {
            Marking::Algorithm => self.bottleneck[s.unit() as usize] && self.below_target,
            Marking::AlgorithmWith(forced) => {
                let u = s.unit() as usize;
                (self.bottleneck[u] || forced[u]) && self.below_target
            }
            Marking::Never | Marking::Always | Marking::Random(_) => false,
        }
    }

    /// An access of stream `s` to `block` of cache `c` found the block pending (a read in
    /// flight): with [`MemIf::raise_pending`], if the access is critical now and the read was
    /// sent non-critical, the read becomes critical (section 4.1.1: "all accesses originating
    /// from [a bottlenecked unit] are classified as critical"; section 4.3: "Every DRAM access
    /// coming from the GPU carries a bit ... specifying if the access is critical": the read
    /// in flight is the DRAM access that serves this critical access). Still queued here, its
    /// bit is set in place; already sent, the memory side is told at the next
    /// [`MemIf::tick`]. The GPGPU side does the same for a critical access merging into a
    /// pending non-critical one (`warpforge_hetero::MemSystem::upgrade_critical`).
    fn merge(&mut self, c: usize, block: u64, s: Stream) {
        if !self.raise_pending || !self.marks_now(s) {
            return;
        }
        let token = match self.awaited.get_mut(&awaited_key(c, block)) {
            Some((crit, token)) if !*crit => {
                *crit = true;
                *token
            }
            _ => return,
        };
        self.raised_reads += 1;
        if let Some(a) = self.out.iter_mut().find(|a| !a.write && a.token == token) {
            a.critical = true;
        } else {
            self.raised.push((token, block * BLOCK));
        }
    }

    /// Whether `block` is in cache `c`; if not, requests it (once) when the queue has room.
    pub fn ensure(&mut self, c: usize, block: u64, s: Stream) -> bool {
        self.ensure_state(c, block, s) == State::Hit
    }

    /// [`MemIf::ensure`] returning the state found: `Miss` when a request was due (sent or
    /// not), the only case with an effect.
    pub fn ensure_state(&mut self, c: usize, block: u64, s: Stream) -> State {
        let st = self.caches[c].state(block);
        match st {
            State::Miss => {
                self.request(c, block, s);
            }
            State::Pending => self.merge(c, block, s),
            State::Hit => {}
        }
        st
    }

    /// Starts the look-ahead window of an in-order unit (ZS, CW): the quads it holds are then
    /// looked at head first with [`MemIf::ensure_window`].
    pub fn window_start(&mut self) {
        self.window.clear();
    }

    /// The look-ahead for the next quad of the window: requests the missing blocks of `blocks`
    /// in cache `c` as [`MemIf::ensure_state`] does, except that a request never evicts a block
    /// of a quad ahead of this one in the window, nor another block of this quad. \[INTERP\]
    /// The look-ahead prefetches for the quads behind the head (section 2.1's units work in
    /// order); without this rule a window whose blocks alias in more sets' ways than the cache
    /// has lets the fills for later quads evict the head's blocks again and again, a livelock
    /// (issue 16: GT1 under IM stood for good at draw command 193 with CW 0's head quad and
    /// four quads behind it on the same four sets of its 4-way colour cache). Returns whether
    /// a block was missing (requested or not).
    pub fn ensure_window(&mut self, c: usize, blocks: std::ops::Range<u64>, s: Stream) -> bool {
        self.window.extend(blocks.clone().map(|b| (c, b)));
        let mut miss = false;
        for b in blocks {
            match self.caches[c].state(b) {
                State::Miss => {
                    self.request_sparing(c, b, s, true);
                    miss = true;
                }
                State::Pending => self.merge(c, b, s),
                State::Hit => {}
            }
        }
        miss
    }

    /// The [`crate::cache::Cache::epoch`] of cache `c`.
    pub fn epoch(&self, c: usize) -> u64 {
        self.caches[c].epoch
    }

    /// [`MemIf::ensure`] followed, on a hit, by a read access of the block (LRU update), with
    /// one tag lookup: the block's state afterwards (`Pending` when it was requested now,
    /// `Miss` when the queue or the set had no room).
    pub fn ensure_read(&mut self, c: usize, block: u64, s: Stream) -> State {
        match self.caches[c].state_at(block) {
            (State::Hit, Some(i)) => {
                self.caches[c].touch(i, false);
                State::Hit
            }
            (State::Pending, _) => {
                self.merge(c, block, s);
                State::Pending
            }
            _ => {
                if self.request(c, block, s) {
                    State::Pending
                } else {
                    State::Miss
                }
            }
        }
    }

    /// Requests missing `block` of cache `c` if the queue and the set have room: whether it did.
    fn request(&mut self, c: usize, block: u64, s: Stream) -> bool {
        self.request_sparing(c, block, s, false)
    }

    /// [`MemIf::request`]; with `spare_window`, the line it reserves holds no block of the
    /// current look-ahead window ([`MemIf::ensure_window`]).
    fn request_sparing(&mut self, c: usize, block: u64, s: Stream, spare_window: bool) -> bool {
        if self.out.len() < self.cap {
            let window = &self.window;
            let reserved = if spare_window {
                self.caches[c].reserve_sparing(block, |b| window.contains(&(c, b)))
            } else {
                self.caches[c].reserve(block)
            };
            match reserved {
                Err(()) => return false,
                Ok(Some(v)) => {
                    let ws = self.streams[c];
                    self.write(v, ws);
                }
                Ok(None) => {}
            }
            let token = match self.free_tokens.pop() {
                Some(t) => t,
                None => {
                    self.tokens.push(None);
                    self.tokens.len() as u64 - 1
                }
            };
            self.tokens[token as usize] = Some((c, block));
            self.in_flight += 1;
            self.pending[c] += 1;
            let critical = self.critical(s);
            let marked = self.bottleneck[s.unit() as usize];
            self.counts.reads[s as usize] += 1;
            self.counts.critical[s as usize] += critical as u64;
            self.counts.marked[s as usize] += marked as u64;
            self.awaited
                .insert(awaited_key(c, block), (critical, token));
            self.out.push_back(Access {
                token,
                addr: block * BLOCK,
                write: false,
                stream: s,
                critical,
                marked,
            });
            return true;
        }
        false
    }

    /// Sends a write of `block` (always accepted; writes do not wait for the queue).
    pub fn write(&mut self, block: u64, s: Stream) {
        let critical = self.critical(s);
        let marked = self.bottleneck[s.unit() as usize];
        self.counts.writes[s as usize] += 1;
        self.counts.critical[s as usize] += critical as u64;
        self.counts.marked[s as usize] += marked as u64;
        self.out.push_back(Access {
            token: u64::MAX,
            addr: block * BLOCK,
            write: true,
            stream: s,
            critical,
            marked,
        });
    }

    /// Writes `block` into cache `c` without fetching it (a full-block write), writing back a dirty
    /// victim.
    pub fn write_allocate(&mut self, c: usize, block: u64) {
        if !self.caches[c].access(block, true) {
            if let Some(v) = self.caches[c].fill(block, true) {
                let s = self.streams[c];
                self.write(v, s);
            }
        }
    }

    /// Writes back every dirty block of cache `c`.
    pub fn flush(&mut self, c: usize) {
        let s = self.streams[c];
        for b in self.caches[c].flush_dirty() {
            self.write(b, s);
        }
    }

    /// One GPU cycle: offers queued accesses to `mem`, advances it, and fills completed reads.
    pub fn tick(&mut self, mem: &mut dyn GpuMemory) {
        while let Some(&a) = self.out.front() {
            if !mem.issue(a) {
                break;
            }
            self.out.pop_front();
        }
        for (token, addr) in self.raised.drain(..) {
            mem.upgrade(token, addr);
        }
        self.done.clear();
        self.filled.clear();
        mem.tick(&mut self.done);
        for i in 0..self.done.len() {
            let t = self.done[i];
            if let Some((c, block)) = self.tokens.get_mut(t as usize).and_then(Option::take) {
                self.free_tokens.push(t);
                self.in_flight -= 1;
                self.pending[c] -= 1;
                self.awaited.remove(&awaited_key(c, block));
                self.filled.push((c, block));
                if let Some(v) = self.caches[c].fill(block, false) {
                    let s = self.streams[c];
                    self.write(v, s);
                }
            }
        }
    }

    /// Reads of cache `c` sent and not yet filled.
    pub fn pending(&self, c: usize) -> usize {
        self.pending[c]
    }

    /// What a unit waiting for `block` of cache `c` waits on: `Some(critical bit)` of its read
    /// in flight, `None` when the block is present or not requested yet (diagnostic).
    pub fn awaited(&self, c: usize, block: u64) -> Option<bool> {
        self.awaited.get(&awaited_key(c, block)).map(|a| a.0)
    }

    /// Reads the outgoing queue can still take.
    pub fn room(&self) -> usize {
        self.cap.saturating_sub(self.out.len())
    }

    /// The (cache, block) fills of the last cycle.
    pub fn filled(&self) -> &[(usize, u64)] {
        &self.filled
    }

    /// Reads sent and not yet completed, plus queued accesses.
    pub fn busy(&self) -> bool {
        self.in_flight > 0 || !self.out.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem::FixedLatency;
    use crate::stream::Unit;

    fn sent(m: &mut MemIf) -> Vec<Access> {
        m.out.drain(..).collect()
    }

    /// Records the upgrades the interface hands to the memory side; accepts every access.
    #[derive(Default)]
    struct Recorder {
        issued: Vec<Access>,
        upgraded: Vec<(u64, u64)>,
    }

    impl GpuMemory for Recorder {
        fn issue(&mut self, a: Access) -> bool {
            self.issued.push(a);
            true
        }
        fn tick(&mut self, _: &mut Vec<u64>) {}
        fn upgrade(&mut self, token: u64, addr: u64) {
            self.upgraded.push((token, addr));
        }
    }

    /// Session 20 (sections 4.1.1, 4.3): a depth read issued while ZS was not flagged, that ZS
    /// finds pending once it is flagged, becomes critical: in place while still queued, through
    /// the memory side once sent (once); a read found pending by a unit that is still not
    /// flagged, or with `raise_pending` off (the rule until session 20), keeps its bit.
    #[test]
    fn a_pending_non_critical_read_is_raised_when_a_critical_access_finds_it() {
        for raise in [true, false] {
            let mut m = MemIf::new(64, Marking::Algorithm, 1);
            m.raise_pending = raise;
            let z = m.add_cache(4 << 10, 4, Stream::Depth);
            // Queued, not yet sent: block 7. Sent: block 8. Both non-critical.
            assert_eq!(m.ensure_read(z, 8, Stream::Depth), State::Pending);
            let mut mem = Recorder::default();
            m.tick(&mut mem);
            assert_eq!(m.ensure_read(z, 7, Stream::Depth), State::Pending);
            assert_eq!(m.awaited(z, 8), Some(false));
            // Found pending while ZS is not flagged: nothing changes.
            m.ensure_window(z, 7..9, Stream::Depth);
            assert_eq!(
                (m.awaited(z, 7), m.awaited(z, 8)),
                (Some(false), Some(false))
            );
            m.bottleneck[Unit::Zs as usize] = true;
            m.ensure_window(z, 7..9, Stream::Depth);
            assert_eq!(m.ensure_state(z, 8, Stream::Depth), State::Pending);
            assert_eq!(m.awaited(z, 7), Some(raise));
            assert_eq!(m.awaited(z, 8), Some(raise));
            assert_eq!(m.raised_reads, if raise { 2 } else { 0 });
            m.tick(&mut mem);
            let seven = mem.issued.iter().find(|a| a.addr == 7 * BLOCK).unwrap();
            assert_eq!(seven.critical, raise, "raised in the outgoing queue");
            let eight = mem.issued.iter().find(|a| a.addr == 8 * BLOCK).unwrap();
            assert!(!eight.critical, "sent before the raise");
            let want = if raise {
                vec![(eight.token, 8 * BLOCK)]
            } else {
                Vec::new()
            };
            assert_eq!(
                mem.upgraded, want,
                "the sent read raised through the memory side"
            );
            // Found again: raised once only.
            m.ensure_state(z, 8, Stream::Depth);
            m.tick(&mut mem);
            assert_eq!(mem.upgraded.len(), want.len());
        }
    }

    /// Section 2.6: an access is critical iff the unit that originates its stream is flagged
    /// and the predicted FPS is below target; every stream of a flagged unit inherits its bit
    /// (SH: texture and shader), the streams of unflagged units stay non-critical, and the
    /// diagnostic `marked` bit is the unit's flag before the gate.
    #[test]
    fn each_stream_inherits_its_units_bit_through_the_gate() {
        let mut m = MemIf::new(64, Marking::Algorithm, 1);
        let ids: Vec<usize> = Stream::ALL
            .iter()
            .map(|&s| m.add_cache(4 << 10, 4, s))
            .collect();
        m.bottleneck = [false; 5];
        m.bottleneck[Unit::Sh as usize] = true;
        for gate in [true, false] {
            m.below_target = gate;
            for (k, &s) in Stream::ALL.iter().enumerate() {
                let block = 1000 * (gate as u64 + 1) + k as u64;
                assert!(m.request(ids[k], block, s));
                m.write(block + 500, s);
            }
            for a in sent(&mut m) {
                let flagged = a.stream.unit() == Unit::Sh;
                assert_eq!(a.marked, flagged, "{:?}", a.stream);
                assert_eq!(a.critical, flagged && gate, "{:?} gate {gate}", a.stream);
            }
        }
        let c = &m.counts;
        assert_eq!(c.marked[Stream::Texture as usize], 4, "2 reads, 2 writes");
        assert_eq!(c.critical[Stream::Texture as usize], 2, "the gated half");
        assert_eq!(c.marked[Stream::Depth as usize], 0);
    }

    /// The diagnostic marking `AlgorithmWith`: the forced unit's streams are critical whatever
    /// Algorithm 1 found, the other units' follow the algorithm, and all pass the gate.
    #[test]
    fn algorithm_with_forces_one_units_streams_through_the_gate() {
        let mut force = [false; 5];
        force[Unit::Fe as usize] = true;
        let mut m = MemIf::new(64, Marking::AlgorithmWith(force), 1);
        let ids: Vec<usize> = Stream::ALL
            .iter()
            .map(|&s| m.add_cache(4 << 10, 4, s))
            .collect();
        m.bottleneck[Unit::Zs as usize] = true;
        for gate in [true, false] {
            m.below_target = gate;
            for (k, &s) in Stream::ALL.iter().enumerate() {
                assert!(m.request(ids[k], 3000 * (gate as u64 + 1) + k as u64, s));
            }
            for a in sent(&mut m) {
                let u = a.stream.unit();
                let want = gate && (u == Unit::Fe || u == Unit::Zs);
                assert_eq!(a.critical, want, "{:?} gate {gate}", a.stream);
                assert_eq!(a.marked, u == Unit::Zs, "marked is Algorithm 1's flag only");
            }
        }
    }

    /// The in-flight table answers which class of read a waiting unit waits on, and forgets a
    /// read once it is filled.
    #[test]
    fn awaited_reads_carry_their_critical_bit_until_filled() {
        let mut m = MemIf::new(64, Marking::Algorithm, 1);
        let tex = m.add_cache(4 << 10, 4, Stream::Texture);
        let z = m.add_cache(4 << 10, 4, Stream::Depth);
        m.bottleneck[Unit::Sh as usize] = true;
        assert_eq!(m.ensure_read(tex, 7, Stream::Texture), State::Pending);
        assert_eq!(m.ensure_read(z, 7, Stream::Depth), State::Pending);
        assert_eq!(m.awaited(tex, 7), Some(true));
        assert_eq!(m.awaited(z, 7), Some(false));
        assert_eq!(m.awaited(tex, 8), None, "never requested");
        let mut mem = FixedLatency::new(3, 1.0);
        for _ in 0..20 {
            m.tick(&mut mem);
        }
        assert!(m.caches[tex].contains(7));
        assert_eq!(m.awaited(tex, 7), None, "filled");
        assert_eq!(m.awaited(z, 7), None);
    }

    /// Issue 16 (GT1 under IM stood still at draw command 193): an in-order unit (CW, ZS) whose
    /// look-ahead window holds more quads on one set than the cache has ways. Driven as the CW
    /// does each cycle (look ahead head first, serve the head when its block is present, then
    /// memory), every quad is served: the look-ahead for the quads behind never evicts the
    /// head's block. Without the sparing rule the fills for the later quads evicted the head's
    /// block before the head could use it, and the window never moved (a livelock).
    #[test]
    fn a_look_ahead_window_aliasing_one_set_still_serves_its_head() {
        let mut m = MemIf::new(64, Marking::Never, 1);
        let c = m.add_cache(64 * 4 * 4, 4, Stream::Colour); // 4 sets of 4 ways
        let set = m.caches[c].set_index(1000);
        // Eight quads, one colour block each, all on one set; a window of five.
        let quads: Vec<u64> = (1000..)
            .filter(|&b| m.caches[c].set_index(b) == set)
            .take(8)
            .collect();
        let mut mem = FixedLatency::new(20, 1.0);
        let mut head = 0;
        for _ in 0..5000 {
            m.window_start();
            for &b in quads[head..].iter().take(5) {
                m.ensure_window(c, b..b + 1, Stream::Colour);
            }
            if m.caches[c].contains(quads[head]) {
                m.write_allocate(c, quads[head]);
                head += 1;
                if head == quads.len() {
                    break;
                }
            }
            m.tick(&mut mem);
        }
        assert_eq!(head, quads.len(), "quads served: {head} of {}", quads.len());
    }
}
