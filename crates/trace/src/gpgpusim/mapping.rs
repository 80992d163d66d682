//! GPGPU-Sim options → [`warpforge_timing::GpuConfig`].
//!
//! The user's files are read after GPGPU-Sim's own defaults (`defaults.config` beside this file),
//! so an option a config leaves out takes the value GPGPU-Sim would use. Values GPGPU-Sim has no
//! option for (instruction-buffer depth, decode latency, interconnect link latency, deadlock
//! limits) come from the base preset. Options the timing model does not represent are listed in
//! one warning ([`Imported::warning`]), split into architectural options that are not modelled and
//! simulator-infrastructure options that have no timing effect.
//!
//! Decisions (also in docs/VALIDATION.md):
//! * `trace_opcode_latency_initiation_{int,sp,dp,sfu}` (Accel-Sim trace mode), when present,
//!   override `ptx_opcode_latency_*`/`ptx_opcode_initiation_*` for integer, fp32, fp64 and SFU
//!   classes; `specialized_unit_1` named `BRA` sets the branch latency.
//! * Caches with more than 64 ways are folded to 64 ways with proportionally more sets (same
//!   capacity); FIFO replacement becomes LRU; `L` (local write-back, global write-through) becomes
//!   `write_through`; IPOLY/XOR set indexing becomes `hashed`.
//! * `-gpgpu_gmem_skip_L1D 1` becomes the L1D insertion policy `bypass_all`.

use super::cache::CacheConfig as GsCache;
use super::icnt::IcntConfig;
use super::options::{parse_kv_colon, OptionEntry, Options};
use crate::TraceError;
use std::path::{Path, PathBuf};
use warpforge_timing::config::CacheConfig;
use warpforge_timing::GpuConfig;

/// GPGPU-Sim's built-in defaults (see the file's header).
pub const DEFAULTS: &str = include_str!("defaults.config");

/// Options this mapping reads (everything else the user sets is reported).
pub const MAPPED: &[&str] = &[
    "gpgpu_n_clusters",
    "gpgpu_n_cores_per_cluster",
    "gpgpu_shader_core_pipeline",
    "gpgpu_shader_cta",
    "gpgpu_shader_registers",
    "gpgpu_shmem_size",
    "gpgpu_num_sched_per_core",
    "gpgpu_scheduler",
    "gpgpu_num_sp_units",
    "gpgpu_num_sfu_units",
    "gpgpu_num_dp_units",
    "gpgpu_enable_specialized_operand_collector",
    "gpgpu_operand_collector_num_units_sp",
    "gpgpu_operand_collector_num_units_sfu",
    "gpgpu_operand_collector_num_units_mem",
    "gpgpu_operand_collector_num_units_gen",
    "gpgpu_num_reg_banks",
    "gpgpu_sub_core_model",
    "gpgpu_inst_fetch_throughput",
    "ptx_opcode_latency_int",
    "ptx_opcode_latency_fp",
    "ptx_opcode_latency_dp",
    "ptx_opcode_latency_sfu",
    "ptx_opcode_initiation_int",
    "ptx_opcode_initiation_fp",
    "ptx_opcode_initiation_dp",
    "ptx_opcode_initiation_sfu",
    "trace_opcode_latency_initiation_int",
    "trace_opcode_latency_initiation_sp",
    "trace_opcode_latency_initiation_dp",
    "trace_opcode_latency_initiation_sfu",
    "trace_opcode_latency_initiation_spec_op_1",
    "specialized_unit_1",
    "gpgpu_cache:il1",
    "gpgpu_cache:dl1",
    "gpgpu_const_cache:l1",
    "gpgpu_tex_cache:l1",
    "gpgpu_max_insn_issue_per_warp",
    "gpgpu_dual_issue_diff_exec_units",
    "dram_bnk_indexing_policy",
    "dram_seperate_write_queue_enable",
    "dram_write_queue_size",
    "gpgpu_cache:dl2",
    "gpgpu_gmem_skip_L1D",
    "gpgpu_l1_latency",
    "gpgpu_l1_banks",
    "gpgpu_l1_banks_byte_interleaving",
    "gpgpu_l1_cache_write_ratio",
    "gpgpu_smem_latency",
    "gpgpu_shmem_num_banks",
    "gpgpu_clock_domains",
    "gpgpu_n_mem",
    "gpgpu_n_sub_partition_per_mchannel",
    "gpgpu_l2_rop_latency",
    "dram_latency",
    "gpgpu_dram_scheduler",
    "gpgpu_frfcfs_dram_sched_queue_size",
    "gpgpu_dram_return_queue_size",
    "gpgpu_dram_buswidth",
    "gpgpu_n_mem_per_ctrlr",
    "gpgpu_dram_burst_length",
    "dram_data_command_freq_ratio",
    "gpgpu_dram_timing_opt",
    "gpgpu_mem_addr_mapping",
    "network_mode",
    "inter_config_file",
    "icnt_flit_size",
    "icnt_in_buffer_limit",
    "gpgpu_n_cluster_ejection_buffer_size",
    "gpgpu_dram_partition_queues",
    "gpgpu_kernel_launch_latency",
    "gpgpu_TB_launch_latency",
    "gpgpu_adaptive_cache_config",
    "gpgpu_unified_l1d_size",
    "gpgpu_shmem_option",
    "gpgpu_memory_partition_indexing",
    "dram_dual_bus_interface",
    "gpgpu_flush_l2_cache",
    "gpgpu_shmem_warp_parts",
    "gpgpu_num_int_units",
    "gpgpu_pipeline_widths",
    "gpgpu_reg_file_port_throughput",
    "gpgpu_operand_collector_num_in_ports_sp",
    "gpgpu_operand_collector_num_in_ports_sfu",
    "gpgpu_operand_collector_num_in_ports_mem",
    "gpgpu_operand_collector_num_in_ports_int",
    "gpgpu_operand_collector_num_in_ports_gen",
    "gpgpu_operand_collector_num_out_ports_sp",
    "gpgpu_operand_collector_num_out_ports_sfu",
    "gpgpu_operand_collector_num_out_ports_mem",
    "gpgpu_operand_collector_num_out_ports_int",
    "gpgpu_operand_collector_num_out_ports_gen",
    "gpgpu_perfect_inst_const_cache",
    "gpgpu_shmem_sizeDefault",
    "icnt_out_buffer_limit",
    "dram_bnkgrp_indexing_policy",
];

/// Prefixes / names of options that steer the simulator, not the simulated GPU.
const INFRA: &[&str] = &[
    "gpgpu_ptx_",
    "ptx_opcode_latency_tesnor",
    "ptx_opcode_initiation_tensor",
    "ptx_line_stats_filename",
    "save_embedded_ptx",
    "keep",
    "gpgpu_occupancy_sm_number",
    "gpgpu_runtime_",
    "gpgpu_memlatency_stat",
    "gpgpu_stack_size_limit",
    "gpgpu_heap_size_limit",
    "gpgpu_max_concurrent_kernel",
    "gpgpu_compute_capability_",
    "gpgpu_deadlock_detect",
    "gpgpu_max_cycle",
    "gpgpu_max_insn",
    "gpgpu_max_cta",
    "gpgpu_max_completed_cta",
    "visualizer_",
    "enable_ptx_file_line_stats",
    "power_",
    "gpuwattch_",
    "accelwattch_",
    "trace_enabled",
    "trace_components",
    "trace_sampling_",
    "liveness_message_freq",
    "checkpoint_",
    "resume_",
    "gpgpu_cflog_interval",
    "gpgpu_simd_model",
    "gpgpu_warpdistro_shader",
    "gpgpu_warp_issue_shader",
    "gpgpu_experimental_lib_support",
    "steady_",
    "aggregate_power_stats",
    "cdp_latency",
    "gpgpu_cdp_enabled",
    "icnt_verbose",
    "gpgpu_clock_gated_",
    "n_regfile_gating_group",
    "gpgpu_perf_sim_memcpy",
    "gpgpu_flush_l1_cache",
];

/// Whether an option's value is one the model implements.
type ValueTest = fn(&str) -> bool;

/// Options whose effect the model always has at particular values: set to one of those they are
/// represented (an option name, whether a value is such a one, and what the model does);
/// set otherwise they are listed as not modelled.
const AS_MODELLED: &[(&str, ValueTest, &str)] = &[
    (
        "gpgpu_shmem_limited_broadcast",
        |v| v == "0",
        "lanes reading one shared-memory word are served by one broadcast (mem/shared.rs)",
    ),
    (
        "gpgpu_cache:dl2_texture_only",
        |v| v == "0",
        "the L2 caches every access",
    ),
    (
        "gpgpu_coalesce_arch",
        |v| v.parse::<u32>().is_ok_and(|a| a >= 13),
        "GPGPU-Sim runs one coalescer for every value from 13 up (13 GT200, 20 Fermi, 60-86 \
         Volta to Ampere all select `memory_coalescing_arch`, below 13 it aborts): ours, \
         mem/coalesce.rs; the sector granularity comes from the cache configuration",
    ),
];

/// Options that change no timing in this model, with the reason (listed as simulator-only).
/// `gpgpu_mem_address_mask` only chooses the default address mapping, which GPGPU-Sim replaces
/// by `-gpgpu_mem_addr_mapping` when that is given (handled in [`to_timing_config`]).
/// `gpgpu_tex_cache:l1` is mapped onto the texture cache (`tex.*`, see `map_tex`): the PTX
/// subset executes texture instructions (`tex`, `tld4`, `txq`, `suld` are `OpClass::Tex` in
/// warpforge-simt, and traces carry `TEX`), so it has a timing effect.
pub const NO_TIMING_EFFECT: &[(&str, &str)] = &[
    (
        "gpgpu_tensor_core_avail",
        "tensor cores serve only mma/wmma instructions, which the PTX subset does not have (the \
         decoder rejects them), so no executed instruction reaches a tensor-core unit",
    ),
    (
        "gpgpu_registers_per_block",
        "GPGPU-Sim only reports it to the application (cudaGetDeviceProperties' regsPerBlock); \
         its occupancy uses -gpgpu_shader_registers (mapped), and our host code queries nothing",
    ),
    (
        "gpgpu_shmem_per_block",
        "GPGPU-Sim only reports it to the application (sharedMemPerBlock); its occupancy uses \
         -gpgpu_shmem_size (mapped), and our host code queries nothing",
    ),
    (
        "gpgpu_cache:dl1PrefL1",
        "GPGPU-Sim uses it only for a kernel launched with cudaFuncCachePreferL1 \
         (change_cache_config); every launch here has no cache preference, which takes \
         -gpgpu_cache:dl1 (mapped)",
    ),
    (
        "gpgpu_cache:dl1PrefShared",
        "as gpgpu_cache:dl1PrefL1, for cudaFuncCachePreferShared",
    ),
    (
        "gpgpu_shmem_size_PrefL1",
        "as gpgpu_cache:dl1PrefL1: the shared memory of a cudaFuncCachePreferL1 kernel; \
         launches without a preference take -gpgpu_shmem_sizeDefault (mapped)",
    ),
    (
        "gpgpu_shmem_size_PrefShared",
        "as gpgpu_shmem_size_PrefL1, for cudaFuncCachePreferShared",
    ),
    (
        "gpgpu_ignore_resources_limitation",
        "GPGPU-Sim reads it only when one CTA does not fit an SM (it then runs one CTA per SM \
         instead of aborting); warpforge refuses such a launch with an error naming the \
         resource, so no kernel that runs is timed differently",
    ),
    (
        "gpgpu_num_tensor_core_units",
        "as gpgpu_tensor_core_avail: no mma/wmma opcode in the PTX subset",
    ),
    (
        "gpgpu_operand_collector_num_units_tensor_core",
        "as gpgpu_tensor_core_avail: no mma/wmma opcode in the PTX subset",
    ),
    (
        "gpgpu_operand_collector_num_in_ports_tensor_core",
        "as gpgpu_tensor_core_avail: no mma/wmma opcode in the PTX subset",
    ),
    (
        "gpgpu_operand_collector_num_out_ports_tensor_core",
        "as gpgpu_tensor_core_avail: no mma/wmma opcode in the PTX subset",
    ),
];

/// The result of an import.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The timing configuration.
    pub config: GpuConfig,
    /// Options set in the files that describe hardware the timing model does not represent.
    pub unmodelled: Vec<String>,
    /// Options set in the files that only steer GPGPU-Sim itself (statistics, PTX handling, power).
    pub ignored: Vec<String>,
    /// Approximations made while mapping (one line each).
    pub notes: Vec<String>,
}

impl Imported {
    /// The single warning listing what was not carried over, if anything.
    pub fn warning(&self) -> Option<String> {
        if self.unmodelled.is_empty() && self.notes.is_empty() {
            return None;
        }
        let mut s = String::new();
        if !self.unmodelled.is_empty() {
            s.push_str(&format!(
                "{} GPGPU-Sim option(s) are not modelled and were not carried over: {}",
                self.unmodelled.len(),
                self.unmodelled.join(", ")
            ));
        }
        if !self.notes.is_empty() {
            if !s.is_empty() {
                s.push_str("; ");
            }
            s.push_str(&format!("approximated: {}", self.notes.join("; ")));
        }
        if !self.ignored.is_empty() {
            s.push_str(&format!(
                " ({} simulator-only option(s) have no timing effect: {})",
                self.ignored.len(),
                self.ignored.join(", ")
            ));
        }
        Some(s)
    }
}

/// GPGPU-Sim's defaults as options.
pub fn defaults() -> Options {
    Options::parse_str(
        DEFAULTS,
        Path::new("crates/trace/src/gpgpusim/defaults.config"),
    )
    .expect("the embedded defaults parse (unit-tested)")
}

/// Reads config files in order (later ones override earlier ones) and imports them over `base`.
pub fn import_files(files: &[PathBuf], base: GpuConfig) -> Result<Imported, TraceError> {
    let mut user = Options::new();
    for f in files {
        user.add_file(f)?;
    }
    let icnt = match (user.u32("network_mode")?, user.get("inter_config_file")) {
        (Some(1), Some(e)) => {
            let dir = e.file.parent().unwrap_or(Path::new("."));
            let p = dir.join(e.value.trim());
            if !p.exists() {
                return Err(e.error(format!("interconnect file {} does not exist", p.display())));
            }
            Some(IcntConfig::load(&p)?)
        }
        _ => None,
    };
    let name = files
        .first()
        .and_then(|f| f.parent())
        .and_then(|d| d.file_name())
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| "gpgpusim".into());
    to_timing_config(&user, icnt.as_ref(), base, &name)
}

fn pair(e: &OptionEntry) -> Result<(u32, u32), TraceError> {
    let v: Vec<&str> = e.value.split(',').map(str::trim).collect();
    if v.len() != 2 {
        return Err(e.error("expected `<latency>,<initiation>`"));
    }
    let n = |s: &str| {
        s.parse::<u32>()
            .map_err(|_| e.error(format!("`{s}` is not an unsigned integer")))
    };
    Ok((n(v[0])?, n(v[1])?))
}

fn at(e: &OptionEntry, list: &[u32], i: usize, what: &str) -> Result<u32, TraceError> {
    list.get(i)
        .copied()
        .ok_or_else(|| e.error(format!("needs at least {} values (missing {what})", i + 1)))
}

fn map_cache(
    opts: &Options,
    name: &str,
    dst: &mut CacheConfig,
    notes: &mut Vec<String>,
) -> Result<bool, TraceError> {
    let Some(e) = opts.get(name) else {
        return Ok(true);
    };
    let Some(c) = GsCache::parse(&e.value).map_err(|m| e.error(m))? else {
        return Ok(false);
    };
    let (mut sets, mut ways) = (c.sets, c.assoc);
    if ways > 64 {
        let total = u64::from(sets) * u64::from(ways);
        ways = 64;
        sets = (total / 64) as u32;
        notes.push(format!(
            "-{name}: {} ways folded to 64 ways x {sets} sets (same capacity)",
            c.assoc
        ));
    }
    dst.sets = sets;
    dst.ways = ways;
    dst.line_bytes = c.line_bytes;
    // `S` caches keep 32-byte sectors. For `N` caches the base preset's sector size stays (it is
    // also the coalescer's request granularity, 32 bytes in GPGPU-Sim's memory partition) when it
    // divides the line; otherwise the whole line is one sector.
    dst.sector_bytes = if c.sectored {
        32
    } else if dst.sector_bytes <= c.line_bytes && c.line_bytes % dst.sector_bytes == 0 {
        dst.sector_bytes
    } else {
        c.line_bytes
    };
    dst.index = match c.set_index {
        'L' => "linear",
        'H' => "hashed",
        other => {
            notes.push(format!("-{name}: set index `{other}` modelled as `hashed`"));
            "hashed"
        }
    }
    .into();
    if c.replacement == 'F' {
        notes.push(format!("-{name}: FIFO replacement modelled as LRU"));
    }
    dst.replacement = "lru".into();
    dst.write_policy = match c.write_policy {
        'B' => "write_back",
        'E' => "write_evict",
        'T' | 'R' => "write_through",
        _ => {
            notes.push(format!(
                "-{name}: write policy L (local write-back, global write-through) modelled as write_through"
            ));
            "write_through"
        }
    }
    .into();
    // Write allocation on a write miss, modelled for a write-back L2 (L1 caches write-validate).
    let alloc = match c.write_alloc {
        'W' => "naive",
        'N' => "none",
        'F' => {
            notes.push(format!(
                "-{name}: write allocate F (fetch on write) modelled as W (write sent on, line fetched)"
            ));
            "naive"
        }
        _ => "lazy",
    };
    dst.write_allocate = if dst.write_policy == "write_back" && name == "gpgpu_cache:dl2" {
        alloc
    } else {
        if dst.write_policy == "write_back" && alloc != "lazy" {
            notes.push(format!(
                "-{name}: write allocate {} modelled as L (lazy fetch on read)",
                c.write_alloc
            ));
        }
        "lazy"
    }
    .into();
    dst.mshr_entries = c.mshr_entries.max(1);
    dst.mshr_merge = c.mshr_max_merge.max(1);
    dst.miss_queue = c.miss_queue.max(1);
    Ok(true)
}

/// `-gpgpu_tex_cache:l1` onto `cfg.tex` (see [`warpforge_timing::config::TexConfig`]). GPGPU-Sim's
/// texture cache string is `<sets>:<line>:<assoc>,<rep>:R:m:N:<index>,T:<fragment
/// fifo>:<request fifo>,<rob>:<result fifo>` (the MSHR and queue groups of the other caches
/// are reused with these meanings for the `T`/`F` FIFO types): outstanding misses are bounded
/// by the reorder buffer (`tex.mshr_entries`), accesses waiting on data by the fragment FIFO
/// (`tex.mshr_merge`, per line here), misses waiting for the interconnect by the request FIFO
/// (`tex.miss_queue`). GPGPU-Sim has no hit-latency option for it: in Accel-Sim trace mode
/// (`trace_opcode_latency_initiation_*` given) a `specialized_unit_N` named `TEX` charges every
/// texture instruction its `trace_opcode_latency_initiation_spec_op_N` latency, which becomes
/// `tex.latency`; otherwise the L1D's hit latency does. Returns the names of the TEX unit's
/// two options when they were used (they are then represented, not reported).
fn map_tex(
    o: &Options,
    user: &Options,
    trace_mode: bool,
    cfg: &mut warpforge_timing::GpuConfig,
    notes: &mut Vec<String>,
) -> Result<Vec<String>, TraceError> {
    const NAME: &str = "gpgpu_tex_cache:l1";
    let Some(e) = o.get(NAME) else {
        return Ok(vec![]);
    };
    let Some(c) = GsCache::parse(&e.value).map_err(|m| e.error(m))? else {
        cfg.tex.enabled = false;
        return Ok(vec![]);
    };
    let t = &mut cfg.tex;
    t.enabled = true;
    (t.sets, t.ways, t.line_bytes) = (c.sets, c.assoc, c.line_bytes);
    if c.assoc > 64 {
        t.ways = 64;
        t.sets = ((u64::from(c.sets) * u64::from(c.assoc)) / 64) as u32;
        notes.push(format!(
            "-{NAME}: {} ways folded to 64 ways x {} sets (same capacity)",
            c.assoc, t.sets
        ));
    }
    if c.sectored {
        notes.push(format!(
            "-{NAME}: sectored (S) modelled as whole-line fills"
        ));
    }
    if c.replacement != 'L' {
        notes.push(format!("-{NAME}: FIFO replacement modelled as LRU"));
    }
    if c.set_index != 'L' {
        notes.push(format!(
            "-{NAME}: set index `{}` modelled as linear",
            c.set_index
        ));
    }
    if matches!(c.mshr_type, 'T' | 'F') {
        // Fragment FIFO, request FIFO, reorder buffer (the fields' second meanings).
        (t.mshr_merge, t.miss_queue, t.mshr_entries) = (
            c.mshr_entries.max(1),
            c.mshr_max_merge.max(1),
            c.miss_queue.max(1),
        );
    } else {
        (t.mshr_entries, t.mshr_merge, t.miss_queue) = (
            c.mshr_entries.max(1),
            c.mshr_max_merge.max(1),
            c.miss_queue.max(1),
        );
    }
    if c.result_fifo.is_some_and(|r| r > 0) {
        notes.push(format!(
            "-{NAME}: in-order return through the {}-entry result FIFO not modelled (a hit \
             does not wait behind an older miss)",
            c.result_fifo.unwrap_or(0)
        ));
    }
    t.latency = cfg.l1d.latency;
    let mut used = vec![];
    if trace_mode {
        for n in 1..=8 {
            let (unit, spec) = (
                format!("specialized_unit_{n}"),
                format!("trace_opcode_latency_initiation_spec_op_{n}"),
            );
            let (Some(u), Some(l)) = (user.get(&unit), user.get(&spec)) else {
                continue;
            };
            let fields: Vec<&str> = u.value.split(',').map(str::trim).collect();
            if fields.first() == Some(&"1") && fields.last() == Some(&"TEX") {
                let (lat, _) = pair(l)?;
                cfg.tex.latency = lat.max(1);
                notes.push(format!(
                    "-{NAME}: hit latency {lat} from -{spec} (Accel-Sim trace mode charges \
                     every TEX instruction that latency in -{unit})"
                ));
                used = vec![unit, spec];
                break;
            }
        }
    }
    Ok(used)
}

/// `-gpgpu_pipeline_widths`, `-gpgpu_reg_file_port_throughput` and the operand-collector
/// ports onto `core.pipe` (see [`warpforge_timing::config::PipeConfig`]). Absent options take
/// GPGPU-Sim's registered defaults (widths 1, specialized ports 1, generic ports 0).
fn map_pipeline(
    o: &Options,
    c: &mut warpforge_timing::config::CoreConfig,
    notes: &mut Vec<String>,
) -> Result<(), TraceError> {
    // ID_OC_SP, ID_OC_DP, ID_OC_INT, ID_OC_SFU, ID_OC_MEM, OC_EX_SP, OC_EX_DP, OC_EX_INT,
    // OC_EX_SFU, OC_EX_MEM, EX_WB[, ID_OC_TENSOR_CORE, OC_EX_TENSOR_CORE]
    let w = match o.get("gpgpu_pipeline_widths") {
        Some(e) => {
            let l = o.list("gpgpu_pipeline_widths", ',')?.unwrap_or_default();
            if l.len() < 11 {
                return Err(e.error(
                    "expected at least 11 widths: ID_OC_SP,ID_OC_DP,ID_OC_INT,ID_OC_SFU,ID_OC_MEM,\
                     OC_EX_SP,OC_EX_DP,OC_EX_INT,OC_EX_SFU,OC_EX_MEM,EX_WB",
                ));
            }
            l
        }
        None => vec![1; 13],
    };
    let steps = o
        .u32("gpgpu_reg_file_port_throughput")?
        .unwrap_or(1)
        .clamp(1, 8);
    let port = |name: &str, default: u32| -> Result<u32, TraceError> {
        Ok(o.u32(name)?.unwrap_or(default))
    };
    let int = c.int_units > 0;
    // The SP-class collectors take SP and (with INT pipelines) INT instructions.
    let id_sp = w[0] + if int { w[2] } else { 0 };
    let p = &mut c.pipe;
    p.reg_port_throughput = steps;
    p.result_buses = w[10];
    if o.bool("gpgpu_enable_specialized_operand_collector")? == Some(false) {
        // Generic collectors only: their ports serve every class.
        p.issue = [id_sp, w[3], w[4]];
        p.dispatch = [w[5], w[8], w[7]];
        p.in_ports = port("gpgpu_operand_collector_num_in_ports_gen", 0)? * steps;
        p.out_ports = port("gpgpu_operand_collector_num_out_ports_gen", 0)?;
    } else {
        let (in_sp, in_int) = (
            port("gpgpu_operand_collector_num_in_ports_sp", 1)?,
            port("gpgpu_operand_collector_num_in_ports_int", 0)?,
        );
        let in_sp = in_sp + if int { in_int } else { 0 };
        p.issue = [
            id_sp.min(in_sp * steps),
            w[3].min(port("gpgpu_operand_collector_num_in_ports_sfu", 1)? * steps),
            w[4].min(port("gpgpu_operand_collector_num_in_ports_mem", 1)? * steps),
        ];
        p.dispatch = [
            w[5].min(port("gpgpu_operand_collector_num_out_ports_sp", 1)?),
            w[8].min(port("gpgpu_operand_collector_num_out_ports_sfu", 1)?),
            w[7].min(port("gpgpu_operand_collector_num_out_ports_int", 0)?),
        ];
        p.in_ports = 0;
        p.out_ports = 0;
    }
    // A class whose width or ports are 0 could never issue or dispatch in GPGPU-Sim (it
    // would hang); 0 means "no limit" here, so such a width is taken as 1.
    let mut zero = Vec::new();
    for (k, v) in ["SP", "SFU", "MEM"].iter().zip(p.issue.iter_mut()) {
        if *v == 0 {
            zero.push(format!("ID_OC_{k}"));
            *v = 1;
        }
    }
    for (k, v) in ["SP", "SFU", "INT"].iter().zip(p.dispatch.iter_mut()) {
        if *v == 0 && (*k != "INT" || int) {
            zero.push(format!("OC_EX_{k}"));
            *v = 1;
        }
    }
    if p.result_buses == 0 {
        zero.push("EX_WB".into());
        p.result_buses = 1;
    }
    if !zero.is_empty() {
        notes.push(format!(
            "-gpgpu_pipeline_widths / collector ports: width 0 of {} modelled as 1",
            zero.join(", ")
        ));
    }
    Ok(())
}

/// Maps options (`user`: the files' options; GPGPU-Sim defaults are added underneath) onto `base`.
pub fn to_timing_config(
    user: &Options,
    icnt: Option<&IcntConfig>,
    base: GpuConfig,
    name: &str,
) -> Result<Imported, TraceError> {
    let mut o = defaults();
    o.merge(user);
    let mut cfg = base;
    let mut notes = Vec::new();
    cfg.name = format!("gpgpusim:{name}");
    cfg.description = format!("imported from GPGPU-Sim config `{name}`");

    // --- Core -------------------------------------------------------------------------------
    let c = &mut cfg.core;
    let clusters = o.u32("gpgpu_n_clusters")?.unwrap_or(c.num_sms);
    let per = o.u32("gpgpu_n_cores_per_cluster")?.unwrap_or(1);
    c.num_sms = clusters * per;
    if let Some(e) = o.get("gpgpu_shader_core_pipeline") {
        let l = o
            .list("gpgpu_shader_core_pipeline", ':')?
            .unwrap_or_default();
        let threads = at(e, &l, 0, "threads")?;
        let warp = at(e, &l, 1, "warp size")?;
        if warp != 32 {
            return Err(e.error("only a warp size of 32 is supported"));
        }
        let w = threads / 32;
        if w > 64 {
            notes.push(format!(
                "-gpgpu_shader_core_pipeline: {w} warps per SM capped at 64"
            ));
        }
        c.max_warps = w.clamp(1, 64);
    }
    // Dual issue: instructions per warp per scheduler cycle, different units or not.
    if let Some(v) = o.u32("gpgpu_max_insn_issue_per_warp")? {
        c.max_issue_per_warp = v.max(1);
    }
    if let Some(v) = o.bool("gpgpu_dual_issue_diff_exec_units")? {
        c.dual_issue_diff_units = v;
    }
    if let Some(v) = o.u32("gpgpu_shader_cta")? {
        c.max_ctas = v;
    }
    if let Some(v) = o.u32("gpgpu_shader_registers")? {
        c.registers = v;
    }
    if let Some(v) = o.u32("gpgpu_shmem_size")? {
        c.shared_bytes = v;
    }
    if let Some(v) = o.u32("gpgpu_num_sched_per_core")? {
        c.schedulers = v;
    }
    if let Some(e) = o.get("gpgpu_scheduler") {
        let v = e.value.trim();
        let (policy, rest) = v.split_once(':').unwrap_or((v, ""));
        c.scheduler =
            match policy {
                "lrr" | "gto" => policy.to_string(),
                "two_level_active" => {
                    if let Some(n) = rest.split(':').next().and_then(|n| n.parse().ok()) {
                        c.two_level_active = n;
                    }
                    "two_level".to_string()
                }
                "old" | "rrr" | "warp_limiting" => {
                    notes.push(format!("-gpgpu_scheduler: `{policy}` modelled as `lrr`"));
                    "lrr".to_string()
                }
                _ => return Err(e.error(
                    "unknown scheduler (lrr, gto, two_level_active:..., old, rrr, warp_limiting)",
                )),
            };
    }
    if let Some(v) = o.u32("gpgpu_num_sp_units")? {
        c.sp_units = v.max(1);
    }
    if let Some(v) = o.u32("gpgpu_num_sfu_units")? {
        c.sfu_units = v.max(1);
    }
    if let Some(v) = o.u32("gpgpu_num_dp_units")? {
        c.dp_on_sfu = v == 0;
    }
    if o.bool("gpgpu_enable_specialized_operand_collector")? == Some(false) {
        let g = o
            .u32("gpgpu_operand_collector_num_units_gen")?
            .unwrap_or(8)
            .max(1);
        c.collectors_sp = g;
        c.collectors_sfu = g;
        c.collectors_mem = g;
    } else {
        if let Some(v) = o.u32("gpgpu_operand_collector_num_units_sp")? {
            c.collectors_sp = v.max(1);
        }
        if let Some(v) = o.u32("gpgpu_operand_collector_num_units_sfu")? {
            c.collectors_sfu = v.max(1);
        }
        if let Some(v) = o.u32("gpgpu_operand_collector_num_units_mem")? {
            c.collectors_mem = v.max(1);
        }
    }
    if let Some(v) = o.u32("gpgpu_num_reg_banks")? {
        c.reg_banks = v.clamp(1, 64);
    }
    // Sub-core model: every scheduler a processing block with its own collectors, pipelines
    // and register banks (GPGPU-Sim asserts that these divide evenly; validation reports it).
    if let Some(sub) = o.bool("gpgpu_sub_core_model")? {
        c.sub_cores = if sub { c.schedulers } else { 1 };
    }
    // INT pipelines (Volta and later): integer and other non-floating-point ALU work.
    if let Some(v) = o.u32("gpgpu_num_int_units")? {
        c.int_units = v;
    }
    map_pipeline(&o, c, &mut notes)?;
    // Fetch and decode slots per SM per cycle (GPGPU-Sim runs decode + fetch this many times
    // per core cycle; Volta and later files set one per sub-core).
    if let Some(v) = o.u32("gpgpu_inst_fetch_throughput")? {
        c.fetch_per_cycle = v.max(1);
    }
    // Latencies: <ADD,MAX,MUL,MAD,DIV[,SHFL]>.
    for (lat_name, ini_name) in [
        ("ptx_opcode_latency_int", "ptx_opcode_initiation_int"),
        ("ptx_opcode_latency_fp", "ptx_opcode_initiation_fp"),
        ("ptx_opcode_latency_dp", "ptx_opcode_initiation_dp"),
    ] {
        for (opt, is_lat) in [(lat_name, true), (ini_name, false)] {
            let Some(e) = o.get(opt) else { continue };
            let l = o.list(opt, ',')?.unwrap_or_default();
            let t = if is_lat {
                &mut c.latency
            } else {
                &mut c.initiation
            };
            let add = at(e, &l, 0, "ADD")?;
            let mad = at(e, &l, 3, "MAD")?;
            let div = at(e, &l, 4, "DIV")?;
            match opt {
                o if o.ends_with("_int") => {
                    t.int_alu = add;
                    t.int_mul = mad;
                    t.int_div = div;
                    t.branch = add;
                    if let Some(&s) = l.get(5) {
                        t.collective = s;
                    }
                }
                o if o.ends_with("_fp") => {
                    t.fp_alu = add;
                    t.fp_div = div;
                }
                _ => t.dp = add,
            }
        }
    }
    if let Some(v) = o.u32("ptx_opcode_latency_sfu")? {
        c.latency.sfu = v;
        c.latency.conv = v;
    }
    if let Some(v) = o.u32("ptx_opcode_initiation_sfu")? {
        c.initiation.sfu = v;
        c.initiation.conv = v;
    }
    let mut trace_mode = false;
    for opt in [
        "trace_opcode_latency_initiation_int",
        "trace_opcode_latency_initiation_sp",
        "trace_opcode_latency_initiation_dp",
        "trace_opcode_latency_initiation_sfu",
    ] {
        let Some(e) = user.get(opt) else { continue };
        trace_mode = true;
        let (lat, ini) = pair(e)?;
        let (l, i) = (&mut c.latency, &mut c.initiation);
        match opt.rsplit('_').next() {
            Some("int") => {
                (l.int_alu, l.int_mul, l.int_div) = (lat, lat, lat);
                (i.int_alu, i.int_mul, i.int_div) = (ini, ini, ini);
            }
            Some("sp") => {
                (l.fp_alu, l.fp_div) = (lat, lat);
                (i.fp_alu, i.fp_div) = (ini, ini);
            }
            Some("dp") => {
                l.dp = lat;
                i.dp = ini;
            }
            _ => {
                (l.sfu, l.conv) = (lat, lat);
                (i.sfu, i.conv) = (ini, ini);
            }
        }
    }
    if trace_mode {
        if let (Some(u), Some(e)) = (
            user.get("specialized_unit_1"),
            user.get("trace_opcode_latency_initiation_spec_op_1"),
        ) {
            if u.value.trim().starts_with('1') && u.value.contains("BRA") {
                let (lat, ini) = pair(e)?;
                c.latency.branch = lat;
                c.initiation.branch = ini;
            }
        }
    }
    for v in [
        &mut c.initiation.int_alu,
        &mut c.initiation.int_mul,
        &mut c.initiation.int_div,
        &mut c.initiation.fp_alu,
        &mut c.initiation.fp_div,
        &mut c.initiation.dp,
        &mut c.initiation.sfu,
        &mut c.initiation.conv,
        &mut c.initiation.branch,
        &mut c.initiation.collective,
    ] {
        *v = (*v).max(1);
    }

    // --- Caches and shared memory -------------------------------------------------------------
    map_cache(&o, "gpgpu_cache:il1", &mut cfg.l1i, &mut notes)?;
    let l1_present = map_cache(&o, "gpgpu_cache:dl1", &mut cfg.l1d, &mut notes)?;
    map_cache(&o, "gpgpu_const_cache:l1", &mut cfg.const_cache, &mut notes)?;
    if !map_cache(&o, "gpgpu_cache:dl2", &mut cfg.l2.cache, &mut notes)? {
        notes.push("-gpgpu_cache:dl2 none: an L2 is still simulated with the base geometry".into());
    }
    // A sectored L2 (`S`): GPGPU-Sim's memory partition splits every request into sector
    // requests (one tag access and, on a miss, one DRAM request per 32-byte sector).
    if let Some(e) = o.get("gpgpu_cache:dl2") {
        if let Some(c) = GsCache::parse(&e.value).map_err(|m| e.error(m))? {
            cfg.l2.sector_requests = c.sectored;
        }
    }
    // A sectored L1D (`S`): a miss fetches only the sectors it needs.
    if let Some(e) = o.get("gpgpu_cache:dl1") {
        if let Some(c) = GsCache::parse(&e.value).map_err(|m| e.error(m))? {
            cfg.l1d.sector_fetch = c.sectored;
            // Write allocation of a write-through L1D: `L` (lazy fetch on read) allocates the
            // stored sectors without fetching; `N` allocates nothing.
            cfg.l1d.store_allocate = cfg.l1d.write_policy == "write_through"
                && c.write_policy == 'T'
                && c.write_alloc != 'N';
            if cfg.l1d.store_allocate && c.write_alloc != 'L' {
                notes.push(format!(
                    "-gpgpu_cache:dl1: write allocate {} modelled as L (stored sectors kept, nothing fetched)",
                    c.write_alloc
                ));
            }
            // Allocation `f` (on fill) and `s` (streaming: on fill, with an MSHR entry per
            // sector of the cache and a warp's worth of merges, GPGPU-Sim's `cache_config::init`).
            cfg.l1d.allocate_on_fill = matches!(c.alloc, 'f' | 's');
            if c.alloc == 's' {
                let sectors = if c.sectored { 4 } else { 1 };
                cfg.l1d.mshr_entries = c.sets * c.assoc * 4 * sectors;
                cfg.l1d.mshr_merge = 64;
            }
        }
    }
    cfg.l1d.write_ratio = o.u32("gpgpu_l1_cache_write_ratio")?.unwrap_or(0).min(100);
    // A perfect instruction and constant cache: every fetch and constant read hits.
    let perfect = o.bool("gpgpu_perfect_inst_const_cache")? == Some(true);
    cfg.l1i.perfect = perfect;
    cfg.const_cache.perfect = perfect;
    // GPGPU-Sim's kernel launch (`change_cache_config` with no cudaFuncSetCacheConfig
    // preference, the case of every kernel here) sets the per-SM shared memory to
    // `-gpgpu_shmem_sizeDefault`, which therefore bounds occupancy; its own default (16 KiB)
    // is not applied to files that leave it out.
    if let Some(e) = user.get("gpgpu_shmem_sizeDefault") {
        cfg.core.shared_bytes = e
            .value
            .trim()
            .parse()
            .map_err(|_| e.error("expected bytes (an unsigned integer)"))?;
    }
    // Unified L1D/shared array with a per-launch carve-out (only with the adaptive cache
    // configuration; without it GPGPU-Sim keeps the `dl1` geometry and the two options do
    // nothing).
    cfg.shared.unified_bytes = 0;
    cfg.shared.carveouts.clear();
    let unified = o.u32("gpgpu_unified_l1d_size")?.unwrap_or(0);
    if o.bool("gpgpu_adaptive_cache_config")? == Some(true) && unified > 0 && l1_present {
        let e = o.get("gpgpu_shmem_option").expect("in the defaults");
        let opts = o.list("gpgpu_shmem_option", ',')?.unwrap_or_default();
        let mut kib: Vec<u32> = opts.into_iter().filter(|&k| k < unified).collect();
        kib.sort_unstable();
        kib.dedup();
        if kib.is_empty() {
            return Err(e.error("needs at least one carve-out below -gpgpu_unified_l1d_size"));
        }
        cfg.shared.unified_bytes = unified << 10;
        cfg.shared.carveouts = kib.iter().map(|k| k << 10).collect();
    }
    cfg.dram.dual_bus = o.bool("dram_dual_bus_interface")? == Some(true);
    // DRAM bank indexing: 0 the bank bits, 1 XOR with the row's low bits.
    cfg.dram.bank_xor_row = match o.u32("dram_bnk_indexing_policy")? {
        None | Some(0) => false,
        Some(1) => true,
        Some(p) => {
            notes.push(format!(
                "-dram_bnk_indexing_policy {p} (IPOLY/custom) modelled as 1 (XOR with the row)"
            ));
            true
        }
    };
    // A separate write queue with drain watermarks (`<entries>:<high>:<low>`). Without it
    // GPGPU-Sim queues reads and writes together; the model always keeps them apart, with a
    // write queue of `dram.queue_size` entries drained from 3/4 full down to 1/4.
    if o.bool("dram_seperate_write_queue_enable")? == Some(true) {
        if let Some(e) = o.get("dram_write_queue_size") {
            let l = o.list("dram_write_queue_size", ':')?.unwrap_or_default();
            let (n, high, low) = (
                at(e, &l, 0, "entries")?,
                at(e, &l, 1, "high watermark")?,
                at(e, &l, 2, "low watermark")?,
            );
            if n == 0 || high == 0 || high > n || low == 0 || low > high {
                return Err(
                    e.error("expected <entries>:<high>:<low> with 0 < low <= high <= entries")
                );
            }
            (
                cfg.dram.write_queue,
                cfg.dram.write_high,
                cfg.dram.write_low,
            ) = (n, high, low);
        }
    }
    if let Some(v) = o.u32("gpgpu_kernel_launch_latency")? {
        cfg.core.launch_latency = v;
    }
    if let Some(v) = o.u32("gpgpu_TB_launch_latency")? {
        cfg.core.cta_launch_latency = v;
    }
    cfg.l2.flush_between_launches = o.bool("gpgpu_flush_l2_cache")? == Some(true);
    if let Some(v) = o.u32("gpgpu_shmem_warp_parts")? {
        cfg.shared.warp_parts = v.clamp(1, 32).next_power_of_two();
    }
    cfg.l1d.insertion = if !l1_present || o.bool("gpgpu_gmem_skip_L1D")? == Some(true) {
        "bypass_all".into()
    } else {
        "always".into()
    };
    if let Some(v) = o.u32("gpgpu_l1_banks")? {
        cfg.l1d.banks = v.clamp(1, 64);
    }
    if let Some(v) = o.u32("gpgpu_l1_banks_byte_interleaving")? {
        cfg.l1d.bank_bytes = v.max(1).next_power_of_two();
    }
    if let Some(v) = o.u32("gpgpu_l1_latency")? {
        cfg.l1d.latency = v.max(1);
    }
    if let Some(v) = o.u32("gpgpu_smem_latency")? {
        cfg.shared.latency = v.max(1);
    }
    let tex_unit = map_tex(&o, user, trace_mode, &mut cfg, &mut notes)?;
    if let Some(v) = o.u32("gpgpu_shmem_num_banks")? {
        cfg.shared.banks = v.clamp(1, 64);
    }

    // --- Clocks ------------------------------------------------------------------------------
    if let Some(e) = o.get("gpgpu_clock_domains") {
        let l = o.list_f64("gpgpu_clock_domains", ':')?.unwrap_or_default();
        if l.len() != 4 {
            return Err(e.error("expected <core>:<icnt>:<l2>:<dram> in MHz"));
        }
        cfg.clocks.core_mhz = l[0];
        cfg.clocks.icnt_mhz = l[1];
        cfg.clocks.l2_mhz = l[2];
        cfg.clocks.dram_mhz = l[3];
    }

    // --- Memory partitions and DRAM ----------------------------------------------------------
    if let Some(v) = o.u32("gpgpu_n_mem")? {
        cfg.dram.channels = v.max(1);
    }
    if let Some(v) = o.u32("gpgpu_n_sub_partition_per_mchannel")? {
        cfg.l2.slices_per_channel = v.max(1);
    }
    if let Some(v) = o.u32("gpgpu_l2_rop_latency")? {
        cfg.l2.rop_latency = v;
    }
    if let Some(v) = o.u32("dram_latency")? {
        cfg.l2.dram_latency = v;
    }
    if let Some(e) = o.get("gpgpu_dram_partition_queues") {
        let l = o
            .list("gpgpu_dram_partition_queues", ':')?
            .unwrap_or_default();
        cfg.l2.input_queue = at(e, &l, 0, "icnt to L2")?.max(1);
        cfg.l2.dram_queue = at(e, &l, 1, "L2 to DRAM")?.max(1);
        cfg.l2.output_queue = at(e, &l, 3, "L2 to icnt")?.max(1);
    }
    if let Some(e) = o.get("gpgpu_dram_scheduler") {
        cfg.dram.scheduler = match e.value.trim() {
            "0" => "fcfs",
            "1" => "frfcfs",
            _ => return Err(e.error("expected 0 (FIFO) or 1 (FR-FCFS)")),
        }
        .into();
    }
    if let Some(v) = o.u32("gpgpu_frfcfs_dram_sched_queue_size")? {
        cfg.dram.queue_size = if v == 0 { 1024 } else { v };
    }
    if let Some(v) = o.u32("gpgpu_dram_return_queue_size")? {
        cfg.dram.return_queue = if v == 0 { 1024 } else { v };
    }
    let bus = o.u32("gpgpu_dram_buswidth")?.unwrap_or(4);
    let chips = o.u32("gpgpu_n_mem_per_ctrlr")?.unwrap_or(1);
    cfg.dram.bus_bytes = (bus * chips).max(1);
    if let Some(v) = o.u32("gpgpu_dram_burst_length")? {
        cfg.dram.burst_length = v.max(1);
    }
    if let Some(v) = o.u32("dram_data_command_freq_ratio")? {
        cfg.dram.data_ratio = v.max(1);
    }
    if let Some(e) = o.get("gpgpu_dram_timing_opt") {
        let t = &mut cfg.dram.timing;
        let kv = parse_kv_colon(e)?;
        let mut ccdl = None;
        let mut rtpl = None;
        for (k, v) in &kv {
            match k.as_str() {
                "nbk" => cfg.dram.banks = *v,
                "CCD" => t.t_ccd = *v,
                "RRD" => t.t_rrd = *v,
                "RCD" => t.t_rcd = *v,
                "RAS" => t.t_ras = *v,
                "RP" => t.t_rp = *v,
                "RC" => t.t_rc = *v,
                "CL" => t.t_cl = *v,
                "WL" => t.t_wl = *v,
                "CDLR" => t.t_wtr = *v,
                "WR" => t.t_wr = *v,
                "nbkgrp" => cfg.dram.bank_groups = (*v).max(1),
                "CCDL" => ccdl = Some(*v),
                "RTPL" => rtpl = Some(*v),
                "RCDWR" | "tRCDWR" => {}
                other => return Err(e.error(format!("unknown DRAM timing field `{other}`"))),
            }
        }
        // GPGPU-Sim uses 0 for "no bank-group penalty": same as the cross-group value.
        t.t_ccdl = ccdl.filter(|v| *v > 0).unwrap_or(t.t_ccd);
        t.t_rtp = rtpl.filter(|v| *v > 0).unwrap_or(t.t_rtp);
    }
    // Bank groups from the bank number's high bits (0) or low bits (1).
    if let Some(e) = o.get("dram_bnkgrp_indexing_policy") {
        cfg.dram.bank_group_high_bits = match e.value.trim() {
            "0" => true,
            "1" => false,
            _ => return Err(e.error("expected 0 (higher bits) or 1 (lower bits)")),
        };
    }
    if let Some(e) = o.get("gpgpu_mem_addr_mapping") {
        let v = e.value.trim();
        let (chan, mask) = match v.split_once(';') {
            Some((c, m)) => (Some(c), m),
            None => (None, v),
        };
        if let Some(c) = chan {
            let bit = c
                .trim()
                .strip_prefix("dramid@")
                .and_then(|b| b.parse().ok())
                .ok_or_else(|| e.error("expected `dramid@<bit>;<mask>`"))?;
            cfg.dram.channel_bit = bit;
        }
        if mask.contains('D') {
            notes.push("-gpgpu_mem_addr_mapping: channel bits (D) in the mask replaced by dramid@channel_bit interleaving".into());
        }
        cfg.dram.addr_map = mask.trim().replace('D', "0");
    }

    // --- Interconnect ------------------------------------------------------------------------
    match o.u32("network_mode")? {
        Some(1) => {
            if let Some(ic) = icnt {
                if let Some(v) = ic.u32("flit_size")? {
                    cfg.icnt.flit_bytes = v.max(1);
                }
                let d = |k: &str| ic.u32(k).map(|v| v.unwrap_or(0));
                cfg.icnt.latency =
                    d("routing_delay")? + d("vc_alloc_delay")? + d("sw_alloc_delay")? + 2;
                // A router port moves `speedup` flits per cycle; a packet crosses an input and an
                // output port, so the slower of the two bounds it (`internal_speedup` is the
                // switch's, which runs between them, not a port's).
                let speedup = |k: &str| ic.f64(k).map(|v| v.unwrap_or(1.0));
                let ports = speedup("input_speedup")?.min(speedup("output_speedup")?);
                cfg.icnt.flits_per_cycle = (ports.round() as u32).max(1);
            }
        }
        _ => {
            if let Some(v) = o.u32("icnt_flit_size")? {
                cfg.icnt.flit_bytes = v.max(1);
            }
            // GPGPU-Sim's local crossbar (`network_mode 2`) moves one flit per port per
            // interconnect cycle.
            cfg.icnt.flits_per_cycle = 1;
        }
    }
    if let Some(v) = o.u32("icnt_in_buffer_limit")? {
        cfg.icnt.input_buffer = v.max(1);
    }
    if let Some(v) = o.u32("gpgpu_n_cluster_ejection_buffer_size")? {
        cfg.icnt.ejection_buffer = v.max(1);
    }
    // The local crossbar's output buffers (network_mode 2; intersim reads its own file).
    cfg.icnt.output_buffer = 0;
    if o.u32("network_mode")? != Some(1) {
        if let Some(v) = o.u32("icnt_out_buffer_limit")? {
            cfg.icnt.output_buffer = v.max(1);
        }
    }

    // GPGPU-Sim sends instruction-cache misses through the interconnect to the L2 (and on a cold
    // L2 to DRAM); so does warpforge with `l1i.miss_latency = 0`, which the import keeps.
    cfg.l1i.miss_latency = 0;

    // Memory-partition indexing (after the channel count is known).
    cfg.dram.channel_index = "consecutive".into();
    if let Some(v) = o.u32("gpgpu_memory_partition_indexing")? {
        let pow2 = cfg.dram.channels.is_power_of_two();
        cfg.dram.channel_index = match v {
            0 => "consecutive",
            1 | 2 if pow2 => {
                if v == 1 {
                    "xor"
                } else {
                    "ipoly"
                }
            }
            1 | 2 => {
                notes.push(format!(
                    "-gpgpu_memory_partition_indexing {v}: needs a power-of-two channel count ({}), modelled as consecutive",
                    cfg.dram.channels
                ));
                "consecutive"
            }
            _ => {
                notes.push(format!(
                    "-gpgpu_memory_partition_indexing {v} (PAE/random/custom) modelled as ipoly where the channel count allows, else consecutive"
                ));
                if pow2 {
                    "ipoly"
                } else {
                    "consecutive"
                }
            }
        }
        .into();
    }

    cfg.validate().map_err(|e| {
        let file = user
            .entries()
            .first()
            .map(|e| e.file.clone())
            .unwrap_or_else(|| PathBuf::from(name));
        TraceError::invalid(&file, format!("the imported configuration is invalid: {e}"))
    })?;

    // --- Report ------------------------------------------------------------------------------
    let mut unmodelled = Vec::new();
    let mut ignored = Vec::new();
    for e in user.effective() {
        let n = e.name.as_str();
        if MAPPED.contains(&n) || tex_unit.iter().any(|u| u == n) {
            continue;
        }
        let infra = INFRA.iter().any(|p| {
            if p.ends_with('_') {
                n.starts_with(p)
            } else {
                n == *p
            }
        }) || (n.starts_with("trace_opcode_latency_initiation_") && trace_mode)
            || n.starts_with("specialized_unit_");
        // Options left at GPGPU-Sim's default value change nothing either way.
        let is_default = defaults()
            .get(n)
            .is_some_and(|d| d.value.trim() == e.value.trim());
        let as_modelled = AS_MODELLED
            .iter()
            .any(|(name, ok, _)| *name == n && ok(e.value.trim()));
        if as_modelled {
            continue;
        }
        let no_effect = NO_TIMING_EFFECT.iter().any(|(name, _)| *name == n)
            || (n == "gpgpu_mem_address_mask" && user.get("gpgpu_mem_addr_mapping").is_some());
        if infra || no_effect {
            ignored.push(format!("-{n}"));
        } else if !is_default {
            unmodelled.push(format!("-{n}"));
        }
    }
    Ok(Imported {
        config: cfg,
        unmodelled,
        ignored,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_defaults_parse_and_hold_gpgpusim_values() {
        let d = defaults();
        assert!(d.entries().len() > 100);
        assert_eq!(d.u32("gpgpu_l1_latency").unwrap(), Some(1));
        assert_eq!(d.u32("gpgpu_smem_latency").unwrap(), Some(3));
        assert_eq!(d.str("hw_perf_bench_name"), Some(""));
    }

    fn l1d_of(text: &str) -> warpforge_timing::config::CacheConfig {
        let o = Options::parse_str(text, std::path::Path::new("t.config")).unwrap();
        let base = GpuConfig::preset("gtx480").unwrap();
        to_timing_config(&o, None, base, "t").unwrap().config.l1d
    }

    #[test]
    fn l1d_store_allocation_write_ratio_and_streaming_are_carried_over() {
        // QV100: write-through with lazy fetch on read, 25% write ratio, allocate on miss.
        let v = l1d_of(
            "-gpgpu_cache:dl1 S:4:128:64,L:T:m:L:L,A:512:8,16:0,32\n-gpgpu_l1_cache_write_ratio 25\n",
        );
        assert!(v.store_allocate && !v.allocate_on_fill);
        assert_eq!((v.write_ratio, v.mshr_entries, v.mshr_merge), (25, 512, 8));
        // GTX480: local write-back / global write-through, no write allocation; no ratio.
        let f = l1d_of("-gpgpu_cache:dl1 N:32:128:4,L:L:m:N:H,S:64:8,8\n");
        assert!(!f.store_allocate && !f.allocate_on_fill);
        assert_eq!(f.write_ratio, 0);
        // TITAN X (Pascal): streaming `s` allocates on fill with an MSHR entry per sector.
        let p = l1d_of("-gpgpu_cache:dl1 S:4:128:96,L:L:s:N:L,A:256:8,16:0,32\n");
        assert!(p.allocate_on_fill && !p.store_allocate);
        assert_eq!((p.mshr_entries, p.mshr_merge), (4 * 96 * 4 * 4, 64));
    }

    fn report(text: &str) -> Imported {
        let o = Options::parse_str(text, std::path::Path::new("t.config")).unwrap();
        to_timing_config(&o, None, GpuConfig::preset("gtx480").unwrap(), "t").unwrap()
    }

    /// An option at a value the model always implements is represented; at another value it is
    /// reported as not modelled. Tensor-core options have no timing effect (no mma/wmma in the
    /// PTX subset); the address mask only when an explicit address mapping replaces it.
    /// `-gpgpu_flush_l2_cache` sets `l2.flush_between_launches`.
    #[test]
    fn fixed_behaviour_options_are_represented_only_at_the_model_s_values() {
        let r = report(
            "-gpgpu_max_insn_issue_per_warp 1\n-gpgpu_shmem_limited_broadcast 0\n\
             -gpgpu_shmem_warp_parts 1\n-gpgpu_cache:dl2_texture_only 0\n\
             -gpgpu_tensor_core_avail 1\n-gpgpu_num_tensor_core_units 4\n\
             -gpgpu_flush_l2_cache 1\n-gpgpu_mem_address_mask 1\n\
             -gpgpu_registers_per_block 65536\n-gpgpu_shmem_per_block 65536\n\
             -gpgpu_mem_addr_mapping dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCB.CCCSSSSS\n",
        );
        assert!(r.unmodelled.is_empty(), "{:?}", r.unmodelled);
        for n in [
            "-gpgpu_tensor_core_avail",
            "-gpgpu_mem_address_mask",
            "-gpgpu_registers_per_block",
        ] {
            assert!(r.ignored.iter().any(|i| i == n), "{n}: {:?}", r.ignored);
        }
        assert!(r.config.l2.flush_between_launches);
        let r = report(
            "-gpgpu_max_insn_issue_per_warp 2\n-gpgpu_shmem_warp_parts 2\n\
             -gpgpu_shmem_limited_broadcast 1\n-gpgpu_mem_address_mask 1\n\
             -gpgpu_dual_issue_diff_exec_units 0\n",
        );
        assert_eq!(r.config.shared.warp_parts, 2);
        // Dual issue is mapped (core.max_issue_per_warp).
        assert_eq!(r.config.core.max_issue_per_warp, 2);
        assert!(!r.config.core.dual_issue_diff_units);
        for n in ["-gpgpu_shmem_limited_broadcast", "-gpgpu_mem_address_mask"] {
            assert!(
                r.unmodelled.iter().any(|u| u == n),
                "{n}: {:?}",
                r.unmodelled
            );
        }
        assert!(!r.config.l2.flush_between_launches);
    }

    /// QV100's generic collectors: widths per class, ports for all classes, two collector
    /// steps per cycle; GTX480's specialized ones: each class's width capped by its ports.
    #[test]
    fn pipeline_widths_int_units_and_collector_ports_are_carried_over() {
        let q = report(
            "-gpgpu_pipeline_widths 4,4,4,4,4,4,4,4,4,4,8,4,4\n-gpgpu_num_int_units 4\n\
             -gpgpu_enable_specialized_operand_collector 0\n\
             -gpgpu_operand_collector_num_units_gen 8\n\
             -gpgpu_operand_collector_num_in_ports_gen 8\n\
             -gpgpu_operand_collector_num_out_ports_gen 8\n\
             -gpgpu_reg_file_port_throughput 2\n",
        );
        assert!(q.unmodelled.is_empty(), "{:?}", q.unmodelled);
        let (c, p) = (&q.config.core, &q.config.core.pipe);
        assert_eq!(c.int_units, 4);
        assert_eq!((p.issue, p.dispatch), ([8, 4, 4], [4, 4, 4]));
        assert_eq!((p.in_ports, p.out_ports), (16, 8));
        assert_eq!((p.result_buses, p.reg_port_throughput), (8, 2));
        let g = report(
            "-gpgpu_pipeline_widths 2,0,0,1,1,2,0,0,1,1,2\n\
             -gpgpu_operand_collector_num_in_ports_sp 2\n\
             -gpgpu_operand_collector_num_out_ports_sp 2\n",
        );
        assert!(g.unmodelled.is_empty(), "{:?}", g.unmodelled);
        let (c, p) = (&g.config.core, &g.config.core.pipe);
        assert_eq!(c.int_units, 0);
        assert_eq!((p.issue, p.dispatch), ([2, 1, 1], [2, 1, 0]));
        assert_eq!((p.in_ports, p.out_ports), (0, 0));
        assert_eq!((p.result_buses, p.reg_port_throughput), (2, 1));
        // One SP input port bounds SP issue below the width of 2.
        let one = report("-gpgpu_pipeline_widths 2,0,0,1,1,2,0,0,1,1,2\n");
        assert_eq!(one.config.core.pipe.issue, [1, 1, 1]);
        let bad = Options::parse_str("-gpgpu_pipeline_widths 1,2,3\n", Path::new("t.config"));
        let e = to_timing_config(
            &bad.unwrap(),
            None,
            GpuConfig::preset("gtx480").unwrap(),
            "t",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("t.config:1") && e.contains("at least 11"), "{e}");
    }

    /// The memory-side options: perfect instruction/constant caches, the launch's default
    /// shared memory, the crossbar's output buffers (network_mode 2 only), the bank-group
    /// bits; the coalescer architecture is represented from 13 up.
    #[test]
    fn memory_side_options_are_carried_over() {
        let r = report(
            "-gpgpu_perfect_inst_const_cache 1\n-gpgpu_shmem_size 98304\n\
             -gpgpu_shmem_sizeDefault 65536\n-network_mode 2\n-icnt_out_buffer_limit 512\n\
             -dram_bnkgrp_indexing_policy 0\n-gpgpu_coalesce_arch 70\n",
        );
        assert!(r.unmodelled.is_empty(), "{:?}", r.unmodelled);
        let c = &r.config;
        assert!(c.l1i.perfect && c.const_cache.perfect && !c.l1d.perfect);
        assert_eq!(c.core.shared_bytes, 65536);
        assert_eq!(c.icnt.output_buffer, 512);
        assert!(c.dram.bank_group_high_bits);
        let r = report(
            "-gpgpu_perfect_inst_const_cache 0\n-gpgpu_shmem_size 98304\n-network_mode 1\n\
             -icnt_out_buffer_limit 512\n-dram_bnkgrp_indexing_policy 1\n-gpgpu_coalesce_arch 12\n",
        );
        let c = &r.config;
        assert!(!c.l1i.perfect && !c.const_cache.perfect);
        assert_eq!(c.core.shared_bytes, 98304);
        assert_eq!(c.icnt.output_buffer, 0, "intersim has no such buffer");
        assert!(!c.dram.bank_group_high_bits);
        assert_eq!(r.unmodelled, vec!["-gpgpu_coalesce_arch".to_string()]);
    }

    /// `-gpgpu_tex_cache:l1` turns the texture cache on with the string's geometry (wide caches
    /// folded to 64 ways) and FIFO sizes (T: fragment, request; then reorder buffer); its hit
    /// latency is the L1D's, or in Accel-Sim trace mode the TEX unit's; `none` turns it off.
    #[test]
    fn texture_cache_string_is_carried_over() {
        let r = report(
            "-gpgpu_tex_cache:l1 N:4:128:24,L:R:m:N:L,T:128:4,128:2
-gpgpu_l1_latency 28
",
        );
        assert!(r.unmodelled.is_empty(), "{:?}", r.unmodelled);
        let t = &r.config.tex;
        assert!(t.enabled);
        assert_eq!((t.sets, t.ways, t.line_bytes), (4, 24, 128));
        assert_eq!((t.mshr_merge, t.miss_queue, t.mshr_entries), (128, 4, 128));
        assert_eq!(t.latency, 28);
        let r = report(
            "-gpgpu_tex_cache:l1 N:4:128:256,L:R:m:N:L,T:512:8,128:2
\
             -trace_opcode_latency_initiation_int 4,2
-specialized_unit_2 1,4,200,4,4,TEX
\
             -trace_opcode_latency_initiation_spec_op_2 200,4
",
        );
        let t = &r.config.tex;
        assert_eq!((t.sets, t.ways, t.latency), (16, 64, 200));
        assert_eq!((t.mshr_merge, t.miss_queue, t.mshr_entries), (512, 8, 128));
        assert!(
            !r.ignored.iter().any(|o| o.contains("_2")),
            "{:?}",
            r.ignored
        );
        assert!(
            !report(
                "-gpgpu_tex_cache:l1 none
"
            )
            .config
            .tex
            .enabled
        );
    }

    /// `-dram_bnk_indexing_policy 1` XORs the row into the bank; a separate write queue takes
    /// its size and watermarks from `-dram_write_queue_size` (only when enabled).
    #[test]
    fn dram_bank_hash_and_write_queue_are_carried_over() {
        let r = report(
            "-dram_bnk_indexing_policy 1\n-dram_seperate_write_queue_enable 1\n\
             -dram_write_queue_size 128:108:32\n",
        );
        assert!(r.unmodelled.is_empty(), "{:?}", r.unmodelled);
        let d = &r.config.dram;
        assert!(d.bank_xor_row);
        assert_eq!(d.write_watermarks(), (128, 108, 32));
        let r = report("-dram_bnk_indexing_policy 0\n-dram_write_queue_size 128:108:32\n");
        assert!(r.unmodelled.is_empty(), "{:?}", r.unmodelled);
        let d = &r.config.dram;
        assert!(!d.bank_xor_row);
        assert_eq!(
            d.write_queue, 0,
            "the write queue's size needs the separate queue enabled"
        );
        let bad = "-dram_seperate_write_queue_enable 1\n-dram_write_queue_size 16:20:4\n";
        let o = Options::parse_str(bad, std::path::Path::new("t.config")).unwrap();
        let e = to_timing_config(&o, None, GpuConfig::preset("gtx480").unwrap(), "t");
        assert!(e.unwrap_err().to_string().contains("dram_write_queue_size"));
    }

    fn l2_write_allocate(dl2: &str) -> (String, Vec<String>) {
        let text = format!("-gpgpu_cache:dl2 {dl2}\n");
        let o = Options::parse_str(&text, std::path::Path::new("t.config")).unwrap();
        let base = GpuConfig::preset("gtx480").unwrap();
        let imp = to_timing_config(&o, None, base, "t").unwrap();
        (imp.config.l2.cache.write_allocate, imp.notes)
    }

    #[test]
    fn l2_write_allocate_field_is_carried_over() {
        // GTX1080 reference: W = naive write allocate; the shipped configs use L (lazy).
        assert_eq!(
            l2_write_allocate("N:64:128:16,L:B:m:W:L,A:1024:1024,4:0,32").0,
            "naive"
        );
        assert_eq!(
            l2_write_allocate("S:32:128:24,L:B:m:L:P,A:192:4,32:0,32").0,
            "lazy"
        );
        assert_eq!(
            l2_write_allocate("N:64:128:16,L:B:m:N:L,A:256:4,4:0,32").0,
            "none"
        );
        let (a, notes) = l2_write_allocate("N:64:128:16,L:B:m:F:L,A:256:4,4:0,32");
        assert_eq!(a, "naive");
        assert!(
            notes.iter().any(|n| n.contains("fetch on write")),
            "{notes:?}"
        );
        // A write-through L2 has nothing to allocate.
        assert_eq!(
            l2_write_allocate("N:64:128:16,L:T:m:W:L,A:256:4,4:0,32").0,
            "lazy"
        );
    }
}
