//! DARSIE's compiler pass (document 003 §5.2) and the baselines' affinity analysis on small
//! hand-written kernels.

use warpforge_ptx::redundancy::{
    affinity, dac_eliminable, promotes_cr, uv_eliminable, Aff, Dim, Dimensionality,
};
use warpforge_ptx::{parse, Function, Module};

fn module(body: &str, regs: &str) -> Module {
    let text = format!(
        ".version 7.0\n.target sm_70\n.address_size 64\n\
         .shared .align 4 .b8 smem[4096];\n\
         .visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1)\n{{\n{regs}\n{body}\n}}\n"
    );
    parse(&text, "test.ptx").unwrap_or_else(|e| panic!("{e}"))
}

fn kernel(m: &Module) -> &Function {
    m.function("k").unwrap()
}

/// Index of the first instruction whose source line contains `needle`.
fn at(src: &str, needle: &str) -> usize {
    src.lines()
        .filter(|l| {
            let t = l.trim();
            !t.is_empty() && !t.ends_with(':')
        })
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no instruction `{needle}`"))
}

const REGS: &str = ".reg .pred %p<4>;\n.reg .b32 %r<20>;\n.reg .f32 %f<20>;\n.reg .b64 %rd<20>;";

/// Fig. 4.2's code: MUL R1, tid.x, 4; ADD R2, R1, #10; LD R3, MEM[R2] (address relative to a
/// parameter base). R1, R2 are CR (tid.x), the load inherits CR from its address.
const FIG42: &str = "\
ld.param.u64 %rd1, [k_param_0];
mov.u32 %r0, %tid.x;
mul.lo.u32 %r1, %r0, 4;
add.u32 %r2, %r1, 10;
cvt.u64.u32 %rd2, %r2;
add.s64 %rd3, %rd1, %rd2;
ld.global.u8 %r3, [%rd3];
st.global.u8 [%rd3], %r3;
ret;";

#[test]
fn fig_4_2_classes_and_tb_shape_finalisation() {
    let m = module(FIG42, REGS);
    let d = Dimensionality::analyse(kernel(&m));
    let (mul, add, ld) = (
        at(FIG42, "mul.lo"),
        at(FIG42, "add.u32"),
        at(FIG42, "ld.global"),
    );
    assert_eq!(d.class[at(FIG42, "ld.param")], Dim::R);
    for i in [mul, add, ld] {
        assert_eq!(d.class[i], Dim::CR, "instruction {i}");
    }
    assert!(d.is_load[ld]);
    // (a) 1D TB x = 8, warp size 4: CR becomes V, nothing redundant but the parameter load.
    let one_d = d.finalize([8, 1, 1], 4);
    assert_eq!([one_d[mul], one_d[add], one_d[ld]], [Dim::V; 3]);
    // (b) 2D TB (4, 2), warp size 4: CR promoted to R, all three skippable.
    let sk = d.skippable([4, 2, 1], 4);
    assert!(sk[mul] && sk[add] && sk[ld]);
    // The store and the return are never skippable.
    assert!(!sk[at(FIG42, "st.global")] && !sk[at(FIG42, "ret")]);
}

#[test]
fn tb_shape_check_claim_24() {
    // Every 2D app of Table 7.1 passes: x in {8, 16, 32}.
    for b in [[16, 16, 1], [8, 8, 1], [16, 8, 1], [32, 32, 1]] {
        assert!(promotes_cr(b, 32), "{b:?}");
    }
    assert!(!promotes_cr([256, 1, 1], 32), "1D TB");
    assert!(!promotes_cr([32, 1, 1], 32), "1D TB of one warp");
    assert!(!promotes_cr([64, 4, 1], 32), "x above the warp size");
    assert!(!promotes_cr([24, 8, 1], 32), "x not a power of two");
    assert!(!promotes_cr([8, 8, 4], 32), "3D TB (tid.y is not handled)");
}

/// The Fig. 7.2 MatrixMul inner step as PTXPlus writes it: a CR shared load of Bs[k][tx], the CR
/// offset increment, and the V multiply-add with As[ty][k].
const FIG72: &str = "\
mov.u32 %r0, %tid.x;
mov.u32 %r1, %tid.y;
mov.u32 %r2, %ctaid.y;
mov.u32 %r3, smem;
shl.b32 %r4, %r0, 2;
add.u32 %r5, %r3, %r4;
shl.b32 %r6, %r1, 7;
add.u32 %r7, %r3, %r6;
mov.f32 %f0, 0f00000000;
ld.shared.f32 %f1, [%r5];
add.u32 %r8, %r5, 128;
ld.shared.f32 %f2, [%r7];
fma.rn.f32 %f0, %f2, %f1, %f0;
ld.shared.f32 %f3, [%r8];
add.u32 %r9, %r8, 128;
ld.shared.f32 %f4, [%r7+4];
fma.rn.f32 %f0, %f4, %f3, %f0;
ret;";

#[test]
fn fig_7_2_two_of_three_per_step_skippable() {
    let m = module(FIG72, REGS);
    let d = Dimensionality::analyse(kernel(&m));
    assert_eq!(d.class[at(FIG72, "%ctaid.y")], Dim::R);
    assert_eq!(d.class[at(FIG72, "%tid.x")], Dim::CR);
    let sk = d.skippable([32, 32, 1], 32);
    // Step 1: ld Bs (CR), add offset (CR), [ld As + fma] (V).
    assert!(sk[at(FIG72, "[%r5]")] && sk[at(FIG72, "%r8, %r5, 128")]);
    assert!(!sk[at(FIG72, "[%r7]")] && !sk[at(FIG72, "%f0, %f2")]);
    assert!(sk[at(FIG72, "[%r8]")] && sk[at(FIG72, "%r9, %r8")]);
    assert!(!sk[at(FIG72, "%f0, %f4")]);
    // With a 1D launch nothing derived from tid.x is skippable; uniform values stay.
    let one = d.skippable([1024, 1, 1], 32);
    assert!(!one[at(FIG72, "[%r5]")] && one[at(FIG72, "%ctaid.y")]);
}

/// `r = (tid.y < 3) ? 1 : 2` with a branch: r merges two uniform constants at the join, so it
/// takes the (vector) predicate's class; a uniform value computed and used inside one arm stays
/// redundant; a loop counter with a uniform bound stays redundant.
const SYNC: &str = "\
ld.param.u32 %r10, [k_param_1];
mov.u32 %r1, %tid.y;
setp.lt.u32 %p1, %r1, 3;
@%p1 bra THEN;
mov.u32 %r2, 2;
bra.uni JOIN;
THEN:
mov.u32 %r2, 1;
add.u32 %r3, %r10, 5;
mul.lo.u32 %r4, %r3, 7;
JOIN:
add.u32 %r5, %r2, %r10;
mov.u32 %r6, 0;
LOOP:
add.u32 %r6, %r6, 1;
setp.lt.u32 %p2, %r6, %r10;
@%p2 bra LOOP;
add.u32 %r7, %r6, 1;
ret;";

#[test]
fn sync_dependence_at_joins() {
    let m = module(SYNC, REGS);
    let d = Dimensionality::analyse(kernel(&m));
    assert_eq!(d.class[at(SYNC, "setp.lt.u32 %p1")], Dim::V);
    // Both definitions of r2 are constants, but the merge at JOIN depends on the vector branch.
    assert_eq!(d.class[at(SYNC, "%r5, %r2")], Dim::V);
    // Inside the arm, uniform work stays uniform.
    assert_eq!(d.class[at(SYNC, "%r4, %r3")], Dim::R);
    // Loop with a uniform trip count: counter and its use after the loop are redundant.
    assert_eq!(d.class[at(SYNC, "%r6, %r6, 1")], Dim::R);
    assert_eq!(d.class[at(SYNC, "%r7, %r6")], Dim::R);
}

#[test]
fn vector_loop_exit_makes_live_out_counter_vector() {
    let src = SYNC.replace("setp.lt.u32 %p2, %r6, %r10", "setp.lt.u32 %p2, %r6, %r1");
    let m = module(&src, REGS);
    let d = Dimensionality::analyse(kernel(&m));
    // Warps leave the loop after different trip counts: the counter seen after it is vector.
    assert_eq!(d.class[at(&src, "%r7, %r6")], Dim::V);
}

#[test]
fn early_exit_does_not_poison_the_rest() {
    let src = "\
mov.u32 %r1, %tid.y;
setp.ge.u32 %p1, %r1, 7;
@%p1 bra DONE;
mov.u32 %r2, %ctaid.x;
shl.b32 %r3, %r2, 4;
DONE:
ret;";
    let m = module(src, REGS);
    let d = Dimensionality::analyse(kernel(&m));
    assert_eq!(d.class[at(src, "shl.b32")], Dim::R);
}

#[test]
fn atomics_shuffles_and_local_loads_are_vector() {
    let src = "\
ld.param.u64 %rd1, [k_param_0];
atom.global.add.u32 %r1, [%rd1], 1;
ld.local.u32 %r2, [%rd1];
shfl.sync.down.b32 %r3, %r2, 1, 31, -1;
ld.volatile.global.u32 %r4, [%rd1];
ld.global.u32 %r5, [%rd1];
ret;";
    let m = module(src, REGS);
    let d = Dimensionality::analyse(kernel(&m));
    for n in ["atom", "ld.local", "shfl", "ld.volatile"] {
        assert_eq!(d.class[at(src, n)], Dim::V, "{n}");
    }
    assert_eq!(d.class[at(src, "ld.global.u32 %r5")], Dim::R);
    let sk = d.skippable([16, 16, 1], 32);
    assert!(!sk[at(src, "atom")] && sk[at(src, "ld.global.u32 %r5")]);
}

#[test]
fn affinity_for_the_baselines() {
    let m = module(FIG42, REGS);
    let f = kernel(&m);
    // 1D: tid.x is affine across the TB; the loaded data is unstructured.
    let a = affinity(f, [256, 1, 1], 32);
    assert_eq!(a[at(FIG42, "mul.lo")], Aff::A);
    assert_eq!(a[at(FIG42, "add.s64")], Aff::A);
    assert_eq!(a[at(FIG42, "ld.global")], Aff::V);
    assert_eq!(a[at(FIG42, "ld.param")], Aff::U);
    // 16-wide 2D TB: a warp holds tid.x 0..15 twice, not affine.
    let b = affinity(f, [16, 16, 1], 32);
    assert_eq!(b[at(FIG42, "mul.lo")], Aff::V);
    // UV only removes uniform non-memory work; DAC-IDEAL affine work too, never the data load.
    let uv = uv_eliminable(f, [256, 1, 1], 32);
    let dac = dac_eliminable(f, [256, 1, 1], 32);
    assert!(!uv[at(FIG42, "mul.lo")] && dac[at(FIG42, "mul.lo")]);
    assert!(!uv[at(FIG42, "ld.global")] && !dac[at(FIG42, "ld.global")]);
    assert!(!uv[at(FIG42, "ld.param")] && dac[at(FIG42, "ld.param")]);
}
