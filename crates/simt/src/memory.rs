//! Device memory: the sparse 64-bit global space and the generic-address windows.
//!
//! Global memory is a set of allocations, each backed by its own zero-initialised byte buffer
//! (allocated lazily by the OS, so a large `malloc` costs nothing until touched). This is sparse
//! in the 64-bit space like a page map, but every access is checked against the allocation it
//! falls in: an access outside any allocation is a fault, which the executor reports with the
//! kernel, CTA, thread, PC and PTX line. Allocations are 256-byte aligned and separated by a
//! 256-byte guard gap, so an off-by-one overrun faults instead of landing in a neighbour.
//!
//! Generic addresses (PTX ISA §6.4.1) are resolved by fixed windows, documented in
//! `docs/ARCHITECTURE.md` of the simt crate section:
//!
//! | window            | base                  | size  |
//! |-------------------|-----------------------|-------|
//! | shared (own CTA)  | [`SHARED_WINDOW`]     | 4 GiB |
//! | local (own thread)| [`LOCAL_WINDOW`]      | 4 GiB |
//! | constant          | [`CONST_WINDOW`]      | 4 GiB |
//! | kernel parameters | [`PARAM_WINDOW`]      | 4 GiB |
//! | global            | everything else (heap from [`GLOBAL_BASE`]) | |
//!
//! A state-space address (the operand of `ld.shared`, or the value of `mov.u64 %rd, smem_var`) is
//! the offset inside its window; `cvta.shared` adds the window base and `cvta.to.shared`
//! subtracts it.

use warpforge_core::MemSpace;

mod view;
pub use view::Store;

/// First global allocation address (device pointers look like CUDA's `0x7f..`).
pub const GLOBAL_BASE: u64 = 0x0000_7f00_0000_0000;
/// Generic-address window of shared memory.
pub const SHARED_WINDOW: u64 = 0x0000_1000_0000_0000;
/// Generic-address window of local memory.
pub const LOCAL_WINDOW: u64 = 0x0000_2000_0000_0000;
/// Generic-address window of constant memory.
pub const CONST_WINDOW: u64 = 0x0000_3000_0000_0000;
/// Generic-address window of the kernel parameter space.
pub const PARAM_WINDOW: u64 = 0x0000_4000_0000_0000;
/// Size of each non-global window.
pub const WINDOW_SIZE: u64 = 1 << 32;
/// Alignment of allocations and the guard gap between them, in bytes.
pub const ALLOC_ALIGN: u64 = 256;

/// Classifies a generic address: the space it falls in and the offset inside that space
/// (global addresses are returned unchanged).
#[inline]
pub fn resolve_generic(addr: u64) -> (MemSpace, u64) {
    if (SHARED_WINDOW..PARAM_WINDOW + WINDOW_SIZE).contains(&addr) {
        let off = addr & (WINDOW_SIZE - 1);
        match addr & !(WINDOW_SIZE - 1) {
            SHARED_WINDOW => return (MemSpace::Shared, off),
            LOCAL_WINDOW => return (MemSpace::Local, off),
            CONST_WINDOW => return (MemSpace::Const, off),
            PARAM_WINDOW => return (MemSpace::Param, off),
            _ => {}
        }
    }
    (MemSpace::Global, addr)
}

/// Window base of a state space for `cvta` (0 for global).
pub fn window_base(space: MemSpace) -> u64 {
    match space {
        MemSpace::Shared => SHARED_WINDOW,
        MemSpace::Local => LOCAL_WINDOW,
        MemSpace::Const => CONST_WINDOW,
        MemSpace::Param => PARAM_WINDOW,
        MemSpace::Global | MemSpace::Tex => 0,
    }
}

/// One global allocation.
#[derive(Debug)]
pub struct Alloc {
    /// First byte address.
    pub base: u64,
    /// Backing store; its length is the allocation size.
    pub data: Vec<u8>,
    /// What it is, for messages (`malloc`, or a module variable name).
    pub label: String,
}

/// An access that fell outside every allocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fault {
    /// Address accessed.
    pub addr: u64,
    /// Bytes accessed.
    pub size: u64,
}

/// The sparse global address space.
#[derive(Debug)]
pub struct GlobalMem {
    allocs: Vec<Alloc>,
    next: u64,
    last: usize,
    /// Set for a per-SM view with window semantics ([`GlobalMem::view_of`]).
    view: Option<Box<view::View>>,
}

/// Index of the allocation of `allocs` (address order) holding `[addr, addr+size)`; `last` is
/// the index found last, tried first and updated.
#[inline]
fn locate(allocs: &[Alloc], last: &mut usize, addr: u64, size: u64) -> Result<usize, Fault> {
    if let Some(a) = allocs.get(*last) {
        if addr >= a.base && addr + size <= a.base + a.data.len() as u64 {
            return Ok(*last);
        }
    }
    let i = allocs.partition_point(|a| a.base <= addr);
    if i > 0 {
        let a = &allocs[i - 1];
        if addr + size <= a.base + a.data.len() as u64 {
            *last = i - 1;
            return Ok(i - 1);
        }
    }
    Err(Fault { addr, size })
}

impl Default for GlobalMem {
    fn default() -> Self {
        Self::new()
    }
}

impl GlobalMem {
    /// An empty address space.
    pub fn new() -> Self {
        Self {
            allocs: Vec::new(),
            next: GLOBAL_BASE,
            last: 0,
            view: None,
        }
    }

    /// Allocates `bytes` zeroed bytes, 256-byte aligned; returns the base address.
    pub fn alloc(&mut self, bytes: u64, label: &str) -> Option<u64> {
        if self.view.is_some() {
            return None;
        }
        let size = usize::try_from(bytes).ok()?;
        let base = self.next;
        let span = bytes.max(1).div_ceil(ALLOC_ALIGN) * ALLOC_ALIGN + ALLOC_ALIGN;
        let next = self.next.checked_add(span)?;
        if next >= GLOBAL_BASE + (1 << 44) {
            return None;
        }
        // Fallible host allocation: a request the host cannot back is a `None` (an error for
        // the caller), never a process abort.
        let mut data = Vec::new();
        data.try_reserve_exact(size).ok()?;
        data.resize(size, 0u8);
        self.next = next;
        self.allocs.push(Alloc {
            base,
            data,
            label: label.to_string(),
        });
        Some(base)
    }

    /// The allocations, in address order.
    pub fn allocs(&self) -> &[Alloc] {
        match &self.view {
            // SAFETY: contract of `GlobalMem::view_of`.
            Some(v) => unsafe { &(*v.base_ptr()).allocs },
            None => &self.allocs,
        }
    }

    /// Index of the allocation holding `[addr, addr+size)`.
    #[inline]
    fn find(&mut self, addr: u64, size: u64) -> Result<usize, Fault> {
        locate(&self.allocs, &mut self.last, addr, size)
    }

    /// The allocation holding byte `addr`: its base address and its bytes.
    #[inline]
    pub fn alloc_at(&mut self, addr: u64) -> Option<(u64, &mut [u8])> {
        let i = self.find(addr, 1).ok()?;
        let a = &mut self.allocs[i];
        Some((a.base, &mut a.data[..]))
    }

    /// Mutable bytes `[addr, addr+len)`, which must lie in one allocation.
    #[inline]
    pub fn slice_mut(&mut self, addr: u64, len: u64) -> Result<&mut [u8], Fault> {
        let i = self.find(addr, len)?;
        let a = &mut self.allocs[i];
        let off = (addr - a.base) as usize;
        Ok(&mut a.data[off..off + len as usize])
    }

    /// Loads `size` (1, 2, 4 or 8) little-endian bytes, zero-extended.
    #[inline]
    pub fn load(&mut self, addr: u64, size: u32) -> Result<u64, Fault> {
        if let Some(v) = &mut self.view {
            return v.load(addr, size);
        }
        let s = self.slice_mut(addr, size as u64)?;
        Ok(load_le(s, size))
    }

    /// Stores the low `size` bytes of `v`.
    #[inline]
    pub fn store(&mut self, addr: u64, size: u32, v: u64) -> Result<(), Fault> {
        if let Some(w) = &mut self.view {
            return w.store(addr, size, v);
        }
        let s = self.slice_mut(addr, size as u64)?;
        store_le(s, size, v);
        Ok(())
    }
}

/// Little-endian load of `size` bytes from the start of `s`.
#[inline(always)]
pub fn load_le(s: &[u8], size: u32) -> u64 {
    match size {
        1 => s[0] as u64,
        2 => u16::from_le_bytes([s[0], s[1]]) as u64,
        4 => u32::from_le_bytes([s[0], s[1], s[2], s[3]]) as u64,
        _ => u64::from_le_bytes([s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]]),
    }
}

/// Little-endian store of the low `size` bytes of `v` at the start of `s`.
#[inline(always)]
pub fn store_le(s: &mut [u8], size: u32, v: u64) {
    match size {
        1 => s[0] = v as u8,
        2 => s[..2].copy_from_slice(&(v as u16).to_le_bytes()),
        4 => s[..4].copy_from_slice(&(v as u32).to_le_bytes()),
        _ => s[..8].copy_from_slice(&v.to_le_bytes()),
    }
}

/// Bounds-checked load from a flat buffer (shared, local, constant, parameter space).
#[inline]
pub fn flat_load(buf: &[u8], off: u64, size: u32) -> Option<u64> {
    let end = off.checked_add(size as u64)?;
    if end > buf.len() as u64 {
        return None;
    }
    Some(load_le(&buf[off as usize..], size))
}

/// Bounds-checked store into a flat buffer.
#[inline]
pub fn flat_store(buf: &mut [u8], off: u64, size: u32, v: u64) -> Option<()> {
    let end = off.checked_add(size as u64)?;
    if end > buf.len() as u64 {
        return None;
    }
    store_le(&mut buf[off as usize..], size, v);
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_are_aligned_guarded_and_checked() {
        let mut m = GlobalMem::new();
        let a = m.alloc(10, "a").unwrap();
        let b = m.alloc(300, "b").unwrap();
        assert_eq!(a % ALLOC_ALIGN, 0);
        assert_eq!(b % ALLOC_ALIGN, 0);
        assert!(b >= a + 10 + ALLOC_ALIGN);
        m.store(a + 6, 4, 0xdead_beef).unwrap();
        assert_eq!(m.load(a + 6, 4).unwrap(), 0xdead_beef);
        assert_eq!(m.load(a + 6, 2).unwrap(), 0xbeef);
        assert!(m.load(a + 8, 4).is_err(), "straddles the end");
        assert!(m.load(a + 10, 1).is_err());
        assert!(m.load(b + 299, 1).is_ok());
        assert!(m.load(b + 300, 1).is_err());
        assert!(m.load(0, 4).is_err());
        assert_eq!(m.load(b, 8).unwrap(), 0);
    }

    #[test]
    fn generic_windows_resolve() {
        assert_eq!(resolve_generic(SHARED_WINDOW + 12), (MemSpace::Shared, 12));
        assert_eq!(resolve_generic(LOCAL_WINDOW + 4), (MemSpace::Local, 4));
        assert_eq!(resolve_generic(CONST_WINDOW), (MemSpace::Const, 0));
        assert_eq!(resolve_generic(PARAM_WINDOW + 8), (MemSpace::Param, 8));
        assert_eq!(
            resolve_generic(GLOBAL_BASE + 8),
            (MemSpace::Global, GLOBAL_BASE + 8)
        );
        assert_eq!(
            resolve_generic(SHARED_WINDOW + WINDOW_SIZE * 10).0,
            MemSpace::Global
        );
    }
}
