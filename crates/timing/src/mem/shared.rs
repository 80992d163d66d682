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
