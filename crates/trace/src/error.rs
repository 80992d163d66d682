//! Errors of the trace reader, the opcode tables and the GPGPU-Sim config importer. Every variant
//! names the file and, where there is one, the line.

use std::path::{Path, PathBuf};

/// An error reading a trace, an opcode table or a GPGPU-Sim config.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The file could not be opened or read.
    #[error("{}: {source}", path.display())]
    Io {
        /// File being read.
        path: PathBuf,
        /// Underlying error.
        #[source]
        source: std::io::Error,
    },
    /// Malformed input at a known line.
    #[error("{}:{line}: {message}", path.display())]
    Parse {
        /// File being read.
        path: PathBuf,
        /// 1-based line number.
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// An opcode the selected opcode table does not know.
    #[error(transparent)]
    UnknownOpcode(Box<UnknownOpcode>),
    /// Malformed input with no line (a missing header key, a missing file in a list).
    #[error("{}: {message}", path.display())]
    Invalid {
        /// File concerned.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

impl TraceError {
    /// A parse error at `path:line`.
    pub fn parse(path: &Path, line: u64, message: impl Into<String>) -> Self {
        TraceError::Parse {
            path: path.to_path_buf(),
            line,
            message: message.into(),
        }
    }

    /// An I/O error on `path`.
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        TraceError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// An error about a whole file.
    pub fn invalid(path: &Path, message: impl Into<String>) -> Self {
        TraceError::Invalid {
            path: path.to_path_buf(),
            message: message.into(),
        }
    }
}

/// Details of an unknown opcode (boxed in [`TraceError::UnknownOpcode`]).
#[derive(Debug, thiserror::Error)]
#[error(
    "{}:{line}: unknown opcode `{opcode}` for architecture `{arch}`; add a line \
     `{base} = \"<Class>\"` to the opcode table {table} (or to a file passed with --opcodes)",
    path.display()
)]
pub struct UnknownOpcode {
    /// Trace file.
    pub path: PathBuf,
    /// 1-based line number.
    pub line: u64,
    /// The opcode as written in the trace.
    pub opcode: String,
    /// Its base mnemonic (text before the first `.`).
    pub base: String,
    /// Architecture of the table searched.
    pub arch: String,
    /// Where that table lives (source path of the embedded table or the user's file).
    pub table: String,
}
