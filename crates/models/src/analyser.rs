//! The instruction analyser: an [`InstObserver`] that turns a functional run into the model
//! inputs of Table 1 / Table 15 and the per-unit counts of Table 7 — the role Ocelot's
//! instruction-count analyser plays in the thesis (§2.8, Fig 57).
//!
//! Counts are dynamic warp instructions; divided by the number of warps they are the thesis's
//! "per thread" counts, with every divergent path summed (§2.6.5) because each path issues.
//! Decisions (also in `docs/MODELS.md`):
//! * memory instructions of the model are global and local accesses (local is treated like
//!   global, §2.2); shared, constant, parameter and texture accesses count as computation
//!   ("treated like register accesses");
//! * a request is *coalesced* when it needs no more transactions than a perfectly contiguous
//!   access of its active lanes would (one on CC 1.x), else *uncoalesced*;
//!   `#Uncoal_per_mw` is the mean transaction count of uncoalesced requests;
//! * `Load_bytes_per_warp` is the mean number of bytes the transactions move (transactions ×
//!   transaction size), so bandwidth demand includes the waste of uncoalesced accesses;
//! * a memory request is *independent* (§2.6.3, `#Ind_mem_req`) when it issues while an earlier
//!   load of the same warp has not yet been consumed; MSTR (§4.2) is the mean number of loads
//!   issued before the first consumer;
//! * Table 7 units come from the op class: integer ALU/mul/div → INT (the class does not separate
//!   `add` from `mov`/`setp`), conversions → ALU, FP and DP → FP, transcendental → SFU; the register
//!   file is counted for every instruction with a register operand ([`RegFileRow::AllOperandInsts`])
//!   or, literally, without shared stores ([`RegFileRow::Literal`]).

use crate::options::{MFactorSource, RegFileRow};
use crate::params::{Coalescing, DeviceParams};
use crate::power::{Unit, UnitCounts};
use serde::{Deserialize, Serialize};
use warpforge_core::{DynInst, InstObserver, KernelInfo, MemSpace, OpClass};

/// Table 6 M_Factor of an op class; classes not in Table 6 issue at the peak rate except SFU
/// (2 units per SM, CUDA guide: 4) and DP (1 unit per 8 SPs on GT200, CUDA guide: 8).
pub fn m_factor(class: OpClass, src: MFactorSource) -> f64 {
    match (class, src) {
        (OpClass::FpDiv, MFactorSource::Experimental) => 4.2,
        (OpClass::FpDiv, MFactorSource::Manual) => 4.0,
        (OpClass::IntMul, MFactorSource::Experimental) => 4.3,
        (OpClass::IntMul, MFactorSource::Manual) => 4.0,
        (OpClass::IntDiv, _) => 30.0,
        (OpClass::Sfu, _) => 4.0,
        (OpClass::Dp, _) => 8.0,
        _ => 1.0,
    }
}

/// Everything the analyser measured about one kernel launch (totals over all warps).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct KernelProfile {
    /// Kernel name.
    pub kernel: String,
    /// Threads per block.
    pub threads_per_block: u32,
    /// Blocks in the grid.
    pub blocks: u64,
    /// Registers per thread (from the launch's `KernelInfo`).
    pub regs_per_thread: u32,
    /// Shared memory per block, bytes.
    pub shared_bytes: u32,
    /// Warps in the grid.
    pub warps: u64,
    /// Dynamic warp instructions.
    pub warp_insts: u64,
    /// Computation (non-memory, in the model's sense) warp instructions.
    pub comp_insts: u64,
    /// Coalesced global/local memory warp instructions.
    pub coal_mem_insts: u64,
    /// Uncoalesced global/local memory warp instructions.
    pub uncoal_mem_insts: u64,
    /// Transactions of the uncoalesced instructions.
    pub uncoal_transactions: u64,
    /// Transactions of all global/local instructions.
    pub transactions: u64,
    /// Bytes the transactions move.
    pub transaction_bytes: u64,
    /// Barrier warp instructions.
    pub synch_insts: u64,
    /// Memory requests issued while an earlier load was unconsumed.
    pub ind_mem_req: u64,
    /// Groups of loads issued before a consumer (for MSTR).
    pub load_groups: u64,
    /// Loads in those groups.
    pub grouped_loads: u64,
    /// Σ M_Factor over all warp instructions.
    pub m_factor_sum: f64,
    /// FP warp instructions (single and double precision, divides included).
    pub fp_insts: u64,
    /// Integer warp instructions.
    pub int_insts: u64,
    /// Per-unit warp-instruction counts (Table 7), totals.
    pub units: UnitCounts,
    /// Active lanes summed over all warp instructions (thread instructions).
    pub thread_insts: u64,
    /// Dependence-distance histogram of computation instructions (see
    /// [`crate::mwp_cwp::DEP_BUCKETS`]); producers that are memory instructions are not counted
    /// (their wait is memory time).
    pub dep_hist: [u64; crate::mwp_cwp::DEP_BUCKETS],
    /// Global/local 128-byte line accesses (one per distinct line per request).
    pub line_accesses: u64,
    /// Of those, lines already touched earlier in the run (first-touch L2 model).
    pub line_reuses: u64,
    /// Distinct lines this launch touched.
    pub footprint_lines: u64,
    /// L2 capacity assumed by the hit estimate, bytes (0 = no estimate).
    pub l2_bytes: u64,
    /// Global/local load line accesses looked up in the L1 model.
    pub l1_accesses: u64,
    /// Of those, hits in the L1 model.
    pub l1_hits: u64,
    /// Requests that left the L1 model (load misses, stores, atomics), looked up in the
    /// first-touch L2 during the interleaved replay ([`crate::cache_est`]).
    #[serde(default)]
    pub l2_lookups: u64,
    /// Of those, lines touched earlier in the run.
    #[serde(default)]
    pub l2_reuses: u64,
    /// LD/ST-unit passes (extension): one per distinct 128-byte line of a global/local access,
    /// the bank-conflict degree of a shared access, one per constant/parameter access.
    #[serde(default)]
    pub ldst_passes: u64,
    /// Of those, the extra passes of shared-memory bank conflicts (Σ degree − 1).
    #[serde(default)]
    pub smem_extra_passes: u64,
    /// Instruction-cache misses of the launch's first warp (extension, fetch stalls).
    #[serde(default)]
    pub fetch_misses: u64,
    /// Of those, lines never fetched before in the run (served by DRAM, not the L2).
    #[serde(default)]
    pub fetch_cold: u64,
    /// Instructions of the longest warp (most dynamic instructions; extension, critical warp).
    #[serde(default)]
    pub crit_warp_insts: u64,
    /// Global/local memory instructions of that warp.
    #[serde(default)]
    pub crit_warp_mem: u64,
    /// Of those, independent requests (issued while an earlier load was unconsumed).
    #[serde(default)]
    pub crit_warp_ind: u64,
    /// The launch recorded more line accesses than
    /// [`crate::cache_est::MAX_RECORDED_LINES`]: no L1 estimate (its L1 fractions are 0 and the
    /// L2 estimate is the all-access first-touch one).
    #[serde(default)]
    pub l1_streams_dropped: bool,
    /// Of the L1 hits, pending ones (the line was still in flight, see [`crate::cache_est`]).
    #[serde(default)]
    pub l1_pending: u64,
    /// Global/local load requests (warp instructions) of the L1 replay.
    #[serde(default)]
    pub load_reqs: u64,
    /// Of those, requests whose every line hit the L1 model.
    #[serde(default)]
    pub load_reqs_l1: u64,
    /// Requests with an L1 miss whose every missing line hit the first-touch L2.
    #[serde(default)]
    pub load_reqs_l2: u64,
    /// Branch warp instructions (branch, call, return; HeteroPDP features, document 000 Table 6.4).
    #[serde(default)]
    pub branch_insts: u64,
    /// Atomic warp instructions (HeteroPDP features).
    #[serde(default)]
    pub atomic_insts: u64,
    /// Special-math (SFU) warp instructions (HeteroPDP features).
    #[serde(default)]
    pub sfu_insts: u64,
    /// Global/local store warp instructions (HeteroPDP: share of the footprint copied back).
    #[serde(default)]
    pub store_insts: u64,
}

impl KernelProfile {
    fn per_warp(&self, v: f64) -> f64 {
        if self.warps == 0 {
            0.0
        } else {
            v / self.warps as f64
        }
    }

    /// Chapter II inputs (per thread = per warp).
    pub fn inputs(&self) -> crate::mwp_cwp::KernelInputs {
        let mem = self.coal_mem_insts + self.uncoal_mem_insts;
        crate::mwp_cwp::KernelInputs {
            comp_insts: self.per_warp(self.comp_insts as f64),
            coal_mem_insts: self.per_warp(self.coal_mem_insts as f64),
            uncoal_mem_insts: self.per_warp(self.uncoal_mem_insts as f64),
            synch_insts: self.per_warp(self.synch_insts as f64),
            uncoal_per_mw: if self.uncoal_mem_insts > 0 {
                self.uncoal_transactions as f64 / self.uncoal_mem_insts as f64
            } else {
                1.0
            },
            load_bytes_per_warp: if mem > 0 {
                self.transaction_bytes as f64 / mem as f64
            } else {
                128.0
            },
            m_factor: if self.warp_insts > 0 {
                self.m_factor_sum / self.warp_insts as f64
            } else {
                1.0
            },
            ind_mem_req: self.per_warp(self.ind_mem_req as f64),
            dep_hist: self.dep_hist.map(|c| c as f64),
            l2_hit_rate: self.l2_hit_rate(),
            l1_hit_rate: if self.l1_accesses > 0 {
                self.l1_hits as f64 / self.l1_accesses as f64
            } else {
                0.0
            },
            l2_hit_rate_after_l1: self.l2_hit_rate_after_l1(),
            l1_req_hit_rate: if self.load_reqs > 0 {
                self.load_reqs_l1 as f64 / self.load_reqs as f64
            } else {
                0.0
            },
            l2_req_hit_rate_after_l1: if self.load_reqs > self.load_reqs_l1 {
                self.load_reqs_l2 as f64 / (self.load_reqs - self.load_reqs_l1) as f64
                    * self.l2_fit()
            } else {
                self.l2_hit_rate_after_l1()
            },
            ldst_passes: self.per_warp(self.ldst_passes as f64),
            fetch_misses: self.fetch_misses as f64,
            fetch_cold: self.fetch_cold as f64,
            crit_warp_comp: self.crit_warp_insts.saturating_sub(self.crit_warp_mem) as f64,
            crit_warp_mem: self.crit_warp_mem as f64,
            crit_warp_ind: self.crit_warp_ind as f64,
            smem_extra_passes: self.per_warp(self.smem_extra_passes as f64),
            threads_per_block: self.threads_per_block,
            blocks: self.blocks,
        }
    }

    /// First-touch L2 hit estimate: a line access hits when the line was touched before in the
    /// run, scaled down by `capacity / footprint` when this launch's footprint exceeds the L2.
    pub fn l2_hit_rate(&self) -> f64 {
        if self.line_accesses == 0 || self.l2_bytes == 0 {
            return 0.0;
        }
        let raw = self.line_reuses as f64 / self.line_accesses as f64;
        raw * self.l2_fit()
    }

    /// First-touch L2 hit estimate for the requests that miss the L1 model (the interleaved
    /// replay's L2 lookups), scaled like [`Self::l2_hit_rate`]; equals it when no L1 was
    /// modelled.
    pub fn l2_hit_rate_after_l1(&self) -> f64 {
        if self.l2_lookups == 0 || self.l2_bytes == 0 {
            return self.l2_hit_rate();
        }
        let raw = self.l2_reuses as f64 / self.l2_lookups as f64;
        raw * self.l2_fit()
    }

    fn l2_fit(&self) -> f64 {
        let foot = (self.footprint_lines * 128) as f64;
        if foot > self.l2_bytes as f64 {
            self.l2_bytes as f64 / foot
        } else {
            1.0
        }
    }

    /// Per-warp unit counts (`DAC_per_th`, Eq 41).
    pub fn dac_per_warp(&self) -> UnitCounts {
        if self.warps == 0 {
            UnitCounts::default()
        } else {
            self.units.scaled(1.0 / self.warps as f64)
        }
    }

    /// MSTR (§4.2): mean loads issued before the first consumer, at least 1.
    pub fn mstr(&self) -> f64 {
        if self.load_groups == 0 {
            1.0
        } else {
            (self.grouped_loads as f64 / self.load_groups as f64).max(1.0)
        }
    }

    /// Chapter V kernel mix per warp (FMA cannot be told from other FP ops in the op class, so
    /// every FP instruction counts as scalar FP).
    pub fn mix(&self) -> crate::throughput::KernelMix {
        let mem = (self.coal_mem_insts + self.uncoal_mem_insts) as f64;
        let fp = self.fp_insts as f64;
        let int = self.int_insts as f64;
        let misc = (self.warp_insts as f64 - mem - fp - int).max(0.0);
        crate::throughput::KernelMix {
            fp_insts: self.per_warp(fp),
            int_insts: self.per_warp(int),
            br_misc_insts: self.per_warp(misc),
            mem_insts: self.per_warp(mem),
            mstr: self.mstr(),
            ilp: 1.0,
            dep: 1.0,
            ..Default::default()
        }
    }

    /// Memory and non-memory instruction totals for Eq (54).
    pub fn mem_nonmem(&self) -> (f64, f64) {
        let mem = (self.coal_mem_insts + self.uncoal_mem_insts) as f64;
        (mem, self.warp_insts as f64 - mem)
    }
}

use crate::cache_est::{replay, L1Model, WarpStreams};
pub use crate::cache_est::{L1Geometry, SetIndex};
use crate::occupancy::{occupancy, BlockResources, SmLimits};

/// Per-warp dependence tracking state (§2.6.3 and the dependence-distance histogram).
#[derive(Debug, Clone, Default)]
struct WarpDeps {
    /// Destination registers of loads not yet read.
    pending: Vec<u16>,
    /// Loads in the current group.
    group: u32,
    /// Instructions this warp executed.
    count: u32,
    /// Global/local memory instructions this warp executed.
    mem: u32,
    /// Of those, requests issued while an earlier load was unconsumed (independent).
    ind: u32,
    /// Per register: `(index << 1 | from_memory) + 1` of its last writer, 0 = never written.
    writes: Vec<u32>,
}

/// Counts transactions of one warp access under `rules`; returns `(transactions,
/// minimum transactions for a contiguous access, transaction size in bytes)`.
pub fn transactions(inst: &DynInst, rules: Coalescing) -> (u32, u32, u32) {
    let Some(mem) = inst.mem.as_ref() else {
        return (0, 0, 0);
    };
    let size = mem.bytes_per_lane.max(1) as u64;
    let mask = inst.active_mask;
    let active = mask.count_ones();
    if active == 0 {
        return (0, 0, 0);
    }
    match rules {
        Coalescing::Cc10 => {
            // One transaction if the k-th lane accesses the k-th word of an aligned block.
            let first = mask.trailing_zeros() as u64;
            let base = mem.addrs[first as usize].wrapping_sub(first * size);
            let footprint = 32 * size;
            let ok = base % footprint.min(128) == 0
                && (0..32u64)
                    .all(|l| mask & (1 << l) == 0 || mem.addrs[l as usize] == base + l * size);
            let seg = footprint.min(128) as u32;
            if ok {
                (1, 1, seg)
            } else {
                (active, 1, 32)
            }
        }
        Coalescing::Cc13 | Coalescing::Lines128 => {
            let seg: u64 = match rules {
                Coalescing::Cc13 => match size {
                    1 => 32,
                    2 => 64,
                    _ => 128,
                },
                _ => 128,
            };
            let mut ids = [u64::MAX; 64];
            let mut n = 0usize;
            for l in 0..32 {
                if mask & (1 << l) == 0 {
                    continue;
                }
                let a = mem.addrs[l];
                for s in [a / seg, (a + size - 1) / seg] {
                    if !ids[..n].contains(&s) {
                        ids[n] = s;
                        n += 1;
                    }
                }
            }
            let min = (active as u64 * size).div_ceil(seg) as u32;
            (n as u32, min.max(1), seg as u32)
        }
    }
}

/// Shared-memory bank-conflict degree of one warp access (extension; the thesis assumes none,
/// §1.1): the largest number of distinct `bank_bytes` words that one of `banks` banks must
/// serve; lanes reading the same word share one broadcast. 1 = conflict free.
pub fn conflict_degree(inst: &DynInst, banks: u32, bank_bytes: u32) -> u32 {
    let Some(m) = inst.mem.as_ref() else {
        return 1;
    };
    let words_per_lane = (m.bytes_per_lane as u64)
        .div_ceil(bank_bytes as u64)
        .clamp(1, 4);
    let mut words = [u64::MAX; 128];
    let mut n = 0usize;
    for l in 0..32 {
        if inst.active_mask & (1 << l) == 0 {
            continue;
        }
        let w0 = m.addrs[l] / bank_bytes as u64;
        for w in w0..w0 + words_per_lane {
            if !words[..n].contains(&w) {
                words[n] = w;
                n += 1;
            }
        }
    }
    let mut per_bank = [0u32; 128];
    let banks = banks.clamp(1, 128) as u64;
    let mut max = 1;
    for &w in &words[..n] {
        let b = (w % banks) as usize;
        per_bank[b] += 1;
        max = max.max(per_bank[b]);
    }
    max
}

/// The analyser: install it with `Device::set_observer`, run a workload, read
/// [`Analyser::profiles`] (one per launch, in launch order).
pub struct Analyser {
    rules: Coalescing,
    m_src: MFactorSource,
    reg_row: RegFileRow,
    current: Option<KernelProfile>,
    warps_per_cta: u32,
    deps: Vec<WarpDeps>,
    profiles: Vec<KernelProfile>,
    l2_bytes: u64,
    l1: Option<L1Model>,
    l1_index: SetIndex,
    limits: Option<SmLimits>,
    streams: WarpStreams,
    smem_banks: Option<(u32, u32)>,
    icache: Option<L1Model>,
    kernel_ids: std::collections::BTreeMap<String, u64>,
    kernel_id: u64,
    last_code_line: u64,
    code_seen: std::collections::HashSet<u64>,
    lines_seen: std::collections::HashSet<u64>,
    l2_seen: std::collections::HashSet<u64>,
    launch_lines: std::collections::HashSet<u64>,
}

impl Analyser {
    /// The analyser configured for device `dev`: its coalescing rules, the L2 capacity, the L1
    /// geometry (where the device gives an L1 latency, sets and ways) and set index, the SM
    /// limits (resident CTAs of the L1 replay), the shared-memory banks and the L1I.
    pub fn for_device(dev: &DeviceParams, m_src: MFactorSource, reg_row: RegFileRow) -> Analyser {
        let m = &dev.memory;
        let l1 = (m.l1_latency > 0.0 && m.l1_sets > 0 && m.l1_ways > 0).then_some(L1Geometry {
            sms: dev.core.num_sms,
            sets: m.l1_sets,
            ways: m.l1_ways,
        });
        Analyser::new(m.coalescing, m_src, reg_row)
            .with_l2(m.l2_bytes)
            .with_l1_index(m.l1_index)
            .with_l1(l1)
            .with_limits(dev.core.limits)
            .with_shared_banks(m.shared_banks, m.shared_bank_bytes)
            .with_icache(m.l1i_sets, m.l1i_ways)
    }

    /// An analyser applying the coalescing rules of the target device.
    pub fn new(rules: Coalescing, m_src: MFactorSource, reg_row: RegFileRow) -> Self {
        Self {
            rules,
            m_src,
            reg_row,
            current: None,
            warps_per_cta: 1,
            deps: Vec::new(),
            profiles: Vec::new(),
            l2_bytes: 0,
            l1: None,
            l1_index: SetIndex::Linear,
            limits: None,
            streams: WarpStreams::default(),
            smem_banks: None,
            icache: None,
            kernel_ids: Default::default(),
            kernel_id: 0,
            last_code_line: u64::MAX,
            code_seen: Default::default(),
            lines_seen: Default::default(),
            l2_seen: Default::default(),
            launch_lines: Default::default(),
        }
    }

    /// The L1 model's set-index function (default linear).
    pub fn with_l1_index(mut self, index: SetIndex) -> Self {
        self.l1_index = index;
        if let Some(l1) = self.l1.take() {
            self.l1 = Some(L1Model::new(l1.g, index));
        }
        self
    }

    /// SM limits for the occupancy of the interleaved L1 replay (resident CTAs per SM); without
    /// them every CTA of an SM is resident at once.
    pub fn with_limits(mut self, limits: SmLimits) -> Self {
        self.limits = Some(limits);
        self
    }

    /// Instruction cache of `sets × ways` 128-byte lines (LRU, kept across launches) for the
    /// fetch-miss count of the first warp of each launch (extension); 0 disables it.
    pub fn with_icache(mut self, sets: u32, ways: u32) -> Self {
        self.icache = (sets > 0 && ways > 0)
            .then(|| L1Model::new(L1Geometry { sms: 1, sets, ways }, SetIndex::Linear));
        self
    }

    /// Shared-memory banks and bank width in bytes for the bank-conflict degree of shared
    /// accesses (`None` or zero banks: every shared access is one pass).
    pub fn with_shared_banks(mut self, banks: u32, bank_bytes: u32) -> Self {
        self.smem_banks = (banks > 0 && bank_bytes > 0).then_some((banks, bank_bytes));
        self
    }

    /// Enables the per-SM L1 hit estimate with geometry `g`.
    pub fn with_l1(mut self, g: Option<L1Geometry>) -> Self {
        self.l1 = g
            .filter(|g| g.sms > 0 && g.sets > 0 && g.ways > 0)
            .map(|g| L1Model::new(g, self.l1_index));
        self
    }

    /// Enables the first-touch L2 hit estimate for an L2 of `bytes` (0 disables it).
    pub fn with_l2(mut self, bytes: u64) -> Self {
        self.l2_bytes = bytes;
        self
    }

    /// Profiles of the finished launches, in launch order.
    pub fn profiles(&self) -> &[KernelProfile] {
        &self.profiles
    }

    /// Takes the finished profiles out.
    pub fn take_profiles(&mut self) -> Vec<KernelProfile> {
        std::mem::take(&mut self.profiles)
    }
}

/// Adds one instruction to the Table 7 unit counts.
pub(crate) fn unit_counts(reg_row: RegFileRow, units: &mut UnitCounts, inst: &DynInst) {
    use OpClass::*;
    units.add(Unit::Fds, 1.0);
    let touches_regs = inst.n_src + inst.n_dst > 0;
    let mut reg = touches_regs;
    match inst.class {
        IntAlu | IntMul | IntDiv => units.add(Unit::Int, 1.0),
        FpAlu | FpDiv | Dp => units.add(Unit::Fp, 1.0),
        Sfu => units.add(Unit::Sfu, 1.0),
        Conv | WarpCollective => units.add(Unit::Alu, 1.0),
        Tex => units.add(Unit::TextureCache, 1.0),
        Load | Store | Atomic => {
            if let Some(m) = inst.mem.as_ref() {
                match m.space {
                    MemSpace::Global => {
                        units.add(Unit::GlobalMem, 1.0);
                        units.add(Unit::L1, 1.0);
                    }
                    MemSpace::Local => {
                        units.add(Unit::LocalMem, 1.0);
                        units.add(Unit::L1, 1.0);
                    }
                    MemSpace::Shared => {
                        units.add(Unit::Shared, 1.0);
                        if m.is_store && reg_row == RegFileRow::Literal {
                            reg = false;
                        }
                    }
                    MemSpace::Const | MemSpace::Param => units.add(Unit::ConstCache, 1.0),
                    MemSpace::Tex => units.add(Unit::TextureCache, 1.0),
                }
            }
        }
        Branch | Barrier | Fence | Exit | Nop => reg = false,
    }
    if reg {
        units.add(Unit::Reg, 1.0);
    }
}

impl InstObserver for Analyser {
    fn on_launch(&mut self, k: &KernelInfo) {
        self.warps_per_cta = k.warps_per_cta().max(1);
        let warps = k.num_ctas() * self.warps_per_cta as u64;
        self.deps.clear();
        self.deps.resize(warps as usize, WarpDeps::default());
        self.current = Some(KernelProfile {
            kernel: k.name.clone(),
            threads_per_block: k.block.size() as u32,
            blocks: k.num_ctas(),
            regs_per_thread: k.regs_per_thread,
            shared_bytes: k.shared_bytes,
            warps,
            l2_bytes: self.l2_bytes,
            ..Default::default()
        });
        self.launch_lines.clear();
        let next_id = self.kernel_ids.len() as u64;
        self.kernel_id = *self.kernel_ids.entry(k.name.clone()).or_insert(next_id);
        self.last_code_line = u64::MAX;
        if self.l1.is_some() {
            self.streams.reset(warps as usize);
        }
    }

    fn on_inst(&mut self, cta: u32, warp: u32, inst: &DynInst) {
        let reg_row = self.reg_row;
        let m_src = self.m_src;
        let rules = self.rules;
        let Some(p) = self.current.as_mut() else {
            return;
        };
        p.warp_insts += 1;
        p.thread_insts += inst.active_lanes() as u64;
        p.m_factor_sum += m_factor(inst.class, m_src);
        unit_counts(reg_row, &mut p.units, inst);
        match inst.class {
            OpClass::FpAlu | OpClass::FpDiv | OpClass::Dp => p.fp_insts += 1,
            OpClass::IntAlu | OpClass::IntMul | OpClass::IntDiv => p.int_insts += 1,
            OpClass::Branch => p.branch_insts += 1,
            OpClass::Atomic => p.atomic_insts += 1,
            OpClass::Sfu => p.sfu_insts += 1,
            OpClass::Store => {
                if matches!(
                    inst.mem.as_ref().map(|m| m.space),
                    Some(MemSpace::Global) | Some(MemSpace::Local)
                ) {
                    p.store_insts += 1;
                }
            }
            _ => {}
        }
        let slot = cta as usize * self.warps_per_cta as usize + warp as usize;
        if slot == 0 {
            if let Some(ic) = self.icache.as_mut() {
                // Each kernel's code in its own window (as the timing model places it).
                let line = (self.kernel_id << 40) | (inst.pc >> 7);
                if line != self.last_code_line {
                    self.last_code_line = line;
                    if crate::cache_est::Lookup::Miss == ic.access(0, line, false, 0, 0) {
                        p.fetch_misses += 1;
                        if self.code_seen.insert(line) {
                            p.fetch_cold += 1;
                        }
                    }
                }
            }
        }
        let is_mem = inst.class.is_memory();
        // Dependence distance to the nearest computation producer (memory producers are memory
        // time, not issue time).
        if let Some(d) = self.deps.get_mut(slot) {
            let idx = d.count;
            d.count += 1;
            if !is_mem {
                let mut nearest = 0u32;
                for &r in inst.srcs() {
                    if let Some(&w) = d.writes.get(r as usize) {
                        if w != 0 && (w - 1) & 1 == 0 {
                            let dist = idx - ((w - 1) >> 1);
                            if nearest == 0 || dist < nearest {
                                nearest = dist;
                            }
                        }
                    }
                }
                let bucket = if (1..crate::mwp_cwp::DEP_BUCKETS as u32).contains(&nearest) {
                    nearest as usize
                } else {
                    0
                };
                p.dep_hist[bucket] += 1;
            }
            for &r in inst.dsts() {
                let r = r as usize;
                if d.writes.len() <= r {
                    d.writes.resize(r + 1, 0);
                }
                d.writes[r] = ((idx << 1) | is_mem as u32) + 1;
            }
            if inst.warp_exits {
                d.writes = Vec::new();
            }
        }
        // Dependence tracking: a consumer of a pending load closes the group.
        if let Some(d) = self.deps.get_mut(slot) {
            if !d.pending.is_empty() && inst.srcs().iter().any(|r| d.pending.contains(r)) {
                p.load_groups += 1;
                p.grouped_loads += d.group as u64;
                d.pending.clear();
                d.group = 0;
            }
        }
        let global_like = inst.class.is_memory()
            && inst.class != OpClass::Tex
            && matches!(
                inst.mem.as_ref().map(|m| m.space),
                Some(MemSpace::Global | MemSpace::Local)
            );
        if inst.class == OpClass::Barrier {
            p.synch_insts += 1;
            p.comp_insts += 1;
        } else if global_like {
            let (t, min, seg) = transactions(inst, rules);
            if let Some(m) = inst.mem.as_ref() {
                let mut lines = [u64::MAX; 32];
                let mut nl = 0usize;
                for l in 0..32 {
                    if inst.active_mask & (1 << l) != 0 {
                        let line = m.addrs[l] / 128;
                        if !lines[..nl].contains(&line) {
                            lines[nl] = line;
                            nl += 1;
                        }
                    }
                }
                p.ldst_passes += nl.max(1) as u64;
                let store = inst.class == OpClass::Store || inst.class == OpClass::Atomic;
                if self.l1.is_some() {
                    self.streams.push_inst(slot, &lines[..nl], store);
                }
                if self.l2_bytes > 0 || self.l1.is_some() {
                    for &line in &lines[..nl] {
                        p.line_accesses += 1;
                        if !self.lines_seen.insert(line) {
                            p.line_reuses += 1;
                        }
                        self.launch_lines.insert(line);
                    }
                }
            }
            p.transactions += t as u64;
            p.transaction_bytes += t as u64 * seg as u64;
            p.units.add(Unit::L2, t as f64);
            if t <= min {
                p.coal_mem_insts += 1;
            } else {
                p.uncoal_mem_insts += 1;
                p.uncoal_transactions += t as u64;
            }
            if let Some(d) = self.deps.get_mut(slot) {
                d.mem += 1;
                if !d.pending.is_empty() {
                    p.ind_mem_req += 1;
                    d.ind += 1;
                }
                if inst.class == OpClass::Load || inst.class == OpClass::Atomic {
                    d.pending.extend_from_slice(inst.dsts());
                    d.group += 1;
                }
            }
        } else {
            p.comp_insts += 1;
            if let Some(m) = inst.mem.as_ref() {
                // Shared, constant and parameter accesses also pass through the LD/ST unit.
                let passes = match (m.space, self.smem_banks) {
                    (MemSpace::Shared, Some((banks, bytes))) => conflict_degree(inst, banks, bytes),
                    _ => 1,
                };
                p.ldst_passes += passes as u64;
                p.smem_extra_passes += passes as u64 - 1;
            }
        }
    }

    fn on_launch_end(&mut self, _k: &KernelInfo) {
        if let Some(mut p) = self.current.take() {
            p.footprint_lines = self.launch_lines.len() as u64;
            for d in self.deps.iter().filter(|d| d.group > 0) {
                p.load_groups += 1;
                p.grouped_loads += d.group as u64;
            }
            // The longest warp; ties go to the lowest slot (deterministic).
            if let Some(d) = self.deps.iter().rev().max_by_key(|d| (d.count, d.mem)) {
                p.crit_warp_insts = d.count as u64;
                p.crit_warp_mem = d.mem as u64;
                p.crit_warp_ind = d.ind as u64;
            }
            p.l1_streams_dropped = self.l1.is_some() && self.streams.overflowed();
            if let Some(l1) = self.l1.as_mut().filter(|_| !p.l1_streams_dropped) {
                let res = BlockResources {
                    threads: p.threads_per_block,
                    regs_per_thread: p.regs_per_thread,
                    shared_bytes: p.shared_bytes,
                };
                let resident = self
                    .limits
                    .and_then(|lim| occupancy(&lim, &res, p.blocks, l1.g.sms))
                    .map_or(usize::MAX, |o| o.active_blocks_per_sm as usize);
                let c = replay(
                    &self.streams,
                    self.warps_per_cta as usize,
                    resident,
                    l1,
                    &mut self.l2_seen,
                );
                p.l1_accesses = c.l1_accesses;
                p.l1_hits = c.l1_hits;
                p.l2_lookups = c.l2_lookups;
                p.l2_reuses = c.l2_reuses;
                p.load_reqs = c.load_reqs;
                p.l1_pending = c.l1_pending;
                p.load_reqs_l1 = c.load_reqs_l1;
                p.load_reqs_l2 = c.load_reqs_l2;
                self.streams.reset(0);
            }
            self.profiles.push(p);
        }
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}
