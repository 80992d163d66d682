//! The interconnect file named by `-inter_config_file` (BookSim syntax): `key = value;` lines,
//! `//` comments, values that may be braced lists (`{{1,2},{10,20}}`).

use crate::TraceError;
use std::path::{Path, PathBuf};

/// A parsed `.icnt` file: ordered `key = value` pairs with their lines.
#[derive(Debug, Clone, Default)]
pub struct IcntConfig {
    /// The file.
    pub file: PathBuf,
    /// `(key, value, line)` in file order.
    pub entries: Vec<(String, String, u64)>,
}

impl IcntConfig {
    /// Reads and parses a file.
    pub fn load(path: &Path) -> Result<Self, TraceError> {
        let text = std::fs::read_to_string(path).map_err(|e| TraceError::io(path, e))?;
        Self::parse(&text, path)
    }

    /// Parses text; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Self, TraceError> {
        let mut entries = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split("//").next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let ln = i as u64 + 1;
            for stmt in line.split(';').map(str::trim).filter(|s| !s.is_empty()) {
                let (k, v) = stmt.split_once('=').ok_or_else(|| {
                    TraceError::parse(path, ln, format!("expected `key = value;`, found `{stmt}`"))
                })?;
                let k = k.trim();
                if k.is_empty() || !k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    return Err(TraceError::parse(path, ln, format!("bad key `{k}`")));
                }
                entries.push((k.to_string(), v.trim().to_string(), ln));
            }
            if !line.ends_with(';') {
                return Err(TraceError::parse(
                    path,
                    ln,
                    format!("missing `;` at the end of `{line}`"),
                ));
            }
        }
        Ok(Self {
            file: path.to_path_buf(),
            entries,
        })
    }

    /// The last value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries
            .iter()
            .rev()
            .find(|(k, _, _)| k == key)
            .map(|(_, v, _)| v.as_str())
    }

    /// The last value of `key` parsed as `T`, with an error naming file, line, key and `what`.
    fn parsed<T: std::str::FromStr>(&self, key: &str, what: &str) -> Result<Option<T>, TraceError> {
        match self.entries.iter().rev().find(|(k, _, _)| k == key) {
            None => Ok(None),
            Some((_, v, l)) => v.parse().map(Some).map_err(|_| {
                TraceError::parse(
                    &self.file,
                    *l,
                    format!("`{key}`: expected {what}, found `{v}`"),
                )
            }),
        }
    }

    /// An unsigned integer value, with an error naming file, line and key.
    pub fn u32(&self, key: &str) -> Result<Option<u32>, TraceError> {
        self.parsed(key, "an unsigned integer")
    }

    /// A number (`internal_speedup = 2.0;`), with an error naming file, line and key.
    pub fn f64(&self, key: &str) -> Result<Option<f64>, TraceError> {
        self.parsed(key, "a number")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_booksim_syntax() {
        let t = "// c\nuse_map = 0;\nflit_size = 32; // x\npacket_size ={{1,2},{10,20}};\ntopology = fly;\n";
        let c = IcntConfig::parse(t, Path::new("a.icnt")).unwrap();
        assert_eq!(c.u32("flit_size").unwrap(), Some(32));
        assert_eq!(c.f64("flit_size").unwrap(), Some(32.0));
        let e = c.f64("topology").unwrap_err().to_string();
        assert!(
            e.contains("a.icnt:5") && e.contains("expected a number"),
            "{e}"
        );
        assert_eq!(c.get("topology"), Some("fly"));
        assert_eq!(c.get("packet_size"), Some("{{1,2},{10,20}}"));
        let e = IcntConfig::parse("k = 5\n", Path::new("a.icnt"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("a.icnt:1") && e.contains(";"), "{e}");
        let c = IcntConfig::parse("k = x;\n", Path::new("a.icnt")).unwrap();
        assert!(c.u32("k").unwrap_err().to_string().contains("`k`"));
    }
}
