//! Decoded fields of the hand-written nvcc-style corpus file `tests/corpus/nvcc_features.ptx`.

use warpforge_ptx::*;

struct Fx {
    src: String,
    m: Module,
}

fn fx() -> Fx {
    let p = format!(
        "{}/tests/corpus/nvcc_features.ptx",
        env!("CARGO_MANIFEST_DIR")
    );
    let src = std::fs::read_to_string(&p).unwrap();
    let m = parse(&src, &p).unwrap_or_else(|e| panic!("{e}"));
    Fx { src, m }
}

impl Fx {
    fn kernel(&self) -> &Function {
        self.m.function("_Z6kernelPfS_i").unwrap()
    }
    /// The instruction on the (unique) source line starting with `text` (after indentation).
    fn inst(&self, text: &str) -> &Instruction {
        let lines: Vec<usize> = self
            .src
            .lines()
            .enumerate()
            .filter(|(_, l)| l.trim_start().starts_with(text))
            .map(|(i, _)| i + 1)
            .collect();
        assert_eq!(
            lines.len(),
            1,
            "`{text}` must be on exactly one line: {lines:?}"
        );
        let f = self.kernel();
        f.insts
            .iter()
            .find(|i| i.loc.line as usize == lines[0])
            .unwrap_or_else(|| panic!("no inst for `{text}`"))
    }
    fn reg(&self, name: &str) -> RegId {
        RegId(
            self.kernel()
                .regs
                .iter()
                .position(|r| r.name == name)
                .unwrap() as u32,
        )
    }
    fn r(&self, name: &str) -> Operand {
        Operand::Reg(self.reg(name))
    }
}

#[test]
fn module_directives_and_globals() {
    let x = fx();
    let m = &x.m;
    assert_eq!(m.version, (8, 0));
    assert_eq!(m.target, vec!["sm_80".to_string(), "debug".to_string()]);
    let g = |n: &str| m.globals.iter().find(|v| v.name == n).unwrap();
    assert_eq!(g("table").init.len(), 12);
    assert_eq!(g("table").init[11], InitItem::Int(12));
    assert_eq!(g("coef").space, StateSpace::Const);
    assert_eq!(
        g("coef").init,
        vec![
            InitItem::Float(1.0),
            InitItem::Float(-0.5),
            InitItem::Float(f32::from_bits(0x40490FDB) as f64)
        ]
    );
    assert_eq!(
        g("ptrs").init,
        vec![
            InitItem::Symbol {
                name: "table".into(),
                offset: 4,
                generic: true
            },
            InitItem::Symbol {
                name: "table".into(),
                offset: 0,
                generic: false
            }
        ]
    );
    assert_eq!(g("grid").dims, vec![Some(2), Some(3)]);
    assert_eq!(
        g("grid")
            .init
            .iter()
            .map(|i| match i {
                InitItem::Int(v) => *v,
                _ => -1,
            })
            .collect::<Vec<_>>(),
        vec![1, 2, 3, 4, 5, 6]
    );
    assert_eq!(g("grid").size_bytes(), 24);
    assert_eq!(g("dval").init, vec![InitItem::Float(std::f64::consts::PI)]);
    assert_eq!(g("dval").linkage, Linkage::Visible);
    assert_eq!(g("neg").init, vec![InitItem::Int(-7)]);
    assert_eq!(
        (
            g("hexv").init.clone(),
            g("octv").init.clone(),
            g("binv").init.clone()
        ),
        (
            vec![InitItem::Int(255)],
            vec![InitItem::Int(15)],
            vec![InitItem::Int(5)]
        )
    );
    assert_eq!(
        (
            g("dyn_smem").dims.clone(),
            g("dyn_smem").linkage,
            g("dyn_smem").align
        ),
        (vec![None], Linkage::Extern, 16)
    );
    assert_eq!(g("tex0").space, StateSpace::Tex);
    assert_eq!(g("$str").size_bytes(), 6);
    // Functions: the prototype of _Z6squarei is replaced by its definition in place.
    let names: Vec<&str> = m.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        vec!["vprintf", "_Z6squarei", "_Z4dieve", "_Z6kernelPfS_i"]
    );
    let vp = m.function("vprintf").unwrap();
    assert!(
        vp.is_decl && vp.linkage == Linkage::Extern && vp.rets.len() == 1 && vp.params.len() == 2
    );
    let sq = m.function("_Z6squarei").unwrap();
    assert!(!sq.is_decl && sq.insts.len() == 4 && sq.rets[0].name == "func_retval0");
    let die = m.function("_Z4dieve").unwrap();
    assert_eq!(
        (die.is_decl, die.linkage, die.insts.len()),
        (false, Linkage::Weak, 1)
    );
    assert_eq!(m.kernels().count(), 1);
}

#[test]
fn kernel_header_params_and_registers() {
    let x = fx();
    let f = x.kernel();
    assert_eq!(f.maxntid, Some([256, 1, 1]));
    assert_eq!(f.minnctapersm, Some(2));
    assert_eq!(f.maxnreg, Some(64));
    assert_eq!(f.params[0].ptr_space, Some(StateSpace::Global));
    assert_eq!(f.params[0].align, 4);
    assert_eq!(
        (
            f.params[3].ty,
            f.params[3].align,
            f.params[3].array_len,
            f.params[3].size_bytes()
        ),
        (ScalarType::B8, 8, Some(16), 16)
    );
    assert_eq!(f.regs[x.reg("%q").0 as usize].ty, ScalarType::Pred);
    assert_eq!(f.regs[x.reg("%r39").0 as usize].ty, ScalarType::B32);
    let depot = f.vars.iter().find(|v| v.name == "__local_depot0").unwrap();
    assert_eq!(
        (depot.space, depot.size_bytes(), depot.align),
        (StateSpace::Local, 32, 8)
    );
    // call-sequence parameter buffers of both scopes merged by name
    let p0 = f
        .vars
        .iter()
        .filter(|v| v.name == "param0")
        .collect::<Vec<_>>();
    assert_eq!(p0.len(), 1);
    assert_eq!((p0[0].space, p0[0].size_bytes()), (StateSpace::Param, 8));
}

#[test]
fn special_registers_and_immediates() {
    let x = fx();
    assert_eq!(
        x.inst("mov.u32 	%r4, %ntid.y").operands[1],
        Operand::Special(SpecialReg::Ntid(1))
    );
    assert_eq!(
        x.inst("mov.u32 	%r5, %ctaid.z").operands[1],
        Operand::Special(SpecialReg::Ctaid(2))
    );
    assert_eq!(
        x.inst("mov.u32 	%r9, %lanemask_lt").operands[1],
        Operand::Special(SpecialReg::LanemaskLt)
    );
    assert_eq!(
        x.inst("mov.u64 	%rd2, %clock64").operands[1],
        Operand::Special(SpecialReg::Clock64)
    );
    assert_eq!(
        x.inst("mov.u32 	%r11, %envreg3").operands[1],
        Operand::Special(SpecialReg::EnvReg(3))
    );
    assert_eq!(
        x.inst("mov.u32 	%r12, %dynamic_smem_size").operands[1],
        Operand::Special(SpecialReg::DynamicSmemSize)
    );
    assert_eq!(
        x.inst("mov.b64 	%rd4, {").operands[1],
        Operand::Vec(vec![x.r("%r1"), x.r("%r2")])
    );
    assert_eq!(
        x.inst("mov.b64 	{%r13, _}").operands[0],
        Operand::Vec(vec![x.r("%r13"), Operand::Sink])
    );
    assert_eq!(
        x.inst("mov.f32 	%f1, 0f3F800000").operands[1],
        Operand::F32(0x3F80_0000)
    );
    assert_eq!(
        x.inst("mov.f64 	%fd1,").operands[1],
        Operand::F64(1f64.to_bits())
    );
    assert_eq!(
        x.inst("mov.f32 	%f2, 1.5").operands[1],
        Operand::F32(1.5f32.to_bits())
    );
    assert_eq!(
        x.inst("mov.f64 	%fd2, -2.25").operands[1],
        Operand::F64((-2.25f64).to_bits())
    );
    assert_eq!(
        x.inst("mov.u32 	%r14").operands[1],
        Operand::Imm(0x7fff_ffff)
    );
    assert_eq!(x.inst("mov.s32 	%r15").operands[1], Operand::Imm(-12));
    assert_eq!(x.inst("mov.u32 	%r16").operands[1], Operand::Imm(10));
    assert_eq!(x.inst("mov.u32 	%r17").operands[1], Operand::Imm(0o777));
    assert_eq!(
        x.inst("mov.u64 	%rd5, table").operands[1],
        Operand::Symbol("table".into())
    );
    assert_eq!(
        x.inst("mov.u64 	%rd6").operands[1],
        Operand::SymbolOffset("table".into(), 8)
    );
}

#[test]
fn comparisons_and_predicates() {
    let x = fx();
    let s = x.inst("setp.lt.and.f32");
    assert_eq!(
        (s.op.cmp, s.op.bool_op, s.op.ty),
        (Some(CmpOp::Lt), Some(BoolOp::And), Some(ScalarType::F32))
    );
    assert_eq!(s.operands[0], Operand::PredPair(x.reg("%p1"), x.reg("%p2")));
    assert_eq!(x.inst("setp.lo.u32").op.cmp, Some(CmpOp::Lo));
    let g = x.inst("setp.geu.ftz.f32");
    assert!(g.op.ftz && g.op.cmp == Some(CmpOp::Geu));
    let b = x.inst("@!%p3 bra.uni");
    assert_eq!(
        b.guard,
        Some(Guard {
            reg: x.reg("%p3"),
            negate: true
        })
    );
    assert!(b.op.uni);
    let f = x.kernel();
    assert_eq!(b.operands[0], Operand::Label(f.labels["$L__BB0_2"]));
    let set = x.inst("set.gt.u32.f32");
    assert_eq!(
        (set.op.ty, set.op.ty2, set.op.cmp),
        (
            Some(ScalarType::U32),
            Some(ScalarType::F32),
            Some(CmpOp::Gt)
        )
    );
    let sl = x.inst("slct.f32.s32");
    assert_eq!(
        (sl.op.ty, sl.op.ty2),
        (Some(ScalarType::F32), Some(ScalarType::S32))
    );
    assert_eq!(x.inst("testp.finite.f32").op.testp, Some(TestpOp::Finite));
    assert_eq!(
        x.inst("vote.sync.ballot.b32").operands[1],
        Operand::NotReg(x.reg("%p1"))
    );
}

#[test]
fn integer_arithmetic_modifiers() {
    let x = fx();
    assert_eq!(x.inst("mul.hi.u32").op.mul_mode, Some(MulMode::Hi));
    assert_eq!(x.inst("mul.wide.s32").op.mul_mode, Some(MulMode::Wide));
    let m = x.inst("mad.hi.cc.u32");
    assert!(m.op.cc && m.op.mul_mode == Some(MulMode::Hi));
    let mc = x.inst("madc.lo.cc.u32");
    assert!(mc.op.kind == OpKind::Madc && mc.op.cc && mc.op.mul_mode == Some(MulMode::Lo));
    assert_eq!(x.inst("mul24.hi.u32").op.mul_mode, Some(MulMode::Hi));
    assert_eq!(x.inst("mad24.lo.s32").op.kind, OpKind::Mad24);
    assert!(x.inst("add.cc.u32").op.cc);
    let a = x.inst("addc.cc.u32");
    assert!(a.op.kind == OpKind::Addc && a.op.cc);
    let s = x.inst("subc.u32");
    assert!(s.op.kind == OpKind::Subc && !s.op.cc);
    assert!(x.inst("add.sat.s32").op.sat);
    assert!(x.inst("bfind.shiftamt.u32").op.shiftamt);
    assert_eq!(
        x.inst("bfe.u32").operands[2..],
        [Operand::Imm(8), Operand::Imm(4)]
    );
    assert_eq!(x.inst("bfi.b32").operands.len(), 5);
    assert_eq!(x.inst("prmt.b32.f4e").op.prmt, Some(PrmtMode::F4e));
    assert_eq!(x.inst("prmt.b32 	%r39, %r1, %r2, 0x3210").op.prmt, None);
    assert_eq!(x.inst("shf.r.wrap.b32").op.shf, Some(ShfMode::RWrap));
    assert_eq!(x.inst("shf.l.clamp.b32").op.shf, Some(ShfMode::LClamp));
    assert_eq!(x.inst("lop3.b32").operands[4], Operand::Imm(0x96));
    let d = x.inst("dp4a.u32.s32");
    assert_eq!(
        (d.op.ty, d.op.ty2),
        (Some(ScalarType::U32), Some(ScalarType::S32))
    );
    assert_eq!(x.inst("popc.b64").op.ty, Some(ScalarType::B64));
    let sp = x.inst("isspacep.global");
    assert_eq!(
        (sp.op.space, sp.op.ty, sp.operands.len()),
        (Some(StateSpace::Global), None, 2)
    );
    let pk = x.inst("cvt.rn.f16x2.f32");
    assert_eq!(
        (pk.op.ty, pk.op.ty2, pk.operands.len()),
        (Some(ScalarType::F16x2), Some(ScalarType::F32), 3)
    );
}

#[test]
fn float_modifiers() {
    let x = fx();
    assert_eq!(x.inst("div.rn.f32").op.rounding, Some(Rounding::Rn));
    let d = x.inst("div.approx.ftz.f32");
    assert!(d.op.approx && d.op.ftz);
    assert!(x.inst("div.full.f32").op.full);
    assert_eq!(x.inst("div.s32").op.ty, Some(ScalarType::S32));
    let r = x.inst("rcp.approx.ftz.f64");
    assert!(r.op.approx && r.op.ftz && r.op.ty == Some(ScalarType::F64));
    assert!(x.inst("tanh.approx.f32").op.approx);
    let f = x.inst("fma.rn.ftz.sat.f32");
    assert!(f.op.ftz && f.op.sat && f.op.rounding == Some(Rounding::Rn));
    assert_eq!(x.inst("fma.rp.f64").op.rounding, Some(Rounding::Rp));
    let c = x.inst("cvt.rzi.ftz.s32.f32");
    assert_eq!(
        (c.op.rounding, c.op.ftz, c.op.ty, c.op.ty2),
        (
            Some(Rounding::Rzi),
            true,
            Some(ScalarType::S32),
            Some(ScalarType::F32)
        )
    );
    assert!(x.inst("cvt.sat.f32.f32").op.sat);
    assert_eq!(x.inst("cvt.rn.bf16.f32").op.ty, Some(ScalarType::Bf16));
    let cv = x.inst("cvta.shared.u64");
    assert!(!cv.op.cvta_to && cv.op.space == Some(StateSpace::Shared));
}

#[test]
fn memory_operations() {
    let x = fx();
    let l = x.inst("ld.global.nc.v4.f32");
    assert!(l.op.nc && l.op.vec == 4);
    assert_eq!(
        l.operands[1],
        Operand::Addr {
            base: AddrBase::Reg(x.reg("%rd9")),
            offset: 16
        }
    );
    assert_eq!(
        x.inst("ld.global.ca.f32").operands[1],
        Operand::Addr {
            base: AddrBase::Reg(x.reg("%rd9")),
            offset: -4
        }
    );
    let v = x.inst("ld.volatile.shared.u32");
    assert!(v.op.volatile);
    assert_eq!(
        v.operands[1],
        Operand::Addr {
            base: AddrBase::Symbol("modshared".into()),
            offset: 0
        }
    );
    let r = x.inst("ld.relaxed.gpu.global.u32");
    assert!(r.op.volatile && r.op.scope == 1);
    assert_eq!(x.inst("ld.acquire.sys.global.u32").op.scope, 2);
    assert_eq!(
        x.inst("ld.global.L1::evict_last").op.space,
        Some(StateSpace::Global)
    );
    assert_eq!(
        x.inst("ld.const.f32").operands[1],
        Operand::Addr {
            base: AddrBase::Symbol("coef".into()),
            offset: 4
        }
    );
    assert_eq!(x.inst("ld.u32").op.space, None);
    assert_eq!(
        x.inst("ld.global.u32 	%r6").operands[1],
        Operand::Addr {
            base: AddrBase::Imm,
            offset: 0x100
        }
    );
    assert_eq!(x.inst("ldu.global.f32").op.kind, OpKind::Ldu);
    assert_eq!(
        x.inst("st.global.wb.v2.f32").operands[1],
        Operand::Vec(vec![x.r("%f1"), x.r("%f2")])
    );
    assert_eq!(
        x.inst("st.volatile.global.u32").operands[1],
        Operand::Imm(7)
    );
    assert_eq!(x.inst("prefetch.global.L2").op.kind, OpKind::Prefetch);
    let a = x.inst("atom.shared.cas.b32");
    assert_eq!(
        (a.op.atom_op, a.op.space, a.operands.len()),
        (Some(AtomOp::Cas), Some(StateSpace::Shared), 4)
    );
    assert_eq!(x.inst("atom.inc.u32").op.space, None);
    assert_eq!(x.inst("atom.global.dec.u32").op.atom_op, Some(AtomOp::Dec));
    assert_eq!(x.inst("atom.global.add.f64").op.ty, Some(ScalarType::F64));
    let am = x.inst("atom.relaxed.gpu.global.max.s32");
    assert_eq!((am.op.atom_op, am.op.scope), (Some(AtomOp::Max), 1));
    let rd = x.inst("red.shared.or.b32");
    assert_eq!(
        (rd.op.kind, rd.op.atom_op, rd.operands.len()),
        (OpKind::Red, Some(AtomOp::Or), 2)
    );
}

#[test]
fn synchronisation_and_warp_ops() {
    let x = fx();
    assert_eq!(x.inst("membar.gl").op.scope, 1);
    assert_eq!(x.inst("membar.cta").op.scope, 0);
    assert_eq!(x.inst("fence.sc.sys").op.scope, 2);
    assert_eq!(
        x.inst("bar.sync 	1, 64").operands,
        vec![Operand::Imm(1), Operand::Imm(64)]
    );
    let b = x.inst("barrier.sync.aligned");
    assert!(b.op.aligned && b.op.bar == Some(BarMode::Sync));
    assert_eq!(x.inst("bar.arrive").op.bar, Some(BarMode::Arrive));
    let r = x.inst("bar.red.popc.u32");
    assert_eq!(
        (r.op.bar, r.op.atom_op),
        (Some(BarMode::Red), Some(AtomOp::Popc))
    );
    assert_eq!(x.inst("bar.red.and.pred").op.atom_op, Some(AtomOp::And));
    let w = x.inst("bar.warp.sync");
    assert!(w.op.warp && w.op.bar == Some(BarMode::Sync));
    let s = x.inst("shfl.sync.bfly.b32");
    assert_eq!(
        s.operands[0],
        Operand::PredPair(x.reg("%r11"), x.reg("%p3"))
    );
    assert_eq!(s.op.shfl, Some(ShflMode::Bfly));
    assert_eq!(x.inst("vote.sync.all.pred").op.vote, Some(VoteMode::All));
    let va = x.inst("vote.any.pred");
    assert!(!va.op.sync && va.operands.len() == 2);
    assert_eq!(x.inst("activemask.b32").operands, vec![x.r("%r13")]);
    assert_eq!(x.inst("nanosleep.u32").operands, vec![Operand::Imm(100)]);
    assert_eq!(x.inst("redux.sync.add.u32").op.atom_op, Some(AtomOp::Add));
    let t = x.inst("tex.1d.v4.f32.s32");
    assert_eq!(
        (t.op.tex_geom, t.op.vec, t.op.ty2),
        (Some(TexGeom::D1), 4, Some(ScalarType::S32))
    );
    assert_eq!(
        t.operands[1],
        Operand::List(vec![
            Operand::Symbol("tex0".into()),
            Operand::Vec(vec![x.r("%r1")])
        ])
    );
    assert_eq!(x.inst("tex.2d.v4.f32.f32").op.tex_geom, Some(TexGeom::D2));
}

#[test]
fn calls() {
    let x = fx();
    let f = x.kernel();
    let calls: Vec<&Instruction> = f
        .insts
        .iter()
        .filter(|i| i.op.kind == OpKind::Call)
        .collect();
    assert_eq!(calls.len(), 3);
    assert!(calls[0].op.uni);
    assert_eq!(
        calls[0].operands,
        vec![
            Operand::List(vec![Operand::Symbol("retval0".into())]),
            Operand::Symbol("_Z6squarei".into()),
            Operand::List(vec![Operand::Symbol("param0".into())])
        ]
    );
    assert_eq!(calls[1].operands[1], x.r("%rd1"));
    assert_eq!(calls[1].operands[3], Operand::Symbol("prototype_0".into()));
    assert_eq!(
        calls[2].operands,
        vec![Operand::Symbol("_Z4dieve".into()), Operand::List(vec![])]
    );
    assert!(calls[2].guard.is_some());
    // the inner-scope `.reg .b32 temp_param_reg` is a register of the function
    assert!(f.regs.iter().any(|r| r.name == "temp_param_reg"));
}
