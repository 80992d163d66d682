//! Every workload of the CAWA / latency set runs functionally at `tiny` size and passes its CPU
//! reference check; the characterisation shows the behaviour each workload is meant to exhibit.
//! (`small` sizes: `cargo test --release -p warpforge-workloads -- --ignored`.)

use warpforge_simt::Device;
use warpforge_workloads::profile::{Characterizer, InstCounter, Profile};
use warpforge_workloads::{cawa, Check, Size, Workload};

fn workload(name: &str) -> &'static dyn Workload {
    cawa::workloads()
        .into_iter()
        .find(|w| w.info().name == name)
        .unwrap_or_else(|| panic!("{name} not registered"))
}

fn profile(name: &str, size: Size) -> Profile {
    let mut dev = Device::new();
    dev.set_observer(Some(Box::new(Characterizer::new())));
    let check = workload(name).run(&mut dev, size).expect("workload run");
    assert_eq!(check, Check::Passed, "{name} at {}", size.name());
    let obs = dev.observer_mut().unwrap();
    obs.as_any_mut()
        .downcast_ref::<Characterizer>()
        .unwrap()
        .profile()
}

macro_rules! passes {
    ($($name:ident),* $(,)?) => {
        mod tiny {
            use super::*;
            $(
                #[test]
                fn $name() {
                    let p = profile(stringify!($name), Size::Tiny);
                    assert!(p.warp_insts > 0 && p.launches > 0);
                    // every declared kernel was launched
                    for k in workload(stringify!($name)).info().kernels {
                        assert!(p.kernels.contains_key(*k), "kernel {k} never launched");
                    }
                }
            )*
        }
        mod small {
            use super::*;
            $(
                #[test]
                #[ignore = "small sizes take seconds to minutes each"]
                fn $name() {
                    let p = profile(stringify!($name), Size::Small);
                    assert!(p.thread_insts > 1_000_000, "{} thread insts", p.thread_insts);
                }
            )*
        }
    };
}

passes!(bfs, bt, htw, kmn, nw, sr1, sc, sc_mid, bp, pf, pth, tpf, sr2, gau, lmd, lud, myc);

#[test]
fn runs_are_deterministic() {
    for name in ["bfs", "sc"] {
        let counts: Vec<(u64, u64)> = (0..2)
            .map(|_| {
                let mut dev = Device::new();
                dev.set_observer(Some(Box::new(InstCounter::default())));
                assert_eq!(
                    workload(name).run(&mut dev, Size::Tiny).unwrap(),
                    Check::Passed
                );
                let c = dev.observer_mut().unwrap();
                let c = c.as_any_mut().downcast_ref::<InstCounter>().unwrap();
                (c.warp_insts, c.thread_insts)
            })
            .collect();
        assert_eq!(counts[0], counts[1], "{name}");
    }
}

/// The behaviours the documents attribute to these applications show up in the profiles.
#[test]
fn behaviours_match_the_documents() {
    // KMN: the per-thread row walk touches one line per lane (Lee 2017 Algorithm 10).
    let kmn = profile("kmn", Size::Tiny);
    assert!(
        kmn.lines_per_request > 16.0,
        "kmn lines/request {}",
        kmn.lines_per_request
    );
    // SC: coordinates stored [dim][point]: coalesced.
    let sc = profile("sc", Size::Tiny);
    assert!(
        sc.lines_per_request < 2.5,
        "sc lines/request {}",
        sc.lines_per_request
    );
    // NW: 16-thread CTAs: at most half a warp is ever active.
    let nw = profile("nw", Size::Tiny);
    assert!(
        nw.avg_active_lanes <= 16.0,
        "nw lanes {}",
        nw.avg_active_lanes
    );
    assert!(
        nw.barriers_per_cta > 30.0,
        "nw barriers/CTA {}",
        nw.barriers_per_cta
    );
    // BT: two barriers per tree level plus the leaf phase.
    let bt = profile("bt", Size::Tiny);
    assert!(
        bt.barriers_per_cta >= 4.0,
        "bt barriers/CTA {}",
        bt.barriers_per_cta
    );
    // BFS: divergent (frontier mask, variable degrees), no barriers.
    let bfs = profile("bfs", Size::Tiny);
    assert!(
        bfs.avg_active_lanes < 24.0,
        "bfs lanes {}",
        bfs.avg_active_lanes
    );
    assert_eq!(bfs.mix.barrier, 0);
    // MYC: SFU-heavy, one warp per 32 cells, no memory inside the loop.
    let myc = profile("myc", Size::Tiny);
    assert!(
        myc.mix.sfu * 20 > myc.warp_insts,
        "myc sfu {} of {}",
        myc.mix.sfu,
        myc.warp_insts
    );
    assert!(myc.global_mem_fraction < 0.02);
    // TPF: shared-memory atomics for the histogram.
    let tpf = profile("tpf", Size::Tiny);
    assert!(tpf.mix.atomic > 0 && tpf.shared_mem_fraction > 0.05);
}
