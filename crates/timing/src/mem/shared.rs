//! Shared-memory bank conflicts (spec 000 §8.1 item 1): with `banks` banks of `bank_bytes`, an
//! access takes as many cycles as the largest number of distinct words any bank must serve;
//! lanes reading the same word are served by one broadcast (Fermi).

use warpforge_core::{MemAccess, WARP_SIZE};

/// The conflict degree (1 = conflict free) of `mem` over the `active` lanes.
pub fn conflict_degree(mem: &MemAccess, active: u32, banks: u32, bank_bytes: u32) -> u32 {
    // Distinct words per bank, at most 32 lanes x 4 words each.
    let mut words = [[0u64; 4 * WARP_SIZE]; 1];
    let words = &mut words[0];
    let mut nw = 0usize;
    let per_lane = (mem.bytes_per_lane as u32).div_ceil(bank_bytes).max(1) as u64;
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
