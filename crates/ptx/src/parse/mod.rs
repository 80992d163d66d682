//! Recursive-descent PTX parser: module-scope directives, variables and function headers
//! (PTX ISA §11). Function bodies are in [`body`], operands in [`operand`].

mod body;
mod operand;
mod vars;

use std::collections::HashMap;

use crate::error::PtxError;
use crate::ir::*;
use crate::lexer::{lex, Tok, TokKind};

/// Parses one PTX module. See the crate docs for what is accepted.
pub fn parse(text: &str, file: &str) -> Result<Module, PtxError> {
    let toks = lex(text, file)?;
    let mut p = Parser {
        src: text,
        file,
        toks,
        pos: 0,
    };
    p.module()
}

/// Token cursor plus error helpers.
pub(crate) struct Parser<'a> {
    pub src: &'a str,
    pub file: &'a str,
    pub toks: Vec<Tok>,
    pub pos: usize,
}

/// A symbol reference whose definition is checked once the whole module is read.
struct PendingSym {
    name: String,
    loc: Loc,
}

impl<'a> Parser<'a> {
    #[inline]
    pub fn peek(&self) -> Option<Tok> {
        self.toks.get(self.pos).copied()
    }
    #[inline]
    pub fn peek_at(&self, k: usize) -> Option<Tok> {
        self.toks.get(self.pos + k).copied()
    }
    #[inline]
    pub fn text(&self, t: Tok) -> &'a str {
        &self.src[t.start as usize..t.end as usize]
    }
    pub fn loc(t: Tok) -> Loc {
        Loc {
            line: t.line,
            col: t.col,
        }
    }
    pub fn err_at(&self, t: Tok, msg: impl Into<String>) -> PtxError {
        PtxError::new(self.file, t.line, t.col, msg)
    }
    pub fn err_loc(&self, l: Loc, msg: impl Into<String>) -> PtxError {
        PtxError::new(self.file, l.line, l.col, msg)
    }
    /// Error at the current token, or just past the last one at end of input.
    pub fn err_here(&self, msg: impl Into<String>) -> PtxError {
        match self.peek() {
            Some(t) => self.err_at(t, msg),
            None => self.err_eof(msg),
        }
    }
    /// Error at `t` if known, else at the current position.
    pub fn err_here_or(&self, t: Option<Tok>, msg: impl Into<String>) -> PtxError {
        match t {
            Some(t) => self.err_at(t, msg),
            None => self.err_here(msg),
        }
    }
    pub fn err_eof(&self, msg: impl Into<String>) -> PtxError {
        let msg = format!("{} (unexpected end of input)", msg.into());
        match self.toks.last() {
            Some(t) => PtxError::new(self.file, t.line, t.col + (t.end - t.start), msg),
            None => PtxError::new(self.file, 1, 1, msg),
        }
    }
    /// Describes a token for error messages.
    pub fn describe(&self, t: Tok) -> String {
        format!("`{}`", self.text(t))
    }
    pub fn next(&mut self, what: &str) -> Result<Tok, PtxError> {
        match self.peek() {
            Some(t) => {
                self.pos += 1;
                Ok(t)
            }
            None => Err(self.err_eof(format!("expected {what}"))),
        }
    }
    #[inline]
    pub fn is_punct(&self, c: u8) -> bool {
        matches!(self.peek(), Some(Tok { kind: TokKind::Punct(x), .. }) if x == c)
    }
    pub fn eat_punct(&mut self, c: u8) -> bool {
        if self.is_punct(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    pub fn expect_punct(&mut self, c: u8, ctx: &str) -> Result<Tok, PtxError> {
        match self.peek() {
            Some(t) if t.kind == TokKind::Punct(c) => {
                self.pos += 1;
                Ok(t)
            }
            Some(t) => Err(self.err_at(
                t,
                format!("expected `{}` {ctx}, found {}", c as char, self.describe(t)),
            )),
            None => Err(self.err_eof(format!("expected `{}` {ctx}", c as char))),
        }
    }
    pub fn is_dot(&self, w: &str) -> bool {
        matches!(self.peek(), Some(t) if t.kind == TokKind::Dot && self.text(t) == w)
    }
    pub fn expect_ident(&mut self, what: &str) -> Result<(Tok, &'a str), PtxError> {
        let t = self.next(what)?;
        if t.kind == TokKind::Ident {
            Ok((t, self.text(t)))
        } else {
            Err(self.err_at(t, format!("expected {what}, found {}", self.describe(t))))
        }
    }
    pub fn expect_uint(&mut self, what: &str) -> Result<u64, PtxError> {
        let t = self.next(what)?;
        match t.kind {
            TokKind::Int(v) => Ok(v),
            _ => Err(self.err_at(
                t,
                format!("expected {what} (an integer), found {}", self.describe(t)),
            )),
        }
    }
    pub fn expect_u32(&mut self, what: &str) -> Result<u32, PtxError> {
        let t = self.peek();
        let v = self.expect_uint(what)?;
        u32::try_from(v).map_err(|_| self.err_here_or(t, format!("{what} {v} is out of range")))
    }
    /// The next `.word` of a declaration's attribute list (token and word without its dot),
    /// consumed; `None` (nothing consumed) at the first token that is not a dotted word.
    pub fn next_dot_word(&mut self) -> Option<(Tok, &'a str)> {
        let t = self.peek().filter(|t| t.kind == TokKind::Dot)?;
        self.pos += 1;
        Some((t, &self.text(t)[1..]))
    }
    /// Records the declared type `s` (word `t`) of a `what` declaration; a second type is an
    /// error ("`what` has two types").
    pub fn set_decl_type(
        &self,
        ty: &mut Option<ScalarType>,
        s: ScalarType,
        t: Tok,
        what: &str,
    ) -> Result<(), PtxError> {
        match ty.replace(s) {
            Some(_) => Err(self.err_at(t, format!("{what} has two types"))),
            None => Ok(()),
        }
    }
    /// The `N` of `.align N` (after the word `t`): a power of two.
    pub fn align_value(&mut self, t: Tok) -> Result<u32, PtxError> {
        let at = self.peek();
        let a = self.expect_u32("an alignment")?;
        if !a.is_power_of_two() {
            return Err(self.err_at(
                at.unwrap_or(t),
                format!("alignment {a} is not a power of two"),
            ));
        }
        Ok(a)
    }
    /// Skips every token on the line of `t` (directives without a terminating `;`, like `.loc`).
    pub fn skip_line(&mut self, line: u32) {
        while matches!(self.peek(), Some(t) if t.line == line) {
            self.pos += 1;
        }
    }
    /// Skips to and past the next `;`.
    pub fn skip_to_semi(&mut self, what: &str) -> Result<(), PtxError> {
        loop {
            let Some(t) = self.peek() else {
                return Err(self.err_eof(format!("expected `;` ending {what}")));
            };
            self.pos += 1;
            if t.kind == TokKind::Punct(b';') {
                return Ok(());
            }
        }
    }
    /// Skips a balanced `{ ... }` group (the opening brace is the next token).
    pub fn skip_braces(&mut self, what: &str) -> Result<(), PtxError> {
        if !self.is_punct(b'{') {
            return Err(self.err_here(format!("expected `{{` opening {what}")));
        }
        self.pos += 1;
        let mut depth = 1;
        while depth > 0 {
            let Some(t) = self.peek() else {
                return Err(self.err_eof(format!("expected `}}` closing {what}")));
            };
            self.pos += 1;
            match t.kind {
                TokKind::Punct(b'{') => depth += 1,
                TokKind::Punct(b'}') => depth -= 1,
                _ => {}
            }
        }
        Ok(())
    }

    fn module(&mut self) -> Result<Module, PtxError> {
        let mut m = Module {
            file: self.file.to_string(),
            address_size: 64,
            ..Default::default()
        };
        let mut pending: Vec<PendingSym> = Vec::new();
        let mut fn_index: HashMap<String, usize> = HashMap::new();
        let mut global_names: HashMap<String, Loc> = HashMap::new();
        let mut linkage = Linkage::None;
        let mut linkage_tok: Option<Tok> = None;
        match self.peek() {
            Some(t) if self.text(t) == ".version" => {}
            Some(t) => return Err(self.err_at(t, "a PTX module must start with `.version`")),
            None => {
                return Err(PtxError::new(
                    self.file,
                    1,
                    1,
                    "empty input: a PTX module must start with `.version`",
                ))
            }
        }
        while let Some(t) = self.peek() {
            let w = self.text(t);
            if t.kind != TokKind::Dot {
                return Err(self.err_at(
                    t,
                    format!(
                        "expected a directive at module scope, found {}",
                        self.describe(t)
                    ),
                ));
            }
            if linkage_tok.is_some()
                && !matches!(
                    w,
                    ".entry" | ".func" | ".global" | ".const" | ".shared" | ".tex" | ".local"
                )
            {
                return Err(self.err_at(t, format!("`{w}` cannot follow a linkage directive")));
            }
            match w {
                ".version" => {
                    self.pos += 1;
                    let v = self.next("a version number")?;
                    let txt = self.text(v);
                    let parsed = txt
                        .split_once('.')
                        .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)));
                    m.version = match (v.kind, parsed) {
                        (TokKind::Float(_), Some(x)) => x,
                        (TokKind::Int(a), _) => (a as u32, 0),
                        _ => return Err(self.err_at(v, format!("malformed .version `{txt}`"))),
                    };
                    if m.version.0 < 1 || m.version.0 > 8 {
                        return Err(self.err_at(
                            v,
                            format!("unsupported PTX version {txt} (1.x to 8.x are accepted)"),
                        ));
                    }
                }
                ".target" => {
                    self.pos += 1;
                    loop {
                        let (_, name) = self.expect_ident("a target name")?;
                        m.target.push(name.to_string());
                        if !self.eat_punct(b',') {
                            break;
                        }
                    }
                }
                ".address_size" => {
                    self.pos += 1;
                    let at = self.peek();
                    let n = self.expect_u32("an address size")?;
                    if n != 32 && n != 64 {
                        return Err(self.err_at(
                            at.unwrap_or(t),
                            format!("address size must be 32 or 64, not {n}"),
                        ));
                    }
                    m.address_size = n;
                }
                ".file" | ".loc" => {
                    self.pos += 1;
                    self.skip_line(t.line);
                }
                ".section" => {
                    self.pos += 1;
                    let name = self.next("a section name")?;
                    if !self.text(name).starts_with(".debug") {
                        return Err(self
                            .err_at(name, format!("unsupported section {}", self.describe(name))));
                    }
                    self.skip_braces("the section")?;
                }
                ".pragma" => {
                    self.pos += 1;
                    self.skip_to_semi(".pragma")?;
                }
                ".visible" | ".extern" | ".weak" | ".common" => {
                    self.pos += 1;
                    if linkage_tok.is_some() {
                        return Err(self.err_at(t, "more than one linkage directive"));
                    }
                    linkage = match w {
                        ".visible" => Linkage::Visible,
                        ".extern" => Linkage::Extern,
                        ".weak" => Linkage::Weak,
                        _ => Linkage::Common,
                    };
                    linkage_tok = Some(t);
                    continue;
                }
                ".entry" | ".func" => {
                    self.pos += 1;
                    let start = linkage_tok.unwrap_or(t);
                    let (f, syms) = self.function(w == ".entry", linkage, Self::loc(start))?;
                    for (name, loc) in syms {
                        pending.push(PendingSym { name, loc });
                    }
                    if let Some(&i) = fn_index.get(&f.name) {
                        let old = &m.functions[i];
                        if !old.is_decl && !f.is_decl {
                            return Err(self.err_loc(
                                f.loc,
                                format!("function `{}` is defined twice", f.name),
                            ));
                        }
                        if old.is_decl {
                            m.functions[i] = f;
                        }
                    } else {
                        if global_names.contains_key(&f.name) {
                            return Err(self.err_loc(
                                f.loc,
                                format!("`{}` is already declared as a variable", f.name),
                            ));
                        }
                        fn_index.insert(f.name.clone(), m.functions.len());
                        m.functions.push(f);
                    }
                }
                ".global" | ".const" | ".shared" | ".tex" | ".local" => {
                    let start = linkage_tok.unwrap_or(t);
                    self.pos += 1;
                    let space = vars::space_of(w);
                    let vs = self.var_decl(space, linkage, Self::loc(start))?;
                    for v in vs {
                        for it in &v.init {
                            if let InitItem::Symbol { name, .. } = it {
                                pending.push(PendingSym {
                                    name: name.clone(),
                                    loc: v.loc,
                                });
                            }
                        }
                        if global_names.contains_key(&v.name) || fn_index.contains_key(&v.name) {
                            if v.linkage == Linkage::Extern {
                                continue;
                            }
                            if let Some(old) = m.globals.iter_mut().find(|g| g.name == v.name) {
                                if old.linkage == Linkage::Extern {
                                    *old = v;
                                    continue;
                                }
                            }
                            return Err(
                                self.err_loc(v.loc, format!("`{}` is declared twice", v.name))
                            );
                        }
                        global_names.insert(v.name.clone(), v.loc);
                        m.globals.push(v);
                    }
                }
                _ => {
                    return Err(self.err_at(
                        t,
                        format!("unsupported or misplaced module directive `{w}`"),
                    ));
                }
            }
            linkage = Linkage::None;
            linkage_tok = None;
        }
        if let Some(t) = linkage_tok {
            return Err(self.err_at(t, "linkage directive without a declaration"));
        }
        if m.target.is_empty() {
            return Err(PtxError::new(
                self.file,
                1,
                1,
                "missing `.target` directive",
            ));
        }
        for p in pending {
            if !global_names.contains_key(&p.name) && !fn_index.contains_key(&p.name) {
                return Err(self.err_loc(p.loc, format!("undefined symbol `{}`", p.name)));
            }
        }
        self.check_calls(&m)?;
        Ok(m)
    }

    /// Every direct `call` names a function and passes as many arguments and return values as
    /// the callee declares.
    fn check_calls(&self, m: &Module) -> Result<(), PtxError> {
        for f in &m.functions {
            for inst in f.insts.iter().filter(|i| i.op.kind == OpKind::Call) {
                let ops = &inst.operands;
                let (nrets, fpos) = match ops.first() {
                    Some(Operand::List(r)) => (r.len(), 1),
                    _ => (0, 0),
                };
                let Some(Operand::Symbol(name)) = ops.get(fpos) else {
                    continue;
                };
                let nargs = match ops.get(fpos + 1) {
                    Some(Operand::List(a)) => a.len(),
                    _ => 0,
                };
                let Some(callee) = m.function(name) else {
                    return Err(self.err_loc(
                        inst.loc,
                        format!("`call` target `{name}` is not a function"),
                    ));
                };
                if callee.params.len() != nargs || callee.rets.len() != nrets {
                    return Err(self.err_loc(
                        inst.loc,
                        format!(
                            "`call {name}` passes {nargs} argument(s) and {nrets} return value(s); `{name}` declares {} and {}",
                            callee.params.len(),
                            callee.rets.len()
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Function header after `.entry`/`.func`; returns the function and the module-scope symbols
    /// it references.
    #[allow(clippy::type_complexity)]
    fn function(
        &mut self,
        is_entry: bool,
        linkage: Linkage,
        loc: Loc,
    ) -> Result<(Function, Vec<(String, Loc)>), PtxError> {
        let mut f = Function {
            is_entry,
            linkage,
            loc,
            ..Default::default()
        };
        if !is_entry && self.is_punct(b'(') {
            self.pos += 1;
            f.rets = self.param_list(false)?;
        }
        let (_, name) = self.expect_ident("a function name")?;
        f.name = name.to_string();
        if self.eat_punct(b'(') {
            f.params = self.param_list(is_entry)?;
        }
        // Performance-tuning directives (PTX ISA §11.4) and `.noreturn`.
        loop {
            let Some(t) = self.peek() else {
                return Err(self.err_eof(format!("expected the body of `{name}`")));
            };
            match (t.kind, self.text(t)) {
                (TokKind::Punct(b';'), _) => {
                    self.pos += 1;
                    f.is_decl = true;
                    return Ok((f, Vec::new()));
                }
                (TokKind::Punct(b'{'), _) => break,
                (TokKind::Dot, ".noreturn") => self.pos += 1,
                (TokKind::Dot, ".maxntid" | ".reqntid") => {
                    self.pos += 1;
                    let mut v = [1u32; 3];
                    for (i, slot) in v.iter_mut().enumerate() {
                        if i > 0 && !self.eat_punct(b',') {
                            break;
                        }
                        *slot = self.expect_u32("a thread count")?;
                    }
                    if self.text(t) == ".maxntid" {
                        f.maxntid = Some(v);
                    } else {
                        f.reqntid = Some(v);
                    }
                }
                (TokKind::Dot, ".minnctapersm") => {
                    self.pos += 1;
                    f.minnctapersm = Some(self.expect_u32("a CTA count")?);
                }
                (TokKind::Dot, ".maxnreg") => {
                    self.pos += 1;
                    f.maxnreg = Some(self.expect_u32("a register count")?);
                }
                (TokKind::Dot, ".maxnctapersm" | ".maxclusterrank") => {
                    self.pos += 1;
                    self.expect_u32("a count")?;
                }
                (TokKind::Dot, ".reqnctapercluster") => {
                    // cluster shape (sm_90): accepted, not modelled
                    self.pos += 1;
                    self.expect_u32("a cluster dimension")?;
                    for _ in 0..2 {
                        if !self.eat_punct(b',') {
                            break;
                        }
                        self.expect_u32("a cluster dimension")?;
                    }
                }
                (TokKind::Dot, ".explicitcluster") => self.pos += 1,
                (TokKind::Dot, ".pragma") => {
                    self.pos += 1;
                    self.skip_to_semi(".pragma")?;
                }
                _ => {
                    return Err(self.err_at(t, format!("expected `{{`, `;` or a performance directive after the header of `{name}`, found {}", self.describe(t))));
                }
            }
        }
        let syms = self.body(&mut f)?;
        Ok((f, syms))
    }

    /// Parameter list after `(`, through `)`.
    fn param_list(&mut self, is_entry: bool) -> Result<Vec<Param>, PtxError> {
        let mut out = Vec::new();
        if self.eat_punct(b')') {
            return Ok(out);
        }
        loop {
            let t = self.next("`.param`")?;
            let w = self.text(t);
            if w != ".param" {
                let msg = if w == ".reg" {
                    "`.reg` parameters are not supported (use `.param`)".to_string()
                } else {
                    format!("expected `.param`, found {}", self.describe(t))
                };
                return Err(self.err_at(t, msg));
            }
            out.push(self.param(is_entry)?);
            let t = self.next("`,` or `)` in the parameter list")?;
            match t.kind {
                TokKind::Punct(b',') => {}
                TokKind::Punct(b')') => return Ok(out),
                _ => {
                    return Err(self.err_at(
                        t,
                        format!(
                            "expected `,` or `)` in the parameter list, found {}",
                            self.describe(t)
                        ),
                    ))
                }
            }
        }
    }

    /// One parameter after `.param`: type, `.align N`, `.ptr[.space][.align N]`, name, `[N]`.
    fn param(&mut self, _is_entry: bool) -> Result<Param, PtxError> {
        let mut ty = None;
        let mut align = None;
        let mut ptr_space = None;
        let mut ptr = false;
        while let Some((t, w)) = self.next_dot_word() {
            if let Some(s) = crate::decode::scalar_type(w) {
                self.set_decl_type(&mut ty, s, t, "parameter")?;
            } else if w == "align" {
                align = Some(self.align_value(t)?);
            } else if w == "ptr" {
                ptr = true;
            } else if ptr && matches!(w, "global" | "shared" | "const" | "local") {
                ptr_space = Some(vars::space_of(self.text(t)));
            } else {
                return Err(self.err_at(t, format!("unexpected `.{w}` in a parameter declaration")));
            }
        }
        let Some(ty) = ty else {
            return Err(self.err_here("expected a parameter type (e.g. `.u64`)"));
        };
        let (_, name) = self.expect_ident("a parameter name")?;
        let mut array_len = None;
        if self.eat_punct(b'[') {
            array_len = Some(self.expect_uint("an array length")?);
            self.expect_punct(b']', "closing the array length")?;
        }
        Ok(Param {
            name: name.to_string(),
            ty,
            align: align.unwrap_or(ty.size()),
            array_len,
            ptr_space,
        })
    }
}
