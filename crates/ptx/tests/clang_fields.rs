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
