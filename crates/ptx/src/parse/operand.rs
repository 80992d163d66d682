//! Instruction operands (PTX ISA §6): registers, `!%p`, `%p|%q`, immediates, special registers,
//! vectors `{a, _, b}`, addresses `[base+off]`, texture operands `[tex, {x, y}]`, call lists
//! `(a, b)`, symbols and labels.

use super::body::FnState;
use super::Parser;
use crate::error::PtxError;
use crate::ir::*;
use crate::lexer::{Tok, TokKind};

/// Decodes a special register name (without a component) plus component word.
fn special(name: &str, comp: Option<&str>) -> Option<SpecialReg> {
    use SpecialReg::*;
    let c = match comp {
        Some(".x") => Some(0u8),
        Some(".y") => Some(1),
        Some(".z") => Some(2),
        Some(_) => return None,
        None => None,
    };
    let vector = |f: fn(u8) -> SpecialReg| c.map(f);
    let r = match name {
        "%tid" => return vector(Tid),
        "%ntid" => return vector(Ntid),
        "%ctaid" => return vector(Ctaid),
        "%nctaid" => return vector(Nctaid),
        _ if c.is_some() => return None,
        "%laneid" => Laneid,
        "%warpid" => Warpid,
        "%nwarpid" => Nwarpid,
        "%smid" => Smid,
        "%nsmid" => Nsmid,
        "%gridid" => Gridid,
        "%lanemask_eq" => LanemaskEq,
        "%lanemask_le" => LanemaskLe,
        "%lanemask_lt" => LanemaskLt,
        "%lanemask_ge" => LanemaskGe,
        "%lanemask_gt" => LanemaskGt,
        "%clock" => Clock,
        "%clock_hi" => ClockHi,
        "%clock64" => Clock64,
        "%globaltimer" => GlobalTimer,
        "%globaltimer_lo" => GlobalTimerLo,
        "%globaltimer_hi" => GlobalTimerHi,
        "%total_smem_size" => TotalSmemSize,
        "%dynamic_smem_size" => DynamicSmemSize,
        _ => {
            let n: u8 = name.strip_prefix("%envreg")?.parse().ok()?;
            return (n < 32).then_some(EnvReg(n));
        }
    };
    Some(r)
}

impl<'a> Parser<'a> {
    /// Operand number `k` of an instruction with opcode `op` (instruction index `idx`).
    pub(crate) fn operand(
        &mut self,
        f: &Function,
        st: &mut FnState<'a>,
        op: &Op,
        k: usize,
        idx: usize,
    ) -> Result<Operand, PtxError> {
        let t = self.next("an operand")?;
        match t.kind {
            TokKind::Punct(b'!') => {
                let (rt, name) = self.expect_ident("a predicate register after `!`")?;
                let id = self.reg(f, st, rt, name)?;
                Ok(Operand::NotReg(id))
            }
            TokKind::Punct(b'{') => {
                let mut v = Vec::with_capacity(4);
                loop {
                    let e = self.next("a vector element")?;
                    let o = match e.kind {
                        TokKind::Ident if self.text(e) == "_" => Operand::Sink,
                        TokKind::Ident if self.text(e).starts_with('%') => {
                            Operand::Reg(self.reg(f, st, e, self.text(e))?)
                        }
                        _ => {
                            self.pos -= 1;
                            self.immediate(op, k)?
                        }
                    };
                    v.push(o);
                    let s = self.next("`,` or `}` in a vector operand")?;
                    match s.kind {
                        TokKind::Punct(b',') => {}
                        TokKind::Punct(b'}') => break,
                        _ => {
                            return Err(self.err_at(
                                s,
                                format!(
                                    "expected `,` or `}}` in a vector operand, found {}",
                                    self.describe(s)
                                ),
                            ))
                        }
                    }
                    if v.len() > 8 {
                        return Err(self.err_at(s, "vector operand has more than 8 elements"));
                    }
                }
                Ok(Operand::Vec(v))
            }
            TokKind::Punct(b'[') => self.address(f, st, op, k, idx),
            TokKind::Punct(b'(') => {
                let mut v = Vec::new();
                if self.eat_punct(b')') {
                    return Ok(Operand::List(v));
                }
                loop {
                    let e = self.next("a call argument")?;
                    let o = match e.kind {
                        TokKind::Ident if self.text(e).starts_with('%') => {
                            Operand::Reg(self.reg(f, st, e, self.text(e))?)
                        }
                        TokKind::Ident => {
                            st.syms_todo.push((self.text(e), e));
                            Operand::Symbol(self.text(e).to_string())
                        }
                        _ => {
                            self.pos -= 1;
                            self.immediate(op, k)?
                        }
                    };
                    v.push(o);
                    let s = self.next("`,` or `)` in an argument list")?;
                    match s.kind {
                        TokKind::Punct(b',') => {}
                        TokKind::Punct(b')') => break,
                        _ => {
                            return Err(self.err_at(
                                s,
                                format!(
                                    "expected `,` or `)` in an argument list, found {}",
                                    self.describe(s)
                                ),
                            ))
                        }
                    }
                }
                Ok(Operand::List(v))
            }
            TokKind::Ident => {
                let name = self.text(t);
                if name == "_" {
                    return Ok(Operand::Sink);
                }
                if name.starts_with('%') {
                    let r = self.reg_or_special(f, st, t, name)?;
                    if self.eat_punct(b'|') {
                        let Operand::Reg(a) = r else {
                            return Err(self.err_at(t, "`|` pairs need two registers"));
                        };
                        let (bt, bname) = self.expect_ident("a register after `|`")?;
                        let b = self.reg(f, st, bt, bname)?;
                        return Ok(Operand::PredPair(a, b));
                    }
                    return Ok(r);
                }
                if op.kind == OpKind::Bra {
                    st.labels_todo.push((idx, k, name, t));
                    return Ok(Operand::Label(u32::MAX));
                }
                st.syms_todo.push((name, t));
                if self.is_punct(b'+') || self.is_punct(b'-') {
                    let off = self.offset()?;
                    return Ok(Operand::SymbolOffset(name.to_string(), off));
                }
                Ok(Operand::Symbol(name.to_string()))
            }
            _ => {
                self.pos -= 1;
                self.immediate(op, k)
            }
        }
    }

    /// `+N`, `+-N` or `-N` after an address base or symbol.
    fn offset(&mut self) -> Result<i64, PtxError> {
        // `+N`, `+-N`, `-N`
        self.eat_punct(b'+');
        let minus = self.eat_punct(b'-');
        let t = self.peek();
        let v = self.expect_uint("a byte offset")?;
        let v = i64::try_from(v).map_err(|_| self.err_here_or(t, "offset out of range"))?;
        Ok(if minus { -v } else { v })
    }

    /// An immediate: integer (sign-extended, two's complement bits for large hex), `0f`/`0d`
    /// float bits, or a decimal float rounded to the instruction's float type.
    fn immediate(&mut self, op: &Op, k: usize) -> Result<Operand, PtxError> {
        let neg = self.eat_punct(b'-');
        let t = self.next("an operand")?;
        let fty = if k >= 1 && matches!(op.kind, OpKind::Cvt | OpKind::Set) {
            op.ty2
        } else {
            op.ty
        };
        Ok(match t.kind {
            TokKind::Int(v) => Operand::Imm(if neg {
                (v as i64).wrapping_neg()
            } else {
                v as i64
            }),
            TokKind::F32(b) => Operand::F32(if neg { b ^ 0x8000_0000 } else { b }),
            TokKind::F64(b) => Operand::F64(if neg { b ^ (1 << 63) } else { b }),
            TokKind::Float(x) => {
                let x = if neg { -x } else { x };
                if fty == Some(ScalarType::F64) {
                    Operand::F64(x.to_bits())
                } else {
                    Operand::F32((x as f32).to_bits())
                }
            }
            _ => {
                return Err(self.err_at(
                    t,
                    format!("expected an operand, found {}", self.describe(t)),
                ));
            }
        })
    }

    /// A declared register.
    fn reg(
        &mut self,
        f: &Function,
        st: &FnState<'a>,
        t: Tok,
        name: &str,
    ) -> Result<RegId, PtxError> {
        match st.regs.get(name) {
            Some(id) => Ok(RegId(id)),
            None => {
                let _ = f;
                Err(self.err_at(t, format!("undefined register `{name}`")))
            }
        }
    }

    /// A declared register or a special register (with `.x`/`.y`/`.z` where it has components).
    fn reg_or_special(
        &mut self,
        f: &Function,
        st: &FnState<'a>,
        t: Tok,
        name: &str,
    ) -> Result<Operand, PtxError> {
        if let Some(id) = st.regs.get(name) {
            return Ok(Operand::Reg(RegId(id)));
        }
        let comp = match self.peek() {
            Some(c) if c.kind == TokKind::Dot && c.start == t.end => {
                self.pos += 1;
                Some(self.text(c))
            }
            _ => None,
        };
        match special(name, comp) {
            Some(s) => Ok(Operand::Special(s)),
            None => {
                let full = format!("{name}{}", comp.unwrap_or(""));
                let _ = f;
                Err(self.err_at(t, format!("undefined register `{full}`")))
            }
        }
    }

    /// After `[`: `[reg]`, `[reg+imm]`, `[reg+-imm]`, `[var+imm]`, `[imm]`, or a texture operand
    /// `[tex, {coords}]` / `[tex, sampler, {coords}]` (returned as a [`Operand::List`]).
    fn address(
        &mut self,
        f: &Function,
        st: &mut FnState<'a>,
        op: &Op,
        k: usize,
        _idx: usize,
    ) -> Result<Operand, PtxError> {
        let t = self.next("an address")?;
        let base = match t.kind {
            TokKind::Ident if self.text(t).starts_with('%') => {
                let name = self.text(t);
                AddrBase::Reg(self.reg(f, st, t, name)?)
            }
            TokKind::Ident => {
                let name = self.text(t);
                st.syms_todo.push((name, t));
                if self.is_punct(b',') {
                    return self.tex_operand(f, st, op, k, name);
                }
                AddrBase::Symbol(name.to_string())
            }
            TokKind::Int(v) => {
                let v = i64::try_from(v).map_err(|_| self.err_at(t, "address out of range"))?;
                let off = if self.is_punct(b'+') || self.is_punct(b'-') {
                    self.offset()?
                } else {
                    0
                };
                self.expect_punct(b']', "closing the address")?;
                return Ok(Operand::Addr {
                    base: AddrBase::Imm,
                    offset: v.wrapping_add(off),
                });
            }
            _ => {
                return Err(self.err_at(
                    t,
                    format!("expected an address base, found {}", self.describe(t)),
                ))
            }
        };
        let offset = if self.is_punct(b'+') || self.is_punct(b'-') {
            self.offset()?
        } else {
            0
        };
        self.expect_punct(b']', "closing the address")?;
        Ok(Operand::Addr { base, offset })
    }

    fn tex_operand(
        &mut self,
        f: &Function,
        st: &mut FnState<'a>,
        op: &Op,
        k: usize,
        tex: &str,
    ) -> Result<Operand, PtxError> {
        let mut items = vec![Operand::Symbol(tex.to_string())];
        while self.eat_punct(b',') {
            // Only a sampler name or the coordinate vector may follow (no nested addresses).
            let o = match self.peek() {
                Some(t) if t.kind == TokKind::Ident || t.kind == TokKind::Punct(b'{') => {
                    self.operand(f, st, op, k, usize::MAX)?
                }
                _ => {
                    return Err(self
                        .err_here("expected a sampler or `{coordinates}` in the texture operand"))
                }
            };
            items.push(o);
            if items.len() > 3 {
                break;
            }
        }
        self.expect_punct(b']', "closing the texture operand")?;
        if !matches!(items.last(), Some(Operand::Vec(_))) || items.len() < 2 {
            return Err(self.err_here(
                "texture operand must be `[tex, {coords}]` or `[tex, sampler, {coords}]`",
            ));
        }
        Ok(Operand::List(items))
    }
}
