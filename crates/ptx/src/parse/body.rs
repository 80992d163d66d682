//! Function bodies: nested scopes, `.reg`/variable declarations, labels, guards and
//! instructions (PTX ISA §11.1, §9.2). Registers resolve to [`RegId`]s through a scoped table;
//! labels and symbols are checked once the body (labels) or module (symbols) is complete.

use std::collections::{HashMap, HashSet};

use super::vars::space_of;
use super::Parser;
use crate::decode::{decode, op_kind, operand_count};
use crate::error::PtxError;
use crate::ir::*;
use crate::lexer::{Tok, TokKind};

/// Scoped register table. `%r<N>` ranges are stored as one entry (prefix, base, count) so large
/// declarations cost no hashing per register. Each name keeps a stack of declarations, innermost
/// last, so an inner `{ }` scope shadows an outer one only for the names it declares.
#[derive(Default)]
pub(crate) struct Regs<'a> {
    exact: HashMap<&'a str, Vec<(u32, u32)>>,
    ranges: HashMap<&'a str, Vec<(u32, u32, u32)>>,
    undo: Vec<(bool, &'a str)>,
    marks: Vec<usize>,
    depth: u32,
}

impl<'a> Regs<'a> {
    fn push(&mut self) {
        self.marks.push(self.undo.len());
        self.depth += 1;
    }
    fn pop(&mut self) {
        let m = self.marks.pop().unwrap_or(0);
        while self.undo.len() > m {
            let Some((is_range, k)) = self.undo.pop() else {
                break;
            };
            if is_range {
                if let Some(v) = self.ranges.get_mut(k) {
                    v.pop();
                }
            } else if let Some(v) = self.exact.get_mut(k) {
                v.pop();
            }
        }
        self.depth = self.depth.saturating_sub(1);
    }
    /// Declares `name`; false if already declared in the same scope.
    fn add_exact(&mut self, name: &'a str, id: u32) -> bool {
        let v = self.exact.entry(name).or_default();
        let dup = matches!(v.last(), Some(&(_, d)) if d == self.depth);
        v.push((id, self.depth));
        self.undo.push((false, name));
        !dup
    }
    fn add_range(&mut self, prefix: &'a str, base: u32, count: u32) -> bool {
        let v = self.ranges.entry(prefix).or_default();
        let dup = matches!(v.last(), Some(&(_, _, d)) if d == self.depth);
        v.push((base, count, self.depth));
        self.undo.push((true, prefix));
        !dup
    }
    /// Looks a register name up: the innermost declaration that covers it.
    pub(crate) fn get(&self, name: &str) -> Option<u32> {
        let exact = self.exact.get(name).and_then(|v| v.last().copied());
        let range = (|| {
            let digits = name
                .bytes()
                .rev()
                .take_while(|c| c.is_ascii_digit())
                .count();
            if digits == 0 || digits == name.len() {
                return None;
            }
            let (prefix, num) = name.split_at(name.len() - digits);
            if num.len() > 1 && num.starts_with('0') {
                return None;
            }
            let n: u32 = num.parse().ok()?;
            self.ranges
                .get(prefix)?
                .iter()
                .rev()
                .find(|&&(_, count, _)| n < count)
                .map(|&(base, _, d)| (base + n, d))
        })();
        match (exact, range) {
            (Some((id, de)), Some((rid, dr))) => Some(if dr > de { rid } else { id }),
            (Some((id, _)), None) => Some(id),
            (None, Some((rid, _))) => Some(rid),
            (None, None) => None,
        }
    }
}

/// Per-function parse state.
pub(crate) struct FnState<'a> {
    pub regs: Regs<'a>,
    /// Branch targets to resolve: (instruction, operand index, name, token).
    pub labels_todo: Vec<(usize, usize, &'a str, Tok)>,
    /// Symbols to check: (name, token).
    pub syms_todo: Vec<(&'a str, Tok)>,
    /// Names of `.callprototype` labels.
    pub prototypes: HashSet<&'a str>,
    label_locs: HashMap<&'a str, Tok>,
}

impl<'a> Parser<'a> {
    /// The body from its `{` through the matching `}`. Returns module-scope symbols referenced.
    pub(crate) fn body(&mut self, f: &mut Function) -> Result<Vec<(String, Loc)>, PtxError> {
        let mut st = FnState {
            regs: Regs::default(),
            labels_todo: Vec::new(),
            syms_todo: Vec::new(),
            prototypes: HashSet::new(),
            label_locs: HashMap::new(),
        };
        self.expect_punct(b'{', "opening the function body")?;
        self.block(f, &mut st)?;
        // Resolve branch targets.
        for (i, k, name, t) in std::mem::take(&mut st.labels_todo) {
            match f.labels.get(name) {
                Some(&target) => f.insts[i].operands[k] = Operand::Label(target),
                None => return Err(self.err_at(t, format!("undefined label `{name}`"))),
            }
        }
        // Symbols: local variables, parameters and prototypes here; the rest at module scope.
        let mut local: HashSet<&str> = f.vars.iter().map(|v| v.name.as_str()).collect();
        local.extend(f.params.iter().map(|p| p.name.as_str()));
        local.extend(f.rets.iter().map(|p| p.name.as_str()));
        let mut out = Vec::new();
        for (name, t) in st.syms_todo {
            if local.contains(name) || st.prototypes.contains(name) {
                continue;
            }
            if f.labels.contains_key(name) {
                return Err(self.err_at(t, format!("label `{name}` used as a value")));
            }
            out.push((name.to_string(), Self::loc(t)));
        }
        Ok(out)
    }

    /// Statements up to and including the `}` closing the current scope.
    fn block(&mut self, f: &mut Function, st: &mut FnState<'a>) -> Result<(), PtxError> {
        st.regs.push();
        let mut depth_guard = 0u32;
        loop {
            let Some(t) = self.peek() else {
                return Err(self.err_eof("expected `}` closing the function body"));
            };
            match t.kind {
                TokKind::Punct(b'}') => {
                    self.pos += 1;
                    st.regs.pop();
                    return Ok(());
                }
                TokKind::Punct(b'{') => {
                    self.pos += 1;
                    depth_guard += 1;
                    if st.regs.depth > 64 {
                        return Err(self.err_at(t, "scopes nested too deeply"));
                    }
                    self.block(f, st)?;
                }
                TokKind::Dot => self.body_directive(f, st, t)?,
                TokKind::Punct(b'@') => {
                    self.pos += 1;
                    let neg = self.eat_punct(b'!');
                    let (pt, pname) = self.expect_ident("a predicate register after `@`")?;
                    let Some(id) = st.regs.get(pname) else {
                        return Err(self.err_at(pt, format!("undefined register `{pname}`")));
                    };
                    if f.regs[id as usize].ty != ScalarType::Pred {
                        return Err(
                            self.err_at(pt, format!("guard `{pname}` is not a `.pred` register"))
                        );
                    }
                    let (ot, oname) = self.expect_ident("an instruction after the guard")?;
                    self.instruction(
                        f,
                        st,
                        ot,
                        oname,
                        Some(Guard {
                            reg: RegId(id),
                            negate: neg,
                        }),
                    )?;
                }
                TokKind::Ident => {
                    let name = self.text(t);
                    if matches!(
                        self.peek_at(1),
                        Some(Tok {
                            kind: TokKind::Punct(b':'),
                            ..
                        })
                    ) {
                        self.pos += 2;
                        self.label(f, st, t, name)?;
                    } else {
                        self.pos += 1;
                        self.instruction(f, st, t, name, None)?;
                    }
                }
                _ => {
                    return Err(self.err_at(
                        t,
                        format!("expected an instruction, found {}", self.describe(t)),
                    ))
                }
            }
            let _ = depth_guard;
        }
    }

    fn label(
        &mut self,
        f: &mut Function,
        st: &mut FnState<'a>,
        t: Tok,
        name: &'a str,
    ) -> Result<(), PtxError> {
        if name.starts_with('%') {
            return Err(self.err_at(t, format!("`{name}`: labels may not start with `%`")));
        }
        if self.is_dot(".callprototype") {
            st.prototypes.insert(name);
            return self.skip_to_semi(".callprototype");
        }
        if self.is_dot(".branchtargets") {
            let d = self.peek().unwrap_or(t);
            return Err(self.err_at(d, "`.branchtargets` (brx.idx jump tables) is not supported"));
        }
        if let Some(prev) = st.label_locs.insert(name, t) {
            return Err(self.err_at(
                t,
                format!("label `{name}` already defined at line {}", prev.line),
            ));
        }
        f.labels.insert(name.to_string(), f.insts.len() as u32);
        Ok(())
    }

    fn body_directive(
        &mut self,
        f: &mut Function,
        st: &mut FnState<'a>,
        t: Tok,
    ) -> Result<(), PtxError> {
        let w = self.text(t);
        self.pos += 1;
        match w {
            ".reg" => self.reg_decl(f, st),
            ".local" | ".shared" | ".param" | ".const" | ".global" => {
                let vs = self.var_decl(space_of(w), Linkage::None, Self::loc(t))?;
                for v in vs {
                    for it in &v.init {
                        if let InitItem::Symbol { name, .. } = it {
                            let _ = name;
                            return Err(self.err_loc(
                                v.loc,
                                "symbolic initialisers are only supported at module scope",
                            ));
                        }
                    }
                    // Same-named variables of sibling scopes (call parameter buffers) share one
                    // slot sized for the largest.
                    if let Some(old) = f.vars.iter_mut().find(|o| o.name == v.name) {
                        if old.space != v.space {
                            return Err(self.err_loc(
                                v.loc,
                                format!("`{}` redeclared in another state space", v.name),
                            ));
                        }
                        if v.size_bytes() > old.size_bytes() {
                            old.ty = v.ty;
                            old.vec = v.vec;
                            old.dims = v.dims.clone();
                        }
                        old.align = old.align.max(v.align);
                    } else {
                        f.vars.push(v);
                    }
                }
                Ok(())
            }
            ".pragma" => self.skip_to_semi(".pragma"),
            ".loc" | ".file" => {
                self.skip_line(t.line);
                Ok(())
            }
            _ => Err(self.err_at(t, format!("unsupported directive `{w}` in a function body"))),
        }
    }

    /// `.reg .TYPE name, name<N>, ...;` (`.reg .v4 .f32 %v;` too).
    fn reg_decl(&mut self, f: &mut Function, st: &mut FnState<'a>) -> Result<(), PtxError> {
        let mut ty = None;
        let mut vec = 1u8;
        while let Some((t, w)) = self.next_dot_word() {
            if let Some(s) = crate::decode::scalar_type(w) {
                self.set_decl_type(&mut ty, s, t, "register declaration")?;
            } else if matches!(w, "v2" | "v4") {
                vec = if w == "v2" { 2 } else { 4 };
            } else {
                return Err(self.err_at(t, format!("unexpected `.{w}` in a register declaration")));
            }
        }
        let Some(ty) = ty else {
            return Err(self.err_here("expected a register type (e.g. `.b32`)"));
        };
        loop {
            let (nt, name) = self.expect_ident("a register name")?;
            if self.eat_punct(b'<') {
                let lt = self.peek();
                let n = self.expect_u32("a register count")?;
                self.expect_punct(b'>', "closing the register count")?;
                if n > 1 << 24 {
                    return Err(
                        self.err_at(lt.unwrap_or(nt), format!("register count {n} is too large"))
                    );
                }
                let base = f.regs.len() as u32;
                f.regs.reserve(n as usize);
                for i in 0..n {
                    f.regs.push(RegInfo {
                        name: format!("{name}{i}"),
                        ty,
                        vec,
                    });
                }
                if !st.regs.add_range(name, base, n) {
                    return Err(self.err_at(
                        nt,
                        format!("registers `{name}<..>` declared twice in one scope"),
                    ));
                }
            } else {
                let id = f.regs.len() as u32;
                f.regs.push(RegInfo {
                    name: name.to_string(),
                    ty,
                    vec,
                });
                if !st.regs.add_exact(name, id) {
                    return Err(
                        self.err_at(nt, format!("register `{name}` declared twice in one scope"))
                    );
                }
            }
            if !self.eat_punct(b',') {
                break;
            }
        }
        self.expect_punct(b';', "ending the register declaration")?;
        Ok(())
    }

    /// One instruction; `ot`/`oname` is the opcode token (already consumed).
    fn instruction(
        &mut self,
        f: &mut Function,
        st: &mut FnState<'a>,
        ot: Tok,
        oname: &'a str,
        guard: Option<Guard>,
    ) -> Result<(), PtxError> {
        let Some(kind) = op_kind(oname) else {
            return Err(self.err_at(ot, format!("unknown or unsupported instruction `{oname}`")));
        };
        if kind == OpKind::Brx {
            return Err(self.err_at(
                ot,
                "`brx.idx` (indirect branch through a jump table) is not supported",
            ));
        }
        let mut mods: [&str; 16] = [""; 16];
        let mut mod_toks: [Option<Tok>; 16] = [None; 16];
        let mut n = 0;
        while let Some(t) = self.peek() {
            if t.kind != TokKind::Dot {
                break;
            }
            if n == mods.len() {
                return Err(self.err_at(t, "too many modifiers"));
            }
            mods[n] = &self.text(t)[1..];
            mod_toks[n] = Some(t);
            n += 1;
            self.pos += 1;
        }
        let dec = decode(kind, &mods[..n]).map_err(|(i, msg)| {
            match mod_toks.get(i).copied().flatten() {
                Some(t) => self.err_at(t, msg),
                None => self.err_at(ot, msg),
            }
        })?;
        let op = dec.op;
        let mut operands = Vec::with_capacity(4);
        let idx = f.insts.len();
        if !self.is_punct(b';') {
            loop {
                let k = operands.len();
                let o = self.operand(f, st, &op, k, idx)?;
                operands.push(o);
                if !self.eat_punct(b',') {
                    break;
                }
            }
        }
        let end = self.peek();
        if !self.eat_punct(b';') {
            return Err(match end {
                Some(t) => self.err_at(
                    t,
                    format!(
                        "expected `,` or `;` after an operand of `{oname}`, found {}",
                        self.describe(t)
                    ),
                ),
                None => self.err_eof(format!("expected `;` ending `{oname}`")),
            });
        }
        let (lo, hi) = operand_count(&op);
        let extra = dec.cache_hint as usize;
        let cnt = operands.len();
        if cnt < lo + extra || cnt > hi + extra {
            let want = if lo == hi {
                format!("{}", lo + extra)
            } else {
                format!("{} to {}", lo + extra, hi + extra)
            };
            return Err(self.err_at(ot, format!("`{oname}` takes {want} operands, found {cnt}")));
        }
        self.check_shapes(f, &op, &operands, ot, oname)?;
        f.insts.push(Instruction {
            guard,
            op,
            operands,
            loc: Self::loc(ot),
        });
        Ok(())
    }

    /// Operand-shape checks consumers rely on (addresses where memory is accessed, targets).
    fn check_shapes(
        &self,
        f: &Function,
        op: &Op,
        ops: &[Operand],
        ot: Tok,
        oname: &str,
    ) -> Result<(), PtxError> {
        // Predicate positions hold `.pred` registers: setp's destination(s), selp's selector.
        let is_pred = |r: &RegId| {
            f.regs
                .get(r.0 as usize)
                .is_some_and(|i| i.ty == ScalarType::Pred)
        };
        let pred_ok = |o: &Operand| match o {
            Operand::Reg(r) | Operand::NotReg(r) => is_pred(r),
            Operand::PredPair(a, b) => is_pred(a) && is_pred(b),
            _ => false,
        };
        let pred_at = match op.kind {
            OpKind::Setp => Some(0),
            OpKind::Selp => Some(3),
            _ => None,
        };
        if let Some(i) = pred_at {
            if !ops.get(i).is_some_and(pred_ok) {
                return Err(self.err_at(
                    ot,
                    format!("operand {} of `{oname}` must be a `.pred` register", i + 1),
                ));
            }
        }
        use OpKind::*;
        let addr_at = match op.kind {
            Ld | Ldu | Atom | Red if true => match op.kind {
                Red => Some(0),
                _ => Some(1),
            },
            St | Prefetch | Prefetchu => Some(0),
            _ => None,
        };
        if let Some(i) = addr_at {
            if !matches!(ops.get(i), Some(Operand::Addr { .. })) {
                return Err(self.err_at(
                    ot,
                    format!("operand {} of `{oname}` must be an address `[...]`", i + 1),
                ));
            }
        }
        match op.kind {
            Bra if !matches!(ops[0], Operand::Label(_)) => {
                Err(self.err_at(ot, format!("`{oname}` needs a label target")))
            }
            Bra if ops.len() > 1 => Err(self.err_at(ot, "`bra` takes one target")),
            Call => {
                let fpos = usize::from(matches!(ops[0], Operand::List(_)));
                match ops.get(fpos) {
                    Some(Operand::Symbol(_) | Operand::Reg(_)) => Ok(()),
                    _ => Err(self.err_at(ot, "`call` needs a function name or register")),
                }
            }
            _ => Ok(()),
        }
    }
}
