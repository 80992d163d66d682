//! The DARSIE Table 7.1 extras (`mmt`, `cp`): functional runs at `tiny` must pass their CPU
//! references, and every workload of the Table 7.1 lists must be registered.

use warpforge_simt::Device;
use warpforge_workloads::{darsie, find, Check, Size};

#[test]
fn darsie_workloads_pass_at_tiny() {
    for w in darsie::workloads() {
        let mut dev = Device::new();
        let c = w.run(&mut dev, Size::Tiny).expect("runs");
        assert_eq!(c, Check::Passed, "{}", w.info().name);
        assert!(dev.total_stats().warp_insts > 0);
    }
}

#[test]
fn table_7_1_workloads_are_registered() {
    for n in darsie::TABLE_7_1_2D.iter().chain(&darsie::TABLE_7_1_1D) {
        assert!(find(n).is_some(), "{n} not registered");
    }
    assert!(darsie::TABLE_7_1_2D.len() >= 6);
}

#[test]
#[ignore = "small inputs: about 5 s"]
fn darsie_workloads_pass_at_small() {
    for w in darsie::workloads() {
        let mut dev = Device::new();
        assert_eq!(w.run(&mut dev, Size::Small).unwrap(), Check::Passed);
    }
}
