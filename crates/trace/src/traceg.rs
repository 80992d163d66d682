//! Streaming reader of Accel-Sim `.traceg` kernel traces (tracer versions 3 to 5), plain or
//! xz-compressed.
//!
//! Layout: a header of `-key = value` lines, a `#traces format` comment, then one
//! `#BEGIN_TB` … `#END_TB` block per thread block holding `thread block = x,y,z` and, per warp,
//! `warp = n`, `insts = n` and that many instruction lines:
//!
//! `[line_num] PC mask n_dst dst… opcode n_src src… mem_width [mode addresses…] [immediate]`
//!
//! (`line_num` only when the header says `-enable lineinfo = 1`). Address modes: 0 lists one hex
//! address per active lane; 1 is `base stride` (lane k of the active lanes at `base + k·stride`);
//! 2 is `base delta…` with one decimal delta per active lane after the first, each relative to the
//! previous active lane. The reader holds one line at a time; whole thread blocks are parsed only
//! when the timing model starts them ([`crate::TraceSource`]).

use crate::opcodes::{OpcodeTable, Resolved, SpaceRule};
use crate::TraceError;
use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use warpforge_core::{Dim3, DynInst, KernelInfo, MemAccess, MemSpace, OpClass, MAX_DST, MAX_SRC};

/// Threads per block CUDA allows on every architecture (`-block dim` is refused above it).
const MAX_BLOCK_THREADS: u64 = 1024;

/// The most instructions of one warp reserved before they are read (see `insts =`).
const MAX_INSTS_RESERVED: usize = 1 << 16;

/// Register-number offsets: SASS general registers `Rn` keep `n`; the other register files are
/// mapped above them so that every architectural register has its own scoreboard number.
pub mod regs {
    /// `URn` (Turing+ uniform registers) → `UR_BASE + n`.
    pub const UR_BASE: u16 = 0xE000;
    /// `Pn` (predicates; `PT` is P7) → `P_BASE + n`.
    pub const P_BASE: u16 = 0xF000;
    /// `UPn` (uniform predicates) → `UP_BASE + n`.
    pub const UP_BASE: u16 = 0xF800;
}

/// Size of the shared and local windows above the header's base addresses, in bytes, used to
/// resolve generic (`LD`/`ST`/`ATOM`) addresses. Decision: 16 MiB, far above any CTA's shared
/// memory and below the 32 MiB gap the NVBit tracer leaves between the two windows.
pub const WINDOW_BYTES: u64 = 16 << 20;

/// The `-key = value` header of a kernel trace.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct KernelHeader {
    /// `-kernel name`.
    pub name: String,
    /// `-kernel id`.
    pub kernel_id: u32,
    /// `-grid dim`.
    pub grid: Dim3,
    /// `-block dim`.
    pub block: Dim3,
    /// `-shmem`, bytes per CTA.
    pub shmem: u32,
    /// `-nregs`, registers per thread.
    pub nregs: u32,
    /// `-binary version` (compute capability × 10; 0 = warpforge PTX ISA).
    pub binary_version: u32,
    /// `-cuda stream id`.
    pub stream_id: u64,
    /// `-shmem base_addr`.
    pub shmem_base: u64,
    /// `-local mem base_addr`.
    pub local_base: u64,
    /// `-nvbit version` (free text).
    pub nvbit_version: String,
    /// `-accelsim tracer version`.
    pub tracer_version: u32,
    /// `-enable lineinfo`: instruction lines start with a source line number.
    pub lineinfo: bool,
    /// `-wf local bytes` (written by `warpforge trace record`; 0 in NVBit traces).
    pub local_bytes: u32,
}

impl KernelHeader {
    /// The launch description the timing model needs.
    pub fn kernel_info(&self) -> KernelInfo {
        KernelInfo {
            name: self.name.clone(),
            grid: self.grid,
            block: self.block,
            regs_per_thread: self.nregs,
            shared_bytes: self.shmem,
            local_bytes: self.local_bytes,
        }
    }
}

/// One warp's instructions within a parsed thread block.
#[derive(Debug, Default)]
pub struct WarpTrace {
    /// The instructions, in program order; the last has `warp_exits` set.
    pub insts: Vec<DynInst>,
    /// Next instruction to hand out.
    pub pos: usize,
}

/// A parsed thread block.
#[derive(Debug, Default)]
pub struct CtaTrace {
    /// Per-warp streams, indexed by warp within the CTA.
    pub warps: Vec<WarpTrace>,
}

/// Line source with position, over a plain or xz-compressed file.
struct Lines {
    inner: Box<dyn BufRead + Send>,
    path: PathBuf,
    line_no: u64,
    buf: String,
    /// `buf` holds a line that was looked at but not consumed.
    pending: bool,
    eof: bool,
}

impl Lines {
    fn open(path: &Path) -> Result<Self, TraceError> {
        let f = std::fs::File::open(path).map_err(|e| TraceError::io(path, e))?;
        let inner: Box<dyn BufRead + Send> = if path.extension().is_some_and(|e| e == "xz") {
            Box::new(BufReader::with_capacity(
                1 << 16,
                xz2::read::XzDecoder::new_multi_decoder(f),
            ))
        } else {
            Box::new(BufReader::with_capacity(1 << 16, f))
        };
        Ok(Self {
            inner,
            path: path.to_path_buf(),
            line_no: 0,
            buf: String::new(),
            pending: false,
            eof: false,
        })
    }

    /// Moves to the next line; false at end of file.
    fn advance(&mut self) -> Result<bool, TraceError> {
        if self.pending {
            self.pending = false;
            return Ok(true);
        }
        if self.eof {
            return Ok(false);
        }
        self.buf.clear();
        let n = self.inner.read_line(&mut self.buf).map_err(|e| {
            TraceError::parse(&self.path, self.line_no + 1, format!("read error: {e}"))
        })?;
        if n == 0 {
            self.eof = true;
            return Ok(false);
        }
        self.line_no += 1;
        Ok(true)
    }

    fn line(&self) -> &str {
        self.buf.trim()
    }

    fn err(&self, msg: impl Into<String>) -> TraceError {
        TraceError::parse(&self.path, self.line_no, msg)
    }
}

/// Reads one kernel trace: its header at open, then thread blocks one at a time.
pub struct TraceReader {
    lines: Lines,
    header: KernelHeader,
    table: OpcodeTable,
    memo: HashMap<String, Option<Resolved>>,
}

enum LineError {
    Msg(String),
    Unknown(String),
}

fn parse_dim(v: &str) -> Option<Dim3> {
    let v = v.trim().trim_start_matches('(').trim_end_matches(')');
    let mut it = v.split(',').map(|s| s.trim().parse::<u32>());
    let d = Dim3::new(it.next()?.ok()?, it.next()?.ok()?, it.next()?.ok()?);
    if it.next().is_some() {
        return None;
    }
    Some(d)
}

fn parse_hex(s: &str) -> Option<u64> {
    let s = s.trim();
    let s = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s);
    u64::from_str_radix(s, 16).ok()
}

fn parse_reg(s: &str) -> Option<u16> {
    let (base, num) = if let Some(n) = s.strip_prefix("UR") {
        (regs::UR_BASE, n)
    } else if let Some(n) = s.strip_prefix("UP") {
        (regs::UP_BASE, if n == "T" { "7" } else { n })
    } else if let Some(n) = s.strip_prefix('R') {
        (0, if n == "Z" { "255" } else { n })
    } else if let Some(n) = s.strip_prefix('P') {
        (regs::P_BASE, if n == "T" { "7" } else { n })
    } else {
        return None;
    };
    let n: u16 = num.parse().ok()?;
    let limit = if base == 0 { regs::UR_BASE } else { 0x800 };
    (n < limit).then_some(base + n)
}

impl TraceReader {
    /// Opens `path` and reads its header. The opcode table is the built-in one for the header's
    /// `-binary version` unless `table` is given (then `extra` entries are added on top either way).
    pub fn open(
        path: &Path,
        table: Option<&OpcodeTable>,
        extra: Option<&OpcodeTable>,
    ) -> Result<Self, TraceError> {
        let mut lines = Lines::open(path)?;
        let mut h = KernelHeader::default();
        let mut seen = (false, false, false, false);
        while lines.advance()? {
            let l = lines.line();
            if l.is_empty() {
                continue;
            }
            if l.starts_with('#') {
                lines.pending = true;
                break;
            }
            let Some(body) = l.strip_prefix('-') else {
                return Err(lines.err(format!(
                    "expected a `-key = value` header line, found `{l}`"
                )));
            };
            let Some((key, value)) = body.split_once('=') else {
                return Err(lines.err(format!("header line without `=`: `{l}`")));
            };
            let key = key.trim();
            let value = value.trim();
            let bad =
                |what: &str| lines.err(format!("bad {what} `{value}` for header key `-{key}`"));
            let num = |v: &str| v.parse::<u64>().ok();
            match key {
                "kernel name" => {
                    h.name = value.to_string();
                    seen.0 = true;
                }
                "kernel id" => h.kernel_id = num(value).ok_or_else(|| bad("number"))? as u32,
                "grid dim" => {
                    h.grid = parse_dim(value).ok_or_else(|| bad("dimension"))?;
                    seen.1 = true;
                }
                "block dim" => {
                    h.block = parse_dim(value).ok_or_else(|| bad("dimension"))?;
                    seen.2 = true;
                }
                "shmem" => h.shmem = num(value).ok_or_else(|| bad("number"))? as u32,
                "nregs" => h.nregs = num(value).ok_or_else(|| bad("number"))? as u32,
                "binary version" => {
                    h.binary_version = num(value).ok_or_else(|| bad("number"))? as u32
                }
                "cuda stream id" => h.stream_id = num(value).ok_or_else(|| bad("number"))?,
                "shmem base_addr" => {
                    h.shmem_base = parse_hex(value).ok_or_else(|| bad("address"))?
                }
                "local mem base_addr" => {
                    h.local_base = parse_hex(value).ok_or_else(|| bad("address"))?
                }
                "nvbit version" => h.nvbit_version = value.to_string(),
                "accelsim tracer version" => {
                    h.tracer_version = num(value).ok_or_else(|| bad("number"))? as u32;
                    seen.3 = true;
                }
                "enable lineinfo" => h.lineinfo = num(value).ok_or_else(|| bad("number"))? != 0,
                "wf local bytes" => h.local_bytes = num(value).ok_or_else(|| bad("number"))? as u32,
                _ => {} // later tracer versions add keys; Accel-Sim ignores unknown ones too
            }
        }
        let path_buf = lines.path.clone();
        for (ok, key) in [
            (seen.0, "kernel name"),
            (seen.1, "grid dim"),
            (seen.2, "block dim"),
            (seen.3, "accelsim tracer version"),
        ] {
            if !ok {
                return Err(TraceError::invalid(
                    &path_buf,
                    format!("header has no `-{key}` line (is this an Accel-Sim .traceg file?)"),
                ));
            }
        }
        if !(3..=5).contains(&h.tracer_version) {
            return Err(TraceError::invalid(
                &path_buf,
                format!(
                    "Accel-Sim tracer version {} is not supported (versions 3 to 5 are)",
                    h.tracer_version
                ),
            ));
        }
        if h.grid.size() == 0 || h.block.size() == 0 {
            return Err(TraceError::invalid(
                &path_buf,
                "grid or block dimension is zero",
            ));
        }
        if h.block.size() > MAX_BLOCK_THREADS {
            return Err(TraceError::invalid(
                &path_buf,
                format!(
                    "`-block dim = {}` has {} threads; CUDA allows at most {MAX_BLOCK_THREADS}",
                    h.block,
                    h.block.size()
                ),
            ));
        }
        let mut table = match table {
            Some(t) => t.clone(),
            None => OpcodeTable::for_binary_version(h.binary_version).ok_or_else(|| {
                TraceError::invalid(
                    &path_buf,
                    format!(
                        "no built-in opcode table for `-binary version = {}`; pass one with --opcodes",
                        h.binary_version
                    ),
                )
            })?,
        };
        if let Some(e) = extra {
            table.extend(e);
        }
        Ok(Self {
            lines,
            header: h,
            table,
            memo: HashMap::new(),
        })
    }

    /// The kernel header.
    pub fn header(&self) -> &KernelHeader {
        &self.header
    }

    /// The opcode table in use.
    pub fn table(&self) -> &OpcodeTable {
        &self.table
    }

    /// The file being read.
    pub fn path(&self) -> &Path {
        &self.lines.path
    }

    /// Reads the next thread block into `cta` (its warp vectors are reused); returns its linear
    /// CTA id, or `None` at the end of the file.
    pub fn read_tb(&mut self, cta: &mut CtaTrace) -> Result<Option<u32>, TraceError> {
        // Find #BEGIN_TB.
        loop {
            if !self.lines.advance()? {
                return Ok(None);
            }
            let l = self.lines.line();
            if l.is_empty()
                || (l.starts_with('#') && !l.starts_with("#BEGIN_TB") && !l.starts_with("#END_TB"))
            {
                continue;
            }
            if l == "#BEGIN_TB" {
                break;
            }
            return Err(self.lines.err(format!("expected `#BEGIN_TB`, found `{l}`")));
        }
        let begin_line = self.lines.line_no;
        let n_warps = self.header.block.size().div_ceil(32) as usize;
        cta.warps.resize_with(n_warps, WarpTrace::default);
        for w in &mut cta.warps {
            w.insts.clear();
            w.pos = 0;
        }
        let mut declared: Vec<Option<(usize, u64)>> = vec![None; n_warps];
        let mut tb: Option<Dim3> = None;
        let mut warp: Option<usize> = None;
        loop {
            if !self.lines.advance()? {
                return Err(TraceError::parse(
                    &self.lines.path,
                    self.lines.line_no,
                    format!(
                        "truncated trace: the thread block begun at line {begin_line} has no `#END_TB` before the end of the file"
                    ),
                ));
            }
            let l = self.lines.line();
            if l.is_empty() {
                continue;
            }
            if l == "#END_TB" {
                break;
            }
            if l == "#BEGIN_TB" {
                return Err(self.lines.err(format!(
                    "`#BEGIN_TB` inside the thread block begun at line {begin_line} (missing `#END_TB`)"
                )));
            }
            if let Some(v) = l.strip_prefix("thread block") {
                let v = v.trim_start().trim_start_matches('=');
                let d = parse_dim(v)
                    .ok_or_else(|| self.lines.err(format!("bad thread block `{l}`")))?;
                let g = self.header.grid;
                if d.x >= g.x || d.y >= g.y || d.z >= g.z {
                    return Err(self
                        .lines
                        .err(format!("thread block {d} is outside the grid {g}")));
                }
                tb = Some(d);
                continue;
            }
            if l.starts_with("cluster") {
                continue;
            }
            if let Some(v) = l.strip_prefix("warp") {
                let v = v.trim_start().trim_start_matches('=').trim();
                let w: usize = v
                    .parse()
                    .map_err(|_| self.lines.err(format!("bad warp line `{l}`")))?;
                if w >= n_warps {
                    return Err(self.lines.err(format!(
                        "warp {w} does not exist: the block {} has {n_warps} warps",
                        self.header.block
                    )));
                }
                if declared[w].is_some() {
                    return Err(self
                        .lines
                        .err(format!("warp {w} appears twice in one thread block")));
                }
                warp = Some(w);
                continue;
            }
            if let Some(v) = l.strip_prefix("insts") {
                let v = v.trim_start().trim_start_matches('=').trim();
                let n: usize = v
                    .parse()
                    .map_err(|_| self.lines.err(format!("bad insts line `{l}`")))?;
                let Some(w) = warp else {
                    return Err(self.lines.err("`insts =` before any `warp =` line"));
                };
                declared[w] = Some((n, self.lines.line_no));
                // The count comes from the file: reserve at most a bounded amount up front (the
                // vector grows past it as lines arrive; a false count is an error later).
                cta.warps[w].insts.reserve(n.min(MAX_INSTS_RESERVED));
                continue;
            }
            let Some(w) = warp.filter(|w| declared[*w].is_some()) else {
                return Err(self.lines.err(format!(
                    "instruction line before `warp =` / `insts =`: `{l}`"
                )));
            };
            if tb.is_none() {
                return Err(self.lines.err("instruction line before `thread block =`"));
            }
            let mut inst = DynInst::default();
            match self.parse_inst(&mut inst) {
                Ok(()) => {}
                Err(LineError::Msg(m)) => return Err(self.lines.err(m)),
                Err(LineError::Unknown(op)) => {
                    let base = op.split('.').next().unwrap_or(&op).to_string();
                    return Err(TraceError::UnknownOpcode(Box::new(
                        crate::error::UnknownOpcode {
                            path: self.lines.path.clone(),
                            line: self.lines.line_no,
                            opcode: op,
                            base,
                            arch: self.table.arch().to_string(),
                            table: self.table.source().to_string(),
                        },
                    )));
                }
            }
            cta.warps[w].insts.push(inst);
        }
        let Some(d) = tb else {
            return Err(self.lines.err(format!(
                "the thread block begun at line {begin_line} has no `thread block =` line"
            )));
        };
        for (w, decl) in declared.iter().enumerate() {
            let have = cta.warps[w].insts.len();
            match decl {
                Some((n, line)) if *n != have => {
                    return Err(TraceError::parse(
                        &self.lines.path,
                        *line,
                        format!("warp {w} of thread block {d} declares insts = {n} but has {have} instruction lines"),
                    ))
                }
                _ => {}
            }
            if let Some(last) = cta.warps[w].insts.last_mut() {
                last.warp_exits = true;
            }
        }
        let g = self.header.grid;
        Ok(Some(d.x + g.x * (d.y + g.y * d.z)))
    }

    fn parse_inst(&mut self, out: &mut DynInst) -> Result<(), LineError> {
        let line = self.lines.buf.trim();
        let mut t = line.split_ascii_whitespace();
        let mut next = |what: &str| {
            t.next().ok_or_else(|| {
                LineError::Msg(format!("instruction line ends before its {what}: `{line}`"))
            })
        };
        if self.header.tracer_version < 3 {
            for _ in 0..4 {
                next("thread block and warp ids")?;
            }
        }
        if self.header.lineinfo {
            let s = next("line number")?;
            s.parse::<u64>()
                .map_err(|_| LineError::Msg(format!("bad line number `{s}`")))?;
        }
        let s = next("PC")?;
        out.pc = parse_hex(s).ok_or_else(|| LineError::Msg(format!("bad PC `{s}`")))?;
        out.static_idx = (out.pc / 8) as u32;
        let s = next("active mask")?;
        out.active_mask = u32::from_str_radix(s, 16).map_err(|_| {
            LineError::Msg(format!("bad active mask `{s}` (8 hex digits expected)"))
        })?;
        let s = next("destination count")?;
        let nd: usize = s
            .parse()
            .map_err(|_| LineError::Msg(format!("bad destination count `{s}`")))?;
        out.n_dst = 0;
        for _ in 0..nd {
            let r = next("destination registers")?;
            let r = parse_reg(r)
                .ok_or_else(|| LineError::Msg(format!("bad destination register `{r}`")))?;
            if (out.n_dst as usize) < MAX_DST {
                out.dst[out.n_dst as usize] = r;
                out.n_dst += 1;
            }
        }
        let opcode = next("opcode")?;
        let s = next("source count")?;
        let ns: usize = s
            .parse()
            .map_err(|_| LineError::Msg(format!("bad source count `{s}`")))?;
        out.n_src = 0;
        for _ in 0..ns {
            let r = next("source registers")?;
            let r =
                parse_reg(r).ok_or_else(|| LineError::Msg(format!("bad source register `{r}`")))?;
            if (out.n_src as usize) < MAX_SRC {
                out.src[out.n_src as usize] = r;
                out.n_src += 1;
            }
        }
        if opcode.contains("GMMA") {
            // Hopper warpgroup MMA lines carry a commit-group flag before the memory width.
            let s = next("GMMA commit-group flag")?;
            s.parse::<u32>()
                .map_err(|_| LineError::Msg(format!("bad GMMA commit-group flag `{s}`")))?;
        }
        let s = next("memory width")?;
        let mem_width: u32 = s
            .parse()
            .map_err(|_| LineError::Msg(format!("bad memory width `{s}`")))?;
        let resolved = match self.memo.get(opcode) {
            Some(r) => *r,
            None => {
                let r = self.table.resolve(opcode);
                self.memo.insert(opcode.to_string(), r);
                r
            }
        };
        let Some(res) = resolved else {
            return Err(LineError::Unknown(opcode.to_string()));
        };
        out.class = res.entry.class;
        out.barrier_id = res.barrier_id;
        out.barrier_threads = res.barrier_threads;
        out.mem = None;
        if mem_width > 0 {
            let s = next("address mode")?;
            let mode: u32 = s
                .parse()
                .map_err(|_| LineError::Msg(format!("bad address mode `{s}`")))?;
            let mut addrs = [0u64; 32];
            let mask = out.active_mask;
            let n_active = mask.count_ones() as usize;
            match mode {
                0 => {
                    for (lane, a) in addrs.iter_mut().enumerate() {
                        if mask >> lane & 1 == 1 {
                            let s = next("addresses")?;
                            *a = parse_hex(s)
                                .ok_or_else(|| LineError::Msg(format!("bad address `{s}`")))?;
                        }
                    }
                }
                1 => {
                    let s = next("base address")?;
                    let base = parse_hex(s)
                        .ok_or_else(|| LineError::Msg(format!("bad base address `{s}`")))?;
                    let s = next("stride")?;
                    let stride: i64 = s
                        .parse()
                        .map_err(|_| LineError::Msg(format!("bad stride `{s}`")))?;
                    let mut k = 0i64;
                    for (lane, a) in addrs.iter_mut().enumerate() {
                        if mask >> lane & 1 == 1 {
                            *a = base.wrapping_add_signed(k.wrapping_mul(stride));
                            k += 1;
                        }
                    }
                }
                2 => {
                    let s = next("base address")?;
                    let mut cur = parse_hex(s)
                        .ok_or_else(|| LineError::Msg(format!("bad base address `{s}`")))?;
                    let mut first = true;
                    for (lane, a) in addrs.iter_mut().enumerate() {
                        if mask >> lane & 1 == 1 {
                            if !first {
                                let s = next("address deltas")?;
                                let d: i64 = s.parse().map_err(|_| {
                                    LineError::Msg(format!("bad address delta `{s}`"))
                                })?;
                                cur = cur.wrapping_add_signed(d);
                            }
                            first = false;
                            *a = cur;
                        }
                    }
                }
                m => {
                    return Err(LineError::Msg(format!(
                        "unknown address mode {m} (0, 1 and 2 exist)"
                    )))
                }
            }
            let _ = n_active;
            if res.entry.class.is_memory() {
                let space = match (res.space_modifier, res.entry.space) {
                    (Some(s), _) => s,
                    (None, Some(SpaceRule::Fixed(s))) => s,
                    (None, _) => self.generic_space(&addrs, mask),
                };
                let width = res.width.unwrap_or(mem_width.min(16) as u8);
                let mut m = MemAccess {
                    space,
                    bytes_per_lane: width,
                    is_store: matches!(out.class, OpClass::Store | OpClass::Atomic),
                    is_atomic: out.class == OpClass::Atomic,
                    addrs,
                };
                if out.class == OpClass::Atomic && opcode.split('.').any(|m| m == "RO") {
                    m.is_store = false;
                }
                out.mem = Some(m);
            }
        } else if res.entry.class.is_memory() {
            // No addresses traced (constant loads, or a tracer that dropped them): the instruction
            // still occupies an issue slot but makes no memory request.
            out.class = OpClass::IntAlu;
        }
        // Optional immediate(s): integers only.
        for (i, s) in t.by_ref().enumerate() {
            let ok = s.parse::<i64>().is_ok() || parse_hex(s).is_some();
            if !ok || i >= 2 {
                return Err(LineError::Msg(format!("unexpected trailing token `{s}`")));
            }
        }
        Ok(())
    }

    fn generic_space(&self, addrs: &[u64; 32], mask: u32) -> MemSpace {
        let lane = mask.trailing_zeros() as usize;
        let a = if lane < 32 { addrs[lane] } else { 0 };
        let h = &self.header;
        if h.shmem_base != 0 && a >= h.shmem_base && a - h.shmem_base < WINDOW_BYTES {
            MemSpace::Shared
        } else if h.local_base != 0 && a >= h.local_base && a - h.local_base < WINDOW_BYTES {
            MemSpace::Local
        } else {
            MemSpace::Global
        }
    }
}

/// Counts of a whole kernel trace, streamed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TraceCounts {
    /// Thread blocks.
    pub ctas: u64,
    /// Warp instructions.
    pub warp_insts: u64,
    /// Thread instructions (sum of active lanes).
    pub thread_insts: u64,
    /// Memory instructions with addresses.
    pub mem_insts: u64,
}

/// Streams through a kernel trace, checking every line, and counts it.
pub fn count(path: &Path, extra: Option<&OpcodeTable>) -> Result<TraceCounts, TraceError> {
    let mut r = TraceReader::open(path, None, extra)?;
    let mut cta = CtaTrace::default();
    let mut c = TraceCounts::default();
    while r.read_tb(&mut cta)?.is_some() {
        c.ctas += 1;
        for w in &cta.warps {
            for i in &w.insts {
                c.warp_insts += 1;
                c.thread_insts += u64::from(i.active_lanes());
                c.mem_insts += u64::from(i.mem.is_some());
            }
        }
    }
    Ok(c)
}
