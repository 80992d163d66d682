//! Every opcode of the real-benchmark opcode tables (`/work/shared/spec/ptx-opcodes*.csv`,
//! copied below) parses, and every modifier written in the source shows up in the decoded [`Op`].

use warpforge_ptx::*;

const CSV_OPCODES: &[&str] = &[
    "abs",
    "abs.ftz",
    "add",
    "add.cc",
    "add.ftz",
    "addc",
    "addc.cc",
    "and",
    "atom.global.add",
    "atom.global.exch",
    "atom.global.max",
    "atom.global.min",
    "atom.global.or",
    "atom.shared.add",
    "atom.shared.or",
    "bar.sync",
    "bfe",
    "bra",
    "bra.uni",
    "call",
    "call.uni",
    "clz",
    "cos.approx",
    "cos.approx.ftz",
    "cvt",
    "cvt.ftz",
    "cvt.ftz.sat",
    "cvt.rmi",
    "cvt.rn",
    "cvt.rn.ftz",
    "cvt.rni",
    "cvt.rpi",
    "cvt.rzi",
    "cvt.rzi.ftz",
    "cvt.sat",
    "cvta.global",
    "cvta.local",
    "cvta.shared",
    "cvta.to.global",
    "cvta.to.local",
    "div",
    "div.approx",
    "div.approx.ftz",
    "div.rn",
    "ex2.approx",
    "ex2.approx.ftz",
    "fma.rm",
    "fma.rm.ftz",
    "fma.rn",
    "fma.rn.ftz",
    "fma.rz",
    "ld",
    "ld.const",
    "ld.global",
    "ld.global.nc",
    "ld.local",
    "ld.param",
    "ld.shared",
    "ld.volatile.global",
    "ld.volatile.shared",
    "lg2.approx",
    "lg2.approx.ftz",
    "mad.lo",
    "mad.lo.cc",
    "madc.hi",
    "madc.hi.cc",
    "madc.lo",
    "madc.lo.cc",
    "max",
    "max.ftz",
    "min",
    "min.ftz",
    "mov",
    "mul",
    "mul.ftz",
    "mul.hi",
    "mul.lo",
    "mul.wide",
    "neg",
    "neg.ftz",
    "not",
    "or",
    "rcp.approx",
    "rcp.approx.ftz",
    "rcp.rn",
    "rem",
    "ret",
    "rsqrt.approx",
    "selp",
    "setp",
    "setp.eq",
    "setp.eq.ftz",
    "setp.equ",
    "setp.ge",
    "setp.geu",
    "setp.geu.ftz",
    "setp.gt",
    "setp.gt.ftz",
    "setp.gtu",
    "setp.gtu.ftz",
    "setp.le",
    "setp.le.ftz",
    "setp.leu",
    "setp.leu.ftz",
    "setp.lt",
    "setp.lt.ftz",
    "setp.ltu",
    "setp.ltu.ftz",
    "setp.ne",
    "setp.neu",
    "setp.neu.ftz",
    "shf.r",
    "shf.r.wrap",
    "shl",
    "shr",
    "sin.approx",
    "sin.approx.ftz",
    "sqrt.approx",
    "sqrt.approx.ftz",
    "sqrt.rn",
    "st",
    "st.global",
    "st.local",
    "st.param",
    "st.shared",
    "st.volatile.global",
    "st.volatile.shared",
    "sub",
    "sub.cc",
    "sub.ftz",
    "subc",
    "subc.cc",
    "tex.1d",
    "tex.2d",
    "xor",
];

/// Independent check that modifier word `w` of the source is reflected in `op`.
fn reflects(op: &Op, w: &str) -> bool {
    use ScalarType as T;
    let ty = |t: T| op.ty == Some(t) || op.ty2 == Some(t);
    match w {
        "ftz" => op.ftz,
        "sat" => op.sat,
        "approx" => op.approx,
        "cc" => op.cc,
        "nc" => op.nc,
        "uni" => op.uni,
        "volatile" => op.volatile,
        "to" => op.cvta_to,
        "rn" => op.rounding == Some(Rounding::Rn),
        "rz" => op.rounding == Some(Rounding::Rz),
        "rm" => op.rounding == Some(Rounding::Rm),
        "rp" => op.rounding == Some(Rounding::Rp),
        "rni" => op.rounding == Some(Rounding::Rni),
        "rzi" => op.rounding == Some(Rounding::Rzi),
        "rmi" => op.rounding == Some(Rounding::Rmi),
        "rpi" => op.rounding == Some(Rounding::Rpi),
        "lo" => op.mul_mode == Some(MulMode::Lo),
        "hi" => op.mul_mode == Some(MulMode::Hi),
        "wide" => op.mul_mode == Some(MulMode::Wide),
        "global" => op.space == Some(StateSpace::Global),
        "shared" => op.space == Some(StateSpace::Shared),
        "local" => op.space == Some(StateSpace::Local),
        "const" => op.space == Some(StateSpace::Const),
        "param" => op.space == Some(StateSpace::Param),
        "eq" => op.cmp == Some(CmpOp::Eq),
        "ne" => op.cmp == Some(CmpOp::Ne),
        "lt" => op.cmp == Some(CmpOp::Lt),
        "le" => op.cmp == Some(CmpOp::Le),
        "gt" => op.cmp == Some(CmpOp::Gt),
        "ge" => op.cmp == Some(CmpOp::Ge),
        "equ" => op.cmp == Some(CmpOp::Equ),
        "neu" => op.cmp == Some(CmpOp::Neu),
        "ltu" => op.cmp == Some(CmpOp::Ltu),
        "leu" => op.cmp == Some(CmpOp::Leu),
        "gtu" => op.cmp == Some(CmpOp::Gtu),
        "geu" => op.cmp == Some(CmpOp::Geu),
        "add" => op.atom_op == Some(AtomOp::Add),
        "min" => op.atom_op == Some(AtomOp::Min),
        "max" => op.atom_op == Some(AtomOp::Max),
        "or" => op.atom_op == Some(AtomOp::Or),
        "exch" => op.atom_op == Some(AtomOp::Exch),
        "sync" => op.bar == Some(BarMode::Sync),
        "r" => matches!(op.shf, Some(ShfMode::RClamp | ShfMode::RWrap)),
        "wrap" => op.shf == Some(ShfMode::RWrap),
        "clamp" => op.shf == Some(ShfMode::RClamp),
        "1d" => op.tex_geom == Some(TexGeom::D1),
        "2d" => op.tex_geom == Some(TexGeom::D2),
        "v4" => op.vec == 4,
        "b32" => ty(T::B32),
        "b64" => ty(T::B64),
        "u32" => ty(T::U32),
        "u64" => ty(T::U64),
        "s32" => ty(T::S32),
        "f32" => ty(T::F32),
        "f64" => ty(T::F64),
        "pred" => ty(T::Pred),
        _ => panic!("test does not know modifier `.{w}`"),
    }
}

#[test]
fn every_csv_opcode_decodes_faithfully() {
    let p = format!(
        "{}/tests/corpus/nvcc_csv_opcodes.ptx",
        env!("CARGO_MANIFEST_DIR")
    );
    let src = std::fs::read_to_string(&p).unwrap();
    let m = parse(&src, &p).unwrap_or_else(|e| panic!("{e}"));
    let f = m.function("k").unwrap();
    let lines: Vec<&str> = src.lines().collect();
    let mut seen = std::collections::BTreeSet::new();
    for inst in &f.insts {
        let line = lines[inst.loc.line as usize - 1];
        let text = &line[inst.loc.col as usize - 1..];
        let opcode = text
            .split(|c: char| c.is_whitespace() || c == ';')
            .next()
            .unwrap();
        let mut words = opcode.split('.');
        let base = words.next().unwrap();
        assert_eq!(
            format!("{:?}", inst.op.kind).to_ascii_lowercase(),
            base,
            "{line}"
        );
        let mods: Vec<&str> = words.collect();
        for w in &mods {
            assert!(
                reflects(&inst.op, w),
                "`.{w}` not reflected in {:?} ({line})",
                inst.op
            );
        }
        // record every prefix of the opcode, as the tables list modifier prefixes
        for k in 0..=mods.len() {
            let mut s = base.to_string();
            for w in &mods[..k] {
                s.push('.');
                s.push_str(w);
            }
            seen.insert(s);
        }
    }
    let missing: Vec<&&str> = CSV_OPCODES.iter().filter(|o| !seen.contains(**o)).collect();
    assert!(
        missing.is_empty(),
        "opcodes of the tables not in the corpus: {missing:?}"
    );
}
