//! The GPGPU-Sim option syntax: `-name value` pairs separated by white space; `#` starts a comment
//! that runs to the end of the line; a value in double quotes may contain white space and newlines
//! (`-gpgpu_dram_timing_opt "nbk=16:...:RC=40:\n   CL=12:..."`). Files are read in order and a
//! later occurrence of an option overrides an earlier one, across files too, as GPGPU-Sim does
//! with repeated `-config` arguments.

use crate::TraceError;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One `-name value` occurrence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionEntry {
    /// Option name without the leading `-`.
    pub name: String,
    /// Value text (quotes removed).
    pub value: String,
    /// File it came from.
    pub file: PathBuf,
    /// 1-based line of the name.
    pub line: u64,
}

impl OptionEntry {
    /// An error about this option's value, naming file, line and option.
    pub fn error(&self, msg: impl std::fmt::Display) -> TraceError {
        TraceError::parse(
            &self.file,
            self.line,
            format!("option `-{}` = `{}`: {msg}", self.name, self.value),
        )
    }
}

/// All options read, in order, with the last occurrence of each name winning.
#[derive(Debug, Clone, Default)]
pub struct Options {
    entries: Vec<OptionEntry>,
    last: BTreeMap<String, usize>,
}

/// A token: text, line, whether it was quoted.
type Token = (String, u64, bool);

fn tokens(text: &str) -> Result<Vec<Token>, (u64, String)> {
    let mut out = Vec::new();
    let mut line = 1u64;
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c == '\n' {
            line += 1;
            chars.next();
        } else if c.is_whitespace() {
            chars.next();
        } else if c == '#' {
            while let Some(&c) = chars.peek() {
                if c == '\n' {
                    break;
                }
                chars.next();
            }
        } else if c == '"' {
            let start = line;
            chars.next();
            let mut s = String::new();
            loop {
                match chars.next() {
                    None => return Err((start, "unterminated quoted value".to_string())),
                    Some('"') => break,
                    Some(c) => {
                        if c == '\n' {
                            line += 1;
                        }
                        s.push(c);
                    }
                }
            }
            out.push((s, start, true));
        } else {
            let mut s = String::new();
            while let Some(&c) = chars.peek() {
                if c.is_whitespace() || c == '#' {
                    break;
                }
                s.push(c);
                chars.next();
            }
            out.push((s, line, false));
        }
    }
    Ok(out)
}

fn is_name(tok: &str, quoted: bool) -> bool {
    !quoted
        && tok.len() > 1
        && tok.starts_with('-')
        && tok[1..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
}

impl Options {
    /// No options.
    pub fn new() -> Self {
        Self::default()
    }

    /// Parses option text; `file` names it in errors and entries.
    pub fn parse_str(text: &str, file: &Path) -> Result<Self, TraceError> {
        let mut o = Self::new();
        o.add_str(text, file)?;
        Ok(o)
    }

    /// Reads and parses a file.
    pub fn load(path: &Path) -> Result<Self, TraceError> {
        let mut o = Self::new();
        o.add_file(path)?;
        Ok(o)
    }

    /// Reads a file and appends its options (they override earlier ones).
    pub fn add_file(&mut self, path: &Path) -> Result<(), TraceError> {
        let text = std::fs::read_to_string(path).map_err(|e| TraceError::io(path, e))?;
        self.add_str(&text, path)
    }

    /// Appends options parsed from `text`.
    pub fn add_str(&mut self, text: &str, file: &Path) -> Result<(), TraceError> {
        let toks = tokens(text).map_err(|(l, m)| TraceError::parse(file, l, m))?;
        let mut i = 0;
        while i < toks.len() {
            let (name, line, quoted) = &toks[i];
            if !is_name(name, *quoted) {
                return Err(TraceError::parse(
                    file,
                    *line,
                    format!("expected an option name `-name`, found `{name}`"),
                ));
            }
            let Some((value, _, vq)) = toks.get(i + 1) else {
                return Err(TraceError::parse(
                    file,
                    *line,
                    format!("option `{name}` has no value"),
                ));
            };
            if is_name(value, *vq) {
                return Err(TraceError::parse(
                    file,
                    *line,
                    format!("option `{name}` has no value (next is option `{value}`)"),
                ));
            }
            let entry = OptionEntry {
                name: name[1..].to_string(),
                value: value.clone(),
                file: file.to_path_buf(),
                line: *line,
            };
            self.last.insert(entry.name.clone(), self.entries.len());
            self.entries.push(entry);
            i += 2;
        }
        Ok(())
    }

    /// Appends all of `other`'s options after this one's.
    pub fn merge(&mut self, other: &Options) {
        for e in &other.entries {
            self.last.insert(e.name.clone(), self.entries.len());
            self.entries.push(e.clone());
        }
    }

    /// The effective (last) occurrence of `name`.
    pub fn get(&self, name: &str) -> Option<&OptionEntry> {
        self.last.get(name).map(|&i| &self.entries[i])
    }

    /// Every occurrence, in order.
    pub fn entries(&self) -> &[OptionEntry] {
        &self.entries
    }

    /// The effective options, sorted by name.
    pub fn effective(&self) -> impl Iterator<Item = &OptionEntry> {
        self.last.values().map(|&i| &self.entries[i])
    }

    /// An unsigned integer option.
    pub fn u32(&self, name: &str) -> Result<Option<u32>, TraceError> {
        self.get(name)
            .map(|e| parse_int(&e.value).ok_or_else(|| e.error("expected an unsigned integer")))
            .transpose()
    }

    /// A signed integer option.
    pub fn i64(&self, name: &str) -> Result<Option<i64>, TraceError> {
        self.get(name)
            .map(|e| {
                e.value
                    .trim()
                    .parse()
                    .map_err(|_| e.error("expected an integer"))
            })
            .transpose()
    }

    /// A number option.
    pub fn f64(&self, name: &str) -> Result<Option<f64>, TraceError> {
        self.get(name)
            .map(|e| {
                e.value
                    .trim()
                    .parse()
                    .map_err(|_| e.error("expected a number"))
            })
            .transpose()
    }

    /// A 0/1 option.
    pub fn bool(&self, name: &str) -> Result<Option<bool>, TraceError> {
        self.get(name)
            .map(|e| match e.value.trim() {
                "0" => Ok(false),
                "1" => Ok(true),
                _ => Err(e.error("expected 0 or 1")),
            })
            .transpose()
    }

    /// A list of unsigned integers separated by `,` (or `sep`).
    pub fn list(&self, name: &str, sep: char) -> Result<Option<Vec<u32>>, TraceError> {
        self.get(name)
            .map(|e| {
                e.value
                    .split(sep)
                    .enumerate()
                    .map(|(k, s)| {
                        parse_int(s).ok_or_else(|| {
                            e.error(format!(
                                "element {} `{}` is not an unsigned integer",
                                k + 1,
                                s.trim()
                            ))
                        })
                    })
                    .collect()
            })
            .transpose()
    }

    /// A list of numbers separated by `sep`.
    pub fn list_f64(&self, name: &str, sep: char) -> Result<Option<Vec<f64>>, TraceError> {
        self.get(name)
            .map(|e| {
                e.value
                    .split(sep)
                    .enumerate()
                    .map(|(k, s)| {
                        s.trim().parse().map_err(|_| {
                            e.error(format!("element {} `{}` is not a number", k + 1, s.trim()))
                        })
                    })
                    .collect()
            })
            .transpose()
    }

    /// The value text.
    pub fn str(&self, name: &str) -> Option<&str> {
        self.get(name).map(|e| e.value.as_str())
    }
}

fn parse_int(s: &str) -> Option<u32> {
    let s = s.trim();
    if let Some(h) = s.strip_prefix("0x") {
        u32::from_str_radix(h, 16).ok()
    } else {
        s.parse().ok()
    }
}

/// Parses a `key=value:key=value` string (DRAM timing) into ordered pairs; white space is ignored.
pub fn parse_kv_colon(entry: &OptionEntry) -> Result<Vec<(String, u32)>, TraceError> {
    let compact: String = entry.value.chars().filter(|c| !c.is_whitespace()).collect();
    compact
        .split(':')
        .filter(|s| !s.is_empty())
        .map(|kv| {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| entry.error(format!("field `{kv}` is not key=value")))?;
            let v = parse_int(v)
                .ok_or_else(|| entry.error(format!("field `{kv}`: `{v}` is not a number")))?;
            Ok((k.to_string(), v))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_quotes_and_overrides() {
        let text = "# c\n-a 1 # trailing\n-b \"x:\n  y\"\n-a 2\n-neg -1\n";
        let o = Options::parse_str(text, Path::new("g.config")).unwrap();
        assert_eq!(o.u32("a").unwrap(), Some(2));
        assert_eq!(o.get("a").unwrap().line, 5);
        assert_eq!(o.str("b"), Some("x:\n  y"));
        assert_eq!(o.i64("neg").unwrap(), Some(-1));
        assert_eq!(o.entries().len(), 4);
    }

    #[test]
    fn errors_name_the_option_and_line() {
        let o = Options::parse_str("\n-n_clusters abc\n", Path::new("g.config")).unwrap();
        let e = o.u32("n_clusters").unwrap_err().to_string();
        assert!(e.contains("g.config:2") && e.contains("-n_clusters"), "{e}");
        let e = Options::parse_str("-a\n-b 1\n", Path::new("g.config"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("g.config:1") && e.contains("no value"), "{e}");
        let e = Options::parse_str("-a \"1\n", Path::new("g.config"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("unterminated"), "{e}");
        let o = Options::parse_str("-l 1,x,3\n", Path::new("g.config")).unwrap();
        let e = o.list("l", ',').unwrap_err().to_string();
        assert!(e.contains("element 2 `x`"), "{e}");
    }
}
