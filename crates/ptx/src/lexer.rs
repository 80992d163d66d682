//! PTX tokenizer (PTX ISA §4: comments, identifiers, directives, constants).
//!
//! Tokens keep byte spans into the source plus 1-based line and column, so the parser never
//! copies text it does not keep. Characters PTX does not use become [`TokKind::Unknown`] tokens
//! instead of errors: the parser reports them only where it actually reads them (so foreign
//! syntax inside skipped `.section .debug_*` blocks does no harm).

use crate::error::PtxError;

/// Kind of a token.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum TokKind {
    /// Identifier, register name (`%r1`) or label (`$L__BB0_2`).
    Ident,
    /// A dotted word: directive or modifier (`.reg`, `.b32`, `.L2::evict_last`).
    Dot,
    /// Integer constant, already decoded (two's complement bits).
    Int(u64),
    /// `0fXXXXXXXX` single-precision bits.
    F32(u32),
    /// `0dXXXXXXXXXXXXXXXX` double-precision bits.
    F64(u64),
    /// Decimal floating-point constant.
    Float(f64),
    /// String literal (`"file.cu"`), span includes the quotes.
    Str,
    /// One punctuation character.
    Punct(u8),
    /// A character PTX does not use.
    Unknown,
}

/// One token.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tok {
    pub kind: TokKind,
    pub start: u32,
    pub end: u32,
    pub line: u32,
    pub col: u32,
}

#[inline]
fn is_follow(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$'
}

/// Splits `src` into tokens. Fails only on unterminated comments or strings and on malformed or
/// out-of-range numeric constants.
pub(crate) fn lex(src: &str, file: &str) -> Result<Vec<Tok>, PtxError> {
    let b = src.as_bytes();
    let mut toks = Vec::with_capacity(b.len() / 4);
    let mut i = 0usize;
    let mut line = 1u32;
    let mut line_start = 0usize;
    let err = |line: u32, col: u32, msg: String| PtxError::new(file, line, col, msg);
    while i < b.len() {
        let c = b[i];
        let col = (i - line_start) as u32 + 1;
        match c {
            b'\n' => {
                line += 1;
                i += 1;
                line_start = i;
            }
            b' ' | b'\t' | b'\r' | 0x0b | 0x0c => i += 1,
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let (l0, c0) = (line, col);
                i += 2;
                loop {
                    if i + 1 >= b.len() {
                        return Err(err(l0, c0, "unterminated /* comment".into()));
                    }
                    if b[i] == b'*' && b[i + 1] == b'/' {
                        i += 2;
                        break;
                    }
                    if b[i] == b'\n' {
                        line += 1;
                        line_start = i + 1;
                    }
                    i += 1;
                }
            }
            b'"' => {
                let s = i;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\n' {
                        return Err(err(line, col, "unterminated string literal".into()));
                    }
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                if i >= b.len() {
                    return Err(err(line, col, "unterminated string literal".into()));
                }
                i += 1;
                toks.push(Tok {
                    kind: TokKind::Str,
                    start: s as u32,
                    end: i as u32,
                    line,
                    col,
                });
            }
            b'.' if b.get(i + 1).is_some_and(|&c| is_follow(c)) => {
                let s = i;
                i += 1;
                loop {
                    while i < b.len() && is_follow(b[i]) {
                        i += 1;
                    }
                    if i + 2 < b.len() && b[i] == b':' && b[i + 1] == b':' && is_follow(b[i + 2]) {
                        i += 2;
                        continue;
                    }
                    break;
                }
                toks.push(Tok {
                    kind: TokKind::Dot,
                    start: s as u32,
                    end: i as u32,
                    line,
                    col,
                });
            }
            b'0'..=b'9' => {
                let s = i;
                while i < b.len() && (is_follow(b[i]) || b[i] == b'.') {
                    // exponent sign of a decimal float: 1.5e-3
                    i += 1;
                    if i < b.len()
                        && (b[i] == b'-' || b[i] == b'+')
                        && matches!(b[i - 1], b'e' | b'E')
                        && !src[s..i].starts_with("0x")
                        && !src[s..i].starts_with("0X")
                        && !src[s..i].starts_with("0f")
                        && !src[s..i].starts_with("0F")
                        && !src[s..i].starts_with("0d")
                        && !src[s..i].starts_with("0D")
                    {
                        i += 1;
                    }
                }
                let text = &src[s..i];
                let kind = number(text).ok_or_else(|| {
                    err(
                        line,
                        col,
                        format!("malformed or out-of-range numeric constant `{text}`"),
                    )
                })?;
                toks.push(Tok {
                    kind,
                    start: s as u32,
                    end: i as u32,
                    line,
                    col,
                });
            }
            c if c.is_ascii_alphabetic() || c == b'_' || c == b'$' || c == b'%' => {
                let s = i;
                i += 1;
                while i < b.len() && is_follow(b[i]) {
                    i += 1;
                }
                toks.push(Tok {
                    kind: TokKind::Ident,
                    start: s as u32,
                    end: i as u32,
                    line,
                    col,
                });
            }
            b'{' | b'}' | b'[' | b']' | b'(' | b')' | b'<' | b'>' | b',' | b';' | b':' | b'+'
            | b'-' | b'!' | b'@' | b'|' | b'=' => {
                i += 1;
                toks.push(Tok {
                    kind: TokKind::Punct(c),
                    start: (i - 1) as u32,
                    end: i as u32,
                    line,
                    col,
                });
            }
            _ => {
                // Unknown character: one token per UTF-8 scalar.
                let s = i;
                i += 1;
                while i < b.len() && (b[i] & 0xC0) == 0x80 {
                    i += 1;
                }
                toks.push(Tok {
                    kind: TokKind::Unknown,
                    start: s as u32,
                    end: i as u32,
                    line,
                    col,
                });
            }
        }
    }
    Ok(toks)
}

fn parse_radix(digits: &str, radix: u32) -> Option<u64> {
    if digits.is_empty() {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

/// Decodes a numeric constant (PTX ISA §4.5.1): hex `0x..`, octal `0..`, binary `0b..`, decimal,
/// each with an optional `U` suffix; `0f`/`0F` + 8 hex digits (f32 bits), `0d`/`0D` + 16 hex
/// digits (f64 bits); decimal floating point (`1.5`, `2e10`, `1.0e-3`).
fn number(t: &str) -> Option<TokKind> {
    let bytes = t.as_bytes();
    if bytes.len() > 2 && bytes[0] == b'0' {
        match bytes[1] {
            b'f' | b'F' if t.len() == 10 => {
                return u32::from_str_radix(&t[2..], 16).ok().map(TokKind::F32);
            }
            b'd' | b'D' if t.len() == 18 => {
                return u64::from_str_radix(&t[2..], 16).ok().map(TokKind::F64);
            }
            _ => {}
        }
    }
    let body = t.strip_suffix('U').unwrap_or(t);
    if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        return parse_radix(h, 16).map(TokKind::Int);
    }
    if let Some(h) = body.strip_prefix("0b").or_else(|| body.strip_prefix("0B")) {
        return parse_radix(h, 2).map(TokKind::Int);
    }
    if body.bytes().all(|c| c.is_ascii_digit()) {
        if body.len() > 1 && body.starts_with('0') {
            return parse_radix(&body[1..], 8).map(TokKind::Int);
        }
        return parse_radix(body, 10).map(TokKind::Int);
    }
    // Decimal float: digits [. digits] [e [+-] digits]; no suffix.
    if t.ends_with('U') {
        return None;
    }
    let ok = t
        .bytes()
        .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'));
    if !ok {
        return None;
    }
    t.parse::<f64>().ok().map(TokKind::Float)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<TokKind> {
        lex(s, "t").unwrap().into_iter().map(|t| t.kind).collect()
    }

    #[test]
    fn numbers() {
        assert_eq!(kinds("0x10"), vec![TokKind::Int(16)]);
        assert_eq!(kinds("0x10U"), vec![TokKind::Int(16)]);
        assert_eq!(kinds("017"), vec![TokKind::Int(15)]);
        assert_eq!(kinds("0b101"), vec![TokKind::Int(5)]);
        assert_eq!(kinds("42U"), vec![TokKind::Int(42)]);
        assert_eq!(kinds("0"), vec![TokKind::Int(0)]);
        assert_eq!(kinds("0f3F800000"), vec![TokKind::F32(0x3F80_0000)]);
        assert_eq!(
            kinds("0D3FF0000000000000"),
            vec![TokKind::F64(0x3FF0_0000_0000_0000)]
        );
        assert_eq!(kinds("1.5"), vec![TokKind::Float(1.5)]);
        assert_eq!(kinds("1.5e-3"), vec![TokKind::Float(1.5e-3)]);
        assert_eq!(kinds("0xFFFFFFFFFFFFFFFF"), vec![TokKind::Int(u64::MAX)]);
        assert!(lex("0x1FFFFFFFFFFFFFFFF", "t").is_err());
        assert!(lex("09", "t").is_err());
        assert!(lex("12abc", "t").is_err());
    }

    #[test]
    fn words_and_positions() {
        let t = lex(
            "  ld.global.L2::evict_last.f32 %f1, [%rd2+-4];\n// c\n/* a\n b */ x",
            "t",
        )
        .unwrap();
        assert_eq!(t[0].kind, TokKind::Ident);
        assert_eq!((t[0].line, t[0].col), (1, 3));
        assert_eq!(t[2].kind, TokKind::Dot);
        assert_eq!(t[2].end - t[2].start, ".L2::evict_last".len() as u32);
        let last = t.last().unwrap();
        assert_eq!((last.line, last.col), (4, 7));
        assert!(lex("/* open", "t").is_err());
    }
}
