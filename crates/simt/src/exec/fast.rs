//! The branch-free fast paths for full-warp integer/float ALU instructions, global and shared
//! loads/stores, uniform kernel-parameter loads and integer comparisons (32 lanes at a time on
//! whole register vectors).
//!
//! Each path picks the register banks of its operands once per instruction (never per lane): an
//! operation whose result is a register of at most 32 bits and depends only on the low 32 bits
//! of its operands runs on 32-bit lanes, the others on 64-bit lanes, an operand of the other bank
//! converted on the way (zero-extended or truncated, which leaves the result unchanged).

use super::regs::Lane;
use super::*;

/// Runs `$body` for every lane `$l` of `$mask` in ascending order, the body written out in
/// place (the per-lane closure of [`lanes_or_all`] is not always inlined in the large
/// executor, and a call per lane costs more than the lane's work), with a counted loop for a
/// full warp.
macro_rules! each_lane {
    ($mask:expr, $l:ident, $body:block) => {{
        let m: u32 = $mask;
        if m == FULL {
            // The lane indexes several arrays (lane `l` of each).
            #[allow(clippy::needless_range_loop)]
            for $l in 0..WARP_SIZE $body;
        } else {
            let mut rest = m;
            while rest != 0 {
                let $l = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                $body
            }
        }
    }};
}

/// The `EB`-byte little-endian value at byte `at` of `data` (one bounds check; `EB` is 1, 2,
/// 4 or 8, the value [`crate::memory::load_le`] reads).
#[inline(always)]
fn ld_le<const EB: usize>(data: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w[..EB].copy_from_slice(&data[at..at + EB]);
    u64::from_le_bytes(w)
}

/// Stores the low `EB` bytes of `v` little-endian at byte `at` of `data` (one bounds check; as
/// [`crate::memory::store_le`]).
#[inline(always)]
fn st_le<const EB: usize>(data: &mut [u8], at: usize, v: u64) {
    data[at..at + EB].copy_from_slice(&v.to_le_bytes()[..EB]);
}

/// All 32 lanes of a source operand as 64-bit values.
#[inline(always)]
pub(super) fn fetch(regs: &Regs, s: Src) -> [u64; WARP_SIZE] {
    *operand::<u64>(regs, s)
}

/// A source operand's 32 lanes: a register of the lanes' bank is borrowed in place (a copy is
/// 128 or 256 bytes, and most operands are registers), a register of the other bank converted,
/// a negated predicate or an immediate computed. It lives on the stack for one instruction, so
/// the size difference of the variants costs nothing (boxing would allocate).
#[allow(clippy::large_enum_variant)]
pub(super) enum Lanes<'a, T> {
    Ref(&'a [T; WARP_SIZE]),
    Val([T; WARP_SIZE]),
}

impl<T> std::ops::Deref for Lanes<'_, T> {
    type Target = [T; WARP_SIZE];
    #[inline(always)]
    fn deref(&self) -> &[T; WARP_SIZE] {
        match self {
            Lanes::Ref(r) => r,
            Lanes::Val(v) => v,
        }
    }
}

/// All 32 lanes of physical slot `p` as `T` lanes: borrowed when the slot is in `T`'s bank,
/// else converted (zero-extended or truncated).
#[inline(always)]
fn row_as<T: Lane>(regs: &Regs, p: u32) -> Lanes<'_, T> {
    let i = (p & !WIDE) as usize;
    match (p & WIDE != 0, T::WIDE) {
        (true, true) | (false, false) => Lanes::Ref(&T::bank(regs)[i]),
        (true, false) => Lanes::Val(regs.wide[i].map(T::from64)),
        (false, true) => Lanes::Val(regs.narrow[i].map(|v| T::from64(v as u64))),
    }
}

/// All 32 lanes of a source operand as `T` lanes (values truncated to `T`), without copying a
/// register of `T`'s bank.
#[inline(always)]
pub(super) fn operand<T: Lane>(regs: &Regs, s: Src) -> Lanes<'_, T> {
    match s {
        Src::R(r) => row_as(regs, r),
        Src::N(r) => {
            let mut v = *row_as::<T>(regs, r);
            v.iter_mut()
                .for_each(|x| *x = T::from64((x.to64() & 1) ^ 1));
            Lanes::Val(v)
        }
        Src::I(v) => Lanes::Val([T::from64(v); WARP_SIZE]),
    }
}

/// Writes `out` (masked by `m`) to the active lanes of physical slot `d`, in its bank.
#[inline(always)]
pub(super) fn commit<S: Lane>(regs: &mut Regs, d: u32, m: u64, out: &[S; WARP_SIZE], active: u32) {
    let i = (d & !WIDE) as usize;
    if d & WIDE != 0 {
        commit_row(&mut regs.wide[i], m, out, active);
    } else {
        commit_row(&mut regs.narrow[i], m, out, active);
    }
}

/// [`commit`] into one bank's row.
#[inline(always)]
fn commit_row<D: Lane, S: Lane>(
    dst: &mut [D; WARP_SIZE],
    m: u64,
    out: &[S; WARP_SIZE],
    active: u32,
) {
    if active == FULL {
        #[cfg(target_arch = "x86_64")]
        if avx2() {
            // SAFETY: the CPU supports AVX2 (checked just above).
            unsafe { commit_full_avx2(dst, m, out) };
            return;
        }
        for l in 0..WARP_SIZE {
            dst[l] = D::from64(out[l].to64() & m);
        }
    } else {
        lanes(active, |l| dst[l] = D::from64(out[l].to64() & m));
    }
}

/// Writes `v` to the active lanes of physical slot `d`.
#[inline(always)]
fn fill(regs: &mut Regs, d: u32, v: u64, active: u32) {
    let i = (d & !WIDE) as usize;
    if d & WIDE != 0 {
        let dst = &mut regs.wide[i];
        lanes_or_all(active, |l| dst[l] = v);
    } else {
        let dst = &mut regs.narrow[i];
        lanes_or_all(active, |l| dst[l] = v as u32);
    }
}

/// The lanes whose predicate in physical slot `g` is true (bit 0 of the value), as a mask.
#[inline(always)]
pub(super) fn guard_bits(regs: &Regs, g: u32) -> u32 {
    let i = (g & !WIDE) as usize;
    let mut a = 0u32;
    if g & WIDE != 0 {
        for (l, v) in regs.wide[i].iter().enumerate() {
            a |= ((*v & 1) as u32) << l;
        }
    } else {
        for (l, v) in regs.narrow[i].iter().enumerate() {
            a |= (*v & 1) << l;
        }
    }
    a
}

/// `mov`: the source (masked by the destination's width) to the active lanes, in the
/// destination's bank.
pub(super) fn mov(inst: &DInst, regs: &mut Regs, active: u32) {
    let (d, m, s) = (inst.d[0], inst.dmask[0], inst.s[0]);
    if d & WIDE != 0 {
        let v = *operand::<u64>(regs, s);
        commit(regs, d, m, &v, active);
    } else {
        let v = *operand::<u32>(regs, s);
        commit(regs, d, m, &v, active);
    }
}

/// Whether the CPU has AVX2 (cached by the standard library after the first call): the lane
/// loops of [`map2`], [`map3`] and [`commit`] then run on 256-bit vectors (four 64-bit lanes
/// per operation instead of two). The same integer and IEEE single-precision operations lane by
/// lane, so the results are bit for bit those of the SSE loops (NaN payloads included: x86
/// propagates them the same way in either encoding).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn avx2() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
}

/// The lane loop of [`map2`]: `f` on the lanes' register values, its result truncated to `U`.
#[inline(always)]
fn map2_lanes<T: Lane, U: Lane>(
    a: &[T; WARP_SIZE],
    b: &[T; WARP_SIZE],
    f: impl Fn(u64, u64) -> u64,
) -> [U; WARP_SIZE] {
    let mut o = [U::default(); WARP_SIZE];
    for l in 0..WARP_SIZE {
        o[l] = U::from64(f(a[l].to64(), b[l].to64()));
    }
    o
}

/// [`map2_lanes`] compiled for AVX2. The CPU must support it.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn map2_avx2<T: Lane, U: Lane>(
    a: &[T; WARP_SIZE],
    b: &[T; WARP_SIZE],
    f: impl Fn(u64, u64) -> u64,
) -> [U; WARP_SIZE] {
    map2_lanes(a, b, f)
}

/// [`commit_row`] of a full warp, compiled for AVX2. The CPU must support it.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn commit_full_avx2<D: Lane, S: Lane>(
    dst: &mut [D; WARP_SIZE],
    m: u64,
    out: &[S; WARP_SIZE],
) {
    for l in 0..WARP_SIZE {
        dst[l] = D::from64(out[l].to64() & m);
    }
}

/// Not inlined: with the operands as plain references here, the loop is vectorised (inlined,
/// the compiler chose between a borrowed register and a computed operand once per lane).
#[inline(never)]
pub(super) fn map2<T: Lane, U: Lane>(
    a: &[T; WARP_SIZE],
    b: &[T; WARP_SIZE],
    f: impl Fn(u64, u64) -> u64,
) -> [U; WARP_SIZE] {
    #[cfg(target_arch = "x86_64")]
    if avx2() {
        // SAFETY: the CPU supports AVX2 (checked just above).
        return unsafe { map2_avx2(a, b, f) };
    }
    map2_lanes(a, b, f)
}

/// The lane loop of [`map3`].
#[inline(always)]
fn map3_lanes<T: Lane>(
    a: &[T; WARP_SIZE],
    b: &[T; WARP_SIZE],
    c: &[T; WARP_SIZE],
    f: impl Fn(u64, u64, u64) -> u64,
) -> [T; WARP_SIZE] {
    let mut o = [T::default(); WARP_SIZE];
    for l in 0..WARP_SIZE {
        o[l] = T::from64(f(a[l].to64(), b[l].to64(), c[l].to64()));
    }
    o
}

/// [`map3_lanes`] compiled for AVX2. The CPU must support it.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn map3_avx2<T: Lane>(
    a: &[T; WARP_SIZE],
    b: &[T; WARP_SIZE],
    c: &[T; WARP_SIZE],
    f: impl Fn(u64, u64, u64) -> u64,
) -> [T; WARP_SIZE] {
    map3_lanes(a, b, c, f)
}

/// Not inlined: with the operands as plain references here, the loop is vectorised (inlined,
/// the compiler chose between a borrowed register and a computed operand once per lane).
#[inline(never)]
pub(super) fn map3<T: Lane>(
    a: &[T; WARP_SIZE],
    b: &[T; WARP_SIZE],
    c: &[T; WARP_SIZE],
    f: impl Fn(u64, u64, u64) -> u64,
) -> [T; WARP_SIZE] {
    #[cfg(target_arch = "x86_64")]
    if avx2() {
        // SAFETY: the CPU supports AVX2 (checked just above).
        return unsafe { map3_avx2(a, b, c, f) };
    }
    map3_lanes(a, b, c, f)
}

/// `fma.rn.f32` of all lanes (a single rounding, as [`f32::mul_add`] and `arith::f32_fma` with
/// `.rn`). Where the CPU has the FMA instruction the 32 lanes are computed by it, 8 at a time
/// (glibc's `fmaf`, which `mul_add` calls without that target feature, uses the same
/// instruction on such CPUs); elsewhere `mul_add` per lane.
fn fma_f32<T: Lane>(a: &[T; WARP_SIZE], b: &[T; WARP_SIZE], c: &[T; WARP_SIZE]) -> [T; WARP_SIZE] {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU supports the `fma` target feature (checked just above).
        return unsafe { fma_f32_hw(a, b, c) };
    }
    map3(a, b, c, fma_lane)
}

/// The f32 value in the low half of a register.
#[inline(always)]
fn f32v(v: u64) -> f32 {
    f32::from_bits(v as u32)
}

// The f32 fast paths are round-to-nearest only (the decoder's condition), and compute what
// `arith::f32_*` compute with `.rn`: the native operations. They are written out here because
// the rounding mode is not constant-folded through the non-inlined `map2`.

/// One lane of `add.rn.f32` on register bits.
#[inline(always)]
fn add_f32_lane(x: u64, y: u64) -> u64 {
    (f32v(x) + f32v(y)).to_bits() as u64
}

/// One lane of `sub.rn.f32`: `a + (-b)`, as `arith::f32_sub` computes it.
#[inline(always)]
fn sub_f32_lane(x: u64, y: u64) -> u64 {
    (f32v(x) + -f32v(y)).to_bits() as u64
}

/// One lane of `mul.rn.f32` on register bits.
#[inline(always)]
fn mul_f32_lane(x: u64, y: u64) -> u64 {
    (f32v(x) * f32v(y)).to_bits() as u64
}

/// One lane of `fma.rn.f32` on register bits.
#[inline(always)]
fn fma_lane(x: u64, y: u64, z: u64) -> u64 {
    f32v(x).mul_add(f32v(y), f32v(z)).to_bits() as u64
}

/// [`fma_f32`] compiled with the `fma` target feature, so `mul_add` is the instruction.
///
/// # Safety
/// The CPU must support the `fma` target feature.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
unsafe fn fma_f32_hw<T: Lane>(
    a: &[T; WARP_SIZE],
    b: &[T; WARP_SIZE],
    c: &[T; WARP_SIZE],
) -> [T; WARP_SIZE] {
    let mut o = [T::default(); WARP_SIZE];
    for l in 0..WARP_SIZE {
        o[l] = T::from64(fma_lane(a[l].to64(), b[l].to64(), c[l].to64()));
    }
    o
}

/// Executes a [`Fast`] ALU instruction: all lanes computed, active lanes committed. On 32-bit
/// lanes when the destination is in the 32-bit bank and the operation's low 32 result bits
/// depend only on the operands' low 32 bits (all but the 64-bit right shifts): the destination
/// keeps only those bits ([`DInst::fmask`] is at most 32 bits wide there).
pub(super) fn fast_alu(inst: &DInst, regs: &mut Regs, active: u32) {
    if inst.d[0] & WIDE == 0 && !matches!(inst.fast, Fast::ShrU64 | Fast::ShrS64) {
        fast_alu_in::<u32>(inst, regs, active);
    } else {
        fast_alu_in::<u64>(inst, regs, active);
    }
}

/// [`fast_alu`] on `T` lanes.
#[inline(always)]
fn fast_alu_in<T: Lane>(inst: &DInst, regs: &mut Regs, active: u32) {
    let a = operand::<T>(regs, inst.s[0]);
    let b = if inst.ns > 1 {
        operand::<T>(regs, inst.s[1])
    } else {
        Lanes::Ref(T::zeros())
    };
    let out = match inst.fast {
        Fast::Add => map2(&a, &b, |x, y| x.wrapping_add(y)),
        Fast::Sub => map2(&a, &b, |x, y| x.wrapping_sub(y)),
        Fast::MulLo => map2(&a, &b, |x, y| x.wrapping_mul(y)),
        Fast::MadLo => {
            let c = operand::<T>(regs, inst.s[2]);
            map3(&a, &b, &c, |x, y, z| x.wrapping_mul(y).wrapping_add(z))
        }
        Fast::MulWideU32 => map2(&a, &b, |x, y| (x & 0xffff_ffff) * (y & 0xffff_ffff)),
        Fast::MulWideS32 => map2(&a, &b, |x, y| {
            ((x as i32 as i64) * (y as i32 as i64)) as u64
        }),
        Fast::And => map2(&a, &b, |x, y| x & y),
        Fast::Or => map2(&a, &b, |x, y| x | y),
        Fast::Xor => map2(&a, &b, |x, y| x ^ y),
        Fast::Shl32 => map2(
            &a,
            &b,
            |x, y| if (y as u32) >= 32 { 0 } else { x << (y as u32) },
        ),
        Fast::Shl64 => map2(
            &a,
            &b,
            |x, y| if (y as u32) >= 64 { 0 } else { x << (y as u32) },
        ),
        Fast::ShrU32 => map2(&a, &b, |x, y| {
            if (y as u32) >= 32 {
                0
            } else {
                (x & 0xffff_ffff) >> (y as u32)
            }
        }),
        Fast::ShrU64 => map2(
            &a,
            &b,
            |x, y| if (y as u32) >= 64 { 0 } else { x >> (y as u32) },
        ),
        Fast::ShrS32 => map2(&a, &b, |x, y| {
            ((x as i32) >> (y as u32).min(31)) as u32 as u64
        }),
        Fast::ShrS64 => map2(&a, &b, |x, y| ((x as i64) >> (y as u32).min(63)) as u64),
        Fast::Selp => {
            let c = operand::<T>(regs, inst.s[2]);
            map3(&a, &b, &c, |x, y, p| if p & 1 != 0 { x } else { y })
        }
        Fast::MinS32 => map2(&a, &b, |x, y| (x as i32).min(y as i32) as u32 as u64),
        Fast::MaxS32 => map2(&a, &b, |x, y| (x as i32).max(y as i32) as u32 as u64),
        Fast::MinU32 => map2(&a, &b, |x, y| (x as u32).min(y as u32) as u64),
        Fast::MaxU32 => map2(&a, &b, |x, y| (x as u32).max(y as u32) as u64),
        Fast::CvtU64U32 => map2(&a, &b, |x, _| x & 0xffff_ffff),
        Fast::CvtS64S32 => map2(&a, &b, |x, _| x as i32 as i64 as u64),
        Fast::AddF32 => map2(&a, &b, add_f32_lane),
        Fast::MulF32 => map2(&a, &b, mul_f32_lane),
        Fast::SubF32 => map2(&a, &b, sub_f32_lane),
        Fast::NegF32 => map2(&a, &b, |x, _| x ^ 0x8000_0000),
        Fast::AbsF32 => map2(&a, &b, |x, _| x & 0x7fff_ffff),
        Fast::Not => map2(&a, &b, |x, _| !x),
        Fast::Neg => map2(&a, &b, |x, _| x.wrapping_neg()),
        Fast::AndPred => map2(&a, &b, |x, y| x & y & 1),
        Fast::OrPred => map2(&a, &b, |x, y| (x | y) & 1),
        Fast::XorPred => map2(&a, &b, |x, y| (x ^ y) & 1),
        Fast::NotPred => map2(&a, &b, |x, _| !x & 1),
        Fast::CvtU32Wide => map2(&a, &b, |x, _| x & 0xffff_ffff),
        Fast::Copy => *a,
        Fast::FmaF32 => {
            let c = operand::<T>(regs, inst.s[2]);
            fma_f32(&a, &b, &c)
        }
        Fast::None => unreachable!("fast_alu without a fast path"),
    };
    commit(regs, inst.d[0], inst.fmask, &out, active);
}

/// Global loads and stores whose lanes all fall in the allocation of the first active lane:
/// one allocation lookup per instruction. Returns `false` (having changed nothing) when some lane
/// is elsewhere, so the general path handles it and reports faults.
#[inline]
pub(super) fn global_fast<const TRACE: bool>(
    gmem: &mut GlobalMem,
    inst: &DInst,
    regs: &mut Regs,
    active: u32,
    out: &mut DynInst,
) -> bool {
    let is_st = inst.k == K::St;
    let nel = if is_st {
        inst.ns as usize - 1
    } else {
        inst.nd as usize
    };
    let eb = inst.elem_bytes as u64;
    let span = eb * nel as u64;
    let base_lanes = operand::<u64>(regs, inst.s[0]);
    // One borrow of the lanes (not the operand's variant test at every lane).
    let base_src: &[u64; WARP_SIZE] = &base_lanes;
    let off = inst.addr_off as u64;
    let first = active.trailing_zeros() as usize;
    let a0 = base_src[first].wrapping_add(off);
    let Some((lo, data)) = gmem.alloc_at(a0) else {
        return false;
    };
    // Lane `l`'s `span` bytes at `a` lie in `[lo, lo + len)` exactly when its offset
    // `a - lo`, taken modulo 2^64, is at most `len - span`: an address below `lo` wraps to an
    // offset above `2^64 - lo`, which exceeds `len - span` as the allocation ends below 2^64.
    // One unsigned comparison per lane, without branches, so a full warp's loop is vectorised.
    let Some(lim) = (data.len() as u64).checked_sub(span) else {
        return false;
    };
    let mut bad = 0u64;
    let mut at = [0usize; WARP_SIZE];
    each_lane!(active, l, {
        let d = base_src[l].wrapping_add(off).wrapping_sub(lo);
        bad |= (d > lim) as u64;
        at[l] = d as usize;
    });
    if bad != 0 {
        return false;
    }
    if !move_sized(eb, data, inst, regs, active, &at, nel, is_st) {
        return false;
    }
    if TRACE {
        if let Some(mem) = out.mem.as_mut() {
            // Each lane's address, `lo` plus its offset (the base register may have been
            // overwritten by the load).
            lanes_or_all(active, |l| mem.addrs[l] = lo.wrapping_add(at[l] as u64));
        }
    }
    true
}

/// `ld.shared`/`st.shared` of a warp whose every active lane's elements lie inside the CTA's
/// shared memory `shared`: the element loop of [`move_lanes`] over the shared bytes, no
/// per-lane space dispatch or bounds check. Returns false, having changed nothing, when the
/// general path must run (a lane out of bounds, whose fault it reports; an element size other
/// than 1, 2, 4 or 8 bytes; no active lane). Values, registers, the byte order of overlapping
/// vector stores (lane by lane, as the general path) and the recorded per-lane addresses are
/// those of the general path.
pub(super) fn shared_fast<const TRACE: bool>(
    shared: &mut [u8],
    inst: &DInst,
    regs: &mut Regs,
    active: u32,
    out: &mut DynInst,
) -> bool {
    let is_st = inst.k == K::St;
    let nel = if is_st {
        inst.ns as usize - 1
    } else {
        inst.nd as usize
    };
    if active == 0 {
        return false;
    }
    let eb = inst.elem_bytes as u64;
    let span = eb * nel as u64;
    let base_src = fetch(regs, inst.s[0]);
    let off = inst.addr_off as u64;
    let len = shared.len() as u64;
    let mut ok = true;
    let mut at = [0usize; WARP_SIZE];
    each_lane!(active, l, {
        let a = base_src[l].wrapping_add(off);
        // All `nel` elements in bounds (the general path checks each element's end).
        ok &= a <= len && span <= len - a;
        at[l] = a as usize;
    });
    if !ok {
        return false;
    }
    if !move_sized(eb, shared, inst, regs, active, &at, nel, is_st) {
        return false;
    }
    if TRACE {
        if let Some(mem) = out.mem.as_mut() {
            lanes_or_all(active, |l| mem.addrs[l] = base_src[l].wrapping_add(off));
            mem.space = MemSpace::Shared;
        }
    }
    true
}

/// [`move_lanes`] with the element size `eb` as a constant in each copy of the lane loops (no
/// size dispatch per lane). Returns false, having changed nothing, for a size other than 1, 2, 4
/// or 8 bytes or more than 4 elements (wider than `.v4`, which decode refuses): the general
/// path's cases.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn move_sized(
    eb: u64,
    data: &mut [u8],
    inst: &DInst,
    regs: &mut Regs,
    active: u32,
    at: &[usize; WARP_SIZE],
    nel: usize,
    is_st: bool,
) -> bool {
    if nel > 4 {
        return false;
    }
    match eb {
        1 => move_lanes::<1>(data, inst, regs, active, at, nel, is_st),
        2 => move_lanes::<2>(data, inst, regs, active, at, nel, is_st),
        4 => move_lanes::<4>(data, inst, regs, active, at, nel, is_st),
        8 => move_lanes::<8>(data, inst, regs, active, at, nel, is_st),
        _ => return false,
    }
    true
}

/// The data movement of [`global_fast`] for `EB`-byte elements: `nel` elements per lane between the
/// registers and `data`, lane `l`'s first element at byte `at[l]` (checked in bounds). Vector
/// stores go lane by lane (all elements of a lane, then the next lane), the general path's order,
/// so that lanes whose vectors overlap leave the same bytes; loads and scalar stores go element
/// by element over all lanes (the same result: loads do not write memory, and a scalar store
/// writes its lanes in order either way).
#[inline(always)]
fn move_lanes<const EB: usize>(
    data: &mut [u8],
    inst: &DInst,
    regs: &mut Regs,
    active: u32,
    at: &[usize; WARP_SIZE],
    nel: usize,
    is_st: bool,
) {
    if is_st {
        // The lane width chosen once per instruction: an element of at most 4 bytes is the
        // value's low 32 bits, read on 32-bit lanes (no widening copy of a 32-bit register).
        if EB <= 4 {
            store_lanes::<EB, u32>(data, inst, regs, active, at, nel);
        } else {
            store_lanes::<EB, u64>(data, inst, regs, active, at, nel);
        }
    } else {
        // `load_ext`, with the sign extension's width decided once (64: none).
        let t = inst.op.ty.unwrap_or(ScalarType::B32);
        let sx = if t.is_signed() && t.size() < 8 {
            bits(t)
        } else {
            64
        };
        for j in 0..nel {
            let (d, m) = (inst.d[j], inst.dmask[j]);
            let i = (d & !WIDE) as usize;
            if d & WIDE != 0 {
                load_lanes::<EB, u64>(data, &mut regs.wide[i], m, sx, active, at, j);
            } else {
                load_lanes::<EB, u32>(data, &mut regs.narrow[i], m, sx, active, at, j);
            }
        }
    }
}

/// The stores of [`move_lanes`]: `nel` elements (sources `s[1..=nel]`, at most 4: decode
/// refuses vectors wider than `.v4`) of each active lane, read as `T` lanes (`T` at least `EB`
/// bytes wide), the low `EB` bytes of each written at `at[l] + j * EB`. A vector store goes lane
/// by lane, every element of a lane before the next lane, as the general path writes: where two
/// lanes' vectors overlap, the higher lane's bytes stay. Its elements' lanes are fetched first
/// (one bank test per element, not per lane).
#[inline(always)]
fn store_lanes<const EB: usize, T: Lane>(
    data: &mut [u8],
    inst: &DInst,
    regs: &Regs,
    active: u32,
    at: &[usize; WARP_SIZE],
    nel: usize,
) {
    if nel == 1 {
        let v = operand::<T>(regs, inst.s[1]);
        each_lane!(active, l, { st_le::<EB>(data, at[l], v[l].to64()) });
    } else {
        let mut v = [[T::default(); WARP_SIZE]; 4];
        for (j, vj) in v.iter_mut().enumerate().take(nel) {
            *vj = *operand::<T>(regs, inst.s[1 + j]);
        }
        each_lane!(active, l, {
            for (j, vj) in v.iter().enumerate().take(nel) {
                st_le::<EB>(data, at[l] + j * EB, vj[l].to64());
            }
        });
    }
}

/// Element `j` of each active lane's load (`EB` bytes at `at[l] + j * EB`), extended from `sx`
/// bits and masked by `m`, into one bank's row.
#[inline(always)]
fn load_lanes<const EB: usize, T: Lane>(
    data: &[u8],
    dst: &mut [T; WARP_SIZE],
    m: u64,
    sx: u32,
    active: u32,
    at: &[usize; WARP_SIZE],
    j: usize,
) {
    each_lane!(active, l, {
        let v = ld_le::<EB>(data, at[l] + j * EB);
        dst[l] = T::from64(sext(v, sx) as u64 & m);
    });
}

/// `ld.param` of a kernel parameter by a warp whose active lanes all read the same address
/// (the usual case: an immediate address): the value is read and extended once and written to
/// every active lane. Returns false, having changed nothing, when the general path must run (a
/// function parameter, [`FPARAM_TAG`]; lanes at different addresses; an element past the end of
/// the parameter buffer, whose fault it reports; no active lane). Registers and the recorded
/// per-lane addresses are those of the general path.
pub(super) fn param_fast<const TRACE: bool>(
    params: &[u8],
    inst: &DInst,
    regs: &mut Regs,
    active: u32,
    out: &mut DynInst,
) -> bool {
    if active == 0 {
        return false;
    }
    let off = inst.addr_off as u64;
    let a0 = if let Src::I(v) = inst.s[0] {
        // An immediate address (the usual `ld.param [name]`): the same for every lane.
        let a0 = v.wrapping_add(off);
        if a0 >= FPARAM_TAG {
            return false;
        }
        a0
    } else {
        let base = operand::<u64>(regs, inst.s[0]);
        let a0 = base[active.trailing_zeros() as usize].wrapping_add(off);
        let mut same = true;
        lanes_or_all(active, |l| same &= base[l].wrapping_add(off) == a0);
        if !same || a0 >= FPARAM_TAG {
            return false;
        }
        a0
    };
    let nel = inst.nd as usize;
    let eb = inst.elem_bytes as u64;
    if !matches!(eb, 1 | 2 | 4 | 8) {
        return false;
    }
    // Every element inside the buffer (the general path checks each element's end).
    match a0.checked_add(eb * nel as u64) {
        Some(end) if end <= params.len() as u64 => {}
        _ => return false,
    }
    let t = inst.op.ty.unwrap_or(ScalarType::B32);
    for j in 0..nel {
        let at = (a0 + j as u64 * eb) as usize;
        let v = super::mem::load_ext(crate::memory::load_le(&params[at..], eb as u32), t)
            & inst.dmask[j];
        fill(regs, inst.d[j], v, active);
    }
    if TRACE {
        if let Some(mem) = out.mem.as_mut() {
            lanes_or_all(active, |l| mem.addrs[l] = a0);
            mem.space = MemSpace::Param;
        }
    }
    true
}

/// `setp.CMP.{s,u,b}{32,64}` without a boolean combiner: each lane's predicate computed as a
/// 0/1 register value in one vectorised pass ([`map2`]), then written to the active lanes of
/// the destination (and its complement to the second destination), with no per-lane bit
/// packing and unpacking. Operands are truncated to the type's width; the comparison is the
/// unsigned order of the truncated values with the sign bit flipped for signed types
/// ([`cmp_key`]), the same order as the general path's `alu::compare`.
pub(super) fn setp_int(inst: &DInst, regs: &mut Regs, active: u32) {
    use warpforge_ptx::CmpOp::*;
    let t = inst.op.ty.unwrap_or(ScalarType::B32);
    let n = bits(t);
    let tm = trunc(u64::MAX, n);
    let flip = if t.is_signed() { 1u64 << (n - 1) } else { 0 };
    // Flipping bit 63 as well turns the unsigned order into the signed order of `i64`, which
    // x86-64-v2 compares two lanes at a time (`pcmpgtq`).
    let bias = flip ^ (1u64 << 63);
    let key = move |x: u64| cmp_key(x, tm, bias);
    let cmp = inst.op.cmp.unwrap_or(Eq);
    // A 32-bit comparison reads only the operands' low 32 bits: 32-bit lanes.
    let o: [u32; WARP_SIZE] = if n <= 32 {
        let a = operand::<u32>(regs, inst.s[0]);
        let b = operand::<u32>(regs, inst.s[1]);
        setp_lanes(cmp, &a, &b, tm, key)
    } else {
        let a = operand::<u64>(regs, inst.s[0]);
        let b = operand::<u64>(regs, inst.s[1]);
        setp_lanes(cmp, &a, &b, tm, key)
    };
    commit(regs, inst.d[0], 1, &o, active);
    if inst.nd > 1 {
        let mut not = o;
        not.iter_mut().for_each(|v| *v ^= 1);
        commit(regs, inst.d[1], 1, &not, active);
    }
}

/// The 0/1 predicate of each lane of [`setp_int`], on `T` lanes.
#[inline(always)]
fn setp_lanes<T: Lane>(
    cmp: warpforge_ptx::CmpOp,
    a: &[T; WARP_SIZE],
    b: &[T; WARP_SIZE],
    tm: u64,
    key: impl Fn(u64) -> i64 + Copy,
) -> [u32; WARP_SIZE] {
    use warpforge_ptx::CmpOp::*;
    match cmp {
        Eq | Equ => map2(a, b, move |x, y| (x & tm == y & tm) as u64),
        Ne | Neu => map2(a, b, move |x, y| (x & tm != y & tm) as u64),
        Lt | Lo | Ltu => map2(a, b, move |x, y| (key(x) < key(y)) as u64),
        Le | Ls | Leu => map2(a, b, move |x, y| (key(x) <= key(y)) as u64),
        Gt | Hi | Gtu => map2(a, b, move |x, y| (key(x) > key(y)) as u64),
        Ge | Hs | Geu => map2(a, b, move |x, y| (key(x) >= key(y)) as u64),
        Num => [1; WARP_SIZE],
        Nan => [0; WARP_SIZE],
    }
}

/// The signed 64-bit key of `x` for an integer comparison: `x` truncated by `tm` (the type's
/// all-ones value), then `bias` (bit 63, and the type's sign bit for signed types) flipped.
/// Keys compare as `i64` in the order the type's values compare.
#[inline(always)]
fn cmp_key(x: u64, tm: u64, bias: u64) -> i64 {
    ((x & tm) ^ bias) as i64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arith;
    use proptest::prelude::*;
    use warpforge_ptx::Rounding::Rn;

    /// Register bits whose low half exercises f32 rounding: any pattern (NaNs with payloads,
    /// infinities, subnormals), nearby exponents (cancellation), huge and tiny values.
    fn f32_bits() -> impl Strategy<Value = u64> {
        prop_oneof![
            3 => any::<u64>(),
            2 => (any::<u32>(), 100u32..150).prop_map(|(m, e)| ((m & 0x807F_FFFF) | (e << 23)) as u64),
            1 => (any::<u32>(), 0u32..3).prop_map(|(m, e)| ((m & 0x807F_FFFF) | (e << 23)) as u64),
            1 => (any::<u32>(), 250u32..256).prop_map(|(m, e)| ((m & 0x807F_FFFF) | (e << 23)) as u64),
        ]
    }

    fn warp() -> impl Strategy<Value = [u64; WARP_SIZE]> {
        proptest::collection::vec(f32_bits(), WARP_SIZE).prop_map(|v| v.try_into().unwrap())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// The native round-to-nearest lanes give exactly what the general path's
        /// `arith::f32_*` give with `.rn`, for all 32 lanes of a warp. A NaN result is a NaN
        /// in both; which operand's payload it carries is not specified (Rust's float
        /// operations do not fix it: the compiler may commute an addition, and does in the
        /// vectorised loop).
        #[test]
        fn fast_f32_lanes_match_arith_rn((a, b, c) in (warp(), warp(), warp())) {
            let bits = |x: f32| x.to_bits() as u64;
            let same = |got: u64, want: u64| {
                got == want || (f32v(got).is_nan() && f32v(want).is_nan() && got >> 32 == 0)
            };
            let fma = fma_f32(&a, &b, &c);
            let add = map2(&a, &b, add_f32_lane);
            let sub = map2(&a, &b, sub_f32_lane);
            let mul = map2(&a, &b, mul_f32_lane);
            for l in 0..WARP_SIZE {
                let (x, y, z) = (f32v(a[l]), f32v(b[l]), f32v(c[l]));
                prop_assert!(same(add[l], bits(arith::f32_add(x, y, Rn))), "add {:e} {:e}", x, y);
                prop_assert!(same(sub[l], bits(arith::f32_sub(x, y, Rn))), "sub {:e} {:e}", x, y);
                prop_assert!(same(mul[l], bits(arith::f32_mul(x, y, Rn))), "mul {:e} {:e}", x, y);
                prop_assert!(same(fma[l], bits(arith::f32_fma(x, y, z, Rn))), "fma {:e} {:e} {:e}", x, y, z);
            }
        }
    }
}
