//! Named options for every erratum of the document (digest §6.3) where the thesis contradicts
//! itself or leaves a choice open. Each option's default is the decision documented in
//! `docs/MODELS.md`; the alternatives stay selectable so the effect of a choice can be measured.

use serde::{Deserialize, Serialize};

/// Erratum 1: the latency of one coalesced warp request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum MemLCoal {
    /// Thesis Eq (13): `Mem_L_Coal = Mem_LD + Departure_del_coal` (default).
    #[default]
    Thesis,
    /// `Mem_L_Coal = Mem_LD`, as in third-party implementations of the ISCA'09 paper.
    MemLdOnly,
}

/// Erratum 5: how many warps of a block pay the synchronisation departure delay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum SyncWarps {
    /// Thesis Eq (26): `NpWB = MIN(MWP, #Active_warps_per_block)` (default).
    #[default]
    NpWB,
    /// `(MWP - 1)` as in third-party ISCA'09 implementations.
    Mwp,
}

/// Erratum 6: the effective number of parallel warps with independent memory requests (Eq 28).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum NpwForm {
    /// `N_pw = N × #Mem_req / (#Mem_req − #Ind_mem_req)`: the form that reproduces the thesis's
    /// own "N = 4 → N_pw = 8" example (2 requests, 1 independent). Default.
    #[default]
    TotalOverDependent,
    /// The printed Eq (28), `N × #Ind_mem_req / (#Mem_req − #Ind_mem_req)`.
    Literal,
}

/// Erratum 8: which M_Factor column of Table 6 to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum MFactorSource {
    /// Measured values: FPdiv 4.2, Intmul 4.3, Intdiv 30, modulo 35 (default).
    #[default]
    Experimental,
    /// CUDA-manual throughput ratios: FPdiv 4, Intmul 4, Intdiv/modulo taken as 30 (the manual says
    /// only "costly", so the experimental value is kept).
    Manual,
}

/// Table 7 note: the register-file row omits `st_shared`, `lg2`, `ex2` and `fma`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum RegFileRow {
    /// Every instruction except branches, barriers, fences, exits and no-ops touches the register
    /// file (default: the omissions read as slips, since all those instructions read registers).
    #[default]
    AllOperandInsts,
    /// The Table 7 list literally: shared stores and the `lg2`/`ex2`/`fma` FP ops are left out.
    Literal,
}

/// #Rep (Eq 20): how the number of block rounds per SM is counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum RepRounding {
    /// Eq (20) as printed: `#Blocks / (#Active_blocks_per_SM × #Active_SMs)`, a real number
    /// (blocks spread evenly over all SMs; used by the §7 full example, 49,333 cycles).
    Fractional,
    /// Whole rounds (default): a kernel ends when its busiest SM has run `ceil(#Rep)` rounds, so
    /// a partial last wave costs a full one. Cross-validation against the timing model: MAPE
    /// 22.2% fractional vs 17.9% whole rounds (docs/MODELS.md).
    #[default]
    Ceil,
}

/// Erratum 2 consequence: under the printed if/else-if order a kernel with `Comp_cycles >
/// Mem_cycles` and MWP < N lands in Case 2, whose `Comp_p × (MWP − 1)` term ignores N, so the
/// prediction can fall below the time N warps need just to issue (Fig 8 is the N = MWP instance).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum IssueFloor {
    /// The printed formulas, unbounded.
    Printed,
    /// Never predict fewer cycles than `Comp_cycles × N × #Rep`, the time the SM needs to issue
    /// its warps' instructions (default: the thesis itself reads CPI = 4 as the peak, so a CPI below
    /// the issue rate is an artefact of the case order; every §7 example is unaffected).
    #[default]
    Floor,
}

/// Extension beyond Chapter II: per-warp dependence latency (Chapter V's `DEP_Effect`, Eq 70,
/// applied to the Chapter II issue rate). Only active when the device gives `core.dep_latency`
/// and the analyser measured a dependence histogram.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum DepIssue {
    /// Issue cycles as printed (Eq 18): every warp issues at the peak rate.
    Off,
    /// `Issue_cycles` becomes `Σ_d frac_d × max(Issue_cycles, Lat / (d × N))` (default).
    #[default]
    Chapter5,
}

/// Extension beyond Chapter II: a cache-hit mix for `Mem_LD` (Chapter V §4.3 "mixed latency";
/// digest §6.1 lists the L1/L2/DRAM fractions as inputs). Only active when the device gives
/// `memory.l2_latency` (no document device does: Chapter II has no caches).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum CacheMix {
    /// Every transaction goes to DRAM (Chapter II).
    Off,
    /// `Mem_LD = h × L2_latency + (1 − h) × Mem_LD`, and only the missing share of the bytes
    /// counts against DRAM bandwidth (default).
    #[default]
    L2Mix,
}

/// Extension beyond Chapter II: L1 hits in `Mem_LD` (Fermi has a per-SM L1, the thesis's G80 none).
/// Only active when the device gives `memory.l1_latency` and the analyser ran its L1 model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum L1Mix {
    /// No L1: every transaction leaves the SM (Chapter II; `--no-l1`).
    Off,
    /// `Mem_LD = h1 × L1_latency + (1 − h1) × (L2/DRAM mix of the L1 misses)`, with `h1` from the
    /// analyser's interleaved replay ([`crate::cache_est`]); only L1 misses occupy the SM's port
    /// (departure delay) and DRAM bandwidth (default).
    #[default]
    Interleaved,
}

/// Extension beyond Chapter II: the throughput of the SM's single LD/ST unit. Only active when
/// the device gives `memory.ldst_pass_cycles`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum LdstFloor {
    /// No LD/ST-unit bound (Chapter II; `--no-ldst`).
    Off,
    /// Never predict fewer cycles than `LDST_passes × ldst_pass_cycles × N × #Rep`, the time the
    /// SM's LD/ST unit needs for its warps' passes (one per 128-byte line of a global/local access,
    /// one per shared/constant access plus the bank-conflict passes): the issue floor of erratum 2
    /// applied to the memory pipeline (default).
    #[default]
    Floor,
}

/// Extension beyond Chapter II (§1.1 assumes no shared-memory bank conflicts): whether the
/// LD/ST floor counts the extra passes of bank-conflicting shared accesses. Only matters when
/// the device gives `memory.shared_banks`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum SmemConflicts {
    /// Every shared access is one pass (`--no-smem-conflicts`).
    Off,
    /// A shared access takes as many passes as its bank-conflict degree (default).
    #[default]
    Passes,
}

/// Extension beyond Chapter II (§2.6.5 sums divergent paths but assumes every warp of a kernel
/// runs the same instruction count): a launch cannot end before its longest warp, which on
/// irregular inputs (graph degrees, sparse rows) may run many times the average. Only active when
/// the device gives `core.dep_latency` (the lone-warp issue rate needs it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum CriticalWarp {
    /// Every warp runs the average (`--no-crit`).
    Off,
    /// `Exec_cycles_app ≥` the longest warp's own time (see
    /// [`crate::mwp_cwp::critical_warp_cycles`]) (default).
    #[default]
    Floor,
}

/// Extension beyond Chapter II (§2.7 "Limitations": no model of I-cache misses, assumed ~100%
/// hits; Fermi's L1I is 2 KB): the fetch misses of a launch's first warp, through an LRU
/// instruction cache of the device's geometry kept across launches, each cost one L2 round trip
/// (DRAM for code never fetched before), added once per launch: the warps of an SM fetch the same
/// code, so a miss stalls them together. Only active when the device gives `memory.l1i_sets`
/// and `memory.l2_latency`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum FetchStall {
    /// Every fetch hits (`--no-fetch`).
    Off,
    /// `Exec_cycles_app += misses × latency` (default).
    #[default]
    Serial,
}

/// All erratum decisions of the Chapter II / III models in one place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ModelOptions {
    /// Erratum 1.
    pub mem_l_coal: MemLCoal,
    /// Erratum 5.
    pub sync_warps: SyncWarps,
    /// Erratum 6.
    pub npw: NpwForm,
    /// Erratum 8.
    pub m_factor: MFactorSource,
    /// Table 7 register-file row.
    pub reg_file: RegFileRow,
    /// Eq (20) rounding.
    pub rep: RepRounding,
    /// Erratum 2 issue-time floor.
    pub issue_floor: IssueFloor,
    /// Extension: dependence latency.
    pub dep: DepIssue,
    /// Extension: L2 hit mix.
    pub cache: CacheMix,
    /// Extension: L1 hit mix.
    #[serde(default)]
    pub l1: L1Mix,
    /// Extension: LD/ST-unit throughput floor.
    #[serde(default)]
    pub ldst: LdstFloor,
    /// Extension: shared-memory bank-conflict passes in the LD/ST floor.
    #[serde(default)]
    pub smem: SmemConflicts,
    /// Extension: the longest warp bounds the launch.
    #[serde(default)]
    pub crit: CriticalWarp,
    /// Extension: instruction-fetch stalls.
    #[serde(default)]
    pub fetch: FetchStall,
}
