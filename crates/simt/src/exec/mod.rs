//! The SIMT executor: warps, the reconvergence stack, call frames, barriers and the execution of
//! one warp instruction.
//!
//! Divergence follows the immediate-post-dominator (IPDOM) stack of GPGPU-Sim: a divergent branch
//! turns the top entry into the reconvergence entry (pc = the branch's IPDOM, full mask) and
//! pushes the not-taken and taken paths (taken on top); an entry is popped when its pc reaches its
//! reconvergence pc or its mask empties. `call` pushes an entry for the callee (its reconvergence
//! pc is [`RPC_EXIT`]) and a [`Frame`]; lanes executing `ret` leave every entry of their frame,
//! and `exit` removes lanes from every entry.
//!
//! Barriers count arrivals in warps of 32 threads, as hardware does: a barrier without a thread
//! count completes when every non-exited warp of the CTA has arrived (exited warps are no longer
//! waited for, as in GPGPU-Sim); with a count `b` it completes when `b` threads (warps × 32) have
//! arrived. `bar.sync` executed by part of a warp's live threads is reported as a divergent
//! barrier, which the IPDOM model cannot complete.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use warpforge_core::{Dim3, DynInst, MemAccess, MemSpace, WARP_SIZE};
use warpforge_ptx::{AtomOp, BarMode, ScalarType, ShflMode, VoteMode};

use crate::alu::{self, bits, sext, trunc};
use crate::memory::{flat_load, flat_store, resolve_generic, window_base, Fault, GlobalMem};
use crate::program::{
    sp, CallVal, DInst, Fast, KernelCode, Space, Src, FPARAM_TAG, K, PC_STRIDE, RPC_EXIT, WIDE,
};

mod fast;
mod mem;
mod regs;
use fast::*;
use mem::*;
pub use regs::Regs;

/// Texture element format of a binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TexFormat {
    /// 32-bit floats.
    F32,
    /// 32-bit unsigned integers.
    U32,
    /// 32-bit signed integers.
    S32,
}

/// A texture reference bound to linear device memory (see [`crate::Device::bind_texture`]).
///
/// Fetches use point sampling with clamp addressing on unnormalised coordinates: a `.s32`
/// coordinate is the element index, an `.f32` coordinate is floored. Element `(x, y)` lives at
/// `ptr + y * pitch + x * channels * 4`; the fetched channels are returned as raw 32-bit element
/// bits in the destination's first `channels` registers, the others get 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TexBinding {
    /// Base device address.
    pub ptr: u64,
    /// Element format.
    pub format: TexFormat,
    /// Channels per element, 1, 2 or 4.
    pub channels: u8,
    /// Width in elements.
    pub width: u32,
    /// Height in rows (1 for 1D).
    pub height: u32,
    /// Bytes between rows (2D).
    pub pitch: u64,
}

/// One SIMT-stack entry.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    /// Next instruction (code index).
    pub pc: u32,
    /// Reconvergence point (code index or [`RPC_EXIT`]).
    pub rpc: u32,
    /// Lanes of this path.
    pub mask: u32,
}

/// A call in progress.
#[derive(Debug, Clone, Copy)]
pub struct Frame {
    /// Stack index of the callee's base entry.
    pub depth: usize,
    /// Code index of the `call`.
    pub call: u32,
}

/// Per-warp state.
#[derive(Debug, Default)]
pub struct Warp {
    /// Register file in two banks, by physical slot ([`KernelCode::phys`]).
    pub regs: Regs,
    /// SIMT stack.
    pub stack: Vec<Entry>,
    /// Call frames.
    pub frames: Vec<Frame>,
    /// Lanes that exist and have not exited.
    pub live: u32,
    /// Local memory, `local_bytes` per lane, lane-major.
    pub local: Vec<u8>,
    /// Function-parameter area, `fparam_bytes` per lane.
    pub fparam: Vec<u8>,
    /// Waiting at this barrier (functional scheduling and `bar.red` results).
    pub waiting: Option<u8>,
    /// Destination slot of a pending `bar.red`.
    pub red_dst: u32,
    /// Executed warp instructions (drives `%clock`).
    pub executed: u64,
    /// Executed thread instructions (active lanes summed).
    pub thread_insts: u64,
    /// Executed stores and atomics with at least one active lane (the endless-kernel guard
    /// counts them as forward progress).
    pub writes: u64,
}

/// Barrier state.
#[derive(Debug, Clone, Copy, Default)]
pub struct Barrier {
    /// Threads arrived (warps × 32).
    pub arrived: u32,
    /// Thread count of this barrier instance (0 = all live warps).
    pub expected: u32,
    /// Warps waiting (bit per warp).
    pub waiters: u64,
    /// `bar.red.popc` count / `.and` / `.or` accumulators.
    pub popc: u32,
    /// All predicates true so far.
    pub all: bool,
    /// Some predicate true so far.
    pub any: bool,
    /// Reduction of this instance.
    pub red: Option<AtomOp>,
    /// Static index of the first arriving `bar` (for deadlock reports).
    pub pc: u32,
}

/// Per-CTA state.
#[derive(Debug, Default)]
pub struct Cta {
    /// Linear CTA id.
    pub id: u32,
    /// CTA coordinates.
    pub idx: Dim3,
    /// SM it runs on (for `%smid`).
    pub sm: u32,
    /// Warps.
    pub warps: Vec<Warp>,
    /// Shared memory.
    pub shared: Vec<u8>,
    /// Barriers 0..15.
    pub bars: [Barrier; 16],
    /// Warps not yet exited.
    pub live_warps: u32,
}

/// A functional fault, before it is dressed with kernel and CTA names.
#[derive(Debug, Clone)]
pub struct ExecFault {
    /// Warp index in the CTA.
    pub warp: u32,
    /// Lane, when one lane is at fault.
    pub lane: Option<u32>,
    /// Code index.
    pub pc: u32,
    /// What happened.
    pub msg: String,
}

/// Outcome of one step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// The warp can continue.
    Go,
    /// The warp waits at a barrier.
    Wait,
    /// All threads of the warp have exited.
    Exited,
}

/// Everything an executing warp needs beyond its CTA.
pub struct Env<'a> {
    /// The decoded kernel.
    pub code: &'a KernelCode,
    /// Global memory.
    pub gmem: &'a mut GlobalMem,
    /// Constant bank.
    pub cbank: &'a [u8],
    /// Kernel parameter buffer.
    pub params: &'a [u8],
    /// Texture bindings by name.
    pub tex: &'a BTreeMap<String, TexBinding>,
    /// Grid extent.
    pub grid: Dim3,
    /// Block extent.
    pub block: Dim3,
    /// Dynamic shared bytes.
    pub dyn_shared: u32,
    /// Number of SMs reported by `%nsmid`.
    pub nsm: u32,
}

const FULL: u32 = u32::MAX;

/// The lane-dependent special registers, the same in every warp: `%laneid`, `%lanemask_eq`,
/// `%lanemask_le`, `%lanemask_lt`, `%lanemask_ge`, `%lanemask_gt` (32-bit masks), by lane.
const LANE_ROWS: [[u64; WARP_SIZE]; 6] = {
    let m32 = 0xffff_ffffu64;
    let mut rows = [[0u64; WARP_SIZE]; 6];
    let mut l = 0;
    while l < WARP_SIZE {
        rows[0][l] = l as u64;
        rows[1][l] = 1u64 << l;
        rows[2][l] = ((2u64 << l) - 1) & m32;
        rows[3][l] = (1u64 << l) - 1;
        rows[4][l] = !((1u64 << l) - 1) & m32;
        rows[5][l] = !((2u64 << l) - 1) & m32;
        l += 1;
    }
    rows
};

impl Env<'_> {
    /// Prepares CTA `id` in `cta` (reusing its buffers).
    pub fn init_cta(&self, cta: &mut Cta, id: u32, sm: u32) {
        let code = self.code;
        let nthreads = self.block.size() as u32;
        let nwarps = nthreads.div_ceil(32) as usize;
        cta.id = id;
        cta.idx = self.grid.unlinear(id as u64);
        cta.sm = sm;
        let shared = (code.shared_static as u64).div_ceil(code.dyn_shared_align as u64)
            * code.dyn_shared_align as u64
            + self.dyn_shared as u64;
        cta.shared.clear();
        cta.shared.resize(shared as usize, 0);
        cta.bars = [Barrier::default(); 16];
        cta.live_warps = nwarps as u32;
        cta.warps.resize_with(nwarps, Warp::default);
        let sb = code.wide_special_base as usize;
        // A one-dimensional block: `%tid` by lane without `Dim3::unlinear`'s three divisions.
        let linear = self.block.y == 1 && self.block.z == 1;
        for (w, warp) in cta.warps.iter_mut().enumerate() {
            // Every register starts at zero.
            warp.regs.reset(code);
            let first = w as u32 * 32;
            let n = (nthreads - first).min(32);
            warp.live = if n == 32 { FULL } else { (1u32 << n) - 1 };
            warp.stack.clear();
            warp.stack.push(Entry {
                pc: 0,
                rpc: RPC_EXIT,
                mask: warp.live,
            });
            warp.frames.clear();
            warp.local.clear();
            warp.local.resize(code.local_bytes as usize * 32, 0);
            warp.fparam.clear();
            warp.fparam.resize(code.fparam_bytes as usize * 32, 0);
            warp.waiting = None;
            warp.executed = 0;
            warp.thread_insts = 0;
            warp.writes = 0;
            // The special registers (the other slots are zero): the same value in every lane
            // for most, written as whole rows; per lane the thread index, lane id and masks.
            let r = &mut warp.regs.wide[sb..sb + sp::COUNT as usize];
            let uniform = [
                (sp::NTID, self.block.x as u64),
                (sp::NTID + 1, self.block.y as u64),
                (sp::NTID + 2, self.block.z as u64),
                (sp::CTAID, cta.idx.x as u64),
                (sp::CTAID + 1, cta.idx.y as u64),
                (sp::CTAID + 2, cta.idx.z as u64),
                (sp::NCTAID, self.grid.x as u64),
                (sp::NCTAID + 1, self.grid.y as u64),
                (sp::NCTAID + 2, self.grid.z as u64),
                (sp::WARPID, w as u64),
                (sp::NWARPID, 64),
                (sp::SMID, sm as u64),
                (sp::NSMID, self.nsm as u64),
                (sp::GRIDID, 0),
                (sp::TOTAL_SMEM, shared),
                (sp::DYN_SMEM, self.dyn_shared as u64),
            ];
            for (k, v) in uniform {
                r[k as usize] = [v; WARP_SIZE];
            }
            if linear {
                // `Dim3::unlinear` with y = z = 1: x = i mod x, y = 0, z = i / x (lanes past
                // the block's last thread included, as the general loop writes them).
                let bx = self.block.x as u64;
                let (xs, rest) = r[sp::TID as usize..].split_at_mut(1);
                for (l, (x, z)) in xs[0].iter_mut().zip(rest[1].iter_mut()).enumerate() {
                    let i = first as u64 + l as u64;
                    *x = (i % bx) as u32 as u64;
                    *z = (i / bx) as u32 as u64;
                }
            } else {
                for lane in 0..32u32 {
                    let t = self.block.unlinear((first + lane) as u64);
                    let l = lane as usize;
                    r[sp::TID as usize][l] = t.x as u64;
                    r[sp::TID as usize + 1][l] = t.y as u64;
                    r[sp::TID as usize + 2][l] = t.z as u64;
                }
            }
            r[sp::LANEID as usize] = LANE_ROWS[0];
            r[sp::LM_EQ as usize] = LANE_ROWS[1];
            r[sp::LM_LE as usize] = LANE_ROWS[2];
            r[sp::LM_LT as usize] = LANE_ROWS[3];
            r[sp::LM_GE as usize] = LANE_ROWS[4];
            r[sp::LM_GT as usize] = LANE_ROWS[5];
        }
    }

    /// Describes a fault for users: kernel, CTA, thread, PC and PTX line.
    pub fn describe(&self, cta: &Cta, f: &ExecFault) -> String {
        let code = self.code;
        let mut s = format!("{}:{}: kernel `{}`", code.file, code.line(f.pc), code.name);
        let _ = write!(s, ", CTA {}", cta.idx);
        match f.lane {
            Some(l) => {
                let t = self.block.unlinear((f.warp * 32 + l) as u64);
                let _ = write!(s, ", thread {} (warp {}, lane {})", t, f.warp, l);
            }
            None => {
                let _ = write!(s, ", warp {}", f.warp);
            }
        }
        let _ = write!(s, ", pc 0x{:x}", f.pc as u64 * PC_STRIDE);
        let func = code.func_of(f.pc);
        if func != code.name {
            let _ = write!(s, " (in .func `{func}`)");
        }
        let _ = write!(s, ": {}", f.msg);
        s
    }

    fn global_fault(&self, fault: Fault, what: &str) -> String {
        let mut msg = format!(
            "{what} of {} bytes at global address 0x{:x} is outside every allocation",
            fault.size, fault.addr
        );
        // Name the nearest allocation below the address.
        if let Some(a) = self
            .gmem
            .allocs()
            .iter()
            .rev()
            .find(|a| a.base <= fault.addr)
        {
            let _ = write!(
                msg,
                " (nearest below: `{}` at 0x{:x}, {} bytes, ends {} bytes before)",
                a.label,
                a.base,
                a.data.len(),
                fault.addr.saturating_sub(a.base + a.data.len() as u64)
            );
        }
        msg
    }
}

#[inline(always)]
fn rd(regs: &Regs, s: Src, lane: usize) -> u64 {
    match s {
        Src::R(r) => regs.get(r, lane),
        Src::N(r) => (regs.get(r, lane) & 1) ^ 1,
        Src::I(v) => v,
    }
}

#[inline(always)]
fn lanes(mut m: u32, mut f: impl FnMut(usize)) {
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        f(l);
    }
}

/// [`lanes`] with a counted loop when all lanes are active (the common case of the fast paths:
/// the compiler can unroll or vectorise it); the same lanes in the same order.
#[inline(always)]
fn lanes_or_all(m: u32, mut f: impl FnMut(usize)) {
    if m == FULL {
        for l in 0..WARP_SIZE {
            f(l);
        }
    } else {
        lanes(m, f);
    }
}

fn remove_lanes(w: &mut Warp, from: usize, gone: u32) {
    for e in &mut w.stack[from..] {
        e.mask &= !gone;
    }
    normalize(w);
}

/// Pops entries that reached their reconvergence point or have no lanes left.
#[inline]
fn normalize(w: &mut Warp) {
    while let Some(t) = w.stack.last() {
        if t.pc == t.rpc || t.mask == 0 {
            let depth = w.stack.len() - 1;
            w.stack.pop();
            if w.frames.last().is_some_and(|f| f.depth == depth) {
                w.frames.pop();
            }
        } else {
            break;
        }
    }
}

/// Executes the next instruction of warp `wi` of `cta`. With `TRACE`, fills `out`.
#[inline]
pub fn step<const TRACE: bool>(
    env: &mut Env,
    cta: &mut Cta,
    wi: usize,
    out: &mut DynInst,
) -> Result<Flow, ExecFault> {
    let code = env.code;
    let (pc, mask) = {
        let w = &cta.warps[wi];
        match w.stack.last() {
            Some(t) => (t.pc, t.mask),
            None => return Ok(Flow::Exited),
        }
    };
    let fault = |lane: Option<usize>, msg: String| ExecFault {
        warp: wi as u32,
        lane: lane.map(|l| l as u32),
        pc,
        msg,
    };
    let Some(inst) = code.insts.get(pc as usize) else {
        return Err(fault(
            None,
            "control reached the end of the code without ret or exit".into(),
        ));
    };
    let Cta {
        warps,
        shared,
        bars,
        ..
    } = cta;
    let w = &mut warps[wi];
    w.executed += 1;
    // Guard.
    let active = if inst.guard == u32::MAX {
        mask
    } else {
        let mut a = guard_bits(&w.regs, inst.guard);
        if inst.guard_neg {
            a = !a;
        }
        a & mask
    };
    w.thread_insts += active.count_ones() as u64;
    if active != 0 && matches!(inst.k, K::St | K::Atom) {
        w.writes += 1;
    }
    if inst.reads_clock {
        let sb = code.wide_special_base as usize;
        let c = w.executed;
        let r = &mut w.regs.wide;
        r[sb + sp::CLOCK as usize] = [c & 0xffff_ffff; WARP_SIZE];
        r[sb + sp::CLOCK_HI as usize] = [c >> 32; WARP_SIZE];
        r[sb + sp::CLOCK64 as usize] = [c; WARP_SIZE];
        r[sb + sp::GTIMER as usize] = [c; WARP_SIZE];
        r[sb + sp::GTIMER_LO as usize] = [c & 0xffff_ffff; WARP_SIZE];
        r[sb + sp::GTIMER_HI as usize] = [c >> 32; WARP_SIZE];
    }
    if TRACE {
        let t = &inst.tmpl;
        out.pc = pc as u64 * PC_STRIDE;
        out.static_idx = pc;
        out.active_mask = active;
        out.class = t.class;
        out.n_dst = t.n_dst;
        out.dst = t.dst;
        out.n_src = t.n_src;
        out.src = t.src;
        out.barrier_id = t.barrier_id;
        out.barrier_threads = t.barrier_threads;
        out.hints = t.hints;
        out.warp_exits = false;
        // Written in place: building the `Option<MemAccess>` (300 bytes) and moving it in
        // cost a copy per instruction, memory or not.
        match t.mem {
            Some((space, bytes, st, at)) => match &mut out.mem {
                Some(m) => {
                    m.space = space;
                    m.bytes_per_lane = bytes;
                    m.is_store = st;
                    m.is_atomic = at;
                    m.addrs = [0; WARP_SIZE];
                }
                slot => {
                    *slot = Some(MemAccess {
                        space,
                        bytes_per_lane: bytes,
                        is_store: st,
                        is_atomic: at,
                        addrs: [0; WARP_SIZE],
                    })
                }
            },
            None => out.mem = None,
        }
    }
    let mut flow = Flow::Go;
    match inst.k {
        K::Mov => {
            mov(inst, &mut w.regs, active);
            advance(w);
        }
        K::Alu if inst.fast != Fast::None => {
            fast_alu(inst, &mut w.regs, active);
            advance(w);
        }
        K::Alu => {
            let op = &inst.op;
            let (d, m) = (inst.d[0], inst.dmask[0]);
            let s = inst.s;
            let base = match inst.space {
                Space::Generic => 0,
                sp => window_base(sp.mem_space()),
            };
            if op.kind == warpforge_ptx::OpKind::Isspacep {
                lanes(active, |l| {
                    let a = rd(&w.regs, s[0], l);
                    let (sp, _) = resolve_generic(a);
                    w.regs.set(d, l, (sp == inst.space.mem_space()) as u64);
                });
            } else {
                lanes(active, |l| {
                    let r = &w.regs;
                    let v = alu::eval(
                        op,
                        base,
                        rd(r, s[0], l),
                        rd(r, s[1], l),
                        rd(r, s[2], l),
                        rd(r, s[3], l),
                    );
                    w.regs.set(d, l, v & m);
                });
            }
            advance(w);
        }
        K::Carry => {
            exec_carry(code, inst, w, active);
            advance(w);
        }
        K::Setp
            if inst.op.bool_op.is_none()
                && inst
                    .op
                    .ty
                    .is_some_and(|t| !t.is_float() && t.size() >= 4 && t.size() <= 8) =>
        {
            setp_int(inst, &mut w.regs, active);
            advance(w);
        }
        K::Setp => {
            let op = &inst.op;
            let t = op.ty.unwrap_or(ScalarType::B32);
            let cmp = op.cmp.unwrap_or(warpforge_ptx::CmpOp::Eq);
            let two = inst.nd > 1;
            let (p, q) = (inst.d[0], inst.d[1]);
            let s = inst.s;
            let has_c = inst.ns > 2;
            lanes(active, |l| {
                let r = &w.regs;
                let x = alu::compare(cmp, rd(r, s[0], l), rd(r, s[1], l), t, op.ftz);
                let c = !has_c || rd(r, s[2], l) & 1 != 0;
                let pv = alu::combine(op.bool_op, x, c);
                let qv = alu::combine(op.bool_op, !x, c);
                w.regs.set(p, l, pv as u64);
                if two {
                    w.regs.set(q, l, qv as u64);
                }
            });
            advance(w);
        }
        K::Pack => {
            let d = inst.d[0];
            let m = inst.dmask[0];
            let n = inst.ns as usize;
            let total = (64 - m.leading_zeros()).max(1);
            let eb = (total / n as u32).max(1);
            lanes(active, |l| {
                let mut v = 0u64;
                for j in 0..n {
                    v |= trunc(rd(&w.regs, inst.s[j], l), eb) << (eb * j as u32);
                }
                w.regs.set(d, l, v & m);
            });
            advance(w);
        }
        K::Unpack => {
            let n = inst.nd as usize;
            let total = inst.op.ty.map_or(64, bits);
            let eb = total / n as u32;
            let s = inst.s[0];
            lanes(active, |l| {
                let v = rd(&w.regs, s, l);
                for j in 0..n {
                    w.regs.set(
                        inst.d[j],
                        l,
                        trunc(v >> (eb * j as u32), eb) & inst.dmask[j],
                    );
                }
            });
            advance(w);
        }
        K::Ld | K::St
            if inst.space == Space::Global
                && active != 0
                && global_fast::<TRACE>(env.gmem, inst, &mut w.regs, active, out) =>
        {
            advance(w);
        }
        K::Ld | K::St
            if inst.space == Space::Shared
                && shared_fast::<TRACE>(shared, inst, &mut w.regs, active, out) =>
        {
            advance(w);
        }
        K::Ld
            if inst.space == Space::Param
                && param_fast::<TRACE>(env.params, inst, &mut w.regs, active, out) =>
        {
            advance(w);
        }
        K::Ld | K::St => {
            let is_st = inst.k == K::St;
            let t = inst.op.ty.unwrap_or(ScalarType::B32);
            let eb = inst.elem_bytes;
            let nel = if is_st {
                inst.ns as usize - 1
            } else {
                inst.nd as usize
            };
            let mut mm = Mem { env };
            let mut err = None;
            let mut tspace = None;
            let mut addrs = [0u64; WARP_SIZE];
            let mut m = active;
            while m != 0 {
                let l = m.trailing_zeros() as usize;
                m &= m - 1;
                let (_, acc0) = lane_address::<TRACE>(&w.regs, inst, l, &mut addrs, &mut tspace);
                for j in 0..nel {
                    let off = j as u64 * eb as u64;
                    let acc = match acc0 {
                        Acc::Global(a) => Acc::Global(a + off),
                        Acc::Shared(a) => Acc::Shared(a + off),
                        Acc::Local(a) => Acc::Local(a + off),
                        Acc::Const(a) => Acc::Const(a + off),
                        Acc::KParam(a) => Acc::KParam(a + off),
                        Acc::FParam(a) => Acc::FParam(a + off),
                    };
                    let r = if is_st {
                        let v = rd(&w.regs, inst.s[1 + j], l);
                        mm.store(shared, w, l, &acc, eb, v)
                    } else {
                        match mm.load(shared, w, l, &acc, eb) {
                            Ok(v) => {
                                w.regs.set(inst.d[j], l, load_ext(v, t) & inst.dmask[j]);
                                Ok(())
                            }
                            Err(e) => Err(e),
                        }
                    };
                    if let Err(e) = r {
                        err = Some((l, e));
                        break;
                    }
                }
                if err.is_some() {
                    break;
                }
            }
            if let Some((l, e)) = err {
                return Err(fault(Some(l), e));
            }
            if TRACE {
                record_addrs(out, &addrs, tspace);
            }
            advance(w);
        }
        K::Atom => {
            let op = inst.op.atom_op.unwrap_or(AtomOp::Add);
            let t = inst.op.ty.unwrap_or(ScalarType::B32);
            let size = inst.elem_bytes;
            let has_dst = inst.nd > 0;
            let mut mm = Mem { env };
            let mut addrs = [0u64; WARP_SIZE];
            let mut tspace = None;
            let mut m = active;
            while m != 0 {
                let l = m.trailing_zeros() as usize;
                m &= m - 1;
                let (addr, acc) = lane_address::<TRACE>(&w.regs, inst, l, &mut addrs, &mut tspace);
                if !matches!(acc, Acc::Global(_) | Acc::Shared(_)) {
                    return Err(fault(
                        Some(l),
                        format!("atomic on a non-global, non-shared address 0x{addr:x}"),
                    ));
                }
                let old = mm
                    .load(shared, w, l, &acc, size)
                    .map_err(|e| fault(Some(l), e))?;
                let b = rd(&w.regs, inst.s[1], l);
                let c = rd(&w.regs, inst.s[2], l);
                let new = atom_apply(op, t, old, b, c);
                mm.store(shared, w, l, &acc, size, new)
                    .map_err(|e| fault(Some(l), e))?;
                if has_dst {
                    w.regs.set(inst.d[0], l, load_ext(old, t) & inst.dmask[0]);
                }
            }
            if TRACE {
                record_addrs(out, &addrs, tspace);
            }
            advance(w);
        }
        K::Shfl => {
            let mode = inst.op.shfl.unwrap_or(ShflMode::Idx);
            let src: [u64; WARP_SIZE] = match inst.s[0] {
                Src::R(r) => w.regs.row(r),
                s => [rd(&w.regs, s, 0); WARP_SIZE],
            };
            let (d, m) = (inst.d[0], inst.dmask[0]);
            let pd = if inst.nd > 1 { Some(inst.d[1]) } else { None };
            lanes(active, |l| {
                let b = rd(&w.regs, inst.s[1], l) as u32;
                let c = rd(&w.regs, inst.s[2], l) as u32;
                let bval = (b & 31) as i32;
                let cval = (c & 31) as i32;
                let segmask = ((c >> 8) & 31) as i32;
                let lane = l as i32;
                let max_lane = (lane & segmask) | (cval & !segmask);
                let min_lane = lane & segmask;
                let (j, ok) = match mode {
                    ShflMode::Up => {
                        let j = lane - bval;
                        (j, j >= max_lane)
                    }
                    ShflMode::Down => {
                        let j = lane + bval;
                        (j, j <= max_lane)
                    }
                    ShflMode::Bfly => {
                        let j = lane ^ bval;
                        (j, j <= max_lane)
                    }
                    ShflMode::Idx => {
                        let j = min_lane | (bval & !segmask);
                        (j, j <= max_lane)
                    }
                };
                let j = if ok && (0..32).contains(&j) {
                    j as usize
                } else {
                    l
                };
                w.regs.set(d, l, src[j] & m);
                if let Some(p) = pd {
                    w.regs.set(p, l, (ok && (0..32).contains(&j)) as u64);
                }
            });
            advance(w);
        }
        K::Vote => {
            let membermask =
                rd(&w.regs, inst.s[1], active.trailing_zeros().min(31) as usize) as u32;
            let set = active & membermask;
            let mut ballot = 0u32;
            lanes(set, |l| {
                if rd(&w.regs, inst.s[0], l) & 1 != 0 {
                    ballot |= 1 << l;
                }
            });
            let d = inst.d[0];
            let v = match inst.op.vote.unwrap_or(VoteMode::Ballot) {
                VoteMode::All => (ballot == set) as u64,
                VoteMode::Any => (ballot != 0) as u64,
                VoteMode::Uni => (ballot == 0 || ballot == set) as u64,
                VoteMode::Ballot => ballot as u64,
            };
            let m = inst.dmask[0];
            lanes(active, |l| w.regs.set(d, l, v & m));
            advance(w);
        }
        K::Activemask => {
            let d = inst.d[0];
            lanes(active, |l| w.regs.set(d, l, active as u64));
            advance(w);
        }
        K::Redux => {
            let t = inst.op.ty.unwrap_or(ScalarType::U32);
            let op = inst.op.atom_op.unwrap_or(AtomOp::Add);
            let mut acc: Option<u64> = None;
            lanes(active, |l| {
                let v = rd(&w.regs, inst.s[0], l) & 0xffff_ffff;
                acc = Some(match acc {
                    None => v,
                    Some(a) => atom_apply(op, t, a, v, 0),
                });
            });
            let v = acc.unwrap_or(0);
            let d = inst.d[0];
            lanes(active, |l| w.regs.set(d, l, v & inst.dmask[0]));
            advance(w);
        }
        K::Match => {
            let all_mode = inst.op.vote == Some(VoteMode::All);
            let vals: [u64; WARP_SIZE] = match inst.s[0] {
                Src::R(r) => w.regs.row(r),
                s => [rd(&w.regs, s, 0); WARP_SIZE],
            };
            let t = inst.op.ty.map_or(32, bits);
            let d = inst.d[0];
            let mut all_same = true;
            let first = active.trailing_zeros().min(31) as usize;
            lanes(active, |l| {
                all_same &= trunc(vals[l], t) == trunc(vals[first], t)
            });
            lanes(active, |l| {
                let v = if all_mode {
                    if all_same {
                        active as u64
                    } else {
                        0
                    }
                } else {
                    let mut same = 0u32;
                    lanes(active, |k| {
                        if trunc(vals[k], t) == trunc(vals[l], t) {
                            same |= 1 << k;
                        }
                    });
                    same as u64
                };
                w.regs.set(d, l, v & inst.dmask[0]);
                if inst.nd > 1 {
                    w.regs.set(inst.d[1], l, all_same as u64);
                }
            });
            advance(w);
        }
        K::Tex => {
            let name = inst.tex.as_deref().unwrap_or("");
            let Some(b) = env.tex.get(name).copied() else {
                return Err(fault(
                    None,
                    format!("texture `{name}` is not bound (Device::bind_texture)"),
                ));
            };
            let coord_f = matches!(inst.op.ty2, Some(ScalarType::F32));
            let esize = b.channels as u64 * 4;
            let mut addrs = [0u64; WARP_SIZE];
            let mut m = active;
            while m != 0 {
                let l = m.trailing_zeros() as usize;
                m &= m - 1;
                let coord = |k: usize| -> i64 {
                    let v = rd(&w.regs, inst.s[k], l);
                    if coord_f {
                        f32::from_bits(v as u32).floor() as i64
                    } else {
                        sext(v, 32)
                    }
                };
                let x = coord(0).clamp(0, b.width.max(1) as i64 - 1) as u64;
                let y = if inst.ns > 1 {
                    coord(1).clamp(0, b.height.max(1) as i64 - 1) as u64
                } else {
                    0
                };
                let addr = b.ptr + y * b.pitch + x * esize;
                addrs[l] = addr;
                for j in 0..inst.nd as usize {
                    let v = if (j as u8) < b.channels {
                        env.gmem
                            .load(addr + 4 * j as u64, 4)
                            .map_err(|f| fault(Some(l), env.global_fault(f, "texture fetch")))?
                    } else {
                        0
                    };
                    w.regs.set(inst.d[j], l, v & inst.dmask[j]);
                }
            }
            if TRACE {
                if let Some(mem) = out.mem.as_mut() {
                    mem.addrs = addrs;
                }
            }
            advance(w);
        }
        K::Nop => advance(w),
        K::Trap => {
            if active != 0 {
                return Err(fault(
                    Some(active.trailing_zeros() as usize),
                    format!("{:?} executed", inst.op.kind).to_lowercase(),
                ));
            }
            advance(w);
        }
        K::Bra => {
            let top = w.stack.last_mut().expect("non-empty stack");
            let taken = active;
            let not_taken = mask & !taken;
            if not_taken == 0 {
                top.pc = inst.target;
            } else if taken == 0 {
                top.pc = pc + 1;
            } else {
                let rpc = inst.rpc;
                top.pc = rpc;
                w.stack.push(Entry {
                    pc: pc + 1,
                    rpc,
                    mask: not_taken,
                });
                w.stack.push(Entry {
                    pc: inst.target,
                    rpc,
                    mask: taken,
                });
            }
            normalize(w);
        }
        K::Call => {
            let mut site = inst.call.as_deref().expect("decoded call site");
            if let Some(t) = site.target {
                // Indirect call: every active lane must hold the same function address.
                let lead = active.trailing_zeros().min(31) as usize;
                let addr = rd(&w.regs, t, lead);
                let mut uniform = true;
                lanes(active, |l| uniform &= rd(&w.regs, t, l) == addr);
                if !uniform {
                    return Err(fault(
                        None,
                        "indirect call with different targets in one warp is not supported".into(),
                    ));
                }
                site = match site.alts.iter().find(|(a, _)| *a == addr) {
                    Some((_, s)) => s,
                    None if active == 0 => site,
                    None => {
                        return Err(fault(
                            None,
                            format!("indirect call to {addr:#x}, which is not a function of a matching signature"),
                        ))
                    }
                };
            }
            let fb = code.fparam_bytes as u64;
            // Copy arguments into the callee's parameter area, per lane.
            lanes(active, |l| {
                for &(src, dst, size) in &site.args {
                    let base = l as u64 * fb;
                    match src {
                        CallVal::Buf(a) => {
                            let from = (base + a - FPARAM_TAG) as usize;
                            let to = (base + dst - FPARAM_TAG) as usize;
                            w.fparam.copy_within(from..from + size as usize, to);
                        }
                        CallVal::Val(s) => {
                            let v = rd(&w.regs, s, l);
                            let to = base + dst - FPARAM_TAG;
                            let _ = flat_store(&mut w.fparam, to, size.min(8), v);
                        }
                    }
                }
            });
            let top = w.stack.last_mut().expect("non-empty stack");
            top.pc = pc + 1;
            if active != 0 {
                let callee = &code.funcs[site.callee as usize];
                let depth = w.stack.len();
                w.stack.push(Entry {
                    pc: callee.start,
                    rpc: RPC_EXIT,
                    mask: active,
                });
                w.frames.push(Frame { depth, call: pc });
                if w.frames.len() > 1024 {
                    return Err(fault(None, "call stack deeper than 1024 frames".into()));
                }
            }
            normalize(w);
        }
        K::Ret => {
            if let Some(&frame) = w.frames.last() {
                // Copy return values to the caller for the returning lanes.
                let mut site = code.insts[frame.call as usize]
                    .call
                    .as_deref()
                    .expect("call site");
                if site.target.is_some() {
                    // Indirect: the target is the function this `ret` belongs to.
                    let inside = |s: &&(u64, crate::program::CallSite)| {
                        let f = &code.funcs[s.1.callee as usize];
                        (f.start..f.start + f.len).contains(&pc)
                    };
                    site = &site.alts.iter().find(inside).expect("indirect callee").1;
                }
                let fb = code.fparam_bytes as u64;
                lanes(active, |l| {
                    let base = l as u64 * fb;
                    for &(src, dst, size) in &site.rets {
                        let from = base + src - FPARAM_TAG;
                        match dst {
                            CallVal::Buf(a) => {
                                let to = (base + a - FPARAM_TAG) as usize;
                                let from = from as usize;
                                w.fparam.copy_within(from..from + size as usize, to);
                            }
                            CallVal::Val(Src::R(r)) => {
                                let v = flat_load(&w.fparam, from, size.min(8)).unwrap_or(0);
                                w.regs.set(r, l, v);
                            }
                            CallVal::Val(_) => {}
                        }
                    }
                });
                let top = w.stack.last_mut().expect("non-empty stack");
                if active == mask {
                    top.pc = pc + 1;
                }
                let depth = frame.depth;
                remove_lanes(w, depth, active);
                if active != mask {
                    let top = w.stack.last_mut().expect("non-empty stack");
                    if top.pc == pc {
                        top.pc = pc + 1;
                        normalize(w);
                    }
                }
            } else {
                flow = exit_lanes(w, active, mask, pc);
            }
        }
        K::Exit => {
            flow = exit_lanes(w, active, mask, pc);
        }
        K::Bar => {
            let mode = inst.op.bar.unwrap_or(BarMode::Sync);
            let lead = active.trailing_zeros().min(31) as usize;
            let id = rd(&w.regs, inst.s[0], lead);
            let count = rd(&w.regs, inst.s[1], lead) as u32;
            if id > 15 {
                return Err(fault(None, format!("barrier id {id} out of range 0..15")));
            }
            if active == 0 {
                advance(w);
            } else {
                if active != w.live {
                    return Err(fault(
                        None,
                        format!(
                            "deadlock: divergent barrier: bar {id} executed by lanes {active:#010x} of the warp's live lanes {:#010x}; the other lanes can never arrive",
                            w.live
                        ),
                    ));
                }
                if TRACE {
                    out.barrier_id = id as u8;
                    out.barrier_threads = count;
                }
                let bar = &mut bars[id as usize];
                if bar.arrived == 0 && bar.waiters == 0 {
                    bar.expected = count;
                    bar.all = true;
                    bar.any = false;
                    bar.popc = 0;
                    bar.red = None;
                    bar.pc = pc;
                } else if bar.expected != count {
                    return Err(fault(None, format!(
                        "barrier {id} used with thread count {count} while {} threads are expected by an earlier arrival",
                        bar.expected
                    )));
                }
                bar.arrived += 32;
                if mode == BarMode::Red {
                    let rop = inst.op.atom_op.unwrap_or(AtomOp::Popc);
                    bar.red = Some(rop);
                    lanes(active, |l| {
                        let p = rd(&w.regs, inst.s[2], l) & 1 != 0;
                        bar.popc += p as u32;
                        bar.all &= p;
                        bar.any |= p;
                    });
                    w.red_dst = inst.d[0];
                }
                advance(w);
                if mode != BarMode::Arrive {
                    bar.waiters |= 1 << wi;
                    w.waiting = Some(id as u8);
                    flow = Flow::Wait;
                }
                let live = cta.live_warps;
                if try_release(&mut cta.bars[id as usize], &mut cta.warps, live, code) {
                    flow = Flow::Go;
                }
                if TRACE {
                    out.pc = pc as u64 * PC_STRIDE;
                }
                return Ok(flow);
            }
        }
    }
    if flow == Flow::Exited {
        if TRACE {
            out.warp_exits = true;
        }
        cta.live_warps -= 1;
        let live = cta.live_warps;
        for b in 0..16 {
            try_release(&mut cta.bars[b], &mut cta.warps, live, code);
        }
    }
    Ok(flow)
}

/// Completes barrier `bar` if enough warps arrived; writes `bar.red` results and releases the
/// waiters. Returns whether it completed.
pub fn try_release(
    bar: &mut Barrier,
    warps: &mut [Warp],
    live_warps: u32,
    code: &KernelCode,
) -> bool {
    if bar.arrived == 0 {
        return false;
    }
    let need = if bar.expected == 0 {
        live_warps * 32
    } else {
        bar.expected
    };
    if bar.arrived < need {
        return false;
    }
    let _ = code;
    let mut wm = bar.waiters;
    while wm != 0 {
        let wi = wm.trailing_zeros() as usize;
        wm &= wm - 1;
        let w = &mut warps[wi];
        w.waiting = None;
        if let Some(op) = bar.red {
            let v = match op {
                AtomOp::And => bar.all as u64,
                AtomOp::Or => bar.any as u64,
                _ => bar.popc as u64,
            };
            let d = w.red_dst;
            let live = w.live;
            lanes(live, |l| w.regs.set(d, l, v));
        }
    }
    *bar = Barrier::default();
    true
}

#[inline(always)]
fn advance(w: &mut Warp) {
    let top = w.stack.last_mut().expect("non-empty stack");
    top.pc += 1;
    if top.pc == top.rpc {
        normalize(w);
    }
}

fn exit_lanes(w: &mut Warp, active: u32, mask: u32, pc: u32) -> Flow {
    w.live &= !active;
    if active != mask {
        // Lanes that did not exit continue after the instruction.
        if let Some(top) = w.stack.last_mut() {
            if top.pc == pc {
                top.pc = pc + 1;
            }
        }
    }
    remove_lanes(w, 0, active);
    if w.live == 0 || w.stack.is_empty() {
        w.stack.clear();
        w.frames.clear();
        w.live = 0;
        Flow::Exited
    } else {
        Flow::Go
    }
}

fn exec_carry(code: &KernelCode, inst: &DInst, w: &mut Warp, active: u32) {
    use warpforge_ptx::OpKind::*;
    let op = &inst.op;
    let t = op.ty.unwrap_or(ScalarType::U32);
    let n = bits(t);
    let cc = WIDE | (code.wide_special_base + sp::CARRY);
    let (d, m) = (inst.d[0], inst.dmask[0]);
    let s = inst.s;
    lanes(active, |l| {
        let r = &w.regs;
        let a = trunc(rd(r, s[0], l), n) as u128;
        let b = trunc(rd(r, s[1], l), n) as u128;
        let cin = (r.get(cc, l) & 1) as u128;
        let full: u128 = (1u128 << n) - 1;
        let (res, cout): (u128, bool) = match op.kind {
            Add => (a + b, a + b > full),
            Addc => (a + b + cin, a + b + cin > full),
            Sub => (a.wrapping_sub(b) & full, a < b),
            Subc => (a.wrapping_sub(b).wrapping_sub(cin) & full, a < b + cin),
            Mad | Madc => {
                let c = trunc(rd(r, s[2], l), n) as u128;
                let p = alu::imul(a as u64, b as u64, t, op.mul_mode) as u128;
                let ci = if op.kind == Madc { cin } else { 0 };
                (p + c + ci, p + c + ci > full)
            }
            _ => (0, false),
        };
        w.regs.set(d, l, (res & full) as u64 & m);
        if op.cc {
            w.regs.set(cc, l, cout as u64);
        }
    });
}
