//! Decoding of a PTX kernel into the executor's pre-decoded form: registers to slots, operands to
//! sources, instruction classes, call sites, reconvergence points.

use super::layout::{align_up, var_align};
use super::*;

/// Whether this `bra` is unconditional and uniform (no divergence possible).
pub(super) fn class_of(inst: &warpforge_ptx::Instruction) -> OpClass {
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
pub(super) struct Ctx<'a> {
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

pub(super) fn is_wide(op: &Op) -> bool {
    op.mul_mode == Some(MulMode::Wide)
}

/// Runs the redundancy analyses (document 003 §5.2, `warpforge_ptx::redundancy`) over the
/// kernel body `f` and stores their markings in the templates of its instructions (the first
/// `f.insts.len()` of `insts`; callees stay unmarked).
fn set_hints(f: &Function, insts: &mut [DInst]) {
    use warpforge_core::hint;
    use warpforge_ptx::redundancy::{dac_eliminable, uv_eliminable, Dim, Dimensionality};
    let d = Dimensionality::analyse(f);
    let uv = uv_eliminable(f, [128, 1, 1], 32);
    let wide = dac_eliminable(f, [128, 1, 1], 32);
    let narrow = dac_eliminable(f, [16, 16, 1], 32);
    for (i, di) in insts.iter_mut().take(f.insts.len()).enumerate() {
        let mut h = 0u8;
        if d.eliminable[i] {
            h |= match d.class[i] {
                Dim::R => hint::DARSIE_R,
                Dim::CR => hint::DARSIE_CR,
                Dim::V => 0,
            };
        }
        for (on, bit) in [
            (uv[i], hint::UV),
            (wide[i], hint::DAC_WIDE),
            (narrow[i], hint::DAC_NARROW),
        ] {
            if on {
                h |= bit;
            }
        }
        di.tmpl.hints = h;
    }
}

/// Decodes kernel `name` of module `m` (with its module layout) for execution.
pub fn decode_kernel(
    m: &Module,
    name: &str,
    layout: &ModuleLayout,
    reconv: &dyn Fn(&Function) -> Vec<u32>,
) -> Result<KernelCode, String> {
    decode_kernel_with(m, name, layout, reconv, true)
}

/// [`decode_kernel`], with `share` choosing whether registers of the kernel's own body whose live
/// ranges never overlap share a physical slot ([`KernelCode::shared_slots`]). Without sharing,
/// each register has a slot of its own, so a register keeps its contents in lanes an instruction
/// does not write (what [`warpforge_core::InstObserver::on_values`] reports).
pub fn decode_kernel_with(
    m: &Module,
    name: &str,
    layout: &ModuleLayout,
    reconv: &dyn Fn(&Function) -> Vec<u32>,
    share: bool,
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
            let direct = inst
                .operands
                .iter()
                .any(|o| matches!(o, Operand::Symbol(n) if idx.contains_key(n)));
            if !direct {
                // An indirect call may reach any function with a body: decode them all
                // (recursion through a pointer is caught at run time by the frame limit).
                for (c, g) in m.functions.iter().enumerate() {
                    if !g.is_entry && !g.is_decl && !order.contains(&c) && !path.contains(&c) {
                        order.push(c);
                        visit(m, c, idx, order, path)?;
                    }
                }
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
        // Callees (and a `.func` decoded on its own, as `ptx check` does) get their parameters
        // and return values in the function-parameter space; only an entry's are kernel params.
        if pos > 0 || !f.is_entry {
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
    set_hints(&m.functions[funcs[0].module_idx], &mut insts);
    let banks = Banks::new(m, &funcs, &insts, special_base, share);
    for d in &mut insts {
        banks.remap(d);
    }
    let regs_per_thread = crate::regest::estimate(m, &order);
    Ok(KernelCode {
        name: name.to_string(),
        file: m.file.clone(),
        insts,
        funcs,
        nslots,
        special_base,
        phys: banks.phys,
        narrow_slots: banks.narrow,
        wide_slots: banks.wide,
        wide_special_base: banks.wide_special_base,
        shared_slots: share,
        params,
        param_bytes,
        shared_static: shared_end as u32,
        dyn_shared_align: dyn_align as u32,
        local_bytes: local_end as u32,
        fparam_bytes: fparam_end as u32,
        regs_per_thread,
    })
}

/// The register banks of a kernel's code: each logical slot's physical slot (see
/// [`KernelCode::phys`]).
struct Banks {
    phys: Vec<u32>,
    narrow: u32,
    wide: u32,
    wide_special_base: u32,
}

impl Banks {
    /// A register goes to the bank of 32-bit lanes when every value it can hold fits 32 bits:
    /// it is declared with at most 32 bits (every write is masked to the declared width, see
    /// `Ctx::reg_mask`) and is not the destination of a call's return value wider than 4 bytes
    /// (written unmasked). Special slots, the sink among them, stay 64-bit.
    ///
    /// With `share`, the kernel body's registers of one bank are coloured by interference
    /// ([`kernel_colours`]): registers that are never live at the same time take the same slot.
    /// Callees' registers keep a slot each (they persist from one call to the next).
    fn new(
        m: &Module,
        funcs: &[FuncCode],
        insts: &[DInst],
        special_base: u32,
        share: bool,
    ) -> Banks {
        let mut forced = vec![false; special_base as usize];
        fn mark(c: &CallSite, forced: &mut [bool]) {
            for &(_, dst, size) in &c.rets {
                if let CallVal::Val(Src::R(r) | Src::N(r)) = dst {
                    if size > 4 {
                        if let Some(f) = forced.get_mut(r as usize) {
                            *f = true;
                        }
                    }
                }
            }
            for (_, alt) in &c.alts {
                mark(alt, forced);
            }
        }
        for d in insts {
            if let Some(c) = d.call.as_deref() {
                mark(c, &mut forced);
            }
        }
        let mut phys = Vec::with_capacity(special_base as usize + sp::COUNT as usize);
        let (mut narrow, mut wide) = (0u32, 0u32);
        let is_wide = |slot: usize, ri: &warpforge_ptx::RegInfo| ri.ty.size() > 4 || forced[slot];
        for (fi, fc) in funcs.iter().enumerate() {
            let regs = &m.functions[fc.module_idx].regs;
            if fi == 0 && share {
                let kinsts = &insts[fc.start as usize..(fc.start + fc.len) as usize];
                let wide_of: Vec<bool> = (0..regs.len()).map(|i| is_wide(i, &regs[i])).collect();
                let colours = kernel_colours(kinsts, fc.start, &wide_of);
                let (mut nn, mut nw) = (0u32, 0u32);
                for (i, &c) in colours.iter().enumerate() {
                    if wide_of[i] {
                        phys.push(WIDE | c);
                        nw = nw.max(c + 1);
                    } else {
                        phys.push(c);
                        nn = nn.max(c + 1);
                    }
                }
                narrow += nn;
                wide += nw;
                continue;
            }
            for (i, ri) in regs.iter().enumerate() {
                let slot = fc.reg_base as usize + i;
                if is_wide(slot, ri) {
                    phys.push(WIDE | wide);
                    wide += 1;
                } else {
                    phys.push(narrow);
                    narrow += 1;
                }
            }
        }
        debug_assert_eq!(phys.len(), special_base as usize);
        let wide_special_base = wide;
        for _ in 0..sp::COUNT {
            phys.push(WIDE | wide);
            wide += 1;
        }
        Banks {
            phys,
            narrow,
            wide,
            wide_special_base,
        }
    }

    fn src(&self, s: &mut Src) {
        if let Src::R(r) | Src::N(r) = s {
            *r = self.phys[*r as usize];
        }
    }

    fn call(&self, c: &mut CallSite) {
        for (v, _, _) in &mut c.args {
            if let CallVal::Val(s) = v {
                self.src(s);
            }
        }
        for (_, v, _) in &mut c.rets {
            if let CallVal::Val(s) = v {
                self.src(s);
            }
        }
        if let Some(t) = &mut c.target {
            self.src(t);
        }
        for (_, alt) in &mut c.alts {
            self.call(alt);
        }
    }

    /// Replaces the logical slots of `d`'s operands, destinations and guard by physical ones
    /// (its timing template keeps the logical slots).
    fn remap(&self, d: &mut DInst) {
        if d.guard != u32::MAX {
            d.guard = self.phys[d.guard as usize];
        }
        for j in 0..d.nd as usize {
            d.d[j] = self.phys[d.d[j] as usize];
        }
        for s in &mut d.s {
            self.src(s);
        }
        if let Some(c) = d.call.as_deref_mut() {
            self.call(c);
        }
    }
}

/// A slot for each register of the kernel's own body (logical slots `0..wide_of.len()`, its
/// instructions `insts` from code index `start`), per bank (`wide_of`), such that two registers
/// get the same slot only when they never interfere.
///
/// Liveness is per thread (each lane follows its own path through the body, and an instruction
/// writes only its active lanes): backward over the body, successors the next instruction and a
/// branch's target (an unguarded `bra` only its target, an unguarded `exit`/`ret` none). A
/// guarded instruction does not kill its destinations (lanes whose guard is false keep the old
/// value). A destination interferes with every register live after its instruction, with the
/// instruction's other destinations and with its sources. So a register read before any write
/// (zero) is live from the entry and no register written meanwhile shares its slot. Registers
/// never read or written get slot 0 of their bank. Greedy colouring in slot order.
///
/// Two reads see lanes other than the thread's own, where the per-thread argument does not hold:
/// `shfl` reads its source in the lane it names, which may be inactive, and `bar` reads its id
/// and thread count in lane 31 when no lane is active. Those registers keep a slot of their
/// own (after the coloured ones), so every lane holds what it held without sharing.
fn kernel_colours(insts: &[DInst], start: u32, wide_of: &[bool]) -> Vec<u32> {
    let n = wide_of.len();
    let words = n.div_ceil(64).max(1);
    let own = |r: u32| (r as usize) < n;
    let mut uses: Vec<Vec<u32>> = Vec::with_capacity(insts.len());
    let mut defs: Vec<Vec<u32>> = Vec::with_capacity(insts.len());
    fn site_regs(c: &CallSite, uses: &mut Vec<u32>, defs: &mut Vec<u32>) {
        for (v, _, _) in &c.args {
            if let CallVal::Val(Src::R(r) | Src::N(r)) = v {
                uses.push(*r);
            }
        }
        for (_, v, _) in &c.rets {
            if let CallVal::Val(Src::R(r) | Src::N(r)) = v {
                defs.push(*r);
            }
        }
        if let Some(Src::R(r) | Src::N(r)) = c.target {
            uses.push(r);
        }
        for (_, alt) in &c.alts {
            site_regs(alt, uses, defs);
        }
    }
    for d in insts {
        let mut u = Vec::new();
        let mut w = Vec::new();
        if d.guard != u32::MAX {
            u.push(d.guard);
        }
        for s in &d.s {
            if let Src::R(r) | Src::N(r) = s {
                u.push(*r);
            }
        }
        w.extend_from_slice(&d.d[..d.nd as usize]);
        if let Some(c) = d.call.as_deref() {
            site_regs(c, &mut u, &mut w);
        }
        u.retain(|&r| own(r));
        w.retain(|&r| own(r));
        uses.push(u);
        defs.push(w);
    }
    let mut pinned = vec![false; n];
    for d in insts {
        let cross = match d.k {
            K::Shfl => &d.s[..1],
            K::Bar => &d.s[..2],
            _ => &d.s[..0],
        };
        for s in cross {
            if let Src::R(r) | Src::N(r) = *s {
                if own(r) {
                    pinned[r as usize] = true;
                }
            }
        }
    }
    let len = insts.len();
    let succ = |i: usize| -> [Option<usize>; 2] {
        let d = &insts[i];
        let guarded = d.guard != u32::MAX;
        let next = (i + 1 < len).then_some(i + 1);
        let target = (d.target >= start && ((d.target - start) as usize) < len)
            .then(|| (d.target - start) as usize);
        match d.k {
            K::Bra if guarded => [next, target],
            K::Bra => [target, None],
            K::Exit | K::Ret if !guarded => [None, None],
            _ => [next, None],
        }
    };
    // live_out[i], as bit sets of `words` words.
    let mut out = vec![0u64; len * words];
    let mut inn = vec![0u64; len * words];
    let mut changed = true;
    let (mut o, mut x) = (vec![0u64; words], vec![0u64; words]);
    while changed {
        changed = false;
        for i in (0..len).rev() {
            o.fill(0);
            for sidx in succ(i).into_iter().flatten() {
                for (a, b) in o.iter_mut().zip(&inn[sidx * words..(sidx + 1) * words]) {
                    *a |= b;
                }
            }
            x.copy_from_slice(&o);
            if insts[i].guard == u32::MAX {
                for &r in &defs[i] {
                    x[r as usize / 64] &= !(1u64 << (r % 64));
                }
            }
            for &r in &uses[i] {
                x[r as usize / 64] |= 1u64 << (r % 64);
            }
            if x[..] != inn[i * words..(i + 1) * words] {
                inn[i * words..(i + 1) * words].copy_from_slice(&x);
                changed = true;
            }
            out[i * words..(i + 1) * words].copy_from_slice(&o);
        }
    }
    // Interference (symmetric bit matrix).
    let mut adj = vec![0u64; n * words];
    let mut edge = |a: u32, b: u32| {
        if a != b {
            adj[a as usize * words + b as usize / 64] |= 1u64 << (b % 64);
            adj[b as usize * words + a as usize / 64] |= 1u64 << (a % 64);
        }
    };
    for i in 0..len {
        for &d in &defs[i] {
            for (wi, &bits) in out[i * words..(i + 1) * words].iter().enumerate() {
                let mut b = bits;
                while b != 0 {
                    let r = (wi * 64) as u32 + b.trailing_zeros();
                    b &= b - 1;
                    edge(d, r);
                }
            }
            for &e in defs[i].iter().chain(&uses[i]) {
                edge(d, e);
            }
        }
    }
    let mut colour = vec![0u32; n];
    // Colours of already coloured neighbours, marked in `used` and cleared after each register.
    let mut used = vec![false; n + 1];
    let mut marked: Vec<u32> = Vec::new();
    for r in 0..n {
        if pinned[r] {
            continue;
        }
        for (wi, &bits) in adj[r * words..(r + 1) * words].iter().enumerate() {
            let mut b = bits;
            while b != 0 {
                let q = wi * 64 + b.trailing_zeros() as usize;
                b &= b - 1;
                if q < r && !pinned[q] && wide_of[q] == wide_of[r] {
                    used[colour[q] as usize] = true;
                    marked.push(colour[q]);
                }
            }
        }
        let c = used.iter().position(|u| !u).unwrap_or(n) as u32;
        colour[r] = c;
        for m in marked.drain(..) {
            used[m as usize] = false;
        }
    }
    // Pinned registers: fresh slots past the coloured ones of their bank.
    for bank in [false, true] {
        let mut next = (0..n)
            .filter(|&r| !pinned[r] && wide_of[r] == bank)
            .map(|r| colour[r] + 1)
            .max()
            .unwrap_or(0);
        for r in 0..n {
            if pinned[r] && wide_of[r] == bank {
                colour[r] = next;
                next += 1;
            }
        }
    }
    colour
}

pub(super) fn src_slot(s: &Src) -> Option<u16> {
    match s {
        Src::R(r) | Src::N(r) => Some(*r as u16),
        Src::I(_) => None,
    }
}

pub(super) fn decode_inst(
    ctx: &Ctx,
    inst: &warpforge_ptx::Instruction,
    base: u32,
) -> Result<DInst, String> {
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
            let list = |o: Option<&Operand>| -> Vec<Operand> {
                match o {
                    Some(Operand::List(v)) | Some(Operand::Vec(v)) => v.clone(),
                    Some(o @ Operand::Symbol(_)) | Some(o @ Operand::Reg(_)) => vec![o.clone()],
                    _ => Vec::new(),
                }
            };
            let direct = ops
                .iter()
                .position(|o| matches!(o, Operand::Symbol(n) if ctx.func_index.contains_key(n)));
            // `call (rets), fptr, (args), proto;`: the target is the first bare register after
            // the optional return list.
            let fpos = match direct {
                Some(p) => p,
                None => {
                    let first = usize::from(matches!(ops.first(), Some(Operand::List(_))));
                    match ops.get(first) {
                        Some(Operand::Reg(_)) => first,
                        _ => {
                            return Err(
                                "call without a function name or a function-pointer register"
                                    .into(),
                            )
                        }
                    }
                }
            };
            let rets = if fpos > 0 {
                list(ops.first())
            } else {
                Vec::new()
            };
            let args = list(ops.get(fpos + 1));
            // The argument and return copies of a call of code function `callee`.
            let site_for = |callee: u32, d: &mut DInst| -> Result<CallSite, String> {
                let cf = &ctx.code_funcs[callee as usize];
                let cfunc = &ctx.m.functions[cf.module_idx];
                let fname = &cfunc.name;
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
                    target: None,
                    alts: Vec::new(),
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
                Ok(site)
            };
            if direct.is_some() {
                let Operand::Symbol(fname) = &ops[fpos] else {
                    unreachable!()
                };
                let callee = ctx
                    .code_funcs
                    .iter()
                    .position(|f| &f.name == fname)
                    .ok_or_else(|| format!("callee `{fname}` not in code"))?
                    as u32;
                let site = site_for(callee, &mut d)?;
                d.target = callee;
                d.call = Some(Box::new(site));
                return Ok(d);
            }
            // Indirect: one call site per function whose signature fits; the pointer's value
            // (the function's address, see `Ctx::symbol`) picks one at run time.
            let target = ctx.value(&ops[fpos], Some(ScalarType::U64))?;
            let mut site = CallSite {
                callee: u32::MAX,
                args: Vec::new(),
                rets: Vec::new(),
                target: Some(target),
                alts: Vec::new(),
            };
            for (ci, cf) in ctx.code_funcs.iter().enumerate().skip(1) {
                let g = &ctx.m.functions[cf.module_idx];
                if g.params.len() == args.len() && g.rets.len() >= rets.len() {
                    let alt = site_for(ci as u32, &mut d)?;
                    site.alts.push((cf.module_idx as u64, alt));
                }
            }
            if let Some(r) = src_slot(&target) {
                let n = d.tmpl.n_src as usize;
                if n < MAX_SRC {
                    d.tmpl.src[n] = r;
                    d.tmpl.n_src += 1;
                }
            }
            d.call = Some(Box::new(site));
            return Ok(d);
        }
        Ret => d.k = K::Ret,
        Exit => d.k = K::Exit,
        Trap | Brkpt => d.k = K::Trap,
        Membar | Fence | Prefetch | Prefetchu | Nanosleep | Pmevent => d.k = K::Nop,
        // `bar.warp.sync MASK`: the lanes of a warp execute in lock-step here, so the warp-level
        // barrier has nothing to wait for; the mask (often `-1`, all lanes) is not a barrier id.
        Bar | Barrier if op.warp => d.k = K::Nop,
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

pub(super) fn decode_alu(
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

pub(super) fn check_alu_types(op: &Op) -> Result<(), String> {
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
