//! [`TraceRecorder`]: an [`InstObserver`] that writes an execution-driven run as an Accel-Sim
//! trace directory (`kernelslist.g` + `kernel-N.traceg`, tracer format version 4).
//!
//! Opcodes are written in the "warpforge PTX" pseudo-ISA (`crates/trace/opcodes/warpforge-ptx.toml`,
//! header `-binary version = 0`): one mnemonic per `OpClass`, with the memory space, bytes per lane
//! (`.W<n>`), barrier id (`.B<n>`) and thread count (`.T<n>`) as modifiers, so that reading the
//! trace back yields the same `DynInst` stream (class, registers, mask, per-lane addresses of the
//! active lanes, barrier operands, exit flags). Register numbers are written as `R<n>` (the
//! executor's virtual register numbers). Addresses use mode 1 (base + stride) when the active lanes
//! are contiguous and equally spaced, else mode 2 (base + deltas).
//!
//! Memory: instructions of one launch are held as text until the launch ends (the observer is not
//! told when a CTA finishes), then written in CTA order, as the format requires.

use crate::opcodes::space_word;
use crate::traceg::regs;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use warpforge_core::{DynInst, InstObserver, KernelInfo, OpClass};

#[derive(Default)]
struct WarpText {
    text: String,
    n: u64,
}

/// Writes every launch it observes as an Accel-Sim kernel trace in `dir`.
pub struct TraceRecorder {
    dir: PathBuf,
    kernels: Vec<String>,
    current: Option<(KernelInfo, BTreeMap<u32, Vec<WarpText>>)>,
    error: Option<String>,
    warp_insts: u64,
}

fn reg_name(r: u16, out: &mut String) {
    let _ = if r >= regs::UP_BASE {
        write!(out, " UP{}", r - regs::UP_BASE)
    } else if r >= regs::P_BASE {
        write!(out, " P{}", r - regs::P_BASE)
    } else if r >= regs::UR_BASE {
        write!(out, " UR{}", r - regs::UR_BASE)
    } else {
        write!(out, " R{r}")
    };
}

/// Formats one instruction as a trace line (without newline) in the warpforge PTX ISA.
pub fn format_inst(i: &DynInst, out: &mut String) {
    let _ = write!(out, "{:04x} {:08x} {}", i.pc, i.active_mask, i.n_dst);
    for &r in i.dsts() {
        reg_name(r, out);
    }
    out.push(' ');
    let mem = i.mem.filter(|_| i.class.is_memory());
    let mn = match i.class {
        OpClass::IntAlu => "IALU",
        OpClass::IntMul => "IMUL",
        OpClass::IntDiv => "IDIV",
        OpClass::FpAlu => "FALU",
        OpClass::FpDiv => "FDIV",
        OpClass::Dp => "DALU",
        OpClass::Sfu => "SFU",
        OpClass::Conv => "CVT",
        OpClass::Load => "LD",
        OpClass::Store => "ST",
        OpClass::Atomic => "ATOM",
        OpClass::Tex => "TEX",
        OpClass::Branch => "BRA",
        OpClass::Barrier => "BAR",
        OpClass::Fence => "MEMBAR",
        OpClass::WarpCollective => "WCOLL",
        OpClass::Exit => "EXIT",
        OpClass::Nop => "NOP",
    };
    out.push_str(mn);
    if let Some(m) = &mem {
        let _ = write!(out, ".{}.W{}", space_word(m.space), m.bytes_per_lane);
        if i.class == OpClass::Atomic && !m.is_store {
            out.push_str(".RO");
        }
    }
    if i.class == OpClass::Barrier {
        let _ = write!(out, ".B{}.T{}", i.barrier_id, i.barrier_threads);
    }
    let _ = write!(out, " {}", i.n_src);
    for &r in i.srcs() {
        reg_name(r, out);
    }
    match &mem {
        None => out.push_str(" 0"),
        Some(m) => {
            let _ = write!(out, " {}", m.bytes_per_lane.max(1));
            let lanes: Vec<usize> = (0..32).filter(|l| i.active_mask >> l & 1 == 1).collect();
            let addrs: Vec<u64> = lanes.iter().map(|&l| m.addrs[l]).collect();
            let contiguous = lanes.windows(2).all(|w| w[1] == w[0] + 1);
            let stride = if addrs.len() >= 2 {
                Some(addrs[1].wrapping_sub(addrs[0]) as i64)
            } else {
                Some(0)
            };
            let uniform = stride.is_some_and(|s| {
                addrs
                    .windows(2)
                    .all(|w| w[1].wrapping_sub(w[0]) as i64 == s)
            });
            if addrs.is_empty() {
                out.push_str(" 0");
            } else if contiguous && uniform {
                let _ = write!(out, " 1 0x{:x} {}", addrs[0], stride.unwrap_or(0));
            } else {
                let _ = write!(out, " 2 0x{:x}", addrs[0]);
                for w in addrs.windows(2) {
                    let _ = write!(out, " {}", w[1].wrapping_sub(w[0]) as i64);
                }
            }
        }
    }
}

impl TraceRecorder {
    /// A recorder writing into `dir` (created if needed).
    pub fn new(dir: &Path) -> std::io::Result<Self> {
        std::fs::create_dir_all(dir)?;
        Ok(Self {
            dir: dir.to_path_buf(),
            kernels: Vec::new(),
            current: None,
            error: None,
            warp_insts: 0,
        })
    }

    /// Kernel trace files written so far.
    pub fn kernels(&self) -> &[String] {
        &self.kernels
    }

    /// Warp instructions recorded so far.
    pub fn warp_insts(&self) -> u64 {
        self.warp_insts
    }

    /// The first write error, if any (observer callbacks cannot return errors).
    pub fn finish(&self) -> Result<PathBuf, String> {
        match &self.error {
            Some(e) => Err(e.clone()),
            None => Ok(self.dir.join("kernelslist.g")),
        }
    }

    fn write_kernel(
        &mut self,
        info: &KernelInfo,
        ctas: BTreeMap<u32, Vec<WarpText>>,
    ) -> std::io::Result<()> {
        let id = self.kernels.len() + 1;
        let name = format!("kernel-{id}.traceg");
        let mut f = warpforge_core::output::AtomicFile::create(self.dir.join(&name))?;
        use std::io::Write;
        writeln!(f, "-kernel name = {}", info.name)?;
        writeln!(f, "-kernel id = {id}")?;
        let (g, b) = (info.grid, info.block);
        writeln!(f, "-grid dim = ({},{},{})", g.x, g.y, g.z)?;
        writeln!(f, "-block dim = ({},{},{})", b.x, b.y, b.z)?;
        writeln!(f, "-shmem = {}", info.shared_bytes)?;
        writeln!(f, "-nregs = {}", info.regs_per_thread)?;
        writeln!(f, "-binary version = 0")?;
        writeln!(f, "-cuda stream id = 0")?;
        writeln!(f, "-shmem base_addr = 0x0")?;
        writeln!(f, "-local mem base_addr = 0x0")?;
        writeln!(
            f,
            "-nvbit version = warpforge-{}",
            env!("CARGO_PKG_VERSION")
        )?;
        writeln!(f, "-accelsim tracer version = 4")?;
        writeln!(f, "-enable lineinfo = 0")?;
        writeln!(f, "-wf local bytes = {}", info.local_bytes)?;
        writeln!(f)?;
        writeln!(f, "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses]")?;
        writeln!(f)?;
        let n_warps = info.warps_per_cta() as usize;
        for (cta, warps) in ctas {
            let d = g.unlinear(u64::from(cta));
            writeln!(f, "#BEGIN_TB\n\nthread block = {},{},{}\n", d.x, d.y, d.z)?;
            for w in 0..n_warps {
                let (text, n) = warps
                    .get(w)
                    .map(|t| (t.text.as_str(), t.n))
                    .unwrap_or(("", 0));
                writeln!(f, "warp = {w}\ninsts = {n}")?;
                f.write_all(text.as_bytes())?;
                writeln!(f)?;
            }
            writeln!(f, "#END_TB\n")?;
        }
        f.commit()?;
        self.kernels.push(name);
        let mut list = String::new();
        for k in &self.kernels {
            list.push_str(k);
            list.push('\n');
        }
        warpforge_core::output::write_atomic(self.dir.join("kernelslist.g"), list)
    }
}

impl InstObserver for TraceRecorder {
    fn on_launch(&mut self, kernel: &KernelInfo) {
        self.current = Some((kernel.clone(), BTreeMap::new()));
    }

    fn on_inst(&mut self, cta: u32, warp: u32, inst: &DynInst) {
        let Some((info, ctas)) = self.current.as_mut() else {
            return;
        };
        let n = info.warps_per_cta() as usize;
        let warps = ctas
            .entry(cta)
            .or_insert_with(|| (0..n).map(|_| WarpText::default()).collect());
        if warp as usize >= warps.len() {
            warps.resize_with(warp as usize + 1, WarpText::default);
        }
        let w = &mut warps[warp as usize];
        format_inst(inst, &mut w.text);
        w.text.push('\n');
        w.n += 1;
        self.warp_insts += 1;
    }

    fn on_launch_end(&mut self, _kernel: &KernelInfo) {
        if let Some((info, ctas)) = self.current.take() {
            if let Err(e) = self.write_kernel(&info, ctas) {
                self.error.get_or_insert(format!(
                    "writing the trace of `{}` in {}: {e}",
                    info.name,
                    self.dir.display()
                ));
            }
        }
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}
