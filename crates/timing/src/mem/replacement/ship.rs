//! SHiP, the signature-based hit predictor (Wu et al., MICRO 2011) over 2-bit RRIP, as CACP uses
//! it (spec 000 §4.5, Lee 2017 Algorithms 7-9): a table of saturating counters indexed by an
//! 8-bit signature `(PC xor line address)[7:0]` predicts whether a newly inserted line will be
//! reused. A line predicted dead is inserted at RRPV 3 ("distant"), any other at 2 ("long"); a
//! hit promotes the line to 0 and increments its signature's counter; a line evicted without
//! any reuse decrements it.
//!
//! Decisions (the document leaves them open, §4.5): 3-bit counters (the SHiP paper's width),
//! initialised to 1 (weakly reuse); the PC is the instruction index (`pc / 8`, both front ends
//! place instructions 8 bytes apart). The address part is, by default (`signature =
//! "pc_addr"`), the document's literal `addr[7:0]` of the missing line's byte address, which
//! with 128 B lines is address bit 7 only, so the signature is in effect the load PC (as in
//! SHiP-PC): each memory instruction learns its own reuse, which is what Lee 2017's Figure 4.9
//! motivates ("the reuse patterns for the various memory instructions are different").
//! `"pc_line"` takes the low 8 bits of the line address, `(addr >> 7)[7:0]` for 128 B lines,
//! the spec digest's recommendation (§4.5 "Address bits"): a load's consecutive lines then
//! cycle through all 256 signatures, so no counter belongs to one instruction; see
//! [`Signature`].

use super::{MissInfo, Replacement};
use crate::config::CacheConfig;

/// Largest RRPV of the 2-bit RRIP.
pub(super) const RRPV_MAX: u8 = 3;
/// Counter saturation value (3-bit counters).
const SHIP_MAX: u8 = 7;
/// Initial counter value (weakly "reused").
const SHIP_INIT: u8 = 1;
/// Entries of the signature-indexed tables (8-bit signatures).
pub(super) const SIGNATURES: usize = 256;

/// The 8-bit signature function of a cache (`CacheConfig::signature`).
#[derive(Debug, Clone, Copy)]
pub(super) struct Signature {
    /// Multiplier from line address to the address whose low 8 bits enter the signature:
    /// 1 (`pc_line`, line address) or the line size (`pc_addr`, byte address).
    scale: u64,
}

impl Signature {
    pub(super) fn new(c: &CacheConfig) -> Self {
        Self {
            scale: if c.signature == "pc_addr" {
                c.line_bytes as u64
            } else {
                1
            },
        }
    }
    /// The signature of an access: instruction-index bits of the PC xor the address bits.
    #[inline]
    pub(super) fn of(&self, acc: &MissInfo) -> u8 {
        ((acc.pc >> 3) ^ acc.line.wrapping_mul(self.scale)) as u8
    }
}

/// The SHiP table: one saturating counter per signature.
pub(super) struct ShipTable {
    ctr: Vec<u8>,
}

impl ShipTable {
    pub(super) fn new() -> Self {
        Self {
            ctr: vec![SHIP_INIT; SIGNATURES],
        }
    }
    /// The insertion RRPV for a line of signature `sig`: 3 when no reuse is predicted, else 2.
    #[inline]
    pub(super) fn insert_rrpv(&self, sig: u8) -> u8 {
        if self.ctr[sig as usize] == 0 {
            RRPV_MAX
        } else {
            RRPV_MAX - 1
        }
    }
    /// A line of signature `sig` was reused.
    #[inline]
    pub(super) fn inc(&mut self, sig: u8) {
        let c = &mut self.ctr[sig as usize];
        *c = (*c + 1).min(SHIP_MAX);
    }
    /// A line of signature `sig` died without reuse.
    #[inline]
    pub(super) fn dec(&mut self, sig: u8) {
        let c = &mut self.ctr[sig as usize];
        *c = c.saturating_sub(1);
    }
    #[cfg(test)]
    pub(super) fn get(&self, sig: u8) -> u8 {
        self.ctr[sig as usize]
    }
}

/// The RRIP victim search among `candidates` of the lines `rrpv[base..]`: the first line at RRPV
/// 3, else every candidate ages by one and the search repeats.
pub(super) fn rrip_victim(rrpv: &mut [u8], base: usize, candidates: u64) -> usize {
    loop {
        let mut m = candidates;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            if rrpv[base + w] >= RRPV_MAX {
                return w;
            }
        }
        let mut m = candidates;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            rrpv[base + w] += 1;
        }
    }
}

/// SHiP-RRIP over all ways of each set.
pub struct Ship {
    ways: usize,
    rrpv: Vec<u8>,
    sig: Vec<u8>,
    reused: Vec<bool>,
    table: ShipTable,
    signature: Signature,
}

impl Ship {
    /// SHiP over the `sets x ways` lines of `c`.
    pub fn new(c: &CacheConfig) -> Self {
        let n = (c.sets * c.ways) as usize;
        Self {
            ways: c.ways as usize,
            rrpv: vec![RRPV_MAX; n],
            sig: vec![0; n],
            reused: vec![false; n],
            table: ShipTable::new(),
            signature: Signature::new(c),
        }
    }
}

impl Replacement for Ship {
    fn victim(&mut self, set: usize, candidates: u64, _: &MissInfo) -> usize {
        let base = set * self.ways;
        let w = rrip_victim(&mut self.rrpv, base, candidates);
        if !self.reused[base + w] {
            self.table.dec(self.sig[base + w]);
        }
        w
    }
    fn on_hit(&mut self, set: usize, way: usize, _: &MissInfo) {
        let i = set * self.ways + way;
        self.rrpv[i] = 0;
        self.reused[i] = true;
        self.table.inc(self.sig[i]);
    }
    fn on_fill(&mut self, set: usize, way: usize, acc: &MissInfo) {
        let i = set * self.ways + way;
        let s = self.signature.of(acc);
        self.sig[i] = s;
        self.reused[i] = false;
        self.rrpv[i] = self.table.insert_rrpv(s);
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_config;
    use super::*;

    fn acc(pc: u64, line: u64) -> MissInfo {
        MissInfo {
            pc,
            line,
            ..MissInfo::default()
        }
    }

    #[test]
    fn signature_is_pc_index_xor_address_low_bits() {
        let mut c = test_config(1, 2);
        assert_eq!(c.line_bytes, 128);
        // The digest's form (§4.5): PC instruction index xor line-address bits 7:0.
        c.signature = "pc_line".into();
        let by_line = Signature::new(&c);
        assert_eq!(by_line.of(&acc(0x18, 0x105)), 3 ^ 0x05);
        assert_eq!(by_line.of(&acc(8 * 0x1ff, 0)), 0xff);
        // The document's literal form: the byte address of line 0x105 is 0x8280, bits 7:0 0x80.
        c.signature = "pc_addr".into();
        let lit = Signature::new(&c);
        assert_eq!(lit.of(&acc(0x18, 0x105)), 3 ^ 0x80);
        assert_eq!(lit.of(&acc(0x18, 0x104)), 3);
        assert_eq!(lit.of(&acc(8 * 0x1ff, 0)), 0xff);
    }

    /// With `pc_line`, lines of one load PC at different line addresses get different
    /// signatures, and the PC enters as an instruction index: consecutive instructions (8 bytes
    /// apart) differ, byte offsets inside one instruction do not exist. The literal form (the
    /// preset default) keeps a PC's lines on 2 signatures.
    #[test]
    fn one_pcs_lines_get_distinct_signatures_with_line_bits() {
        assert_eq!(
            crate::GpuConfig::preset("gtx480-cawa")
                .unwrap()
                .l1d
                .signature,
            "pc_addr"
        );
        let s = Signature::new(&test_config(1, 2));
        let sigs: std::collections::BTreeSet<u8> =
            (0..256u64).map(|l| s.of(&acc(0x40, 0x1000 + l))).collect();
        assert_eq!(sigs.len(), 256, "256 consecutive lines, 256 signatures");
        assert_ne!(s.of(&acc(0x40, 7)), s.of(&acc(0x48, 7)), "next instruction");
        let mut c = test_config(1, 2);
        c.signature = "pc_addr".into();
        let lit = Signature::new(&c);
        let sigs: std::collections::BTreeSet<u8> = (0..256u64)
            .map(|l| lit.of(&acc(0x40, 0x1000 + l)))
            .collect();
        assert_eq!(sigs.len(), 2, "the literal form keeps only address bit 7");
    }

    #[test]
    fn dead_signatures_are_inserted_distant_and_reused_ones_long() {
        let mut p = Ship::new(&test_config(1, 2));
        let dead = acc(0x40, 0); // signature 8
        let live = acc(0x80, 0); // signature 16
        p.on_fill(0, 0, &dead);
        p.on_fill(0, 1, &live);
        p.on_hit(0, 1, &live);
        // Way 0 (never reused) is the victim; its signature's counter drops 1 -> 0.
        assert_eq!(p.victim(0, 0b11, &dead), 0);
        assert_eq!(p.table.get(8), 0);
        assert_eq!(p.table.get(16), 2);
        // A new line of the dead signature goes in at RRPV 3, one of the reused at 2.
        p.on_fill(0, 0, &dead);
        assert_eq!(p.rrpv[0], RRPV_MAX);
        p.on_fill(0, 0, &live);
        assert_eq!(p.rrpv[0], RRPV_MAX - 1);
    }

    #[test]
    fn counters_saturate() {
        let mut t = ShipTable::new();
        for _ in 0..20 {
            t.inc(1);
        }
        assert_eq!(t.get(1), SHIP_MAX);
        for _ in 0..20 {
            t.dec(1);
        }
        assert_eq!(t.get(1), 0);
    }
}
