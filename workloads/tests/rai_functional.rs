//! Document 004's Table 3 set (`bs`, `red`, ...): functional runs at `tiny` must pass their CPU
//! references and launch every declared kernel, and every Table 3 application must be registered.
//! (`small` sizes: `cargo test --release -p warpforge-workloads --test rai_functional -- --ignored`.)

use warpforge_simt::Device;
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

passes!(lbm, cfd, bs, red);

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
