//! Document 004's Table 3 set (`bs`, `red`, ...): functional runs at `tiny` must pass their CPU
//! references and launch every declared kernel, and every Table 3 application must be registered.
//! (`small` sizes: `cargo test --release -p warpforge-workloads --test rai_functional -- --ignored`.)

use warpforge_simt::Device;
use warpforge_workloads::profile::{Characterizer, Profile};
use warpforge_workloads::{find, rai, Check, Size};

fn passes(name: &str, size: Size) {
    let w = find(name).unwrap_or_else(|| panic!("{name} not registered"));
    let mut dev = Device::new();
    let c = w.run(&mut dev, size).expect("runs");
    assert_eq!(c, Check::Passed, "{name} at {}", size.name());
    let st = dev.total_stats();
    assert!(st.warp_insts > 0, "{name}: nothing executed");
}

macro_rules! passes {
    ($($name:ident),* $(,)?) => {
        mod tiny {
            $(
                #[test]
                fn $name() {
                    super::passes(stringify!($name), warpforge_workloads::Size::Tiny);
                }
            )*
        }
        mod small {
            $(
                #[test]
                #[ignore = "small sizes take seconds each"]
                fn $name() {
                    super::passes(stringify!($name), warpforge_workloads::Size::Small);
                }
            )*
        }
        #[test]
        fn the_list_covers_the_set() {
            let listed = [$(stringify!($name)),*];
            for w in rai::workloads() {
                assert!(listed.contains(&w.info().name), "{} missing from passes!", w.info().name);
            }
        }
    };
}

passes!(lbm, cfd, bfs1m, bs, red);

#[test]
fn table_3_applications_are_registered() {
    for (_, n) in rai::TABLE_3 {
        assert!(find(n).is_some(), "{n} not registered");
    }
}

/// Every kernel a workload declares exists in its committed PTX.
#[test]
fn every_declared_kernel_is_in_the_ptx() {
    for w in rai::workloads() {
        let info = w.info();
        let ptx = std::fs::read_to_string(format!(
            "{}/{}/kernel.ptx",
            env!("CARGO_MANIFEST_DIR"),
            info.name
        ))
        .unwrap();
        for k in info.kernels {
            assert!(
                ptx.contains(&format!(".entry {k}(")),
                "{k} not in {}",
                info.name
            );
        }
    }
}

fn profile(name: &str) -> Profile {
    let mut dev = Device::new();
    dev.set_observer(Some(Box::new(Characterizer::new())));
    let w = find(name).unwrap();
    assert_eq!(w.run(&mut dev, Size::Tiny).unwrap(), Check::Passed);
    let obs = dev.observer_mut().unwrap();
    obs.as_any_mut()
        .downcast_ref::<Characterizer>()
        .unwrap()
        .profile()
}

/// The behaviour each stand-in is written for (workloads/NAME/README.md): the SDK kernels and
/// LBM stream coalesced rows, CFD's neighbour gathers through the index array are scattered,
/// REDUCTION's tree has a barrier per level, and each run touches its whole data set.
#[test]
fn behaviour_matches_the_readmes() {
    let bs = profile("bs");
    assert!(bs.lines_per_request <= 1.05, "bs {}", bs.lines_per_request);
    assert_eq!(bs.mix.ld_shared + bs.mix.st_shared, 0);
    assert!(bs.mix.sfu > 0);
    // 1000 options x (3 inputs + 2 outputs) x 4 B
    assert!(bs.footprint_bytes >= 20_000, "bs {}", bs.footprint_bytes);

    let red = profile("red");
    assert_eq!(red.launches, 2);
    assert!(
        red.lines_per_request <= 1.05,
        "red {}",
        red.lines_per_request
    );
    // a 256-thread tree: the barrier after the stores plus one per level (8)
    assert!(red.barriers_per_cta >= 8.0, "red {}", red.barriers_per_cta);
    assert!(red.footprint_bytes >= 40_000, "red {}", red.footprint_bytes);

    let lbm = profile("lbm");
    assert!(
        lbm.lines_per_request <= 1.1,
        "lbm {}",
        lbm.lines_per_request
    );
    assert_eq!(lbm.mix.ld_shared + lbm.mix.st_shared, 0);
    // both 16x8x8 lattices of 19 distributions, plus the flags
    assert!(
        lbm.footprint_bytes >= 2 * 19 * 4 * 16 * 8 * 8,
        "lbm {}",
        lbm.footprint_bytes
    );
    // one 16-thread warp per (y, z) line, 8 x 8 lines: 19 distributions + the flag each
    assert_eq!(lbm.mix.ld_global, 20 * 8 * 8 * lbm.launches);

    let cfd = profile("cfd");
    assert!(cfd.lines_per_request > 1.5, "cfd {}", cfd.lines_per_request);
    assert!(
        cfd.avg_active_lanes < 32.0,
        "cfd: wall / far-field faces diverge"
    );
}
