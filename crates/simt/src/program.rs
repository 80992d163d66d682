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

/// Byte distance between consecutive instructions' program counters.
pub const PC_STRIDE: u64 = 8;
/// Reconvergence point meaning "the end of the function" (never reached by a pc).
pub const RPC_EXIT: u32 = u32::MAX;
/// Function-parameter addresses (`.param` of a `.func` and call-site buffers) carry this tag so
/// that `ld.param [%rd]` can tell them from kernel parameters.
pub const FPARAM_TAG: u64 = 1 << 24;

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

/// Module-level layout shared by all kernels of a module.
#[derive(Debug, Default)]
pub struct ModuleLayout {
    /// Address (in its own space) of every module-scope variable.
    pub symbols: HashMap<String, (Space, u64)>,
    /// Constant bank.
    pub const_bank: Vec<u8>,
    /// End of module-scope static shared variables.
    pub shared_end: u64,
    /// Dynamic (`extern .shared` unsized) alignment.
    pub dyn_align: u32,
}

fn align_up(v: u64, a: u64) -> u64 {
    let a = a.max(1);
    v.div_ceil(a) * a
}

fn var_align(v: &Variable) -> u64 {
    (v.align.max(v.ty.size()) as u64).max(1)
}

/// Lays out module-scope variables: allocates `.global` ones in `mem`, builds the constant bank,
/// assigns shared offsets, and writes initialisers (symbol addresses included).
pub fn layout_module(m: &Module, mem: &mut GlobalMem) -> Result<ModuleLayout, String> {
    let mut l = ModuleLayout {
        dyn_align: 16,
        ..Default::default()
    };
    let mut const_end = 0u64;
    let mut dyn_shared = Vec::new();
    for v in &m.globals {
        let size = v.size_bytes();
        let a = var_align(v);
        match v.space {
            StateSpace::Global => {
                let addr = mem
                    .alloc(size.max(1), &v.name)
                    .ok_or_else(|| format!("cannot allocate global variable `{}`", v.name))?;
                l.symbols.insert(v.name.clone(), (Space::Global, addr));
            }
            StateSpace::Const => {
                const_end = align_up(const_end, a);
                l.symbols.insert(v.name.clone(), (Space::Const, const_end));
                const_end += size;
            }
            StateSpace::Shared | StateSpace::SharedCluster => {
                if size == 0 {
                    dyn_shared.push(v.name.clone());
                    l.dyn_align = l.dyn_align.max(a as u32);
                } else {
                    l.shared_end = align_up(l.shared_end, a);
                    l.symbols
                        .insert(v.name.clone(), (Space::Shared, l.shared_end));
                    l.shared_end += size;
                }
            }
            // Texture references and other declarations have no storage here.
            _ => {}
        }
    }
    for name in dyn_shared {
        // Resolved per kernel: marked with u64::MAX and replaced by the kernel's static end.
        l.symbols.insert(name, (Space::Shared, u64::MAX));
    }
    l.const_bank = vec![0u8; const_end as usize];
    // Initialisers.
    for v in &m.globals {
        if v.init.is_empty() {
            continue;
        }
        let Some(&(space, base)) = l.symbols.get(&v.name) else {
            continue;
        };
        let esize = v.ty.size();
        let mut bytes = Vec::with_capacity(v.init.len() * esize as usize);
        for item in &v.init {
            let bits: u64 = match item {
                InitItem::Int(i) => *i as u64,
                InitItem::Float(f) => match v.ty {
                    ScalarType::F32 => (*f as f32).to_bits() as u64,
                    ScalarType::F64 => f.to_bits(),
                    _ => *f as i64 as u64,
                },
                InitItem::Symbol {
                    name,
                    offset,
                    generic,
                } => {
                    let &(sp, a) = l.symbols.get(name).ok_or_else(|| {
                        format!(
                            "{}:{}: initialiser of `{}` names unknown symbol `{name}`",
                            m.file, v.loc.line, v.name
                        )
                    })?;
                    let a = if *generic {
                        a + window_base(sp.mem_space())
                    } else {
                        a
                    };
                    a.wrapping_add(*offset as u64)
                }
            };
            bytes.extend_from_slice(&bits.to_le_bytes()[..esize as usize]);
        }
        match space {
            Space::Global => {
                let n = bytes.len().min(v.size_bytes() as usize) as u64;
                mem.slice_mut(base, n)
                    .map_err(|_| format!("initialiser of `{}` does not fit", v.name))?
                    .copy_from_slice(&bytes[..n as usize]);
            }
            Space::Const => {
                let n = bytes.len().min(v.size_bytes() as usize);
                l.const_bank[base as usize..base as usize + n].copy_from_slice(&bytes[..n]);
            }
            // Shared variables cannot be initialised in PTX; ignore.
            _ => {}
        }
    }
    Ok(l)
}

/// Whether this `bra` is unconditional and uniform (no divergence possible).
fn class_of(inst: &warpforge_ptx::Instruction) -> OpClass {
    use OpKind::*;
    let op = &inst.op;
    let ty = op.ty;
    let is_f64 = ty == Some(ScalarType::F64);
    let is_float = ty.is_some_and(|t| t.is_float());
    match op.kind {
        Add | Addc | Sub | Subc | Abs | Neg | Min | Max | Setp | Set | Selp | Slct | Copysign
        | Testp => {
            if is_f64 {
                OpClass::Dp
            } else if is_float {
                OpClass::FpAlu
            } else {
                OpClass::IntAlu
            }
        }
        Mul | Mad | Madc | Fma => {
            if is_f64 {
                OpClass::Dp
            } else if is_float {
                OpClass::FpAlu
            } else {
                OpClass::IntMul
            }
        }
        Mul24 | Mad24 | Sad | Dp4a | Dp2a => OpClass::IntMul,
        Div | Rem => {
            if is_f64 {
                OpClass::Dp
            } else if is_float {
                OpClass::FpDiv
            } else {
                OpClass::IntDiv
            }
        }
        Rcp | Sqrt | Rsqrt => {
            if is_f64 {
                OpClass::Dp
            } else {
                OpClass::Sfu
            }
        }
        Sin | Cos | Lg2 | Ex2 | Tanh => OpClass::Sfu,
        Popc | Clz | Bfind | Fns | Brev | Bfe | Bfi | Prmt | Cvt => OpClass::Conv,
        And | Or | Xor | Not | Cnot | Lop3 | Shl | Shr | Shf | Mov | Cvta | Isspacep => {
            OpClass::IntAlu
        }
        Ld | Ldu => OpClass::Load,
        St => OpClass::Store,
        Prefetch | Prefetchu => OpClass::Nop,
        Atom | Red => OpClass::Atomic,
        Tex | Tld4 | Txq | Suld => OpClass::Tex,
        Sust => OpClass::Store,
        Bra | Brx | Call | Ret => OpClass::Branch,
        Exit | Trap => OpClass::Exit,
        Bar | Barrier => OpClass::Barrier,
        Membar | Fence => OpClass::Fence,
        Vote | Shfl | Match | Activemask | Redux => OpClass::WarpCollective,
        Brkpt | Nanosleep | Pmevent => OpClass::Nop,
    }
}

/// Decoding context of one function.
struct Ctx<'a> {
    m: &'a Module,
    f: &'a Function,
    code_funcs: &'a [FuncCode],
    fi: usize,
    layout: &'a ModuleLayout,
    /// Function-scope symbols: name -> (space, address).
    local_syms: HashMap<String, (Space, u64)>,
    /// Kernel param name -> offset (only when decoding the kernel itself).
    kparams: HashMap<String, u64>,
    special_base: u32,
    func_index: &'a HashMap<String, usize>,
}

impl Ctx<'_> {
    fn slot(&self, r: RegId) -> u32 {
        self.code_funcs[self.fi].reg_base + r.0
    }

    fn reg_mask(&self, r: RegId) -> u64 {
        match self.f.regs.get(r.0 as usize).map(|ri| ri.ty) {
            Some(ScalarType::Pred) => 1,
            Some(t) if t.size() >= 8 => u64::MAX,
            Some(t) => (1u64 << (t.size() * 8)) - 1,
            None => u64::MAX,
        }
    }

    fn special_slot(&self, s: SpecialReg) -> u32 {
        use SpecialReg::*;
        let o = match s {
            Tid(c) => sp::TID + c.min(2) as u32,
            Ntid(c) => sp::NTID + c.min(2) as u32,
            Ctaid(c) => sp::CTAID + c.min(2) as u32,
            Nctaid(c) => sp::NCTAID + c.min(2) as u32,
            Laneid => sp::LANEID,
            Warpid => sp::WARPID,
            Nwarpid => sp::NWARPID,
            Smid => sp::SMID,
            Nsmid => sp::NSMID,
            Gridid => sp::GRIDID,
            LanemaskEq => sp::LM_EQ,
            LanemaskLe => sp::LM_LE,
            LanemaskLt => sp::LM_LT,
            LanemaskGe => sp::LM_GE,
            LanemaskGt => sp::LM_GT,
            Clock => sp::CLOCK,
            ClockHi => sp::CLOCK_HI,
            Clock64 => sp::CLOCK64,
            GlobalTimer => sp::GTIMER,
            GlobalTimerLo => sp::GTIMER_LO,
            GlobalTimerHi => sp::GTIMER_HI,
            TotalSmemSize => sp::TOTAL_SMEM,
            DynamicSmemSize => sp::DYN_SMEM,
            EnvReg(_) => sp::ENVREG,
        };
        self.special_base + o
    }

    /// Address of a symbol in its own state space.
    fn symbol(&self, name: &str) -> Result<(Space, u64), String> {
        if let Some(&v) = self.local_syms.get(name) {
            return Ok(v);
        }
        if let Some(&off) = self.kparams.get(name) {
            return Ok((Space::Param, off));
        }
        if let Some(&v) = self.layout.symbols.get(name) {
            return Ok(v);
        }
        if let Some(&fi) = self.func_index.get(name) {
            return Ok((Space::Global, fi as u64));
        }
        Err(format!("unknown symbol `{name}`"))
    }

    fn value(&self, o: &Operand, ty: Option<ScalarType>) -> Result<Src, String> {
        Ok(match o {
            Operand::Reg(r) => Src::R(self.slot(*r)),
            Operand::NotReg(r) => Src::N(self.slot(*r)),
            Operand::Imm(i) => Src::I(match ty {
                Some(ScalarType::F32) => (*i as f32).to_bits() as u64,
                Some(ScalarType::F64) => (*i as f64).to_bits(),
                _ => *i as u64,
            }),
            Operand::F32(b) => Src::I(match ty {
                Some(ScalarType::F64) => (f32::from_bits(*b) as f64).to_bits(),
                _ => *b as u64,
            }),
            Operand::F64(b) => Src::I(match ty {
                Some(ScalarType::F32) => (f64::from_bits(*b) as f32).to_bits() as u64,
                _ => *b,
            }),
            Operand::Special(s) => Src::R(self.special_slot(*s)),
            Operand::Symbol(n) => Src::I(self.symbol(n)?.1),
            Operand::SymbolOffset(n, off) => Src::I(self.symbol(n)?.1.wrapping_add(*off as u64)),
            Operand::Sink => Src::R(self.special_base + sp::SINK),
            other => return Err(format!("unexpected operand {other:?}")),
        })
    }

    fn dst(&self, o: &Operand) -> Result<(u32, u64), String> {
        Ok(match o {
            Operand::Reg(r) => (self.slot(*r), self.reg_mask(*r)),
            Operand::Sink => (self.special_base + sp::SINK, u64::MAX),
            other => return Err(format!("expected a destination register, found {other:?}")),
        })
    }

    /// Address operand: (base source, offset, space of a symbol base if any).
    fn addr(&self, o: &Operand) -> Result<(Src, i64, Option<Space>), String> {
        match o {
            Operand::Addr { base, offset } => match base {
                AddrBase::Reg(r) => Ok((Src::R(self.slot(*r)), *offset, None)),
                AddrBase::Imm => Ok((Src::I(0), *offset, None)),
                AddrBase::Symbol(n) => {
                    let (sp, a) = self.symbol(n)?;
                    Ok((Src::I(0), (a as i64).wrapping_add(*offset), Some(sp)))
                }
            },
            // `[%rd]`-less forms some producers emit: a bare register.
            Operand::Reg(r) => Ok((Src::R(self.slot(*r)), 0, None)),
            other => Err(format!("expected an address, found {other:?}")),
        }
    }
}

fn is_wide(op: &Op) -> bool {
    op.mul_mode == Some(MulMode::Wide)
}

/// Decodes kernel `name` of module `m` (with its module layout) for execution.
pub fn decode_kernel(
    m: &Module,
    name: &str,
    layout: &ModuleLayout,
    reconv: &dyn Fn(&Function) -> Vec<u32>,
) -> Result<KernelCode, String> {
    let func_index: HashMap<String, usize> = m
        .functions
        .iter()
        .enumerate()
        .map(|(i, f)| (f.name.clone(), i))
        .collect();
    let k_idx = *func_index
        .get(name)
        .ok_or_else(|| format!("no kernel `{name}`"))?;
    // Reachable functions in call order (DFS), rejecting recursion.
    let mut order = vec![k_idx];
    let mut stack_path = Vec::new();
    fn visit(
        m: &Module,
        fi: usize,
        idx: &HashMap<String, usize>,
        order: &mut Vec<usize>,
        path: &mut Vec<usize>,
    ) -> Result<(), String> {
        path.push(fi);
        let f = &m.functions[fi];
        for inst in &f.insts {
            if inst.op.kind != OpKind::Call {
                continue;
            }
            for o in &inst.operands {
                if let Operand::Symbol(n) = o {
                    if let Some(&c) = idx.get(n) {
                        if path.contains(&c) {
                            return Err(format!(
                                "{}:{}:{}: recursive call to `{n}` is not supported by the executor",
                                m.file, inst.loc.line, inst.loc.col
                            ));
                        }
                        if m.functions[c].is_decl {
                            return Err(format!(
                                "{}:{}:{}: call to `{n}`, which has no body in this module",
                                m.file, inst.loc.line, inst.loc.col
                            ));
                        }
                        if !order.contains(&c) {
                            order.push(c);
                        }
                        visit(m, c, idx, order, path)?;
                    }
                }
            }
        }
        path.pop();
        Ok(())
    }
    visit(m, k_idx, &func_index, &mut order, &mut stack_path)?;

    // Code and register layout.
    let mut funcs = Vec::new();
    let mut start = 0u32;
    let mut reg_base = 0u32;
    let mut fparam_end = 0u64;
    let mut local_end = 0u64;
    let mut shared_end = layout.shared_end;
    let mut dyn_align = layout.dyn_align as u64;
    let mut local_syms_per: Vec<HashMap<String, (Space, u64)>> = Vec::new();
    let mut dyn_names: Vec<(usize, String)> = Vec::new();
    for (pos, &fi) in order.iter().enumerate() {
        let f = &m.functions[fi];
        let mut syms = HashMap::new();
        let mut param_addrs = Vec::new();
        let mut ret_addrs = Vec::new();
        if pos > 0 {
            for p in f.params.iter().chain(f.rets.iter()) {
                fparam_end = align_up(fparam_end, p.align.max(p.ty.size()) as u64);
                let a = FPARAM_TAG + fparam_end;
                syms.insert(p.name.clone(), (Space::Param, a));
                fparam_end += p.size_bytes();
                if param_addrs.len() < f.params.len() {
                    param_addrs.push(a);
                } else {
                    ret_addrs.push(a);
                }
            }
        }
        for v in &f.vars {
            let a = var_align(v);
            let size = v.size_bytes();
            match v.space {
                StateSpace::Local => {
                    local_end = align_up(local_end, a);
                    syms.insert(v.name.clone(), (Space::Local, local_end));
                    local_end += size;
                }
                StateSpace::Param => {
                    fparam_end = align_up(fparam_end, a);
                    syms.insert(v.name.clone(), (Space::Param, FPARAM_TAG + fparam_end));
                    fparam_end += size;
                }
                StateSpace::Shared | StateSpace::SharedCluster => {
                    if size == 0 {
                        dyn_names.push((pos, v.name.clone()));
                        dyn_align = dyn_align.max(a);
                    } else {
                        shared_end = align_up(shared_end, a);
                        syms.insert(v.name.clone(), (Space::Shared, shared_end));
                        shared_end += size;
                    }
                }
                StateSpace::Global => {
                    return Err(format!(
                        "{}:{}: function-scope .global variable `{}` is not supported",
                        m.file, v.loc.line, v.name
                    ))
                }
                StateSpace::Const => {
                    return Err(format!(
                        "{}:{}: function-scope .const variable `{}` is not supported",
                        m.file, v.loc.line, v.name
                    ))
                }
                _ => {}
            }
        }
        local_syms_per.push(syms);
        funcs.push(FuncCode {
            module_idx: fi,
            name: f.name.clone(),
            start,
            len: f.insts.len() as u32,
            reg_base,
            param_addrs,
            ret_addrs,
        });
        start += f.insts.len() as u32;
        reg_base += f.regs.len() as u32;
    }
    let dyn_off = align_up(shared_end, dyn_align);
    for (pos, n) in dyn_names {
        local_syms_per[pos].insert(n, (Space::Shared, dyn_off));
    }
    let mut mlayout_syms = layout.symbols.clone();
    for v in mlayout_syms.values_mut() {
        if v.0 == Space::Shared && v.1 == u64::MAX {
            v.1 = dyn_off;
        }
    }
    let layout2 = ModuleLayout {
        symbols: mlayout_syms,
        const_bank: Vec::new(),
        shared_end,
        dyn_align: dyn_align as u32,
    };
    let special_base = reg_base;
    let nslots = reg_base + sp::COUNT;
    if nslots as usize > u16::MAX as usize {
        return Err(format!(
            "kernel `{name}` uses too many registers ({nslots})"
        ));
    }

    // Kernel parameters.
    let kf = &m.functions[k_idx];
    let mut params = Vec::new();
    let mut kparams = HashMap::new();
    let mut off = 0u64;
    for p in &kf.params {
        off = align_up(off, p.align.max(p.ty.size()) as u64);
        params.push(ParamSlot {
            name: p.name.clone(),
            offset: off,
            size: p.size_bytes(),
            ty: p.ty,
        });
        kparams.insert(p.name.clone(), off);
        off += p.size_bytes();
    }
    let param_bytes = off;

    let mut insts = Vec::with_capacity(start as usize);
    for (pos, fc) in funcs.iter().enumerate() {
        let f = &m.functions[fc.module_idx];
        let ctx = Ctx {
            m,
            f,
            code_funcs: &funcs,
            fi: pos,
            layout: &layout2,
            local_syms: local_syms_per[pos].clone(),
            kparams: if pos == 0 {
                kparams.clone()
            } else {
                HashMap::new()
            },
            special_base,
            func_index: &func_index,
        };
        let rp = reconv(f);
        for (i, inst) in f.insts.iter().enumerate() {
            let mut d = decode_inst(&ctx, inst, fc.start)
                .map_err(|e| format!("{}:{}:{}: {e}", m.file, inst.loc.line, inst.loc.col))?;
            let r = rp.get(i).copied().unwrap_or(f.insts.len() as u32);
            d.rpc = if r as usize >= f.insts.len() {
                RPC_EXIT
            } else {
                fc.start + r
            };
            insts.push(d);
        }
    }
    let regs_per_thread = crate::regest::estimate(m, &order);
    Ok(KernelCode {
        name: name.to_string(),
        file: m.file.clone(),
        insts,
        funcs,
        nslots,
        special_base,
        params,
        param_bytes,
        shared_static: shared_end as u32,
        dyn_shared_align: dyn_align as u32,
        local_bytes: local_end as u32,
        fparam_bytes: fparam_end as u32,
        regs_per_thread,
    })
}

fn src_slot(s: &Src) -> Option<u16> {
    match s {
        Src::R(r) | Src::N(r) => Some(*r as u16),
        Src::I(_) => None,
    }
}

fn decode_inst(ctx: &Ctx, inst: &warpforge_ptx::Instruction, base: u32) -> Result<DInst, String> {
    use OpKind::*;
    let op = inst.op;
    let ops = &inst.operands;
    let mut d = DInst {
        op,
        k: K::Alu,
        guard: u32::MAX,
        guard_neg: false,
        nd: 0,
        d: [0; 4],
        dmask: [u64::MAX; 4],
        ns: 0,
        s: [Src::I(0); 6],
        addr_off: 0,
        space: Space::Generic,
        elem_bytes: op.ty.map_or(4, |t| t.size()),
        target: 0,
        rpc: RPC_EXIT,
        reads_clock: false,
        call: None,
        tex: None,
        fast: Fast::None,
        fmask: u64::MAX,
        tmpl: Template {
            class: class_of(inst),
            ..Default::default()
        },
        line: inst.loc.line,
    };
    if let Some(g) = inst.guard {
        d.guard = ctx.slot(g.reg);
        d.guard_neg = g.negate;
    }
    let need = |n: usize| -> Result<(), String> {
        if ops.len() < n {
            Err(format!(
                "{:?} needs {n} operands, found {}",
                op.kind,
                ops.len()
            ))
        } else {
            Ok(())
        }
    };
    let push_dst = |d: &mut DInst, o: &Operand| -> Result<(), String> {
        let (s, m) = ctx.dst(o)?;
        d.d[d.nd as usize] = s;
        d.dmask[d.nd as usize] = m;
        d.nd += 1;
        Ok(())
    };
    // A destination that may be a predicate pair `%p|%q` (setp, shfl, match): both registers.
    let push_pred_dsts = |d: &mut DInst, o: &Operand| -> Result<(), String> {
        match o {
            Operand::PredPair(p, q) => {
                push_dst(d, &Operand::Reg(*p))?;
                push_dst(d, &Operand::Reg(*q))
            }
            o => push_dst(d, o),
        }
    };
    // The optional member-mask operand of vote and redux: all lanes when absent.
    let member_mask = |o: Option<&Operand>| -> Result<Src, String> {
        match o {
            Some(o) => ctx.value(o, Some(ScalarType::B32)),
            None => Ok(Src::I(0xffff_ffff)),
        }
    };
    // Source operand type for immediates.
    let src_ty = match op.kind {
        Cvt | Set | Slct | Tex => op.ty2.or(op.ty),
        _ => op.ty,
    };
    match op.kind {
        Bra => {
            need(1)?;
            d.k = K::Bra;
            d.target = match &ops[0] {
                Operand::Label(l) => base + *l,
                o => return Err(format!("bra target must be a label, found {o:?}")),
            };
        }
        Brx => return Err("brx.idx (indirect branch) is not supported by the executor".into()),
        Call => {
            d.k = K::Call;
            let fpos = ops
                .iter()
                .position(|o| matches!(o, Operand::Symbol(n) if ctx.func_index.contains_key(n)))
                .ok_or("call without a known function name (indirect calls are not supported)")?;
            let Operand::Symbol(fname) = &ops[fpos] else {
                unreachable!()
            };
            let callee =
                ctx.code_funcs
                    .iter()
                    .position(|f| &f.name == fname)
                    .ok_or_else(|| format!("callee `{fname}` not in code"))? as u32;
            let cf = &ctx.code_funcs[callee as usize];
            let cfunc = &ctx.m.functions[cf.module_idx];
            let list = |o: Option<&Operand>| -> Vec<Operand> {
                match o {
                    Some(Operand::List(v)) | Some(Operand::Vec(v)) => v.clone(),
                    Some(o @ Operand::Symbol(_)) | Some(o @ Operand::Reg(_)) => vec![o.clone()],
                    _ => Vec::new(),
                }
            };
            let rets = if fpos > 0 {
                list(ops.first())
            } else {
                Vec::new()
            };
            let args = list(ops.get(fpos + 1));
            if args.len() != cfunc.params.len() {
                return Err(format!(
                    "call to `{fname}` passes {} arguments, the function takes {}",
                    args.len(),
                    cfunc.params.len()
                ));
            }
            if rets.len() > cfunc.rets.len() {
                return Err(format!(
                    "call to `{fname}` expects {} return values, the function has {}",
                    rets.len(),
                    cfunc.rets.len()
                ));
            }
            let mut site = CallSite {
                callee,
                args: Vec::new(),
                rets: Vec::new(),
            };
            let mut nsrc = 0usize;
            for (i, a) in args.iter().enumerate() {
                let size = cfunc.params[i].size_bytes() as u32;
                let v = match a {
                    Operand::Symbol(n) => CallVal::Buf(ctx.symbol(n)?.1),
                    o => {
                        let s = ctx.value(o, Some(cfunc.params[i].ty))?;
                        if let Some(r) = src_slot(&s) {
                            if nsrc < MAX_SRC {
                                d.tmpl.src[nsrc] = r;
                                nsrc += 1;
                            }
                        }
                        CallVal::Val(s)
                    }
                };
                site.args.push((v, cf.param_addrs[i], size));
            }
            d.tmpl.n_src = nsrc as u8;
            for (i, r) in rets.iter().enumerate() {
                let size = cfunc.rets[i].size_bytes() as u32;
                let v = match r {
                    Operand::Symbol(n) => CallVal::Buf(ctx.symbol(n)?.1),
                    o => {
                        let (s, _) = ctx.dst(o)?;
                        CallVal::Val(Src::R(s))
                    }
                };
                site.rets.push((cf.ret_addrs[i], v, size));
            }
            d.target = callee;
            d.call = Some(Box::new(site));
            return Ok(d);
        }
        Ret => d.k = K::Ret,
        Exit => d.k = K::Exit,
        Trap | Brkpt => d.k = K::Trap,
        Membar | Fence | Prefetch | Prefetchu | Nanosleep | Pmevent => d.k = K::Nop,
        Bar | Barrier => {
            d.k = K::Bar;
            let mode = op.bar.unwrap_or(BarMode::Sync);
            let mut i = 0;
            if mode == BarMode::Red {
                need(3)?;
                push_dst(&mut d, &ops[0])?;
                i = 1;
            }
            // a (barrier id), optional b (count), and for bar.red the predicate c last.
            let nvals = ops.len() - i;
            let (id, cnt, pred) = match (mode, nvals) {
                (BarMode::Red, 2) => (Some(&ops[i]), None, Some(&ops[i + 1])),
                (BarMode::Red, _) => (Some(&ops[i]), Some(&ops[i + 1]), ops.get(i + 2)),
                (_, 0) => (None, None, None),
                (_, 1) => (Some(&ops[i]), None, None),
                _ => (Some(&ops[i]), Some(&ops[i + 1]), None),
            };
            d.s[0] = match id {
                Some(o) => ctx.value(o, Some(ScalarType::U32))?,
                None => Src::I(0),
            };
            d.s[1] = match cnt {
                Some(o) => ctx.value(o, Some(ScalarType::U32))?,
                None => Src::I(0),
            };
            d.s[2] = match pred {
                Some(o) => ctx.value(o, Some(ScalarType::Pred))?,
                None => Src::I(0),
            };
            d.ns = 3;
            if let Src::I(v) = d.s[0] {
                if v > 15 {
                    return Err(format!("barrier id {v} out of range 0..15"));
                }
                d.tmpl.barrier_id = v as u8;
            }
            if let Src::I(v) = d.s[1] {
                if v % 32 != 0 {
                    return Err(format!("barrier thread count {v} is not a multiple of 32"));
                }
                d.tmpl.barrier_threads = v as u32;
            }
        }
        Ld | Ldu | St => {
            need(2)?;
            let is_st = op.kind == St;
            let (vo, ao) = if is_st {
                (&ops[1], &ops[0])
            } else {
                (&ops[0], &ops[1])
            };
            let (base_src, off, sym_sp) = ctx.addr(ao)?;
            d.space = Space::from_ptx(op.space)?;
            if d.space == Space::Generic {
                if let Some(sp) = sym_sp {
                    // `ld [smem_var]`: the generic address of that variable.
                    d.addr_off = off.wrapping_add(window_base(sp.mem_space()) as i64);
                } else {
                    d.addr_off = off;
                }
            } else {
                d.addr_off = off;
            }
            d.s[0] = base_src;
            let elems: Vec<&Operand> = match vo {
                Operand::Vec(v) => v.iter().collect(),
                o => vec![o],
            };
            if elems.len() > 4 {
                return Err("vector accesses wider than .v4 are not supported".into());
            }
            if is_st {
                d.k = K::St;
                for (j, e) in elems.iter().enumerate() {
                    d.s[1 + j] = ctx.value(e, op.ty)?;
                }
                d.ns = 1 + elems.len() as u8;
            } else {
                d.k = K::Ld;
                for e in &elems {
                    push_dst(&mut d, e)?;
                }
                d.ns = 1;
            }
            let bytes = d.elem_bytes * elems.len() as u32;
            d.tmpl.mem = Some((d.space.mem_space(), bytes.min(255) as u8, is_st, false));
        }
        Atom | Red => {
            d.k = K::Atom;
            let has_dst = op.kind == Atom;
            let mut i = 0;
            if has_dst {
                need(3)?;
                push_dst(&mut d, &ops[0])?;
                i = 1;
            } else {
                need(2)?;
            }
            let (base_src, off, sym_sp) = ctx.addr(&ops[i])?;
            d.space = Space::from_ptx(op.space)?;
            d.addr_off = match (d.space, sym_sp) {
                (Space::Generic, Some(sp)) => off.wrapping_add(window_base(sp.mem_space()) as i64),
                _ => off,
            };
            if !matches!(d.space, Space::Global | Space::Shared | Space::Generic) {
                return Err(format!("atomics on {:?} space are not supported", d.space));
            }
            d.s[0] = base_src;
            d.s[1] = ctx.value(&ops[i + 1], op.ty)?;
            d.ns = 2;
            if op.atom_op == Some(AtomOp::Cas) {
                d.s[2] = ctx.value(ops.get(i + 2).ok_or("atom.cas needs 3 sources")?, op.ty)?;
                d.ns = 3;
            }
            if op.atom_op.is_none() {
                return Err("atomic without an operation".into());
            }
            d.tmpl.mem = Some((d.space.mem_space(), d.elem_bytes as u8, true, true));
        }
        Tex => {
            d.k = K::Tex;
            need(2)?;
            let elems: Vec<&Operand> = match &ops[0] {
                Operand::Vec(v) => v.iter().collect(),
                o => vec![o],
            };
            for e in elems.iter().take(4) {
                push_dst(&mut d, e)?;
            }
            // `[tex_ref, {coords}]`, represented as an address with a symbol base followed by a
            // vector, or as a list.
            let (name, coords): (String, Vec<Operand>) = match &ops[1..] {
                [Operand::List(l)] | [Operand::Vec(l)] => {
                    let n = match l.first() {
                        Some(Operand::Symbol(n)) => n.clone(),
                        Some(Operand::Addr {
                            base: AddrBase::Symbol(n),
                            ..
                        }) => n.clone(),
                        _ => return Err("tex: expected [texref, {coords}]".into()),
                    };
                    let c = match l.last() {
                        Some(Operand::Vec(c)) if l.len() > 1 => c.clone(),
                        Some(o) if l.len() > 1 => vec![o.clone()],
                        _ => Vec::new(),
                    };
                    (n, c)
                }
                [Operand::Addr {
                    base: AddrBase::Symbol(n),
                    ..
                }, rest @ ..]
                | [Operand::Symbol(n), rest @ ..] => {
                    let c = match rest.first() {
                        Some(Operand::Vec(c)) => c.clone(),
                        Some(o) => vec![o.clone()],
                        None => Vec::new(),
                    };
                    (n.clone(), c)
                }
                _ => return Err("tex: expected [texref, {coords}]".into()),
            };
            for (j, c) in coords.iter().take(2).enumerate() {
                d.s[j] = ctx.value(c, op.ty2)?;
            }
            d.ns = coords.len().min(2) as u8;
            d.tex = Some(name.into_boxed_str());
            d.tmpl.mem = Some((MemSpace::Tex, 4 * d.nd, false, false));
        }
        Tld4 | Txq | Suld | Sust => {
            return Err(format!("{:?} is not supported by the executor", op.kind))
        }
        Setp => {
            need(3)?;
            d.k = K::Setp;
            push_pred_dsts(&mut d, &ops[0])?;
            d.s[0] = ctx.value(&ops[1], op.ty)?;
            d.s[1] = ctx.value(&ops[2], op.ty)?;
            d.ns = 2;
            if op.bool_op.is_some() {
                d.s[2] = ctx.value(
                    ops.get(3)
                        .ok_or("setp with a boolean op needs a predicate")?,
                    Some(ScalarType::Pred),
                )?;
                d.ns = 3;
            }
        }
        Shfl => {
            need(4)?;
            d.k = K::Shfl;
            push_pred_dsts(&mut d, &ops[0])?;
            let mut j = 1;
            if d.nd == 1 {
                // A separate `|%p` operand form.
                if let Some(Operand::Reg(r)) = ops.get(1) {
                    if ops.len() == 6 {
                        push_dst(&mut d, &Operand::Reg(*r))?;
                        j = 2;
                    }
                }
            }
            for (k, o) in ops[j..].iter().enumerate().take(4) {
                d.s[k] = ctx.value(o, Some(ScalarType::B32))?;
            }
            d.ns = (ops.len() - j).min(4) as u8;
            if d.ns == 3 {
                d.s[3] = Src::I(0xffff_ffff);
            }
        }
        Vote => {
            need(2)?;
            d.k = K::Vote;
            push_dst(&mut d, &ops[0])?;
            d.s[0] = ctx.value(&ops[1], Some(ScalarType::Pred))?;
            d.s[1] = member_mask(ops.get(2))?;
            d.ns = 2;
        }
        Activemask => {
            need(1)?;
            d.k = K::Activemask;
            push_dst(&mut d, &ops[0])?;
        }
        Redux => {
            need(2)?;
            d.k = K::Redux;
            push_dst(&mut d, &ops[0])?;
            d.s[0] = ctx.value(&ops[1], op.ty)?;
            d.s[1] = member_mask(ops.get(2))?;
            d.ns = 2;
        }
        Match => {
            need(3)?;
            d.k = K::Match;
            push_pred_dsts(&mut d, &ops[0])?;
            d.s[0] = ctx.value(&ops[1], op.ty)?;
            d.s[1] = ctx.value(&ops[2], Some(ScalarType::B32))?;
            d.ns = 2;
        }
        Mov if matches!(ops.first(), Some(Operand::Vec(_))) => {
            need(2)?;
            d.k = K::Unpack;
            let Operand::Vec(v) = &ops[0] else {
                unreachable!()
            };
            if v.len() > 4 {
                return Err("mov unpack of more than 4 elements".into());
            }
            for e in v {
                push_dst(&mut d, e)?;
            }
            d.s[0] = ctx.value(&ops[1], op.ty)?;
            d.ns = 1;
        }
        Mov if matches!(ops.get(1), Some(Operand::Vec(_))) => {
            d.k = K::Pack;
            push_dst(&mut d, &ops[0])?;
            let Operand::Vec(v) = &ops[1] else {
                unreachable!()
            };
            if v.len() > 4 {
                return Err("mov pack of more than 4 elements".into());
            }
            for (j, e) in v.iter().enumerate() {
                d.s[j] = ctx.value(e, None)?;
            }
            d.ns = v.len() as u8;
        }
        Addc | Subc | Madc => {
            d.k = K::Carry;
            decode_alu(ctx, &mut d, ops, src_ty)?;
        }
        Add | Sub | Mad if op.cc => {
            d.k = K::Carry;
            decode_alu(ctx, &mut d, ops, src_ty)?;
        }
        Mov => {
            d.k = K::Mov;
            decode_alu(ctx, &mut d, ops, src_ty)?;
        }
        Cvta => {
            decode_alu(ctx, &mut d, ops, src_ty)?;
            let sp = Space::from_ptx(op.space)?;
            if sp == Space::Generic {
                return Err("cvta needs a state space".into());
            }
            d.space = sp;
            d.fast = fast_of(&op);
            d.fmask = d.dmask[0];
        }
        Isspacep => {
            decode_alu(ctx, &mut d, ops, src_ty)?;
            d.space = Space::from_ptx(op.space)?;
        }
        _ => {
            decode_alu(ctx, &mut d, ops, src_ty)?;
            check_alu_types(&op)?;
            d.fast = fast_of(&op);
            if let Some(t) = op.ty {
                let w = match d.fast {
                    Fast::MulWideU32 | Fast::MulWideS32 | Fast::CvtU64U32 | Fast::CvtS64S32 => 64,
                    _ => t.size() * 8,
                };
                d.fmask = d.dmask[0] & if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
            }
        }
    }
    // Registers for the timing template.
    if d.tmpl.n_dst == 0 {
        let n = (d.nd as usize).min(MAX_DST);
        for j in 0..n {
            d.tmpl.dst[j] = d.d[j] as u16;
        }
        d.tmpl.n_dst = n as u8;
    }
    if d.tmpl.n_src == 0 {
        let mut n = 0;
        for s in d.s.iter().take(d.ns as usize) {
            if let Some(r) = src_slot(s) {
                if n < MAX_SRC {
                    d.tmpl.src[n] = r;
                    n += 1;
                }
            }
        }
        if d.guard != u32::MAX && n < MAX_SRC {
            d.tmpl.src[n] = d.guard as u16;
            n += 1;
        }
        d.tmpl.n_src = n as u8;
    }
    let clock_lo = ctx.special_base + sp::CLOCK;
    d.reads_clock = d.s[..d.ns as usize].iter().any(
        |s| matches!(s, Src::R(r) if *r >= clock_lo && *r <= ctx.special_base + sp::GTIMER_HI),
    );
    // Never write special slots other than the sink.
    for j in 0..d.nd as usize {
        if d.d[j] >= ctx.special_base && d.d[j] != ctx.special_base + sp::SINK {
            return Err("special registers cannot be written".into());
        }
    }
    Ok(d)
}

fn decode_alu(
    ctx: &Ctx,
    d: &mut DInst,
    ops: &[Operand],
    src_ty: Option<ScalarType>,
) -> Result<(), String> {
    if ops.len() < 2 {
        return Err(format!("{:?} needs at least 2 operands", d.op.kind));
    }
    if ops.len() > 5 {
        return Err(format!("{:?} has too many operands", d.op.kind));
    }
    let (s, m) = ctx.dst(&ops[0])?;
    d.d[0] = s;
    d.dmask[0] = m;
    d.nd = 1;
    for (j, o) in ops[1..].iter().enumerate() {
        // selp's predicate and bfi/bfe/lop3/shf positions are typed by the executor.
        d.s[j] = ctx.value(o, src_ty)?;
    }
    d.ns = (ops.len() - 1) as u8;
    Ok(())
}

fn check_alu_types(op: &Op) -> Result<(), String> {
    use OpKind::*;
    let t = op.ty;
    let bad = |what: &str| {
        Err(format!(
            "{:?} with type {:?} is not supported ({what})",
            op.kind, t
        ))
    };
    match op.kind {
        Mul | Mad if is_wide(op) && t.is_some_and(|t| t.size() > 4 || t.is_float()) => {
            return bad(".wide needs a 16- or 32-bit integer type");
        }
        Div | Rem if t.is_none() => return bad("needs a type"),
        _ => {}
    }
    Ok(())
}
