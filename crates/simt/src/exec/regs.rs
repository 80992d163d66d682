//! The per-warp register file in two banks: 32-bit lanes for registers of at most 32 bits,
//! 64-bit lanes for 64-bit registers and the special slots (the bank of each register is decided
//! when the kernel is decoded, see [`KernelCode::phys`]).
//!
//! A register's value is the same 64-bit number in either bank: a register of the 32-bit bank
//! only ever holds values below 2^32 (its writes are masked to its declared width), stored
//! truncated and read zero-extended. Half the bytes per lane keep more of the resident warps'
//! registers in the host's caches.

use warpforge_core::WARP_SIZE;

use crate::program::{KernelCode, WIDE};

/// The lane type of a register bank: `u32` or `u64`.
pub(super) trait Lane: Copy + Default + std::fmt::Debug + 'static {
    /// Whether this is the 64-bit lane.
    const WIDE: bool;
    /// The lane's value as a register value (zero-extended).
    fn to64(self) -> u64;
    /// A register value as a lane (truncated; the value fits where the bank is chosen right).
    fn from64(v: u64) -> Self;
    /// The bank of this lane type in `regs`.
    fn bank(regs: &Regs) -> &[[Self; WARP_SIZE]];
    /// 32 zero lanes (an absent operand).
    fn zeros() -> &'static [Self; WARP_SIZE];
}

impl Lane for u32 {
    const WIDE: bool = false;
    #[inline(always)]
    fn to64(self) -> u64 {
        self as u64
    }
    #[inline(always)]
    fn from64(v: u64) -> u32 {
        v as u32
    }
    #[inline(always)]
    fn bank(regs: &Regs) -> &[[u32; WARP_SIZE]] {
        &regs.narrow
    }
    #[inline(always)]
    fn zeros() -> &'static [u32; WARP_SIZE] {
        static Z: [u32; WARP_SIZE] = [0; WARP_SIZE];
        &Z
    }
}

impl Lane for u64 {
    const WIDE: bool = true;
    #[inline(always)]
    fn to64(self) -> u64 {
        self
    }
    #[inline(always)]
    fn from64(v: u64) -> u64 {
        v
    }
    #[inline(always)]
    fn bank(regs: &Regs) -> &[[u64; WARP_SIZE]] {
        &regs.wide
    }
    #[inline(always)]
    fn zeros() -> &'static [u64; WARP_SIZE] {
        static Z: [u64; WARP_SIZE] = [0; WARP_SIZE];
        &Z
    }
}

/// A warp's registers, structure-of-arrays: `narrow[slot][lane]` and `wide[slot][lane]`,
/// addressed by physical slots ([`WIDE`] selects `wide`).
#[derive(Debug, Default)]
pub struct Regs {
    /// Registers of at most 32 bits.
    pub narrow: Vec<[u32; WARP_SIZE]>,
    /// 64-bit registers and the special slots.
    pub wide: Vec<[u64; WARP_SIZE]>,
}

impl Regs {
    /// Sizes the banks for `code` with every register zero (the kept rows are cleared in one
    /// fill, a memset, new ones added as zeros).
    pub fn reset(&mut self, code: &KernelCode) {
        let (n, w) = (code.narrow_slots as usize, code.wide_slots as usize);
        self.narrow.truncate(n);
        self.narrow.as_flattened_mut().fill(0);
        self.narrow.resize(n, [0; WARP_SIZE]);
        self.wide.truncate(w);
        self.wide.as_flattened_mut().fill(0);
        self.wide.resize(w, [0; WARP_SIZE]);
    }

    /// Lane `l` of physical slot `p`.
    #[inline(always)]
    pub fn get(&self, p: u32, l: usize) -> u64 {
        if p & WIDE != 0 {
            self.wide[(p & !WIDE) as usize][l]
        } else {
            self.narrow[p as usize][l] as u64
        }
    }

    /// Sets lane `l` of physical slot `p` to `v` (a value that fits the slot's bank).
    #[inline(always)]
    pub fn set(&mut self, p: u32, l: usize, v: u64) {
        if p & WIDE != 0 {
            self.wide[(p & !WIDE) as usize][l] = v;
        } else {
            self.narrow[p as usize][l] = v as u32;
        }
    }

    /// All 32 lanes of physical slot `p` as register values.
    #[inline]
    pub fn row(&self, p: u32) -> [u64; WARP_SIZE] {
        if p & WIDE != 0 {
            self.wide[(p & !WIDE) as usize]
        } else {
            self.narrow[p as usize].map(|v| v as u64)
        }
    }
}
