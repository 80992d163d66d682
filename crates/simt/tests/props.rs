//! Property tests: integer instructions executed by the SIMT executor (32 lanes per case, random
//! operands) against independent Rust reference computations.

mod common;
use common::run;
use proptest::prelude::*;

const BODY: &str = r#"
  mul.wide.u32 %rd1, %r63, 8;
  add.s64 %rd2, %rd61, %rd1;
  ld.global.v2.u32 {%r1, %r2}, [%rd2];
  or.b32 %r3, %r2, 1;
  and.b32 %r4, %r2, 63;
  add.u32 %r10, %r1, %r2;          st.global.u32 [%rd63+0], %r10;
  sub.u32 %r10, %r1, %r2;          st.global.u32 [%rd63+8], %r10;
  mul.lo.u32 %r10, %r1, %r2;       st.global.u32 [%rd63+16], %r10;
  mul.hi.u32 %r10, %r1, %r2;       st.global.u32 [%rd63+24], %r10;
  mul.hi.s32 %r10, %r1, %r2;       st.global.u32 [%rd63+32], %r10;
  mul.wide.s32 %rd10, %r1, %r2;    st.global.u64 [%rd63+40], %rd10;
  div.u32 %r10, %r1, %r3;          st.global.u32 [%rd63+48], %r10;
  rem.s32 %r10, %r1, %r3;          st.global.u32 [%rd63+56], %r10;
  min.s32 %r10, %r1, %r2;          st.global.u32 [%rd63+64], %r10;
  max.u32 %r10, %r1, %r2;          st.global.u32 [%rd63+72], %r10;
  shl.b32 %r10, %r1, %r4;          st.global.u32 [%rd63+80], %r10;
  shr.s32 %r10, %r1, %r4;          st.global.u32 [%rd63+88], %r10;
  popc.b32 %r10, %r1;
  clz.b32 %r11, %r2;
  shl.b32 %r11, %r11, 8;
  or.b32 %r10, %r10, %r11;         st.global.u32 [%rd63+96], %r10;
  brev.b32 %r10, %r1;              st.global.u32 [%rd63+104], %r10;
  and.b32 %r5, %r2, 31;
  shr.u32 %r6, %r2, 8;
  and.b32 %r6, %r6, 31;
  bfe.u32 %r10, %r1, %r5, %r6;     st.global.u32 [%rd63+112], %r10;
  prmt.b32 %r10, %r1, %r2, %r2;    st.global.u32 [%rd63+120], %r10;
"#;

fn prmt_ref(a: u32, b: u32, c: u32) -> u32 {
    let bytes: Vec<u8> = a.to_le_bytes().into_iter().chain(b.to_le_bytes()).collect();
    let mut r = [0u8; 4];
    for (i, out) in r.iter_mut().enumerate() {
        let sel = (c >> (4 * i)) & 0xf;
        let v = bytes[(sel & 7) as usize];
        *out = if sel & 8 != 0 {
            if v & 0x80 != 0 {
                0xff
            } else {
                0
            }
        } else {
            v
        };
    }
    u32::from_le_bytes(r)
}

fn reference(a: u32, b: u32) -> [u64; 16] {
    let (sa, sb) = (a as i32, b as i32);
    let b1 = b | 1;
    let sh = b & 63;
    let pos = b & 31;
    let len = (b >> 8) & 31;
    let bfe = if len == 0 {
        0
    } else {
        ((a as u64 >> pos) & ((1u64 << len) - 1)) as u32
    };
    [
        a.wrapping_add(b) as u64,
        a.wrapping_sub(b) as u64,
        a.wrapping_mul(b) as u64,
        (a as u64 * b as u64) >> 32,
        (((sa as i64 * sb as i64) >> 32) as u32) as u64,
        (sa as i64 * sb as i64) as u64,
        (a / b1) as u64,
        (sa.wrapping_rem(b1 as i32)) as u32 as u64,
        sa.min(sb) as u32 as u64,
        a.max(b) as u64,
        if sh >= 32 { 0 } else { (a << sh) as u64 },
        (sa >> sh.min(31)) as u32 as u64,
        (a.count_ones() | (b.leading_zeros() << 8)) as u64,
        a.reverse_bits() as u64,
        bfe as u64,
        prmt_ref(a, b, b) as u64,
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn integer_ops_match_rust(pairs in prop::collection::vec((any::<u32>(), any::<u32>()), 32)) {
        let aux: Vec<u64> = pairs.iter().map(|(a, b)| *a as u64 | ((*b as u64) << 32)).collect();
        let r = run("", BODY, 1, 32, &aux);
        for (lane, (a, b)) in pairs.iter().enumerate() {
            prop_assert_eq!(r.out[lane], reference(*a, *b), "a={:#x} b={:#x}", a, b);
        }
    }
}

#[test]
fn edge_operands_match_rust() {
    let edges = [
        0u32,
        1,
        2,
        31,
        32,
        63,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ffff,
        0x1234_5678,
    ];
    let mut pairs = Vec::new();
    for a in edges {
        for b in edges {
            pairs.push((a, b));
        }
    }
    for chunk in pairs.chunks(32) {
        let mut aux: Vec<u64> = chunk
            .iter()
            .map(|(a, b)| *a as u64 | ((*b as u64) << 32))
            .collect();
        aux.resize(32, 0);
        let r = run("", BODY, 1, 32, &aux);
        for (lane, (a, b)) in chunk.iter().enumerate() {
            assert_eq!(r.out[lane], reference(*a, *b), "a={a:#x} b={b:#x}");
        }
    }
}

const SETP: &str = r#"
  mul.wide.u32 %rd1, %r63, 8;
  add.s64 %rd2, %rd61, %rd1;
  ld.global.v2.u32 {%r1, %r2}, [%rd2];
  cvt.s64.s32 %rd3, %r1;
  cvt.u64.u32 %rd4, %r2;
  mov.u32 %r10, 0;
  setp.lt.s32 %p1, %r1, %r2;    selp.u32 %r11, 1, 0, %p1;    or.b32 %r10, %r10, %r11;
  setp.lt.u32 %p1, %r1, %r2;    selp.u32 %r11, 2, 0, %p1;    or.b32 %r10, %r10, %r11;
  setp.ge.s32 %p1|%p2, %r1, %r2; selp.u32 %r11, 4, 0, %p2;   or.b32 %r10, %r10, %r11;
  setp.hi.u32 %p1, %r1, %r2;    selp.u32 %r11, 8, 0, %p1;    or.b32 %r10, %r10, %r11;
  setp.eq.b32 %p1, %r1, %r2;    selp.u32 %r11, 16, 0, %p1;   or.b32 %r10, %r10, %r11;
  setp.ne.s32 %p1, %r1, %r2;    selp.u32 %r11, 32, 0, %p1;   or.b32 %r10, %r10, %r11;
  setp.le.s64 %p1, %rd3, %rd4;  selp.u32 %r11, 64, 0, %p1;   or.b32 %r10, %r10, %r11;
  setp.gt.s64 %p1, %rd3, %rd4;  selp.u32 %r11, 128, 0, %p1;  or.b32 %r10, %r10, %r11;
  setp.ls.u64 %p1, %rd3, %rd4;  selp.u32 %r11, 256, 0, %p1;  or.b32 %r10, %r10, %r11;
  setp.lt.and.s32 %p1, %r1, %r2, %p2; selp.u32 %r11, 512, 0, %p1; or.b32 %r10, %r10, %r11;
  st.global.u32 [%rd63+0], %r10;
"#;

fn setp_reference(a: u32, b: u32) -> u64 {
    let (sa, sb) = (a as i32, b as i32);
    let (la, lb) = (sa as i64, b as u64 as i64);
    // %p2 is the complement output of `setp.ge.s32 %p1|%p2`.
    let p2 = sa < sb;
    let bits = [
        sa < sb,
        a < b,
        p2,
        a > b,
        a == b,
        a != b,
        la <= lb,
        la > lb,
        (la as u64) <= b as u64,
        sa < sb && p2,
    ];
    bits.iter().enumerate().map(|(i, v)| (*v as u64) << i).sum()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn integer_comparisons_match_rust(pairs in prop::collection::vec((any::<u32>(), prop_oneof![any::<u32>(), Just(0u32), Just(u32::MAX)]), 32)) {
        let aux: Vec<u64> = pairs.iter().map(|(a, b)| *a as u64 | ((*b as u64) << 32)).collect();
        let r = run("", SETP, 1, 32, &aux);
        for (lane, (a, b)) in pairs.iter().enumerate() {
            prop_assert_eq!(r.out[lane][0], setp_reference(*a, *b), "a={:#x} b={:#x}", a, b);
        }
    }
}
