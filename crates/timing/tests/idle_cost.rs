//! Idle hardware costs nothing (issue 20 item 4): on a machine far larger than the grid, the SMs
//! that never get a CTA hold no state (caches, warp and collector slots, CPL tables, load
//! trackers, reply buffers), so the memory a run needs follows the work, not the machine.
//! Measured with a counting allocator (this file's only test, so nothing else allocates
//! meanwhile): the heap a 4,000-SM GPU holds once built, and the peak of a whole run, against
//! the 15-SM machine's. Statistics on such machines are checked against eager construction in
//! `skip_idle.rs` (`sleeping_sms_keep_every_statistic`).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use warpforge_simt::Device;
use warpforge_timing::{GpuConfig, TimingRunner};
use warpforge_workloads::{registry, Check, Size};

/// The system allocator, counting the bytes held now and their peak.
struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed on to the system allocator unchanged; the counters only observe.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = HELD.fetch_add(l.size(), Ordering::Relaxed) + l.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        HELD.fetch_sub(l.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, size: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, size) };
        if !q.is_null() {
            if size >= l.size() {
                let now = HELD.fetch_add(size - l.size(), Ordering::Relaxed) + size - l.size();
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                HELD.fetch_sub(l.size() - size, Ordering::Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn config(sms: u32, set: &[(&str, &str)]) -> GpuConfig {
    let mut cfg = GpuConfig::preset("gtx480").unwrap();
    cfg.set("core.num_sms", &sms.to_string()).unwrap();
    for (k, v) in set {
        cfg.set(k, v).unwrap();
    }
    cfg
}

/// Heap bytes held by a freshly built runner of `sms` SMs.
fn built_bytes(sms: u32, set: &[(&str, &str)]) -> usize {
    let before = HELD.load(Ordering::Relaxed);
    let r = TimingRunner::new(config(sms, set), 1);
    let held = HELD.load(Ordering::Relaxed) - before;
    drop(r);
    held
}

/// kmn at tiny on `sms` SMs: the peak heap bytes above those held before the run, the SMs
/// built, and the statistics.
fn run_peak(sms: u32, set: &[(&str, &str)]) -> (usize, usize, serde_json::Value) {
    let w = registry()
        .into_iter()
        .find(|w| w.info().name == "kmn")
        .expect("kmn registered");
    let base = HELD.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let mut dev = Device::new();
    dev.set_runner(Box::new(TimingRunner::new(config(sms, set), 1)));
    assert_eq!(w.run(&mut dev, Size::Tiny).unwrap(), Check::Passed);
    let mut r = dev.take_runner().unwrap();
    let t = r.as_any_mut().downcast_mut::<TimingRunner>().unwrap();
    let peak = PEAK.load(Ordering::Relaxed) - base;
    (peak, t.gpu_mut().built_sms(), t.stats_json())
}

#[test]
fn sms_without_work_hold_no_state() {
    for set in [&[][..], &[("sim.window", "4")][..]] {
        // Built: the 3,985 SMs more cost a few hundred bytes each (handles, per-SM network and
        // engine entries), not the ~56 KB of an SM's state.
        let (small, huge) = (built_bytes(15, set), built_bytes(4000, set));
        let per_sm = (huge - small) / (4000 - 15);
        println!("{set:?}: built 15 SMs {small} B, 4,000 SMs {huge} B ({per_sm} B per SM more)");
        assert!(
            per_sm < 512,
            "{set:?}: {per_sm} B per SM without work ({small} B for 15 SMs, {huge} B for 4,000)"
        );
        // Run: kmn at tiny has fewer CTAs than 15 SMs; both machines build only the SMs that
        // got a CTA, the same ones, and the 4,000-SM run needs less than 2x the 15-SM peak.
        let (p_small, b_small, s_small) = run_peak(15, set);
        let (p_huge, b_huge, s_huge) = run_peak(4000, set);
        println!(
            "{set:?}: run peak 15 SMs {p_small} B, 4,000 SMs {p_huge} B; built {b_small}, {b_huge}"
        );
        assert_eq!(
            s_small["total"]["cycles"], s_huge["total"]["cycles"],
            "{set:?}"
        );
        assert!(
            (1..=15).contains(&b_small),
            "{set:?}: {b_small} of 15 SMs built"
        );
        assert_eq!(b_huge, b_small, "{set:?}: SMs built on 4,000 SMs and on 15");
        assert!(
            p_huge < 2 * p_small,
            "{set:?}: peak heap {p_huge} B on 4,000 SMs, {p_small} B on 15"
        );
    }
}
