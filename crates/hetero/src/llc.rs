//! The shared last-level cache (spec 004 §7.2, §10.1 item 3): set-associative, 2-bit SRRIP,
//! inclusive for CPU blocks (an evicted block that a CPU core may hold is back-invalidated in
//! that core's private caches) and non-inclusive for GPU blocks (GPU caches are not tracked).
//! Per-request bypass (no allocation) is decided by the caller.

use crate::config::LlcConfig;

const RRPV_MAX: u8 = 3;
const INVALID: u64 = u64::MAX;

/// A block pushed out by a fill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Victim {
    /// Block number (address / 64).
    pub line: u64,
    /// Must be written back to DRAM.
    pub dirty: bool,
    /// CPU cores that may hold the block privately (bit i = core i): to back-invalidate.
    pub cpu_mask: u64,
}

/// The set-index hash of block `line`: its low bits are the set number (the upper bits are
/// folded in so that power-of-two strides spread over the sets). Set-sampling policies select
/// whole sets by its low bits.
pub fn set_hash(line: u64) -> u64 {
    line ^ (line >> 14) ^ (line >> 28)
}

/// The LLC's tag store.
pub struct Llc {
    sets: u64,
    ways: usize,
    tag: Vec<u64>,
    rrpv: Vec<u8>,
    dirty: Vec<bool>,
    cpu_mask: Vec<u64>,
}

impl Llc {
    /// An empty LLC.
    pub fn new(c: &LlcConfig) -> Self {
        let sets = c.sets();
        let n = (sets * c.ways as u64) as usize;
        Self {
            sets,
            ways: c.ways as usize,
            tag: vec![INVALID; n],
            rrpv: vec![RRPV_MAX; n],
            dirty: vec![false; n],
            cpu_mask: vec![0; n],
        }
    }

    fn set_of(&self, line: u64) -> usize {
        (set_hash(line) & (self.sets - 1)) as usize
    }

    fn find(&self, line: u64) -> Option<usize> {
        let base = self.set_of(line) * self.ways;
        (base..base + self.ways).find(|&i| self.tag[i] == line)
    }

    /// Whether `line` is present (no state change).
    pub fn contains(&self, line: u64) -> bool {
        self.find(line).is_some()
    }

    /// A lookup: on a hit promotes the block (RRPV 0), marks it dirty on a write and records a
    /// CPU holder. Returns whether it hit.
    pub fn access(&mut self, line: u64, cpu: Option<usize>, write: bool) -> bool {
        match self.find(line) {
            Some(i) => {
                self.rrpv[i] = 0;
                self.dirty[i] |= write;
                if let Some(c) = cpu {
                    self.cpu_mask[i] |= 1 << c;
                }
                true
            }
            None => false,
        }
    }

    /// Allocates `line` (inserted at RRPV 2, SRRIP's "long" re-reference), evicting the first
    /// block at RRPV 3 after ageing. Returns the victim, if a valid block was evicted. A fill of
    /// a present block only updates its state.
    pub fn fill(&mut self, line: u64, cpu: Option<usize>, dirty: bool) -> Option<Victim> {
        if let Some(i) = self.find(line) {
            self.dirty[i] |= dirty;
            if let Some(c) = cpu {
                self.cpu_mask[i] |= 1 << c;
            }
            return None;
        }
        let base = self.set_of(line) * self.ways;
        let w = if let Some(i) = (base..base + self.ways).find(|&i| self.tag[i] == INVALID) {
            i
        } else {
            loop {
                if let Some(i) = (base..base + self.ways).find(|&i| self.rrpv[i] >= RRPV_MAX) {
                    break i;
                }
                for r in &mut self.rrpv[base..base + self.ways] {
                    *r += 1;
                }
            }
        };
        let victim = (self.tag[w] != INVALID).then(|| Victim {
            line: self.tag[w],
            dirty: self.dirty[w],
            cpu_mask: self.cpu_mask[w],
        });
        self.tag[w] = line;
        self.rrpv[w] = RRPV_MAX - 1;
        self.dirty[w] = dirty;
        self.cpu_mask[w] = cpu.map_or(0, |c| 1 << c);
        victim
    }

    /// Valid blocks (statistics). CPU clean evictions are not reported to the LLC, so the
    /// holder masks are conservative, as in real inclusive LLCs.
    pub fn blocks(&self) -> usize {
        self.tag.iter().filter(|&&t| t != INVALID).count()
    }

    /// Dirty valid blocks (statistics): (no CPU holder, i.e. filled or written by the GPU; with
    /// a CPU holder). A dirty block is one DRAM write owed when it is evicted: what a run that
    /// ends with it resident has not paid for.
    pub fn dirty_blocks(&self) -> (u64, u64) {
        let mut n = (0, 0);
        for i in 0..self.tag.len() {
            if self.tag[i] != INVALID && self.dirty[i] {
                if self.cpu_mask[i] == 0 {
                    n.0 += 1;
                } else {
                    n.1 += 1;
                }
            }
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> Llc {
        Llc::new(&LlcConfig {
            size_kb: 1,
            ways: 4,
            line_bytes: 64,
            latency: 10,
            mshrs: 8,
            gpgpu_store_fetch: false,
        })
    }

    #[test]
    fn srrip_keeps_a_reused_block_over_a_scan() {
        let mut l = tiny(); // 4 sets x 4 ways
        let set_stride = 4; // lines mapping to set 0: 0, 4, 8, ... (no high bits)
        l.fill(0, Some(1), false);
        assert!(l.access(0, Some(1), false), "hit promotes to RRPV 0");
        // A scan of 6 distinct blocks in the same set: the reused block survives.
        for k in 1..=6 {
            let v = l.fill(k * set_stride, None, false);
            assert_ne!(
                v.map(|v| v.line),
                Some(0),
                "scan block {k} evicted the reused one"
            );
        }
        assert!(l.contains(0));
    }

    #[test]
    fn dirty_blocks_split_by_cpu_holder() {
        let mut l = tiny();
        assert_eq!(l.dirty_blocks(), (0, 0));
        l.fill(1, None, true);
        l.fill(2, None, false);
        l.fill(3, Some(0), true);
        l.fill(4, Some(1), false);
        assert_eq!(l.dirty_blocks(), (1, 1));
        // A GPU store hit on a clean GPU block dirties it.
        assert!(l.access(2, None, true));
        assert_eq!(l.dirty_blocks(), (2, 1));
    }

    #[test]
    fn victim_carries_dirty_and_cpu_holders() {
        let mut l = tiny();
        l.fill(0, Some(2), false);
        l.access(0, Some(3), true);
        let mut victims = vec![];
        for k in 1..=16 {
            victims.extend(l.fill(k * 4, None, false));
        }
        assert!(victims
            .iter()
            .all(|v| v.line == 0 || (!v.dirty && v.cpu_mask == 0)));
        let v = victims
            .iter()
            .find(|v| v.line == 0)
            .expect("block 0 aged out");
        assert!(v.dirty);
        assert_eq!(v.cpu_mask, 0b1100);
    }
}
