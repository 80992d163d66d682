//! TB-redundancy elimination policies (document 003 Ch. 7): DARSIE and its baselines UV and
//! DAC-IDEAL, as plug-ins of the SM's fetch and issue stages.
//!
//! The functional executor runs every instruction of every warp (results stay exact whatever
//! the policy); a policy only decides what the *timing* pipeline does with each fetched
//! instruction: keep it, skip it at fetch (no I-cache probe, no I-buffer slot, no issue, no
//! operand read, no unit: DARSIE followers and DAC-IDEAL), hold it in fetch until a condition
//! holds (DARSIE's LeaderWB wait and branch barriers), or, at issue, eliminate it (UV's reuse
//! buffer: fetched, decoded and issued, but no operand read or unit, result the next cycle).
//! The static markings come with each instruction ([`warpforge_core::hint`], set by the PTX
//! front end's compiler pass).
//!
//! Adding a policy: one file implementing [`Eliminator`] and one row in [`ELIMINATORS`];
//! `core.elim.policy = "name"` selects it.

mod dac_ideal;
mod darsie;
mod uv;

use crate::config::ElimConfig;
use warpforge_core::{DynInst, KernelInfo};

/// What fetch does with an instruction a warp just fetched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fetch {
    /// Normal path: I-cache, I-buffer, issue.
    Keep,
    /// Skipped at fetch: the warp's PC moves on (document 003 §5.1: PC + 8 before the I-cache).
    Skip,
    /// The warp waits in fetch with this instruction; fetch asks again every cycle.
    Hold,
}

/// Who presents an instruction to a policy.
#[derive(Debug, Clone, Copy)]
pub struct At {
    /// Core cycle.
    pub now: u64,
    /// CTA slot on the SM.
    pub cta_slot: usize,
    /// Warp index within its CTA.
    pub warp: u32,
    /// The same instruction was held before (a retry, not a new arrival).
    pub retry: bool,
}

/// A redundancy-elimination policy of one SM.
pub trait Eliminator: Send {
    /// A kernel begins on this SM.
    fn start_kernel(&mut self, _k: &KernelInfo) {}
    /// A CTA with `warps` warps was placed in `cta_slot`.
    fn cta_started(&mut self, _cta_slot: usize, _warps: u32) {}
    /// Decides the fate of a fetched instruction.
    fn fetched(&mut self, _at: &At, _inst: &DynInst) -> Fetch {
        Fetch::Keep
    }
    /// At issue: whether the instruction is eliminated (issued, but no operand read, no unit).
    fn at_issue(&mut self, _cta_slot: usize, _warp: u32, _inst: &DynInst) -> bool {
        false
    }
    /// Warp `warp` of `cta_slot` wrote `regs` back.
    fn written(&mut self, _cta_slot: usize, _warp: u32, _regs: &[u16]) {}
    /// Warp `warp` of `cta_slot` fetched its last instruction.
    fn warp_done(&mut self, _cta_slot: usize, _warp: u32) {}
    /// The CTA's `bar.sync` released.
    fn barrier_released(&mut self, _cta_slot: usize) {}
    /// Where warp `warp` of `cta_slot` reads register `reg` from, when the policy renamed it:
    /// the index of a physical register of the SM's rename area, whose register-file bank is
    /// the index modulo the bank count (the area is laid out strided across banks). `None`: the
    /// warp's own register (the baseline bank mapping).
    fn renamed(&self, _cta_slot: usize, _warp: u32, _reg: u16) -> Option<u32> {
        None
    }
    /// Policy counters so far.
    fn stats(&self) -> ElimCounters {
        ElimCounters::default()
    }
}

/// Policy-side counters (summed into the SM's [`crate::stats::CoreStats`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ElimCounters {
    /// Skip-table (or reuse-group) leaders created.
    pub leaders: u64,
    /// Branch barriers completed (DARSIE's majority-path election).
    pub branch_syncs: u64,
    /// Warps removed from the majority path.
    pub majority_exits: u64,
    /// Redundant instances executed normally because the skip table was full.
    pub table_full: u64,
    /// Load entries invalidated by stores or global atomics.
    pub load_invalidations: u64,
    /// Holds released by the safety timeout (expected 0).
    pub timeouts: u64,
    /// Warp-cycles a follower waited in fetch for its leader's write-back (LeaderWB, §5.4).
    pub hold_leader_wb: u64,
    /// Of those, warp-cycles in which the leader had not issued the instance yet (it was in the
    /// leader's I-buffer, behind its earlier instructions or the issue scheduler); the rest
    /// is the leader's execution latency.
    pub hold_leader_unissued: u64,
    /// Warp-cycles a warp waited in fetch at a branch barrier (majority-path election, §5.3).
    pub hold_branch: u64,
    /// Followers' first presentations of an instance that had an entry already.
    pub follower_arrivals: u64,
    /// Sum over those of core cycles since the entry was made (the leader's fetch).
    pub arrival_gap: u64,
    /// Skips that waited at least one cycle for LeaderWB.
    pub skips_waited: u64,
}

/// Constructor of a policy from its configuration.
pub type ElimCtor = fn(&ElimConfig) -> Box<dyn Eliminator>;

/// No elimination (the baseline).
struct NoElim;
impl Eliminator for NoElim {}

fn none(_: &ElimConfig) -> Box<dyn Eliminator> {
    Box::new(NoElim)
}

/// The registry: (name, description, constructor).
pub const ELIMINATORS: &[(&str, &str, ElimCtor)] = &[
    ("none", "no redundancy elimination", none),
    (
        "darsie",
        "DARSIE: TB-redundant instructions skipped at fetch by follower warps (skip table, majority path, renaming)",
        darsie::new,
    ),
    (
        "uv",
        "UV (Uniform Vector): uniform-source non-memory instructions reuse a result at issue",
        uv::new,
    ),
    (
        "dac_ideal",
        "DAC-IDEAL: uniform and affine instructions executed once per TB, free synchronisation",
        dac_ideal::new,
    ),
];

/// The constructor registered under `name`.
pub fn find(name: &str) -> Option<ElimCtor> {
    ELIMINATORS.iter().find(|s| s.0 == name).map(|s| s.2)
}

/// Registered names.
pub fn names() -> Vec<&'static str> {
    ELIMINATORS.iter().map(|s| s.0).collect()
}

/// Dynamic-instance bookkeeping of one CTA: how many times each warp has reached each static
/// instruction, so that the k-th execution of a PC by different warps is recognised as the
/// same dynamic instance (document 003 §5.3: versions counted per warp).
#[derive(Debug, Clone, Default)]
pub(crate) struct Instances {
    counts: Vec<Vec<u32>>,
}

impl Instances {
    /// Resets for a CTA of `warps` warps.
    pub fn reset(&mut self, warps: u32) {
        self.counts.resize(warps as usize, Vec::new());
        self.counts.truncate(warps as usize);
        for c in &mut self.counts {
            c.clear();
        }
    }
    /// The instance number of this arrival of `warp` at static instruction `idx`, counting it.
    pub fn arrive(&mut self, warp: u32, idx: u32) -> u32 {
        let c = &mut self.counts[warp as usize];
        let i = idx as usize;
        if c.len() <= i {
            c.resize(i + 1, 0);
        }
        c[i] += 1;
        c[i] - 1
    }
    /// How many times `warp` has reached static instruction `idx` so far (its arrivals).
    pub fn reached(&self, warp: u32, idx: u32) -> u32 {
        self.counts
            .get(warp as usize)
            .and_then(|c| c.get(idx as usize))
            .copied()
            .unwrap_or(0)
    }
}

/// Whether `inst` is eligible for TB-level skipping by any warp: a full active mask (no SIMD
/// divergence, document 003 §5.3).
pub(crate) fn full_mask(inst: &DynInst) -> bool {
    inst.active_mask == u32::MAX
}
