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
    let size = (mem.bytes_per_lane.max(1)) as u64;
    let sh = sector_bytes.trailing_zeros();
    if let Some(t) = one_line(mem, active, size, line_bytes, sh) {
        out[0] = t;
        return 1;
    }
    let mut n = 0usize;
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
            let (s_lo, s_hi) = (lo >> sh, hi >> sh);
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

/// The common case of [`coalesce`]: when every active lane's bytes lie in the line of the first
/// active lane (and a line has at most 8 sectors), the single transaction it would build.
/// `None` otherwise (also for no active lane).
#[inline]
fn one_line(mem: &MemAccess, active: u32, size: u64, line_bytes: u64, sh: u32) -> Option<Txn> {
    if active == 0 || line_bytes >> sh > 8 {
        return None;
    }
    let lmask = !(line_bytes - 1);
    let line = mem.addrs[active.trailing_zeros() as usize] & lmask;
    let mut sec = 0u16;
    let mut m = active;
    while m != 0 {
        let lane = m.trailing_zeros() as usize;
        m &= m - 1;
        let a = mem.addrs[lane];
        let last = a + size - 1;
        if a & lmask != line || last & lmask != line {
            return None;
        }
        sec |= (2u16 << ((last - line) >> sh)) - (1u16 << ((a - line) >> sh));
    }
    Some(Txn {
        line_addr: line,
        sectors: sec as u8,
        lanes: active,
    })
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

    /// The one-line shortcut gives what the lane-by-lane path gives: random accesses that
    /// mostly stay in one line (unit stride, broadcast, reversed, sub-line offsets, partial
    /// masks), some that cross into the next line.
    #[test]
    fn one_line_shortcut_matches_the_general_path() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut rnd = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let (mut short, mut long) = (0, 0);
        for _ in 0..20_000 {
            let bytes = [1u8, 2, 4, 8, 16][(rnd() % 5) as usize];
            let base = (rnd() % 64) * 128 + (rnd() % 4) * 32;
            let spread = [0u64, 1, 4, 32, 128][(rnd() % 5) as usize];
            let mut m = access(|_| 0, bytes);
            for a in m.addrs.iter_mut() {
                *a = (base + rnd() % (spread + 1)) & !(bytes as u64 - 1);
            }
            let active = match rnd() % 4 {
                0 => !0,
                1 => rnd() as u32,
                2 => 1 << (rnd() % 32),
                _ => 0,
            };
            let size = bytes as u64;
            let mut want = [Txn::default(); MAX_TXNS];
            // The general path alone: the shortcut is what `coalesce` tries first.
            let mut reference = [Txn::default(); MAX_TXNS];
            let n_ref = {
                let mut n = 0;
                let mut mm = active;
                while mm != 0 {
                    let lane = mm.trailing_zeros() as usize;
                    mm &= mm - 1;
                    let a = m.addrs[lane];
                    let mut la = a & !127;
                    while la < a + size {
                        let lo = a.max(la) - la;
                        let hi = (a + size - 1).min(la + 127) - la;
                        let mut sec = 0u8;
                        for s in lo / 32..=hi / 32 {
                            sec |= 1 << s;
                        }
                        match reference[..n].iter().position(|t| t.line_addr == la) {
                            Some(i) => {
                                reference[i].sectors |= sec;
                                reference[i].lanes |= 1 << lane;
                            }
                            None => {
                                reference[n] = Txn {
                                    line_addr: la,
                                    sectors: sec,
                                    lanes: 1 << lane,
                                };
                                n += 1;
                            }
                        }
                        la += 128;
                    }
                }
                n
            };
            let n = coalesce(&m, active, 128, 32, &mut want);
            assert_eq!(&want[..n], &reference[..n_ref]);
            if one_line(&m, active, size, 128, 5).is_some() {
                short += 1;
            } else {
                long += 1;
            }
        }
        assert!(short > 1000 && long > 1000, "{short} {long}");
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
