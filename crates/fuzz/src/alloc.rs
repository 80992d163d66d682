//! A global allocator that refuses single allocations above a bound: an input that makes a
//! parser reserve gigabytes (a length read from the input and trusted) is reported as an
//! "unbounded allocation" instead of exhausting the machine.

use std::alloc::{GlobalAlloc, Layout, System};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Largest single allocation allowed while fuzzing (bytes); 0 = no bound.
pub static LIMIT: AtomicUsize = AtomicUsize::new(0);
/// Set when an allocation was refused (the harness then reports the input and aborts).
pub static REFUSED: AtomicUsize = AtomicUsize::new(0);

/// A file opened before fuzzing: when an allocation is refused, the input being run is written
/// there at once (without allocating), so that it survives even when the code under test
/// then aborts on the failed allocation (an infallible `Vec` reservation does).
pub static LAST_WORDS: Mutex<Option<File>> = Mutex::new(None);

/// Writes the input being run into [`LAST_WORDS`]; allocation-free.
fn record_refusal(size: usize) {
    REFUSED.store(size, Ordering::Relaxed);
    let (Ok(file), Ok(cur)) = (LAST_WORDS.try_lock(), crate::engine::CURRENT.try_lock()) else {
        return;
    };
    if let Some(f) = file.as_ref() {
        let _ = f.set_len(0);
        let _ = f.write_all_at(&cur, 0);
    }
}

/// The bounded allocator (install with `#[global_allocator]`).
pub struct Bounded;

unsafe impl GlobalAlloc for Bounded {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let lim = LIMIT.load(Ordering::Relaxed);
        if lim != 0 && layout.size() > lim {
            record_refusal(layout.size());
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
            record_refusal(new_size);
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}
