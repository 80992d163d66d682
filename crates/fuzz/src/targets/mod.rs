//! Fuzz targets: one file each, plus one line in [`TARGETS`].

mod config;
mod gpgpusim;
mod ptx;
mod trace;

/// A fuzz target: feeds one input to a parser of the product. `Ok(shape)` / `Err(shape)`
/// describe the outcome coarsely (the fuzzer keeps inputs that produce a new shape); a panic,
/// a hang or an oversized allocation is a bug.
pub struct Target {
    /// Name used on the command line.
    pub name: &'static str,
    /// What it exercises.
    pub about: &'static str,
    /// Seed corpus: repository files whose path ends with one of these suffixes.
    pub seed_suffixes: &'static [&'static str],
    /// Runs one input.
    pub run: fn(&[u8]) -> Result<String, String>,
}

/// Every target.
pub const TARGETS: &[Target] = &[ptx::TARGET, trace::TARGET, config::TARGET, gpgpusim::TARGET];

/// The target named `name`.
pub fn find(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}

/// An error message reduced to its shape: digits and quoted names dropped, so that the same
/// error at another line or on another key counts once. A message that echoes raw input
/// (unbalanced quotes, control or non-ASCII characters) loses everything from its first quote
/// or odd character on, so that random bytes do not make every input a "new" outcome.
pub fn shape(msg: &str) -> String {
    let quotes = msg
        .chars()
        .filter(|c| matches!(c, '`' | '"' | '\''))
        .count();
    let mut out = String::new();
    let mut quoted = false;
    for c in msg.chars() {
        if !(c.is_ascii_graphic() || c == ' ') || (quotes % 2 == 1 && c == '`') {
            out.push('~');
            break;
        }
        match c {
            '`' | '"' | '\'' => {
                quoted = !quoted;
                out.push('_');
            }
            _ if quoted => {}
            c if c.is_ascii_digit() => {}
            c => out.push(c),
        }
        if out.len() >= 80 {
            break;
        }
    }
    out
}
