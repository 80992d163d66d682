//! The register file's banks and shared slots (docs/simt.md, "Registers"): registers of at most
//! 32 bits in 32-bit lanes, the kernel body's registers with disjoint live ranges in one slot,
//! with the values every lane reads unchanged.

use warpforge_core::Dim3;
use warpforge_simt::memory::GlobalMem;
use warpforge_simt::program::{decode_kernel_with, layout_module, KernelCode};
use warpforge_simt::{Device, KernelArg, LaunchConfig};

const HEAD: &str = ".version 7.0\n.target sm_70\n.address_size 64\n";

fn decode(text: &str, name: &str, share: bool) -> KernelCode {
    let m = warpforge_ptx::parse(text, "banks.ptx").unwrap();
    let mut mem = GlobalMem::new();
    let layout = layout_module(&m, &mut mem).unwrap();
    decode_kernel_with(
        &m,
        name,
        &layout,
        &warpforge_ptx::reconvergence_points,
        share,
    )
    .unwrap()
}

/// A chain of 32-bit values, each read once by the next: with sharing, the chain needs two
/// 32-bit slots (plus the thread index and the predicate), not one per register; without, one
/// per declared register. The 64-bit registers stay in the 64-bit bank either way.
#[test]
fn an_ssa_chain_shares_slots_and_widths_pick_banks() {
    let text = format!(
        "{HEAD}.visible .entry chain(.param .u64 out)\n{{\n\
         .reg .pred %p<2>;\n.reg .b32 %r<12>;\n.reg .b64 %rd<4>;\n\
         ld.param.u64 %rd1, [out];\n\
         mov.u32 %r1, %tid.x;\n\
         add.u32 %r2, %r1, 1;\nadd.u32 %r3, %r2, 1;\nadd.u32 %r4, %r3, 1;\n\
         add.u32 %r5, %r4, 1;\nadd.u32 %r6, %r5, 1;\nadd.u32 %r7, %r6, 1;\n\
         add.u32 %r8, %r7, 1;\nadd.u32 %r9, %r8, 1;\nadd.u32 %r10, %r9, 1;\n\
         setp.lt.u32 %p1, %r1, 3;\n\
         @%p1 add.u32 %r10, %r10, %r1;\n\
         mul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\n\
         st.global.u32 [%rd3], %r10;\nret;\n}}\n"
    );
    let own = decode(&text, "chain", false);
    let shared = decode(&text, "chain", true);
    // %p0..1 and %r0..11: 14 registers of at most 32 bits; %rd0..3 and the 34 special slots.
    assert_eq!(own.narrow_slots, 14);
    assert_eq!(own.wide_slots, 4 + 34);
    assert!(
        shared.narrow_slots <= 4,
        "the chain should fit 4 slots, got {}",
        shared.narrow_slots
    );
    assert!(shared.wide_slots < own.wide_slots);
    assert!(shared.shared_slots && !own.shared_slots);

    // Both decodes compute the same values.
    let mut dev = Device::new();
    let m = dev.load_ptx(&text, "banks.ptx").unwrap();
    let out = dev.malloc(4 * 64).unwrap();
    let cfg = LaunchConfig {
        grid: Dim3::x(1),
        block: Dim3::x(64),
        shared_bytes: 0,
    };
    dev.launch(m, "chain", cfg, &[KernelArg::Ptr(out)]).unwrap();
    let got: Vec<u32> = dev.read(out, 64).unwrap();
    for (t, &v) in got.iter().enumerate() {
        let t = t as u32;
        assert_eq!(v, t + 9 + if t < 3 { t } else { 0 }, "thread {t}");
    }
}

/// A guarded write does not kill its destination: lanes whose guard is false read what the
/// register held before (here zero, never written), so it must not share a slot with a register
/// that dies before the guarded write (`%r1`, the thread index). Were the guarded write taken as
/// a kill, `%r2`'s live range would start at it, both would share a slot, and the odd threads
/// would store their index instead of 0.
#[test]
fn a_guarded_write_keeps_the_old_value_in_unguarded_lanes() {
    let text = format!(
        "{HEAD}.visible .entry guarded(.param .u64 out)\n{{\n\
         .reg .pred %p<2>;\n.reg .b32 %r<4>;\n.reg .b64 %rd<5>;\n\
         ld.param.u64 %rd1, [out];\n\
         mov.u32 %r1, %tid.x;\n\
         mul.wide.u32 %rd2, %r1, 8;\nadd.s64 %rd3, %rd1, %rd2;\n\
         and.b32 %r3, %r1, 1;\nsetp.eq.u32 %p1, %r3, 0;\n\
         st.global.u32 [%rd3], %r1;\n\
         @%p1 mov.u32 %r2, 7;\n\
         st.global.u32 [%rd3+4], %r2;\nret;\n}}\n"
    );
    let mut dev = Device::new();
    let m = dev.load_ptx(&text, "banks.ptx").unwrap();
    let out = dev.malloc(8 * 64).unwrap();
    let cfg = LaunchConfig {
        grid: Dim3::x(1),
        block: Dim3::x(64),
        shared_bytes: 0,
    };
    dev.launch(m, "guarded", cfg, &[KernelArg::Ptr(out)])
        .unwrap();
    let got: Vec<u32> = dev.read(out, 128).unwrap();
    for t in 0..64u32 {
        assert_eq!(got[2 * t as usize], t, "thread {t}: %r1");
        let want = if t % 2 == 0 { 7 } else { 0 };
        assert_eq!(got[2 * t as usize + 1], want, "thread {t}: %r2");
    }
}

/// `shfl` reads its source in the lane it names, which may be inactive: there the source keeps
/// what it held without sharing (zero, never written in the odd lanes), not the value of a
/// register that was live only in those lanes (`%r3`, written and dead in the odd lanes before
/// the even lanes write `%r4` and shuffle it). Were `shfl`'s source coloured like any other
/// register, `%r4` could share `%r3`'s (or `%r2`'s) slot and the even threads would store the
/// odd lanes' `%r3` (or 1) instead of 0.
#[test]
fn a_shfl_source_read_in_an_inactive_lane_keeps_its_own_slot() {
    let text = format!(
        "{HEAD}.visible .entry sh(.param .u64 out)\n{{\n\
         .reg .pred %p<2>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<5>;\n\
         ld.param.u64 %rd1, [out];\n\
         mov.u32 %r1, %tid.x;\n\
         mul.wide.u32 %rd2, %r1, 8;\nadd.s64 %rd3, %rd1, %rd2;\n\
         xor.b32 %r6, %r1, 1;\n\
         and.b32 %r2, %r1, 1;\nsetp.eq.u32 %p1, %r2, 1;\n\
         @%p1 bra ODD;\nbra JOIN1;\n\
         ODD:\nadd.u32 %r3, %r1, 100;\nst.global.u32 [%rd3+4], %r3;\n\
         JOIN1:\n\
         @%p1 bra JOIN2;\n\
         mov.u32 %r4, 5;\n\
         shfl.sync.idx.b32 %r5, %r4, %r6, 31, -1;\n\
         st.global.u32 [%rd3], %r5;\n\
         JOIN2:\nret;\n}}\n"
    );
    let own = decode(&text, "sh", false);
    let shared = decode(&text, "sh", true);
    assert!(shared.narrow_slots < own.narrow_slots);
    let mut dev = Device::new();
    let m = dev.load_ptx(&text, "banks.ptx").unwrap();
    let out = dev.malloc(8 * 32).unwrap();
    let cfg = LaunchConfig {
        grid: Dim3::x(1),
        block: Dim3::x(32),
        shared_bytes: 0,
    };
    dev.launch(m, "sh", cfg, &[KernelArg::Ptr(out)]).unwrap();
    let got: Vec<u32> = dev.read(out, 64).unwrap();
    for t in 0..32u32 {
        let (lo, hi) = (got[2 * t as usize], got[2 * t as usize + 1]);
        if t % 2 == 0 {
            assert_eq!((lo, hi), (0, 0), "thread {t}: the odd lane's %r4 is 0");
        } else {
            assert_eq!((lo, hi), (0, t + 100), "thread {t}: %r3");
        }
    }
}
