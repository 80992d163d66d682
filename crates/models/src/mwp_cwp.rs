//! Chapter II: the MWP-CWP analytical performance model (Hong & Kim, ISCA'09; thesis §2.3–§2.6).
//!
//! Everything is per SM and in SM-clock cycles. Instruction counts are per thread, which equals
//! per warp-instruction stream (a warp executes one instruction for all its threads). The
//! evaluation order is the thesis's: weights (Eqs 10–11), latencies (12–14), departure delay (15),
//! MWP (16–17, 5–7, with N_pw from 28–29), serialised cycles (18–19, 30), CWP (8–9), #Rep (20), the
//! three cases (21–23, identical to 58–60), synchronisation (25–27) and CPI (24).

use crate::options::{
    CacheMix, CriticalWarp, DepIssue, FetchStall, IssueFloor, L1Mix, LdstFloor, MemLCoal,
    ModelOptions, NpwForm, RepRounding, SmemConflicts, SyncWarps,
};
use serde::{Deserialize, Serialize};

/// Memory-system and issue parameters of one device (Tables 2 and 5).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MemoryTiming {
    /// DRAM round trip of one transaction, `Mem_LD`, in SM cycles (Table 5).
    pub mem_ld: f64,
    /// `Departure_del_coal`: minimum distance between two coalesced transactions, cycles.
    pub departure_del_coal: f64,
    /// `Departure_del_uncoal`: minimum distance between two uncoalesced transactions, cycles.
    pub departure_del_uncoal: f64,
    /// SM (processor) clock `Freq` in GHz (Table 2).
    pub freq_ghz: f64,
    /// `Mem_Bandwidth` between DRAM and the GPU cores in GB/s (Table 2).
    pub bandwidth_gbs: f64,
    /// `#Issue_cycles`: cycles to issue one warp instruction (4 on G80/GT200: 32 threads / 8 SPs).
    pub issue_cycles: f64,
    /// Extension (Chapter V Eq 70 applied to Chapter II): latency between dependent computation
    /// instructions of one warp, SM cycles; 0 = not modelled (the thesis's Chapter II).
    #[serde(default)]
    pub dep_latency: f64,
    /// Extension (Chapter V §4.3 "mixed latency"): round trip of a request that hits in the L2,
    /// SM cycles; 0 = no cache (the thesis's Chapter II).
    #[serde(default)]
    pub l2_latency: f64,
    /// Extension: miss-status holding registers per SM (outstanding lines); 0 = unlimited (the
    /// thesis). Bounds MWP by `MSHRs / transactions per request`.
    #[serde(default)]
    pub mshr_per_sm: f64,
    /// Extension: round trip of an L1 hit, cycles; 0 = no L1.
    #[serde(default)]
    pub l1_latency: f64,
    /// Extension: core cycles the SM's LD/ST unit spends per pass (a 128-byte line of a
    /// global/local access, a shared-memory bank pass); 0 = no LD/ST-unit bound (the thesis).
    #[serde(default)]
    pub ldst_pass_cycles: f64,
    /// Extension: core cycles one extra shared-memory bank-conflict pass costs the SM (0 = the
    /// same as `ldst_pass_cycles`).
    #[serde(default)]
    pub smem_pass_cycles: f64,
}

/// Buckets of the dependence-distance histogram: bucket `d` (1..=16) counts computation
/// instructions whose nearest computation producer is `d` instructions earlier in the same warp;
/// bucket 0 counts instructions with no such producer within 16 instructions.
pub const DEP_BUCKETS: usize = 17;

/// Effective SM cycles per warp instruction with N warps interleaved (extension, see
/// [`MemoryTiming::dep_latency`]): each instruction at distance `d` from its producer cannot issue
/// sooner than `dep_latency / d` after the previous one of its warp, and N warps overlap those
/// waits: `Σ_d frac_d × max(Issue_cycles, dep_latency / (d × N))`. Equals `Issue_cycles` when the
/// latency is 0 or N is large (the thesis's assumption).
pub fn effective_issue_cycles(
    issue: f64,
    dep_latency: f64,
    hist: &[f64; DEP_BUCKETS],
    n: f64,
) -> f64 {
    let total: f64 = hist.iter().sum();
    if dep_latency <= 0.0 || total <= 0.0 || n <= 0.0 {
        return issue;
    }
    let mut acc = hist[0] * issue;
    for (d, &c) in hist.iter().enumerate().skip(1) {
        acc += c * issue.max(dep_latency / (d as f64 * n));
    }
    acc / total
}

/// Per-kernel inputs of the model (Table 1), per thread unless stated.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct KernelInputs {
    /// `#Comp_insts`: dynamic computation (non-memory) instructions per thread, all divergent
    /// paths summed (§2.6.5).
    pub comp_insts: f64,
    /// `#Coal_Mem_insts`: coalesced memory instructions per thread.
    pub coal_mem_insts: f64,
    /// `#Uncoal_Mem_insts`: uncoalesced memory instructions per thread.
    pub uncoal_mem_insts: f64,
    /// `#Synch_insts`: barrier instructions per thread.
    pub synch_insts: f64,
    /// `#Uncoal_per_mw`: memory transactions per uncoalesced warp request.
    pub uncoal_per_mw: f64,
    /// `Load_bytes_per_warp`: bytes one warp memory instruction moves (Eq 7).
    pub load_bytes_per_warp: f64,
    /// Average `M_Factor` over `#Total_insts` (Eq 30, Table 6, weighted per instruction class); 1
    /// when every instruction issues at the peak rate.
    pub m_factor: f64,
    /// `#Ind_mem_req`: memory requests per thread that do not depend on an earlier request of the
    /// same thread (§2.6.3); 0 = assume all dependent (the model's default).
    pub ind_mem_req: f64,
    /// Dependence-distance histogram of the computation instructions (extension; all zero = not
    /// measured, the thesis's assumption of peak issue).
    #[serde(default)]
    pub dep_hist: [f64; DEP_BUCKETS],
    /// Fraction of memory transactions that hit in the L2 (extension; 0 = all go to DRAM).
    #[serde(default)]
    pub l2_hit_rate: f64,
    /// Fraction of load lines that hit in the L1 (extension; 0 = no L1).
    #[serde(default)]
    pub l1_hit_rate: f64,
    /// Fraction of the requests that miss the L1 which hit in the L2 (extension; used with the
    /// L1 mix instead of `l2_hit_rate`).
    #[serde(default)]
    pub l2_hit_rate_after_l1: f64,
    /// Fraction of load requests (warp instructions) whose every line hits in the L1 (extension):
    /// a warp waits for all its transactions, so this, not the line hit rate, sets the latency.
    #[serde(default)]
    pub l1_req_hit_rate: f64,
    /// Fraction of the requests with an L1 miss whose every missing line hits in the L2.
    #[serde(default)]
    pub l2_req_hit_rate_after_l1: f64,
    /// Instruction-cache misses of the launch's first warp (extension, [`FetchStall`]).
    #[serde(default)]
    pub fetch_misses: f64,
    /// Of those, lines never fetched before (DRAM).
    #[serde(default)]
    pub fetch_cold: f64,
    /// Computation instructions of the launch's longest warp (extension, [`CriticalWarp`]; 0 =
    /// not measured).
    #[serde(default)]
    pub crit_warp_comp: f64,
    /// Memory instructions of the longest warp.
    #[serde(default)]
    pub crit_warp_mem: f64,
    /// Of those, independent requests.
    #[serde(default)]
    pub crit_warp_ind: f64,
    /// LD/ST-unit passes per warp (extension; see [`crate::options::LdstFloor`]).
    #[serde(default)]
    pub ldst_passes: f64,
    /// Of those, extra passes of shared-memory bank conflicts per warp (extension).
    #[serde(default)]
    pub smem_extra_passes: f64,
    /// `#Threads_per_block`.
    pub threads_per_block: u32,
    /// `#Blocks` in the grid.
    pub blocks: u64,
}

impl KernelInputs {
    /// `#Mem_insts = #Coal_Mem_insts + #Uncoal_Mem_insts`.
    pub fn mem_insts(&self) -> f64 {
        self.coal_mem_insts + self.uncoal_mem_insts
    }
    /// `#Total_insts = #Comp_insts + #Mem_insts` (Table 1).
    pub fn total_insts(&self) -> f64 {
        self.comp_insts + self.mem_insts()
    }
    /// Warps per block (threads rounded up to whole warps).
    pub fn warps_per_block(&self) -> f64 {
        (self.threads_per_block as f64 / 32.0).ceil()
    }
}

/// Where the kernel's blocks sit: the occupancy result (step 0).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Placement {
    /// `#Active_blocks_per_SM`: blocks resident on one SM at once.
    pub active_blocks_per_sm: f64,
    /// `#Active_SMs`: SMs that receive blocks.
    pub active_sms: f64,
}

/// Which of the three execution-time equations applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Case {
    /// Eq (21)/(58): MWP and CWP both clamped by N — not enough warps.
    NotEnoughWarps,
    /// Eq (22)/(59): CWP ≥ MWP or Comp > Mem — memory-bound (the only case that can be
    /// bandwidth-limited).
    MemoryBound,
    /// Eq (23)/(60): MWP > CWP — computation hides memory.
    ComputeBound,
    /// Erratum 4: no memory instruction, `Exec = Comp_cycles × N × #Rep`.
    PureCompute,
    /// No instruction at all (empty kernel).
    Empty,
}

impl Case {
    /// Short identifier used in JSON (`case1`, `case2`, `case3`, `compute_only`, `empty`).
    pub fn id(self) -> &'static str {
        match self {
            Case::NotEnoughWarps => "case1",
            Case::MemoryBound => "case2",
            Case::ComputeBound => "case3",
            Case::PureCompute => "compute_only",
            Case::Empty => "empty",
        }
    }
}

/// Which term of Eq (5)/(29) set MWP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MwpLimit {
    /// `MWP_Without_BW_full = Mem_L / Departure_delay`: DRAM departure delay (memory-bank
    /// parallelism).
    DepartureDelay,
    /// `MWP_peak_BW`: the SM's share of memory bandwidth.
    PeakBandwidth,
    /// `N`: the number of running warps.
    Warps,
    /// `N_pw` (Eq 28) above N: independent requests of few warps.
    IndependentRequests,
    /// Extension: the SM's miss-status holding registers (`MSHRs / transactions per request`).
    Mshr,
}

/// Inputs of the case selection and the execution-time equations (21)–(23): the quantities the
/// Figure 6–9 scenarios give directly.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CaseInputs {
    /// N, running warps per SM.
    pub n: f64,
    /// MWP.
    pub mwp: f64,
    /// Whether the N term (N itself) was the binding minimum of MWP ("MWP == N", erratum 3).
    pub mwp_is_n: bool,
    /// Comp_cycles per warp (Eq 18).
    pub comp_cycles: f64,
    /// Mem_cycles per warp (Eq 19).
    pub mem_cycles: f64,
    /// `#Mem_insts` per warp.
    pub mem_insts: f64,
    /// `Mem_L` (one memory period, Eq 14).
    pub mem_l: f64,
    /// `#Rep` (Eq 20).
    pub rep: f64,
    /// MWP was raised above N by independent requests (N_pw, Eq 29): the memory-overlap formula
    /// (Eq 22) applies (erratum 6 decision).
    pub mwp_from_npw: bool,
}

/// CWP of Eqs (8)–(9): `(full, clamped, clamped_by_n)`.
pub fn cwp(comp_cycles: f64, mem_cycles: f64, n: f64) -> (f64, f64, bool) {
    let full = (mem_cycles + comp_cycles) / comp_cycles;
    (full, full.min(n), full >= n)
}

/// Selects the case (if / else-if / else order of §2.3.5, erratum 3: "== N" means "clamped by
/// N") and evaluates Eqs (21)–(23). Returns the case, CWP and `Exec_cycles_app`.
pub fn exec_cycles(c: &CaseInputs) -> (Case, f64, f64) {
    if c.comp_cycles <= 0.0 {
        return (Case::Empty, 1.0, 0.0);
    }
    let (_, cwp, cwp_is_n) = cwp(c.comp_cycles, c.mem_cycles, c.n);
    if c.mem_insts <= 0.0 {
        // Erratum 4: no memory instruction; N warps share the issue slot.
        return (Case::PureCompute, cwp, c.comp_cycles * c.n * c.rep);
    }
    let comp_p = c.comp_cycles / c.mem_insts; // Eq (2)
    if c.mwp_from_npw {
        // Erratum 6: N_pw > N means the warps' independent requests overlap; the printed order
        // would fall to Case 3 (one memory period for the whole kernel), which erases every
        // dependent chain, so the memory-overlap formula Eq (22) is used.
        let cyc = (c.mem_cycles * c.n / c.mwp + comp_p * (c.mwp - 1.0)) * c.rep;
        return (Case::MemoryBound, cwp, cyc);
    }
    if c.mwp_is_n && cwp_is_n {
        // Eq (21)/(58)
        let cyc = (c.mem_cycles + c.comp_cycles + comp_p * (c.mwp - 1.0)) * c.rep;
        (Case::NotEnoughWarps, cwp, cyc)
    } else if cwp >= c.mwp || c.comp_cycles > c.mem_cycles {
        // Eq (22)/(59)
        let cyc = (c.mem_cycles * c.n / c.mwp + comp_p * (c.mwp - 1.0)) * c.rep;
        (Case::MemoryBound, cwp, cyc)
    } else {
        // Eq (23)/(60)
        let cyc = (c.mem_l + c.comp_cycles * c.n) * c.rep;
        (Case::ComputeBound, cwp, cyc)
    }
}

/// Every intermediate of one Chapter II evaluation (names follow Table 1 and the equations).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MwpCwp {
    /// Eq (10).
    pub weight_uncoal: f64,
    /// Eq (11).
    pub weight_coal: f64,
    /// Eq (12), cycles.
    pub mem_l_uncoal: f64,
    /// Eq (13) (or `Mem_LD` under erratum-1 option), cycles.
    pub mem_l_coal: f64,
    /// Eq (14), cycles.
    pub mem_l: f64,
    /// Eq (15), cycles.
    pub departure_delay: f64,
    /// Eq (16).
    pub mwp_without_bw_full: f64,
    /// Eq (17).
    pub mwp_without_bw: f64,
    /// Eq (7), GB/s.
    pub bw_per_warp_gbs: f64,
    /// Eq (6).
    pub mwp_peak_bw: f64,
    /// N: running warps per SM.
    pub n: f64,
    /// Eq (28): effective parallel warps (equal to N when requests are all dependent).
    pub n_pw: f64,
    /// Eq (5)/(29).
    pub mwp: f64,
    /// The binding term of MWP.
    pub mwp_limit: MwpLimit,
    /// Eq (18)/(30), cycles per warp.
    pub comp_cycles: f64,
    /// Eq (19), cycles per warp.
    pub mem_cycles: f64,
    /// Eq (8).
    pub cwp_full: f64,
    /// Eq (9).
    pub cwp: f64,
    /// Eq (20).
    pub rep: f64,
    /// The case that applied.
    pub case: Case,
    /// `Exec_cycles_app`, Eqs (21)–(23), cycles.
    pub exec_cycles_app: f64,
    /// Eq (26).
    pub npwb: f64,
    /// Eq (25), cycles.
    pub synch_cost: f64,
    /// Eq (27): `Exec_cycles_app + Synch_cost`, cycles.
    pub exec_cycles: f64,
    /// Eq (24).
    pub cpi: f64,
    /// Which term set `Exec_cycles_app` (the case formula or a floor).
    #[serde(default)]
    pub bound: Bound,
    /// Extension: fetch-stall cycles included in `Exec_cycles_app` ([`FetchStall`]).
    #[serde(default)]
    pub fetch_cycles: f64,
}

/// What set `Exec_cycles_app`: the case formula (Eqs 21–23) or one of the floors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// The case formula.
    #[default]
    Cases,
    /// The issue floor (erratum 2, [`IssueFloor`]).
    Issue,
    /// The LD/ST-unit floor ([`LdstFloor`]).
    Ldst,
    /// The longest warp ([`CriticalWarp`]).
    CriticalWarp,
}

/// Evaluates the whole Chapter II model for one kernel on one device.
pub fn evaluate(
    mem: &MemoryTiming,
    k: &KernelInputs,
    place: &Placement,
    opts: &ModelOptions,
) -> MwpCwp {
    let mem_insts = k.mem_insts();
    let total = k.total_insts();
    let (weight_uncoal, weight_coal) = if mem_insts > 0.0 {
        (k.uncoal_mem_insts / mem_insts, k.coal_mem_insts / mem_insts) // Eqs (10), (11)
    } else {
        (0.0, 0.0)
    };
    let uncoal_per_mw = k.uncoal_per_mw.max(1.0);
    // Extension: Mem_LD as the L2/DRAM mix of Chapter V §4.3 when the device gives an L2 latency.
    let l1_on = mem.l1_latency > 0.0 && opts.l1 == L1Mix::Interleaved;
    // Latency mixes use the request-level fractions (a warp waits for its slowest line), the
    // SM-port and DRAM shares the line-level ones.
    let (mem_ld, dram_frac, l1_miss) = if mem.l2_latency > 0.0 && opts.cache == CacheMix::L2Mix {
        if l1_on {
            let (h1, r1) = (
                k.l1_hit_rate.clamp(0.0, 1.0),
                k.l1_req_hit_rate.clamp(0.0, 1.0),
            );
            let (h, r2) = (
                k.l2_hit_rate_after_l1.clamp(0.0, 1.0),
                k.l2_req_hit_rate_after_l1.clamp(0.0, 1.0),
            );
            let below = r2 * mem.l2_latency + (1.0 - r2) * mem.mem_ld;
            (
                r1 * mem.l1_latency + (1.0 - r1) * below,
                (1.0 - h1) * (1.0 - h),
                1.0 - h1,
            )
        } else {
            let h = k.l2_hit_rate.clamp(0.0, 1.0);
            (h * mem.l2_latency + (1.0 - h) * mem.mem_ld, 1.0 - h, 1.0)
        }
    } else if l1_on {
        let (h1, r1) = (
            k.l1_hit_rate.clamp(0.0, 1.0),
            k.l1_req_hit_rate.clamp(0.0, 1.0),
        );
        (
            r1 * mem.l1_latency + (1.0 - r1) * mem.mem_ld,
            1.0 - h1,
            1.0 - h1,
        )
    } else {
        (mem.mem_ld, 1.0, 1.0)
    };
    let mem_l_uncoal = mem_ld + (uncoal_per_mw - 1.0) * mem.departure_del_uncoal; // Eq (12)
    let mem_l_coal = match opts.mem_l_coal {
        MemLCoal::Thesis => mem_ld + mem.departure_del_coal, // Eq (13)
        MemLCoal::MemLdOnly => mem_ld,
    };
    let (mem_l, departure_delay) = if mem_insts > 0.0 {
        (
            mem_l_uncoal * weight_uncoal + mem_l_coal * weight_coal, // Eq (14)
            // Eq (15); with the L1 mix only the missing lines leave the SM.
            (mem.departure_del_uncoal * uncoal_per_mw * weight_uncoal
                + mem.departure_del_coal * weight_coal)
                * l1_miss.max(0.05),
        )
    } else {
        (mem_l_coal, mem.departure_del_coal)
    };
    let n = place.active_blocks_per_sm * k.warps_per_block();
    let mwp_without_bw_full = mem_l / departure_delay; // Eq (16)
    let mwp_without_bw = mwp_without_bw_full.min(n); // Eq (17)
                                                     // Eq (7); with the L2 mix only the DRAM share of the bytes uses DRAM bandwidth (kept ≥ 1%).
    let bw_per_warp_gbs = mem.freq_ghz * k.load_bytes_per_warp * dram_frac.max(0.01) / mem_l;
    let mwp_peak_bw = mem.bandwidth_gbs / (bw_per_warp_gbs * place.active_sms); // Eq (6)
    let n_pw = npw(n, mem_insts, k.ind_mem_req, opts.npw);
    // Eq (5), or Eq (29) when independent requests raise the warp term above N (erratum 6: the
    // departure-delay term is then taken unclamped, otherwise N_pw could never matter).
    let warp_term = n_pw.max(n);
    let mut mwp = mwp_without_bw_full;
    let mut mwp_limit = MwpLimit::DepartureDelay;
    if mwp_peak_bw < mwp {
        mwp = mwp_peak_bw;
        mwp_limit = MwpLimit::PeakBandwidth;
    }
    if mem.mshr_per_sm > 0.0 && mem_insts > 0.0 {
        // Extension: each outstanding transaction holds an MSHR entry.
        let per_req = (uncoal_per_mw * weight_uncoal + weight_coal) * l1_miss.max(0.05);
        let mwp_mshr = (mem.mshr_per_sm / per_req).max(1.0);
        if mwp_mshr < mwp {
            mwp = mwp_mshr;
            mwp_limit = MwpLimit::Mshr;
        }
    }
    if warp_term <= mwp {
        mwp = warp_term;
        mwp_limit = if warp_term > n {
            MwpLimit::IndependentRequests
        } else {
            MwpLimit::Warps
        };
    }
    let issue = match opts.dep {
        DepIssue::Chapter5 => {
            effective_issue_cycles(mem.issue_cycles, mem.dep_latency, &k.dep_hist, n)
        }
        DepIssue::Off => mem.issue_cycles,
    };
    let comp_cycles = issue * k.m_factor.max(1.0) * total; // Eq (18)/(30)
    let mem_cycles = mem_l_uncoal * k.uncoal_mem_insts + mem_l_coal * k.coal_mem_insts; // Eq (19)
    let rep_frac = k.blocks as f64 / (place.active_blocks_per_sm * place.active_sms); // Eq (20)
    let rep = match opts.rep {
        RepRounding::Fractional => rep_frac,
        RepRounding::Ceil => rep_frac.ceil(),
    };
    let (case, cwp_val, mut exec_cycles_app) = exec_cycles(&CaseInputs {
        n,
        mwp,
        mwp_is_n: mwp_limit == MwpLimit::Warps,
        mwp_from_npw: mwp_limit == MwpLimit::IndependentRequests,
        comp_cycles,
        mem_cycles,
        mem_insts,
        mem_l,
        rep,
    });
    let mut bound = Bound::Cases;
    let mut raise = |v: f64, b: Bound, cur: &mut f64| {
        if v > *cur {
            *cur = v;
            bound = b;
        }
    };
    if opts.issue_floor == IssueFloor::Floor {
        raise(comp_cycles * n * rep, Bound::Issue, &mut exec_cycles_app);
    }
    if opts.ldst == LdstFloor::Floor && mem.ldst_pass_cycles > 0.0 {
        let v = ldst_cycles(mem, k, opts) * n * rep;
        raise(v, Bound::Ldst, &mut exec_cycles_app);
    }
    if opts.crit == CriticalWarp::Floor && mem.dep_latency > 0.0 {
        let issue_alone = match opts.dep {
            DepIssue::Chapter5 => {
                effective_issue_cycles(mem.issue_cycles, mem.dep_latency, &k.dep_hist, 1.0)
            }
            DepIssue::Off => mem.issue_cycles,
        };
        let v = critical_warp_cycles(k, issue_alone, mem_l);
        raise(v, Bound::CriticalWarp, &mut exec_cycles_app);
    }
    let cwp_full = if comp_cycles > 0.0 {
        (mem_cycles + comp_cycles) / comp_cycles
    } else {
        1.0
    };
    let npwb = match opts.sync_warps {
        SyncWarps::NpWB => mwp.min(k.warps_per_block()), // Eq (26)
        SyncWarps::Mwp => mwp,
    };
    let synch_cost = if mem_insts > 0.0 {
        departure_delay * (npwb - 1.0).max(0.0) * k.synch_insts * place.active_blocks_per_sm * rep
    } else {
        0.0
    }; // Eq (25)
    let fetch = if opts.fetch == FetchStall::Serial && mem.l2_latency > 0.0 {
        fetch_cycles(mem, k)
    } else {
        0.0
    };
    exec_cycles_app += fetch;
    let exec_cycles = exec_cycles_app + synch_cost; // Eq (27)
    let denom = total * (k.threads_per_block as f64 / 32.0) * (k.blocks as f64 / place.active_sms);
    let cpi = if denom > 0.0 {
        exec_cycles_app / denom
    } else {
        0.0
    }; // Eq (24)
    MwpCwp {
        weight_uncoal,
        weight_coal,
        mem_l_uncoal,
        mem_l_coal,
        mem_l,
        departure_delay,
        mwp_without_bw_full,
        mwp_without_bw,
        bw_per_warp_gbs,
        mwp_peak_bw,
        n,
        n_pw,
        mwp,
        mwp_limit,
        comp_cycles,
        mem_cycles,
        cwp_full,
        cwp: cwp_val,
        rep,
        case,
        exec_cycles_app,
        npwb,
        bound,
        fetch_cycles: fetch,
        synch_cost,
        exec_cycles,
        cpi,
    }
}

/// Extension ([`FetchStall`]): cycles a warp waits for instruction-cache misses, each a round
/// trip to the L2 (`l2_latency`), or to DRAM (`Mem_LD`) for code never fetched before.
pub fn fetch_cycles(mem: &MemoryTiming, k: &KernelInputs) -> f64 {
    let cold = k.fetch_cold.min(k.fetch_misses).max(0.0);
    (k.fetch_misses - cold).max(0.0) * mem.l2_latency + cold * mem.mem_ld
}

/// Extension ([`CriticalWarp`]): the time the launch's longest warp needs on its own, Eq (21)
/// with N = MWP = 1 for its instruction counts: `Comp × Issue_alone + Mem_dep × Mem_L`, where
/// only its dependent requests (`Mem − Ind`) each wait a full memory period.
pub fn critical_warp_cycles(k: &KernelInputs, issue_alone: f64, mem_l: f64) -> f64 {
    let dependent = (k.crit_warp_mem - k.crit_warp_ind).max(k.crit_warp_mem.min(1.0));
    k.crit_warp_comp * issue_alone * k.m_factor.max(1.0) + dependent * mem_l
}

/// LD/ST-unit cycles per warp (extension, [`LdstFloor`]): the conflict-free passes times
/// `ldst_pass_cycles` plus, under [`SmemConflicts::Passes`], the extra bank-conflict passes times
/// `smem_pass_cycles` (or `ldst_pass_cycles` when that is 0).
pub fn ldst_cycles(mem: &MemoryTiming, k: &KernelInputs, opts: &ModelOptions) -> f64 {
    let base = (k.ldst_passes - k.smem_extra_passes).max(0.0) * mem.ldst_pass_cycles;
    let per_extra = if mem.smem_pass_cycles > 0.0 {
        mem.smem_pass_cycles
    } else {
        mem.ldst_pass_cycles
    };
    match opts.smem {
        SmemConflicts::Passes => base + k.smem_extra_passes.max(0.0) * per_extra,
        SmemConflicts::Off => base,
    }
}

/// Eq (28) under the chosen form (erratum 6). Never below N (independence cannot reduce
/// parallelism); when every request is independent the dependent count is taken as 1, so all
/// `#Mem_req` requests of each warp overlap.
pub fn npw(n: f64, mem_req: f64, ind_mem_req: f64, form: NpwForm) -> f64 {
    if ind_mem_req <= 0.0 || mem_req <= 0.0 {
        return n;
    }
    let dependent = (mem_req - ind_mem_req).max(1.0);
    let v = match form {
        NpwForm::TotalOverDependent => n * mem_req / dependent,
        NpwForm::Literal => n * ind_mem_req / dependent,
    };
    v.max(n)
}

/// Eq (1) with Eq (2): the Figure 6 narrative form `Mem_cycles × N/MWP + Comp_p × MWP`
/// (erratum 2: the final model uses `MWP − 1`, Eq 22).
pub fn eq1_exec_cycles(mem_cycles: f64, comp_cycles: f64, mem_insts: f64, n: f64, mwp: f64) -> f64 {
    mem_cycles * n / mwp + comp_cycles / mem_insts * mwp
}

/// Eq (3): the Figure 7 narrative form `Mem_p + Comp_cycles × N` (MWP > CWP).
pub fn eq3_exec_cycles(mem_p: f64, comp_cycles: f64, n: f64) -> f64 {
    mem_p + comp_cycles * n
}

/// Eq (4): the Figure 9 narrative form (MWP = N): `Mem + Comp + Comp_p × (MWP − 1)`.
pub fn eq4_exec_cycles(mem_cycles: f64, comp_cycles: f64, mem_insts: f64, mwp: f64) -> f64 {
    mem_cycles + comp_cycles + comp_cycles / mem_insts * (mwp - 1.0)
}
