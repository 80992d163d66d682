//! The heterogeneous machine's configuration (spec 004 §7, Table 1): CPU cores, ring, shared
//! LLC, DDR3 DRAM and the memory-policy parameters, loaded from the TOML preset `hetero`
//! (`crates/hetero/presets/hetero.toml`) and overridable key by key (`--set llc.size_kb=8192`).

use serde::{Deserialize, Serialize};

/// A configuration error naming the offending key (or file).
#[derive(Debug, Clone, thiserror::Error)]
#[error("{key}: {reason}")]
pub struct ConfigError {
    /// Dotted key, preset or file name.
    pub key: String,
    /// What is wrong.
    pub reason: String,
}

impl ConfigError {
    fn new(key: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            key: key.into(),
            reason: reason.into(),
        }
    }
}

/// Built-in presets: (name, TOML text).
pub const PRESETS: &[(&str, &str)] = &[("hetero", include_str!("../presets/hetero.toml"))];

/// CPU cores (Table 1; ROB, width and MSHRs are our choice, the document gives none).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CpuConfig {
    /// Number of cores.
    pub cores: u32,
    /// Core clock, MHz; the ring and LLC run on it too.
    pub clock_mhz: f64,
    /// Reorder-buffer entries.
    pub rob: u32,
    /// Dispatch and retire width, instructions per cycle.
    pub width: u32,
    /// Outstanding misses past the private L2 per core.
    pub mshrs: u32,
    /// L1 data cache, KB.
    pub l1d_kb: u32,
    /// L1 associativity.
    pub l1d_ways: u32,
    /// L1 hit latency, CPU cycles.
    pub l1d_latency: u32,
    /// Private L2, KB.
    pub l2_kb: u32,
    /// L2 associativity.
    pub l2_ways: u32,
    /// L2 hit latency, CPU cycles.
    pub l2_latency: u32,
}

/// The bidirectional ring (Table 1: single-cycle hops).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RingConfig {
    /// CPU cycles per hop.
    pub hop_cycles: u32,
    /// LLC banks (one ring stop each).
    pub llc_banks: u32,
}

/// The shared last-level cache (Table 1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LlcConfig {
    /// Capacity, KB.
    pub size_kb: u32,
    /// Associativity.
    pub ways: u32,
    /// Block size, bytes.
    pub line_bytes: u32,
    /// Lookup latency, CPU cycles.
    pub latency: u32,
    /// Outstanding misses (all banks).
    pub mshrs: u32,
    /// `true` (the default since session 21): a GPGPU store that misses the LLC and allocates
    /// there fetches its block from DRAM first (write-allocate with fetch, the write-back LLC of
    /// the document's simulators \[EXT\]: MacSim, whose GPU model the GPGPU mixes use (spec 004
    /// §7.1), sends a store that misses its LLC to DRAMSim2 as a read and fills the block;
    /// Multi2Sim's NMOESI store miss requests the block from the level below) and fills it
    /// dirty (its data is owed to DRAM) \[I\]. `false` (sessions 1-20, now an ablation): it
    /// allocates dirty without a fetch. The store itself completes at once either way; the fetch
    /// holds an LLC MSHR and is a GPU DRAM read. Written-around stores (spec 004 §3 bypass) never
    /// fetch.
    #[serde(default = "yes")]
    pub gpgpu_store_fetch: bool,
}

impl LlcConfig {
    /// Number of sets.
    pub fn sets(&self) -> u64 {
        self.size_kb as u64 * 1024 / (self.line_bytes as u64 * self.ways as u64)
    }
}

/// DDR3 channels; timing in DRAM command cycles.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct DramConfig {
    /// Channels (one controller each).
    pub channels: u32,
    /// Banks per channel.
    pub banks: u32,
    /// Row-buffer size per bank, bytes.
    pub row_bytes: u32,
    /// Command clock, MHz.
    pub clock_mhz: f64,
    /// Read-queue entries per controller.
    pub read_queue: u32,
    /// Write-queue entries per controller.
    pub write_queue: u32,
    pub t_cl: u32,
    pub t_rcd: u32,
    pub t_rp: u32,
    pub t_cwl: u32,
    pub t_ras: u32,
    pub t_rc: u32,
    pub t_rrd: u32,
    pub t_faw: u32,
    pub t_wr: u32,
    pub t_wtr: u32,
    pub t_rtp: u32,
    /// Data-bus cycles per 64 B burst.
    pub burst: u32,
    /// Refresh interval; 0 disables refresh.
    pub t_refi: u32,
    /// Refresh cycle time.
    pub t_rfc: u32,
    /// GPU bus share divisor: a GPU (GPGPU or 3D) burst occupies the channel's data bus and CAS
    /// slot for `burst / gpu_bus_div` cycles on average (the remainder carried to the next GPU
    /// burst), and a GPU activation counts towards tRRD/tFAW once per `gpu_bus_div`; the
    /// request's own latency (tRCD, tCL, burst) is unchanged, and so are the bank timings unless
    /// [`DramConfig::gpu_bank_scaled`] is set. 1 (the default) is the unscaled channel. \[INTERP\] Set by the 3D experiment to its scaled
    /// frame's traffic factor (`res_div² / mem_div`, crate `warpforge-gfx`, `scene::rt_scale`):
    /// a reduced frame moves the full-size bytes over `mem_div` in 1/`res_div²` of the time, so
    /// each simulated GPU burst stands for 1/`gpu_bus_div` of a full-size one
    /// (docs/history/EXPERIMENTS-004.md, 3D, "Scaling").
    #[serde(default = "one")]
    pub gpu_bus_div: u32,
    /// With `gpu_bus_div` k > 1, a GPU row miss also holds its bank for 1/k of tRCD, tRAS, tRC,
    /// tRP, tRTP and write recovery (`dram::Channel::bank_time`, rounded to the nearest cycle),
    /// so that bank occupancy per byte, like bus occupancy, is the full-size frame's; the reads'
    /// latency is unchanged (no read of a GPU-opened row returns before the unscaled tRP + tRCD +
    /// tCL + burst). \[INTERP\] Off by default: the 3D titles' depth complexities are fitted
    /// without it, and the other half of the scaling (a scaled frame keeps k times as many GPU
    /// reads in the controller queues) is not modelled yet (docs/history/EXPERIMENTS-004.md, 3D,
    /// "Session 13").
    #[serde(default)]
    pub gpu_bank_scaled: bool,
    /// Row hits served from one activation before the bank's row is closed (0 = no cap).
    /// Spec 004 §5.1 models DRAM with DRAMSim2, whose open-page controller stops issuing
    /// column accesses to a row after `TOTAL_ROW_ACCESSES` hits (its stock `system.ini`: 4, "to
    /// prevent starvation") and then precharges it; the request that activated the row keeps
    /// its column access \[EXT: DRAMSim2 `CommandQueue::isIssuable`/`pop`\]. The `hetero` preset
    /// keeps 0, the FR-FCFS of §5.1 (see its comment).
    #[serde(default)]
    pub row_hit_cap: u32,
    /// Reads that reach a controller whose read queue is full wait in front of it and enter in
    /// arrival order (`true`), as in DRAMSim2, whose transaction queue admits one transaction
    /// per cycle from its host's FIFO (MacSim's `dram_dramsim_c::receive` takes the head of the
    /// network buffer and retries it while `addTransaction` refuses) \[EXT\]; the policy then
    /// reorders only what is in the read queue. `false` (the default, and the `hetero` preset,
    /// on which the 3D titles were calibrated; the GPGPU experiment's default since session 19):
    /// the policy ranks every waiting read at admission
    /// ([`crate::policy::MemPolicy::admit`]), so its reach is the whole backlog, as spec 004
    /// §4.3 states its policies ("the oldest critical GPU access is given priority over the
    /// global oldest access"). `true` is the ablation `experiment hetero --controller dramsim2`.
    #[serde(default)]
    pub fifo_admission: bool,
}

fn one() -> u32 {
    1
}

/// The memory policy and its parameters (spec 004 §5). Intervals in CPU cycles.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyConfig {
    /// Registered policy name ([`crate::policy::names`]).
    pub name: String,
    /// IM-SCHED and IM-LLC interval, CPU cycles.
    pub interval: u64,
    /// IM-SCHED probability cap.
    pub im_sched_cap: f64,
    /// IM-SCHED counts a CPU read as de-prioritised, and its probabilistic swap may pick a CPU
    /// read, only where FR-FCFS would have served that read before the issued CG request (same
    /// row-hit status, older): the CG won by its class alone. `false` (the default): every CPU
    /// candidate older than an issued CG counts, and the swap takes the best CPU read whatever
    /// its row-hit status. \[INTERP\] spec 004 §10.4 item 12 ("de-prioritised by a younger
    /// critical GPU request").
    #[serde(default)]
    pub im_sched_overtake: bool,
    /// IM-SCHED draws its probability once per CPU read, when the read enters a controller's
    /// read queue: a read that wins the draw is promoted for its whole stay (above the critical
    /// GPU requests, or with them by age: `im_sched_above_cg`).
    /// Spec 004 §5.4: "a CPU request is prioritized over a pending critical GPU request with
    /// this probability", "the CPU prioritization probability ... is same as the observed
    /// probability that a given CPU access is de-prioritized": a probability per CPU access.
    /// `true` is the default and the `hetero` preset's value (the GPGPU mixes since session 17,
    /// the 3D mixes since session 16). `false` (an ablation, the GPGPU mixes' rule until
    /// session 16): one draw per scheduling decision whose best candidate is CG, under which a
    /// read that meets k such decisions is promoted with probability 1 − (1 − p)^k, far above p.
    #[serde(default = "yes")]
    pub im_sched_per_request: bool,
    /// Where a CPU read that won its per-request IM-SCHED draw (`im_sched_per_request`) ranks:
    /// `true` (the default and the `hetero` preset's value since session 18) **above** the
    /// critical GPU reads (and CPU-E), below them only by row hit: spec 004 §5.4, "The IM-SCHED
    /// component prioritizes CPU accesses over critical GPU accesses with a certain
    /// probability" and "a CPU request is prioritized over a pending critical GPU request with
    /// this probability": over any pending CG request, older ones included. In §5.6's all-GPU
    /// windows ("all GPU accesses the highest DRAM priority") it ranks with them, by age.
    /// `false` (an ablation, the rule of sessions 16-17): the winner ranks **with** the critical
    /// GPU reads (row hit, then age), so an older CG read still goes first.
    #[serde(default = "yes")]
    pub im_sched_above_cg: bool,
    /// When a CPU read's IM-SCHED draw (`im_sched_per_request`) happens: `true` (the default and
    /// the `hetero` preset's value since session 19) when the read **arrives at the
    /// controller**, so a winner also ranks above the critical GPU reads for admission to a
    /// full read queue: spec 004 §5.4, "In an interval, a CPU request is prioritized over a
    /// pending critical GPU request with this probability" (the request is at the controller
    /// once it has arrived). `false` (an ablation, the rule of sessions 17-18): the draw
    /// happens when the read enters the read queue, after waiting in front of it unpromoted.
    #[serde(default = "yes")]
    pub im_sched_draw_on_arrival: bool,
    /// Whether IM-SCHED draws again, at the start of every interval, for each CPU read still
    /// pending at the controllers (`im_sched_per_request`): `true` (the default and the
    /// `hetero` preset's value since session 24) each pending CPU read is prioritised in each
    /// interval with that interval's probability, a winner above the critical GPU reads for the
    /// interval, a loser not: spec 004 §5.4, "In an interval, a CPU request is prioritized over
    /// a pending critical GPU request with this probability" (the probability is the
    /// interval's, "the CPU prioritization probability in an interval"). `false` (an ablation,
    /// the rule of sessions 17-23): one draw per read for its whole stay, so a read that lost
    /// keeps losing in every later interval (on red/H at `small` the four CPUs' last 21 reads
    /// lost and were never served after the run's second window).
    #[serde(default = "yes")]
    pub im_sched_redraw_each_interval: bool,
    /// IM-SCHED's denominator: `true` (the default and the `hetero` preset's value since
    /// session 19) f = CPU reads de-prioritised by a younger critical GPU request during the
    /// interval / CPU reads **pending** at the controller during the interval (pending at its
    /// start or arrived in it): spec 004 §5.4, "the fraction of CPU requests de-prioritized by
    /// younger critical GPU requests during the interval". `false` (an ablation, sessions
    /// 11-18): both counted over the CPU reads **served** in the interval (an interval with
    /// none served gives p = 0).
    #[serde(default = "yes")]
    pub im_sched_pending_denominator: bool,
    /// IM-SCHED's event (spec 004 §5.4, "CPU requests de-prioritized by younger critical GPU
    /// requests"; §10.4 item 12 leaves the exact event open): `true` (the default and the
    /// `hetero` preset's value, issue 15's fourth follow-up) a CPU read counts towards `f` when
    /// a younger critical GPU read goes ahead of it by a command issued in the read queue or
    /// on entering a full read queue ahead of it ([`crate::policy::MemPolicy::admit`], the
    /// preset's policy-ranked admission); `false` (an ablation, session 24): the command issue
    /// only, the reads waiting in front of a full queue not counted when a CG enters first.
    #[serde(default = "yes")]
    pub im_sched_count_admission: bool,
    /// GPU-favoring's order of the CPU against the non-critical GPU (NG) requests: `true` (the
    /// default and the `hetero` preset's value, the rule of sessions 9-20 and again since
    /// session 22) CG > CPU > NG: spec 004 §4.3's general rule "The CPU accesses are given
    /// higher priority than the non-critical GPU accesses except in one situation" applies to
    /// both policies, since §6.1.3 (seed line 335) reads IM as GPU-favoring plus its two
    /// components only ("Compared to the GPU-favoring policy, the IM-LLC component alone
    /// reduces CPU performance loss by 3% ... Effects are additive when IM-LLC and IM-SCHED work
    /// together in the IM policy"), and §4.3 names as GPU-favoring's starvation problem only
    /// "a long burst of critical GPU requests". `false` (an ablation, the default of session
    /// 21): only the critical GPU (CG) requests raised, the CPU and NG requests by (row hit,
    /// age) as under FR-FCFS, a literal reading of GPU-favoring's two sentences alone. IM and
    /// its ablations keep the CPU above NG (`policy.im_cpu_over_ng`) whatever this says.
    #[serde(default = "yes")]
    pub gpu_favoring_cpu_over_ng: bool,
    /// Where IM (and its ablations `im_sched`, `im_llc`, `im_bypass`) applies its CPU-over-NG
    /// rank: `true` (the default and the `hetero` preset's value, the rule of sessions 9-21) both
    /// in the read queue and at the admission of the reads waiting in front of a full read queue
    /// ([`crate::policy::MemPolicy::admit`]), so a non-critical GPU (NG) read enters only when no
    /// CPU or CG read waits. `false` (an ablation, session 22): admission ranks the CPU and NG
    /// reads together by (row hit, age), CG / CPU-E and IM-SCHED's winners still first, and the
    /// CPU-over-NG rank acts only among the reads in the read queue. Spec 004 §4.3 states the
    /// rule for "the DRAM scheduler" and gives no queue size (§7.2 "not given"); which reads the
    /// rule reaches when the queue is full is \[INTERP\]. Only with `dram.fifo_admission = false`
    /// (a FIFO admits in arrival order anyway).
    #[serde(default = "yes")]
    pub im_admit_cpu_over_ng: bool,
    /// IM's CPU-over-NG rank itself: `true` (the default and the `hetero` preset's value) the
    /// CPU reads above the non-critical GPU reads (spec 004 §4.3, "The CPU accesses are given
    /// higher priority than the non-critical GPU accesses except in one situation"). `false`
    /// (an ablation, session 22): IM on GPU-favoring's order, the CPU and NG reads by (row hit,
    /// age) in the read queue and at admission, CG, CPU-E and IM-SCHED's winners above them:
    /// IM as GPU-favoring plus IM-SCHED and IM-LLC alone (§6.1.3's decomposition).
    #[serde(default = "yes")]
    pub im_cpu_over_ng: bool,
    /// IM-LLC: miss rate at or below which an application is class L.
    pub im_llc_low: f64,
    /// IM-LLC: miss rate above which an application is class H.
    pub im_llc_high: f64,
    /// All-GPU probe window, CPU cycles (spec 004 §5.6: 100K GPU cycles = 200000; the preset
    /// scales it to the IM interval so that our short runs hold a baseline and a probe window,
    /// \[INTERP\]).
    pub probe_window: u64,
    /// CPU cycles from the end of a probe to the next one (the first probe follows the first
    /// window).
    pub probe_period: u64,
    /// Relative IPC band within which two windows count as equal.
    pub probe_tolerance: f64,
    /// SMS: probability of shortest-job-first batch selection (the policies `sms_09`, `sms_0`
    /// fix it to 0.9 and 0).
    pub sms_sjf: f64,
    /// SMS batch age threshold of CPU sources, CPU cycles.
    pub sms_age_cpu: u64,
    /// SMS batch age threshold of the GPU, CPU cycles.
    pub sms_age_gpu: u64,
    /// SMS per-source FIFO entries.
    pub sms_fifo: u32,
    /// SMS: a request skips batch formation (straight to its bank FIFO) while its channel's SMS
    /// holds fewer requests than this (the original's lightly-loaded bypass).
    pub sms_bypass_load: u32,
    /// SMS: a source whose requests per 1000 CPU cycles over the last `interval` stay below
    /// this is low-intensity and skips batch formation (the original's < 1 MPKI bypass; the
    /// controller counts cycles, not instructions).
    pub sms_low_intensity: f64,
    /// DASH: a CPU application using less than this share of the bandwidth is latency-sensitive.
    pub dash_cluster: f64,
    /// HeLM's low TLP threshold (ready warps per SM), used while the CPUs are cache sensitive.
    pub helm_low_tlp: f64,
    /// HeLM's high TLP threshold (ready warps per SM), used while the GPU is cache sensitive.
    pub helm_high_tlp: f64,
    /// HeLM: one LLC set in this many is a sampler set of each of the two kinds (GPU misses
    /// always bypass / never bypass).
    pub helm_sample: u32,
    /// HeLM: a side is cache sensitive when its LLC miss rate in the sampler sets where the
    /// GPU allocates differs from the one where it bypasses by more than this.
    pub helm_margin: f64,
    /// GPGPU criticality marking (spec 004 §3) for the criticality-aware policies.
    pub criticality: bool,
    /// GPGPU criticality (spec 004 §3): GPU core cycles between invocations of the two-level
    /// algorithm (each classifies the cores and recomputes their top stall PCs). \[INTERP\]
    /// §10.4 item 7: not given.
    pub crit_period: u64,
    /// GPGPU criticality (spec 004 §3 level 1): `InputStall` counts a cycle only when the
    /// schedulers' closest reason for dispatching nothing is a pending operand (a warp held by a
    /// structural hazard, e.g. a full LD/ST unit, then hides the operand waits of the others).
    /// `false` (the default): see [`PolicyConfig::crit_busy_unit_waits`].
    #[serde(default)]
    pub crit_closest_reason: bool,
    /// GPGPU criticality (spec 004 §4.1.2 level 1): `InputStall` also counts a cycle in which
    /// the only warps waiting on an operand need a unit that is busy anyway (the rule from
    /// issue 15's fifth follow-up to session 21, an ablation). `false` (the default since session 22): a cycle counts when nothing
    /// was dispatched and some warp waited on an operand while its instruction's unit had
    /// room, the document's "fails to dispatch any warp due to pending source operands"; with
    /// Table 1's one 16-lane SP pipeline a warp instruction holds the pipeline two cycles, and
    /// the old rule counted the second cycle of an SP-bound core as an operand stall.
    #[serde(default)]
    pub crit_busy_unit_waits: bool,
    /// IM: non-critical GPGPU **stores** that miss the LLC are written around it (straight to
    /// DRAM) instead of allocating: spec 004 §3, "The non-critical shader accesses that miss in
    /// the LLC bypass the LLC", which covers the stores its rule marks. The preset: `true`; each
    /// store reaches the LLC with the bit the SM marked it with (`hetero-gpu`'s thin L2 slices
    /// are write-through). With a write-back GPU L2 the stores would arrive as dirty evictions
    /// without a bit (`crit = false`), and `true` would write every GPU store around.
    pub gpgpu_store_bypass: bool,
    /// IM (and `im_bypass`): non-critical GPGPU **read** misses bypass the LLC (no allocation on
    /// fill), spec 004 §3 ("The non-critical shader accesses that miss in the LLC bypass the
    /// LLC"). `true` (the preset, the document); `false` keeps every other part of IM and lets
    /// the fills allocate, to measure the bypass's share of IM's result.
    #[serde(default = "yes")]
    pub gpgpu_read_bypass: bool,
    /// Seed of the policies' random draws.
    pub seed: u64,
}

fn yes() -> bool {
    true
}

/// The whole machine's memory side and CPU cores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeteroConfig {
    /// Preset name.
    pub name: String,
    /// One line.
    pub description: String,
    /// CPU cores.
    pub cpu: CpuConfig,
    /// Ring.
    pub ring: RingConfig,
    /// Shared LLC.
    pub llc: LlcConfig,
    /// DRAM.
    pub dram: DramConfig,
    /// Memory policy.
    pub policy: PolicyConfig,
}

impl HeteroConfig {
    /// The built-in preset `name`.
    pub fn preset(name: &str) -> Result<Self, ConfigError> {
        let (_, text) = PRESETS.iter().find(|p| p.0 == name).ok_or_else(|| {
            ConfigError::new(
                "preset",
                format!(
                    "unknown preset `{name}` (known: {})",
                    PRESETS.iter().map(|p| p.0).collect::<Vec<_>>().join(", ")
                ),
            )
        })?;
        let c: HeteroConfig =
            toml::from_str(text).map_err(|e| ConfigError::new(name, e.to_string()))?;
        c.validate()?;
        Ok(c)
    }

    /// Overrides one scalar field by dotted key, parsed as the field's current type; re-validated.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), ConfigError> {
        let mut root = toml::Value::try_from(&*self).expect("config serialises");
        let mut cur = &mut root;
        for p in key.split('.') {
            let toml::Value::Table(t) = cur else {
                return Err(ConfigError::new(key, "not a table"));
            };
            if !t.contains_key(p) {
                let mut known: Vec<&str> = t.keys().map(|s| s.as_str()).collect();
                known.sort();
                return Err(ConfigError::new(
                    key,
                    format!("unknown key (known here: {})", known.join(", ")),
                ));
            }
            cur = t.get_mut(p).expect("checked");
        }
        let bad = |what: &str| ConfigError::new(key, format!("expected {what}, got `{value}`"));
        *cur = match &*cur {
            toml::Value::String(_) => toml::Value::String(value.to_string()),
            toml::Value::Integer(_) => {
                toml::Value::Integer(value.parse().map_err(|_| bad("an integer"))?)
            }
            toml::Value::Float(_) => {
                toml::Value::Float(value.parse().map_err(|_| bad("a number"))?)
            }
            toml::Value::Boolean(_) => {
                toml::Value::Boolean(value.parse().map_err(|_| bad("true or false"))?)
            }
            _ => return Err(ConfigError::new(key, "only scalar fields can be set")),
        };
        let c: HeteroConfig = root
            .try_into()
            .map_err(|e: toml::de::Error| ConfigError::new(key, e.message().to_string()))?;
        c.validate()?;
        *self = c;
        Ok(())
    }

    /// Applies `key=value` overrides in order.
    pub fn apply_overrides<S: AsRef<str>>(&mut self, sets: &[S]) -> Result<(), ConfigError> {
        for s in sets {
            let s = s.as_ref();
            let (k, v) = s
                .split_once('=')
                .ok_or_else(|| ConfigError::new(s, "expected key=value"))?;
            self.set(k.trim(), v.trim())?;
        }
        Ok(())
    }

    /// Ranges and names.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let pos = |k: &str, v: u64| {
            if v == 0 {
                Err(ConfigError::new(k, "must be positive"))
            } else {
                Ok(())
            }
        };
        pos("cpu.cores", self.cpu.cores as u64)?;
        if self.cpu.cores > 64 {
            return Err(ConfigError::new("cpu.cores", "at most 64"));
        }
        pos("cpu.rob", self.cpu.rob as u64)?;
        pos("cpu.width", self.cpu.width as u64)?;
        pos("cpu.mshrs", self.cpu.mshrs as u64)?;
        pos("cpu.l1d_kb", self.cpu.l1d_kb as u64)?;
        pos("cpu.l2_kb", self.cpu.l2_kb as u64)?;
        pos("cpu.l1d_ways", self.cpu.l1d_ways as u64)?;
        pos("cpu.l2_ways", self.cpu.l2_ways as u64)?;
        pos("ring.llc_banks", self.ring.llc_banks as u64)?;
        pos("llc.ways", self.llc.ways as u64)?;
        if self.llc.ways > 64 {
            return Err(ConfigError::new("llc.ways", "at most 64"));
        }
        pos("llc.mshrs", self.llc.mshrs as u64)?;
        if self.llc.line_bytes != 64 {
            return Err(ConfigError::new(
                "llc.line_bytes",
                "only 64 B blocks are modelled",
            ));
        }
        let sets = self.llc.sets();
        if sets == 0 || !sets.is_power_of_two() {
            return Err(ConfigError::new(
                "llc.size_kb",
                "size / (ways x 64 B) must be a power of two",
            ));
        }
        for (k, v) in [
            ("cpu.clock_mhz", self.cpu.clock_mhz),
            ("dram.clock_mhz", self.dram.clock_mhz),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(ConfigError::new(k, "must be a positive number"));
            }
        }
        if self.dram.clock_mhz > self.cpu.clock_mhz {
            return Err(ConfigError::new(
                "dram.clock_mhz",
                "must not exceed cpu.clock_mhz",
            ));
        }
        pos("dram.channels", self.dram.channels as u64)?;
        pos("dram.banks", self.dram.banks as u64)?;
        pos("dram.read_queue", self.dram.read_queue as u64)?;
        pos("dram.write_queue", self.dram.write_queue as u64)?;
        pos("dram.burst", self.dram.burst as u64)?;
        pos("dram.gpu_bus_div", self.dram.gpu_bus_div as u64)?;
        if !self.dram.channels.is_power_of_two() || !self.dram.banks.is_power_of_two() {
            return Err(ConfigError::new(
                "dram.channels",
                "channels and banks must be powers of two",
            ));
        }
        if self.dram.row_bytes < 64 || !self.dram.row_bytes.is_power_of_two() {
            return Err(ConfigError::new(
                "dram.row_bytes",
                "a power of two of at least 64",
            ));
        }
        if crate::policy::find(&self.policy.name).is_none() {
            return Err(ConfigError::new(
                "policy.name",
                format!(
                    "unknown policy `{}` (known: {})",
                    self.policy.name,
                    crate::policy::names().join(", ")
                ),
            ));
        }
        for (k, v) in [
            ("policy.im_sched_cap", self.policy.im_sched_cap),
            ("policy.im_llc_low", self.policy.im_llc_low),
            ("policy.im_llc_high", self.policy.im_llc_high),
            ("policy.probe_tolerance", self.policy.probe_tolerance),
            ("policy.sms_sjf", self.policy.sms_sjf),
            ("policy.dash_cluster", self.policy.dash_cluster),
            ("policy.helm_margin", self.policy.helm_margin),
        ] {
            if !(0.0..=1.0).contains(&v) {
                return Err(ConfigError::new(k, "must lie in [0, 1]"));
            }
        }
        pos("policy.interval", self.policy.interval)?;
        pos("policy.probe_window", self.policy.probe_window)?;
        pos("policy.crit_period", self.policy.crit_period)?;
        pos("policy.sms_fifo", self.policy.sms_fifo as u64)?;
        if self.policy.helm_sample < 4 || !self.policy.helm_sample.is_power_of_two() {
            return Err(ConfigError::new(
                "policy.helm_sample",
                "must be a power of two >= 4",
            ));
        }
        for (k, v) in [
            ("policy.sms_low_intensity", self.policy.sms_low_intensity),
            ("policy.helm_low_tlp", self.policy.helm_low_tlp),
            ("policy.helm_high_tlp", self.policy.helm_high_tlp),
        ] {
            if !(v >= 0.0 && v.is_finite()) {
                return Err(ConfigError::new(k, "must be a finite number >= 0"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preset_matches_table_1() {
        let c = HeteroConfig::preset("hetero").unwrap();
        assert_eq!(c.cpu.cores, 4);
        assert_eq!(c.llc.size_kb, 16 * 1024);
        assert_eq!(c.llc.ways, 16);
        assert_eq!(c.llc.latency, 10);
        assert_eq!((c.dram.t_cl, c.dram.t_rcd, c.dram.t_rp), (14, 14, 14));
        assert_eq!(c.dram.channels * c.dram.banks, 16);
        assert_eq!(c.llc.sets(), 16384);
    }

    #[test]
    fn set_overrides_and_rejects_bad_keys() {
        let mut c = HeteroConfig::preset("hetero").unwrap();
        c.set("llc.size_kb", "8192").unwrap();
        assert_eq!(c.llc.sets(), 8192);
        c.set("policy.name", "frfcfs").unwrap();
        let e = c.set("llc.size", "1").unwrap_err();
        assert!(e.to_string().contains("known here"), "{e}");
        let e = c.set("policy.name", "nope").unwrap_err();
        assert_eq!(e.key, "policy.name");
        let e = c.set("dram.t_cl", "x").unwrap_err();
        assert!(e.to_string().contains("integer"));
        assert_eq!(c.llc.size_kb, 8192, "a failed set leaves the config alone");
    }

    /// `policy.<key>`, a switch of the document's rule whose `false` is an ablation: the preset
    /// names it `true`, a config file that does not name it gets `true`, and `false` stays
    /// settable.
    fn document_rule_is_the_default(key: &str, get: fn(&PolicyConfig) -> bool) {
        let mut c = HeteroConfig::preset("hetero").unwrap();
        assert!(get(&c.policy), "{key}: the preset");
        let text = PRESETS[0].1.replace(&format!("{key} = true"), "");
        assert_ne!(text, PRESETS[0].1, "the preset names {key}");
        let omitted: HeteroConfig = toml::from_str(&text).unwrap();
        assert!(get(&omitted.policy), "{key}: omitted");
        c.set(&format!("policy.{key}"), "false").unwrap();
        assert!(!get(&c.policy), "{key}: set false");
    }

    /// Spec 004 §5.4's IM-SCHED probability is per CPU access: the preset, and a config file
    /// that does not name the key, draw once per CPU read; `false` stays settable (ablation).
    #[test]
    fn im_sched_draws_per_cpu_read_unless_told_otherwise() {
        document_rule_is_the_default("im_sched_per_request", |p| p.im_sched_per_request);
    }

    /// Spec 004 §5.4, "a CPU request is prioritized over a pending critical GPU request": the
    /// preset, and a config file that does not name the key, rank a promoted CPU read above
    /// the critical GPU reads; `false` (with them, by age) stays settable (ablation).
    #[test]
    fn im_sched_winner_ranks_above_cg_unless_told_otherwise() {
        document_rule_is_the_default("im_sched_above_cg", |p| p.im_sched_above_cg);
    }

    /// Spec 004 §5.4, "a CPU request is prioritized over a pending critical GPU request with
    /// this probability": the draw at the read's arrival at the controller by default.
    #[test]
    fn im_sched_draws_on_arrival_unless_told_otherwise() {
        document_rule_is_the_default("im_sched_draw_on_arrival", |p| p.im_sched_draw_on_arrival);
    }

    /// Spec 004 §4.3's CPU-above-NG rule holds for GPU-favoring as for IM (§6.1.3's additive
    /// decomposition): the preset, and a config file that does not name the key, rank the CPU
    /// above the non-critical GPU; `false` (session 21's literal reading) stays settable.
    #[test]
    fn gpu_favoring_ranks_cpu_above_ng_unless_told_otherwise() {
        document_rule_is_the_default("gpu_favoring_cpu_over_ng", |p| p.gpu_favoring_cpu_over_ng);
    }

    /// A GPGPU store that misses the LLC fetches its block (the document's simulators' write-back
    /// LLC, \[EXT\], session 21): the preset, and a config file that does not name the key;
    /// `false` (sessions 1-20) stays settable (ablation).
    #[test]
    fn gpgpu_store_fetch_is_the_default() {
        let mut c = HeteroConfig::preset("hetero").unwrap();
        assert!(c.llc.gpgpu_store_fetch, "the preset");
        let text = PRESETS[0].1.replace("gpgpu_store_fetch = true", "");
        assert_ne!(text, PRESETS[0].1, "the preset names the key");
        let omitted: HeteroConfig = toml::from_str(&text).unwrap();
        assert!(omitted.llc.gpgpu_store_fetch, "omitted");
        c.set("llc.gpgpu_store_fetch", "false").unwrap();
        assert!(!c.llc.gpgpu_store_fetch, "set false");
    }

    /// Spec 004 §4.1.2 level 1 (session 22): `InputStall` counts only operand waits whose unit
    /// had room, in the preset and when the key is omitted; the earlier rule is the ablation.
    #[test]
    fn input_stall_needs_a_free_unit_by_default() {
        let mut c = HeteroConfig::preset("hetero").unwrap();
        assert!(!c.policy.crit_busy_unit_waits, "the preset");
        let text = PRESETS[0].1.replace("crit_busy_unit_waits = false", "");
        assert_ne!(text, PRESETS[0].1, "the preset names the key");
        let omitted: HeteroConfig = toml::from_str(&text).unwrap();
        assert!(!omitted.policy.crit_busy_unit_waits, "omitted");
        c.set("policy.crit_busy_unit_waits", "true").unwrap();
        assert!(c.policy.crit_busy_unit_waits, "set true");
    }

    /// Spec 004 §5.4, "the fraction of CPU requests de-prioritized ... during the interval":
    /// the pending CPU reads are the denominator by default.
    #[test]
    fn im_sched_counts_pending_reads_unless_told_otherwise() {
        document_rule_is_the_default("im_sched_pending_denominator", |p| {
            p.im_sched_pending_denominator
        });
    }

    /// Spec 004 §5.4, "In an interval, a CPU request is prioritized over a pending critical GPU
    /// request with this probability": a pending CPU read draws again each interval by default.
    #[test]
    fn im_sched_redraws_each_interval_unless_told_otherwise() {
        document_rule_is_the_default("im_sched_redraw_each_interval", |p| {
            p.im_sched_redraw_each_interval
        });
    }

    /// IM-SCHED counts a younger CG's admission into a full read queue as de-prioritising the
    /// waiting CPU reads (issue 15's fourth follow-up) by default; `false` (session 24, command
    /// issue only) stays settable (ablation).
    #[test]
    fn im_sched_counts_admission_unless_told_otherwise() {
        document_rule_is_the_default("im_sched_count_admission", |p| p.im_sched_count_admission);
    }
}
