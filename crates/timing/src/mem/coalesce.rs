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
    if let Some(n) = contiguous(mem, active, size, line_bytes, sh, out) {
        return n;
    }
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

/// `Some((a0, first, n))` when the active lanes are consecutive (lanes `first..first + n`,
/// `n >= 1`) and lane `first + i` accesses `a0 + i * stride`. The last lane is compared first,
/// which rejects most other accesses at once.
#[inline]
pub fn unit_stride(mem: &MemAccess, active: u32, stride: u64) -> Option<(u64, u32, u64)> {
    if active == 0 {
        return None;
    }
    let first = active.trailing_zeros();
    let run = active >> first;
    if run & run.wrapping_add(1) != 0 {
        // The active lanes have a gap.
        return None;
    }
    let n = run.count_ones() as usize;
    let lanes = &mem.addrs[first as usize..first as usize + n];
    let a0 = lanes[0];
    // The last lane first: most other accesses fail here, at the cost of one comparison.
    if lanes[n - 1] != a0.wrapping_add((n as u64 - 1).wrapping_mul(stride)) {
        return None;
    }
    // Then every lane, four at a time (wrapping: only compared).
    let mut want = a0;
    for c in lanes.chunks(4) {
        let mut ok = true;
        for &a in c {
            ok &= a == want;
            want = want.wrapping_add(stride);
        }
        if !ok {
            return None;
        }
    }
    Some((a0, first, n as u64))
}

/// The unit-stride case of [`coalesce`]: the active lanes are consecutive (lanes
/// `first..first + n`) and lane `first + i` accesses `a0 + i * size`, so the bytes touched form
/// one range `a0..a0 + n * size`. Each line the range meets is one transaction, in ascending
/// order (the order in which the lane-by-lane path first meets them), with the sectors of the
/// range's bytes in that line (every byte between the first and the last is touched) and the
/// lanes whose bytes meet the line. Writes them to `out` and returns their number; `None`
/// (nothing written) for any other access, for lines of more than 8 sectors, or when the range
/// would wrap or need more than [`MAX_TXNS`] transactions. The transactions cost a few
/// operations per line instead of per lane.
#[inline]
fn contiguous(
    mem: &MemAccess,
    active: u32,
    size: u64,
    line_bytes: u64,
    sh: u32,
    out: &mut [Txn; MAX_TXNS],
) -> Option<usize> {
    if line_bytes >> sh > 8 {
        return None;
    }
    let (a0, first, n) = unit_stride(mem, active, size)?;
    let last = a0.checked_add(n * size)? - 1;
    let lmask = !(line_bytes - 1);
    let (l0, l1) = (a0 & lmask, last & lmask);
    if (l1 - l0) / line_bytes >= MAX_TXNS as u64 {
        return None;
    }
    let mut k = 0;
    let mut la = l0;
    loop {
        let lo = a0.max(la);
        let hi = last.min(la + (line_bytes - 1));
        let sec = (2u16 << ((hi - la) >> sh)) - (1u16 << ((lo - la) >> sh));
        // Lanes (from `first`) whose bytes include `lo` and `hi`, and every lane between.
        let (i_lo, i_hi) = ((lo - a0) / size, (hi - a0) / size);
        let width = i_hi - i_lo + 1;
        let bits = if width >= 32 {
            u32::MAX
        } else {
            (1u32 << width) - 1
        };
        out[k] = Txn {
            line_addr: la,
            sectors: sec as u8,
            lanes: bits << (i_lo as u32 + first),
        };
        k += 1;
        if la == l1 {
            break;
        }
        la += line_bytes;
    }
    Some(k)
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
    if active == u32::MAX {
        return one_line_full(mem, size, line, line_bytes, sh).map(|sectors| Txn {
            line_addr: line,
            sectors,
            lanes: active,
        });
    }
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

/// [`one_line`] of a full warp, in loops over all 32 lanes without a branch or a per-lane shift
/// (vectorised): every lane's first and last byte are tested against `line` together, then
/// each of the line's (at most 8) sectors is marked when some lane's bytes meet it. The
/// sectors, or `None` when some lane leaves the line.
#[inline]
fn one_line_full(mem: &MemAccess, size: u64, line: u64, line_bytes: u64, sh: u32) -> Option<u8> {
    let lmask = !(line_bytes - 1);
    let mut outside = 0u64;
    let (mut lo, mut hi) = ([0i64; WARP_SIZE], [0i64; WARP_SIZE]);
    for l in 0..WARP_SIZE {
        let a = mem.addrs[l];
        let last = a.wrapping_add(size - 1);
        outside |= ((a ^ line) | (last ^ line)) & lmask;
        // Offsets in the line (below `line_bytes` once `outside` is 0), compared as `i64`.
        lo[l] = a.wrapping_sub(line) as i64;
        hi[l] = last.wrapping_sub(line) as i64;
    }
    if outside != 0 {
        return None;
    }
    let mut sec = 0u8;
    for k in 0..(line_bytes >> sh) as i64 {
        // Sector `k` holds bytes `[k << sh, (k + 1) << sh)`.
        let (first, end) = (k << sh, (k + 1) << sh);
        let mut hit = false;
        for l in 0..WARP_SIZE {
            hit |= (lo[l] < end) & (hi[l] >= first);
        }
        sec |= (hit as u8) << k;
    }
    Some(sec)
}

/// Distinct `unit`-byte aligned chunks touched by the active lanes (constant-cache accesses are
/// serialised per distinct line); returns the count written to `out`.
pub fn distinct_chunks(
    mem: &MemAccess,
    active: u32,
    unit: u64,
    out: &mut [u64; WARP_SIZE],
) -> usize {
    if active == 0 {
        return 0;
    }
    // The usual case (a kernel parameter, a constant every lane reads): one chunk, found in
    // one pass over the 32 addresses without a branch per lane.
    let mask = !(unit - 1);
    let c0 = mem.addrs[active.trailing_zeros() as usize] & mask;
    let last = 31 - active.leading_zeros() as usize;
    let mut same = mem.addrs[last] & mask == c0;
    if same && active == u32::MAX {
        // A full warp: the chunks' differences from the first, or-ed (a vectorised loop).
        let mut diff = 0u64;
        for &a in &mem.addrs {
            diff |= (a & mask) ^ c0;
        }
        same = diff == 0;
    } else if same {
        for (l, &a) in mem.addrs.iter().enumerate() {
            same &= (a & mask == c0) | ((active >> l) & 1 == 0);
        }
    }
    if same {
        out[0] = c0;
        return 1;
    }
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

    /// The transactions of `m`'s `active` lanes of `size` bytes each, built lane by lane in
    /// lane order on `line`-byte lines with `sec_b`-byte sectors: the reference the shortcuts
    /// are checked against.
    fn lane_by_lane(m: &MemAccess, active: u32, size: u64, line: u64, sec_b: u64) -> Vec<Txn> {
        let mut out: Vec<Txn> = Vec::new();
        let mut mm = active;
        while mm != 0 {
            let lane = mm.trailing_zeros() as usize;
            mm &= mm - 1;
            let a = m.addrs[lane];
            let mut la = a & !(line - 1);
            while la < a + size {
                let lo = a.max(la) - la;
                let hi = (a + size - 1).min(la + line - 1) - la;
                let mut sec = 0u8;
                for s in lo / sec_b..=hi / sec_b {
                    sec |= 1 << s;
                }
                match out.iter_mut().find(|t| t.line_addr == la) {
                    Some(t) => {
                        t.sectors |= sec;
                        t.lanes |= 1 << lane;
                    }
                    None => out.push(Txn {
                        line_addr: la,
                        sectors: sec,
                        lanes: 1 << lane,
                    }),
                }
                la += line;
            }
        }
        out
    }

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
        let mut rnd = crate::mem::test_rng(0x9e37_79b9_7f4a_7c15u64);
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
            let reference = lane_by_lane(&m, active, size, 128, 32);
            let n = coalesce(&m, active, 128, 32, &mut want);
            assert_eq!(&want[..n], &reference[..]);
            if one_line(&m, active, size, 128, 5).is_some() {
                short += 1;
            } else {
                long += 1;
            }
        }
        assert!(short > 1000 && long > 1000, "{short} {long}");
    }

    /// The unit-stride shortcut gives what the lane-by-lane path gives: consecutive active
    /// lanes (full warps, prefixes, runs in the middle) at consecutive addresses of every
    /// element size from any byte offset, on 32-, 64- and 128-byte lines, crossing lines or
    /// not; and accesses that are almost unit-stride (one lane off, a gap in the mask) fall
    /// through to the other paths with the same result.
    #[test]
    fn unit_stride_shortcut_matches_the_general_path() {
        let mut rnd = crate::mem::test_rng(0x2545_f491_4f6c_dd1du64);
        let (mut short, mut long) = (0, 0);
        for _ in 0..20_000 {
            let bytes = [1u8, 2, 4, 8, 12, 16][(rnd() % 6) as usize];
            let size = bytes as u64;
            let line = [32u64, 64, 128][(rnd() % 3) as usize];
            let a0 = (rnd() % 4096) * [1, size][(rnd() % 2) as usize];
            let mut m = access(|i| a0 + size * i as u64, bytes);
            let active = crate::mem::test_lane_run(&mut rnd, &mut m);
            // The lane-by-lane reference (sector size 32 B, or the line's quarter).
            let sec_b = (line / 4).min(32);
            let reference = lane_by_lane(&m, active, size, line, sec_b);
            let mut got = [Txn::default(); MAX_TXNS];
            let n = coalesce(&m, active, line, sec_b, &mut got);
            assert_eq!(
                &got[..n],
                &reference[..],
                "{bytes} B from {a0:#x}, {line} B lines"
            );
            let sh = sec_b.trailing_zeros();
            if contiguous(&m, active, size, line, sh, &mut got).is_some() {
                short += 1;
            } else {
                long += 1;
            }
        }
        assert!(short > 5000 && long > 2000, "{short} {long}");
    }

    #[test]
    fn broadcast_is_one_chunk() {
        let mut out = [0u64; WARP_SIZE];
        assert_eq!(distinct_chunks(&access(|_| 64, 4), !0, 64, &mut out), 1);
        assert_eq!(out[0], 64);
        // Different addresses in one chunk, inactive lanes elsewhere, no lane.
        let m = access(|i| if i < 8 { 130 + i as u64 } else { 4096 }, 1);
        assert_eq!(distinct_chunks(&m, 0xff, 64, &mut out), 1);
        assert_eq!(out[0], 128);
        assert_eq!(distinct_chunks(&m, 0x1ff, 64, &mut out), 2);
        assert_eq!(out[..2], [128, 4096]);
        assert_eq!(distinct_chunks(&m, 0, 64, &mut out), 0);
        assert_eq!(
            distinct_chunks(&access(|i| 64 * (i as u64 % 3), 4), !0, 64, &mut out),
            3
        );
    }
}
