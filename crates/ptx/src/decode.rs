//! Opcode and modifier decoding: `setp.lt.and.ftz.f32` to a typed [`Op`] (PTX ISA §9.7).
//!
//! Each modifier is classified into one [`Op`] field; an opcode only takes the modifier classes
//! listed in [`accepts`]; anything else is an error naming the modifier. Cache operators
//! (`.ca .cg .cs .lu .cv .wb .wt`), eviction hints (`.L1::evict_*`, `.L2::*`), prefetch sizes
//! (`.L2::64B` ...) and `.noftz` are accepted and not recorded: they do not change the
//! functional result. `.lo`/`.hi` are comparisons on `setp`/`set` and multiply widths on
//! `mul`/`mad`/`mul24`/`mad24`/`madc`/`dp2a`.

use crate::ir::*;

/// Parses a type suffix (`b32`, `f16x2`, `pred`, ...).
pub(crate) fn scalar_type(s: &str) -> Option<ScalarType> {
    use ScalarType::*;
    Some(match s {
        "b8" => B8,
        "b16" => B16,
        "b32" => B32,
        "b64" => B64,
        "b128" => B128,
        "u8" => U8,
        "u16" => U16,
        "u32" => U32,
        "u64" => U64,
        "s8" => S8,
        "s16" => S16,
        "s32" => S32,
        "s64" => S64,
        "f16" => F16,
        "f16x2" => F16x2,
        "bf16" => Bf16,
        "bf16x2" => Bf16x2,
        "f32" => F32,
        "f64" => F64,
        "pred" => Pred,
        _ => return None,
    })
}

/// Opcode name to kind.
pub(crate) fn op_kind(s: &str) -> Option<OpKind> {
    use OpKind::*;
    Some(match s {
        "add" => Add,
        "addc" => Addc,
        "sub" => Sub,
        "subc" => Subc,
        "mul" => Mul,
        "mad" => Mad,
        "madc" => Madc,
        "mul24" => Mul24,
        "mad24" => Mad24,
        "sad" => Sad,
        "div" => Div,
        "rem" => Rem,
        "abs" => Abs,
        "neg" => Neg,
        "min" => Min,
        "max" => Max,
        "popc" => Popc,
        "clz" => Clz,
        "bfind" => Bfind,
        "fns" => Fns,
        "brev" => Brev,
        "bfe" => Bfe,
        "bfi" => Bfi,
        "dp4a" => Dp4a,
        "dp2a" => Dp2a,
        "fma" => Fma,
        "rcp" => Rcp,
        "sqrt" => Sqrt,
        "rsqrt" => Rsqrt,
        "sin" => Sin,
        "cos" => Cos,
        "lg2" => Lg2,
        "ex2" => Ex2,
        "tanh" => Tanh,
        "copysign" => Copysign,
        "testp" => Testp,
        "setp" => Setp,
        "set" => Set,
        "selp" => Selp,
        "slct" => Slct,
        "and" => And,
        "or" => Or,
        "xor" => Xor,
        "not" => Not,
        "cnot" => Cnot,
        "lop3" => Lop3,
        "shl" => Shl,
        "shr" => Shr,
        "shf" => Shf,
        "prmt" => Prmt,
        "mov" => Mov,
        "ld" => Ld,
        "ldu" => Ldu,
        "st" => St,
        "prefetch" => Prefetch,
        "prefetchu" => Prefetchu,
        "cvt" => Cvt,
        "cvta" => Cvta,
        "isspacep" => Isspacep,
        "tex" => Tex,
        "tld4" => Tld4,
        "txq" => Txq,
        "suld" => Suld,
        "sust" => Sust,
        "bra" => Bra,
        "brx" => Brx,
        "call" => Call,
        "ret" => Ret,
        "exit" => Exit,
        "bar" => Bar,
        "barrier" => Barrier,
        "membar" => Membar,
        "fence" => Fence,
        "atom" => Atom,
        "red" => Red,
        "vote" => Vote,
        "shfl" => Shfl,
        "match" => Match,
        "activemask" => Activemask,
        "redux" => Redux,
        "trap" => Trap,
        "brkpt" => Brkpt,
        "nanosleep" => Nanosleep,
        "pmevent" => Pmevent,
        _ => return None,
    })
}

/// Modifier classes; see [`accepts`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Type,
    FloatRound,
    IntRound,
    Ftz,
    Sat,
    Approx,
    Full,
    MulMode,
    Cc,
    Space,
    To,
    Vec,
    MemOrder,
    Scope,
    Cmp,
    BoolOp,
    AtomOp,
    Shfl,
    Vote,
    BarMode,
    Sync,
    Uni,
    Aligned,
    Geom,
    Prmt,
    Testp,
    Shf,
    Shiftamt,
    Nc,
    CacheHint,
    Warp,
    NaN,
}

/// Whether opcode `k` takes modifiers of class `c`.
fn accepts(k: OpKind, c: Class) -> bool {
    use Class as C;
    use OpKind::*;
    match c {
        C::Type => !matches!(
            k,
            Bra | Brx | Call | Ret | Exit | Membar | Fence | Trap | Brkpt | Pmevent
        ),
        C::FloatRound => matches!(k, Add | Sub | Mul | Fma | Mad | Div | Rcp | Sqrt | Cvt),
        C::IntRound => k == Cvt,
        C::Ftz => matches!(
            k,
            Add | Sub
                | Mul
                | Fma
                | Mad
                | Div
                | Rcp
                | Sqrt
                | Rsqrt
                | Sin
                | Cos
                | Lg2
                | Ex2
                | Tanh
                | Min
                | Max
                | Abs
                | Neg
                | Setp
                | Set
                | Cvt
        ),
        C::Sat => matches!(k, Add | Sub | Mul | Fma | Mad | Mad24 | Cvt),
        C::Approx => matches!(k, Div | Rcp | Sqrt | Rsqrt | Sin | Cos | Lg2 | Ex2 | Tanh),
        C::Full => k == Div,
        C::MulMode => matches!(k, Mul | Mad | Mul24 | Mad24 | Madc | Dp2a),
        C::Cc => matches!(k, Add | Sub | Addc | Subc | Mad | Madc),
        C::Space => matches!(
            k,
            Ld | Ldu | St | Atom | Red | Cvta | Isspacep | Prefetch | Prefetchu
        ),
        C::To => k == Cvta,
        C::Vec => matches!(k, Ld | Ldu | St | Tex | Tld4 | Suld | Sust | Atom | Red),
        C::MemOrder => matches!(k, Ld | St | Atom | Red | Fence),
        C::Scope => matches!(k, Ld | St | Atom | Red | Fence | Membar | Bar | Barrier),
        C::Cmp => matches!(k, Setp | Set),
        C::BoolOp => matches!(k, Setp | Set),
        C::AtomOp => matches!(k, Atom | Red | Redux),
        C::Shfl => k == Shfl,
        C::Vote => matches!(k, Vote | Match),
        C::BarMode => matches!(k, Bar | Barrier),
        C::Sync => matches!(k, Shfl | Vote | Match | Redux | Bar | Barrier),
        C::Uni => matches!(k, Bra | Brx | Call | Ret),
        C::Aligned => matches!(k, Bar | Barrier),
        C::Geom => matches!(k, Tex | Tld4 | Txq | Suld | Sust),
        C::Prmt => k == Prmt,
        C::Testp => k == Testp,
        C::Shf => k == Shf,
        C::Shiftamt => k == Bfind,
        C::Nc => k == Ld,
        C::CacheHint => matches!(k, Ld | Ldu | St | Prefetch | Prefetchu | Atom | Red),
        C::Warp => k == Bar,
        C::NaN => matches!(k, Min | Max),
    }
}

/// Decoded opcode plus side information the operand parser needs.
pub(crate) struct Decoded {
    pub op: Op,
    /// `.L2::cache_hint` was given: one extra trailing cache-policy operand.
    pub cache_hint: bool,
    /// `shf` direction given (`.l` = true) and wrap mode given (`.wrap` = true).
    shf_dir: Option<bool>,
    shf_wrap: Option<bool>,
}

/// One classified modifier.
#[derive(Debug, Clone, Copy)]
enum Mod {
    Type(ScalarType),
    Round(Rounding, Class),
    Ftz,
    Sat,
    Approx,
    Full,
    Cmp(CmpOp),
    Mul(MulMode),
    Cc,
    Space(StateSpace),
    To,
    Vec(u8),
    Order(bool),
    Scope(u8),
    Bool(BoolOp),
    Atom(AtomOp),
    BarRed(AtomOp),
    Shfl(ShflMode),
    Vote(VoteMode),
    Bar(BarMode),
    Sync,
    Uni,
    Aligned,
    Geom(TexGeom),
    Prmt(PrmtMode),
    Testp(TestpOp),
    ShfDir(bool),
    ShfWrap(bool),
    Shiftamt,
    Nc,
    Ignore,
    CacheHint,
    Warp,
    NaN,
}

impl Mod {
    fn class(self) -> Class {
        match self {
            Mod::Type(_) => Class::Type,
            Mod::Round(_, c) => c,
            Mod::Ftz => Class::Ftz,
            Mod::Sat => Class::Sat,
            Mod::Approx => Class::Approx,
            Mod::Full => Class::Full,
            Mod::Cmp(_) => Class::Cmp,
            Mod::Mul(_) => Class::MulMode,
            Mod::Cc => Class::Cc,
            Mod::Space(_) => Class::Space,
            Mod::To => Class::To,
            Mod::Vec(_) => Class::Vec,
            Mod::Order(_) => Class::MemOrder,
            Mod::Scope(_) => Class::Scope,
            Mod::Bool(_) => Class::BoolOp,
            Mod::Atom(_) => Class::AtomOp,
            Mod::BarRed(_) | Mod::Bar(_) => Class::BarMode,
            Mod::Shfl(_) => Class::Shfl,
            Mod::Vote(_) => Class::Vote,
            Mod::Sync => Class::Sync,
            Mod::Uni => Class::Uni,
            Mod::Aligned => Class::Aligned,
            Mod::Geom(_) => Class::Geom,
            Mod::Prmt(_) => Class::Prmt,
            Mod::Testp(_) => Class::Testp,
            Mod::ShfDir(_) | Mod::ShfWrap(_) => Class::Shf,
            Mod::Shiftamt => Class::Shiftamt,
            Mod::Nc => Class::Nc,
            Mod::Ignore | Mod::CacheHint => Class::CacheHint,
            Mod::Warp => Class::Warp,
            Mod::NaN => Class::NaN,
        }
    }

    /// Records the modifier; false when it duplicates or conflicts with an earlier one.
    fn apply(self, d: &mut Decoded) -> bool {
        let op = &mut d.op;
        match self {
            Mod::Type(t) => {
                if op.ty.is_none() {
                    op.ty = Some(t);
                    true
                } else {
                    set(&mut op.ty2, t)
                }
            }
            Mod::Round(r, _) => set(&mut op.rounding, r),
            Mod::Ftz => flag(&mut op.ftz),
            Mod::Sat => flag(&mut op.sat),
            Mod::Approx => flag(&mut op.approx),
            Mod::Full => flag(&mut op.full),
            Mod::Cmp(c) => set(&mut op.cmp, c),
            Mod::Mul(m) => set(&mut op.mul_mode, m),
            Mod::Cc => flag(&mut op.cc),
            Mod::Space(s) => set(&mut op.space, s),
            Mod::To => flag(&mut op.cvta_to),
            Mod::Vec(n) => {
                if op.vec != 1 {
                    return false;
                }
                op.vec = n;
                true
            }
            Mod::Order(v) => {
                op.volatile |= v;
                true
            }
            Mod::Scope(s) => {
                op.scope = s;
                true
            }
            Mod::Bool(b) => set(&mut op.bool_op, b),
            Mod::Atom(a) => set(&mut op.atom_op, a),
            Mod::BarRed(a) => op.bar == Some(BarMode::Red) && set(&mut op.atom_op, a),
            Mod::Shfl(m) => set(&mut op.shfl, m),
            Mod::Vote(m) => set(&mut op.vote, m),
            Mod::Bar(m) => set(&mut op.bar, m),
            Mod::Sync => {
                if matches!(op.kind, OpKind::Bar | OpKind::Barrier) {
                    set(&mut op.bar, BarMode::Sync)
                } else {
                    flag(&mut op.sync)
                }
            }
            Mod::Uni => flag(&mut op.uni),
            Mod::Aligned => flag(&mut op.aligned),
            Mod::Geom(g) => set(&mut op.tex_geom, g),
            Mod::Prmt(p) => set(&mut op.prmt, p),
            Mod::Testp(t) => set(&mut op.testp, t),
            Mod::ShfDir(l) => set(&mut d.shf_dir, l),
            Mod::ShfWrap(w) => set(&mut d.shf_wrap, w),
            Mod::Shiftamt => flag(&mut op.shiftamt),
            Mod::Nc => flag(&mut op.nc),
            Mod::Ignore => true,
            Mod::CacheHint => flag(&mut d.cache_hint),
            Mod::Warp => flag(&mut op.warp),
            Mod::NaN => flag(&mut op.nan),
        }
    }
}

/// Decodes `kind` with the modifier words `mods` (without their leading dot). On error returns
/// the index of the offending modifier (`mods.len()` for a missing one) and a message.
pub(crate) fn decode(kind: OpKind, mods: &[&str]) -> Result<Decoded, (usize, String)> {
    let mut d = Decoded {
        op: Op::new(kind),
        cache_hint: false,
        shf_dir: None,
        shf_wrap: None,
    };
    let mut ntypes = 0;
    let mut seen_scope = false;
    for (i, &m) in mods.iter().enumerate() {
        let Some(md) = classify(kind, m) else {
            return Err((
                i,
                format!(
                    "unknown or unsupported modifier `.{m}` on `{}`",
                    kname(kind)
                ),
            ));
        };
        let class = md.class();
        if !accepts(kind, class) {
            return Err((
                i,
                format!("modifier `.{m}` is not valid on `{}`", kname(kind)),
            ));
        }
        if class == Class::Type {
            ntypes += 1;
            if ntypes > 2 {
                return Err((i, format!("too many type modifiers on `{}`", kname(kind))));
            }
        }
        if class == Class::Scope {
            if seen_scope {
                return Err((i, format!("more than one scope on `{}`", kname(kind))));
            }
            seen_scope = true;
        }
        if !md.apply(&mut d) {
            return Err((
                i,
                format!(
                    "duplicate or conflicting modifier `.{m}` on `{}`",
                    kname(kind)
                ),
            ));
        }
    }
    finish(&mut d, mods.len())?;
    Ok(d)
}

fn kname(k: OpKind) -> String {
    format!("{k:?}").to_ascii_lowercase()
}

fn set<T>(slot: &mut Option<T>, v: T) -> bool {
    if slot.is_some() {
        return false;
    }
    *slot = Some(v);
    true
}

fn flag(slot: &mut bool) -> bool {
    if *slot {
        return false;
    }
    *slot = true;
    true
}

fn classify(kind: OpKind, m: &str) -> Option<Mod> {
    use OpKind::*;
    if let Some(t) = scalar_type(m) {
        return Some(Mod::Type(t));
    }
    let is_cmp_op = matches!(kind, Setp | Set);
    let is_atomic = matches!(kind, Atom | Red | Redux);
    let is_bar = matches!(kind, Bar | Barrier);
    Some(match m {
        "rn" => Mod::Round(Rounding::Rn, Class::FloatRound),
        "rz" => Mod::Round(Rounding::Rz, Class::FloatRound),
        "rm" => Mod::Round(Rounding::Rm, Class::FloatRound),
        "rp" => Mod::Round(Rounding::Rp, Class::FloatRound),
        "rni" => Mod::Round(Rounding::Rni, Class::IntRound),
        "rzi" => Mod::Round(Rounding::Rzi, Class::IntRound),
        "rmi" => Mod::Round(Rounding::Rmi, Class::IntRound),
        "rpi" => Mod::Round(Rounding::Rpi, Class::IntRound),
        "rna" => Mod::Round(Rounding::Rna, Class::IntRound),
        "ftz" => Mod::Ftz,
        "sat" | "satfinite" => Mod::Sat,
        "approx" => Mod::Approx,
        "full" => Mod::Full,
        "lo" if is_cmp_op => Mod::Cmp(CmpOp::Lo),
        "hi" if is_cmp_op => Mod::Cmp(CmpOp::Hi),
        "lo" => Mod::Mul(MulMode::Lo),
        "hi" => Mod::Mul(MulMode::Hi),
        "wide" => Mod::Mul(MulMode::Wide),
        "cc" => Mod::Cc,
        "global" => Mod::Space(StateSpace::Global),
        "shared" | "shared::cta" => Mod::Space(StateSpace::Shared),
        "shared::cluster" => Mod::Space(StateSpace::SharedCluster),
        "local" => Mod::Space(StateSpace::Local),
        "const" => Mod::Space(StateSpace::Const),
        "param" | "param::entry" | "param::func" => Mod::Space(StateSpace::Param),
        "to" => Mod::To,
        "v2" => Mod::Vec(2),
        "v4" => Mod::Vec(4),
        "v8" => Mod::Vec(8),
        "volatile" | "relaxed" | "acquire" | "release" | "acq_rel" | "sc" | "mmio" => {
            Mod::Order(true)
        }
        "weak" => Mod::Order(false),
        "cta" => Mod::Scope(0),
        "gpu" | "gl" | "cluster" => Mod::Scope(1),
        "sys" => Mod::Scope(2),
        "eq" => Mod::Cmp(CmpOp::Eq),
        "ne" => Mod::Cmp(CmpOp::Ne),
        "lt" => Mod::Cmp(CmpOp::Lt),
        "le" => Mod::Cmp(CmpOp::Le),
        "gt" => Mod::Cmp(CmpOp::Gt),
        "ge" => Mod::Cmp(CmpOp::Ge),
        "ls" => Mod::Cmp(CmpOp::Ls),
        "hs" => Mod::Cmp(CmpOp::Hs),
        "equ" => Mod::Cmp(CmpOp::Equ),
        "neu" => Mod::Cmp(CmpOp::Neu),
        "ltu" => Mod::Cmp(CmpOp::Ltu),
        "leu" => Mod::Cmp(CmpOp::Leu),
        "gtu" => Mod::Cmp(CmpOp::Gtu),
        "geu" => Mod::Cmp(CmpOp::Geu),
        "num" => Mod::Cmp(CmpOp::Num),
        "nan" => Mod::Cmp(CmpOp::Nan),
        "and" if is_atomic => Mod::Atom(AtomOp::And),
        "or" if is_atomic => Mod::Atom(AtomOp::Or),
        "xor" if is_atomic => Mod::Atom(AtomOp::Xor),
        "and" if is_bar => Mod::BarRed(AtomOp::And),
        "or" if is_bar => Mod::BarRed(AtomOp::Or),
        "popc" if is_bar => Mod::BarRed(AtomOp::Popc),
        "and" => Mod::Bool(BoolOp::And),
        "or" => Mod::Bool(BoolOp::Or),
        "xor" => Mod::Bool(BoolOp::Xor),
        "add" => Mod::Atom(AtomOp::Add),
        "min" => Mod::Atom(AtomOp::Min),
        "max" => Mod::Atom(AtomOp::Max),
        "inc" => Mod::Atom(AtomOp::Inc),
        "dec" => Mod::Atom(AtomOp::Dec),
        "exch" => Mod::Atom(AtomOp::Exch),
        "cas" => Mod::Atom(AtomOp::Cas),
        "up" => Mod::Shfl(ShflMode::Up),
        "down" => Mod::Shfl(ShflMode::Down),
        "bfly" => Mod::Shfl(ShflMode::Bfly),
        "idx" => Mod::Shfl(ShflMode::Idx),
        "all" => Mod::Vote(VoteMode::All),
        "any" => Mod::Vote(VoteMode::Any),
        "uni" if kind == Vote => Mod::Vote(VoteMode::Uni),
        "ballot" => Mod::Vote(VoteMode::Ballot),
        "sync" => Mod::Sync,
        "arrive" => Mod::Bar(BarMode::Arrive),
        "red" => Mod::Bar(BarMode::Red),
        "warp" => Mod::Warp,
        "NaN" => Mod::NaN,
        "uni" => Mod::Uni,
        "aligned" => Mod::Aligned,
        "1d" => Mod::Geom(TexGeom::D1),
        "2d" => Mod::Geom(TexGeom::D2),
        "3d" => Mod::Geom(TexGeom::D3),
        "a1d" => Mod::Geom(TexGeom::A1d),
        "a2d" => Mod::Geom(TexGeom::A2d),
        "cube" => Mod::Geom(TexGeom::Cube),
        "f4e" => Mod::Prmt(PrmtMode::F4e),
        "b4e" => Mod::Prmt(PrmtMode::B4e),
        "rc8" => Mod::Prmt(PrmtMode::Rc8),
        "ecl" => Mod::Prmt(PrmtMode::Ecl),
        "ecr" => Mod::Prmt(PrmtMode::Ecr),
        "rc16" => Mod::Prmt(PrmtMode::Rc16),
        "finite" => Mod::Testp(TestpOp::Finite),
        "infinite" => Mod::Testp(TestpOp::Infinite),
        "number" => Mod::Testp(TestpOp::Number),
        "notanumber" => Mod::Testp(TestpOp::NotANumber),
        "normal" => Mod::Testp(TestpOp::Normal),
        "subnormal" => Mod::Testp(TestpOp::Subnormal),
        "l" => Mod::ShfDir(true),
        "r" => Mod::ShfDir(false),
        "clamp" => Mod::ShfWrap(false),
        "wrap" => Mod::ShfWrap(true),
        "shiftamt" => Mod::Shiftamt,
        "nc" => Mod::Nc,
        "ca" | "cg" | "cs" | "lu" | "cv" | "wb" | "wt" | "noftz" | "L1" | "L2" => Mod::Ignore,
        "L2::cache_hint" => Mod::CacheHint,
        _ if m.starts_with("L1::") || m.starts_with("L2::") => Mod::Ignore,
        _ => return None,
    })
}

/// Checks required modifiers once all are seen.
fn finish(d: &mut Decoded, n: usize) -> Result<(), (usize, String)> {
    use OpKind::*;
    let op = &mut d.op;
    let k = op.kind;
    let need = |ok: bool, what: &str| -> Result<(), (usize, String)> {
        if ok {
            Ok(())
        } else {
            Err((n, format!("`{}` needs {what}", kname(k))))
        }
    };
    let typed = !matches!(
        k,
        Bra | Brx
            | Call
            | Ret
            | Exit
            | Bar
            | Barrier
            | Membar
            | Fence
            | Trap
            | Brkpt
            | Pmevent
            | Prefetch
            | Prefetchu
            | Txq
            | Isspacep
    );
    if typed {
        need(op.ty.is_some(), "a type modifier (e.g. `.b32`)")?;
    }
    match k {
        Cvt => need(op.ty2.is_some(), "a destination and a source type")?,
        Setp | Set => need(op.cmp.is_some(), "a comparison (`.eq`, `.lt`, ...)")?,
        Atom | Red | Redux => need(op.atom_op.is_some(), "an operation (`.add`, `.cas`, ...)")?,
        Shfl => need(
            op.shfl.is_some(),
            "a mode (`.up`, `.down`, `.bfly`, `.idx`)",
        )?,
        Vote | Match => need(
            op.vote.is_some(),
            "a mode (`.all`, `.any`, `.uni`, `.ballot`)",
        )?,
        Testp => need(op.testp.is_some(), "a property (`.finite`, ...)")?,
        Tex | Tld4 | Suld | Sust => need(op.tex_geom.is_some(), "a geometry (`.1d`, `.2d`, ...)")?,
        Bar | Barrier => {
            if op.warp {
                need(op.bar == Some(BarMode::Sync), "`.sync` after `.warp`")?;
            }
            need(op.bar.is_some(), "`.sync`, `.arrive` or `.red`")?;
            if op.bar == Some(BarMode::Red) {
                need(op.atom_op.is_some(), "a reduction (`.popc`, `.and`, `.or`)")?;
            }
        }
        Shf => {
            let (dir, wrap) = (d.shf_dir, d.shf_wrap);
            need(dir.is_some(), "a direction (`.l` or `.r`)")?;
            op.shf = Some(match (dir == Some(true), wrap.unwrap_or(false)) {
                (true, false) => ShfMode::LClamp,
                (true, true) => ShfMode::LWrap,
                (false, false) => ShfMode::RClamp,
                (false, true) => ShfMode::RWrap,
            });
            need(wrap.is_some(), "a mode (`.clamp` or `.wrap`)")?;
        }
        Cvta => need(op.space.is_some(), "a state space")?,
        Isspacep => need(op.space.is_some(), "a state space")?,
        Div | Rcp | Sqrt if op.ty == Some(ScalarType::F64) => need(
            op.rounding.is_some() || op.approx,
            "a rounding modifier (`.rn`, ...)",
        )?,
        _ => {}
    }
    if matches!(k, Add | Sub | Mul | Fma | Mad | Div | Rcp | Sqrt)
        && matches!(
            op.rounding,
            Some(Rounding::Rni | Rounding::Rzi | Rounding::Rmi | Rounding::Rpi | Rounding::Rna)
        )
    {
        return Err((
            n,
            format!(
                "integer rounding is only valid on `cvt`, not `{}`",
                kname(k)
            ),
        ));
    }
    Ok(())
}

/// Allowed operand counts of an opcode (`min..=max`), before the optional cache-policy operand.
pub(crate) fn operand_count(op: &Op) -> (usize, usize) {
    use OpKind::*;
    match op.kind {
        // cvt.rn.f16x2.f32 d, a, b packs two conversions
        Cvt if matches!(op.ty, Some(ScalarType::F16x2 | ScalarType::Bf16x2)) => (3, 3),
        Add | Sub | Mul | Div | Rem | Min | Max | And | Or | Xor | Shl | Shr | Addc | Subc
        | Mul24 | Copysign | Testp => match op.kind {
            Testp => (2, 2),
            _ => (3, 3),
        },
        Mad | Madc | Mad24 | Sad | Fma | Bfe | Dp4a | Dp2a | Prmt | Shf | Selp | Slct | Fns => {
            (4, 4)
        }
        Bfi | Lop3 => (5, 5),
        Abs | Neg | Not | Cnot | Popc | Clz | Bfind | Brev | Rcp | Sqrt | Rsqrt | Sin | Cos
        | Lg2 | Ex2 | Tanh | Mov | Cvt | Cvta | Isspacep | Ld | Ldu | St => (2, 2),
        Setp | Set => {
            if op.bool_op.is_some() {
                (4, 4)
            } else {
                (3, 3)
            }
        }
        Atom => {
            if op.atom_op == Some(AtomOp::Cas) {
                (4, 4)
            } else {
                (3, 3)
            }
        }
        Red => (2, 2),
        Redux => (3, 3),
        Vote => {
            if op.sync {
                (3, 3)
            } else {
                (2, 2)
            }
        }
        Shfl => {
            if op.sync {
                (5, 5)
            } else {
                (4, 4)
            }
        }
        Match => (3, 3),
        Activemask => (1, 1),
        Prefetch | Prefetchu => (1, 1),
        Tex | Tld4 => (2, 3),
        Txq | Suld | Sust => (2, 2),
        Bra | Brx => (1, 2),
        Call => (1, 4),
        Ret | Exit | Trap | Brkpt | Membar | Fence => (0, 0),
        Bar | Barrier => {
            if op.warp {
                (1, 1)
            } else if op.bar == Some(BarMode::Red) {
                (3, 4)
            } else {
                (0, 2)
            }
        }
        Nanosleep | Pmevent => (1, 1),
    }
}
