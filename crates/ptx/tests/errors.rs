//! Malformed or unsupported PTX is an error naming file, line and column.

use warpforge_ptx::parse;

const HEAD: &str = ".version 7.0\n.target sm_70\n.address_size 64\n";

/// Wraps `body` lines in a kernel (body starts on line 8) and expects an error on `line` at the
/// first occurrence of `at` in that line, whose message contains `msg`.
fn body_err(body: &str, line: u32, at: &str, msg: &str) {
    let src = format!(
        "{HEAD}.visible .entry k(.param .u64 p)\n{{\n.reg .pred %p<3>;\n.reg .b32 %r<5>;\n{body}\nret;\n}}\n"
    );
    whole_err(&src, line, at, msg);
}

fn whole_err(src: &str, line: u32, at: &str, msg: &str) {
    let text = src.lines().nth(line as usize - 1).unwrap_or("");
    let col = if at == "$" {
        text.len() as u32 + 1
    } else {
        text.find(at).expect("marker in line") as u32 + 1
    };
    whole_err_at(src, line, col, msg);
}

fn whole_err_at(src: &str, line: u32, col: u32, msg: &str) {
    let e = parse(src, "bad.ptx").expect_err("must fail");
    assert_eq!(
        (e.file.as_str(), e.line, e.col),
        ("bad.ptx", line, col),
        "{e}"
    );
    assert!(
        e.message.contains(msg),
        "message `{}` lacks `{msg}`",
        e.message
    );
    assert_eq!(
        e.to_string(),
        format!("bad.ptx:{line}:{col}: {}", e.message)
    );
}

#[test]
fn unknown_instruction_and_modifiers() {
    body_err(
        "  frobnicate.b32 %r1, %r2;",
        8,
        "frob",
        "unknown or unsupported instruction `frobnicate`",
    );
    body_err(
        "  add.zap.s32 %r1, %r2, %r3;",
        8,
        ".zap",
        "unknown or unsupported modifier `.zap`",
    );
    body_err(
        "  add.approx.f32 %r1, %r2, %r3;",
        8,
        ".approx",
        "not valid on `add`",
    );
    body_err("  mov.b32.b32.b32 %r1, %r2;", 8, ".b32 ", "too many type");
    body_err(
        "  add.rn.rz.f32 %r1, %r2, %r3;",
        8,
        ".rz",
        "duplicate or conflicting",
    );
    body_err("  add %r1, %r2, %r3;", 8, "add", "needs a type");
    body_err("  setp.s32 %p1, %r2, %r3;", 8, "setp", "needs a comparison");
    body_err(
        "  cvt.rzi.f32 %r1, %r2;",
        8,
        "cvt",
        "destination and a source type",
    );
    body_err(
        "  add.rni.f32 %r1, %r2, %r3;",
        8,
        ".rni",
        "not valid on `add`",
    );
    body_err(
        "  shf.l.b32 %r1, %r2, %r3, %r4;",
        8,
        "shf",
        "`.clamp` or `.wrap`",
    );
    body_err(
        "  atom.global.u32 %r1, [%r2], 1;",
        8,
        "atom",
        "needs an operation",
    );
    body_err(
        "  min.xorsign.f32 %r1, %r2, %r3;",
        8,
        ".xorsign",
        "`.xorsign`",
    );
    body_err(
        "  add.NaN.f32 %r1, %r2, %r3;",
        8,
        ".NaN",
        "not valid on `add`",
    );
    body_err(
        "  cp.async.ca.shared.global [%r1], [%r2], 16;",
        8,
        "cp",
        "unknown or unsupported instruction `cp`",
    );
    body_err("  brx.idx %r1, tbl;", 8, "brx", "brx.idx");
}

#[test]
fn operand_errors() {
    body_err("  add.s32 %r1, %r2;", 8, "add", "takes 3 operands, found 2");
    body_err(
        "  add.s32 %r1, %r2, %r9;",
        8,
        "%r9",
        "undefined register `%r9`",
    );
    body_err(
        "  add.s32 %r1, %r2, %rx;",
        8,
        "%rx",
        "undefined register `%rx`",
    );
    body_err(
        "  mov.u32 %r1, %tid.w;",
        8,
        "%tid",
        "undefined register `%tid.w`",
    );
    body_err("  bra L_nowhere;", 8, "L_", "undefined label `L_nowhere`");
    body_err("  ld.global.u32 %r1, %r2;", 8, "ld", "must be an address");
    body_err("  add.s32 %r1, %r2, %r3", 9, "ret", "expected `,` or `;`");
    body_err("  @%r1 bra L;\nL:", 8, "%r1", "not a `.pred` register");
    body_err("  ld.global.u32 %r1, [%r2+];", 8, "]", "byte offset");
    body_err(
        "  mov.u32 %r1, nosuchvar;",
        8,
        "nosuch",
        "undefined symbol `nosuchvar`",
    );
    body_err(
        "  mov.u32 %r1, #;",
        8,
        "#",
        "expected an operand, found `#`",
    );
    body_err("L1:\nL1:", 9, "L1", "label `L1` already defined");
    body_err(".reg .b32 %r<2>;", 8, "%r", "declared twice");
    body_err(
        "  mov.u32 %r1, 0x1FFFFFFFFFFFFFFFFF;",
        8,
        "0x",
        "out-of-range numeric constant",
    );
    body_err(
        "  .branchtargets L1;",
        8,
        ".branch",
        "unsupported directive `.branchtargets`",
    );
    body_err("  tbl: .branchtargets L1;", 8, ".branch", "not supported");
    body_err("  .reg .b32 %r<3;", 8, ";", "expected `>`");
    body_err("  bar.warp.sync;", 8, "bar", "takes 1 operands, found 0");
    body_err(
        "  setp.eq.s32 %r1, %r2, %r3;",
        8,
        "setp",
        "operand 1 of `setp` must be a `.pred` register",
    );
    body_err(
        "  selp.b32 %r1, %r2, %r3, %r4;",
        8,
        "selp",
        "operand 4 of `selp` must be a `.pred` register",
    );
}

#[test]
fn module_errors() {
    whole_err(
        ".version 7.0\n.target sm_70\n.bogus 1;\n",
        3,
        ".bogus",
        "unsupported or misplaced module directive `.bogus`",
    );
    whole_err(
        ".version 9.0\n.target sm_70\n",
        1,
        "9.0",
        "unsupported PTX version 9.0",
    );
    whole_err(
        ".version 7.0\n.target sm_70\n.address_size 48\n",
        3,
        "48",
        "address size must be 32 or 64",
    );
    whole_err(
        "/* never closed\n.version 7.0\n.target sm_70\n",
        1,
        "/*",
        "unterminated /* comment",
    );
    whole_err(
        &format!("{HEAD}.visible .entry k()\n{{\nret;\n"),
        6,
        "$",
        "closing the function body",
    );
    whole_err(
        &format!("{HEAD}.visible .entry k(.param .u64)\n{{\nret;\n}}\n"),
        4,
        ")",
        "expected a parameter name",
    );
    whole_err(
        &format!("{HEAD}.global .u32 a = {{1, 2}};\n"),
        4,
        "a =",
        "2 initialisers for 1 elements",
    );
    whole_err(
        &format!("{HEAD}.global .u64 a = missing;\n"),
        4,
        ".global",
        "undefined symbol `missing`",
    );
    whole_err(
        &format!("{HEAD}.entry k() {{ ret; }}\n.entry k() {{ ret; }}\n"),
        5,
        ".entry",
        "defined twice",
    );
    whole_err(
        &format!("{HEAD}.visible\n"),
        4,
        ".visible",
        "linkage directive without a declaration",
    );
    whole_err(
        &format!("{HEAD}.section .nv.info {{ }}\n"),
        4,
        ".nv",
        "unsupported section",
    );
    whole_err(
        &format!("{HEAD}.global .u32 a;\n.global .u32 a;\n"),
        5,
        ".global",
        "declared twice",
    );
    let f = ".func (.param .b32 r) g(.param .b32 a)\n{\nret;\n}\n";
    whole_err(
        &format!("{HEAD}{f}.entry k()\n{{\n.param .b32 p;\ncall.uni g, (p);\n}}\n"),
        11,
        "call",
        "passes 1 argument(s) and 0 return value(s); `g` declares 1 and 1",
    );
    whole_err(
        &format!("{HEAD}.global .u32 v;\n.entry k()\n{{\ncall.uni v, ();\n}}\n"),
        7,
        "call",
        "`v` is not a function",
    );
    whole_err_at("", 1, 1, "empty input");
    whole_err_at(
        "// only a comment\n  .target sm_70\n",
        2,
        3,
        "must start with `.version`",
    );
    whole_err_at(".version 7.0\n", 1, 1, "missing `.target`");
}

/// Declared sizes are bounded per state space (a hostile length cannot make the loader reserve
/// gigabytes), overflowing dimensions are refused, and the bounds themselves are accepted.
#[test]
fn oversized_variables_are_refused() {
    whole_err(
        &format!("{HEAD}.global .align 8 .u64 pp[4294967295];\n"),
        4,
        "pp",
        "`pp` declares 34359738360 bytes of .global memory; the limit is 1073741824 bytes",
    );
    whole_err(
        &format!("{HEAD}.const .b8 c[65537];\n"),
        4,
        "c[",
        "of .const memory; the limit is 65536",
    );
    whole_err(
        &format!("{HEAD}.global .b32 g[4294967296][4294967296];\n"),
        4,
        "g[",
        "more than 2^64 bytes",
    );
    body_err(".local .b8 depot[600000];", 8, "depot", "of .local memory");
    let ok = format!("{HEAD}.const .b8 c[65536];\n.global .b8 g[1073741824];\n");
    let m = parse(&ok, "ok.ptx").expect("the bounds themselves are accepted");
    assert_eq!(m.globals[0].size_bytes(), 65536);
    assert_eq!(m.globals[1].size_bytes(), 1 << 30);
}
