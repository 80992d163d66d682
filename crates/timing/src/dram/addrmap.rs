//! Address mapping (spec 000 §8.1 item 6; GPGPU-Sim `-gpgpu_mem_addr_mapping` syntax): the
//! channel is `(addr >> channel_bit) mod channels` (which works for 6 channels); the quotient is
//! spliced back in at `channel_bit` to form the channel-local address, whose bits are assigned
//! to row, bank, column and burst offset by a 64-letter mask. The L2 slice within a channel is
//! the low bank bits (GPGPU-Sim: `bank & (slices_per_channel - 1)`), and the L2 indexes its sets
//! with the slice-local address (channel and slice bits removed), so no set goes unused.
//! `dram.channel_index` XORs the consecutive channel with a function of the bits above it
//! ([`super::chanidx`]).

use crate::config::DramConfig;

/// A decoded address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Decoded {
    /// Channel.
    pub channel: u32,
    /// Bank within the channel.
    pub bank: u32,
    /// Row.
    pub row: u32,
    /// Column.
    pub col: u32,
}

/// The mapping.
#[derive(Debug, Clone)]
pub struct AddrMap {
    channels: u64,
    channel_bit: u32,
    row: Vec<u8>,
    bank: Vec<u8>,
    col: Vec<u8>,
    slice_bits: u32,
    mix: [u64; 64],
    mixing: bool,
    /// `dram.bank_xor_row`: the DRAM bank is the bank bits XOR the row's low bits.
    bank_xor: bool,
}

fn gather(v: u64, bits: &[u8]) -> u64 {
    let mut r = 0;
    for (i, &b) in bits.iter().enumerate() {
        r |= ((v >> b) & 1) << i;
    }
    r
}

impl AddrMap {
    /// Parses the mask of `d` (error: the reason) for `slices_per_channel` L2 slices per channel.
    pub fn new(d: &DramConfig, slices_per_channel: u32) -> Result<AddrMap, String> {
        let letters: Vec<char> = d.addr_map.chars().filter(|c| *c != '.').collect();
        if letters.len() != 64 {
            return Err(format!(
                "expected 64 mask letters (dots ignored), got {}",
                letters.len()
            ));
        }
        let (mut row, mut bank, mut col) = (vec![], vec![], vec![]);
        for (i, c) in letters.iter().enumerate() {
            let bit = (63 - i) as u8;
            match c {
                'R' => row.push(bit),
                'B' => bank.push(bit),
                'C' => col.push(bit),
                'S' | '0' => {}
                o => {
                    return Err(format!(
                        "unknown mask letter `{o}` (expected R, B, C, S, 0)"
                    ))
                }
            }
        }
        row.reverse();
        bank.reverse();
        col.reverse();
        if 1u64 << bank.len() != d.banks as u64 {
            return Err(format!(
                "{} bank bits do not give dram.banks = {}",
                bank.len(),
                d.banks
            ));
        }
        if row.is_empty() || row.len() > 32 || col.len() > 32 {
            return Err("need 1 to 32 row bits and at most 32 column bits".into());
        }
        if !slices_per_channel.is_power_of_two() || slices_per_channel > d.banks {
            return Err("l2.slices_per_channel must be a power of two not above dram.banks".into());
        }
        let mix = super::chanidx::table(&d.channel_index, d.channels)?;
        Ok(AddrMap {
            mixing: mix.iter().any(|&v| v != 0),
            mix,
            channels: d.channels as u64,
            channel_bit: d.channel_bit,
            row,
            bank,
            col,
            slice_bits: slices_per_channel.trailing_zeros(),
            bank_xor: d.bank_xor_row,
        })
    }

    /// Validation entry point of the config (any power-of-two slice count).
    pub fn parse(d: &DramConfig) -> Result<AddrMap, String> {
        Self::new(d, 1)
    }

    /// (channel, channel-local address).
    #[inline]
    pub fn split(&self, addr: u64) -> (u32, u64) {
        let hi = addr >> self.channel_bit;
        let (mut ch, rest) = (hi % self.channels, hi / self.channels);
        if self.mixing {
            ch ^= super::chanidx::mix(&self.mix, rest);
        }
        let low = addr & ((1u64 << self.channel_bit) - 1);
        (ch as u32, (rest << self.channel_bit) | low)
    }

    /// Decodes `addr`.
    #[inline]
    pub fn decode(&self, addr: u64) -> Decoded {
        let (channel, local) = self.split(addr);
        Decoded {
            channel,
            bank: gather(local, &self.bank) as u32,
            row: gather(local, &self.row) as u32,
            col: gather(local, &self.col) as u32,
        }
    }

    /// The DRAM bank of decoded address `d` (`dram.bank_xor_row`: XOR the row's low bits;
    /// the bank count is a power of two).
    #[inline]
    pub fn dram_bank(&self, d: &Decoded) -> u32 {
        if self.bank_xor {
            d.bank ^ (d.row & ((1u32 << self.bank.len()) - 1))
        } else {
            d.bank
        }
    }

    /// The global L2 slice of `addr`.
    #[inline]
    pub fn slice(&self, addr: u64) -> u32 {
        let d = self.decode(addr);
        (d.channel << self.slice_bits) | (d.bank & ((1 << self.slice_bits) - 1))
    }

    /// The slice-local address (channel and slice-select bits removed), for L2 set indexing.
    #[inline]
    pub fn slice_local(&self, addr: u64) -> u64 {
        let (_, mut local) = self.split(addr);
        for &b in self.bank[..self.slice_bits as usize].iter().rev() {
            local = ((local >> (b + 1)) << b) | (local & ((1u64 << b) - 1));
        }
        local
    }
}

impl AddrMap {
    /// Inverse of [`AddrMap::slice_local`]: the global address of slice-local `local` in `slice`.
    pub fn global_of(&self, slice: u32, local: u64) -> u64 {
        let channel = (slice >> self.slice_bits) as u64;
        let sub = slice as u64 & ((1u64 << self.slice_bits) - 1);
        let mut l = local;
        for (i, &b) in self.bank[..self.slice_bits as usize].iter().enumerate() {
            let bit = (sub >> i) & 1;
            l = ((l >> b) << (b + 1)) | (bit << b) | (l & ((1u64 << b) - 1));
        }
        let rest = l >> self.channel_bit;
        let chip = if self.mixing {
            channel ^ super::chanidx::mix(&self.mix, rest)
        } else {
            channel
        };
        let hi = rest * self.channels + chip;
        (hi << self.channel_bit) | (l & ((1u64 << self.channel_bit) - 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(spc: u32) -> AddrMap {
        let g = crate::GpuConfig::preset("gtx480").unwrap();
        AddrMap::new(&g.dram, spc).unwrap()
    }

    #[test]
    fn consecutive_256b_chunks_rotate_over_channels() {
        let m = map(1);
        let ch: Vec<u32> = (0..12).map(|i| m.decode(i * 256).channel).collect();
        assert_eq!(ch, vec![0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5]);
        // Within a 256 B chunk the channel is fixed.
        assert_eq!(m.decode(0x1000 + 255).channel, m.decode(0x1000).channel);
    }

    #[test]
    fn every_bank_and_slice_is_used() {
        let m = map(2);
        let mut banks = std::collections::BTreeSet::new();
        let mut slices = std::collections::BTreeSet::new();
        for i in 0..4096u64 {
            let a = i * 128;
            banks.insert(m.decode(a).bank);
            slices.insert(m.slice(a));
        }
        assert_eq!(banks.len(), 16);
        assert_eq!(slices.len(), 12);
    }

    /// `dram.bank_xor_row` (GPGPU-Sim `-dram_bnk_indexing_policy 1`): the DRAM bank is the bank
    /// bits XOR the row's low bits, so addresses of one bank-bit pattern in 16 consecutive
    /// rows land in 16 different banks; the L2 slice stays that of the unhashed bits.
    #[test]
    fn bank_xor_spreads_one_bank_pattern_over_all_banks() {
        let mut g = crate::GpuConfig::preset("gtx480").unwrap();
        let plain = AddrMap::new(&g.dram, 2).unwrap();
        g.dram.bank_xor_row = true;
        let xor = AddrMap::new(&g.dram, 2).unwrap();
        // Addresses that differ only in the row bits (same channel, bank bits and column).
        let mut plain_banks = std::collections::BTreeSet::new();
        let mut xor_banks = std::collections::BTreeSet::new();
        let base = plain.decode(0x1234_0000);
        for a in (0..1u64 << 34).step_by(1 << 12).map(|k| 0x1234_0000 + k) {
            let d = plain.decode(a);
            if d.channel != base.channel || d.bank != base.bank || d.col != base.col {
                continue;
            }
            assert_eq!(xor.slice(a), plain.slice(a));
            assert_eq!(xor.dram_bank(&d), d.bank ^ (d.row & 15));
            plain_banks.insert(plain.dram_bank(&d));
            xor_banks.insert(xor.dram_bank(&d));
            if xor_banks.len() == 16 {
                break;
            }
        }
        assert_eq!(plain_banks.len(), 1);
        assert_eq!(xor_banks.len(), 16);
    }

    #[test]
    fn slice_local_lines_fill_all_l2_sets() {
        let m = map(2);
        let mut sets = std::collections::BTreeSet::new();
        for i in 0..65536u64 {
            let a = i * 128;
            if m.slice(a) == 0 {
                sets.insert((m.slice_local(a) >> 7) % 64);
            }
        }
        assert_eq!(sets.len(), 64);
    }

    #[test]
    fn global_of_inverts_slice_local() {
        for spc in [1, 2] {
            let m = map(spc);
            for i in 0..5000u64 {
                let a = i * 128 + (i % 3) * 32;
                assert_eq!(
                    m.global_of(m.slice(a), m.slice_local(a)),
                    a,
                    "spc {spc} addr {a:#x}"
                );
            }
        }
    }

    #[test]
    fn ipoly_spreads_strides_and_still_inverts() {
        let mut g = crate::GpuConfig::preset("gtx480").unwrap();
        g.dram.channels = 8;
        g.dram.channel_index = "ipoly".into();
        let m = AddrMap::new(&g.dram, 2).unwrap();
        g.dram.channel_index = "consecutive".into();
        let c = AddrMap::new(&g.dram, 2).unwrap();
        // A stride of 8 chunks of 256 B: one channel when consecutive, all eight with IPOLY.
        let chans = |m: &AddrMap| {
            (0..8u64)
                .map(|i| m.decode(i * 8 * 256).channel)
                .collect::<std::collections::BTreeSet<_>>()
                .len()
        };
        assert_eq!((chans(&c), chans(&m)), (1, 8));
        for i in 0..5000u64 {
            let a = i * 128 * 7 + (i % 4) * 32;
            assert_eq!(m.global_of(m.slice(a), m.slice_local(a)), a);
        }
    }

    #[test]
    fn bad_masks_are_rejected() {
        let mut d = crate::GpuConfig::preset("gtx480").unwrap().dram;
        d.addr_map = "RRRR".into();
        assert!(AddrMap::parse(&d).unwrap_err().contains("64"));
        d.addr_map = "X".repeat(64);
        assert!(AddrMap::parse(&d).unwrap_err().contains("letter"));
    }
}
