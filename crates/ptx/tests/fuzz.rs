//! Random garbage, truncated and mutated PTX never panics the parser; errors stay in bounds.

use proptest::prelude::*;
use warpforge_ptx::parse;

fn corpus() -> Vec<String> {
    let dir = format!("{}/tests/corpus", env!("CARGO_MANIFEST_DIR"));
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    v.sort();
    v
}

/// Parses and checks that any error position lies inside the text (or one past its end).
fn check(text: &str) -> Result<(), TestCaseError> {
    if let Err(e) = parse(text, "fuzz.ptx") {
        let lines = text.split('\n').count() as u32;
        prop_assert!(
            e.line >= 1 && e.line <= lines.max(1),
            "{e} (text has {lines} lines)"
        );
        prop_assert!(e.col >= 1);
        prop_assert!(!e.message.is_empty());
    }
    Ok(())
}

const PIECES: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    ";",
    ",",
    ":",
    "@",
    "!",
    "|",
    "+",
    "-",
    "<",
    ">",
    "=",
    "_",
    "%r1",
    "%p1",
    "%tid.x",
    ".reg",
    ".b32",
    ".pred",
    ".param",
    ".entry",
    ".func",
    ".global",
    ".v4",
    ".section",
    "0x",
    "0f",
    "0d3F",
    "1.5e",
    "bra",
    "call",
    "ld",
    "st",
    "mov",
    "setp.lt",
    "L1",
    "\n",
    " ",
    "//",
    "/*",
    "*/",
    "\"",
    "99999999999999999999",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn garbage_never_panics(s in "\\PC{0,400}") {
        check(&s)?;
    }

    #[test]
    fn ptx_like_garbage_never_panics(parts in proptest::collection::vec(proptest::sample::select(PIECES), 0..120)) {
        let s = format!(".version 7.0\n.target sm_70\n{}", parts.concat());
        check(&s)?;
    }

    #[test]
    fn truncation_never_panics(which in 0usize..64, frac in 0.0f64..1.0) {
        let c = corpus();
        let t = &c[which % c.len()];
        let mut cut = (t.len() as f64 * frac) as usize;
        while !t.is_char_boundary(cut) { cut -= 1; }
        check(&t[..cut])?;
    }

    #[test]
    fn mutation_never_panics(which in 0usize..64, edits in proptest::collection::vec((any::<prop::sample::Index>(), 0u8..4, proptest::sample::select(PIECES)), 1..6)) {
        let c = corpus();
        let mut lines: Vec<String> = c[which % c.len()].lines().map(str::to_string).collect();
        for (idx, kind, piece) in edits {
            if lines.is_empty() { break; }
            let i = idx.index(lines.len());
            match kind {
                0 => { lines.remove(i); }
                1 => { let l = lines[i].clone(); lines.insert(i, l); }
                2 => { let j = (i * 7 + 3) % lines.len(); lines.swap(i, j); }
                _ => {
                    let l = &mut lines[i];
                    let mut at = l.len() / 2;
                    while !l.is_char_boundary(at) { at -= 1; }
                    l.insert_str(at, piece);
                }
            }
        }
        check(&lines.join("\n"))?;
    }
}
