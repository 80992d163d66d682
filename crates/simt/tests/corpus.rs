//! Hand-written PTX programs exercising every opcode class, with expected results computed in
//! Rust next to them.

mod common;
use common::{run, try_run};

fn u32s(v: u64) -> u32 {
    v as u32
}

#[test]
fn integer_edge_cases() {
    let body = r#"
  mov.u32 %r1, 0x7fffffff;
  mov.u32 %r2, 0x80000000;
  add.s32 %r3, %r1, 1;           st.global.u32 [%rd63+0], %r3;
  add.sat.s32 %r3, %r1, 1;       st.global.u32 [%rd63+8], %r3;
  sub.sat.s32 %r3, %r2, 1;       st.global.u32 [%rd63+16], %r3;
  mul.hi.s32 %r3, %r2, %r2;      st.global.u32 [%rd63+24], %r3;
  mul.hi.u32 %r3, %r1, %r1;      st.global.u32 [%rd63+32], %r3;
  abs.s32 %r3, %r2;              st.global.u32 [%rd63+40], %r3;
  mul.wide.s32 %rd1, %r2, 3;     st.global.u64 [%rd63+48], %rd1;
  mov.u32 %r4, -7;
  div.s32 %r3, %r4, 2;           st.global.u32 [%rd63+56], %r3;
  rem.s32 %r3, %r4, 2;           st.global.u32 [%rd63+64], %r3;
  mov.u32 %r5, 0;
  div.u32 %r3, 7, %r5;           st.global.u32 [%rd63+72], %r3;
  rem.u32 %r3, 7, %r5;           st.global.u32 [%rd63+80], %r3;
  div.s32 %r3, %r2, -1;          st.global.u32 [%rd63+88], %r3;
  neg.s32 %r3, %r2;              st.global.u32 [%rd63+96], %r3;
  mad.lo.s32 %r3, %r1, 2, 5;     st.global.u32 [%rd63+104], %r3;
  mad.hi.u32 %r3, %r1, 4, 1;     st.global.u32 [%rd63+112], %r3;
  mad.wide.u32 %rd2, %r1, 4, %rd1; st.global.u64 [%rd63+120], %rd2;
"#;
    let r = run("", body, 1, 1, &[]);
    let o = r.out[0];
    let max = i32::MAX;
    let min = i32::MIN;
    assert_eq!(u32s(o[0]), max.wrapping_add(1) as u32);
    assert_eq!(u32s(o[1]), max as u32);
    assert_eq!(u32s(o[2]), min as u32);
    assert_eq!(u32s(o[3]), ((min as i64 * min as i64) >> 32) as u32);
    assert_eq!(u32s(o[4]), ((max as u64 * max as u64) >> 32) as u32);
    assert_eq!(u32s(o[5]), min as u32);
    assert_eq!(o[6], (min as i64 * 3) as u64);
    assert_eq!(u32s(o[7]), (-7i32 / 2) as u32);
    assert_eq!(u32s(o[8]), (-7i32 % 2) as u32);
    assert_eq!(
        u32s(o[9]),
        u32::MAX,
        "unsigned division by zero gives all ones"
    );
    assert_eq!(u32s(o[10]), 7, "remainder by zero gives the dividend");
    assert_eq!(u32s(o[11]), min as u32, "MIN / -1 wraps");
    assert_eq!(u32s(o[12]), min as u32);
    assert_eq!(u32s(o[13]), (max as u32).wrapping_mul(2).wrapping_add(5));
    assert_eq!(u32s(o[14]), (((max as u64) * 4) >> 32) as u32 + 1);
    assert_eq!(o[15], (max as u64 * 4).wrapping_add(o[6]));
}

#[test]
fn shifts_min_max_and_logic() {
    let body = r#"
  mov.u32 %r1, 0x80000001;
  shl.b32 %r2, %r1, 33;          st.global.u32 [%rd63+0], %r2;
  shl.b32 %r2, %r1, 1;           st.global.u32 [%rd63+8], %r2;
  shr.s32 %r2, %r1, 40;          st.global.u32 [%rd63+16], %r2;
  shr.u32 %r2, %r1, 31;          st.global.u32 [%rd63+24], %r2;
  shr.s32 %r2, %r1, 4;           st.global.u32 [%rd63+32], %r2;
  min.s32 %r2, %r1, 1;           st.global.u32 [%rd63+40], %r2;
  min.u32 %r2, %r1, 1;           st.global.u32 [%rd63+48], %r2;
  max.s32 %r2, %r1, 1;           st.global.u32 [%rd63+56], %r2;
  not.b32 %r2, %r1;              st.global.u32 [%rd63+64], %r2;
  cnot.b32 %r2, 0;               st.global.u32 [%rd63+72], %r2;
  and.b32 %r2, %r1, 0xff;        st.global.u32 [%rd63+80], %r2;
  xor.b32 %r2, %r1, -1;          st.global.u32 [%rd63+88], %r2;
  mov.u64 %rd1, -16;
  shr.s64 %rd2, %rd1, 2;         st.global.u64 [%rd63+96], %rd2;
  shr.u64 %rd2, %rd1, 60;        st.global.u64 [%rd63+104], %rd2;
  shl.b64 %rd2, %rd1, 64;        st.global.u64 [%rd63+112], %rd2;
  max.u64 %rd2, %rd1, 5;         st.global.u64 [%rd63+120], %rd2;
"#;
    let o = run("", body, 1, 1, &[]).out[0];
    let a = 0x8000_0001u32;
    let want: [u64; 16] = [
        0,
        (a << 1) as u64,
        u32::MAX as u64,
        1,
        ((a as i32) >> 4) as u32 as u64,
        a as u64,
        1,
        1,
        !a as u64,
        1,
        1,
        !a as u64,
        (-4i64) as u64,
        0xf,
        0,
        (-16i64) as u64,
    ];
    assert_eq!(o, want);
}

#[test]
fn bit_manipulation() {
    let body = r#"
  popc.b32 %r1, 0xf0f0;                      st.global.u32 [%rd63+0], %r1;
  mov.u64 %rd1, -1;
  popc.b64 %r1, %rd1;                        st.global.u32 [%rd63+8], %r1;
  clz.b32 %r1, 1;                            st.global.u32 [%rd63+16], %r1;
  clz.b32 %r1, 0;                            st.global.u32 [%rd63+24], %r1;
  bfind.u32 %r1, 0x100;                      st.global.u32 [%rd63+32], %r1;
  bfind.s32 %r1, -1;                         st.global.u32 [%rd63+40], %r1;
  brev.b32 %r1, 1;                           st.global.u32 [%rd63+48], %r1;
  bfe.u32 %r1, 0xabcd, 4, 8;                 st.global.u32 [%rd63+56], %r1;
  bfe.s32 %r1, 0xf0, 4, 4;                   st.global.u32 [%rd63+64], %r1;
  bfi.b32 %r1, 0xf, 0x12345678, 8, 4;        st.global.u32 [%rd63+72], %r1;
  prmt.b32 %r1, 0x33221100, 0x77665544, 0x5140;  st.global.u32 [%rd63+80], %r1;
  lop3.b32 %r1, 0xff00ff00, 0xf0f0f0f0, 0xcccccccc, 0x96; st.global.u32 [%rd63+88], %r1;
  shf.l.wrap.b32 %r1, 0x12345678, 0x9abcdef0, 8;  st.global.u32 [%rd63+96], %r1;
  shf.r.clamp.b32 %r1, 0x12345678, 0x9abcdef0, 40; st.global.u32 [%rd63+104], %r1;
  dp4a.s32.s32 %r1, 0x01ff0203, 0x02020202, 10;  st.global.u32 [%rd63+112], %r1;
  bfind.shiftamt.u32 %r1, 0x100;             st.global.u32 [%rd63+120], %r1;
"#;
    let o = run("", body, 1, 1, &[]).out[0];
    let want: [u64; 16] = [
        8,
        64,
        31,
        32,
        8,
        0xffff_ffff,
        0x8000_0000,
        0xbc,
        0xffff_ffff,
        0x1234_5f78,
        0x5511_4400,
        (0xff00ff00u32 ^ 0xf0f0f0f0 ^ 0xcccccccc) as u64,
        0xbcde_f012,
        0x9abc_def0,
        (10 + 3 * 2 + 2 * 2 - 2 + 2) as u64,
        23,
    ];
    assert_eq!(o, want);
}

#[test]
fn compare_select_and_carry() {
    let body = r#"
  setp.lt.s32 %p1, -1, 0;
  selp.u32 %r1, 1, 0, %p1;                   st.global.u32 [%rd63+0], %r1;
  setp.lt.u32 %p2, -1, 0;
  selp.u32 %r1, 1, 0, %p2;                   st.global.u32 [%rd63+8], %r1;
  setp.gt.and.s32 %p3|%p4, 5, 3, %p1;
  selp.u32 %r1, 1, 0, %p3;                   st.global.u32 [%rd63+16], %r1;
  selp.u32 %r1, 1, 0, %p4;                   st.global.u32 [%rd63+24], %r1;
  set.lt.u32.s32 %r1, -1, 0;                 st.global.u32 [%rd63+32], %r1;
  set.gt.f32.f32 %f1, 0f40000000, 0f3F800000; st.global.f32 [%rd63+40], %f1;
  slct.s32.s32 %r1, 1, 2, -5;                st.global.u32 [%rd63+48], %r1;
  mov.b32 %f2, 0f7FC00000;
  setp.nan.f32 %p5, %f2, %f2;
  selp.u32 %r1, 1, 0, %p5;                   st.global.u32 [%rd63+56], %r1;
  setp.equ.f32 %p5, %f2, 0f3F800000;
  selp.u32 %r1, 1, 0, %p5;                   st.global.u32 [%rd63+64], %r1;
  setp.eq.f32 %p5, %f2, %f2;
  selp.u32 %r1, 1, 0, %p5;                   st.global.u32 [%rd63+72], %r1;
  add.cc.u32 %r2, 0xffffffff, 1;
  addc.u32 %r3, 0, 0;                        st.global.u32 [%rd63+80], %r2;
                                             st.global.u32 [%rd63+88], %r3;
  sub.cc.u32 %r2, 0, 1;
  subc.u32 %r3, 5, 1;                        st.global.u32 [%rd63+96], %r2;
                                             st.global.u32 [%rd63+104], %r3;
  and.pred %p6, %p1, %p2;
  or.pred %p7, %p1, %p2;
  not.pred %p8, %p2;
  selp.u32 %r1, 1, 0, %p6;                   st.global.u32 [%rd63+112], %r1;
  selp.u32 %r1, 1, 0, %p7;
  selp.u32 %r4, 2, 0, %p8;
  add.u32 %r1, %r1, %r4;                     st.global.u32 [%rd63+120], %r1;
"#;
    let o = run("", body, 1, 1, &[]).out[0];
    assert_eq!(&o[..5], &[1, 0, 1, 0, 0xffff_ffff]);
    assert_eq!(f32::from_bits(o[5] as u32), 1.0);
    assert_eq!(&o[6..10], &[2, 1, 1, 0]);
    assert_eq!(&o[10..14], &[0, 1, 0xffff_ffff, 3]);
    assert_eq!(&o[14..16], &[0, 3]);
}

#[test]
fn integer_conversions_and_moves() {
    let body = r#"
  mov.u32 %r1, -5;
  cvt.s64.s32 %rd1, %r1;                     st.global.u64 [%rd63+0], %rd1;
  cvt.u64.u32 %rd1, %r1;                     st.global.u64 [%rd63+8], %rd1;
  cvt.sat.u8.s32 %r2, 300;                   st.global.u32 [%rd63+16], %r2;
  cvt.sat.u8.s32 %r2, %r1;                   st.global.u32 [%rd63+24], %r2;
  mov.u64 %rd2, 0x100000005;
  cvt.u32.u64 %r2, %rd2;                     st.global.u32 [%rd63+32], %r2;
  cvt.s8.s32 %r2, 0x180;                     st.global.u32 [%rd63+40], %r2;
  cvt.u16.u32 %h1, 0x12345;
  cvt.u32.u16 %r2, %h1;                      st.global.u32 [%rd63+48], %r2;
  mov.b64 %rd3, {%r1, %r2};                  st.global.u64 [%rd63+56], %rd3;
  mov.b64 {%r3, %r4}, %rd2;                  st.global.u32 [%rd63+64], %r3;
                                             st.global.u32 [%rd63+72], %r4;
  mov.b32 %r5, {%h1, %h1};                   st.global.u32 [%rd63+80], %r5;
  cvt.sat.s16.s32 %r2, -100000;              st.global.u32 [%rd63+88], %r2;
"#;
    let o = run("", body, 1, 1, &[]).out[0];
    assert_eq!(o[0], (-5i64) as u64);
    assert_eq!(o[1], 0xffff_fffb);
    assert_eq!(&o[2..4], &[255, 0]);
    assert_eq!(o[4], 5);
    assert_eq!(
        o[5], 0xffff_ff80,
        "cvt.s8 sign-extends into the 32-bit register"
    );
    assert_eq!(o[6], 0x2345);
    assert_eq!(o[7], (0x2345u64 << 32) | 0xffff_fffb);
    assert_eq!(&o[8..10], &[5, 1]);
    assert_eq!(o[10], 0x2345_2345);
    assert_eq!(o[11], (i16::MIN as i32) as u32 as u64);
}

#[test]
fn floating_point_basics() {
    let body = r#"
  add.f32 %f1, 0f3FC00000, 0f40100000;       st.global.f32 [%rd63+0], %f1;
  div.rn.f32 %f1, 0f3F800000, 0f40400000;    st.global.f32 [%rd63+8], %f1;
  sqrt.rn.f32 %f1, 0f40000000;               st.global.f32 [%rd63+16], %f1;
  fma.rn.f32 %f1, 0f40000000, 0f40400000, 0f3F800000; st.global.f32 [%rd63+24], %f1;
  mov.b32 %f2, 0f7FC00000;
  min.f32 %f1, %f2, 0f3F800000;              st.global.f32 [%rd63+32], %f1;
  add.sat.f32 %f1, 0f40000000, 0f40000000;   st.global.f32 [%rd63+40], %f1;
  neg.f32 %f1, 0f3F800000;                   st.global.f32 [%rd63+48], %f1;
  abs.f32 %f1, 0fBF800000;                   st.global.f32 [%rd63+56], %f1;
  copysign.f32 %f1, 0fBF800000, 0f40000000;  st.global.f32 [%rd63+64], %f1;
  testp.finite.f32 %p1, %f2;
  selp.u32 %r1, 1, 0, %p1;                   st.global.u32 [%rd63+72], %r1;
  add.f64 %fd1, 0d3FF8000000000000, 0d4004000000000000; st.global.f64 [%rd63+80], %fd1;
  mul.rn.f64 %fd1, %fd1, 0d4000000000000000; st.global.f64 [%rd63+88], %fd1;
  max.f32 %f1, 0f3F800000, 0fC0000000;       st.global.f32 [%rd63+96], %f1;
  mul.ftz.f32 %f1, 0f00000001, 0f3F800000;   st.global.f32 [%rd63+104], %f1;
  setp.lt.f64 %p2, %fd1, 0d4020000000000000;
  selp.u32 %r1, 1, 0, %p2;                   st.global.u32 [%rd63+112], %r1;
"#;
    let o = run("", body, 1, 1, &[]).out[0];
    let f = |i: usize| f32::from_bits(o[i] as u32);
    assert_eq!(f(0), 3.75);
    assert_eq!(f(1), 1.0f32 / 3.0);
    assert_eq!(f(2), 2.0f32.sqrt());
    assert_eq!(f(3), 7.0);
    assert_eq!(f(4), 1.0, "min with one NaN returns the number");
    assert_eq!(f(5), 1.0, ".sat clamps to 1");
    assert_eq!(f(6), -1.0);
    assert_eq!(f(7), 1.0);
    assert_eq!(f(8), -2.0, "copysign takes the sign of a");
    assert_eq!(o[9], 0);
    assert_eq!(f64::from_bits(o[10]), 4.0);
    assert_eq!(f64::from_bits(o[11]), 8.0);
    assert_eq!(f(12), 1.0);
    assert_eq!(o[13], 0, ".ftz flushes the subnormal input");
    assert_eq!(o[14], 0);
}

#[test]
fn special_registers() {
    let body = r#"
  mov.u32 %r1, %laneid;        st.global.u32 [%rd63+0], %r1;
  mov.u32 %r1, %warpid;        st.global.u32 [%rd63+8], %r1;
  mov.u32 %r1, %lanemask_lt;   st.global.u32 [%rd63+16], %r1;
  mov.u32 %r1, %lanemask_ge;   st.global.u32 [%rd63+24], %r1;
  mov.u32 %r1, %ntid.x;        st.global.u32 [%rd63+32], %r1;
  mov.u32 %r1, %nctaid.x;      st.global.u32 [%rd63+40], %r1;
  mov.u32 %r1, %ctaid.x;       st.global.u32 [%rd63+48], %r1;
  mov.u32 %r1, %tid.x;         st.global.u32 [%rd63+56], %r1;
  mov.u64 %rd1, %clock64;
  add.u32 %r2, %r1, 1;
  mov.u64 %rd2, %clock64;
  sub.s64 %rd3, %rd2, %rd1;    st.global.u64 [%rd63+64], %rd3;
  mov.u32 %r1, %lanemask_eq;   st.global.u32 [%rd63+72], %r1;
  mov.u32 %r1, %lanemask_le;   st.global.u32 [%rd63+80], %r1;
  mov.u32 %r1, %lanemask_gt;   st.global.u32 [%rd63+88], %r1;
  mov.u32 %r1, %tid.y;         st.global.u32 [%rd63+96], %r1;
  mov.u32 %r1, %tid.z;         st.global.u32 [%rd63+104], %r1;
"#;
    let r = run("", body, 2, 48, &[]);
    for (g, o) in r.out.iter().enumerate() {
        let tid = g as u64 % 48;
        let lane = tid % 32;
        assert_eq!(o[0], lane);
        assert_eq!(o[1], tid / 32);
        assert_eq!(o[2], (1u64 << lane) - 1);
        assert_eq!(o[3], (!((1u64 << lane) - 1)) & 0xffff_ffff);
        assert_eq!(&o[4..8], &[48, 2, g as u64 / 48, tid]);
        assert!(o[8] > 0 && o[8] < 10, "clock advances");
        assert_eq!(o[9], 1 << lane);
        assert_eq!(o[10], ((2u64 << lane) - 1) & 0xffff_ffff, "lanemask_le");
        assert_eq!(o[11], !((2u64 << lane) - 1) & 0xffff_ffff, "lanemask_gt");
        assert_eq!(
            &o[12..14],
            &[0, 0],
            "tid.y, tid.z of a one-dimensional block"
        );
    }
}

#[test]
fn shuffles_votes_and_activemask() {
    let body = r#"
  mul.lo.u32 %r1, %r60, 10;
  shfl.sync.up.b32 %r2|%p1, %r1, 3, 0, -1;       st.global.u32 [%rd63+0], %r2;
  selp.u32 %r3, 1, 0, %p1;                       st.global.u32 [%rd63+8], %r3;
  shfl.sync.down.b32 %r2|%p2, %r1, 5, 31, -1;    st.global.u32 [%rd63+16], %r2;
  selp.u32 %r3, 1, 0, %p2;                       st.global.u32 [%rd63+24], %r3;
  shfl.sync.bfly.b32 %r2, %r1, 1, 31, -1;        st.global.u32 [%rd63+32], %r2;
  shfl.sync.idx.b32 %r2, %r1, 7, 31, -1;         st.global.u32 [%rd63+40], %r2;
  shfl.sync.idx.b32 %r2, %r1, 2, 0x1807, -1;     st.global.u32 [%rd63+48], %r2;
  shfl.sync.down.b32 %r2, %r1, 3, 0x1807, -1;    st.global.u32 [%rd63+56], %r2;
  and.b32 %r4, %r60, 1;
  setp.eq.u32 %p3, %r4, 1;
  vote.sync.ballot.b32 %r2, %p3, -1;             st.global.u32 [%rd63+64], %r2;
  setp.lt.u32 %p4, %r60, 16;
  vote.sync.uni.pred %p5, %p4, -1;
  selp.u32 %r2, 1, 0, %p5;                       st.global.u32 [%rd63+72], %r2;
  vote.sync.any.pred %p5, %p4, -1;
  vote.sync.all.pred %p6, %p4, -1;
  selp.u32 %r2, 1, 0, %p5;
  selp.u32 %r3, 2, 0, %p6;
  add.u32 %r2, %r2, %r3;                         st.global.u32 [%rd63+80], %r2;
  setp.lt.u32 %p7, %r60, 8;
  @%p7 vote.sync.ballot.b32 %r2, %p3, 0xff;
  @%p7 st.global.u32 [%rd63+88], %r2;
  @%p7 activemask.b32 %r2;
  @%p7 st.global.u32 [%rd63+96], %r2;
  @%p7 vote.sync.all.pred %p8, %p7, 0xff;
  selp.u32 %r2, 1, 0, %p8;
  @%p7 st.global.u32 [%rd63+104], %r2;
"#;
    let r = run("", body, 1, 32, &[]);
    for (l, o) in r.out.iter().enumerate() {
        let l = l as u64;
        let up = if l >= 3 { (l - 3) * 10 } else { l * 10 };
        assert_eq!((o[0], o[1]), (up, (l >= 3) as u64), "up lane {l}");
        let down = if l + 5 <= 31 { (l + 5) * 10 } else { l * 10 };
        assert_eq!((o[2], o[3]), (down, (l + 5 <= 31) as u64), "down lane {l}");
        assert_eq!(o[4], (l ^ 1) * 10);
        assert_eq!(o[5], 70);
        assert_eq!(o[6], ((l & !7) | 2) * 10, "idx within 8-lane segments");
        let seg_end = (l & !7) | 7;
        let d = if l + 3 <= seg_end { l + 3 } else { l };
        assert_eq!(o[7], d * 10, "down within 8-lane segments, lane {l}");
        assert_eq!(o[8], 0xaaaa_aaaa);
        assert_eq!(o[9], 0, "not uniform");
        assert_eq!(o[10], 1, "any but not all");
        if l < 8 {
            assert_eq!(o[11], 0xaa, "ballot over the 8 active lanes");
            assert_eq!(o[12], 0xff, "activemask under the guard");
            assert_eq!(o[13], 1);
        } else {
            assert_eq!(&o[11..14], &[0, 0, 0]);
        }
    }
}

#[test]
fn atomics_every_operation() {
    let body = r#"
  atom.global.add.u32 %r1, [%rd61+0], 1;
  sub.s32 %r2, %r63, 10;
  atom.global.min.s32 %r1, [%rd61+4], %r2;
  atom.global.max.u32 %r1, [%rd61+8], %r63;
  atom.global.inc.u32 %r1, [%rd61+12], 9;
  atom.global.dec.u32 %r1, [%rd61+16], 9;
  and.b32 %r3, %r63, 31;
  shl.b32 %r4, 1, %r3;
  not.b32 %r5, %r4;
  atom.global.and.b32 %r1, [%rd61+20], %r5;
  atom.global.or.b32 %r1, [%rd61+24], %r4;
  atom.global.xor.b32 %r1, [%rd61+28], 1;
  atom.global.exch.b32 %r1, [%rd61+32], %r63;
  add.u32 %r6, %r63, 1;
  atom.global.cas.b32 %r7, [%rd61+36], %r63, %r6;
  st.global.u32 [%rd63+0], %r7;
  atom.global.add.u64 %rd1, [%rd61+40], 0x100000000;
  atom.global.add.f32 %f1, [%rd61+48], 0f3F000000;
  atom.global.add.f64 %fd1, [%rd61+56], 0d3FD0000000000000;
  red.global.add.u32 [%rd61+64], 2;
  atom.global.cas.b64 %rd2, [%rd61+72], 0, 5;
  st.global.u64 [%rd63+8], %rd2;
  atom.add.u32 %r8, [%rd61+80], 3;
"#;
    let mut aux = vec![0u64; 16];
    aux[2] = 0xffff_ffff; // and-target at byte 20 (high half of word 2)
    aux[2] = (0xffff_ffffu64) << 32;
    let r = run("", body, 2, 32, &aux);
    let w32 = |byte: usize| -> u32 {
        let v = r.aux[byte / 8];
        if byte.is_multiple_of(8) {
            v as u32
        } else {
            (v >> 32) as u32
        }
    };
    assert_eq!(w32(0), 64);
    assert_eq!(w32(4) as i32, -10);
    assert_eq!(w32(8), 63);
    assert_eq!(w32(12), 64 % 10, "inc wraps at 9");
    // 64 decrements from 0 with limit 9 cycle 0 -> 9 -> 8 ... -> 0 -> 9: ends at 10 - 64 % 10.
    assert_eq!(w32(16), 6, "dec wraps to 9 from 0");
    assert_eq!(w32(20), 0);
    assert_eq!(w32(24), u32::MAX);
    assert_eq!(w32(28), 0);
    assert_eq!(w32(32), 63, "last exchange in execution order");
    assert_eq!(w32(36), 64, "CAS chain in execution order");
    assert_eq!(r.aux[5], 64u64 << 32);
    assert_eq!(f32::from_bits(r.aux[6] as u32), 32.0);
    assert_eq!(f64::from_bits(r.aux[7]), 16.0);
    assert_eq!(r.aux[8] as u32, 128);
    assert_eq!(r.aux[9], 5, "only the first 64-bit CAS succeeds");
    assert_eq!(r.aux[10] as u32, 192, "generic atomics on global memory");
    for (t, o) in r.out.iter().enumerate() {
        assert_eq!(o[0], t as u64, "CAS returns the old value");
        assert_eq!(o[1], if t == 0 { 0 } else { 5 });
    }
}

#[test]
fn shared_atomics_and_barrier_reductions() {
    let globals = ".shared .align 4 .u32 cnt;";
    let body = r#"
  setp.eq.u32 %p1, %r60, 0;
  @%p1 st.shared.u32 [cnt], 0;
  bar.sync 0;
  atom.shared.add.u32 %r1, [cnt], 1;
  red.shared.add.u32 [cnt], 1;
  bar.sync 0;
  ld.shared.u32 %r2, [cnt];                 st.global.u32 [%rd63+0], %r2;
  setp.lt.u32 %p2, %r60, 40;
  bar.red.popc.u32 %r3, 1, %p2;            st.global.u32 [%rd63+8], %r3;
  bar.red.and.pred %p3, 2, %p2;
  bar.red.or.pred %p4, 3, %p2;
  selp.u32 %r4, 1, 0, %p3;                  st.global.u32 [%rd63+16], %r4;
  selp.u32 %r4, 1, 0, %p4;                  st.global.u32 [%rd63+24], %r4;
  barrier.sync 4, 64;
  bar.arrive 5, 64;
"#;
    let r = run(globals, body, 3, 64, &[]);
    for o in &r.out {
        assert_eq!(&o[..4], &[128, 40, 0, 1]);
    }
}

#[test]
fn state_spaces_and_generic_addressing() {
    let globals = r#"
.shared .align 4 .b32 sh[64];
.global .align 4 .u32 gtab[4] = {1, 2, 3, 4};
.const .align 4 .u32 ctab[4] = {10, 20, 30, 40};
.global .align 8 .u64 gptr = generic(gtab);
.global .align 4 .f32 gf = 0f40490FDB;
"#;
    let body = r#"
  mov.u64 %rd1, sh;
  cvta.shared.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r60, 4;
  add.s64 %rd4, %rd2, %rd3;
  mul.lo.u32 %r1, %r60, 3;
  st.u32 [%rd4], %r1;
  bar.sync 0;
  add.u32 %r2, %r60, 1;
  and.b32 %r2, %r2, 63;
  mul.wide.u32 %rd5, %r2, 4;
  add.s64 %rd6, %rd1, %rd5;
  ld.shared.u32 %r3, [%rd6];                 st.global.u32 [%rd63+0], %r3;
  st.global.u32 [%rd63+8], 1;
  ld.global.u32 %r6, [gtab+8];               st.global.u32 [%rd63+16], %r6;
  ld.const.u32 %r6, [ctab+12];               st.global.u32 [%rd63+24], %r6;
  ld.global.u64 %rd7, [gptr];
  ld.u32 %r6, [%rd7+4];                      st.global.u32 [%rd63+32], %r6;
  cvta.to.shared.u64 %rd8, %rd2;
  sub.s64 %rd9, %rd8, %rd1;                  st.global.u64 [%rd63+40], %rd9;
  ld.global.f32 %f1, [gf];                   st.global.f32 [%rd63+48], %f1;
  mov.u64 %rd10, ctab;
  cvta.const.u64 %rd11, %rd10;
  ld.u32 %r6, [%rd11+4];                     st.global.u32 [%rd63+56], %r6;
  ld.shared.u32 %r7, [sh+8];                 st.global.u32 [%rd63+64], %r7;
  ld.global.v2.u32 {%r8, %r9}, [gtab+8];
  add.u32 %r8, %r8, %r9;                     st.global.u32 [%rd63+72], %r8;
  st.global.v2.u32 [%rd63+80], {%r8, %r9};
  membar.gl;
  membar.cta;
"#;
    let r = run(globals, body, 1, 64, &[]);
    for (t, o) in r.out.iter().enumerate() {
        assert_eq!(o[0], ((t as u64 + 1) % 64) * 3);
        assert_eq!(&o[2..6], &[3, 40, 2, 0]);
        assert_eq!(f32::from_bits(o[6] as u32), std::f32::consts::PI);
        assert_eq!(o[7], 20, "generic load through cvta.const");
        assert_eq!(o[8], 6);
        assert_eq!(o[9], 7);
        assert_eq!(o[10], (4u64 << 32) | 7);
    }
}

#[test]
fn local_memory_and_func_calls_with_divergent_returns() {
    let prelude = r#"
.func (.param .b32 r) f(.param .b32 a, .param .b32 b)
{
  .reg .b32 %x<4>;
  .reg .pred %q<2>;
  ld.param.b32 %x0, [a];
  ld.param.b32 %x1, [b];
  setp.lt.s32 %q0, %x0, 10;
  @%q0 bra SMALL;
  mul.lo.s32 %x2, %x0, %x1;
  st.param.b32 [r], %x2;
  ret;
SMALL:
  add.s32 %x2, %x0, %x1;
  st.param.b32 [r], %x2;
  ret;
}
"#;
    let body = r#"
  .local .align 4 .b8 depot[16];
  mov.u64 %rd1, depot;
  cvta.local.u64 %rd2, %rd1;
  add.u32 %r1, %r60, 100;
  st.u32 [%rd2+4], %r1;
  ld.local.u32 %r2, [%rd1+4];                st.global.u32 [%rd63+0], %r2;
  {
  .param .b32 p0;
  .param .b32 p1;
  .param .b32 rv;
  st.param.b32 [p0], %r60;
  st.param.b32 [p1], 7;
  call.uni (rv), f, (p0, p1);
  ld.param.b32 %r3, [rv];
  }
  st.global.u32 [%rd63+8], %r3;
  setp.lt.u32 %p1, %r60, 5;
  @%p1 bra DONE;
  {
  .param .b32 q0;
  .param .b32 q1;
  .param .b32 rq;
  st.param.b32 [q0], %r60;
  st.param.b32 [q1], 2;
  call (rq), f, (q0, q1);
  ld.param.b32 %r4, [rq];
  st.global.u32 [%rd63+16], %r4;
  }
DONE:
"#;
    let r = run(prelude, body, 1, 40, &[]);
    for (t, o) in r.out.iter().enumerate() {
        let t = t as u64;
        assert_eq!(o[0], t + 100);
        assert_eq!(o[1], if t < 10 { t + 7 } else { t * 7 });
        let want2 = if t < 5 {
            0
        } else if t < 10 {
            t + 2
        } else {
            t * 2
        };
        assert_eq!(o[2], want2, "thread {t}");
    }
    let info = r
        .dev
        .kernel_info(
            warpforge_simt::ModuleId(0),
            "t",
            warpforge_simt::LaunchConfig {
                grid: warpforge_core::Dim3::x(1),
                block: warpforge_core::Dim3::x(40),
                shared_bytes: 0,
            },
        )
        .unwrap();
    assert_eq!(info.local_bytes, 16);
}

/// Launches harness kernel `t` of `m` as one warp (32 threads, a fresh 64-byte aux buffer) and
/// returns the result slots, `common::SLOTS` per thread.
fn launch_one_warp(dev: &mut warpforge_simt::Device, m: warpforge_simt::ModuleId) -> Vec<u64> {
    use warpforge_simt::{KernelArg, LaunchConfig};
    let out = dev.malloc(32 * 128).unwrap();
    let aux = dev.malloc(64).unwrap();
    let cfg = LaunchConfig {
        grid: warpforge_core::Dim3::x(1),
        block: warpforge_core::Dim3::x(32),
        shared_bytes: 0,
    };
    dev.launch(m, "t", cfg, &[KernelArg::Ptr(out), KernelArg::Ptr(aux)])
        .unwrap();
    dev.read(out, 32 * common::SLOTS).unwrap()
}

#[test]
fn texture_fetch_on_linear_memory() {
    use warpforge_simt::{Device, TexBinding, TexFormat};
    let text = common::module(
        ".global .texref tx;",
        r#"
  tex.1d.v4.u32.s32 {%r1, %r2, %r3, %r4}, [tx, {%r60}];
  st.global.u32 [%rd63+0], %r1;
  st.global.u32 [%rd63+8], %r2;
  cvt.rn.f32.s32 %f1, %r60;
  tex.1d.v4.f32.f32 {%f2, %f3, %f4, %f5}, [tx, {%f1}];
  st.global.f32 [%rd63+16], %f2;
"#,
    );
    let mut dev = Device::new();
    let m = dev.load_ptx(&text, "tex.ptx").unwrap();
    let vals: Vec<u32> = (0..16).map(|i| i * 11).collect();
    let buf = dev.alloc_copy(&vals).unwrap();
    dev.bind_texture(
        "tx",
        TexBinding {
            ptr: buf.0,
            format: TexFormat::U32,
            channels: 1,
            width: 16,
            height: 1,
            pitch: 64,
        },
    )
    .unwrap();
    let o = launch_one_warp(&mut dev, m);
    for t in 0..32usize {
        assert_eq!(o[t * 16], (t.min(15) * 11) as u64, "clamped fetch");
        assert_eq!(o[t * 16 + 1], 0, "missing channels read 0");
    }
    // Binding outside an allocation is refused.
    let bad = TexBinding {
        ptr: buf.0,
        format: TexFormat::F32,
        channels: 4,
        width: 16,
        height: 1,
        pitch: 256,
    };
    assert!(dev.bind_texture("tx", bad).is_err());
}

/// `isspacep.space p, a` tests the generic-address windows.
#[test]
fn isspacep_classifies_windows() {
    let globals = ".shared .align 4 .b32 sh[4];";
    let body = r#"
  mov.u64 %rd1, sh;
  cvta.shared.u64 %rd2, %rd1;
  isspacep.shared %p1, %rd2;
  isspacep.global %p2, %rd2;
  isspacep.global %p3, %rd63;
  selp.u32 %r4, 1, 0, %p1;
  selp.u32 %r5, 2, 0, %p2;
  selp.u32 %r6, 4, 0, %p3;
  add.u32 %r4, %r4, %r5;
  add.u32 %r4, %r4, %r6;                     st.global.u32 [%rd63+0], %r4;
"#;
    let r = run(globals, body, 1, 1, &[]);
    assert_eq!(r.out[0][0], 5);
}

#[test]
fn texture_2d_fetch_with_pitch_and_clamp() {
    use warpforge_simt::{Device, TexBinding, TexFormat};
    let text = common::module(
        ".global .texref t2;",
        r#"
  and.b32 %r1, %r60, 7;
  shr.u32 %r2, %r60, 3;
  tex.2d.v4.u32.s32 {%r3, %r4, %r5, %r6}, [t2, {%r1, %r2}];
  st.global.u32 [%rd63+0], %r3;
  st.global.u32 [%rd63+8], %r4;
"#,
    );
    let mut dev = Device::new();
    let m = dev.load_ptx(&text, "tex2d.ptx").unwrap();
    // A 5 x 3 image of 2-channel elements, rows 64 bytes apart.
    let mut img = vec![0u32; 16 * 3];
    for y in 0..3 {
        for x in 0..5 {
            img[y * 16 + 2 * x] = (100 * y + x) as u32;
            img[y * 16 + 2 * x + 1] = 7;
        }
    }
    let buf = dev.alloc_copy(&img).unwrap();
    let binding = TexBinding {
        ptr: buf.0,
        format: TexFormat::U32,
        channels: 2,
        width: 5,
        height: 3,
        pitch: 64,
    };
    dev.bind_texture("t2", binding).unwrap();
    let o = launch_one_warp(&mut dev, m);
    for t in 0..32usize {
        let (x, y) = ((t & 7).min(4), (t >> 3).min(2));
        assert_eq!(o[t * 16], (100 * y + x) as u64, "thread {t}");
        assert_eq!(o[t * 16 + 1], 7);
    }
}

#[test]
fn shared_accesses_of_every_width_partial_warps_and_bounds() {
    // One warp; 64 bytes of shared memory. Exercises the executor's shared fast path (element
    // sizes 1, 2, 4, 8, vector loads, partial warps, the last in-bounds element) and the
    // general path it falls back to (vector stores, out-of-bounds lanes), against values
    // computed here.
    let globals = ".shared .align 16 .b8 s[64];";
    let body = r#"
  mov.u64 %rd1, s;
  cvt.u64.u32 %rd2, %r60;
  add.s64 %rd3, %rd1, %rd2;
  mul.lo.u32 %r1, %r60, 37;
  mov.u32 %r14, 200;
  sub.u32 %r1, %r14, %r1;
  st.shared.u8 [%rd3], %r1;
  xor.b32 %r15, %r1, 90;
  st.shared.u8 [%rd3+32], %r15;
  bar.sync 0;
  ld.shared.s8 %r2, [%rd3];                 st.global.u32 [%rd63+0], %r2;
  ld.shared.u8 %r3, [%rd3+32];              st.global.u32 [%rd63+8], %r3;
  shr.u32 %r4, %r60, 1;
  mul.wide.u32 %rd4, %r4, 2;
  add.s64 %rd5, %rd1, %rd4;
  ld.shared.s16 %r5, [%rd5];                st.global.u32 [%rd63+16], %r5;
  setp.lt.u32 %p1, %r60, 8;
  mul.wide.u32 %rd6, %r60, 8;
  add.s64 %rd7, %rd1, %rd6;
  mov.u64 %rd8, 77;
  @%p1 ld.shared.u64 %rd8, [%rd7];          st.global.u64 [%rd63+24], %rd8;
  ld.shared.u32 %r6, [s+60];                st.global.u32 [%rd63+32], %r6;
  and.b32 %r7, %r60, 3;
  mul.wide.u32 %rd9, %r7, 16;
  add.s64 %rd10, %rd1, %rd9;
  ld.shared.v4.u32 {%r8, %r9, %r10, %r11}, [%rd10];
  xor.b32 %r8, %r8, %r11;                   st.global.u32 [%rd63+40], %r8;
  bar.sync 0;
  st.shared.u32 [s], %r60;
  setp.lt.u32 %p2, %r60, 4;
  @%p2 st.shared.v2.u32 [%rd7+8], {%r60, %r60};
  bar.sync 0;
  ld.shared.u32 %r12, [s];                  st.global.u32 [%rd63+48], %r12;
  ld.shared.u32 %r13, [s+12];               st.global.u32 [%rd63+56], %r13;
"#;
    let r = run(globals, body, 1, 32, &[]);
    // The bytes after the first stores: byte t = (200 - 37 t) mod 256 and byte t + 32 that
    // xor 90, t < 32.
    let mut b = [0u8; 64];
    let (lo, hi) = b.split_at_mut(32);
    for (t, (x, y)) in lo.iter_mut().zip(hi.iter_mut()).enumerate() {
        *x = 200u32.wrapping_sub(37 * t as u32) as u8;
        *y = *x ^ 90;
    }
    let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
    for (t, o) in r.out.iter().enumerate() {
        assert_eq!(
            o[0] as u32, b[t] as i8 as i32 as u32,
            "ld.shared.s8, thread {t}"
        );
        assert_eq!(o[1], b[t + 32] as u64, "ld.shared.u8, thread {t}");
        let h = t / 2 * 2;
        let v = i16::from_le_bytes([b[h], b[h + 1]]);
        assert_eq!(o[2] as u32, v as i32 as u32, "ld.shared.s16, thread {t}");
        let d = if t < 8 {
            u64::from_le_bytes(b[8 * t..8 * t + 8].try_into().unwrap())
        } else {
            77
        };
        assert_eq!(o[3], d, "predicated ld.shared.u64, thread {t}");
        assert_eq!(o[4] as u32, u32_at(60), "last in-bounds element");
        let q = (t % 4) * 16;
        assert_eq!(
            o[5] as u32,
            u32_at(q) ^ u32_at(q + 12),
            "ld.shared.v4, thread {t}"
        );
        // Every lane stored its id at s[0]: the highest lane's value stays; lane 1's vector
        // store covers bytes 16..24 and lane 0's 8..16, so word 3 (bytes 12..16) is lane 0's.
        assert_eq!(o[6], 31, "same-address store: the highest lane wins");
        assert_eq!(o[7], 0, "word 3 holds lane 0's second element");
    }
    // A vector load whose second element is one byte past the end faults.
    let e = try_run(
        globals,
        "  ld.shared.v2.u32 {%r1, %r2}, [s+60];",
        1,
        32,
        &[],
    )
    .err()
    .expect("faults")
    .to_string();
    assert!(
        e.contains("beyond the CTA's 64 bytes of shared memory"),
        "{e}"
    );
}

#[test]
fn param_loads_and_alu_fast_paths_partial_warps_and_predication() {
    // 29 threads (a partial warp) and predicated forms. Exercises the executor's fast paths for
    // uniform `ld.param` (scalar widths, sign extension, a vector, a predicated load), `neg`,
    // `not`, the predicate logic ops, `cvt.u32` of 64-bit integers, `sub.f32` and
    // `cvta{.to}.global`, against values computed here from the parameters read back.
    let body = r#"
  ld.param.u32 %r1, [aux];                   st.global.u32 [%rd63+0], %r1;
  ld.param.u32 %r2, [aux+4];                 st.global.u32 [%rd63+8], %r2;
  ld.param.s8 %r3, [out];                    st.global.u32 [%rd63+16], %r3;
  ld.param.v2.u32 {%r4, %r5}, [out];
  xor.b32 %r4, %r4, %r5;                     st.global.u32 [%rd63+24], %r4;
  setp.lt.u32 %p1, %r60, 5;
  mov.u32 %r6, 99;
  @%p1 ld.param.u32 %r6, [out];              st.global.u32 [%rd63+32], %r6;
  sub.s32 %r7, %r60, 3;
  neg.s32 %r8, %r7;                          st.global.u32 [%rd63+40], %r8;
  cvt.s64.s32 %rd1, %r7;
  neg.s64 %rd2, %rd1;                        st.global.u64 [%rd63+48], %rd2;
  not.b32 %r9, %r7;
  mov.u32 %r10, 7;
  @!%p1 not.b32 %r10, %r60;                  st.global.u32 [%rd63+56], %r9;
                                             st.global.u32 [%rd63+64], %r10;
  and.b32 %r11, %r60, 1;
  setp.eq.u32 %p2, %r11, 1;
  and.pred %p3, %p1, %p2;
  or.pred %p4, %p1, !%p2;
  xor.pred %p5, %p1, %p2;
  not.pred %p6, %p2;
  selp.u32 %r12, 1, 0, %p3;
  selp.u32 %r13, 2, 0, %p4;
  selp.u32 %r14, 4, 0, %p5;
  selp.u32 %r15, 8, 0, %p6;
  or.b32 %r12, %r12, %r13;
  or.b32 %r12, %r12, %r14;
  or.b32 %r12, %r12, %r15;                   st.global.u32 [%rd63+72], %r12;
  mul.wide.s32 %rd3, %r7, 0x10000001;
  cvt.u32.u64 %r16, %rd3;                    st.global.u32 [%rd63+80], %r16;
  cvt.u32.s64 %r17, %rd2;                    st.global.u32 [%rd63+88], %r17;
  cvt.rn.f32.s32 %f1, %r7;
  mov.f32 %f2, 0f3FC00000;
  sub.f32 %f3, %f1, %f2;
  mov.f32 %f4, 0f00000000;
  @%p1 sub.rn.f32 %f4, %f2, %f1;             st.global.f32 [%rd63+96], %f3;
                                             st.global.f32 [%rd63+104], %f4;
  cvta.to.global.u64 %rd4, %rd61;
  cvta.global.u64 %rd5, %rd4;
  xor.b64 %rd5, %rd5, %rd61;                 st.global.u64 [%rd63+112], %rd5;
  @%p1 cvta.to.global.u64 %rd6, %rd63;
  @!%p1 mov.u64 %rd6, 0;                     st.global.u64 [%rd63+120], %rd6;
"#;
    let threads = 29;
    let r = run("", body, 1, threads, &[]);
    let (aux, outp) = (r.aux_ptr, r.out_ptr);
    for (t, o) in r.out.iter().enumerate() {
        assert_eq!(o[0], aux & 0xffff_ffff, "ld.param.u32 low half, thread {t}");
        assert_eq!(o[1], aux >> 32, "ld.param.u32 high half, thread {t}");
        assert_eq!(
            o[2] as u32, outp as u8 as i8 as i32 as u32,
            "ld.param.s8 sign-extends, thread {t}"
        );
        assert_eq!(
            o[3],
            (outp & 0xffff_ffff) ^ (outp >> 32),
            "ld.param.v2.u32, thread {t}"
        );
        let p1 = t < 5;
        let want = if p1 { outp & 0xffff_ffff } else { 99 };
        assert_eq!(o[4], want, "predicated ld.param, thread {t}");
        let x = t as i32 - 3;
        assert_eq!(o[5] as u32, x.wrapping_neg() as u32, "neg.s32, thread {t}");
        assert_eq!(
            o[6],
            (x as i64).wrapping_neg() as u64,
            "neg.s64, thread {t}"
        );
        assert_eq!(o[7] as u32, !(x as u32), "not.b32, thread {t}");
        let want = if p1 { 7 } else { !(t as u32) };
        assert_eq!(o[8] as u32, want, "predicated not.b32, thread {t}");
        let p2 = t % 2 == 1;
        let bits = (p1 && p2) as u64
            | ((p1 || !p2) as u64) << 1
            | ((p1 ^ p2) as u64) << 2
            | (!p2 as u64) << 3;
        assert_eq!(o[9], bits, "predicate logic, thread {t}");
        let wide = (x as i64).wrapping_mul(0x1000_0001);
        assert_eq!(o[10], wide as u64 & 0xffff_ffff, "cvt.u32.u64, thread {t}");
        assert_eq!(
            o[11],
            (x as i64).wrapping_neg() as u64 & 0xffff_ffff,
            "cvt.u32.s64, thread {t}"
        );
        let f = x as f32;
        assert_eq!(f32::from_bits(o[12] as u32), f - 1.5, "sub.f32, thread {t}");
        let want = if p1 { 1.5 - f } else { 0.0 };
        assert_eq!(
            f32::from_bits(o[13] as u32),
            want,
            "predicated sub.f32, thread {t}"
        );
        assert_eq!(
            o[14], 0,
            "cvta.global of cvta.to.global is the identity, thread {t}"
        );
        let want = if p1 { outp + t as u64 * 128 } else { 0 };
        assert_eq!(o[15], want, "predicated cvta.to.global, thread {t}");
    }
    // A parameter load past the end of the 16 bytes of parameters faults.
    let e = try_run("", "  ld.param.v2.u64 {%rd1, %rd2}, [aux];", 1, 32, &[])
        .err()
        .expect("faults")
        .to_string();
    assert!(
        e.contains("beyond the kernel's 16 bytes of parameters"),
        "{e}"
    );
}

#[test]
fn overlapping_global_vector_stores_keep_the_highest_lanes_bytes() {
    // Lane l stores the two words {10 l, 10 l + 1} at word l of the auxiliary buffer: the
    // vectors of neighbouring lanes overlap by a word. Stores go lane by lane (every element of
    // a lane before the next), so word k holds lane k's first element and the last word lane
    // n-1's second. A full warp, then a predicated partial warp at word 40.
    let body = r#"
  mul.wide.u32 %rd1, %r60, 4;
  add.s64 %rd2, %rd61, %rd1;
  mul.lo.u32 %r1, %r60, 10;
  add.u32 %r2, %r1, 1;
  st.global.v2.u32 [%rd2], {%r1, %r2};
  setp.lt.u32 %p1, %r60, 20;
  add.u32 %r3, %r1, 1000;
  add.u32 %r4, %r3, 1;
  @%p1 st.global.v2.u32 [%rd2+160], {%r3, %r4};
"#;
    let r = run("", body, 1, 32, &[0; 48]);
    let words: Vec<u32> = r
        .aux
        .iter()
        .flat_map(|w| [*w as u32, (*w >> 32) as u32])
        .collect();
    for (k, w) in words.iter().take(32).enumerate() {
        assert_eq!(*w, 10 * k as u32, "word {k}: lane {k}'s first element");
    }
    assert_eq!(words[32], 311, "word 32: lane 31's second element");
    for (k, w) in words[40..60].iter().enumerate() {
        assert_eq!(*w, 1000 + 10 * k as u32, "word {}", 40 + k);
    }
    assert_eq!(words[60], 1191, "word 60: lane 19's second element");
    assert_eq!(words[61], 0, "word 61: untouched");
}

#[test]
fn overlapping_v4_stores_of_8_and_2_byte_elements_keep_the_highest_lanes_bytes() {
    // The store path's two lane widths: `.v4.u64` from 64-bit registers whose high bits are
    // set (64-bit lanes), and `.v4.u16` from 32-bit registers, truncated to their low 16 bits
    // (32-bit lanes). Lane l's vector starts at element l, so neighbours overlap by three
    // elements: element k holds lane k's first element, the last three lane 31's others.
    let body = r#"
  mul.wide.u32 %rd1, %r60, 8;
  add.s64 %rd2, %rd61, %rd1;
  cvt.u64.u32 %rd3, %r60;
  shl.b64 %rd4, %rd3, 40;
  add.u64 %rd5, %rd4, 1;
  add.u64 %rd6, %rd4, 2;
  add.u64 %rd7, %rd4, 3;
  add.u64 %rd8, %rd4, 4;
  st.global.v4.u64 [%rd2], {%rd5, %rd6, %rd7, %rd8};
  mul.wide.u32 %rd9, %r60, 2;
  add.s64 %rd10, %rd61, %rd9;
  mul.lo.u32 %r1, %r60, 16;
  add.u32 %r1, %r1, 0x70000;
  add.u32 %r2, %r1, 1;
  add.u32 %r3, %r1, 2;
  add.u32 %r4, %r1, 3;
  st.global.v4.u16 [%rd10+384], {%r1, %r2, %r3, %r4};
"#;
    let r = run("", body, 1, 32, &[0; 64]);
    for k in 0..32u64 {
        assert_eq!(r.aux[k as usize], (k << 40) + 1, "u64 element {k}");
    }
    for (k, j) in [(32, 2), (33, 3), (34, 4)] {
        assert_eq!(
            r.aux[k],
            (31 << 40) + j,
            "u64 element {k}: lane 31's element {j}"
        );
    }
    assert_eq!(r.aux[35], 0, "u64 element 35: untouched");
    let halves: Vec<u64> = r.aux[48..]
        .iter()
        .flat_map(|w| (0..4).map(move |i| (w >> (16 * i)) & 0xffff))
        .collect();
    for (k, h) in halves.iter().take(32).enumerate() {
        assert_eq!(*h, 16 * k as u64, "u16 element {k}");
    }
    assert_eq!(
        &halves[32..36],
        &[497, 498, 499, 0],
        "lane 31's elements 2-4, then untouched"
    );
}
