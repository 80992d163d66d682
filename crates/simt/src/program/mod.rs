//! Pre-decoding of a kernel into a compact instruction array for the executor.
//!
//! A kernel's code is its own body followed by every `.func` reachable from it through `call`.
//! Instruction `i` of that array has program counter `pc = i * 8` ([`PC_STRIDE`]) and
//! `static_idx = i`: the kernel's own instructions keep their PTX index, callees follow.
//!
//! Registers of every function in the code get disjoint slots of one per-warp register file
//! (kernel registers first, so a kernel register's slot equals its PTX [`RegId`]), followed by
//! slots for special registers, the carry flag and the sink `_`. Calls therefore need no register
//! save; recursion is rejected when the kernel is decoded (documented limitation).
//!
//! The executor keeps a register of at most 32 bits (predicates, 16- and 32-bit registers as
//! declared) in a bank of 32-bit lanes and a 64-bit one (and the special registers) in a bank of
//! 64-bit lanes; once the instructions are decoded, their operands' logical slots are replaced by
//! physical ones ([`KernelCode::phys`], [`WIDE`]). The timing template keeps the logical slots.
//!
//! Every operand is resolved here: registers to slots, immediates to raw bits of the operation's
//! type, symbols to addresses in their state space, labels to code indices, and each branch gets
//! its reconvergence point (immediate post-dominator, from `warpforge_ptx::cfg`).

use std::collections::HashMap;

use warpforge_core::{MemSpace, OpClass, MAX_DST, MAX_SRC};
use warpforge_ptx::{
    AddrBase, AtomOp, BarMode, Function, InitItem, Module, MulMode, Op, OpKind, Operand, RegId,
    Rounding, ScalarType, SpecialReg, StateSpace, Variable,
};

use crate::memory::{window_base, GlobalMem};

mod decode;
mod layout;
pub use decode::{decode_kernel, decode_kernel_with};
pub use layout::{layout_module, ModuleLayout};

/// Byte distance between consecutive instructions' program counters.
pub const PC_STRIDE: u64 = 8;
/// Reconvergence point meaning "the end of the function" (never reached by a pc).
pub const RPC_EXIT: u32 = u32::MAX;
/// Function-parameter addresses (`.param` of a `.func` and call-site buffers) carry this tag so
/// that `ld.param [%rd]` can tell them from kernel parameters.
pub const FPARAM_TAG: u64 = 1 << 24;

/// Bit of a physical slot ([`KernelCode::phys`]) that selects the bank of 64-bit lanes; without
/// it the slot indexes the bank of 32-bit lanes.
pub const WIDE: u32 = 1 << 30;

/// Special per-lane slots, offsets from [`KernelCode::special_base`] (names follow the PTX
/// special registers; `CARRY` holds the `.cc` flag, `SINK` absorbs writes to `_`).
#[allow(missing_docs)]
pub mod sp {
    pub const TID: u32 = 0;
    pub const NTID: u32 = 3;
    pub const CTAID: u32 = 6;
    pub const NCTAID: u32 = 9;
    pub const LANEID: u32 = 12;
    pub const WARPID: u32 = 13;
    pub const NWARPID: u32 = 14;
    pub const SMID: u32 = 15;
    pub const NSMID: u32 = 16;
    pub const GRIDID: u32 = 17;
    pub const LM_EQ: u32 = 18;
    pub const LM_LE: u32 = 19;
    pub const LM_LT: u32 = 20;
    pub const LM_GE: u32 = 21;
    pub const LM_GT: u32 = 22;
    pub const CLOCK: u32 = 23;
    pub const CLOCK_HI: u32 = 24;
    pub const CLOCK64: u32 = 25;
    pub const GTIMER: u32 = 26;
    pub const GTIMER_LO: u32 = 27;
    pub const GTIMER_HI: u32 = 28;
    pub const TOTAL_SMEM: u32 = 29;
    pub const DYN_SMEM: u32 = 30;
    pub const ENVREG: u32 = 31;
    pub const CARRY: u32 = 32;
    pub const SINK: u32 = 33;
    pub const COUNT: u32 = 34;
}

/// A source operand, resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Src {
    /// A register slot.
    R(u32),
    /// A negated predicate slot (`!%p`).
    N(u32),
    /// Raw immediate bits.
    I(u64),
}

impl Default for Src {
    fn default() -> Self {
        Src::I(0)
    }
}

/// Resolved state space of a memory instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Space {
    /// Global memory.
    Global,
    /// Shared memory of the own CTA.
    Shared,
    /// Local memory of the own thread.
    Local,
    /// Constant bank of the module.
    Const,
    /// Kernel parameters, or function parameters when the address carries [`FPARAM_TAG`].
    Param,
    /// A generic address, resolved per lane by window.
    Generic,
}

impl Space {
    fn from_ptx(s: Option<StateSpace>) -> Result<Space, String> {
        Ok(match s {
            None | Some(StateSpace::Generic) => Space::Generic,
            Some(StateSpace::Global) => Space::Global,
            Some(StateSpace::Shared) | Some(StateSpace::SharedCluster) => Space::Shared,
            Some(StateSpace::Local) => Space::Local,
            Some(StateSpace::Const) => Space::Const,
            Some(StateSpace::Param) => Space::Param,
            Some(s) => {
                return Err(format!(
                    "state space {s:?} is not supported for memory access"
                ))
            }
        })
    }

    /// The timing model's space for a statically known space.
    pub fn mem_space(self) -> MemSpace {
        match self {
            Space::Global | Space::Generic => MemSpace::Global,
            Space::Shared => MemSpace::Shared,
            Space::Local => MemSpace::Local,
            Space::Const => MemSpace::Const,
            Space::Param => MemSpace::Param,
        }
    }
}

/// Fast paths for the most frequent ALU operations: each runs as a branch-free loop over all 32
/// lanes (results of inactive lanes are discarded), instead of the general per-lane evaluator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Fast {
    /// No fast path: use [`crate::alu::eval`].
    None,
    Add,
    Sub,
    MulLo,
    MadLo,
    MulWideU32,
    MulWideS32,
    And,
    Or,
    Xor,
    Shl32,
    Shl64,
    ShrU32,
    ShrU64,
    ShrS32,
    ShrS64,
    Selp,
    MinS32,
    MaxS32,
    MinU32,
    MaxU32,
    CvtU64U32,
    CvtS64S32,
    AddF32,
    SubF32,
    MulF32,
    FmaF32,
    NegF32,
    AbsF32,
    Not,
    /// `neg` of a 32- or 64-bit integer (two's complement; the mask keeps the type's width).
    Neg,
    /// `and.pred`, `or.pred`, `xor.pred`, `not.pred` (predicate registers hold 0 or 1).
    AndPred,
    OrPred,
    XorPred,
    NotPred,
    /// `cvt.u32.{u64,s64,b64}` without saturation: the low 32 bits.
    CvtU32Wide,
    /// `cvta{.to}.global`: the identity.
    Copy,
}

/// The fast path of `op`, if any.
pub fn fast_of(op: &Op) -> Fast {
    use OpKind::*;
    use ScalarType::*;
    let Some(t) = op.ty else { return Fast::None };
    let int = !t.is_float() && t != Pred && t.size() >= 4;
    let plain = !op.sat && !op.cc && !op.ftz;
    match op.kind {
        Add if int && plain => Fast::Add,
        Sub if int && plain => Fast::Sub,
        Mul if int && plain && matches!(op.mul_mode, None | Some(MulMode::Lo)) => Fast::MulLo,
        Mad if int && plain && matches!(op.mul_mode, None | Some(MulMode::Lo)) => Fast::MadLo,
        Mul if plain && op.mul_mode == Some(MulMode::Wide) && t == U32 => Fast::MulWideU32,
        Mul if plain && op.mul_mode == Some(MulMode::Wide) && t == S32 => Fast::MulWideS32,
        And if int => Fast::And,
        Or if int => Fast::Or,
        Xor if int => Fast::Xor,
        Shl if t.size() == 4 => Fast::Shl32,
        Shl if t.size() == 8 => Fast::Shl64,
        Shr if t.size() == 4 && t.is_signed() => Fast::ShrS32,
        Shr if t.size() == 8 && t.is_signed() => Fast::ShrS64,
        Shr if t.size() == 4 => Fast::ShrU32,
        Shr if t.size() == 8 => Fast::ShrU64,
        Selp => Fast::Selp,
        Min if t == S32 => Fast::MinS32,
        Max if t == S32 => Fast::MaxS32,
        Min if t == U32 => Fast::MinU32,
        Max if t == U32 => Fast::MaxU32,
        Cvt if t == U64 && op.ty2 == Some(U32) && !op.sat => Fast::CvtU64U32,
        Cvt if t == S64 && op.ty2 == Some(S32) && !op.sat => Fast::CvtS64S32,
        Add if t == F32 && plain && matches!(op.rounding, None | Some(Rounding::Rn)) => {
            Fast::AddF32
        }
        Mul if t == F32 && plain && matches!(op.rounding, None | Some(Rounding::Rn)) => {
            Fast::MulF32
        }
        Fma | Mad if t == F32 && plain && matches!(op.rounding, None | Some(Rounding::Rn)) => {
            Fast::FmaF32
        }
        Sub if t == F32 && plain && matches!(op.rounding, None | Some(Rounding::Rn)) => {
            Fast::SubF32
        }
        Not if int => Fast::Not,
        Neg if int => Fast::Neg,
        And if t == Pred => Fast::AndPred,
        Or if t == Pred => Fast::OrPred,
        Xor if t == Pred => Fast::XorPred,
        Not if t == Pred => Fast::NotPred,
        Cvt if t == U32
            && !op.sat
            && op
                .ty2
                .is_some_and(|s| !s.is_float() && s != Pred && s.size() == 8) =>
        {
            Fast::CvtU32Wide
        }
        Cvta if op.space == Some(warpforge_ptx::StateSpace::Global) => Fast::Copy,
        _ => Fast::None,
    }
}

/// Dispatch kind of a decoded instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum K {
    /// Pure per-lane function of up to four sources into one destination.
    Alu,
    /// Carry-flag arithmetic (`add.cc`, `addc`, `sub.cc`, `subc`, `mad.cc`, `madc`).
    Carry,
    /// `setp` (one or two predicate destinations, optional boolean combiner).
    Setp,
    /// `mov` packing a vector of sources into one register.
    Pack,
    /// `mov` unpacking one register into a vector of destinations.
    Unpack,
    /// `mov` of a scalar (fast path).
    Mov,
    /// `ld`, `ldu`.
    Ld,
    /// `st`.
    St,
    /// `atom` (with destination) or `red` (without).
    Atom,
    /// `shfl.sync`.
    Shfl,
    /// `vote`.
    Vote,
    /// `activemask`.
    Activemask,
    /// `redux.sync`.
    Redux,
    /// `match.any.sync` / `match.all.sync`.
    Match,
    /// `bra`.
    Bra,
    /// `call`.
    Call,
    /// `ret`.
    Ret,
    /// `exit`.
    Exit,
    /// `bar`, `barrier`.
    Bar,
    /// `tex`.
    Tex,
    /// `trap` / `brkpt`.
    Trap,
    /// No functional effect (`membar`, `fence`, `prefetch`, `nanosleep`, `pmevent`).
    Nop,
}

/// One pre-decoded instruction.
#[derive(Debug, Clone)]
pub struct DInst {
    /// The PTX operation with its modifiers.
    pub op: Op,
    /// Dispatch kind.
    pub k: K,
    /// Guard predicate slot, `u32::MAX` when unguarded.
    pub guard: u32,
    /// Guard is negated (`@!%p`).
    pub guard_neg: bool,
    /// Number of destinations.
    pub nd: u8,
    /// Destination slots.
    pub d: [u32; 4],
    /// Destination value masks (the destination register's width).
    pub dmask: [u64; 4],
    /// Number of sources.
    pub ns: u8,
    /// Sources (for memory ops: `s[0]` is the address base, or `I(0)` for an absolute address).
    pub s: [Src; 6],
    /// Address offset of memory operations.
    pub addr_off: i64,
    /// Memory space of memory operations.
    pub space: Space,
    /// Bytes per element of memory operations.
    pub elem_bytes: u32,
    /// Branch target (code index), or callee function index into [`KernelCode::funcs`].
    pub target: u32,
    /// Reconvergence point for divergent branches (code index or [`RPC_EXIT`]).
    pub rpc: u32,
    /// Reads `%clock*` / `%globaltimer*` (the executor refreshes those slots first).
    pub reads_clock: bool,
    /// Call sites: destination (return) buffers and their sizes.
    pub call: Option<Box<CallSite>>,
    /// Texture reference name for `tex`.
    pub tex: Option<Box<str>>,
    /// Fast path of common ALU operations (see [`Fast`]).
    pub fast: Fast,
    /// Result mask of the fast path: destination register width and operation width combined.
    pub fmask: u64,
    /// Timing-model template.
    pub tmpl: Template,
    /// PTX source line.
    pub line: u32,
}

/// The static part of a [`warpforge_core::DynInst`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Template {
    /// Pipeline class.
    pub class: OpClass,
    /// Destination register numbers (slots).
    pub n_dst: u8,
    /// Destinations.
    pub dst: [u16; MAX_DST],
    /// Number of sources.
    pub n_src: u8,
    /// Sources.
    pub src: [u16; MAX_SRC],
    /// Memory access shape: (space, bytes per lane, store, atomic).
    pub mem: Option<(MemSpace, u8, bool, bool)>,
    /// Barrier id when immediate.
    pub barrier_id: u8,
    /// Barrier thread count when immediate (0 = all).
    pub barrier_threads: u32,
    /// Static redundancy hints ([`warpforge_core::hint`]), from the compiler pass.
    pub hints: u8,
}

/// Argument and return copying of one `call`.
#[derive(Debug, Clone)]
pub struct CallSite {
    /// Callee index into [`KernelCode::funcs`].
    pub callee: u32,
    /// For each argument: source (param-buffer address or register value) and callee param address.
    pub args: Vec<(CallVal, u64, u32)>,
    /// For each return: callee return address, caller destination, size.
    pub rets: Vec<(u64, CallVal, u32)>,
    /// Indirect call (`call (r), %fptr, (a), proto;`): the function-pointer operand; `callee`,
    /// `args` and `rets` are then unused and [`CallSite::alts`] lists the possible targets.
    pub target: Option<Src>,
    /// Indirect call targets: (function address, the call site of a call to it).
    pub alts: Vec<(u64, CallSite)>,
}

/// A call argument or return destination.
#[derive(Debug, Clone, Copy)]
pub enum CallVal {
    /// A `.param` buffer in the per-thread function-parameter area (tagged address).
    Buf(u64),
    /// A register or immediate value.
    Val(Src),
}

/// One function placed in a kernel's code.
#[derive(Debug, Clone)]
pub struct FuncCode {
    /// Index in the module.
    pub module_idx: usize,
    /// Name.
    pub name: String,
    /// First code index.
    pub start: u32,
    /// Number of instructions.
    pub len: u32,
    /// First register slot.
    pub reg_base: u32,
    /// Per-thread function-parameter area offset of each parameter (tagged).
    pub param_addrs: Vec<u64>,
    /// Same for each return parameter.
    pub ret_addrs: Vec<u64>,
}

/// Layout of a kernel parameter.
#[derive(Debug, Clone)]
pub struct ParamSlot {
    /// Name.
    pub name: String,
    /// Byte offset in the parameter buffer.
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
    /// Element type, for messages.
    pub ty: ScalarType,
}

/// A kernel decoded for execution.
#[derive(Debug)]
pub struct KernelCode {
    /// Kernel name.
    pub name: String,
    /// Module file name.
    pub file: String,
    /// Instructions: kernel body, then callees.
    pub insts: Vec<DInst>,
    /// Functions in the code; `funcs[0]` is the kernel.
    pub funcs: Vec<FuncCode>,
    /// Number of register slots including specials.
    pub nslots: u32,
    /// First special slot.
    pub special_base: u32,
    /// Physical slot of each logical slot (`nslots` entries): an index into the bank of 32-bit
    /// lanes, or [`WIDE`] plus an index into the bank of 64-bit lanes. The executor's operands,
    /// destinations and guards hold physical slots; [`Template`]'s registers stay logical.
    pub phys: Vec<u32>,
    /// Registers in the bank of 32-bit lanes.
    pub narrow_slots: u32,
    /// Registers in the bank of 64-bit lanes, the special slots included.
    pub wide_slots: u32,
    /// Index in the bank of 64-bit lanes of the first special slot ([`sp`] offsets follow).
    pub wide_special_base: u32,
    /// Whether registers of the kernel's body with disjoint live ranges share physical slots
    /// (`decode::decode_kernel_with`); a shared slot does not keep a register's old contents in
    /// lanes an instruction leaves unwritten.
    pub shared_slots: bool,
    /// Kernel parameters.
    pub params: Vec<ParamSlot>,
    /// Parameter buffer size in bytes.
    pub param_bytes: u64,
    /// Static shared memory in bytes.
    pub shared_static: u32,
    /// Alignment of the dynamic shared area.
    pub dyn_shared_align: u32,
    /// Local memory per thread in bytes.
    pub local_bytes: u32,
    /// Function-parameter area per thread in bytes.
    pub fparam_bytes: u32,
    /// Estimated registers per thread.
    pub regs_per_thread: u32,
}

impl KernelCode {
    /// PTX line of code index `i`.
    pub fn line(&self, i: u32) -> u32 {
        self.insts.get(i as usize).map_or(0, |d| d.line)
    }
    /// Name of the function holding code index `i`.
    pub fn func_of(&self, i: u32) -> &str {
        self.funcs
            .iter()
            .find(|f| i >= f.start && i < f.start + f.len)
            .map_or("?", |f| f.name.as_str())
    }
}
