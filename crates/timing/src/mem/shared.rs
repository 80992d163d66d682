//! Shared-memory bank conflicts (spec 000 §8.1 item 1): with `banks` banks of `bank_bytes`, an
//! access takes as many cycles as the largest number of distinct words any bank must serve;
//! lanes reading the same word are served by one broadcast (Fermi).

use super::coalesce::unit_stride;
use warpforge_core::{MemAccess, WARP_SIZE};

/// The conflict degree (1 = conflict free) of `mem` over the `active` lanes: the largest
/// number of distinct bank words (`bank_bytes` each, at most 4 per lane) any one bank serves.
pub fn conflict_degree(mem: &MemAccess, active: u32, banks: u32, bank_bytes: u32) -> u32 {
    let per_lane = (mem.bytes_per_lane as u32).div_ceil(bank_bytes).max(1) as u64;
    if let Some(d) = strided_degree(mem, active, banks, bank_bytes, per_lane) {
        return d;
    }
    if let Some(d) = listed_degree(mem, active, banks, bank_bytes, per_lane) {
        return d;
    }
    counted_degree(mem, active, banks, bank_bytes, per_lane)
}

/// Distinct words a bank's list in [`listed_degree`] holds.
const LISTED: usize = 4;

/// [`conflict_degree`] by a short list of distinct words per bank: each lane's words go to
/// their bank's list unless already there, so a word is compared only with its own bank's
/// (usually zero or one) words, not with every word seen. `None` when some bank has more than
/// [`LISTED`] distinct words (the degree is then above [`LISTED`]; [`counted_degree`] counts
/// it), or more than 64 banks.
#[inline]
fn listed_degree(
    mem: &MemAccess,
    active: u32,
    banks: u32,
    bank_bytes: u32,
    per_lane: u64,
) -> Option<u32> {
    if banks > 64 || banks == 0 || bank_bytes == 0 {
        return None;
    }
    let (nb, bb) = (banks as u64, bank_bytes as u64);
    // Powers of two (the usual geometry) by mask and shift, the division otherwise.
    let word = |a: u64| {
        if bb.is_power_of_two() {
            a >> bb.trailing_zeros()
        } else {
            a / bb
        }
    };
    let bank = |w: u64| {
        if nb.is_power_of_two() {
            (w & (nb - 1)) as usize
        } else {
            (w % nb) as usize
        }
    };
    let mut count = [0u8; 64];
    let mut list = [[0u64; LISTED]; 64];
    let mut max = 0u8;
    let mut m = active;
    while m != 0 {
        let lane = m.trailing_zeros() as usize;
        m &= m - 1;
        let w0 = word(mem.addrs[lane]);
        for k in 0..per_lane.min(4) {
            let w = w0 + k;
            let b = bank(w);
            let n = count[b] as usize;
            if list[b][..n].contains(&w) {
                continue;
            }
            if n == LISTED {
                return None;
            }
            list[b][n] = w;
            count[b] += 1;
            max = max.max(count[b]);
        }
    }
    Some((max as u32).max(1))
}

/// [`conflict_degree`] by counting: the distinct words of all lanes collected, then counted
/// per bank.
fn counted_degree(mem: &MemAccess, active: u32, banks: u32, bank_bytes: u32, per_lane: u64) -> u32 {
    // Distinct words per bank, at most 32 lanes x 4 words each.
    let mut words = [[0u64; 4 * WARP_SIZE]; 1];
    let words = &mut words[0];
    let mut nw = 0usize;
    let mut m = active;
    while m != 0 {
        let lane = m.trailing_zeros() as usize;
        m &= m - 1;
        let w0 = mem.addrs[lane] / bank_bytes as u64;
        for k in 0..per_lane.min(4) {
            let w = w0 + k;
            if !words[..nw].contains(&w) {
                words[nw] = w;
                nw += 1;
            }
        }
    }
    let mut per_bank = [0u32; 64];
    let mut max = 0;
    for &w in &words[..nw] {
        let b = (w % banks as u64) as usize;
        per_bank[b] += 1;
        max = max.max(per_bank[b]);
    }
    max.max(1)
}

/// [`conflict_degree`] of a strided access (consecutive active lanes, lane `first + i` at
/// `a0 + i * stride`, [`unit_stride`]) without counting words, or `None` for any other access:
///
/// * unit stride (`stride` = the element size) of at most 4 words per lane: the words the
///   lanes read (each lane `per_lane` words from its first) form one range, since a lane's
///   first word is at most `per_lane` past the previous lane's, and a range of `w`
///   consecutive words puts at most `ceil(w / banks)` of them in one bank;
/// * one word per lane and a stride of `s` whole words (`s` = 0: a broadcast, one word): the
///   `n` lanes read `n` distinct words `w0 + i * s`, whose banks repeat with period
///   `p = banks / gcd(s, banks)`, each bank of the cycle taking `floor(n / p)` or
///   `ceil(n / p)` of them.
#[inline]
fn strided_degree(
    mem: &MemAccess,
    active: u32,
    banks: u32,
    bank_bytes: u32,
    per_lane: u64,
) -> Option<u32> {
    if per_lane > 4 || active == 0 {
        return None;
    }
    let size = mem.bytes_per_lane.max(1) as u64;
    let bb = bank_bytes as u64;
    let first = active.trailing_zeros() as usize;
    let stride = if active >> first == 1 {
        size
    } else {
        mem.addrs[first + 1].wrapping_sub(mem.addrs[first])
    };
    if stride == size {
        let (a0, _, n) = unit_stride(mem, active, size)?;
        let last = a0.checked_add((n - 1) * size)?;
        let words = last / bb + per_lane - a0 / bb;
        return Some((words.div_ceil(banks as u64) as u32).max(1));
    }
    if per_lane != 1 || stride % bb != 0 || stride > u32::MAX as u64 {
        return None;
    }
    let (_, _, n) = unit_stride(mem, active, stride)?;
    let s = stride / bb;
    if s == 0 {
        return Some(1);
    }
    let p = banks as u64 / gcd(s, banks as u64);
    Some((n.div_ceil(p) as u32).max(1))
}

/// Greatest common divisor (`b` > 0).
fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Cycles the shared-memory access `mem` over the `active` lanes takes when a warp is served in
/// `parts` consecutive lane groups of `32 / parts` lanes (GPGPU-Sim `-gpgpu_shmem_warp_parts`):
/// the sum of each non-empty group's conflict degree (1 for an access with no active lane).
pub fn conflict_cycles(
    mem: &MemAccess,
    active: u32,
    banks: u32,
    bank_bytes: u32,
    parts: u32,
) -> u32 {
    if parts <= 1 {
        return conflict_degree(mem, active, banks, bank_bytes);
    }
    let width = WARP_SIZE as u32 / parts;
    let group = (1u32 << width) - 1;
    let total: u32 = (0..parts)
        .map(|p| active & (group << (p * width)))
        .filter(|&m| m != 0)
        .map(|m| conflict_degree(mem, m, banks, bank_bytes))
        .sum();
    total.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn access(f: impl Fn(usize) -> u64) -> MemAccess {
        let mut m = MemAccess {
            bytes_per_lane: 4,
            ..Default::default()
        };
        for (i, a) in m.addrs.iter_mut().enumerate() {
            *a = f(i);
        }
        m
    }

    /// Half-warps (`-gpgpu_shmem_warp_parts 2`): a conflict-free access takes two cycles, one
    /// per half; a stride-2 access, 2-way conflicted over the warp, is conflict free within
    /// each half of 16 lanes on 32 banks (two cycles); a broadcast word takes one cycle per
    /// half; an access by one half only takes that half's cycles.
    #[test]
    fn warp_parts_serve_each_part_with_its_own_conflicts() {
        let unit = access(|i| 4 * i as u64);
        assert_eq!(conflict_cycles(&unit, !0, 32, 4, 1), 1);
        assert_eq!(conflict_cycles(&unit, !0, 32, 4, 2), 2);
        let two = access(|i| 8 * i as u64);
        assert_eq!(conflict_cycles(&two, !0, 32, 4, 1), 2);
        assert_eq!(conflict_cycles(&two, !0, 32, 4, 2), 2);
        let col = access(|i| 4 * 32 * i as u64);
        assert_eq!(conflict_cycles(&col, !0, 32, 4, 2), 32);
        assert_eq!(conflict_cycles(&access(|_| 4), !0, 32, 4, 2), 2);
        assert_eq!(conflict_cycles(&unit, 0xffff, 32, 4, 2), 1);
        assert_eq!(conflict_cycles(&unit, 0, 32, 4, 2), 1);
    }

    /// The strided shortcuts give what counting distinct words gives: consecutive lanes (full,
    /// prefixes, runs, single lanes) at consecutive elements of 1 to 16 bytes from any offset,
    /// or at strides of 0 to 70 words or a few bytes, on 16, 24 and 32 banks of 4 and 8 bytes;
    /// near misses (one lane off, a gap in the mask) go the counting way.
    #[test]
    fn strided_shortcuts_match_counting_words() {
        let mut rnd = crate::mem::test_rng(0x1234_5678_9abc_def1u64);
        let mut short = 0;
        for _ in 0..20_000 {
            let bytes = [1u8, 2, 4, 8, 12, 16][(rnd() % 6) as usize];
            let size = bytes as u64;
            let (banks, bb) = (
                [16u32, 24, 32][(rnd() % 3) as usize],
                [4u32, 8][(rnd() % 2) as usize],
            );
            let a0 = (rnd() % 4096) * [1, size][(rnd() % 2) as usize];
            let stride = match rnd() % 3 {
                0 => size,
                1 => (rnd() % 71) * bb as u64,
                _ => rnd() % 20,
            };
            let mut m = access(|i| a0 + stride * i as u64);
            m.bytes_per_lane = bytes;
            let active = crate::mem::test_lane_run(&mut rnd, &mut m);
            // Distinct words per bank, counted.
            let per_lane = (bytes as u32).div_ceil(bb).max(1) as u64;
            let mut words = vec![];
            let mut mm = active;
            while mm != 0 {
                let lane = mm.trailing_zeros() as usize;
                mm &= mm - 1;
                for k in 0..per_lane.min(4) {
                    let w = m.addrs[lane] / bb as u64 + k;
                    if !words.contains(&w) {
                        words.push(w);
                    }
                }
            }
            let mut per_bank = vec![0u32; banks as usize];
            for w in &words {
                per_bank[(w % banks as u64) as usize] += 1;
            }
            let want = per_bank.iter().copied().max().unwrap_or(0).max(1);
            assert_eq!(
                conflict_degree(&m, active, banks, bb),
                want,
                "{bytes} B from {a0:#x}, {banks} x {bb} B banks, lanes {active:#x}"
            );
            if strided_degree(&m, active, banks, bb, per_lane).is_some() {
                short += 1;
            }
        }
        assert!(short > 8000, "{short}");
    }

    /// The per-bank lists give what counting gives, and hand over to counting when a bank
    /// holds more than `LISTED` words: random addresses over a few to many words (degrees 1
    /// to 32), random masks, 1 to 16 bytes per lane, on 16, 24, 32 and 64 banks of 4 and 8
    /// bytes.
    #[test]
    fn bank_lists_match_counting() {
        let mut rnd = crate::mem::test_rng(0x0dd_ba11_5eed_f00du64);
        let (mut listed, mut counted) = (0, 0);
        for _ in 0..20_000 {
            let bytes = [1u8, 2, 4, 8, 12, 16][(rnd() % 6) as usize];
            let (banks, bb) = (
                [16u32, 24, 32, 64][(rnd() % 4) as usize],
                [4u32, 8][(rnd() % 2) as usize],
            );
            let spread = [1u64, 8, 64, 512, 4096][(rnd() % 5) as usize];
            let mut m = access(|_| 0);
            for a in m.addrs.iter_mut() {
                *a = (rnd() % spread) * bytes as u64;
            }
            m.bytes_per_lane = bytes;
            let active = match rnd() % 3 {
                0 => !0,
                1 => rnd() as u32,
                _ => 1 << (rnd() % 32),
            };
            let per_lane = (bytes as u32).div_ceil(bb).max(1) as u64;
            let want = counted_degree(&m, active, banks, bb, per_lane);
            match listed_degree(&m, active, banks, bb, per_lane) {
                Some(d) => {
                    assert_eq!(
                        d, want,
                        "{bytes} B, {banks} x {bb} B banks, lanes {active:#x}"
                    );
                    listed += 1;
                }
                None => {
                    assert!(want > LISTED as u32, "handed over at degree {want}");
                    counted += 1;
                }
            }
            assert_eq!(conflict_degree(&m, active, banks, bb), want);
        }
        assert!(listed > 5000 && counted > 1000, "{listed} {counted}");
    }

    #[test]
    fn strides_give_the_textbook_degrees() {
        assert_eq!(conflict_degree(&access(|i| 4 * i as u64), !0, 32, 4), 1);
        assert_eq!(conflict_degree(&access(|i| 8 * i as u64), !0, 32, 4), 2);
        assert_eq!(
            conflict_degree(&access(|i| 4 * 32 * i as u64), !0, 32, 4),
            32
        );
        assert_eq!(conflict_degree(&access(|_| 4), !0, 32, 4), 1, "broadcast");
        assert_eq!(
            conflict_degree(&access(|i| 4 * 33 * i as u64), !0, 32, 4),
            1,
            "odd stride"
        );
    }
}
