//! Variable declarations and initialisers (PTX ISA §5.4): `.global .align 4 .b8 a[12] = {..};`.

use super::Parser;
use crate::error::PtxError;
use crate::ir::*;
use crate::lexer::TokKind;

/// State space of a directive word (`.global` ...). Unknown words map to `Global`; callers only
/// pass the words they matched.
pub(crate) fn space_of(w: &str) -> StateSpace {
    match w {
        ".const" => StateSpace::Const,
        ".shared" => StateSpace::Shared,
        ".local" => StateSpace::Local,
        ".param" => StateSpace::Param,
        ".tex" => StateSpace::Tex,
        ".reg" => StateSpace::Reg,
        _ => StateSpace::Global,
    }
}

impl<'a> Parser<'a> {
    /// A declaration after its state-space word, through the `;`. Several comma-separated
    /// declarators share the attributes. `.texref` declares a texture (space `Tex`, 8-byte handle).
    pub(crate) fn var_decl(
        &mut self,
        mut space: StateSpace,
        linkage: Linkage,
        loc: Loc,
    ) -> Result<Vec<Variable>, PtxError> {
        let mut ty = None;
        let mut align = None;
        let mut vec = 1u8;
        while let Some((t, w)) = self.next_dot_word() {
            if let Some(s) = crate::decode::scalar_type(w) {
                self.set_decl_type(&mut ty, s, t, "declaration")?;
            } else if w == "texref" {
                self.set_decl_type(&mut ty, ScalarType::B64, t, "declaration")?;
                space = StateSpace::Tex;
            } else if w == "align" {
                align = Some(self.align_value(t)?);
            } else if matches!(w, "v2" | "v4" | "v8") {
                vec = w[1..].parse().unwrap_or(1);
            } else if w == "attribute" {
                // `.attribute(.managed)` / `.attribute(.unified(...))`: recorded nowhere, the
                // simulator has one address space for host-visible memory.
                self.expect_punct(b'(', "after `.attribute`")?;
                let mut depth = 1;
                while depth > 0 {
                    let t = self.next("`)` closing `.attribute(`")?;
                    match t.kind {
                        TokKind::Punct(b'(') => depth += 1,
                        TokKind::Punct(b')') => depth -= 1,
                        TokKind::Punct(b';') => {
                            return Err(self.err_at(t, "unclosed `.attribute(`"))
                        }
                        _ => {}
                    }
                }
            } else {
                return Err(self.err_at(
                    t,
                    format!("unexpected or unsupported `.{w}` in a variable declaration"),
                ));
            }
        }
        let Some(ty) = ty else {
            return Err(self.err_here("expected a type (e.g. `.b32`) in the variable declaration"));
        };
        let mut out = Vec::new();
        loop {
            let (nt, name) = self.expect_ident("a variable name")?;
            if name.starts_with('%') {
                return Err(self.err_at(
                    nt,
                    format!("`{name}`: only `.reg` names may start with `%`"),
                ));
            }
            let mut dims = Vec::new();
            while self.eat_punct(b'[') {
                if self.eat_punct(b']') {
                    dims.push(None);
                } else {
                    dims.push(Some(self.expect_uint("an array length")?));
                    self.expect_punct(b']', "closing the array length")?;
                }
            }
            let mut init = Vec::new();
            if self.eat_punct(b'=') {
                self.init(&mut init, 0)?;
            }
            // Infer an unsized dimension from the initialiser (`.b8 s[] = {1, 2}`).
            if dims.len() == 1 && dims[0].is_none() && !init.is_empty() {
                dims[0] = Some(init.len() as u64 / vec as u64);
            }
            let v = Variable {
                name: name.to_string(),
                space,
                ty,
                vec,
                align: align.unwrap_or(ty.size() * vec as u32),
                dims,
                init,
                linkage,
                loc: if out.is_empty() { loc } else { Self::loc(nt) },
            };
            let limit = max_var_bytes(v.space);
            match v.checked_size_bytes() {
                Some(b) if b <= limit => {}
                size => {
                    return Err(self.err_at(
                        nt,
                        format!(
                            "`{name}` declares {} bytes of .{} memory; the limit is {limit} bytes",
                            size.map_or("more than 2^64".to_string(), |b| b.to_string()),
                            format!("{:?}", v.space).to_lowercase()
                        ),
                    ))
                }
            }
            let cap = v.size_bytes() / (ty.size() as u64).max(1);
            if !v.init.is_empty() && v.init.len() as u64 > cap.max(1) {
                return Err(self.err_at(
                    nt,
                    format!(
                        "`{name}` has {} initialisers for {cap} elements",
                        v.init.len()
                    ),
                ));
            }
            out.push(v);
            if !self.eat_punct(b',') {
                break;
            }
        }
        self.expect_punct(b';', "ending the declaration")?;
        Ok(out)
    }

    /// One initialiser: a scalar or a (nested) brace list, flattened into `out`.
    fn init(&mut self, out: &mut Vec<InitItem>, depth: u32) -> Result<(), PtxError> {
        if depth > 16 {
            return Err(self.err_here("initialiser nested too deeply"));
        }
        if self.eat_punct(b'{') {
            if self.eat_punct(b'}') {
                return Ok(());
            }
            loop {
                self.init(out, depth + 1)?;
                let t = self.next("`,` or `}` in the initialiser")?;
                match t.kind {
                    TokKind::Punct(b',') => {}
                    TokKind::Punct(b'}') => return Ok(()),
                    _ => {
                        return Err(self.err_at(
                            t,
                            format!(
                                "expected `,` or `}}` in the initialiser, found {}",
                                self.describe(t)
                            ),
                        ))
                    }
                }
            }
        }
        let neg = self.eat_punct(b'-');
        let t = self.next("an initialiser value")?;
        let item = match t.kind {
            TokKind::Int(v) => {
                let v = v as i128;
                InitItem::Int(if neg { -v } else { v })
            }
            TokKind::F32(b) => {
                InitItem::Float(f32::from_bits(b) as f64 * if neg { -1.0 } else { 1.0 })
            }
            TokKind::F64(b) => InitItem::Float(f64::from_bits(b) * if neg { -1.0 } else { 1.0 }),
            TokKind::Float(x) => InitItem::Float(if neg { -x } else { x }),
            TokKind::Ident if !neg => {
                let text = self.text(t);
                let mut offset = 0i64;
                let (name, generic) = if text == "generic" && self.eat_punct(b'(') {
                    let (_, n) = self.expect_ident("a symbol inside generic(...)")?;
                    // `generic(sym+4)` as well as `generic(sym)+4`
                    offset += self.init_offset()?;
                    self.expect_punct(b')', "closing generic(...)")?;
                    (n, true)
                } else {
                    (text, false)
                };
                if name.starts_with('%') {
                    return Err(self.err_at(t, format!("register `{name}` in an initialiser")));
                }
                offset += self.init_offset()?;
                InitItem::Symbol {
                    name: name.to_string(),
                    offset,
                    generic,
                }
            }
            _ => {
                return Err(self.err_at(
                    t,
                    format!("expected an initialiser value, found {}", self.describe(t)),
                ))
            }
        };
        out.push(item);
        Ok(())
    }

    /// An optional `+N` / `-N` after an initialiser symbol.
    fn init_offset(&mut self) -> Result<i64, PtxError> {
        if !(self.is_punct(b'+') || self.is_punct(b'-')) {
            return Ok(0);
        }
        let minus = self.eat_punct(b'-');
        if !minus {
            self.pos += 1;
        }
        let t = self.peek();
        let v = self.expect_uint("a byte offset")?;
        let v = i64::try_from(v).map_err(|_| self.err_here_or(t, "byte offset out of range"))?;
        Ok(if minus { -v } else { v })
    }
}
