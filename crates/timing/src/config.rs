//! Configuration of the timing model: a tree of plain structs that mirrors the component tree
//! (spec 000 §1.2 tables, §1.3 GPGPU-Sim defaults), loaded from TOML presets in `configs/`.
//!
//! * Presets are embedded in the binary ([`PRESETS`]) so the CLI works from any directory.
//! * A preset or file may start with `base = "other"` (older spelling `inherits`): its tables
//!   are merged over the base's, so a file lists only the keys that differ. A file's base may be
//!   a preset name or a TOML path relative to the file; errors in a base file name its lines.
//! * Unknown keys are errors (`deny_unknown_fields`); [`GpuConfig::set`] overrides one field by
//!   dotted path (`l1d.sets=8`), type-checked against the field's current value.
//! * [`GpuConfig::validate`] checks cross-field constraints and policy names; every error names
//!   the key ([`ConfigError`]).

use serde::{Deserialize, Serialize};

/// An error in a configuration: the dotted key (or file) it concerns and why; for a value read
/// from a TOML file, also the file and the 1-based line of the key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ConfigError {
    /// Dotted path of the offending key, or the preset / file name for whole-file errors.
    pub key: String,
    /// What is wrong.
    pub reason: String,
    /// The TOML file the key was read from, when the error concerns a file's value.
    pub file: Option<String>,
    /// 1-based line of the key in `file`, when it could be found.
    pub line: Option<usize>,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.file, self.line) {
            (Some(file), _) if *file == self.key => write!(f, "{file}: {}", self.reason),
            (Some(file), Some(line)) => {
                write!(f, "{file}:{line}: key `{}`: {}", self.key, self.reason)
            }
            (Some(file), None) => write!(f, "{file}: key `{}`: {}", self.key, self.reason),
            _ => write!(f, "config key `{}`: {}", self.key, self.reason),
        }
    }
}

impl ConfigError {
    pub(crate) fn new(key: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            key: key.into(),
            reason: reason.into(),
            file: None,
            line: None,
        }
    }

    /// Attaches the file (and the line of `key` in its `text`, when present there).
    /// An error that already names a file (one of the file's bases) keeps it.
    fn in_file(mut self, file: &str, text: Option<&str>) -> Self {
        if self.file.is_none() {
            self.line = text.and_then(|t| key_line(t, &self.key));
            self.file = Some(file.to_string());
        }
        self
    }
}

/// The 1-based line at which the dotted `key` is written in the TOML `text` (a `[table]` header
/// or a dotted key both count), or `None` when the text does not set it (e.g. it is inherited).
fn key_line(text: &str, key: &str) -> Option<usize> {
    let doc = toml_edit::ImDocument::parse(text).ok()?;
    let mut table: &dyn toml_edit::TableLike = doc.as_table();
    let mut span = None;
    let parts: Vec<&str> = key.split('.').collect();
    for (i, part) in parts.iter().enumerate() {
        let (k, item) = table.get_key_value(part)?;
        span = k.span().or_else(|| item.span());
        if i + 1 < parts.len() {
            table = item.as_table_like()?;
        }
    }
    let start = span?.start;
    Some(text[..start].matches('\n').count() + 1)
}

/// Built-in presets: (name, TOML text). `configs/<name>.toml` in the repository.
pub const PRESETS: &[(&str, &str)] = &[
    ("gtx480", include_str!("../../../configs/gtx480.toml")),
    (
        "gtx480-cawa",
        include_str!("../../../configs/gtx480-cawa.toml"),
    ),
    (
        "gtx480-caws",
        include_str!("../../../configs/gtx480-caws.toml"),
    ),
    (
        "gtx480-ctrlc",
        include_str!("../../../configs/gtx480-ctrlc.toml"),
    ),
    ("qv100", include_str!("../../../configs/qv100.toml")),
    ("rtx3070", include_str!("../../../configs/rtx3070.toml")),
    ("h100", include_str!("../../../configs/h100.toml")),
    (
        "hetero-gpu",
        include_str!("../../../configs/hetero-gpu.toml"),
    ),
];

/// Clock frequencies of the four domains (spec 000 §1.3: 700/700/700/924 MHz).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Clocks {
    /// SM clock, MHz.
    pub core_mhz: f64,
    /// Interconnect clock, MHz.
    pub icnt_mhz: f64,
    /// L2 clock, MHz.
    pub l2_mhz: f64,
    /// DRAM command clock, MHz.
    pub dram_mhz: f64,
}

/// Per-class latencies or initiation intervals, in core cycles.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassCycles {
    /// Integer add, logic, shift, compare, move.
    pub int_alu: u32,
    /// Integer multiply and multiply-add.
    pub int_mul: u32,
    /// Integer divide and remainder.
    pub int_div: u32,
    /// Single-precision add, multiply, fma, compare.
    pub fp_alu: u32,
    /// Single-precision divide.
    pub fp_div: u32,
    /// Double precision.
    pub dp: u32,
    /// Transcendentals (SFU).
    pub sfu: u32,
    /// Conversions.
    pub conv: u32,
    /// Branch resolution.
    pub branch: u32,
    /// Warp collectives (shfl, vote).
    pub collective: u32,
    /// Barriers, fences, no-ops, exits.
    pub misc: u32,
}

/// The SIMT core (spec 000 §1.1, §8.1 item 1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoreConfig {
    /// Number of SMs.
    pub num_sms: u32,
    /// Resident warps per SM (at most 64).
    pub max_warps: u32,
    /// Resident CTAs per SM.
    pub max_ctas: u32,
    /// 32-bit registers per SM.
    pub registers: u32,
    /// Shared memory per SM, bytes.
    pub shared_bytes: u32,
    /// Warp schedulers per SM; warp slot `w` belongs to scheduler `w % schedulers`.
    pub schedulers: u32,
    /// Sub-cores (processing blocks) per SM (GPGPU-Sim `-gpgpu_sub_core_model 1`: one per
    /// scheduler on Volta and later). Warp slot `w` belongs to sub-core `w % sub_cores`, and each
    /// sub-core has its own share of the operand collectors (every kind), the SP and SFU
    /// pipelines and the register-file banks; the LD/ST unit stays shared by the SM. Must divide
    /// `schedulers`, `collectors_*`, `sp_units`, `sfu_units` and `reg_banks`; at most 8.
    /// 1 (the default): one pool shared by all schedulers (the Fermi-class core).
    #[serde(default = "default_sub_cores")]
    pub sub_cores: u32,
    /// Instructions a scheduler may issue from its picked warp in one cycle (GPGPU-Sim
    /// `-gpgpu_max_insn_issue_per_warp`; 2 on Kepler to Pascal): after the first, the warp's
    /// next buffered instructions issue in order while each is ready (decoded, no register
    /// hazard, a free collector of its unit) and, with `dual_issue_diff_units`, needs another
    /// unit than the one before. 1 (the default): one instruction per scheduler per cycle.
    #[serde(default = "default_issue_per_warp")]
    pub max_issue_per_warp: u32,
    /// With `max_issue_per_warp` above 1, two instructions issued together must go to
    /// different units (SP/INT, SFU, memory; GPGPU-Sim `-gpgpu_dual_issue_diff_exec_units`,
    /// default 1). `true` (the default).
    #[serde(default = "default_true")]
    pub dual_issue_diff_units: bool,
    /// Warp scheduling policy, a name of [`crate::core::sched::SCHEDULERS`].
    pub scheduler: String,
    /// Active-pool size per scheduler of the `two_level` policy, warps.
    pub two_level_active: u32,
    /// Instruction-buffer entries per warp.
    pub ibuffer_entries: u32,
    /// Warps fetched per SM per core cycle.
    pub fetch_per_cycle: u32,
    /// Core cycles from fetch until an instruction can issue.
    pub decode_latency: u32,
    /// SP pipelines per SM.
    pub sp_units: u32,
    /// SFU pipelines per SM.
    pub sfu_units: u32,
    /// Double precision executes on the SFU instead of the SP units.
    pub dp_on_sfu: bool,
    /// INT pipelines per SM (GPGPU-Sim `-gpgpu_num_int_units`, Volta and later): integer,
    /// logic, address, branch, collective and conversion-free ALU instructions execute there
    /// and only single-precision floating point (and double precision when not on the SFU)
    /// on the SP pipelines; both kinds share the SP-class operand collectors. Divided among
    /// the sub-cores like `sp_units`. 0 (the default, Fermi): every ALU instruction on SP.
    #[serde(default)]
    pub int_units: u32,
    /// Pipeline-register widths and operand-collector ports (`core.pipe.*`).
    #[serde(default)]
    pub pipe: PipeConfig,
    /// Operand-collector units for SP-class instructions.
    pub collectors_sp: u32,
    /// Operand-collector units for SFU-class instructions.
    pub collectors_sfu: u32,
    /// Operand-collector units for memory instructions.
    pub collectors_mem: u32,
    /// Register-file banks (each serves one operand read per core cycle).
    pub reg_banks: u32,
    /// In-flight load instructions per SM (load trackers).
    pub load_trackers: u32,
    /// Core cycles from the start of a launch until its first CTA can be dispatched: the
    /// driver and front-end cost of a kernel launch (GPGPU-Sim `-gpgpu_kernel_launch_latency`,
    /// counted in the launch's cycles as GPGPU-Sim does). 0 (the default) in the Fermi presets.
    #[serde(default)]
    pub launch_latency: u32,
    /// Core cycles per CTA of the launch added to that delay (GPGPU-Sim
    /// `-gpgpu_TB_launch_latency`, which it adds as CTAs x this to the kernel's start delay).
    #[serde(default)]
    pub cta_launch_latency: u32,
    /// GPU-wide CTA dispatch throughput: thousandths of a core cycle between two CTAs placed by
    /// the one dispatcher of the GPU (0, the default: no such limit, one CTA per SM per cycle).
    /// A launch of N CTAs then takes at least N x this / 1000 cycles even when they do nothing;
    /// H200, measured: 0.93 cycles per CTA whatever the CTA size (docs/VALIDATION.md "Launch").
    #[serde(default)]
    pub cta_dispatch_millicycles: u32,
    /// Dispatch-to-writeback latencies, core cycles.
    pub latency: ClassCycles,
    /// Initiation intervals, core cycles.
    pub initiation: ClassCycles,
    /// CAWS scheduler settings (`core.caws.*`).
    #[serde(default)]
    pub caws: CawsConfig,
    /// Which warps CPL reports as critical to the L1D (CACP's `IsCriticalWarp`, spec 000 §4.3
    /// (c), §4.5) and to the critical-warp hit-rate statistic: `slowest` (the default: the
    /// warp of each thread block with the highest criticality counter, Lee 2017's "critical
    /// warp", the slowest of its TB) or `top_half` (every "slow" warp, the counters above half
    /// of the TB's, the predicate of the §4.3.3 accuracy metric).
    #[serde(default = "default_cpl_critical")]
    pub cpl_critical: String,
    /// When CPL adds a warp's stall cycles to its criticality counter (spec 000 §4.3 (d), Lee
    /// 2017 Algorithm 6): `at_issue` (the default: line 7 of Algorithm 6, `w.nStall +=
    /// stallCycles` when the scheduler issues `w`, so a waiting warp's counter holds its value
    /// until it issues again) or `accruing` (every cycle a warp waits raises its counter at
    /// once, the reading of earlier sessions).
    #[serde(default = "default_cpl_stall")]
    pub cpl_stall: String,
    /// TB-redundancy elimination (`core.elim.*`, document 003 Ch. 7).
    #[serde(default)]
    pub elim: ElimConfig,
}

/// Widths of the SM's pipeline registers and operand-collector ports (GPGPU-Sim
/// `-gpgpu_pipeline_widths`, `-gpgpu_operand_collector_num_in_ports_*`/`_out_ports_*` and
/// `-gpgpu_reg_file_port_throughput`), per SM and core cycle. Every limit is 0 (the default)
/// for "none", which is the model before these keys: the collectors and units alone bound
/// issue and dispatch, and any number of results is written back per cycle.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PipeConfig {
    /// Instructions the schedulers may issue per cycle to the SP-class collectors (SP and INT
    /// pipelines), the SFU-class ones and the memory ones: GPGPU-Sim's ID_OC register widths
    /// (`ID_OC_SP + ID_OC_INT`, `ID_OC_SFU`, `ID_OC_MEM`), each the smaller with the
    /// collector input ports of its class times `reg_port_throughput`. With sub-cores, each
    /// sub-core gets an equal share (at least 1). 0: no limit.
    #[serde(default)]
    pub issue: [u32; 3],
    /// Collectors dispatched per cycle to the SP, SFU and INT pipelines (GPGPU-Sim's OC_EX
    /// register widths `OC_EX_SP`, `OC_EX_SFU`, `OC_EX_INT`, each the smaller with the output
    /// ports of its class), per sub-core share as `issue`. 0: no limit. (The LD/ST unit takes
    /// one instruction at a time, so `OC_EX_MEM` >= 1 never limits it.)
    #[serde(default)]
    pub dispatch: [u32; 3],
    /// Collector allocations per cycle over all classes (the generic collectors' input ports,
    /// `-gpgpu_operand_collector_num_in_ports_gen` times `reg_port_throughput`). 0: no limit.
    #[serde(default)]
    pub in_ports: u32,
    /// Collector dispatches per operand-collector step over all classes (the generic
    /// collectors' output ports, `-gpgpu_operand_collector_num_out_ports_gen`). 0: no limit.
    #[serde(default)]
    pub out_ports: u32,
    /// Result buses (`EX_WB`): an ALU instruction enters its pipeline only when fewer than
    /// this many ALU results are due to be written back in the cycle its result is (GPGPU-Sim
    /// reserves a result bus for the instruction's latency). Memory results do not use them.
    /// 0: no limit.
    #[serde(default)]
    pub result_buses: u32,
    /// Operand-collector steps per core cycle (`-gpgpu_reg_file_port_throughput`): each step
    /// dispatches ready collectors and lets every register bank serve one read, so a bank
    /// serves this many reads per cycle. 0 reads as 1 (the default).
    #[serde(default)]
    pub reg_port_throughput: u32,
}

/// TB-redundancy elimination (`core.elim.*`): DARSIE and its baselines (document 003 Ch. 7).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ElimConfig {
    /// Policy, a name of [`crate::core::elim::ELIMINATORS`]: `none`, `darsie`, `uv`,
    /// `dac_ideal`.
    pub policy: String,
    /// DARSIE: PC skip-table entries per TB (document 003 §7.7.4: 8).
    pub skip_entries: u32,
    /// DARSIE: every branch is a TB-wide barrier electing the majority path (false:
    /// DARSIE-NO-CF-SYNC).
    pub branch_sync: bool,
    /// DARSIE: stores do not invalidate load entries (DARSIE-IGNORE-STORE).
    pub ignore_stores: bool,
    /// DARSIE: renamed registers are read from the TB's rename slice, laid out strided across
    /// the register-file banks (document 003 §5.3 F), so their bank differs from the warp's own
    /// mapping; false: renamed reads keep the warp's mapping (§5.6's artificial case with no
    /// DARSIE-induced bank conflicts).
    pub rename_banks: bool,
    /// DARSIE: followers wait in fetch until the leader has written back (LeaderWB, §5.4).
    /// `false` is a diagnostic bound, not a document variant: followers skip at once and their
    /// dependants do not wait for the leader's value (optimistic), which measures what the
    /// LeaderWB waits cost.
    pub leader_wb_wait: bool,
}

impl Default for ElimConfig {
    fn default() -> Self {
        Self {
            policy: "none".into(),
            skip_entries: 8,
            branch_sync: true,
            ignore_stores: false,
            rename_banks: true,
            leader_wb_wait: true,
        }
    }
}

/// A set-associative cache (L1I, L1D, constant cache, L2 slice): spec 000 §8.1 item 3.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheConfig {
    /// Sets.
    pub sets: u32,
    /// Ways per set (at most 64).
    pub ways: u32,
    /// Line size, bytes (power of two).
    pub line_bytes: u32,
    /// Sector size, bytes: the valid/dirty granularity (divides `line_bytes`, at most 8 sectors).
    pub sector_bytes: u32,
    /// Set-index function: `linear` (line address mod sets) or `hashed` (XOR-folded, power-of-two sets).
    pub index: String,
    /// Replacement policy, a name of [`crate::mem::replacement::REPLACEMENTS`].
    pub replacement: String,
    /// Insertion / bypass policy, a name of [`crate::mem::insertion::INSERTIONS`].
    pub insertion: String,
    /// Ways of each set reserved for lines predicted critical by a partitioning replacement
    /// policy (`cacp`, spec 000 §4.5; Lee 2017 finds 8 of 16 best); 0 (the default) means half
    /// the ways. Must be below `ways`; other policies ignore it.
    #[serde(default)]
    pub critical_ways: u32,
    /// The 8-bit signature of the signature-indexed predictors (SHiP, CACP's CCBP; spec 000
    /// §4.5): `pc_addr` (the default, Lee 2017's literal `PC[7:0] xor addr[7:0]` (§4.2.3) with
    /// addr the byte address of the missing line: with 128 B lines only address bit 7 reaches
    /// the signature, so it is in effect the load PC and one PC's lines share their counters, as
    /// Figure 4.9's per-instruction reuse patterns motivate) or `pc_line` (the spec digest's
    /// recommendation: instruction-index PC bits xor the low 8 bits of the line address,
    /// `(addr >> 7)[7:0]` for 128 B lines; a PC's consecutive lines then spread over all 256
    /// signatures and every signature mixes every PC, so the counters cannot learn per
    /// instruction). Other policies ignore it.
    #[serde(default = "default_signature")]
    pub signature: String,
    /// What a partitioning replacement policy (`cacp`, spec 000 §4.5) does when every way of
    /// the partition it chose for a missing line is reserved by a fill in flight (no victim):
    /// `none` (the default) refuses the allocation, a reservation failure that stalls the
    /// access until a way of that partition fills, as GPGPU-Sim does for a set whose ways are
    /// all reserved; `other` (an \[INTERP\] option, the default of sessions 11-16) lets the
    /// line take a victim of the other partition. Lee 2017 §4.2.3 fixes the split: CACP
    /// allocates "a certain fixed amount of the L1 data cache capacity" to critical data and
    /// Algorithm 7 inserts a line only into the partition CCBP predicts, so a non-critical
    /// line in a critical way (what `other` allows) is not the document's cache (issue #12,
    /// session 17). Other policies ignore it.
    #[serde(default = "default_partition_fallback")]
    pub partition_fallback: String,
    /// `write_through` (update on hit, no allocate), `write_evict` (invalidate on hit, no
    /// allocate) or `write_back` (keep written data, write back dirty lines on eviction).
    pub write_policy: String,
    /// What a `write_back` L2 does on a write miss, a name of [`crate::mem::cache::WriteAllocate`]
    /// (GPGPU-Sim's fourth cache-string field): `lazy` (default; allocate the line and mark the
    /// written sectors valid and dirty, no fetch, acknowledge at once: GPGPU-Sim `L`), `naive`
    /// (send the write on to DRAM, allocate the line and read it from DRAM; the store is
    /// acknowledged when DRAM has written it: GPGPU-Sim `W`) or `none` (send the write on to
    /// DRAM without allocating; acknowledged by DRAM: GPGPU-Sim `N`). L1 caches accept only
    /// `lazy`.
    #[serde(default = "default_write_allocate")]
    pub write_allocate: String,
    /// Miss-status holding registers (outstanding line misses).
    pub mshr_entries: u32,
    /// Requests merged into one MSHR entry.
    pub mshr_merge: u32,
    /// Miss-queue entries (requests waiting for the next level).
    pub miss_queue: u32,
    /// Hit latency, cycles of the owner's clock.
    pub latency: u32,
    /// L1D only: data banks (GPGPU-Sim `-gpgpu_l1_banks`). The LD/ST unit hands up to this
    /// many of a memory instruction's transactions to the L1D per core cycle, each to the bank
    /// of its first sector (`bank_bytes` interleaving), and stops at the first whose bank is
    /// already taken that cycle (a bank conflict, as GPGPU-Sim's `BK_CONF`). 1 (the default):
    /// one transaction per cycle.
    #[serde(default = "default_banks")]
    pub banks: u32,
    /// L1D only: sector fetch (GPGPU-Sim's sectored L1, cache type `S` of `-gpgpu_cache:dl1`):
    /// a read miss fetches only the sectors it touches that are neither valid nor already being
    /// fetched (one read per miss for their span), and a line's waiters wake when all of its
    /// outstanding sectors have arrived. `false` (the default): a miss fetches the whole line.
    #[serde(default)]
    pub sector_fetch: bool,
    /// L1D only: bytes of each bank's interleaving unit (GPGPU-Sim
    /// `-gpgpu_l1_banks_byte_interleaving`, 32).
    #[serde(default = "default_bank_bytes")]
    pub bank_bytes: u32,
    /// L1D only: how the banks are shared within a cycle, a name of
    /// [`crate::mem::l1bank::ARBITERS`]: `first_sector` (the default, GPGPU-Sim's: a
    /// transaction takes the bank of its first sector and the first conflict ends the cycle)
    /// or `sectors` (a transaction takes the banks of all its sectors, so `banks x bank_bytes`
    /// is the L1D's data bytes per cycle; a conflicting one waits and later ones go ahead).
    #[serde(default = "default_bank_arbiter")]
    pub bank_arbiter: String,
    /// L1D only: a `write_through` L1D allocates a line on a store miss and keeps the stored
    /// sectors, valid and marked as written, without fetching the rest of the line; the store
    /// still goes on to the L2 (GPGPU-Sim's write-allocate `L`, lazy fetch on read, on a `T`
    /// L1D: `-gpgpu_cache:dl1 ...,L:T:m:L:...`). A stored sector is readable at once (GPGPU-Sim
    /// makes a partly written sector unreadable; we assume stores cover their sectors). `false`
    /// (the default): a store updates a line it hits and allocates nothing.
    #[serde(default)]
    pub store_allocate: bool,
    /// L1D only: the write ratio, percent of the cache's lines (GPGPU-Sim
    /// `-gpgpu_l1_cache_write_ratio`): a line holding stored sectors is a replacement
    /// candidate only while at least this percentage of all lines hold stored sectors, so
    /// clean lines go first. When every unreserved line of the set holds stored sectors below
    /// the ratio, the replacement policy chooses among them (GPGPU-Sim refuses the access, a
    /// reservation failure that can last for ever). 0 (the default): every line is a candidate.
    #[serde(default)]
    pub write_ratio: u32,
    /// L1D only: allocate on fill, GPGPU-Sim's streaming L1 (allocation `s` of
    /// `-gpgpu_cache:dl1`, which the importer pairs with its MSHR sizing: an entry per sector
    /// of the cache and 64 merges; and allocation `f`): a read miss reserves no line, it only
    /// takes an MSHR entry; the line is allocated (its victim chosen) when the data arrives, so
    /// a miss never waits for a way of its set. Not with `write_back`. `false` (the default):
    /// the line is allocated and reserved at the miss.
    #[serde(default)]
    pub allocate_on_fill: bool,
    /// Every read hits (GPGPU-Sim `-gpgpu_perfect_inst_const_cache 1`, for the L1I and the
    /// constant cache): no miss, no request to the L2, the hit latency only. Read by the L1I,
    /// the L1D and the constant cache; must be `false` for the L2. `false` (the default).
    #[serde(default)]
    pub perfect: bool,
    /// L1I only: 0 (the default of every preset) sends a miss as a line-size read through the
    /// interconnect to L2 and DRAM, as GPGPU-Sim does; a positive value instead fills the line
    /// at once and charges this fixed penalty, core cycles (a simplified mode for studies that
    /// want instruction fetch out of the memory system). Unused by the other caches.
    pub miss_latency: u32,
}

fn default_channel_index() -> String {
    "consecutive".into()
}

fn default_bank_arbiter() -> String {
    "first_sector".into()
}

fn default_banks() -> u32 {
    1
}

fn default_bank_bytes() -> u32 {
    32
}

/// The largest `core.sub_cores`.
pub const MAX_SUB_CORES: u32 = 8;

fn default_sub_cores() -> u32 {
    1
}

fn default_issue_per_warp() -> u32 {
    1
}

fn default_true() -> bool {
    true
}

fn default_cpl_critical() -> String {
    "slowest".into()
}

fn default_cpl_stall() -> String {
    "at_issue".into()
}

fn default_signature() -> String {
    "pc_addr".into()
}

fn default_partition_fallback() -> String {
    "none".into()
}

fn default_write_allocate() -> String {
    "lazy".into()
}

impl CacheConfig {
    /// Total capacity in bytes.
    pub fn capacity(&self) -> u64 {
        self.sets as u64 * self.ways as u64 * self.line_bytes as u64
    }
}

/// The per-SM read-only texture cache (GPGPU-Sim's `L1T`, `-gpgpu_tex_cache:l1`, a string
/// `<sets>:<line>:<assoc>,<rep>:R:m:N:<index>,T:<fragment fifo>:<request fifo>,<rob>:<result
/// fifo>`). With `enabled`, the loads of texture instructions (`OpClass::Tex`: `tex`, `tld4`,
/// `txq`, `suld`; trace `TEX`/`TLD`/...) go to this cache instead of the L1D: one coalesced
/// transaction per core cycle, hits return after `latency` core cycles, a miss fetches the
/// whole line from the L2 through the same request path as L1D misses (its reply fills this
/// cache). The cache is read-only, linearly indexed, LRU, allocates at the miss (GPGPU-Sim's
/// `m`), and is invalidated at every kernel boundary like the constant cache. Without
/// `enabled` (the default) texture loads use the L1D, as before this component existed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TexConfig {
    /// Route texture loads through this cache (`false`: through the L1D).
    pub enabled: bool,
    /// Sets.
    pub sets: u32,
    /// Ways per set (at most 64; the importer folds wider caches into more sets).
    pub ways: u32,
    /// Line size, bytes (power of two): the fill unit of a miss.
    pub line_bytes: u32,
    /// Hit latency, core cycles (GPGPU-Sim has no option for it; see docs/VALIDATION.md).
    pub latency: u32,
    /// Outstanding line misses (GPGPU-Sim's reorder buffer, `<rob>`: one entry per miss in
    /// flight).
    pub mshr_entries: u32,
    /// Accesses waiting on one missing line (GPGPU-Sim bounds all waiting accesses by the
    /// fragment FIFO, `<fragment fifo>`; we bound them per line by the same number).
    pub mshr_merge: u32,
    /// Misses waiting for the interconnect (GPGPU-Sim's request FIFO, `<request fifo>`).
    pub miss_queue: u32,
}

impl Default for TexConfig {
    /// GPGPU-Sim's Fermi texture cache (`4:128:24,L:R:m:N:L,T:128:4,128:2`, 12 KiB), off.
    fn default() -> Self {
        Self {
            enabled: false,
            sets: 4,
            ways: 24,
            line_bytes: 128,
            latency: 35,
            mshr_entries: 128,
            mshr_merge: 128,
            miss_queue: 4,
        }
    }
}

impl TexConfig {
    /// The cache the SM builds: read-only (`write_through`, never written), LRU, linear index,
    /// 32-byte coalescing sectors (whole lines fetched on a miss).
    pub fn cache(&self) -> CacheConfig {
        CacheConfig {
            sets: self.sets,
            ways: self.ways,
            line_bytes: self.line_bytes,
            sector_bytes: self.line_bytes.clamp(1, 32),
            index: "linear".into(),
            replacement: "lru".into(),
            insertion: "always".into(),
            critical_ways: 0,
            partition_fallback: default_partition_fallback(),
            signature: default_signature(),
            write_policy: "write_through".into(),
            write_allocate: default_write_allocate(),
            mshr_entries: self.mshr_entries,
            mshr_merge: self.mshr_merge,
            miss_queue: self.miss_queue,
            latency: self.latency,
            banks: 1,
            sector_fetch: false,
            bank_bytes: default_bank_bytes(),
            bank_arbiter: default_bank_arbiter(),
            store_allocate: false,
            write_ratio: 0,
            allocate_on_fill: false,
            perfect: false,
            miss_latency: 0,
        }
    }
}

/// Shared memory (banked scratchpad).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SharedConfig {
    /// Banks.
    pub banks: u32,
    /// Bank width, bytes.
    pub bank_bytes: u32,
    /// Latency of a conflict-free access, core cycles.
    pub latency: u32,
    /// Parts a warp's shared-memory access is split into, served one after another, each with
    /// its own bank conflicts (GPGPU-Sim `-gpgpu_shmem_warp_parts`: 2 = half-warps, as on
    /// GT200); 1 (the default, Fermi and later): the whole warp at once.
    #[serde(default = "default_warp_parts")]
    pub warp_parts: u32,
    /// Unified L1 data cache and shared memory (Volta and later), bytes per SM: at each launch
    /// the smallest of `carveouts` that holds the kernel's shared memory (per CTA times the
    /// CTAs that fit an SM) goes to shared memory and the rest is the L1D, whose ways scale
    /// with it ([`crate::mem::carveout`]; GPGPU-Sim `-gpgpu_unified_l1d_size` with
    /// `-gpgpu_adaptive_cache_config 1`). 0 (the default): the L1D keeps the `l1d` geometry.
    #[serde(default)]
    pub unified_bytes: u32,
    /// Shared-memory carve-outs, bytes, ascending, each at most `unified_bytes` (GPGPU-Sim
    /// `-gpgpu_shmem_option`, in KiB there).
    #[serde(default)]
    pub carveouts: Vec<u32>,
}

fn default_warp_parts() -> u32 {
    1
}

/// Request and reply networks between SMs and L2 slices (spec 000 §8.1 item 4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IcntConfig {
    /// Bytes per flit.
    pub flit_bytes: u32,
    /// Control bytes added to every packet.
    pub header_bytes: u32,
    /// Flits a port moves per interconnect cycle (each direction).
    pub flits_per_cycle: u32,
    /// Interconnect cycles from injection of the head flit to ejection.
    pub latency: u32,
    /// Packets a source can queue for injection.
    pub input_buffer: u32,
    /// Packets buffered at each destination (in flight plus arrived).
    pub ejection_buffer: u32,
    /// Packets buffered at each L2-slice destination of the request network (GPGPU-Sim's
    /// local crossbar output buffer, `-icnt_out_buffer_limit`, `network_mode 2`); the reply
    /// network's SM destinations keep `ejection_buffer` (the cluster's response FIFO).
    /// 0 (the default): `ejection_buffer` for both.
    #[serde(default)]
    pub output_buffer: u32,
}

/// An L2 slice (memory sub-partition) and its queues (spec 000 §8.1 item 5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct L2Config {
    /// Slices per DRAM channel.
    pub slices_per_channel: u32,
    /// L2 cycles from arrival at the slice to the tag access (GPGPU-Sim's ROP latency).
    pub rop_latency: u32,
    /// Requests in the ROP queue per slice.
    pub input_queue: u32,
    /// Replies waiting for the reply network per slice.
    pub output_queue: u32,
    /// Requests waiting to enter the DRAM controller per slice.
    pub dram_queue: u32,
    /// L2 cycles added to every DRAM access (GPGPU-Sim's `dram_latency`).
    pub dram_latency: u32,
    /// Sector requests (GPGPU-Sim's sectored L2, cache type `S`, which splits every request
    /// into 32-byte sector requests at the memory partition): a request takes one tag-access
    /// cycle per sector it touches, and a read miss fetches only its missing sectors, one DRAM
    /// request per sector (each a whole DRAM burst, however few bytes it carries). `false` (the
    /// default, and the Fermi presets) keeps one tag access per request and whole-line fills;
    /// `cache.sector_bytes` then only sets the valid/dirty granularity.
    #[serde(default)]
    pub sector_requests: bool,
    /// Extra L2 cycles of a request that crosses to the other half of a two-partition L2
    /// (H100: about 400-500 cycles for a far hit against 290 near); reads that crossed leave a
    /// copy in the requester's half, which later reads of the line use without the extra
    /// ([`crate::mem::l2far`]). 0 (the default): one partition.
    #[serde(default)]
    pub far_latency: u32,
    /// Invalidate every L2 line (the far-half copies too) at the start of each launch, dirty
    /// ones dropped untimed, as Nsight Compute's default `--cache-control all` does before each
    /// profiled kernel (GPGPU-Sim `-gpgpu_flush_l2_cache`; lines awaiting a fill stay). The L1s
    /// are flushed at every launch regardless. `false` (the default): the L2 keeps its
    /// contents from launch to launch.
    #[serde(default)]
    pub flush_between_launches: bool,
    /// Geometry and policies of one slice.
    pub cache: CacheConfig,
}

/// GDDR5 timing, DRAM command cycles.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DramTiming {
    /// Column to column, different bank group.
    pub t_ccd: u32,
    /// Column to column, same bank group.
    pub t_ccdl: u32,
    /// Activate to activate, different banks.
    pub t_rrd: u32,
    /// Activate to column command.
    pub t_rcd: u32,
    /// Activate to precharge.
    pub t_ras: u32,
    /// Precharge to activate.
    pub t_rp: u32,
    /// Activate to activate, same bank.
    pub t_rc: u32,
    /// Read command to data (CAS latency).
    pub t_cl: u32,
    /// Write command to data.
    pub t_wl: u32,
    /// End of write data to read command.
    pub t_wtr: u32,
    /// End of write data to precharge (write recovery).
    pub t_wr: u32,
    /// Read to precharge.
    pub t_rtp: u32,
}

/// DRAM channels and controllers (spec 000 §8.1 item 6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DramConfig {
    /// Channels (one controller each).
    pub channels: u32,
    /// Request scheduler, a name of [`crate::dram::sched::DRAM_SCHEDULERS`].
    pub scheduler: String,
    /// Request-queue entries per controller.
    pub queue_size: u32,
    /// Completed requests waiting for the L2 per controller.
    pub return_queue: u32,
    /// Data-bus width, bytes per data beat.
    pub bus_bytes: u32,
    /// Data beats per column access.
    pub burst_length: u32,
    /// Data beats per command cycle (4 for GDDR5).
    pub data_ratio: u32,
    /// Banks per channel (power of two).
    pub banks: u32,
    /// Bank groups (power of two dividing `banks`; bank group = bank mod groups, or see
    /// `bank_group_high_bits`).
    pub bank_groups: u32,
    /// The bank group is the bank number's high bits, `bank / (banks / bank_groups)`
    /// (GPGPU-Sim `-dram_bnkgrp_indexing_policy 0`), so consecutive banks share a group.
    /// `false` (the default; policy 1): the low bits, `bank mod bank_groups`.
    #[serde(default)]
    pub bank_group_high_bits: bool,
    /// The DRAM bank of a request is the address's bank bits XOR the low bits of its row
    /// (GPGPU-Sim `-dram_bnk_indexing_policy 1`, `bitwise_hash_function`), spreading the rows
    /// of one bank-bit pattern over all banks. The L2 slice still comes from the unhashed bank
    /// bits, as in GPGPU-Sim. `false` (the default; policy 0): the bank bits as they are.
    #[serde(default)]
    pub bank_xor_row: bool,
    /// Entries of each controller's write queue (GPGPU-Sim `-dram_write_queue_size`, first
    /// field, with `-dram_seperate_write_queue_enable 1`); 0 (the default): `queue_size`.
    /// Reads and writes queue separately; the controller serves reads until the queued writes
    /// reach `write_high`, then only writes until they fall below `write_low` (and writes
    /// whenever no read is queued).
    #[serde(default)]
    pub write_queue: u32,
    /// Queued writes that start a write drain (`-dram_write_queue_size` second field); 0 (the
    /// default): three quarters of the write queue, rounded up.
    #[serde(default)]
    pub write_high: u32,
    /// A drain stops when fewer writes than this are queued (third field); 0 (the default):
    /// a quarter of the write queue, rounded down, plus one.
    #[serde(default)]
    pub write_low: u32,
    /// Bit above which the channel is `(addr >> channel_bit) mod channels`.
    pub channel_bit: u32,
    /// Separate row and column command buses (HBM; GPGPU-Sim `-dram_dual_bus_interface 1`): an
    /// activate or precharge and a column command may issue in the same command cycle. `false`
    /// (the default, GDDR): one command per cycle.
    #[serde(default)]
    pub dual_bus: bool,
    /// Channel indexing, a name of [`crate::dram::chanidx::CHANNEL_INDEX`]: `consecutive`
    /// (the default), `xor` or `ipoly` (GPGPU-Sim `-gpgpu_memory_partition_indexing` 0, 1, 2;
    /// the last two need a power-of-two channel count).
    #[serde(default = "default_channel_index")]
    pub channel_index: String,
    /// GPGPU-Sim-style mask of the channel-local address: 64 letters (dots ignored), MSB first;
    /// `R` row, `B` bank, `C` column, `S` burst offset, `0` unused.
    pub addr_map: String,
    /// Timing parameters.
    pub timing: DramTiming,
}

impl DramConfig {
    /// The bank group of bank `bank` (`bank_groups`, `bank_group_high_bits`).
    #[inline]
    pub fn bank_group(&self, bank: usize) -> usize {
        // `bank_groups` is a power of two (validated): the low bits without a division.
        let groups = self.bank_groups.max(1) as usize;
        if self.bank_group_high_bits {
            bank / (self.banks as usize / groups).max(1)
        } else {
            bank & (groups - 1)
        }
    }

    /// Write-queue entries, drain start and drain stop (`write_queue`, `write_high`,
    /// `write_low` with their defaults applied).
    pub fn write_watermarks(&self) -> (usize, usize, usize) {
        let cap = if self.write_queue == 0 {
            self.queue_size
        } else {
            self.write_queue
        } as usize;
        let high = match self.write_high {
            0 => (3 * cap).div_ceil(4),
            h => h as usize,
        };
        let low = match self.write_low {
            0 => cap / 4 + 1,
            l => l as usize,
        };
        (cap, high, low)
    }

    /// Bytes moved by one column access (`bus_bytes * burst_length`).
    pub fn burst_bytes(&self) -> u32 {
        self.bus_bytes * self.burst_length
    }
    /// Command cycles the data bus is busy per column access.
    pub fn burst_cycles(&self) -> u32 {
        self.burst_length.div_ceil(self.data_ratio)
    }
}

/// Simulation control.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimConfig {
    /// Core cycles without any issue or memory progress before stopping with a deadlock diagnosis.
    pub deadlock_cycles: u64,
    /// Core cycles without any warp exit or CTA start before stopping with a livelock diagnosis.
    pub watchdog_cycles: u64,
    /// Skip idle work (a speed switch: statistics are identical either way): the pipeline
    /// stages of an SM with nothing in flight, and whole-GPU cycles in which every SM only waits
    /// and every memory-side component waits for a known future cycle (see `gpu.rs`).
    pub skip_idle: bool,
    /// Latency attribution of every warp's cycles to stall factors (Lee 2017 §3.2, Algorithms 1
    /// and 2; `latency` in the statistics). Off by default: it probes every examined warp every
    /// cycle, which costs about 10% of simulation speed; timing is identical either way.
    #[serde(default)]
    pub latency_attribution: bool,
    /// Reuse-distance histogram of L1D loads (Lee 2017 §5.1 Figure 5.3; `raw.l1d_reuse` in the
    /// statistics). Off by default: it scans a per-set stack on every L1D load; timing is
    /// identical either way.
    #[serde(default)]
    pub reuse_histogram: bool,
    /// Record every warp's dispatch and retirement cycles (`warp_times` of each launch in the
    /// statistics: the per-warp execution times that feed CAWS's oracle, spec 000 §3.3).
    #[serde(default)]
    pub warp_times: bool,
    /// Run CPL, CAWA's criticality prediction (spec 000 §4.3), and report its accuracy
    /// (`cpl_samples`, `cpl_correct` and their `_spread` forms in `raw.core`) and the L1D's
    /// critical-warp loads (`critical_accesses`, `critical_hits`). Off by default: CPL then
    /// runs only where a scheduler, insertion or replacement policy reads criticality (gCAWS,
    /// CACP: `reads_criticality`), and those counters are 0 otherwise. Timing is identical
    /// either way (CPL only feeds the policies that read it).
    #[serde(default)]
    pub cpl: bool,
    /// CPL's rank-correlation diagnostic (issue #12, session 15): keeps every accuracy
    /// sample's counter parts per thread block and reports Spearman's rho between the warps'
    /// final execution times and their counters, and each term of Eq. 4.1, at 25%, 50% and 75%
    /// of each TB's lifetime (`cpl_rank_tbs`, `cpl_rho_*` in `raw.core`). Implies `sim.cpl`.
    /// Off by default (it holds a TB's samples until the TB finishes); timing is identical
    /// either way.
    #[serde(default)]
    pub cpl_rank: bool,
    /// Cross-check of the schedulers' kept classification (a test switch): every cycle, each
    /// scheduler's view built from the per-warp reasons kept between cycles (and from its
    /// last view, reused while nothing it depends on changed) is compared with a full read of
    /// every warp, and a difference stops the run with a panic naming the SM, scheduler,
    /// cycle and warp. Off by default (it reads every warp every cycle); timing and
    /// statistics are identical either way.
    #[serde(default)]
    pub check_classes: bool,
    /// Synchronisation window, core cycles (`gpu/window.rs`): 1 (the default) steps every SM
    /// and the memory side cycle by cycle; `W` > 1 lets every SM run `W` cycles on its own
    /// (on any thread) between synchronisations, with window semantics for global memory
    /// (stores visible to other SMs at the window's end, global atomics executed there),
    /// window-granular request-queue credits, replies and CTA dispatch at window starts.
    /// A model change: statistics differ from `W = 1` but not between thread counts.
    /// Any clock ratio: with the interconnect off the core clock (`clocks.icnt_mhz`), a window
    /// start between two interconnect ticks hands the SMs the replies that arrived by the
    /// last tick before it.
    #[serde(default = "one")]
    pub window: u32,
    /// With `window` > 1: run the memory side of window `k` while the SMs run window `k + 1`
    /// (`gpu/window.rs`), on the main thread while the team steps the SMs. The SMs' queued
    /// requests are handed to the network at window starts and replies reach the SMs one
    /// window later (about `window` more cycles per reply); request-queue credits return one
    /// window later too. A model change (statistics differ from `false`, not between thread
    /// counts). Off by default.
    #[serde(default)]
    pub window_overlap: bool,
    /// With `window` > 1: split the memory side by memory partition (a DRAM channel and its L2
    /// slices), each partition stepping a window's span as one job of the team
    /// (`gpu/parts.rs`). The networks couple the partitions every cycle, so this is a model
    /// change: the request network sees each slice's buffer room as of the window's start, and
    /// a slice its reply queue's room (window-granular credits at the partition boundary).
    /// Statistics differ from `false`, not between thread counts. Off by default.
    #[serde(default)]
    pub window_partitions: bool,
}

fn one() -> u32 {
    1
}

/// The CAWS scheduler (`core.scheduler = "caws"`, spec 000 §3.2-3.3): oracle criticality from a
/// previous run's per-warp execution times, priority counters reset per criticality level.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CawsConfig {
    /// Oracle file: per launch, CTA and warp, the execution time of a baseline run
    /// ([`crate::core::sched::caws::Oracle`], JSON). Empty: no warp is critical (plain
    /// counter round robin).
    pub oracle: String,
    /// `blk` (the most critical warp of each CTA), `sm` (the N most critical warps of the SM,
    /// N = resident CTAs) or `avg` (warps 20% above their CTA's average are critical, 20% below
    /// are fast).
    pub variant: String,
    /// Counter reset of a critical warp (issues until its turn; 40 = 48/1.2: 20% more issue
    /// slots than a normal warp).
    pub reset_critical: u32,
    /// Counter reset of a normal warp (48).
    pub reset_normal: u32,
    /// Counter reset of a fast warp (`avg` only; 60 = 48/0.8, the digest's recommendation).
    pub reset_fast: u32,
}

impl Default for CawsConfig {
    fn default() -> Self {
        CawsConfig {
            oracle: String::new(),
            variant: "avg".into(),
            reset_critical: 40,
            reset_normal: 48,
            reset_fast: 60,
        }
    }
}

/// The whole GPU: the root of the configuration tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuConfig {
    /// Preset name.
    pub name: String,
    /// One-line description.
    #[serde(default)]
    pub description: String,
    /// Clock domains.
    pub clocks: Clocks,
    /// SIMT cores.
    pub core: CoreConfig,
    /// L1 instruction cache (per SM).
    pub l1i: CacheConfig,
    /// L1 data cache (per SM).
    pub l1d: CacheConfig,
    /// Constant cache (per SM).
    pub const_cache: CacheConfig,
    /// Texture cache (per SM); absent: off, texture loads use the L1D.
    #[serde(default)]
    pub tex: TexConfig,
    /// Shared memory (per SM).
    pub shared: SharedConfig,
    /// Interconnect.
    pub icnt: IcntConfig,
    /// L2 slices.
    pub l2: L2Config,
    /// DRAM.
    pub dram: DramConfig,
    /// Simulation control.
    pub sim: SimConfig,
}

/// Removes the `base` (or its older spelling `inherits`) key of a configuration's top table:
/// `(key, parent)`, or `None` when it names no base.
fn take_base(v: &mut toml::Value) -> Result<Option<(&'static str, String)>, ConfigError> {
    let Some(t) = v.as_table_mut() else {
        return Ok(None);
    };
    let (key, parent) = match (t.remove("base"), t.remove("inherits")) {
        (None, None) => return Ok(None),
        (Some(_), Some(_)) => {
            return Err(ConfigError::new(
                "base",
                "`base` and `inherits` name the same thing; give one",
            ))
        }
        (Some(p), None) => ("base", p),
        (None, Some(p)) => ("inherits", p),
    };
    match parent {
        toml::Value::String(p) => Ok(Some((key, p))),
        _ => Err(ConfigError::new(
            key,
            "expected a preset name or a TOML file path (a string)",
        )),
    }
}

/// A base that names a file rather than a preset.
fn is_path(s: &str) -> bool {
    s.ends_with(".toml") || s.contains('/') || s.contains('\\')
}

fn merge(base: &mut toml::Value, over: toml::Value) {
    match (base, over) {
        (toml::Value::Table(b), toml::Value::Table(o)) => {
            for (k, v) in o {
                match b.get_mut(&k) {
                    Some(bv) if bv.is_table() && v.is_table() => merge(bv, v),
                    _ => {
                        b.insert(k, v);
                    }
                }
            }
        }
        (b, o) => *b = o,
    }
}

fn type_name(v: &toml::Value) -> &'static str {
    match v {
        toml::Value::String(_) => "string",
        toml::Value::Integer(_) => "integer",
        toml::Value::Float(_) => "float",
        toml::Value::Boolean(_) => "boolean",
        toml::Value::Datetime(_) => "datetime",
        toml::Value::Array(_) => "array",
        toml::Value::Table(_) => "table",
    }
}

impl GpuConfig {
    /// Names of the built-in presets.
    pub fn preset_names() -> Vec<&'static str> {
        PRESETS.iter().map(|p| p.0).collect()
    }

    /// Loads a built-in preset by name.
    pub fn preset(name: &str) -> Result<GpuConfig, ConfigError> {
        let v = Self::preset_value(name, 0)?;
        Self::from_value(v, name)
    }

    fn preset_value(name: &str, depth: u32) -> Result<toml::Value, ConfigError> {
        let Some((_, text)) = PRESETS.iter().find(|p| p.0 == name) else {
            return Err(ConfigError::new(
                "preset",
                format!(
                    "unknown preset `{name}` (known: {})",
                    Self::preset_names().join(", ")
                ),
            ));
        };
        Self::text_value(text, &format!("configs/{name}.toml"), depth, false)
    }

    /// The merged TOML value of a configuration text: its `base` (or `inherits`) chain, then
    /// its own keys over it. `on_disk`: `file` is a path, so a base may be a path relative to it.
    fn text_value(
        text: &str,
        file: &str,
        depth: u32,
        on_disk: bool,
    ) -> Result<toml::Value, ConfigError> {
        let mut v: toml::Value = toml::from_str(text)
            .map_err(|e| ConfigError::new(file, format!("malformed TOML: {e}")))?;
        let Some((key, parent)) = take_base(&mut v)? else {
            return Ok(v);
        };
        if depth > 8 {
            return Err(ConfigError::new(key, "base chain deeper than 8 (a cycle?)"));
        }
        let mut base = Self::parent_value(key, &parent, file, depth, on_disk)?;
        merge(&mut base, v);
        Ok(base)
    }

    /// The merged value of the base `parent` named by `key` in `file`: a preset name, or (for a
    /// file on disk) a TOML path relative to `file`'s folder. A base file must be a complete
    /// configuration once its own base is applied; its errors name its own lines.
    fn parent_value(
        key: &str,
        parent: &str,
        file: &str,
        depth: u32,
        on_disk: bool,
    ) -> Result<toml::Value, ConfigError> {
        if !is_path(parent) {
            return Self::preset_value(parent, depth + 1).map_err(|e| match e.key.as_str() {
                "preset" => ConfigError::new(key, e.reason),
                _ => e,
            });
        }
        if !on_disk {
            return Err(ConfigError::new(
                key,
                "a built-in preset's base must be a preset name",
            ));
        }
        let dir = std::path::Path::new(file)
            .parent()
            .unwrap_or(std::path::Path::new(""));
        let path = dir.join(parent);
        let pfile = path.display().to_string();
        let ptext = std::fs::read_to_string(&path)
            .map_err(|e| ConfigError::new(key, format!("cannot read base `{pfile}`: {e}")))?;
        let pv = Self::text_value(&ptext, &pfile, depth + 1, true)
            .map_err(|e| e.in_file(&pfile, Some(&ptext)))?;
        Self::from_value(pv.clone(), &pfile).map_err(|e| e.in_file(&pfile, Some(&ptext)))?;
        Ok(pv)
    }

    /// The configuration a preset or TOML file is layered on (its `base` / `inherits`), or
    /// `None` when it names none (for `warpforge config show --diff`).
    pub fn load_base(name_or_path: &str) -> Result<Option<GpuConfig>, ConfigError> {
        let (text, file, on_disk) = if name_or_path.ends_with(".toml") {
            let text = std::fs::read_to_string(name_or_path).map_err(|e| {
                ConfigError::new(name_or_path, format!("cannot read: {e}"))
                    .in_file(name_or_path, None)
            })?;
            (text, name_or_path.to_string(), true)
        } else {
            let Some((_, text)) = PRESETS.iter().find(|p| p.0 == name_or_path) else {
                return Self::preset(name_or_path).map(Some);
            };
            (
                text.to_string(),
                format!("configs/{name_or_path}.toml"),
                false,
            )
        };
        let mut v: toml::Value = toml::from_str(&text)
            .map_err(|e| ConfigError::new(&*file, format!("malformed TOML: {e}")))?;
        let Some((key, parent)) = take_base(&mut v).map_err(|e| e.in_file(&file, Some(&text)))?
        else {
            return Ok(None);
        };
        let pv = Self::parent_value(key, &parent, &file, 0, on_disk)
            .map_err(|e| e.in_file(&file, Some(&text)))?;
        Self::from_value(pv, &parent)
            .map(Some)
            .map_err(|e| e.in_file(&file, Some(&text)))
    }

    /// Parses a TOML file's text (`file` names it in errors); `inherits = "preset"` is allowed.
    /// A value of the wrong type, an unknown key or an invalid value is reported with the file,
    /// the line of the key in `text` and its dotted path.
    pub fn from_toml(text: &str, file: &str) -> Result<GpuConfig, ConfigError> {
        Self::text_value(text, file, 0, true)
            .and_then(|v| Self::from_value(v, file))
            .map_err(|e| e.in_file(file, Some(text)))
    }

    /// Loads a preset by name, or a TOML file if `name_or_path` ends in `.toml`.
    pub fn load(name_or_path: &str) -> Result<GpuConfig, ConfigError> {
        if name_or_path.ends_with(".toml") {
            let text = std::fs::read_to_string(name_or_path).map_err(|e| {
                ConfigError::new(name_or_path, format!("cannot read: {e}"))
                    .in_file(name_or_path, None)
            })?;
            Self::from_toml(&text, name_or_path)
        } else {
            Self::preset(name_or_path)
        }
    }

    /// Deserialises a merged configuration; a type error or unknown key names its dotted path
    /// (`file` when the error concerns the whole document).
    fn from_value(v: toml::Value, file: &str) -> Result<GpuConfig, ConfigError> {
        let cfg: GpuConfig = serde_path_to_error::deserialize(v).map_err(|e| {
            let key = match e.path().to_string() {
                p if p == "." => file.to_string(),
                p => p,
            };
            let mut reason = e.inner().message().to_string();
            if reason.starts_with("missing field") {
                reason.push_str(
                    "; a file may start with `base = \"gtx480\"` (a preset name or a TOML path) \
                     and list only the keys that differ",
                );
            }
            ConfigError::new(key, reason)
        })?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// The configuration as TOML text.
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).unwrap_or_default()
    }

    /// Every dotted key with its current value, sorted (for `warpforge config show`).
    pub fn keys(&self) -> Vec<(String, String)> {
        fn walk(prefix: &str, v: &toml::Value, out: &mut Vec<(String, String)>) {
            if let toml::Value::Table(t) = v {
                for (k, v) in t {
                    let key = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    walk(&key, v, out);
                }
            } else {
                out.push((prefix.to_string(), v.to_string()));
            }
        }
        let v = toml::Value::try_from(self).expect("config serialises");
        let mut out = Vec::new();
        walk("", &v, &mut out);
        out.sort();
        out
    }

    /// Overrides one field: `key` is a dotted path (`l1d.sets`), `value` is parsed as the field's
    /// current type (integer, float, boolean, string, or a comma-separated integer list). The
    /// result is re-validated (to change keys that must agree, use
    /// [`GpuConfig::apply_overrides`], which validates once after the last key).
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), ConfigError> {
        let mut cfg = self.clone();
        cfg.assign(key, value)?;
        cfg.validate()?;
        *self = cfg;
        Ok(())
    }

    /// [`GpuConfig::set`] without the validation.
    fn assign(&mut self, key: &str, value: &str) -> Result<(), ConfigError> {
        let mut root = toml::Value::try_from(&*self).expect("config serialises");
        let mut cur = &mut root;
        let parts: Vec<&str> = key.split('.').collect();
        for (i, p) in parts.iter().enumerate() {
            let here = parts[..i].join(".");
            let t = match cur {
                toml::Value::Table(t) => t,
                _ => {
                    return Err(ConfigError::new(
                        key,
                        format!("`{here}` is a value, not a table"),
                    ))
                }
            };
            if !t.contains_key(*p) {
                let mut known: Vec<&String> = t.keys().collect();
                known.sort();
                let known: Vec<&str> = known.iter().map(|s| s.as_str()).collect();
                return Err(ConfigError::new(
                    key,
                    format!("unknown key (known here: {})", known.join(", ")),
                ));
            }
            cur = t.get_mut(*p).unwrap();
        }
        let new =
            match &*cur {
                toml::Value::String(_) => toml::Value::String(value.to_string()),
                toml::Value::Integer(_) => toml::Value::Integer(value.parse().map_err(|_| {
                    ConfigError::new(key, format!("expected an integer, got `{value}`"))
                })?),
                toml::Value::Float(_) => toml::Value::Float(value.parse().map_err(|_| {
                    ConfigError::new(key, format!("expected a number, got `{value}`"))
                })?),
                toml::Value::Boolean(_) => toml::Value::Boolean(value.parse().map_err(|_| {
                    ConfigError::new(key, format!("expected true or false, got `{value}`"))
                })?),
                // A list of integers (`shared.carveouts`): `0,8192` or `[0, 8192]`.
                toml::Value::Array(_) => {
                    let inner = value.trim().trim_start_matches('[').trim_end_matches(']');
                    let items: Result<Vec<toml::Value>, _> = inner
                        .split(',')
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(|s| s.parse::<i64>().map(toml::Value::Integer))
                        .collect();
                    toml::Value::Array(items.map_err(|_| {
                        ConfigError::new(
                            key,
                            format!("expected comma-separated integers, got `{value}`"),
                        )
                    })?)
                }
                other => {
                    return Err(ConfigError::new(
                        key,
                        format!("is a {}; only scalar fields can be set", type_name(other)),
                    ))
                }
            };
        *cur = new;
        *self = root
            .try_into()
            .map_err(|e: toml::de::Error| ConfigError::new(key, e.message().to_string()))?;
        Ok(())
    }

    /// Applies `key=value` overrides in order, then validates the result once, so that keys
    /// which must agree (`sim.window` and `sim.window_overlap`) can be given in any order. On
    /// error `self` is unchanged.
    pub fn apply_overrides<S: AsRef<str>>(&mut self, sets: &[S]) -> Result<(), ConfigError> {
        let mut cfg = self.clone();
        for s in sets {
            let s = s.as_ref();
            let Some((k, v)) = s.split_once('=') else {
                return Err(ConfigError::new(s, "expected key=value"));
            };
            cfg.assign(k.trim(), v.trim())?;
        }
        cfg.validate()?;
        *self = cfg;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_load_and_match_the_tables() {
        let g = GpuConfig::preset("gtx480").unwrap();
        assert_eq!(g.core.num_sms, 15);
        assert_eq!(g.core.max_warps, 48);
        assert_eq!(g.core.max_ctas, 8);
        assert_eq!(g.core.schedulers, 2);
        assert_eq!(g.core.registers, 32768);
        assert_eq!(g.l1d.capacity(), 16 * 1024);
        assert_eq!((g.l1d.sets, g.l1d.ways), (32, 4));
        assert_eq!(g.l1i.capacity(), 2 * 1024);
        let l2_total = g.l2.cache.capacity() * (g.dram.channels * g.l2.slices_per_channel) as u64;
        assert_eq!(l2_total, 768 * 1024);
        assert_eq!(g.l2.rop_latency, 120);
        assert_eq!(g.l2.rop_latency + g.l2.dram_latency, 220);
        let c = GpuConfig::preset("gtx480-cawa").unwrap();
        assert_eq!((c.l1d.sets, c.l1d.ways), (8, 16));
        assert_eq!(c.l1d.capacity(), 16 * 1024);
        assert_eq!(c.core.num_sms, 15);
        // GPGPU-Sim 3.2.0's L1D MSHRs and hit paths (the version of Chapters 3-4).
        assert_eq!(c.l1d.mshr_entries, 32);
        assert_eq!((c.l1d.latency, c.shared.latency), (1, 3));
        // 3.2.0's clock domains 700:1400:700:924 (core:interconnect:L2:DRAM).
        assert_eq!(c.clocks.icnt_mhz, 1400.0);
        assert_eq!(c.clocks.icnt_mhz, 2.0 * c.clocks.core_mhz);
        assert_eq!(
            (c.clocks.l2_mhz, c.clocks.dram_mhz),
            (g.clocks.l2_mhz, g.clocks.dram_mhz)
        );
        let r = GpuConfig::preset("gtx480-ctrlc").unwrap();
        assert_eq!(r.l2.slices_per_channel * r.dram.channels, 12);
        assert_eq!(r.l2.cache.ways, 8);
        let l2_total = r.l2.cache.capacity() * 12;
        assert_eq!(l2_total, 768 * 1024);
    }

    #[test]
    fn overrides_are_type_checked_and_named() {
        let mut g = GpuConfig::preset("gtx480").unwrap();
        g.set("l1d.sets", "64").unwrap();
        assert_eq!(g.l1d.sets, 64);
        g.set("core.scheduler", "lrr").unwrap();
        assert_eq!(g.core.scheduler, "lrr");
        g.set("clocks.dram_mhz", "1000").unwrap();
        assert_eq!(g.clocks.dram_mhz, 1000.0);
        let e = g.set("l1d.setz", "4").unwrap_err();
        assert_eq!(e.key, "l1d.setz");
        assert!(e.reason.contains("sets"), "{e}");
        let e = g.set("l1d.sets", "many").unwrap_err();
        assert!(e.reason.contains("integer"), "{e}");
        let e = g.set("core.scheduler", "fastest").unwrap_err();
        assert_eq!(e.key, "core.scheduler");
        assert!(e.reason.contains("gto"), "{e}");
        assert_eq!(g.core.cpl_critical, "slowest");
        g.set("core.cpl_critical", "top_half").unwrap();
        let e = g.set("core.cpl_critical", "fastest").unwrap_err();
        assert_eq!(e.key, "core.cpl_critical");
        assert!(e.reason.contains("slowest, top_half"), "{e}");
        assert_eq!(g.core.cpl_stall, "at_issue");
        assert_eq!(g.l1d.signature, "pc_addr", "Lee 2017's literal signature");
        assert_eq!(
            g.l1d.partition_fallback, "none",
            "Lee 2017 §4.2.3: a fixed split"
        );
        g.set("l1d.partition_fallback", "other").unwrap();
        let e = g.set("l1d.partition_fallback", "elsewhere").unwrap_err();
        assert_eq!(e.key, "l1d.partition_fallback");
        g.set("core.cpl_stall", "accruing").unwrap();
        let e = g.set("core.cpl_stall", "never").unwrap_err();
        assert_eq!(e.key, "core.cpl_stall");
        assert!(e.reason.contains("at_issue, accruing"), "{e}");
        let e = g.set("l1d", "3").unwrap_err();
        assert!(e.reason.contains("table"), "{e}");
        let e = g.apply_overrides(&["l1d.sets"]).unwrap_err();
        assert!(e.reason.contains("key=value"));
        assert!(g.set("l1d.sets", "0").is_err());
        // `sim.window_overlap` needs `sim.window` > 1, whatever order the two keys come in.
        let base = GpuConfig::preset("gtx480").unwrap();
        let e = base
            .clone()
            .apply_overrides(&["sim.window_overlap=true"])
            .unwrap_err();
        assert_eq!(e.key, "sim.window_overlap");
        assert!(e.reason.contains("sim.window > 1"), "{e}");
        let mut unchanged = base.clone();
        assert!(unchanged.set("sim.window_overlap", "true").is_err());
        assert_eq!(
            unchanged, base,
            "a refused key leaves the configuration as it was"
        );
        let mut a = base.clone();
        a.apply_overrides(&["sim.window_overlap=true", "sim.window=4"])
            .unwrap();
        let mut b = base.clone();
        b.apply_overrides(&["sim.window=4", "sim.window_overlap=true"])
            .unwrap();
        assert_eq!(a, b);
        assert!(a.sim.window_overlap && a.sim.window == 4);
        for order in [
            ["sim.window_overlap=true", "sim.window=1"],
            ["sim.window=1", "sim.window_overlap=true"],
        ] {
            let mut c = base.clone();
            let e = c.apply_overrides(&order).unwrap_err();
            assert_eq!(e.key, "sim.window_overlap", "{order:?}");
            assert_eq!(c, base, "{order:?}: nothing applied");
        }
        // Both window refinements are refused without a window, each naming itself (and only
        // itself when the other is off), and accepted with one.
        for key in ["sim.window_overlap", "sim.window_partitions"] {
            let on = format!("{key}=true");
            let e = base.clone().apply_overrides(&[on.as_str()]).unwrap_err();
            assert_eq!(e.key, key);
            assert!(e.reason.contains("sim.window > 1"), "{e}");
            assert!(e.reason.contains(&format!("or {key} to false")), "{e}");
            let mut ok = base.clone();
            ok.apply_overrides(&[on.as_str(), "sim.window=2"]).unwrap();
        }
        // The SM keeps its operand collectors in a 64-bit mask.
        let mut g = GpuConfig::preset("gtx480").unwrap();
        g.set("core.collectors_sfu", "56").unwrap();
        let e = g.set("core.collectors_sfu", "57").unwrap_err();
        assert!(e.reason.contains("at most 64 operand collectors"), "{e}");
    }

    #[test]
    fn unknown_keys_in_files_are_errors() {
        let e = GpuConfig::from_toml("inherits = \"gtx480\"\n[l1d]\nsetz = 3\n", "my.toml")
            .unwrap_err();
        assert_eq!(e.key, "l1d.setz");
        assert_eq!((e.file.as_deref(), e.line), (Some("my.toml"), Some(3)));
        assert!(e.reason.contains("unknown field"), "{e}");
        assert!(
            e.to_string().starts_with("my.toml:3: key `l1d.setz`"),
            "{e}"
        );
        let e = GpuConfig::from_toml("inherits = \"gtx9\"\n", "my.toml").unwrap_err();
        assert!(e.reason.contains("gtx480"), "{e}");
        assert_eq!((e.key.as_str(), e.line), ("inherits", Some(1)));
        let ok =
            GpuConfig::from_toml("inherits = \"gtx480\"\n[l1d]\nways = 8\n", "x.toml").unwrap();
        assert_eq!(ok.l1d.ways, 8);
        assert_eq!(ok.l1d.sets, 32);
    }

    #[test]
    fn write_allocate_is_checked_and_l2_only() {
        let g = GpuConfig::preset("gtx480").unwrap();
        assert_eq!(g.l2.cache.write_allocate, "lazy");
        assert_eq!(
            g.l1d.write_allocate, "lazy",
            "serde default for omitted keys"
        );
        let mut h = g.clone();
        h.set("l2.cache.write_allocate", "naive").unwrap();
        h.validate().unwrap();
        let mut h = g.clone();
        let e = h.set("l2.cache.write_allocate", "eager").unwrap_err();
        assert_eq!(e.key, "l2.cache.write_allocate");
        assert!(e.reason.contains("naive"), "{e}");
        let mut h = g;
        let e = h.set("l1d.write_allocate", "none").unwrap_err();
        assert_eq!(e.key, "l1d.write_allocate");
        assert!(e.reason.contains("L2 only"), "{e}");
    }

    #[test]
    fn file_errors_name_the_file_line_and_key() {
        let text = "inherits = \"gtx480\"\n\n[core]\nnum_sms = \"x\"\n";
        let e = GpuConfig::from_toml(text, "typ.toml").unwrap_err();
        assert_eq!(e.key, "core.num_sms");
        assert_eq!(e.line, Some(4));
        assert!(e.reason.contains("invalid type"), "{e}");
        // Validation errors of a file's values carry the line too; dotted keys count.
        let e = GpuConfig::from_toml("inherits = \"gtx480\"\nl2.cache.ways = 0\n", "w.toml")
            .unwrap_err();
        assert_eq!(e.key, "l2.cache.ways");
        assert_eq!(e.line, Some(2));
        assert!(
            e.to_string().starts_with("w.toml:2: key `l2.cache.ways`"),
            "{e}"
        );
        // A key the file does not set (an inherited value) has no line.
        let e =
            GpuConfig::from_toml("inherits = \"gtx480\"\n[l1d]\nsets = 0\n", "s.toml").unwrap_err();
        assert_eq!((e.key.as_str(), e.line), ("l1d.sets", Some(3)));
        assert_eq!(key_line("[l1d]\nsets = 1\n", "l1d.ways"), None);
        // Errors of `--set` overrides name no file.
        let mut g = GpuConfig::preset("gtx480").unwrap();
        let e = g.set("l1d.sets", "0").unwrap_err();
        assert_eq!(e.file, None);
        assert!(e.to_string().starts_with("config key `l1d.sets`"), "{e}");
    }

    #[test]
    fn layered_files_list_only_what_differs() {
        let dir = std::env::temp_dir().join(format!("wf-cfg-layers-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        let p = |n: &str| dir.join(n).display().to_string();
        // A preset name as base, then only the keys that differ.
        std::fs::write(p("a.toml"), "base = \"gtx480\"\n[core]\nnum_sms = 30\n").unwrap();
        let a = GpuConfig::load(&p("a.toml")).unwrap();
        let g = GpuConfig::preset("gtx480").unwrap();
        assert_eq!(a.core.num_sms, 30);
        assert_eq!(
            (a.core.max_warps, a.l1d.sets),
            (g.core.max_warps, g.l1d.sets)
        );
        // A path as base (relative to the file), two levels deep.
        std::fs::write(p("sub/b.toml"), "base = \"../a.toml\"\n[l1d]\nways = 8\n").unwrap();
        let b = GpuConfig::load(&p("sub/b.toml")).unwrap();
        assert_eq!((b.core.num_sms, b.l1d.ways), (30, 8));
        assert_eq!(
            GpuConfig::load_base(&p("sub/b.toml")).unwrap(),
            Some(a.clone())
        );
        assert_eq!(GpuConfig::load_base("gtx480").unwrap(), None);
        assert_eq!(
            GpuConfig::load_base("gtx480-cawa").unwrap(),
            Some(g.clone())
        );
        // Unknown keys are still refused with file:line, in the file that has them.
        std::fs::write(p("c.toml"), "base = \"gtx480\"\n\n[core]\nnum_smz = 3\n").unwrap();
        let e = GpuConfig::load(&p("c.toml")).unwrap_err();
        assert_eq!((e.key.as_str(), e.line), ("core.num_smz", Some(4)), "{e}");
        std::fs::write(p("d.toml"), "base = \"c.toml\"\n[l1d]\nways = 2\n").unwrap();
        let e = GpuConfig::load(&p("d.toml")).unwrap_err();
        assert_eq!(e.file.as_deref(), Some(p("c.toml").as_str()), "{e}");
        assert_eq!((e.key.as_str(), e.line), ("core.num_smz", Some(4)), "{e}");
        // A missing base file, a cycle, both spellings, and an incomplete file without a base.
        std::fs::write(p("e.toml"), "base = \"nope.toml\"\n").unwrap();
        let e = GpuConfig::load(&p("e.toml")).unwrap_err();
        assert_eq!((e.key.as_str(), e.line), ("base", Some(1)), "{e}");
        assert!(e.reason.contains("nope.toml"), "{e}");
        std::fs::write(p("f.toml"), "base = \"f.toml\"\n").unwrap();
        let e = GpuConfig::load(&p("f.toml")).unwrap_err();
        assert!(e.reason.contains("cycle"), "{e}");
        let e = GpuConfig::from_toml("base = \"gtx480\"\ninherits = \"gtx480\"\n", "x.toml")
            .unwrap_err();
        assert_eq!(e.key, "base");
        let e = GpuConfig::from_toml("[core]\nnum_sms = 30\n", "x.toml").unwrap_err();
        assert!(e.reason.contains("base = \"gtx480\""), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn keys_roundtrip_through_set() {
        let g = GpuConfig::preset("gtx480-ctrlc").unwrap();
        let mut h = GpuConfig::preset("gtx480").unwrap();
        for (k, v) in g.keys() {
            let v = v.trim_matches('"').to_string();
            h.set(&k, &v).unwrap();
        }
        assert_eq!(g, h);
    }

    /// Chapter 3 on GPGPU-Sim 3.2.0 (`gtx480-caws`): Table 3.1's L1D (32 sets x 4 ways) with
    /// `gtx480-cawa`'s 3.2.0 values (it is based on it), and nothing else of `gtx480-cawa`
    /// changed.
    #[test]
    fn caws_preset_is_the_cawa_preset_with_table_3_1_l1d() {
        let c = GpuConfig::preset("gtx480-cawa").unwrap();
        let w = GpuConfig::preset("gtx480-caws").unwrap();
        assert_eq!((w.l1d.sets, w.l1d.ways, w.l1d.line_bytes), (32, 4, 128));
        assert_eq!(w.l1d.capacity(), 16 * 1024);
        assert_eq!(w.l1d.index, "linear");
        assert_eq!(w.l1d.mshr_entries, 32);
        assert_eq!((w.l1d.latency, w.shared.latency), (1, 3));
        let mut back = w.clone();
        back.name = c.name.clone();
        back.description = c.description.clone();
        back.set("l1d.sets", "8").unwrap();
        back.set("l1d.ways", "16").unwrap();
        back.set("l1d.critical_ways", &c.l1d.critical_ways.to_string())
            .unwrap();
        assert_eq!(
            back, c,
            "gtx480-caws differs from gtx480-cawa only in the L1D geometry"
        );
    }
}
