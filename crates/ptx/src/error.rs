//! Parse errors: every one names the file, line and column it was found at.

/// A PTX parse or validation error, displayed as `file:line:col: message`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{col}: {message}")]
pub struct PtxError {
    /// File (or module name) given to [`crate::parse`].
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
    /// What is wrong.
    pub message: String,
}

impl PtxError {
    /// A new error at `line:col` of `file`.
    pub fn new(file: &str, line: u32, col: u32, message: impl Into<String>) -> Self {
        Self {
            file: file.to_string(),
            line,
            col,
            message: message.into(),
        }
    }
}
