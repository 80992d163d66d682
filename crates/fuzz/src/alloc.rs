//! A global allocator that refuses single allocations above a bound: an input that makes a
//! parser reserve gigabytes (a length read from the input and trusted) is reported as an
//! "unbounded allocation" instead of exhausting the machine.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Largest single allocation allowed while fuzzing (bytes); 0 = no bound.
pub static LIMIT: AtomicUsize = AtomicUsize::new(0);
/// Set when an allocation was refused (the harness then reports the input and aborts).
pub static REFUSED: AtomicUsize = AtomicUsize::new(0);

/// The bounded allocator (install with `#[global_allocator]`).
pub struct Bounded;

unsafe impl GlobalAlloc for Bounded {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let lim = LIMIT.load(Ordering::Relaxed);
        if lim != 0 && layout.size() > lim {
            REFUSED.store(layout.size(), Ordering::Relaxed);
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let lim = LIMIT.load(Ordering::Relaxed);
        if lim != 0 && new_size > lim {
            REFUSED.store(new_size, Ordering::Relaxed);
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}
