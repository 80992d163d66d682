//! Typed PTX module IR: the contract between the parser and every consumer (the functional
//! executor, the instruction analyser, `warpforge ptx check`).
//!
//! Instructions keep PTX's own structure: an [`OpKind`] plus every modifier the ISA allows,
//! decoded into typed fields of [`Op`] (rounding, `.ftz`, `.sat`, comparison, state space, vector
//! width, ...). Registers are resolved to indices into the function's register table, labels to
//! instruction indices. Every instruction carries its source [`Loc`] so later stages can report
//! errors by file, line and column.

use std::collections::HashMap;

/// A source position: 1-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Loc {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
}

/// PTX fundamental types (PTX ISA §5.2). `Pred` is the predicate type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum ScalarType {
    B8,
    B16,
    B32,
    B64,
    B128,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F16x2,
    Bf16,
    Bf16x2,
    F32,
    F64,
    Pred,
}

impl ScalarType {
    /// Size in bytes (predicates count as 1).
    pub const fn size(self) -> u32 {
        use ScalarType::*;
        match self {
            B8 | U8 | S8 | Pred => 1,
            B16 | U16 | S16 | F16 | Bf16 => 2,
            B32 | U32 | S32 | F32 | F16x2 | Bf16x2 => 4,
            B64 | U64 | S64 | F64 => 8,
            B128 => 16,
        }
    }
    /// Signed integer type.
    pub const fn is_signed(self) -> bool {
        matches!(
            self,
            ScalarType::S8 | ScalarType::S16 | ScalarType::S32 | ScalarType::S64
        )
    }
    /// Floating-point type (scalar or packed half).
    pub const fn is_float(self) -> bool {
        matches!(
            self,
            ScalarType::F16
                | ScalarType::F16x2
                | ScalarType::Bf16
                | ScalarType::Bf16x2
                | ScalarType::F32
                | ScalarType::F64
        )
    }
}

/// PTX state spaces (PTX ISA §5.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum StateSpace {
    Reg,
    Sreg,
    Const,
    Global,
    Local,
    Param,
    Shared,
    /// `.shared::cluster` (sm_90); treated as shared of the own CTA.
    SharedCluster,
    Tex,
    /// No space given: a generic address.
    Generic,
}

/// A module: one PTX file.
#[derive(Debug, Clone, Default)]
pub struct Module {
    /// Path or name the module was parsed from (used in error messages).
    pub file: String,
    /// `.version major.minor`.
    pub version: (u32, u32),
    /// `.target` list, e.g. `["sm_70"]`.
    pub target: Vec<String>,
    /// `.address_size` (32 or 64; 64 when absent).
    pub address_size: u32,
    /// Module-scope variables (`.global`, `.const`, `.shared`, `.tex`...).
    pub globals: Vec<Variable>,
    /// Functions and kernels in file order.
    pub functions: Vec<Function>,
}

impl Module {
    /// The function or kernel named `name`.
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }
    /// Index of the function named `name`.
    pub fn function_index(&self, name: &str) -> Option<usize> {
        self.functions.iter().position(|f| f.name == name)
    }
    /// Names of the `.entry` kernels.
    pub fn kernels(&self) -> impl Iterator<Item = &Function> {
        self.functions.iter().filter(|f| f.is_entry)
    }
}

/// Linkage directive of a variable or function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[allow(missing_docs)]
pub enum Linkage {
    #[default]
    None,
    Visible,
    Extern,
    Weak,
    Common,
}

/// One element of a variable initialiser.
#[derive(Debug, Clone, PartialEq)]
pub enum InitItem {
    /// Integer or raw bit pattern (already truncated to the element type by the consumer).
    Int(i128),
    /// Floating-point literal (decimal or `0f`/`0d` hex form, already decoded).
    Float(f64),
    /// Address of a symbol plus a byte offset (`generic(var)+4`, `var`).
    Symbol {
        /// Referenced variable or function.
        name: String,
        /// Byte offset added to its address.
        offset: i64,
        /// Whether wrapped in `generic(...)`.
        generic: bool,
    },
}

/// A variable declaration (module scope or function scope, any state space except `.reg`).
#[derive(Debug, Clone, PartialEq)]
pub struct Variable {
    /// Name as written.
    pub name: String,
    /// State space.
    pub space: StateSpace,
    /// Element type.
    pub ty: ScalarType,
    /// Vector width of the element (`.v2`, `.v4`), 1 for scalars.
    pub vec: u8,
    /// Alignment in bytes (`.align N`; element size when absent).
    pub align: u32,
    /// Array dimensions as written; `None` for an unsized `[]` dimension. Empty for scalars.
    pub dims: Vec<Option<u64>>,
    /// Initialiser elements, flattened in memory order; empty when absent.
    pub init: Vec<InitItem>,
    /// Linkage.
    pub linkage: Linkage,
    /// Where it was declared.
    pub loc: Loc,
}

impl Variable {
    /// Total size in bytes (0 for an unsized extern array; saturates at `u64::MAX`, which the
    /// parser refuses through [`Variable::checked_size_bytes`] and [`max_var_bytes`]).
    pub fn size_bytes(&self) -> u64 {
        self.checked_size_bytes().unwrap_or(u64::MAX)
    }

    /// Total size in bytes, `None` when the declared dimensions overflow 64 bits.
    pub fn checked_size_bytes(&self) -> Option<u64> {
        let elems = self
            .dims
            .iter()
            .try_fold(1u64, |acc, d| acc.checked_mul(d.unwrap_or(0)))?;
        elems
            .max(if self.dims.is_empty() { 1 } else { 0 })
            .checked_mul(self.ty.size() as u64)?
            .checked_mul(self.vec as u64)
    }
}

/// The largest variable the simulator accepts in state space `space`, in bytes: the CUDA limits
/// where there is one (64 KiB of `__constant__` memory, 512 KiB of local memory per thread,
/// 32,764 bytes of kernel parameters on compute capability 7.0+, rounded up to 32 KiB), 256 KiB of
/// static shared memory (above every GPU's 228 KiB), and 1 GiB for a module-scope `.global`
/// variable (a `__device__` array; larger data belongs in buffers the host allocates). A
/// declaration above the bound is refused by the parser, so that a mistyped or hostile length
/// cannot make the loader reserve gigabytes.
pub fn max_var_bytes(space: StateSpace) -> u64 {
    match space {
        StateSpace::Const => 64 << 10,
        StateSpace::Local => 512 << 10,
        StateSpace::Param => 32 << 10,
        StateSpace::Shared | StateSpace::SharedCluster => 256 << 10,
        _ => 1 << 30,
    }
}

/// A register declared in a function (`.reg .b32 %r<10>` declares `%r0`..`%r9`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegInfo {
    /// Full name, e.g. `%r3`.
    pub name: String,
    /// Declared type.
    pub ty: ScalarType,
    /// Vector width (`.reg .v4 .f32 %v;` is 4), 1 normally.
    pub vec: u8,
}

/// Index of a register in [`Function::regs`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegId(pub u32);

/// A kernel or function parameter (`.param .u64 p`, `.param .align 8 .b8 s[16]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    /// Name.
    pub name: String,
    /// Element type.
    pub ty: ScalarType,
    /// Alignment in bytes.
    pub align: u32,
    /// Array length in elements (`None` for scalars).
    pub array_len: Option<u64>,
    /// `.ptr.global` etc. attribute, if any.
    pub ptr_space: Option<StateSpace>,
}

impl Param {
    /// Size in bytes.
    pub fn size_bytes(&self) -> u64 {
        self.ty.size() as u64 * self.array_len.unwrap_or(1)
    }
}

/// A function (`.func`) or kernel (`.entry`).
#[derive(Debug, Clone, Default)]
pub struct Function {
    /// Name.
    pub name: String,
    /// `.entry` (kernel) or `.func`.
    pub is_entry: bool,
    /// Linkage.
    pub linkage: Linkage,
    /// Parameters in order.
    pub params: Vec<Param>,
    /// Return parameters of a `.func` (`.func (.param .b32 r) f(...)`).
    pub rets: Vec<Param>,
    /// Register table; [`RegId`] indexes it. Includes predicates.
    pub regs: Vec<RegInfo>,
    /// Function-scope variables (`.local`, `.shared`, `.param` arrays declared in the body, and
    /// the `.param` buffers used by `call` sequences).
    pub vars: Vec<Variable>,
    /// Instructions in order (labels are not instructions).
    pub insts: Vec<Instruction>,
    /// Label name to the index of the instruction that follows it (may equal `insts.len()`).
    pub labels: HashMap<String, u32>,
    /// `.maxntid`, if given.
    pub maxntid: Option<[u32; 3]>,
    /// `.reqntid`, if given.
    pub reqntid: Option<[u32; 3]>,
    /// `.minnctapersm`, if given.
    pub minnctapersm: Option<u32>,
    /// `.maxnreg`, if given.
    pub maxnreg: Option<u32>,
    /// Whether the declaration had no body (a prototype / `.extern .func`).
    pub is_decl: bool,
    /// Where the function header starts.
    pub loc: Loc,
}

/// A special register (PTX ISA §10). Vector registers carry their component (0 = x, 1 = y, 2 = z).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum SpecialReg {
    Tid(u8),
    Ntid(u8),
    Ctaid(u8),
    Nctaid(u8),
    Laneid,
    Warpid,
    Nwarpid,
    Smid,
    Nsmid,
    Gridid,
    LanemaskEq,
    LanemaskLe,
    LanemaskLt,
    LanemaskGe,
    LanemaskGt,
    Clock,
    ClockHi,
    Clock64,
    GlobalTimer,
    GlobalTimerLo,
    GlobalTimerHi,
    TotalSmemSize,
    DynamicSmemSize,
    /// `%envregN`.
    EnvReg(u8),
}

/// Base of an address operand.
#[derive(Debug, Clone, PartialEq)]
pub enum AddrBase {
    /// `[%rd1+8]`
    Reg(RegId),
    /// `[var+8]`: a variable or parameter by name.
    Symbol(String),
    /// `[0x1000]`: an absolute address.
    Imm,
}

/// An instruction operand.
#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    /// A register.
    Reg(RegId),
    /// A negated predicate source, `!%p`.
    NotReg(RegId),
    /// `setp`'s two-destination form `%p|%q`.
    PredPair(RegId, RegId),
    /// Integer immediate (decimal, hex, octal, binary; sign-extended to 64 bits).
    Imm(i64),
    /// `0fXXXXXXXX` or decimal float immediate destined for an `.f32` operand, as f32 bits.
    F32(u32),
    /// `0dXXXXXXXXXXXXXXXX` immediate, as f64 bits.
    F64(u64),
    /// A special register.
    Special(SpecialReg),
    /// A bare symbol used as a value: a variable name (its address), a function name (`call`) or
    /// an unresolved name.
    Symbol(String),
    /// A symbol plus offset used as a value (`var+4`).
    SymbolOffset(String, i64),
    /// A branch target, resolved to an instruction index.
    Label(u32),
    /// A memory address `[base+offset]`.
    Addr {
        /// Base.
        base: AddrBase,
        /// Signed byte offset (or the absolute address for [`AddrBase::Imm`]).
        offset: i64,
    },
    /// A vector `{a, b, c, d}` (elements are registers, immediates or [`Operand::Sink`]).
    Vec(Vec<Operand>),
    /// The sink `_`.
    Sink,
    /// A parenthesised list, used by `call (ret), f, (a, b)`; also the bracketed texture operand
    /// of `tex`/`tld4`: `[tex, {x, y}]` is `List([Symbol(tex), Vec([x, y])])` and
    /// `[tex, sampler, {x}]` is `List([Symbol(tex), Symbol(sampler), Vec([x])])`.
    List(Vec<Operand>),
}

/// Opcode, without modifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum OpKind {
    // Integer and floating-point arithmetic.
    Add,
    Addc,
    Sub,
    Subc,
    Mul,
    Mad,
    Madc,
    Mul24,
    Mad24,
    Sad,
    Div,
    Rem,
    Abs,
    Neg,
    Min,
    Max,
    Popc,
    Clz,
    Bfind,
    Fns,
    Brev,
    Bfe,
    Bfi,
    Dp4a,
    Dp2a,
    Fma,
    Rcp,
    Sqrt,
    Rsqrt,
    Sin,
    Cos,
    Lg2,
    Ex2,
    Tanh,
    Copysign,
    Testp,
    // Comparison and selection.
    Setp,
    Set,
    Selp,
    Slct,
    // Logic and shift.
    And,
    Or,
    Xor,
    Not,
    Cnot,
    Lop3,
    Shl,
    Shr,
    Shf,
    Prmt,
    // Data movement and conversion.
    Mov,
    Ld,
    Ldu,
    St,
    Prefetch,
    Prefetchu,
    Cvt,
    Cvta,
    Isspacep,
    Tex,
    Tld4,
    Txq,
    Suld,
    Sust,
    // Control flow.
    Bra,
    Brx,
    Call,
    Ret,
    Exit,
    // Synchronisation and warp-level.
    Bar,
    Barrier,
    Membar,
    Fence,
    Atom,
    Red,
    Vote,
    Shfl,
    Match,
    Activemask,
    Redux,
    // Miscellaneous.
    Trap,
    Brkpt,
    Nanosleep,
    Pmevent,
}

/// Rounding modifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rounding {
    /// `.rn`: to nearest even.
    Rn,
    /// `.rz`: toward zero.
    Rz,
    /// `.rm`: toward minus infinity.
    Rm,
    /// `.rp`: toward plus infinity.
    Rp,
    /// `.rni`: integer rounding, nearest even (cvt).
    Rni,
    /// `.rzi`: integer rounding toward zero (cvt).
    Rzi,
    /// `.rmi`: integer rounding toward minus infinity (cvt).
    Rmi,
    /// `.rpi`: integer rounding toward plus infinity (cvt).
    Rpi,
    /// `.rna`: to nearest, ties away (cvt to tf32).
    Rna,
}

/// Comparison operator of `setp`, `set`, `slct` (PTX ISA §9.7.8.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Lo,
    Ls,
    Hi,
    Hs,
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    Num,
    Nan,
}

/// Boolean combiner of `setp.CMP.BOOL` / `set`, and the op of `vote`-like predicate reductions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum BoolOp {
    And,
    Or,
    Xor,
}

/// Operation of `atom`, `red`, `redux`, `bar.red`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum AtomOp {
    Add,
    Min,
    Max,
    Inc,
    Dec,
    And,
    Or,
    Xor,
    Exch,
    Cas,
    /// `bar.red.popc`.
    Popc,
}

/// Mode of `shfl`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum ShflMode {
    Up,
    Down,
    Bfly,
    Idx,
}

/// Mode of `vote`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum VoteMode {
    All,
    Any,
    Uni,
    Ballot,
}

/// Mode of `bar` / `barrier`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum BarMode {
    Sync,
    Arrive,
    Red,
}

/// Multiplication width of `mul` / `mad`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum MulMode {
    Lo,
    Hi,
    Wide,
}

/// Texture geometry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum TexGeom {
    D1,
    D2,
    D3,
    A1d,
    A2d,
    Cube,
}

/// Mode of `prmt` (`.f4e`, `.b4e`, `.rc8`, `.ecl`, `.ecr`, `.rc16`) or `None` for the default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum PrmtMode {
    F4e,
    B4e,
    Rc8,
    Ecl,
    Ecr,
    Rc16,
}

/// `testp` property.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum TestpOp {
    Finite,
    Infinite,
    Number,
    NotANumber,
    Normal,
    Subnormal,
}

/// `shf` direction and mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum ShfMode {
    LClamp,
    LWrap,
    RClamp,
    RWrap,
}

/// A fully decoded opcode with its modifiers. Fields that do not apply to an opcode are left at
/// their defaults; the parser rejects modifiers an opcode does not take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Op {
    /// The opcode.
    pub kind: OpKind,
    /// Primary (destination / operation) type, e.g. `.s32` of `add.s32`, `.f32` of
    /// `cvt.f32.s32`, `.b32` of `shfl.sync.down.b32`. `None` for untyped ops (`bra`, `bar`).
    pub ty: Option<ScalarType>,
    /// Second type: the source type of `cvt`, `set`, `slct`, `tex` (coordinate type), `mul.wide`
    /// is not here (its source type is `ty`).
    pub ty2: Option<ScalarType>,
    /// Rounding modifier.
    pub rounding: Option<Rounding>,
    /// `.ftz`.
    pub ftz: bool,
    /// `.sat` (also `.satfinite`).
    pub sat: bool,
    /// `.approx`.
    pub approx: bool,
    /// `.full` (`div.full.f32`).
    pub full: bool,
    /// `.lo` / `.hi` / `.wide` of `mul`, `mad`, `mul24`, `mad24`.
    pub mul_mode: Option<MulMode>,
    /// `.cc` of `add.cc`, `sub.cc`, `mad.lo.cc` (writes the carry flag).
    pub cc: bool,
    /// State space of `ld`, `st`, `atom`, `red`, `cvta`, `isspacep`, `prefetch`.
    pub space: Option<StateSpace>,
    /// `cvta.to.SPACE` (true) versus `cvta.SPACE` (false).
    pub cvta_to: bool,
    /// Vector width: 1, 2 or 4 (`.v2`, `.v4`; `.v8` for some loads).
    pub vec: u8,
    /// `.volatile` / `.relaxed` / `.acquire` / `.release` / `.acq_rel` / `.sc` / `.mmio` on
    /// memory operations and fences (only recorded; `.weak` leaves it false).
    pub volatile: bool,
    /// Comparison of `setp` / `set` / `slct`.
    pub cmp: Option<CmpOp>,
    /// Boolean combiner of `setp.CMP.BOOL` / `set.CMP.BOOL`.
    pub bool_op: Option<BoolOp>,
    /// Operation of `atom`, `red`, `redux`, `bar.red`.
    pub atom_op: Option<AtomOp>,
    /// `shfl` mode.
    pub shfl: Option<ShflMode>,
    /// `vote` mode; also the mode of `match` (`.any` / `.all`).
    pub vote: Option<VoteMode>,
    /// `bar` / `barrier` mode.
    pub bar: Option<BarMode>,
    /// `.sync` present (`shfl.sync`, `vote.sync`, `bar.sync` is expressed by `bar`).
    pub sync: bool,
    /// `.uni` on `bra`, `call`, `ret`.
    pub uni: bool,
    /// `.aligned` on `bar` / `barrier`.
    pub aligned: bool,
    /// Texture geometry.
    pub tex_geom: Option<TexGeom>,
    /// `prmt` mode.
    pub prmt: Option<PrmtMode>,
    /// `testp` property.
    pub testp: Option<TestpOp>,
    /// `shf` mode.
    pub shf: Option<ShfMode>,
    /// `bfind.shiftamt`, `clz`-style flags.
    pub shiftamt: bool,
    /// `.nc` (non-coherent, read-only data path) on `ld.global`.
    pub nc: bool,
    /// `membar` / `fence` level, or the scope of a memory operation or barrier: 0 = cta,
    /// 1 = gpu (gl; also `.cluster`, treated as gpu), 2 = sys. 1 when absent.
    pub scope: u8,
    /// `bar.warp.sync` (a warp-level barrier on a member mask; `bar` is then `Some(Sync)`).
    pub warp: bool,
    /// `.NaN` on `min` / `max` (sm_80+): a NaN operand gives a canonical NaN result instead of
    /// the other operand.
    pub nan: bool,
}

impl Op {
    /// A bare op of `kind` with every modifier at its default.
    pub const fn new(kind: OpKind) -> Self {
        Self {
            kind,
            ty: None,
            ty2: None,
            rounding: None,
            ftz: false,
            sat: false,
            approx: false,
            full: false,
            mul_mode: None,
            cc: false,
            space: None,
            cvta_to: false,
            vec: 1,
            volatile: false,
            cmp: None,
            bool_op: None,
            atom_op: None,
            shfl: None,
            vote: None,
            bar: None,
            sync: false,
            uni: false,
            aligned: false,
            tex_geom: None,
            prmt: None,
            testp: None,
            shf: None,
            shiftamt: false,
            nc: false,
            scope: 1,
            warp: false,
            nan: false,
        }
    }
}

/// A guard predicate: `@%p` or `@!%p`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Guard {
    /// Predicate register.
    pub reg: RegId,
    /// `@!%p`.
    pub negate: bool,
}

/// One static instruction.
///
/// Shapes the parser guarantees: the operand count fits the opcode; `ld`/`ldu`/`atom` have an
/// [`Operand::Addr`] at index 1 and `st`/`red`/`prefetch` at index 0; `bra` has exactly one
/// [`Operand::Label`]; `call` is `[List(rets),] Symbol(f)|Reg(ptr) [, List(args)] [,
/// Symbol(prototype)]`; `.L2::cache_hint` adds one trailing cache-policy operand to a memory
/// instruction.
#[derive(Debug, Clone, PartialEq)]
pub struct Instruction {
    /// Guard predicate, if any.
    pub guard: Option<Guard>,
    /// Decoded opcode and modifiers.
    pub op: Op,
    /// Operands in PTX order (destination first).
    pub operands: Vec<Operand>,
    /// Source position of the opcode.
    pub loc: Loc,
}
