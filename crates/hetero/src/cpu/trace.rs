//! CPU memory-access traces (spec 004 §10.2 substitute for SPEC CPU2006 regions): the in-tree
//! `wftrace` format, xz-compressed (`*.wft.xz`), written by `scripts/record-cpu-trace.sh` from
//! valgrind lackey's `--trace-mem=yes` output.
//!
//! Text before compression, one record per line:
//! ```text
//! wftrace 1 <program description>
//! <gap> <r|w> <block hex>       (gap = instructions retired since the previous record, >= 1,
//!                                this access included; block = byte address / 64)
//! ...
//! end <number of records>
//! ```
//! Consecutive accesses of one kind to one 64 B block are folded into one record (their
//! instructions counted in the gap). A file that lacks the header, has a malformed record, ends
//! before its `end` line or whose count disagrees is refused with the file name and line.

use super::{Op, OpStream};
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// A trace that could not be read: file, line (0 = the file as a whole) and reason.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{file}:{line}: {reason}")]
pub struct TraceError {
    /// File name.
    pub file: String,
    /// 1-based line of the decompressed text; 0 when no line applies.
    pub line: usize,
    /// What is wrong.
    pub reason: String,
}

/// A loaded trace: the records, replayed in a loop.
#[derive(Debug, Clone)]
pub struct Trace {
    /// Program description from the header.
    pub program: String,
    ops: Vec<Op>,
    pos: usize,
    /// Instructions in one pass.
    pub instructions: u64,
}

impl Trace {
    /// Reads an xz-compressed (`.xz`) or plain `wftrace` file.
    pub fn load(path: &Path) -> Result<Trace, TraceError> {
        let file = path.display().to_string();
        let f = std::fs::File::open(path).map_err(|e| TraceError {
            file: file.clone(),
            line: 0,
            reason: e.to_string(),
        })?;
        if path.extension().is_some_and(|e| e == "xz") {
            Self::parse(xz2::read::XzDecoder::new(f), &file)
        } else {
            Self::parse(f, &file)
        }
    }

    /// Parses trace text from `r` (`file` names it in errors).
    pub fn parse(r: impl Read, file: &str) -> Result<Trace, TraceError> {
        let err = |line: usize, reason: String| TraceError {
            file: file.to_string(),
            line,
            reason,
        };
        let mut lines = BufReader::new(r).lines();
        let mut n = 0usize;
        let mut next = |n: &mut usize| -> Result<Option<String>, TraceError> {
            *n += 1;
            match lines.next() {
                None => Ok(None),
                Some(Ok(l)) => Ok(Some(l)),
                Some(Err(e)) => Err(err(
                    *n,
                    format!("unreadable (truncated or corrupt compressed data?): {e}"),
                )),
            }
        };
        let head = next(&mut n)?.ok_or_else(|| err(1, "empty file".into()))?;
        let program = match head.strip_prefix("wftrace ") {
            Some(rest) => {
                let (ver, prog) = rest.split_once(' ').unwrap_or((rest, ""));
                if ver != "1" {
                    return Err(err(
                        1,
                        format!("unsupported wftrace version `{ver}` (known: 1)"),
                    ));
                }
                prog.to_string()
            }
            None => {
                return Err(err(
                    1,
                    "not a wftrace file (expected a `wftrace 1 ...` header)".into(),
                ))
            }
        };
        let mut ops = Vec::new();
        let mut instructions = 0u64;
        loop {
            let Some(l) = next(&mut n)? else {
                return Err(err(
                    n - 1,
                    format!("truncated: no `end` line after {} records", ops.len()),
                ));
            };
            let mut it = l.split_ascii_whitespace();
            let a = it.next();
            if a == Some("end") {
                let count: usize = it
                    .next()
                    .and_then(|c| c.parse().ok())
                    .ok_or_else(|| err(n, "`end` needs the record count".into()))?;
                if count != ops.len() {
                    return Err(err(
                        n,
                        format!("`end {count}` but {} records were read", ops.len()),
                    ));
                }
                if ops.is_empty() {
                    return Err(err(n, "no records".into()));
                }
                if let Some(extra) = next(&mut n)? {
                    if !extra.trim().is_empty() {
                        return Err(err(n, "text after the `end` line".into()));
                    }
                }
                return Ok(Trace {
                    program,
                    ops,
                    pos: 0,
                    instructions,
                });
            }
            let (Some(g), Some(k), Some(addr), None) = (a, it.next(), it.next(), it.next()) else {
                return Err(err(
                    n,
                    format!("expected `<gap> <r|w> <block hex>`, got `{}`", l.trim()),
                ));
            };
            let gap: u32 = g
                .parse()
                .ok()
                .filter(|&g| g >= 1)
                .ok_or_else(|| err(n, format!("gap `{g}` is not a positive integer")))?;
            let write = match k {
                "r" => false,
                "w" => true,
                _ => return Err(err(n, format!("access kind `{k}` is not r or w"))),
            };
            let line = u64::from_str_radix(addr, 16)
                .ok()
                .filter(|&b| b < 1 << 58)
                .ok_or_else(|| err(n, format!("block `{addr}` is not a hex block number")))?;
            instructions += gap as u64;
            ops.push(Op {
                gap,
                write,
                line,
                dep: false,
            });
        }
    }

    /// Records in one pass.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Never: a loaded trace has at least one record.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }
}

impl OpStream for Trace {
    fn next_op(&mut self) -> Op {
        let op = self.ops[self.pos];
        self.pos = (self.pos + 1) % self.ops.len();
        op
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Trace, TraceError> {
        Trace::parse(s.as_bytes(), "t.wft")
    }

    #[test]
    fn reads_records_and_loops() {
        let mut t = parse("wftrace 1 gzip\n3 r 1a\n1 w 1b\nend 2\n").unwrap();
        assert_eq!(t.program, "gzip");
        assert_eq!(t.instructions, 4);
        let a = t.next_op();
        assert_eq!((a.gap, a.write, a.line), (3, false, 0x1a));
        assert!(t.next_op().write);
        assert_eq!(t.next_op().line, 0x1a, "replays from the start");
    }

    #[test]
    fn refuses_bad_traces_with_file_and_line() {
        let cases = [
            ("", 1, "empty"),
            ("hello\n", 1, "not a wftrace"),
            ("wftrace 2 x\n", 1, "version"),
            ("wftrace 1 x\n3 r 1a\n2 q 1b\nend 2\n", 3, "not r or w"),
            ("wftrace 1 x\n3 r zz\nend 1\n", 2, "hex"),
            ("wftrace 1 x\n0 r 1\nend 1\n", 2, "positive"),
            ("wftrace 1 x\n3 r 1a\n", 2, "truncated"),
            ("wftrace 1 x\n3 r 1a\nend 5\n", 3, "records were read"),
            ("wftrace 1 x\n3 r 1a 9\nend 1\n", 2, "expected"),
            ("wftrace 1 x\nend 0\n", 2, "no records"),
        ];
        for (text, line, what) in cases {
            let e = parse(text).unwrap_err();
            assert_eq!(e.line, line, "{text:?}: {e}");
            assert!(e.to_string().contains(what), "{text:?}: {e}");
            assert!(e.to_string().starts_with(&format!("t.wft:{line}:")), "{e}");
        }
    }

    #[test]
    fn in_tree_samples_load() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("traces");
        for name in ["gzip", "sort", "cc1"] {
            let t = Trace::load(&dir.join(format!("{name}.wft.xz"))).unwrap();
            assert_eq!(t.len(), 1_000_000, "{name}");
            assert!(t.program.contains(name), "{}", t.program);
            // Real programs: between 1 and 10 instructions per (folded) access.
            let per = t.instructions as f64 / t.len() as f64;
            assert!((1.0..10.0).contains(&per), "{name}: {per}");
        }
    }

    #[test]
    fn truncated_compressed_file_is_refused() {
        let mut text = String::from("wftrace 1 x\n");
        for i in 0..20000 {
            text.push_str(&format!("{} r {:x}\n", 1 + i % 7, i * 37));
        }
        text.push_str("end 20000\n");
        let mut enc = xz2::write::XzEncoder::new(Vec::new(), 6);
        std::io::Write::write_all(&mut enc, text.as_bytes()).unwrap();
        let full = enc.finish().unwrap();
        let dir = std::env::temp_dir().join(format!("wft-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ok = dir.join("ok.wft.xz");
        std::fs::write(&ok, &full).unwrap();
        assert_eq!(Trace::load(&ok).unwrap().len(), 20000);
        let cut = dir.join("cut.wft.xz");
        std::fs::write(&cut, &full[..full.len() / 2]).unwrap();
        let e = Trace::load(&cut).unwrap_err();
        assert!(e.file.ends_with("cut.wft.xz") && e.line > 1, "{e}");
        let junk = dir.join("junk.wft.xz");
        std::fs::write(&junk, b"definitely not xz").unwrap();
        let e = Trace::load(&junk).unwrap_err();
        assert_eq!(e.line, 1, "{e}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
