//! Dynamic warp instructions: what the timing model needs to know about one issued instruction.

use serde::{Deserialize, Serialize};

/// Threads per warp. Fixed at 32, as on every NVIDIA GPU the documents model.
pub const WARP_SIZE: usize = 32;
/// Maximum destination registers of one instruction (vector loads write up to 4).
pub const MAX_DST: usize = 4;
/// Maximum source registers of one instruction (vector stores read address + 4 values).
pub const MAX_SRC: usize = 6;

/// Functional-unit / latency class of an instruction, the granularity at which the timing model
/// assigns a pipeline and a latency (GPGPU-Sim's `op_type` plus the ALU latency classes of its
/// `-ptx_opcode_latency_int/fp/dp` options).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub enum OpClass {
    /// Integer add/sub/logic/shift/compare/move (SP unit, "ADD" latency).
    #[default]
    IntAlu,
    /// Integer multiply and multiply-add (SP unit, "MUL"/"MAD" latency).
    IntMul,
    /// Integer divide and remainder (SP unit, "DIV" latency, long).
    IntDiv,
    /// Single-precision add/mul/fma/min/max/compare (SP unit).
    FpAlu,
    /// Single-precision divide (SP unit, "DIV" latency of the fp class).
    FpDiv,
    /// Double-precision arithmetic (DP path; on Fermi shares the SP unit at a lower rate).
    Dp,
    /// Transcendental and special functions: sin, cos, ex2, lg2, rcp, rsqrt, sqrt (SFU).
    Sfu,
    /// Conversions (`cvt`) and bit manipulation that GPGPU-Sim runs on the SFU class.
    Conv,
    /// Memory load (space in [`MemAccess`]).
    Load,
    /// Memory store.
    Store,
    /// Atomic read-modify-write or reduction.
    Atomic,
    /// Texture fetch.
    Tex,
    /// Branch, call or return: resolves the SIMT stack.
    Branch,
    /// `bar.sync` / `bar.arrive` / `bar.red`.
    Barrier,
    /// `membar` / `fence`.
    Fence,
    /// Warp-level collective (`shfl`, `vote`, `activemask`, `match`).
    WarpCollective,
    /// Thread exit (`exit`, or `ret` from the entry function).
    Exit,
    /// No operation / scheduling hint.
    Nop,
}

impl OpClass {
    /// Whether the instruction goes to the LD/ST unit.
    pub const fn is_memory(self) -> bool {
        matches!(
            self,
            OpClass::Load | OpClass::Store | OpClass::Atomic | OpClass::Tex
        )
    }
}

/// Memory space of an access, after generic addresses have been resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub enum MemSpace {
    /// Device global memory (through L1D and L2).
    #[default]
    Global,
    /// Per-thread local memory (spills, local arrays; cached like global).
    Local,
    /// Per-CTA shared memory (banked scratchpad).
    Shared,
    /// Constant memory (through the constant cache).
    Const,
    /// Kernel parameter space.
    Param,
    /// Texture memory (through the texture cache).
    Tex,
}

/// The memory part of a dynamic instruction: one address per active lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemAccess {
    /// Space the access goes to.
    pub space: MemSpace,
    /// Bytes accessed per lane (1 to 16; vector accesses count all their elements).
    pub bytes_per_lane: u8,
    /// Whether this access writes memory (stores; atomics are both and set `is_atomic`).
    pub is_store: bool,
    /// Whether this is an atomic read-modify-write (or a `red` reduction).
    pub is_atomic: bool,
    /// Byte address for each lane; only lanes set in the instruction's active mask are meaningful.
    pub addrs: [u64; WARP_SIZE],
}

impl Default for MemAccess {
    fn default() -> Self {
        Self {
            space: MemSpace::Global,
            bytes_per_lane: 4,
            is_store: false,
            is_atomic: false,
            addrs: [0; WARP_SIZE],
        }
    }
}

/// One dynamic warp instruction, as issued: the contract between every front end and the timing
/// model. Register numbers are small per-warp architectural indices (PTX virtual registers are
/// numbered by the executor; SASS registers by the trace); `u16::MAX` never appears.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DynInst {
    /// Program counter (byte address of the instruction in its kernel's code).
    pub pc: u64,
    /// Lanes that execute this instruction (bit i = lane i).
    pub active_mask: u32,
    /// Pipeline / latency class.
    pub class: OpClass,
    /// Number of valid entries in `dst`.
    pub n_dst: u8,
    /// Destination registers.
    pub dst: [u16; MAX_DST],
    /// Number of valid entries in `src`.
    pub n_src: u8,
    /// Source registers.
    pub src: [u16; MAX_SRC],
    /// Memory access, for loads, stores, atomics and texture fetches.
    pub mem: Option<MemAccess>,
    /// Barrier id for `bar.*` instructions.
    pub barrier_id: u8,
    /// Number of threads the barrier waits for (0 = all threads of the CTA).
    pub barrier_threads: u32,
    /// Static instruction index within its kernel (for per-PC statistics and PC-indexed policies).
    pub static_idx: u32,
    /// The warp exits after this instruction (every thread of it has finished).
    pub warp_exits: bool,
    /// Static redundancy markings of the instruction ([`hint`] bits): DARSIE's 2-bit PTX
    /// class and the baselines' eliminability, set by front ends that run the compiler pass
    /// (document 003 §5.2: "markings are only hints"); 0 when unknown. Timing policies that do
    /// not eliminate redundancy ignore them.
    pub hints: u8,
}

/// Bits of [`DynInst::hints`] (document 003 §5.2 and §5.6). Each bit implies the instruction
/// writes a register and has no other effect (it may be skipped or eliminated).
pub mod hint {
    /// DARSIE: definitely redundant across the warps of a TB (`R`).
    pub const DARSIE_R: u8 = 1 << 0;
    /// DARSIE: conditionally redundant (`CR`, derived from `%tid.x`): redundant when the
    /// launch's TB shape qualifies (2D, `blockDim.x` a power of two <= warp size).
    pub const DARSIE_CR: u8 = 1 << 1;
    /// UV: only uniform scalar sources, not a memory operation.
    pub const UV: u8 = 1 << 2;
    /// DAC-IDEAL: uniform or affine result when warps hold whole rows of `%tid.x` (1D TBs, or
    /// `blockDim.x` a multiple of the warp size).
    pub const DAC_WIDE: u8 = 1 << 3;
    /// DAC-IDEAL: uniform or affine result for other TB shapes (`%tid` not affine per warp).
    pub const DAC_NARROW: u8 = 1 << 4;
}

impl DynInst {
    /// Destination registers as a slice.
    pub fn dsts(&self) -> &[u16] {
        &self.dst[..self.n_dst as usize]
    }

    /// Source registers as a slice.
    pub fn srcs(&self) -> &[u16] {
        &self.src[..self.n_src as usize]
    }

    /// Number of active lanes.
    pub fn active_lanes(&self) -> u32 {
        self.active_mask.count_ones()
    }
}
