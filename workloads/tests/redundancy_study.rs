//! The redundancy limit study (document 003 §2): the Fig. 4.2 worked example reproduced exactly
//! from the functional model (claim 23), and the study over real workloads, where DARSIE's
//! static marking must never be contradicted by the values.

use std::collections::HashMap;
use warpforge_core::{Dim3, DynInst, InstObserver};
use warpforge_simt::{Device, KernelArg, LaunchConfig};
use warpforge_workloads::redundancy::{tb_class, Pattern, RedundancyStudy, TbClass};
use warpforge_workloads::{find, Check, Size};

const FIG42: &str = "\
.version 7.0
.target sm_70
.address_size 64
.visible .entry fig42(.param .u64 fig42_mem)
{
.reg .b32 %r<4>;
.reg .b64 %rd<4>;
ld.param.u64 %rd1, [fig42_mem];
mov.u32 %r0, %tid.x;
mul.lo.u32 %r1, %r0, 4;
add.u32 %r2, %r1, 10;
cvt.u64.u32 %rd2, %r2;
add.s64 %rd3, %rd1, %rd2;
ld.global.u8 %r3, [%rd3];
ret;
}
";
/// Static indices of MUL R1, ADD R2 and LD R3 in `FIG42`.
const R1: u32 = 2;
const R2: u32 = 3;
const R3: u32 = 6;

/// Records the destination value of every thread for the watched instructions.
#[derive(Default)]
struct Values {
    by_inst: HashMap<u32, Vec<u64>>,
}

impl InstObserver for Values {
    fn on_inst(&mut self, _: u32, _: u32, _: &DynInst) {}
    fn wants_values(&self) -> bool {
        true
    }
    fn on_values(&mut self, _: u32, warp: u32, inst: &DynInst, values: &[[u64; 32]]) {
        if values.is_empty() {
            return;
        }
        let v = self.by_inst.entry(inst.static_idx).or_default();
        for (lane, &x) in values[0].iter().enumerate() {
            if inst.active_mask >> lane & 1 == 1 {
                let t = warp as usize * 32 + lane;
                if v.len() <= t {
                    v.resize(t + 1, 0);
                }
                v[t] = x;
            }
        }
    }
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

/// Runs the Fig. 4.2 code on a TB of shape `block` and returns R1, R2, R3 by linear thread id.
fn run_fig42(block: Dim3) -> [Vec<u64>; 3] {
    let mut dev = Device::new();
    let m = dev.load_ptx(FIG42, "fig42.ptx").unwrap();
    // Addresses 10, 14, ..., 38 hold 7, 3, 0, 90, 55, 8, 22, 1.
    let mut mem = vec![0u8; 64];
    for (i, v) in [7u8, 3, 0, 90, 55, 8, 22, 1].iter().enumerate() {
        mem[10 + 4 * i] = *v;
    }
    let p = dev.alloc_copy(&mem).unwrap();
    dev.set_observer(Some(Box::new(Values::default())));
    let cfg = LaunchConfig {
        grid: Dim3::x(1),
        block,
        shared_bytes: 0,
    };
    dev.launch(m, "fig42", cfg, &[KernelArg::Ptr(p)]).unwrap();
    let mut o = dev.take_observer().unwrap();
    let v = o.as_any_mut().downcast_mut::<Values>().unwrap();
    [R1, R2, R3].map(|i| v.by_inst[&i].clone())
}

/// Splits per-thread values into warps of 4 lanes (the figure's warp size).
fn warps4(v: &[u64]) -> Vec<&[u64]> {
    v.chunks(4).collect()
}

#[test]
fn fig_4_2_one_dimensional_tb() {
    let [r1, r2, r3] = run_fig42(Dim3::new(8, 1, 1));
    assert_eq!(warps4(&r1), [&[0, 4, 8, 12][..], &[16, 20, 24, 28]]);
    assert_eq!(warps4(&r2), [&[10, 14, 18, 22][..], &[26, 30, 34, 38]]);
    assert_eq!(warps4(&r3), [&[7, 3, 0, 90][..], &[55, 8, 22, 1]]);
    // R1 and R2 are TB-affine but not redundant; R3 is unrelated data.
    assert_eq!(tb_class(&warps4(&r1)), TbClass::TbAffine);
    assert_eq!(tb_class(&warps4(&r2)), TbClass::TbAffine);
    assert_eq!(tb_class(&warps4(&r3)), TbClass::Vector);
}

#[test]
fn fig_4_2_two_dimensional_tb() {
    let [r1, r2, r3] = run_fig42(Dim3::new(4, 2, 1));
    for w in warps4(&r1) {
        assert_eq!(w, [0, 4, 8, 12]);
    }
    for w in warps4(&r2) {
        assert_eq!(w, [10, 14, 18, 22]);
    }
    for w in warps4(&r3) {
        assert_eq!(w, [7, 3, 0, 90]);
    }
    // R1 and R2 are affine-redundant; R3 is unstructured-redundant.
    assert_eq!(tb_class(&warps4(&r1)), TbClass::Redundant(Pattern::Affine));
    assert_eq!(tb_class(&warps4(&r2)), TbClass::Redundant(Pattern::Affine));
    assert_eq!(
        tb_class(&warps4(&r3)),
        TbClass::Redundant(Pattern::Unstructured)
    );
}

fn study(name: &str, size: Size) -> RedundancyStudy {
    let w = find(name).unwrap();
    let mut dev = Device::new();
    dev.set_observer(Some(Box::new(RedundancyStudy::new())));
    assert_eq!(w.run(&mut dev, size).unwrap(), Check::Passed, "{name}");
    let mut o = dev.take_observer().unwrap();
    std::mem::take(o.as_any_mut().downcast_mut::<RedundancyStudy>().unwrap())
}

#[test]
fn study_of_the_2d_workloads_never_contradicts_the_static_marking() {
    for name in warpforge_workloads::darsie::TABLE_7_1_2D {
        let s = study(name, Size::Tiny);
        let t = s.total();
        assert!(t.warp_insts > 0, "{name}");
        assert_eq!(t.darsie_contradicted, 0, "{name}: {t:?}");
        assert!(t.tb_removable <= t.tb_redundant && t.tb_redundant <= t.warp_insts);
        assert_eq!(
            t.tb_removable,
            t.removable_uniform + t.removable_affine + t.removable_unstructured
        );
        // The static marking finds a subset of what the values show.
        assert!(t.darsie_removable <= t.tb_removable, "{name}");
    }
}

#[test]
fn matrixmul_shared_loads_of_bs_are_unstructured_redundant() {
    let t = study("mmt", Size::Tiny).total();
    // Bs[k][tx]: 32 loads per tile step, unstructured data identical in all 32 warps.
    assert!(t.removable_unstructured > 0, "{t:?}");
    assert!(
        t.darsie_removable > 0 && t.removable_fraction() > 0.05,
        "{t:?}"
    );
}

#[test]
fn one_dimensional_tbs_have_no_affine_redundancy() {
    // 1D TB: tid.x differs in every warp, so no affine or unstructured value repeats across
    // warps from tid.x (uniform redundancy remains).
    let t = study("pf", Size::Tiny).total();
    assert!(t.removable_uniform > 0, "{t:?}");
    assert_eq!(t.darsie_contradicted, 0);
}
