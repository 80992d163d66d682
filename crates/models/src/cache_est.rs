//! Extension beyond Chapter II (the thesis assumes no data cache; Chapter V §4.3 asks for the
//! L1/L2 hit fractions as inputs and §4.6 measures them with the profiler): an analyser-side
//! estimate of the L1 and L2 hit fractions from the functional run's address stream.
//!
//! The functional run executes warps in an order unrelated to the hardware's (often one warp
//! to its end before the next), so looking its stream up in an L1 as it comes would see reuse
//! that an SM interleaving 48 warps over 16 KB never sees. Instead the analyser records each
//! warp's line stream ([`WarpStreams`]) and, at the end of the launch, replays it (`replay`) in a
//! hardware-like order:
//! * CTA `c` runs on SM `c mod #SMs`; each SM holds `#Active_blocks_per_SM` CTAs at a time (the
//!   occupancy of the model's step 0) and admits its next CTA when one finishes;
//! * every SM in turn issues one memory instruction of its next resident warp (round robin over
//!   warps, one instruction per turn), so the SMs' streams interleave as they would in time;
//! * each SM has a private LRU L1 of the device's geometry (128-byte lines, linear or hashed set
//!   index); loads allocate, stores and atomics invalidate (write-evict) and go to the L2;
//! * requests that leave the L1 (load misses, stores, atomics) are looked up in a first-touch
//!   L2: a line hits if any earlier request of the run touched it.
//!
//! Memory: one `u64` per line access of the launch (freed at the launch's end).

use serde::{Deserialize, Serialize};

/// Geometry of the L1 model (per SM, LRU, 128-byte lines).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct L1Geometry {
    /// SMs (CTA `c` is assumed to run on SM `c mod sms`).
    pub sms: u32,
    /// Sets per SM.
    pub sets: u32,
    /// Ways per set.
    pub ways: u32,
}

/// Set-index function of the L1 model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum SetIndex {
    /// `line mod sets`.
    #[default]
    Linear,
    /// `(line ^ line >> b ^ line >> 2b) mod sets` with `b = log2(sets)` (GPGPU-Sim's Fermi L1
    /// hash, the `H` of `configs/gtx480.toml`'s `index = "hashed"`); linear when `sets` is not a
    /// power of two.
    Hashed,
}

/// Outcome of one L1 lookup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    /// The line is present and its fill has returned.
    Hit,
    /// The line was allocated by a request of the current round and is still in flight: the
    /// request merges with it (no new L2 traffic) but waits like a miss.
    Pending,
    /// Not present.
    Miss,
}

/// A per-SM LRU L1: loads allocate, stores invalidate (write-evict).
#[derive(Debug, Clone)]
pub(crate) struct L1Model {
    pub(crate) g: L1Geometry,
    index: SetIndex,
    /// `sms × sets × ways` (line tag, allocation turn); tag u64::MAX = empty; most recent first
    /// within a set.
    tags: Vec<(u64, u64)>,
}

impl L1Model {
    pub(crate) fn new(g: L1Geometry, index: SetIndex) -> Self {
        let n = (g.sms * g.sets * g.ways) as usize;
        Self {
            g,
            index,
            tags: vec![(u64::MAX, 0); n],
        }
    }

    /// Empties every set (a new launch: GPGPU-Sim flushes the L1 between kernels).
    pub(crate) fn flush(&mut self) {
        self.tags.fill((u64::MAX, 0));
    }

    fn set_of(&self, line: u64) -> u32 {
        let sets = self.g.sets as u64;
        match self.index {
            SetIndex::Hashed if sets.is_power_of_two() => {
                let b = sets.trailing_zeros();
                ((line ^ (line >> b) ^ (line >> (2 * b))) & (sets - 1)) as u32
            }
            _ => (line % sets) as u32,
        }
    }

    /// Looks `line` up on SM `sm` at replay turn `now`; a load allocates (LRU), a store
    /// invalidates. A hit on a line allocated fewer than `window` turns ago is [`Lookup::Pending`].
    pub(crate) fn access(
        &mut self,
        sm: u32,
        line: u64,
        store: bool,
        now: u64,
        window: u64,
    ) -> Lookup {
        let set = self.set_of(line);
        let base = ((sm * self.g.sets + set) * self.g.ways) as usize;
        let set = &mut self.tags[base..base + self.g.ways as usize];
        match set.iter().position(|&(t, _)| t == line) {
            Some(i) => {
                let fresh = now.saturating_sub(set[i].1) < window;
                if store {
                    set[i..].rotate_left(1);
                    let last = set.len() - 1;
                    set[last] = (u64::MAX, 0);
                } else {
                    set[..=i].rotate_right(1);
                }
                if fresh {
                    Lookup::Pending
                } else {
                    Lookup::Hit
                }
            }
            None => {
                if !store {
                    set.rotate_right(1);
                    set[0] = (line, now);
                }
                Lookup::Miss
            }
        }
    }
}

/// Line accesses one launch may record (8 bytes each, 256 MiB): beyond it the launch's streams
/// are dropped and the launch gets no L1 estimate ([`WarpStreams::overflowed`]).
pub const MAX_RECORDED_LINES: usize = 1 << 25;

/// Per-warp line streams of one launch: entry = `line << 2 | store << 1 | last_line_of_inst`.
#[derive(Debug, Clone, Default)]
pub struct WarpStreams {
    streams: Vec<Vec<u64>>,
    recorded: usize,
    overflowed: bool,
    /// Recording limit; 0 = [`MAX_RECORDED_LINES`].
    limit: usize,
}

impl WarpStreams {
    /// Clears the streams and sizes them for `warps` warps.
    pub fn reset(&mut self, warps: usize) {
        self.streams.clear();
        self.streams.resize_with(warps, Vec::new);
        self.recorded = 0;
        self.overflowed = false;
    }

    /// Sets the recording limit (line accesses per launch; 0 = [`MAX_RECORDED_LINES`]).
    pub fn set_limit(&mut self, lines: usize) {
        self.limit = lines;
    }

    /// Whether the launch recorded more than [`MAX_RECORDED_LINES`] (its streams were dropped).
    pub fn overflowed(&self) -> bool {
        self.overflowed
    }

    /// Appends one memory instruction of warp `slot`: the distinct lines it touches.
    pub fn push_inst(&mut self, slot: usize, lines: &[u64], store: bool) {
        if self.overflowed {
            return;
        }
        self.recorded += lines.len();
        let limit = if self.limit == 0 {
            MAX_RECORDED_LINES
        } else {
            self.limit
        };
        if self.recorded > limit {
            self.overflowed = true;
            let warps = self.streams.len();
            self.streams = Vec::new();
            self.streams.resize_with(warps, Vec::new);
            return;
        }
        let Some(s) = self.streams.get_mut(slot) else {
            return;
        };
        for (i, &l) in lines.iter().enumerate() {
            let last = (i + 1 == lines.len()) as u64;
            s.push((l << 2) | ((store as u64) << 1) | last);
        }
    }
}

/// What the replay counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReplayCounts {
    /// Load line accesses looked up in the L1.
    pub l1_accesses: u64,
    /// Of those, hits (including pending hits: the line is present or in flight, so the access
    /// adds no traffic below the L1).
    pub l1_hits: u64,
    /// Of the hits, pending ones (allocated within the current round: the request waits for
    /// the fill like a miss).
    pub l1_pending: u64,
    /// Requests that left the L1 (load misses, stores, atomics) and were looked up in the L2.
    pub l2_lookups: u64,
    /// Of those, lines an earlier request of the run had touched (first-touch L2 hits).
    pub l2_reuses: u64,
    /// Load instructions (warp requests) replayed.
    pub load_reqs: u64,
    /// Of those, requests whose every line hit in the L1 (a warp waits for all its lines).
    pub load_reqs_l1: u64,
    /// Requests with at least one L1 miss whose every missing line hit in the L2.
    pub load_reqs_l2: u64,
}

/// Replays one launch's streams (warp slot = `cta × warps_per_cta + warp`) through `l1` in the
/// hardware-like order of the module documentation, with `blocks_per_sm` resident CTAs per SM;
/// `l2_seen` holds the lines touched earlier in the run and is updated.
pub(crate) fn replay(
    streams: &WarpStreams,
    warps_per_cta: usize,
    blocks_per_sm: usize,
    l1: &mut L1Model,
    l2_seen: &mut std::collections::HashSet<u64>,
) -> ReplayCounts {
    let mut c = ReplayCounts::default();
    let wpc = warps_per_cta.max(1);
    let ctas = streams.streams.len() / wpc;
    let sms = l1.g.sms.max(1) as usize;
    let resident = blocks_per_sm.max(1);
    l1.flush();
    // Per SM: next CTA to admit, resident warp ring (slots), cursor, per-resident-CTA live warps.
    struct Sm {
        turn: u64,
        next_cta: usize,
        ring: Vec<usize>,
        cursor: usize,
        live: Vec<(usize, usize)>, // (cta, unfinished warps)
    }
    let mut pos = vec![0usize; streams.streams.len()];
    let mut sm_state: Vec<Sm> = (0..sms)
        .map(|s| Sm {
            turn: 0,
            next_cta: s,
            ring: Vec::new(),
            cursor: 0,
            live: Vec::new(),
        })
        .collect();
    let admit = |sm: &mut Sm| {
        while sm.live.len() < resident && sm.next_cta < ctas {
            let cta = sm.next_cta;
            sm.next_cta += sms;
            let mut n = 0;
            for w in 0..wpc {
                let slot = cta * wpc + w;
                if !streams.streams[slot].is_empty() {
                    sm.ring.push(slot);
                    n += 1;
                }
            }
            if n > 0 {
                sm.live.push((cta, n));
            }
        }
    };
    for sm in sm_state.iter_mut() {
        admit(sm);
    }
    loop {
        let mut any = false;
        for (s, sm) in sm_state.iter_mut().enumerate() {
            if sm.ring.is_empty() {
                continue;
            }
            any = true;
            if sm.cursor >= sm.ring.len() {
                sm.cursor = 0;
            }
            let slot = sm.ring[sm.cursor];
            // A round: every resident warp issues once; lines allocated within the last round
            // are still in flight (a miss outlasts a round of memory instructions).
            let window = sm.ring.len() as u64 + 1;
            sm.turn += 1;
            let stream = &streams.streams[slot];
            let p = &mut pos[slot];
            // One memory instruction: entries up to and including the `last` flag.
            let (mut is_load, mut all_l1, mut all_l2) = (false, true, true);
            while *p < stream.len() {
                let e = stream[*p];
                *p += 1;
                let (line, store) = (e >> 2, e & 2 != 0);
                let look = l1.access(s as u32, line, store, sm.turn, window);
                let hit = look != Lookup::Miss;
                if !store {
                    is_load = true;
                    c.l1_accesses += 1;
                    c.l1_hits += hit as u64;
                    c.l1_pending += (look == Lookup::Pending) as u64;
                    all_l1 &= look == Lookup::Hit;
                }
                if store || !hit {
                    c.l2_lookups += 1;
                    let reuse = !l2_seen.insert(line);
                    c.l2_reuses += reuse as u64;
                    all_l2 &= reuse;
                }
                if e & 1 != 0 {
                    break;
                }
            }
            if is_load {
                c.load_reqs += 1;
                c.load_reqs_l1 += all_l1 as u64;
                c.load_reqs_l2 += (!all_l1 && all_l2) as u64;
            }
            if *p >= stream.len() {
                sm.ring.remove(sm.cursor);
                let cta = slot / wpc;
                if let Some(i) = sm.live.iter().position(|&(c, _)| c == cta) {
                    sm.live[i].1 -= 1;
                    if sm.live[i].1 == 0 {
                        sm.live.remove(i);
                        admit(sm);
                    }
                }
            } else {
                sm.cursor += 1;
            }
        }
        if !any {
            break;
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(sms: u32, sets: u32, ways: u32) -> L1Model {
        L1Model::new(L1Geometry { sms, sets, ways }, SetIndex::Linear)
    }

    #[test]
    fn streams_beyond_the_limit_are_dropped() {
        let mut st = WarpStreams::default();
        st.set_limit(3);
        st.reset(1);
        st.push_inst(0, &[1, 2], false);
        assert!(!st.overflowed());
        st.push_inst(0, &[3, 4], false);
        assert!(st.overflowed());
        let mut seen = Default::default();
        let c = replay(&st, 1, 1, &mut model(1, 1, 4), &mut seen);
        assert_eq!(c, ReplayCounts::default());
        st.reset(1);
        assert!(!st.overflowed(), "a new launch records again");
    }

    #[test]
    fn hashed_index_spreads_a_power_of_two_stride() {
        let m = L1Model::new(
            L1Geometry {
                sms: 1,
                sets: 32,
                ways: 4,
            },
            SetIndex::Hashed,
        );
        // Lines 0, 32, 64, 96: all set 0 linearly; hashed: 0, 1, 2, 3.
        let sets: Vec<u32> = [0u64, 32, 64, 96].iter().map(|&l| m.set_of(l)).collect();
        assert_eq!(sets, vec![0, 1, 2, 3]);
        let lin = model(1, 32, 4);
        assert!([0u64, 32, 64, 96].iter().all(|&l| lin.set_of(l) == 0));
    }

    #[test]
    fn interleaving_warps_destroys_reuse_the_sequential_order_sees() {
        // Two warps of one CTA each read lines 0..4 twice, in a 1-set x 4-way L1 (4 lines).
        // Sequentially the second pass hits (4 of 8 per warp); interleaved, warp 1's lines evict
        // warp 0's before the reuse.
        let mut st = WarpStreams::default();
        st.reset(2);
        for w in 0..2usize {
            for _ in 0..2 {
                for l in 0..4u64 {
                    st.push_inst(w, &[100 * w as u64 + l], false);
                }
            }
        }
        let mut seen = Default::default();
        let c = replay(&st, 2, 1, &mut model(1, 1, 4), &mut seen);
        assert_eq!(c.l1_accesses, 16);
        assert_eq!(c.l1_hits, 0);
        assert_eq!(c.l2_lookups, 16);
        assert_eq!(c.l2_reuses, 8, "the second pass finds every line touched");
        // One warp per CTA, one CTA resident: the warps run one after the other and reuse
        // (four turns later, so the fills have returned: real hits).
        let mut seen = Default::default();
        let c = replay(&st, 1, 1, &mut model(1, 1, 4), &mut seen);
        assert_eq!(c.l1_hits, 8);
        assert_eq!(c.l1_pending, 0);
        assert_eq!(c.load_reqs_l1, 8);
        assert_eq!(c.l2_lookups, 8);
    }

    #[test]
    fn ctas_go_round_robin_to_sms_and_stores_invalidate() {
        // Two CTAs of one warp on two SMs read the same line: each SM misses once.
        let mut st = WarpStreams::default();
        st.reset(2);
        st.push_inst(0, &[7], false);
        st.push_inst(0, &[7], false);
        st.push_inst(0, &[7], true);
        st.push_inst(0, &[7], false);
        st.push_inst(1, &[7, 8], false);
        let mut seen = Default::default();
        let c = replay(&st, 1, 8, &mut model(2, 4, 2), &mut seen);
        // SM0: miss, pending hit (its own fill of the previous turn is still in flight),
        // (store), miss; SM1: miss, miss.
        assert_eq!(c.l1_accesses, 5);
        assert_eq!(c.l1_hits, 1);
        assert_eq!(c.l1_pending, 1);
        // To L2: 4 load misses (7 thrice, 8 once) + the store = 5 lookups; all but the first
        // touches of 7 and 8 are reuses.
        assert_eq!(c.l2_lookups, 5);
        assert_eq!(c.l2_reuses, 3);
        // Requests: SM0 loads 3, SM1 one two-line request; none is a completed L1 hit.
        assert_eq!(c.load_reqs, 4);
        assert_eq!(c.load_reqs_l1, 0);
        // L2-served: SM0's pending request and its last load (7 is in the L2 by then); SM0's
        // first load (7 new) and SM1's (8 new) go to DRAM.
        assert_eq!(c.load_reqs_l2, 2);
    }
}
