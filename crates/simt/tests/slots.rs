//! Shared register slots against one slot per register (docs/simt.md, "Registers"), on random
//! kernels: each case generates a small PTX kernel with divergent branches (guarded `bra` on
//! lane-dependent predicates), loops with lane-dependent bounded trip counts, guarded writes,
//! 32- and 64-bit registers, reads of registers never written and `shfl` (which reads other,
//! possibly inactive, lanes), runs it on a default device
//! (registers with disjoint live ranges share a slot) and on one with
//! `Device::set_share_slots(false)`, and compares every thread's log of stored values and the
//! executed instruction counts.
//!
//! Each thread appends the values it stores to its own log (`%rd0` is its cursor, 8 bytes a
//! record), so a value that differs anywhere along its path shows, not only the last one.

use proptest::prelude::*;
use warpforge_core::Dim3;
use warpforge_simt::{Device, KernelArg, LaunchConfig};

/// Threads per CTA: the second warp has 16 lanes that never start.
const BLOCK: u32 = 48;
/// CTAs.
const GRID: u32 = 2;
/// 32-bit registers written by the program (`%r1..`); `%r0` is the thread's global index and
/// `%r12..%r15` are read but never written.
const R_DST: u64 = 11;
const R_ALL: u64 = 16;
/// 64-bit registers written (`%rd1..`); `%rd0` is the log cursor, `%rd6..%rd7` never written.
const RD_DST: u64 = 5;
const RD_ALL: u64 = 8;
/// Predicates written (`%p1..`); `%p6..%p7` never written (false).
const P_DST: u64 = 5;
const P_ALL: u64 = 8;

/// Builds a kernel from a tape of random numbers (0 past its end, which gives short programs
/// of plain additions, so shrinking simplifies).
struct Gen<'a> {
    tape: &'a [u64],
    pos: usize,
    text: String,
    labels: u32,
    /// Loop nesting (0 outside any loop).
    loops: u32,
    /// Records a thread can store at most: each store counted with the product of its
    /// enclosing loops' largest trip counts.
    records: u64,
    /// The product of the enclosing loops' largest trip counts.
    mult: u64,
    /// Registers written so far in program order (`%r`, `%rd`, `%p` numbers), preferred as
    /// sources so that values flow.
    w32: Vec<u64>,
    w64: Vec<u64>,
    wp: Vec<u64>,
}

impl Gen<'_> {
    fn next(&mut self, n: u64) -> u64 {
        let v = self.tape.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        v % n
    }
    fn line(&mut self, s: String) {
        self.text.push_str("  ");
        self.text.push_str(&s);
        self.text.push('\n');
    }
    /// One of the registers written so far (three times in four, when there is one), else
    /// any of `1..all` (some never written).
    fn pick(&mut self, written: fn(&Self) -> &Vec<u64>, all: u64) -> u64 {
        let n = written(self).len() as u64;
        if n > 0 && self.next(4) != 0 {
            let i = self.next(n) as usize;
            written(self)[i]
        } else {
            1 + self.next(all - 1)
        }
    }
    /// A 32-bit register source: the thread index (one time in four, so predicates depend on
    /// the lane) or another `%r`.
    fn reg32(&mut self) -> String {
        if self.next(4) == 0 {
            "%r0".into()
        } else {
            format!("%r{}", self.pick(|g| &g.w32, R_ALL))
        }
    }
    /// A 32-bit source: a register or (one time in six) an immediate.
    fn src32(&mut self) -> String {
        if self.next(6) == 0 {
            format!("{}", self.next(40))
        } else {
            self.reg32()
        }
    }
    fn dst32(&mut self) -> String {
        let r = 1 + self.next(R_DST);
        self.w32.push(r);
        format!("%r{r}")
    }
    fn src64(&mut self) -> String {
        format!("%rd{}", self.pick(|g| &g.w64, RD_ALL))
    }
    fn dst64(&mut self) -> String {
        let r = 1 + self.next(RD_DST);
        self.w64.push(r);
        format!("%rd{r}")
    }
    fn pred(&mut self) -> String {
        format!("%p{}", self.pick(|g| &g.wp, P_ALL))
    }
    /// A guard on one instruction in three: `@%pN` or `@!%pN`.
    fn guard(&mut self) -> String {
        match self.next(6) {
            0 => format!("@{} ", self.pred()),
            1 => format!("@!{} ", self.pred()),
            _ => String::new(),
        }
    }
    fn stmt(&mut self) {
        match self.next(13) {
            0..=3 => {
                let g = self.guard();
                let op = [
                    "add.u32",
                    "sub.u32",
                    "mul.lo.u32",
                    "xor.b32",
                    "and.b32",
                    "or.b32",
                    "min.u32",
                    "max.u32",
                ][self.next(8) as usize];
                let (d, a, b) = (self.dst32(), self.src32(), self.src32());
                self.line(format!("{g}{op} {d}, {a}, {b};"));
                if self.next(3) == 0 {
                    self.store();
                }
            }
            4 => {
                let g = self.guard();
                let d = self.dst32();
                let a = self.src32();
                let sh = self.next(32);
                let op = if self.next(2) == 0 {
                    "shl.b32"
                } else {
                    "shr.u32"
                };
                self.line(format!("{g}{op} {d}, {a}, {sh};"));
            }
            5 => {
                let g = self.guard();
                let d = self.dst64();
                let s = match self.next(5) {
                    0 => format!("add.s64 {d}, {}, {};", self.src64(), self.src64()),
                    1 => format!("xor.b64 {d}, {}, {};", self.src64(), self.src64()),
                    2 => format!("cvt.u64.u32 {d}, {};", self.src32()),
                    3 => format!("mul.wide.u32 {d}, {}, {};", self.src32(), self.src32()),
                    _ => {
                        let (d32, s) = (self.dst32(), self.src64());
                        format!("cvt.u32.u64 {d32}, {s};")
                    }
                };
                self.line(format!("{g}{s}"));
            }
            6 => {
                let g = self.guard();
                let p = 1 + self.next(P_DST);
                self.wp.push(p);
                let d = format!("%p{p}");
                let cmp = ["lt", "ge", "eq", "ne"][self.next(4) as usize];
                let (a, b) = (self.src32(), self.src32());
                self.line(format!("{g}setp.{cmp}.u32 {d}, {a}, {b};"));
            }
            7 => {
                let g = self.guard();
                let (d, a, b, p) = (self.dst32(), self.src32(), self.src32(), self.pred());
                self.line(format!("{g}selp.b32 {d}, {a}, {b}, {p};"));
            }
            8 => self.store(),
            9 if self.labels < 12 => self.branch(),
            10 if self.loops < 2 && self.labels < 12 => self.looped(),
            11 => {
                // Reads its source in another lane, which may be inactive here.
                let g = self.guard();
                let mode = ["idx", "bfly", "down", "up"][self.next(4) as usize];
                // Half the time of a register written just before (in this path only, so
                // live only in the lanes that took it).
                let a = if self.next(2) == 0 {
                    let (t, v) = (self.dst32(), self.src32());
                    self.line(format!("add.u32 {t}, {v}, 7;"));
                    t
                } else {
                    self.reg32()
                };
                let d = self.dst32();
                let b = if self.next(2) == 0 {
                    format!("{}", 1 + self.next(31))
                } else {
                    self.src32()
                };
                self.line(format!("{g}shfl.sync.{mode}.b32 {d}, {a}, {b}, 31, -1;"));
                self.line(format!("st.global.u32 [%rd0], {d};"));
                self.line("add.s64 %rd0, %rd0, 8;".into());
                self.records += self.mult;
            }
            _ => {
                let (d, a) = (self.dst32(), self.src32());
                self.line(format!("add.u32 {d}, {a}, 1;"));
            }
        }
    }
    /// Appends a 32- or 64-bit register (guarded one time in three) to the thread's log.
    fn store(&mut self) {
        let g = self.guard();
        let s = if self.next(2) == 0 {
            format!("st.global.u32 [%rd0], {};", self.reg32())
        } else {
            format!("st.global.u64 [%rd0], {};", self.src64())
        };
        self.line(format!("{g}{s}"));
        self.line("add.s64 %rd0, %rd0, 8;".into());
        self.records += self.mult;
    }
    fn block(&mut self, max: u64) {
        let n = 1 + self.next(max);
        for _ in 0..n {
            self.stmt();
        }
    }
    /// `@%p bra ELSE; then; bra END; ELSE: else; END:` (the else part sometimes empty).
    fn branch(&mut self) {
        let l = self.labels;
        self.labels += 1;
        let p = self.pred();
        let neg = if self.next(2) == 0 { "!" } else { "" };
        self.line(format!("@{neg}{p} bra ELSE{l};"));
        self.block(4);
        let has_else = self.next(3) != 0;
        if has_else {
            self.line(format!("bra END{l};"));
        }
        self.text.push_str(&format!("ELSE{l}:\n"));
        if has_else {
            self.block(4);
            self.text.push_str(&format!("END{l}:\n"));
        }
    }
    /// A loop of 1 to 4 trips, lane-dependent: its counter `%c<depth>` and predicate
    /// `%q<depth>` are written by nothing else.
    fn looped(&mut self) {
        let l = self.labels;
        self.labels += 1;
        let d = self.loops;
        let s = self.src32();
        self.line(format!("and.b32 %c{d}, {s}, 3;"));
        self.line(format!("add.u32 %c{d}, %c{d}, 1;"));
        self.text.push_str(&format!("LOOP{l}:\n"));
        self.loops += 1;
        self.mult *= 4;
        self.block(5);
        self.mult /= 4;
        self.loops -= 1;
        self.line(format!("sub.u32 %c{d}, %c{d}, 1;"));
        self.line(format!("setp.ne.u32 %q{d}, %c{d}, 0;"));
        self.line(format!("@%q{d} bra LOOP{l};"));
    }
}

/// The kernel of `tape` and the records each thread may store.
fn kernel(tape: &[u64]) -> (String, u64) {
    let mut g = Gen {
        tape,
        pos: 0,
        text: String::new(),
        labels: 0,
        loops: 0,
        records: 0,
        mult: 1,
        w32: Vec::new(),
        w64: Vec::new(),
        wp: Vec::new(),
    };
    g.block(16);
    for _ in 0..3 {
        g.store();
    }
    let records = g.records;
    let text = format!(
        ".version 7.0\n.target sm_70\n.address_size 64\n\
         .visible .entry k(.param .u64 out)\n{{\n\
         .reg .pred %p<{P_ALL}>;\n.reg .pred %q<2>;\n.reg .b32 %r<{R_ALL}>;\n.reg .b32 %c<2>;\n\
         .reg .b32 %t<2>;\n.reg .b64 %rd<{RD_ALL}>;\n.reg .b64 %td<2>;\n\
         mov.u32 %t0, %ctaid.x;\nmov.u32 %t1, %tid.x;\nmad.lo.u32 %r0, %t0, {BLOCK}, %t1;\n\
         ld.param.u64 %td0, [out];\nmul.wide.u32 %td1, %r0, {};\nadd.s64 %rd0, %td0, %td1;\n\
         {}  ret;\n}}\n",
        records * 8,
        g.text
    );
    (text, records)
}

/// Every thread's log and the (warp, thread) instructions executed.
fn run(text: &str, records: u64, share: bool) -> (Vec<u64>, u64, u64) {
    let mut dev = Device::new();
    dev.set_share_slots(share);
    let m = dev
        .load_ptx(text, "slots.ptx")
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    let code = dev.kernel_code(m, "k").unwrap();
    assert_eq!(code.shared_slots, share);
    let n = (GRID * BLOCK) as u64 * records;
    let out = dev.malloc(8 * n).unwrap();
    let cfg = LaunchConfig {
        grid: Dim3::x(GRID),
        block: Dim3::x(BLOCK),
        shared_bytes: 0,
    };
    dev.launch(m, "k", cfg, &[KernelArg::Ptr(out)])
        .unwrap_or_else(|e| panic!("share {share}: {e}\n{text}"));
    let log: Vec<u64> = dev.read(out, n as usize).unwrap();
    let s = dev.total_stats();
    (log, s.warp_insts, s.thread_insts)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    #[test]
    fn shared_slots_store_what_own_slots_store(tape in prop::collection::vec(any::<u64>(), 40..400)) {
        let (text, records) = kernel(&tape);
        let (own, ow, ot) = run(&text, records, false);
        let (shared, sw, st) = run(&text, records, true);
        for (i, (a, b)) in shared.iter().zip(&own).enumerate() {
            let (t, r) = (i as u64 / records, i as u64 % records);
            prop_assert_eq!(a, b, "thread {} record {}: shared {:#x}, own {:#x}\n{}", t, r, a, b, text);
        }
        prop_assert_eq!((sw, st), (ow, ot), "instruction counts\n{}", text);
    }
}

/// The generator's programs do share slots and store varied values (otherwise the property
/// above proves little): over a fixed set of tapes, the shared decodes use fewer 32-bit slots
/// than the unshared ones, and most threads' logs hold values other than zero.
#[test]
fn generated_kernels_share_slots_and_store_values() {
    let (mut shared, mut own) = (0u32, 0u32);
    let (mut logs, mut nonzero) = (0u64, 0u64);
    for seed in 0..32u64 {
        let (text, records) = kernel(&tape(seed));
        for (share, total) in [(true, &mut shared), (false, &mut own)] {
            let mut dev = Device::new();
            dev.set_share_slots(share);
            let m = dev.load_ptx(&text, "slots.ptx").unwrap();
            *total += dev.kernel_code(m, "k").unwrap().narrow_slots;
        }
        let (log, _, _) = run(&text, records, true);
        for t in log.chunks(records as usize) {
            logs += 1;
            nonzero += t.iter().any(|&v| v != 0) as u64;
        }
    }
    eprintln!("{shared} narrow slots shared, {own} unshared; {nonzero} of {logs} logs not all 0");
    assert!(shared < own, "{shared} narrow slots shared, {own} unshared");
    assert!(
        nonzero * 2 > logs,
        "only {nonzero} of {logs} thread logs hold a value other than 0"
    );
}

/// A fixed tape of 400 numbers.
fn tape(seed: u64) -> Vec<u64> {
    (0..400u64)
        .map(|i| {
            (seed * 1000 + i)
                .wrapping_mul(0x9e37_79b9_7f4a_7c15)
                .rotate_left(29)
        })
        .collect()
}

/// `cargo test --release -p warpforge-simt --test slots -- --ignored sweep`: how many of
/// 4000 fixed tapes give different logs with and without sharing (0 unless the colouring is
/// broken; for checking the generator's power against a deliberately broken rule).
#[test]
#[ignore]
fn sweep() {
    let mut differ = 0;
    for seed in 0..4000u64 {
        let (text, rec) = kernel(&tape(seed));
        if run(&text, rec, true) != run(&text, rec, false) {
            differ += 1;
        }
    }
    println!("{differ} of 4000 tapes differ");
}
