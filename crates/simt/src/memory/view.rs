//! A per-SM view of global memory for window mode (the timing model's `sim.window`; see
//! [`warpforge_core::WindowFronts`]): loads read the shared image as it was at the start of the
//! window plus this view's own stores of the window (an overlay of 8-byte words with a byte
//! mask); stores go to the overlay and to a log, which the owner applies to the shared image at
//! the window's end in (cycle, SM, issue) order.

use super::{load_le, Fault, GlobalMem};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Multiplicative hash of a word address (the keys are already well spread in their low bits).
#[derive(Default)]
pub(super) struct WordHasher(u64);

impl Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v.wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29);
    }
}

/// One store of a window, in issue order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Store {
    /// Core cycle of the fetch that executed it.
    pub cycle: u64,
    /// Byte address.
    pub addr: u64,
    /// Bytes (1, 2, 4 or 8).
    pub size: u32,
    /// Value (low `size` bytes).
    pub value: u64,
}

/// The overlay state of a view.
pub(super) struct View {
    /// The shared image; only read while the view is in use (see [`GlobalMem::view_of`]).
    base: *const GlobalMem,
    /// Overlay: word address (`addr >> 3`) -> (bytes, mask of the bytes written).
    words: HashMap<u64, (u64, u8), BuildHasherDefault<WordHasher>>,
    log: Vec<Store>,
    cycle: u64,
    /// Index of the base allocation found last.
    last: usize,
}

// SAFETY: the base pointer is only dereferenced for reading, under the contract of
// `GlobalMem::view_of` (the base outlives the view and is not written while the view is used).
unsafe impl Send for View {}
unsafe impl Sync for View {}

impl std::fmt::Debug for View {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "View({} words, {} stores)",
            self.words.len(),
            self.log.len()
        )
    }
}

impl View {
    pub(super) fn base_ptr(&self) -> *const GlobalMem {
        self.base
    }

    pub(super) fn new(base: *const GlobalMem) -> Self {
        Self {
            base,
            words: HashMap::default(),
            log: Vec::new(),
            cycle: 0,
            last: 0,
        }
    }

    fn base(&self) -> &GlobalMem {
        // SAFETY: contract of `GlobalMem::view_of`.
        unsafe { &*self.base }
    }

    /// Checks `[addr, addr+size)` lies in one allocation of the base; returns that
    /// allocation's index.
    fn check(&mut self, addr: u64, size: u64) -> Result<usize, Fault> {
        // SAFETY: contract of `GlobalMem::view_of`; `base` is a different object than `self`.
        let base = unsafe { &*self.base };
        super::locate(&base.allocs, &mut self.last, addr, size)
    }

    pub(super) fn load(&mut self, addr: u64, size: u32) -> Result<u64, Fault> {
        let i = self.check(addr, size as u64)?;
        let a = &self.base().allocs[i];
        let off = (addr - a.base) as usize;
        let v = load_le(&a.data[off..], size);
        if self.words.is_empty() {
            return Ok(v);
        }
        // Patch the bytes this view has written: at most two overlay words.
        let mut bytes = v.to_le_bytes();
        let end = addr + size as u64;
        for word in addr >> 3..=(end - 1) >> 3 {
            let Some(&(val, m)) = self.words.get(&word) else {
                continue;
            };
            let lo = (word << 3).max(addr);
            let hi = ((word + 1) << 3).min(end);
            for x in lo..hi {
                let j = (x & 7) as u32;
                if m & (1 << j) != 0 {
                    bytes[(x - addr) as usize] = (val >> (8 * j)) as u8;
                }
            }
        }
        Ok(u64::from_le_bytes(bytes))
    }

    pub(super) fn store(&mut self, addr: u64, size: u32, v: u64) -> Result<(), Fault> {
        self.check(addr, size as u64)?;
        let end = addr + size as u64;
        for word in addr >> 3..=(end - 1) >> 3 {
            let e = self.words.entry(word).or_insert((0, 0));
            let lo = (word << 3).max(addr);
            let hi = ((word + 1) << 3).min(end);
            for x in lo..hi {
                let j = (x & 7) as u32;
                let byte = (v >> (8 * (x - addr))) & 0xff;
                e.0 = (e.0 & !(0xff << (8 * j))) | (byte << (8 * j));
                e.1 |= 1 << j;
            }
        }
        self.log.push(Store {
            cycle: self.cycle,
            addr,
            size,
            value: v,
        });
        Ok(())
    }

    pub(super) fn set_cycle(&mut self, c: u64) {
        self.cycle = c;
    }

    pub(super) fn log(&self) -> &[Store] {
        &self.log
    }

    pub(super) fn clear(&mut self) {
        self.words.clear();
        self.log.clear();
    }
}

/// Write access to a plain memory's allocations that several threads may share, for applying a
/// window's stores to disjoint bytes concurrently (the parallel commit of `source/window.rs`).
pub(crate) struct RawImage {
    /// Per allocation, in address order: base address, length in bytes, first byte.
    spans: Vec<(u64, u64, *mut u8)>,
}

// SAFETY: the pointers are only written through by `RawImage::store`, whose contract keeps
// concurrent writes disjoint and the memory alive and otherwise untouched.
unsafe impl Send for RawImage {}
unsafe impl Sync for RawImage {}

impl RawImage {
    /// Stores the low `size` bytes of `v` at `addr`; an address outside every allocation is
    /// ignored (a window's stores were checked against the same allocations when issued).
    /// `last`: the caller's allocation index found last.
    ///
    /// # Safety
    /// The memory this came from ([`GlobalMem::raw_image`]) must outlive the call and must not
    /// be accessed otherwise meanwhile; concurrent calls must write disjoint bytes.
    pub(crate) unsafe fn store(&self, last: &mut usize, addr: u64, size: u32, v: u64) {
        let end = addr + u64::from(size);
        let fits = |i: usize| {
            let (b, n, _) = self.spans[i];
            addr >= b && end <= b + n
        };
        if *last >= self.spans.len() || !fits(*last) {
            let i = self.spans.partition_point(|s| s.0 <= addr);
            if i == 0 || !fits(i - 1) {
                return;
            }
            *last = i - 1;
        }
        let (b, _, p) = self.spans[*last];
        // SAFETY: in bounds (`fits`); disjointness and lifetime are the caller's contract.
        unsafe {
            std::ptr::copy_nonoverlapping(
                v.to_le_bytes().as_ptr(),
                p.add((addr - b) as usize),
                size as usize,
            );
        }
    }
}

impl GlobalMem {
    /// Shared write access to this (plain) memory's allocations ([`RawImage`]); empty for a
    /// view.
    pub(crate) fn raw_image(&mut self) -> RawImage {
        RawImage {
            spans: if self.view.is_some() {
                Vec::new()
            } else {
                self.allocs
                    .iter_mut()
                    .map(|a| (a.base, a.data.len() as u64, a.data.as_mut_ptr()))
                    .collect()
            },
        }
    }

    /// A view of `base` with window semantics (`memory/view.rs`): it reads `base` and
    /// keeps its own stores apart until the owner applies its [`log`](GlobalMem::view_log).
    /// A view cannot allocate, has no mutable slices ([`GlobalMem::slice_mut`] and
    /// [`GlobalMem::alloc_at`] answer as if nothing were allocated, so the executor takes its
    /// checked per-lane path) and reports `base`'s allocations.
    ///
    /// # Safety
    /// `base` must outlive the view and must not be written (nor moved) while the view is used.
    pub unsafe fn view_of(base: *const GlobalMem) -> GlobalMem {
        GlobalMem {
            allocs: Vec::new(),
            next: 0,
            last: 0,
            view: Some(Box::new(View::new(base))),
        }
    }

    /// Whether this is a view ([`GlobalMem::view_of`]).
    pub fn is_view(&self) -> bool {
        self.view.is_some()
    }

    /// A view's stores since the last [`GlobalMem::view_clear`], in issue order (empty for a
    /// plain memory).
    pub fn view_log(&self) -> &[Store] {
        self.view.as_deref().map_or(&[], View::log)
    }

    /// Sets the core cycle recorded with a view's next stores.
    pub fn view_set_cycle(&mut self, c: u64) {
        if let Some(v) = &mut self.view {
            v.set_cycle(c);
        }
    }

    /// Forgets a view's stores (after the owner applied them to the base).
    pub fn view_clear(&mut self) {
        if let Some(v) = &mut self.view {
            v.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_view_sees_the_base_and_its_own_stores_only() {
        let mut m = GlobalMem::new();
        let a = m.alloc(64, "a").unwrap();
        m.store(a, 8, 0x1122_3344_5566_7788).unwrap();
        let base: *const GlobalMem = &m;
        // SAFETY: `m` is not written while the views are used.
        let (mut v1, mut v2) = unsafe { (GlobalMem::view_of(base), GlobalMem::view_of(base)) };
        v1.view_set_cycle(7);
        v1.store(a + 2, 2, 0xaabb).unwrap();
        v1.store(a + 7, 4, 0xdead_beef).unwrap();
        assert_eq!(
            v1.load(a, 8).unwrap(),
            0xef22_3344_aabb_7788,
            "own stores, bytewise"
        );
        assert_eq!(v1.load(a + 8, 4).unwrap(), 0x00de_adbe);
        assert_eq!(
            v2.load(a, 8).unwrap(),
            0x1122_3344_5566_7788,
            "other views see the base"
        );
        assert!(v1.store(a + 62, 4, 0).is_err(), "bounds are the base's");
        assert!(v2.load(a + 64, 1).is_err());
        assert!(v1.alloc_at(a).is_none() && v1.slice_mut(a, 4).is_err());
        assert_eq!(
            v1.view_log(),
            &[
                Store {
                    cycle: 7,
                    addr: a + 2,
                    size: 2,
                    value: 0xaabb
                },
                Store {
                    cycle: 7,
                    addr: a + 7,
                    size: 4,
                    value: 0xdead_beef
                },
            ]
        );
        v1.view_clear();
        assert_eq!(v1.load(a, 8).unwrap(), 0x1122_3344_5566_7788);
        assert!(v1.view_log().is_empty());
        drop((v1, v2));
        assert!(!m.is_view());
    }
}
