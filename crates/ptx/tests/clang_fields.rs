//! Decoded fields of clang-16 output (`tests/corpus/clang_*.ptx`, sources next to them).

use warpforge_ptx::*;

fn load(name: &str) -> Module {
    let p = format!("{}/tests/corpus/{name}", env!("CARGO_MANIFEST_DIR"));
    parse(&std::fs::read_to_string(&p).unwrap(), &p).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn vecadd_structure() {
    let m = load("clang_vecadd_red.ptx");
    assert_eq!(m.version, (7, 0));
    assert_eq!(m.target, vec!["sm_70".to_string()]);
    assert_eq!(m.address_size, 64);
    let f = m.function("vecadd").unwrap();
    assert!(f.is_entry);
    assert_eq!(f.linkage, Linkage::Visible);
    assert_eq!(f.params.len(), 4);
    assert_eq!(f.params[3].ty, ScalarType::U32);
    assert_eq!(f.params[0].name, "vecadd_param_0");
    // .reg .pred %p<2>; .reg .b32 %r<6>; .reg .f32 %f<4>; .reg .b64 %rd<11>;
    assert_eq!(f.regs.len(), 2 + 6 + 4 + 11);
    assert_eq!(f.insts.len(), 22);
    let i0 = &f.insts[0];
    assert_eq!(i0.op.kind, OpKind::Ld);
    assert_eq!(i0.op.space, Some(StateSpace::Param));
    assert_eq!(i0.op.ty, Some(ScalarType::U32));
    assert_eq!(
        i0.operands[1],
        Operand::Addr {
            base: AddrBase::Symbol("vecadd_param_3".into()),
            offset: 0
        }
    );
    let r1 = f.regs.iter().position(|r| r.name == "%r1").unwrap() as u32;
    assert_eq!(i0.operands[0], Operand::Reg(RegId(r1)));
    assert_eq!(
        f.insts[1].operands[1],
        Operand::Special(SpecialReg::Ctaid(0))
    );
    assert_eq!(f.insts[3].operands[1], Operand::Special(SpecialReg::Tid(0)));
    let mad = &f.insts[4];
    assert_eq!(
        (mad.op.kind, mad.op.mul_mode, mad.op.ty),
        (OpKind::Mad, Some(MulMode::Lo), Some(ScalarType::S32))
    );
    let setp = &f.insts[5];
    assert_eq!(
        (setp.op.cmp, setp.op.ty),
        (Some(CmpOp::Ge), Some(ScalarType::U32))
    );
    let bra = &f.insts[6];
    assert_eq!(bra.op.kind, OpKind::Bra);
    assert!(bra
        .guard
        .is_some_and(|g| !g.negate && f.regs[g.reg.0 as usize].ty == ScalarType::Pred));
    // $L__BB0_2 labels the final `ret`.
    assert_eq!(bra.operands[0], Operand::Label(21));
    assert_eq!(f.labels["$L__BB0_2"], 21);
    assert_eq!(f.insts[21].op.kind, OpKind::Ret);
    let cvta = &f.insts[9];
    assert!(cvta.op.cvta_to && cvta.op.space == Some(StateSpace::Global));
    let mw = &f.insts[13];
    assert_eq!(
        (mw.op.mul_mode, mw.operands[2].clone()),
        (Some(MulMode::Wide), Operand::Imm(4))
    );
    let st = &f.insts[20];
    assert_eq!(
        (st.op.kind, st.op.space, st.op.ty),
        (OpKind::St, Some(StateSpace::Global), Some(ScalarType::F32))
    );
}

#[test]
fn reduction_shared_and_shuffle() {
    let m = load("clang_vecadd_red.ptx");
    let f = m.function("red").unwrap();
    let s = f.vars.iter().find(|v| v.name == "_ZZ3redE1s").unwrap();
    assert_eq!(
        (s.space, s.ty, s.align, s.dims.clone()),
        (StateSpace::Shared, ScalarType::B8, 4, vec![Some(1024)])
    );
    let sh = f.insts.iter().find(|i| i.op.kind == OpKind::Shfl).unwrap();
    assert!(sh.op.sync);
    assert_eq!(sh.op.shfl, Some(ShflMode::Down));
    assert_eq!(
        &sh.operands[2..],
        &[Operand::Imm(1), Operand::Imm(31), Operand::Imm(-1)]
    );
    let ld = f
        .insts
        .iter()
        .find(|i| matches!(&i.operands.get(1), Some(Operand::Addr { offset: 512, .. })))
        .unwrap();
    assert_eq!(ld.op.space, Some(StateSpace::Shared));
    let bar = f.insts.iter().find(|i| i.op.kind == OpKind::Bar).unwrap();
    assert_eq!(
        (bar.op.bar, bar.operands.clone()),
        (Some(BarMode::Sync), vec![Operand::Imm(0)])
    );
    let mv = f
        .insts
        .iter()
        .find(|i| i.operands.get(1) == Some(&Operand::F32(0)))
        .unwrap();
    assert_eq!(mv.op.kind, OpKind::Mov);
}

/// The instruction whose opcode text starts line `line` of `src` (1-based).
fn at_line(f: &Function, line: u32) -> &Instruction {
    f.insts
        .iter()
        .find(|i| i.loc.line == line)
        .unwrap_or_else(|| panic!("no instruction on line {line}"))
}

#[test]
fn calls_with_struct_return() {
    let m = load("clang_misc.ptx");
    let mk = m.function("_Z2mki").unwrap();
    assert_eq!(
        (mk.rets[0].align, mk.rets[0].array_len, mk.rets[0].ty),
        (8, Some(16), ScalarType::B8)
    );
    let k = m.function("k_calls").unwrap();
    let calls: Vec<_> = k
        .insts
        .iter()
        .filter(|i| i.op.kind == OpKind::Call)
        .collect();
    assert_eq!(calls.len(), 2);
    assert!(calls.iter().all(|c| c.op.uni));
    assert_eq!(calls[0].operands[1], Operand::Symbol("_Z2mki".into()));
    assert_eq!(calls[1].operands[1], Operand::Symbol("_Z6helperfi".into()));
    // retval0 of both call scopes merged into one 16-byte, 8-aligned slot
    let rv = k.vars.iter().find(|v| v.name == "retval0").unwrap();
    assert_eq!((rv.size_bytes(), rv.align), (16, 8));
    assert_eq!(
        at_line(k, 87).operands[1],
        Operand::Addr {
            base: AddrBase::Symbol("retval0".into()),
            offset: 8
        }
    );
    let coef = m.globals.iter().find(|g| g.name == "coef").unwrap();
    assert_eq!(
        (coef.space, coef.linkage, coef.init.len()),
        (StateSpace::Const, Linkage::Visible, 16)
    );
    assert_eq!(coef.init[3], InitItem::Int(63));
}

#[test]
fn atomics_from_clang() {
    let m = load("clang_misc.ptx");
    let k = m.function("k_atoms").unwrap();
    let atoms: Vec<(Option<AtomOp>, Option<StateSpace>, Option<ScalarType>)> = k
        .insts
        .iter()
        .filter(|i| i.op.kind == OpKind::Atom)
        .map(|i| (i.op.atom_op, i.op.space, i.op.ty))
        .collect();
    use AtomOp::*;
    use ScalarType::*;
    let g = Some(StateSpace::Global);
    for want in [
        (Some(Add), g, Some(U32)),
        (Some(Min), g, Some(S32)),
        (Some(Max), g, Some(S32)),
        (Some(Or), g, Some(B32)),
        (Some(And), g, Some(B32)),
        (Some(Xor), g, Some(B32)),
        (Some(Cas), g, Some(B32)),
        (Some(Add), g, Some(F32)),
        (Some(Add), g, Some(U64)),
        (Some(Add), Some(StateSpace::Shared), Some(U32)),
    ] {
        assert!(atoms.contains(&want), "missing {want:?} in {atoms:?}");
    }
    let scopes: Vec<u8> = k
        .insts
        .iter()
        .filter(|i| i.op.kind == OpKind::Membar)
        .map(|i| i.op.scope)
        .collect();
    assert_eq!(scopes, vec![1, 0, 2]);
}

#[test]
fn warp_level_sm80() {
    let m = load("clang_warp_sm80.ptx");
    let k = m.function("warp_ops").unwrap();
    assert_eq!(at_line(k, 33).op.shfl, Some(ShflMode::Up));
    assert_eq!(at_line(k, 45).op.vote, Some(VoteMode::Uni));
    let w = at_line(k, 47);
    assert!(w.op.warp && w.operands == vec![Operand::Imm(-1)]);
    let mt = at_line(k, 48);
    assert_eq!(
        (mt.op.kind, mt.op.vote, mt.op.sync),
        (OpKind::Match, Some(VoteMode::Any), true)
    );
    let rd = at_line(k, 50);
    assert_eq!(
        (rd.op.kind, rd.op.atom_op, rd.op.ty),
        (OpKind::Redux, Some(AtomOp::Add), Some(ScalarType::S32))
    );
    let c = at_line(k, 65);
    assert_eq!(
        (c.op.ty, c.op.ty2, c.op.rounding),
        (
            Some(ScalarType::F16),
            Some(ScalarType::F32),
            Some(Rounding::Rn)
        )
    );
    assert!(at_line(k, 68).op.nan);
    let b = at_line(k, 73);
    assert_eq!(
        (b.op.kind, b.op.bar, b.operands.len()),
        (OpKind::Barrier, Some(BarMode::Sync), 2)
    );
    // the loop has a back edge, and every branch reconverges inside the function or at its end
    let cfg = Cfg::build(k);
    assert!(cfg
        .blocks
        .iter()
        .enumerate()
        .any(|(b, blk)| blk.succs.iter().any(|&s| s as usize <= b)));
    let rp = reconvergence_points(k);
    assert_eq!(rp[k.insts.len() - 1], k.insts.len() as u32);
}

#[test]
fn struct_initialisers_with_symbols() {
    let m = load("clang_struct_ptrs.ptx");
    let pp = m.globals.iter().find(|g| g.name == "pp").unwrap();
    assert_eq!(
        pp.init,
        vec![
            InitItem::Int(5),
            InitItem::Symbol {
                name: "tab".into(),
                offset: 4,
                generic: true
            },
            InitItem::Int(120),
            InitItem::Symbol {
                name: "ft".into(),
                offset: 4,
                generic: true
            },
        ]
    );
    let old = load("clang_struct_ptrs_sm35.ptx");
    assert_eq!((old.version, old.target[0].as_str()), ((4, 2), "sm_35"));
}

#[test]
fn ten_thousand_lines_parse_quickly() {
    // Synthesise a ~10k-line kernel from the nvcc-style corpus body (release: ~3 ms; the bound
    // here is loose for debug builds on a loaded CI machine).
    let p = format!(
        "{}/tests/corpus/nvcc_csv_opcodes.ptx",
        env!("CARGO_MANIFEST_DIR")
    );
    let src = std::fs::read_to_string(&p).unwrap();
    let (head, rest) = src.split_at(src.find("abs.s32").unwrap());
    let (body, tail) = rest.split_at(rest.find("L_end:").unwrap());
    let mut big = head.to_string();
    let mut i = 0;
    while big.lines().count() < 10_000 {
        big.push_str(&body.replace("L_end", &format!("L_end{i}")));
        big.push_str(&format!("L_end{i}:\n"));
        i += 1;
    }
    big.push_str(tail);
    let t0 = std::time::Instant::now();
    let m = parse(&big, "big.ptx").unwrap_or_else(|e| panic!("{e}"));
    let dt = t0.elapsed();
    assert!(m.function("k").unwrap().insts.len() > 8_000);
    assert!(dt.as_millis() < 1_000, "10k lines took {dt:?}");
}
