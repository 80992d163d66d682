//! `kernelslist.g`: the command list of an Accel-Sim trace directory. Each non-empty line is a
//! `MemcpyHtoD,<hex address>,<bytes>` command or the name of a kernel trace file (relative to the
//! list's directory, `.traceg` or `.traceg.xz`). `MemcpyDtoH` lines are accepted and ignored, as
//! Accel-Sim does.

use crate::TraceError;
use std::path::{Path, PathBuf};

/// One command of a trace's command list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TraceCommand {
    /// A host-to-device copy of `bytes` bytes to device address `addr`.
    MemcpyHtoD {
        /// Destination device address.
        addr: u64,
        /// Size in bytes.
        bytes: u64,
    },
    /// A kernel launch whose trace is in `path`.
    Kernel {
        /// Trace file (resolved against the list's directory).
        path: PathBuf,
        /// Line of the list naming it.
        line: u64,
    },
}

/// A parsed `kernelslist.g`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelList {
    /// The list file.
    pub path: PathBuf,
    /// Its commands in order.
    pub commands: Vec<TraceCommand>,
}

impl KernelList {
    /// Reads and parses `path`. A directory is taken to hold a `kernelslist.g`.
    pub fn open(path: &Path) -> Result<Self, TraceError> {
        let path = if path.is_dir() {
            path.join("kernelslist.g")
        } else {
            path.to_path_buf()
        };
        let text = std::fs::read_to_string(&path).map_err(|e| TraceError::io(&path, e))?;
        Self::parse(&text, &path)
    }

    /// Parses list text; `path` gives the directory kernel files are relative to.
    pub fn parse(text: &str, path: &Path) -> Result<Self, TraceError> {
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut commands = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line_no = i as u64 + 1;
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(rest) = line.strip_prefix("MemcpyHtoD") {
                let fields: Vec<&str> = rest.split(',').map(str::trim).collect();
                if fields.len() != 3 || !fields[0].is_empty() {
                    return Err(TraceError::parse(
                        path,
                        line_no,
                        format!("expected `MemcpyHtoD,<address>,<bytes>`, found `{line}`"),
                    ));
                }
                let a = fields[1].trim_start_matches("0x").trim_start_matches("0X");
                let addr = u64::from_str_radix(a, 16).map_err(|_| {
                    TraceError::parse(path, line_no, format!("bad hex address `{}`", fields[1]))
                })?;
                let bytes = fields[2].parse().map_err(|_| {
                    TraceError::parse(path, line_no, format!("bad byte count `{}`", fields[2]))
                })?;
                commands.push(TraceCommand::MemcpyHtoD { addr, bytes });
            } else if line.starts_with("MemcpyDtoH") {
                continue;
            } else if line.starts_with("kernel") {
                let mut p = dir.join(line);
                if !p.exists() {
                    let xz = dir.join(format!("{line}.xz"));
                    if xz.exists() {
                        p = xz;
                    } else {
                        return Err(TraceError::parse(
                            path,
                            line_no,
                            format!("kernel trace `{}` does not exist", p.display()),
                        ));
                    }
                }
                commands.push(TraceCommand::Kernel {
                    path: p,
                    line: line_no,
                });
            } else {
                return Err(TraceError::parse(
                    path,
                    line_no,
                    format!(
                        "expected `MemcpyHtoD,...` or a kernel trace file name, found `{line}`"
                    ),
                ));
            }
        }
        Ok(Self {
            path: path.to_path_buf(),
            commands,
        })
    }

    /// The kernel trace files in launch order.
    pub fn kernels(&self) -> impl Iterator<Item = &Path> {
        self.commands.iter().filter_map(|c| match c {
            TraceCommand::Kernel { path, .. } => Some(path.as_path()),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_memcpy_and_rejects_garbage() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("kernel-1.traceg"), "").unwrap();
        let p = dir.path().join("kernelslist.g");
        let l = KernelList::parse("MemcpyHtoD,0x00007f2b2d500000,400\n\nkernel-1.traceg\n", &p)
            .unwrap();
        assert_eq!(
            l.commands[0],
            TraceCommand::MemcpyHtoD {
                addr: 0x7f2b2d500000,
                bytes: 400
            }
        );
        assert_eq!(l.kernels().count(), 1);
        let e = KernelList::parse("MemcpyHtoD,0xzz,4\n", &p)
            .unwrap_err()
            .to_string();
        assert!(e.contains("kernelslist.g:1") && e.contains("0xzz"), "{e}");
        let e = KernelList::parse("\nkernel-9.traceg\n", &p)
            .unwrap_err()
            .to_string();
        assert!(e.contains(":2") && e.contains("does not exist"), "{e}");
        let e = KernelList::parse("hello\n", &p).unwrap_err().to_string();
        assert!(e.contains("hello"), "{e}");
    }
}
