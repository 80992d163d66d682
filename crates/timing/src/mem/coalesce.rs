//! The coalescer (spec 000 §8.1 item 3, GPGPU-Sim `coalesce_arch 20`): a warp's per-lane
//! addresses become one transaction per touched cache line, each with the mask of 32 B sectors
//! it touches, in order of first appearance (deterministic).

use warpforge_core::{MemAccess, WARP_SIZE};

/// One coalesced transaction.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Txn {
    /// Line-aligned byte address.
    pub line_addr: u64,
    /// Sectors touched (bit i = sector i of the line).
    pub sectors: u8,
    /// Active lanes that touch this line.
    pub lanes: u32,
}

/// Most transactions one warp instruction can produce (32 lanes, each possibly crossing a line).
pub const MAX_TXNS: usize = 2 * WARP_SIZE;

/// Coalesces `mem` over `active` lanes into `out`; returns the number of transactions.
/// `line_bytes` and `sector_bytes` are powers of two.
pub fn coalesce(
    mem: &MemAccess,
    active: u32,
    line_bytes: u64,
    sector_bytes: u64,
    out: &mut [Txn; MAX_TXNS],
) -> usize {
    let mut n = 0usize;
    let size = (mem.bytes_per_lane.max(1)) as u64;
    // The transaction the previous lane joined or opened: neighbouring lanes usually share
    // a line (transactions have distinct lines, so this finds what the search would).
    let mut recent = usize::MAX;
    let mut m = active;
    while m != 0 {
        let lane = m.trailing_zeros() as usize;
        m &= m - 1;
        let a = mem.addrs[lane];
        let last = a + size - 1;
        let mut la = a & !(line_bytes - 1);
        while la <= last {
            let lo = a.max(la) - la;
            let hi = last.min(la + line_bytes - 1) - la;
            let (s_lo, s_hi) = (lo / sector_bytes, hi / sector_bytes);
            let sec = if s_hi < 8 {
                ((1u16 << (s_hi + 1)) - (1u16 << s_lo)) as u8
            } else {
                let mut sec = 0u8;
                for s in s_lo..=s_hi {
                    sec |= 1 << s;
                }
                sec
            };
            let found = if recent < n && out[recent].line_addr == la {
                Some(recent)
            } else {
                out[..n].iter().position(|t| t.line_addr == la)
            };
            match found {
                Some(i) => {
                    let t = &mut out[i];
                    t.sectors |= sec;
                    t.lanes |= 1 << lane;
                    recent = i;
                }
                None if n < MAX_TXNS => {
                    out[n] = Txn {
                        line_addr: la,
                        sectors: sec,
                        lanes: 1 << lane,
                    };
                    recent = n;
                    n += 1;
                }
                None => {}
            }
            la += line_bytes;
        }
    }
    n
}

/// Distinct `unit`-byte aligned chunks touched by the active lanes (constant-cache accesses are
/// serialised per distinct line); returns the count written to `out`.
pub fn distinct_chunks(
    mem: &MemAccess,
    active: u32,
    unit: u64,
    out: &mut [u64; WARP_SIZE],
) -> usize {
    let mut n = 0;
    let mut m = active;
    while m != 0 {
        let lane = m.trailing_zeros() as usize;
        m &= m - 1;
        let c = mem.addrs[lane] & !(unit - 1);
        if !out[..n].contains(&c) && n < WARP_SIZE {
            out[n] = c;
            n += 1;
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn access(f: impl Fn(usize) -> u64, bytes: u8) -> MemAccess {
        let mut m = MemAccess {
            bytes_per_lane: bytes,
            ..Default::default()
        };
        for (i, a) in m.addrs.iter_mut().enumerate() {
            *a = f(i);
        }
        m
    }

    #[test]
    fn unit_stride_words_make_one_line() {
        let mut out = [Txn::default(); MAX_TXNS];
        let n = coalesce(&access(|i| 0x1000 + 4 * i as u64, 4), !0, 128, 32, &mut out);
        assert_eq!(n, 1);
        assert_eq!(
            out[0],
            Txn {
                line_addr: 0x1000,
                sectors: 0b1111,
                lanes: !0
            }
        );
        // Half the lanes active: two sectors.
        let n = coalesce(
            &access(|i| 0x1000 + 4 * i as u64, 4),
            0xffff,
            128,
            32,
            &mut out,
        );
        assert_eq!((n, out[0].sectors), (1, 0b0011));
    }

    #[test]
    fn strided_and_misaligned_accesses() {
        let mut out = [Txn::default(); MAX_TXNS];
        let n = coalesce(&access(|i| 128 * i as u64, 4), !0, 128, 32, &mut out);
        assert_eq!(n, 32);
        // 8-byte lanes starting 4 bytes before a line boundary: two lines, 3 sectors.
        let n = coalesce(&access(|i| 124 + 8 * i as u64, 8), 0b11, 128, 32, &mut out);
        assert_eq!(n, 2);
        assert_eq!((out[0].line_addr, out[0].sectors), (0, 0b1000));
        assert_eq!((out[1].line_addr, out[1].sectors), (128, 0b0001));
    }

    #[test]
    fn broadcast_is_one_chunk() {
        let mut out = [0u64; WARP_SIZE];
        assert_eq!(distinct_chunks(&access(|_| 64, 4), !0, 64, &mut out), 1);
        assert_eq!(
            distinct_chunks(&access(|i| 64 * (i as u64 % 3), 4), !0, 64, &mut out),
            3
        );
    }
}
