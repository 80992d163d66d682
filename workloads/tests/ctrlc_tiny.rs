//! Functional runs of the Ctrl-C set (Lee 2017, Table 5.3): every workload at `tiny` size must
//! pass its CPU-reference check (default tests); `small` is checked by the `#[ignore]`d test
//! `ctrlc_small_all` (`cargo test --release -p warpforge-workloads --test ctrlc_tiny -- --ignored
//! --nocapture`), which also prints the thread-instruction count of each workload.

use std::any::Any;
use warpforge_core::{DynInst, InstObserver};
use warpforge_simt::Device;
use warpforge_workloads::{ctrlc, Check, Size};

/// Counts thread instructions (active lanes of every executed warp instruction).
#[derive(Default)]
struct ThreadInsts {
    threads: u64,
    warps: u64,
}

impl InstObserver for ThreadInsts {
    fn on_inst(&mut self, _cta: u32, _warp: u32, inst: &DynInst) {
        self.threads += inst.active_lanes() as u64;
        self.warps += 1;
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// Runs `name` at `size`; an error unless its check passes. Returns (thread, warp) instructions.
fn try_run(name: &str, size: Size) -> Result<(u64, u64), String> {
    let w = ctrlc::workloads()
        .into_iter()
        .find(|w| w.info().name == name)
        .unwrap_or_else(|| panic!("{name} is not registered in ctrlc::workloads()"));
    let mut dev = Device::new();
    dev.set_observer(Some(Box::new(ThreadInsts::default())));
    match w.run(&mut dev, size) {
        Ok(Check::Passed) => {}
        Ok(Check::Failed(m)) => {
            return Err(format!("{name} ({}) failed its check: {m}", size.name()))
        }
        Err(e) => return Err(format!("{name} ({}) failed to run: {e}", size.name())),
    }
    let obs = dev.observer_mut().expect("observer installed");
    let c = obs
        .as_any_mut()
        .downcast_mut::<ThreadInsts>()
        .expect("our observer");
    if c.threads == 0 {
        return Err(format!("{name}: no instruction executed"));
    }
    Ok((c.threads, c.warps))
}

/// [`try_run`], panicking on failure.
fn run(name: &str, size: Size) -> (u64, u64) {
    try_run(name, size).unwrap_or_else(|e| panic!("{e}"))
}

macro_rules! tiny {
    ($($name:ident),+ $(,)?) => {$(
        #[test]
        fn $name() {
            run(stringify!($name), Size::Tiny);
        }
    )+};
}

tiny!(bo, hot, fwt, dct, wc, mis, clr, pvr, bc, csr, fld, ss, str, ell, prk, mm);

#[test]
fn the_set_has_its_sixteen_workloads() {
    let names: Vec<&str> = ctrlc::workloads().iter().map(|w| w.info().name).collect();
    assert_eq!(
        names,
        [
            "bo", "hot", "fwt", "dct", "wc", "mis", "clr", "pvr", "bc", "csr", "fld", "ss", "str",
            "ell", "prk", "mm"
        ]
    );
    for w in ctrlc::workloads() {
        assert!(w.info().sets.contains("Ctrl-C"));
        assert!(!w.info().kernels.is_empty());
    }
}

#[test]
#[ignore = "small sizes take minutes in a debug build; run with --release --ignored"]
fn ctrlc_small_all() {
    let mut failures = Vec::new();
    for w in ctrlc::workloads() {
        let name = w.info().name;
        let t = std::time::Instant::now();
        let (tiny, small) = match (try_run(name, Size::Tiny), try_run(name, Size::Small)) {
            (Ok(t), Ok(s)) => (t.0, s),
            (a, b) => {
                failures.extend(a.err().into_iter().chain(b.err()));
                continue;
            }
        };
        let (small, warps) = small;
        println!(
            "{name:>4}: tiny {tiny:>10} thread insts; small {small:>11} thread insts, {warps:>9} warp insts ({:.1} s)",
            t.elapsed().as_secs_f64()
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
#[ignore = "paper sizes take from seconds to many minutes each; run with --release --ignored"]
fn ctrlc_paper() {
    // CTRLC_PAPER=pvr,wc restricts the run to those workloads.
    let only = std::env::var("CTRLC_PAPER").unwrap_or_default();
    let mut failures = Vec::new();
    for w in ctrlc::workloads() {
        let name = w.info().name;
        if !only.is_empty() && !only.split(',').any(|n| n == name) {
            continue;
        }
        let t = std::time::Instant::now();
        match try_run(name, Size::Paper) {
            Ok((threads, warps)) => println!(
                "{name:>4}: paper {threads:>13} thread insts, {warps:>11} warp insts ({:.1} s)",
                t.elapsed().as_secs_f64()
            ),
            Err(e) => failures.push(e),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
