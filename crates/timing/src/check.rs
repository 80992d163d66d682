//! Validation of a [`GpuConfig`]: ranges, cross-field constraints, and the names of policies
//! and schedulers, which are looked up in the components' registries. It lives apart from
//! [`crate::config`] so that the configuration stays plain data that the components read: the
//! components depend on the configuration, this module on both, and nothing in
//! [`crate::config`] depends on a component (issue 14 item 6).

use crate::config::{CacheConfig, ConfigError, GpuConfig, MAX_SUB_CORES};

impl GpuConfig {
    /// Checks ranges, cross-field constraints and policy names.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let pos = |k: &str, v: u64| {
            if v == 0 {
                Err(ConfigError::new(k, "must be positive"))
            } else {
                Ok(())
            }
        };
        for (k, v) in [
            ("clocks.core_mhz", self.clocks.core_mhz),
            ("clocks.icnt_mhz", self.clocks.icnt_mhz),
            ("clocks.l2_mhz", self.clocks.l2_mhz),
            ("clocks.dram_mhz", self.clocks.dram_mhz),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(ConfigError::new(k, "must be a positive frequency in MHz"));
            }
        }
        let c = &self.core;
        pos("core.num_sms", c.num_sms as u64)?;
        pos("core.max_warps", c.max_warps as u64)?;
        if c.max_warps > 64 {
            return Err(ConfigError::new(
                "core.max_warps",
                "at most 64 warps per SM",
            ));
        }
        pos("core.max_ctas", c.max_ctas as u64)?;
        pos("core.schedulers", c.schedulers as u64)?;
        pos("core.ibuffer_entries", c.ibuffer_entries as u64)?;
        if c.ibuffer_entries > 8 {
            return Err(ConfigError::new("core.ibuffer_entries", "at most 8"));
        }
        pos("core.fetch_per_cycle", c.fetch_per_cycle as u64)?;
        pos("core.sp_units", c.sp_units as u64)?;
        pos("core.sfu_units", c.sfu_units as u64)?;
        pos("core.collectors_sp", c.collectors_sp as u64)?;
        pos("core.collectors_sfu", c.collectors_sfu as u64)?;
        pos("core.collectors_mem", c.collectors_mem as u64)?;
        if c.collectors_sp as u64 + c.collectors_sfu as u64 + c.collectors_mem as u64 > 64 {
            return Err(ConfigError::new(
                "core.collectors_mem",
                "at most 64 operand collectors in all (core.collectors_sp + collectors_sfu + collectors_mem)",
            ));
        }
        pos("core.reg_banks", c.reg_banks as u64)?;
        if c.reg_banks > 64 {
            return Err(ConfigError::new("core.reg_banks", "at most 64"));
        }
        pos("core.load_trackers", c.load_trackers as u64)?;
        pos("core.sub_cores", c.sub_cores as u64)?;
        if c.sub_cores > MAX_SUB_CORES {
            return Err(ConfigError::new(
                "core.sub_cores",
                format!("at most {MAX_SUB_CORES}"),
            ));
        }
        for (k, v) in [
            ("core.schedulers", c.schedulers),
            ("core.collectors_sp", c.collectors_sp),
            ("core.collectors_sfu", c.collectors_sfu),
            ("core.collectors_mem", c.collectors_mem),
            ("core.sp_units", c.sp_units),
            ("core.sfu_units", c.sfu_units),
            ("core.int_units", c.int_units),
            ("core.reg_banks", c.reg_banks),
        ] {
            if v % c.sub_cores != 0 {
                return Err(ConfigError::new(
                    k,
                    format!(
                        "{v} is not a multiple of core.sub_cores = {} (each sub-core gets an equal share)",
                        c.sub_cores
                    ),
                ));
            }
        }
        if c.pipe.reg_port_throughput > 8 {
            return Err(ConfigError::new(
                "core.pipe.reg_port_throughput",
                "at most 8 operand-collector steps per cycle",
            ));
        }
        pos("core.two_level_active", c.two_level_active as u64)?;
        if crate::core::sched::find(&c.scheduler).is_none() {
            return Err(ConfigError::new(
                "core.scheduler",
                format!(
                    "unknown scheduler `{}` (known: {})",
                    c.scheduler,
                    crate::core::sched::names().join(", ")
                ),
            ));
        }
        crate::core::sched::caws::validate(&c.caws)?;
        if crate::core::cpl::Critical::parse(&c.cpl_critical).is_none() {
            return Err(ConfigError::new(
                "core.cpl_critical",
                format!(
                    "unknown critical-warp rule `{}` (known: {})",
                    c.cpl_critical,
                    crate::core::cpl::Critical::NAMES.join(", ")
                ),
            ));
        }
        if crate::core::cpl::Stall::parse(&c.cpl_stall).is_none() {
            return Err(ConfigError::new(
                "core.cpl_stall",
                format!(
                    "unknown stall-update rule `{}` (known: {})",
                    c.cpl_stall,
                    crate::core::cpl::Stall::NAMES.join(", ")
                ),
            ));
        }
        if crate::core::elim::find(&c.elim.policy).is_none() {
            return Err(ConfigError::new(
                "core.elim.policy",
                format!(
                    "unknown elimination policy `{}` (known: {})",
                    c.elim.policy,
                    crate::core::elim::names().join(", ")
                ),
            ));
        }
        pos("core.elim.skip_entries", c.elim.skip_entries as u64)?;
        for (k, v) in [
            ("core.initiation.int_alu", c.initiation.int_alu),
            ("core.initiation.int_mul", c.initiation.int_mul),
            ("core.initiation.int_div", c.initiation.int_div),
            ("core.initiation.fp_alu", c.initiation.fp_alu),
            ("core.initiation.fp_div", c.initiation.fp_div),
            ("core.initiation.dp", c.initiation.dp),
            ("core.initiation.sfu", c.initiation.sfu),
            ("core.initiation.conv", c.initiation.conv),
            ("core.initiation.branch", c.initiation.branch),
            ("core.initiation.collective", c.initiation.collective),
            ("core.initiation.misc", c.initiation.misc),
        ] {
            pos(k, v as u64)?;
        }
        // The texture cache's keys are a subset of a cache's (`tex.sets`, `tex.ways`, ...).
        validate_cache("tex", &self.tex.cache())?;
        for (p, cc) in [
            ("l1i", &self.l1i),
            ("l1d", &self.l1d),
            ("const_cache", &self.const_cache),
            ("l2.cache", &self.l2.cache),
        ] {
            validate_cache(p, cc)?;
            if p == "l2.cache" && cc.perfect {
                return Err(ConfigError::new(
                    "l2.cache.perfect",
                    "a perfect cache is modelled for the L1I, L1D and constant cache only",
                ));
            }
            if p != "l2.cache" && cc.write_allocate != "lazy" {
                return Err(ConfigError::new(
                    format!("{p}.write_allocate"),
                    format!(
                        "`{}` is modelled for the L2 only; L1 caches write-validate (`lazy`)",
                        cc.write_allocate
                    ),
                ));
            }
        }
        pos("shared.banks", self.shared.banks as u64)?;
        let sh = &self.shared;
        if sh.unified_bytes > 0 {
            if sh.carveouts.is_empty()
                || sh.carveouts.windows(2).any(|w| w[0] >= w[1])
                || sh.carveouts.iter().any(|&c| c >= sh.unified_bytes)
            {
                return Err(ConfigError::new(
                    "shared.carveouts",
                    "with shared.unified_bytes: ascending sizes, each below shared.unified_bytes",
                ));
            }
            if sh.unified_bytes < self.l1d.line_bytes * self.l1d.sets {
                return Err(ConfigError::new(
                    "shared.unified_bytes",
                    "must hold at least one way of the L1D",
                ));
            }
        }
        if !matches!(self.shared.warp_parts, 1 | 2 | 4 | 8 | 16 | 32) {
            return Err(ConfigError::new(
                "shared.warp_parts",
                "must be 1, 2, 4, 8, 16 or 32 (lanes per part: 32 / warp_parts)",
            ));
        }
        if self.shared.banks > 64 {
            return Err(ConfigError::new("shared.banks", "at most 64"));
        }
        if !self.shared.bank_bytes.is_power_of_two() {
            return Err(ConfigError::new(
                "shared.bank_bytes",
                "must be a power of two",
            ));
        }
        let i = &self.icnt;
        pos("icnt.flit_bytes", i.flit_bytes as u64)?;
        pos("icnt.flits_per_cycle", i.flits_per_cycle as u64)?;
        pos("icnt.input_buffer", i.input_buffer as u64)?;
        pos("icnt.ejection_buffer", i.ejection_buffer as u64)?;
        pos("l2.slices_per_channel", self.l2.slices_per_channel as u64)?;
        pos("l2.input_queue", self.l2.input_queue as u64)?;
        pos("l2.output_queue", self.l2.output_queue as u64)?;
        pos("l2.dram_queue", self.l2.dram_queue as u64)?;
        let sectors = self.l2.cache.line_bytes / self.l2.cache.sector_bytes.max(1);
        if self.l2.sector_requests && self.l2.dram_queue <= sectors {
            return Err(ConfigError::new(
                "l2.dram_queue",
                format!("must exceed the {sectors} sectors of an L2 line with l2.sector_requests"),
            ));
        }
        let d = &self.dram;
        pos("dram.channels", d.channels as u64)?;
        pos("dram.queue_size", d.queue_size as u64)?;
        let (wq, high, low) = d.write_watermarks();
        if high == 0 || high > wq {
            return Err(ConfigError::new(
                "dram.write_high",
                format!("must be between 1 and the write queue's {wq} entries"),
            ));
        }
        if low == 0 || low > high {
            return Err(ConfigError::new(
                "dram.write_low",
                format!("must be between 1 and dram.write_high ({high})"),
            ));
        }
        pos("dram.return_queue", d.return_queue as u64)?;
        pos("dram.bus_bytes", d.bus_bytes as u64)?;
        pos("dram.burst_length", d.burst_length as u64)?;
        pos("dram.data_ratio", d.data_ratio as u64)?;
        if !d.banks.is_power_of_two() || d.banks > 64 {
            return Err(ConfigError::new(
                "dram.banks",
                "must be a power of two, at most 64",
            ));
        }
        if !d.bank_groups.is_power_of_two() || d.bank_groups > d.banks {
            return Err(ConfigError::new(
                "dram.bank_groups",
                "must be a power of two not above dram.banks",
            ));
        }
        if d.channel_bit > 40 {
            return Err(ConfigError::new("dram.channel_bit", "at most 40"));
        }
        crate::dram::chanidx::table(&d.channel_index, d.channels)
            .map_err(|r| ConfigError::new("dram.channel_index", r))?;
        crate::dram::addrmap::AddrMap::parse(d)
            .map_err(|r| ConfigError::new("dram.addr_map", r))?;
        if crate::dram::sched::find(&d.scheduler).is_none() {
            return Err(ConfigError::new(
                "dram.scheduler",
                format!(
                    "unknown DRAM scheduler `{}` (known: {})",
                    d.scheduler,
                    crate::dram::sched::names().join(", ")
                ),
            ));
        }
        pos("sim.deadlock_cycles", self.sim.deadlock_cycles)?;
        pos("sim.watchdog_cycles", self.sim.watchdog_cycles)?;
        if self.sim.window == 0 || self.sim.window > 64 {
            return Err(ConfigError::new(
                "sim.window",
                format!("must be 1 to 64 core cycles, got {}", self.sim.window),
            ));
        }
        // Both window refinements act on a window's memory side, so both need one.
        for (key, on, what) in [
            (
                "sim.window_overlap",
                self.sim.window_overlap,
                "overlaps the memory side with the next window's SMs",
            ),
            (
                "sim.window_partitions",
                self.sim.window_partitions,
                "splits a window's memory side by partition",
            ),
        ] {
            if on && self.sim.window == 1 {
                return Err(ConfigError::new(
                    key,
                    format!(
                        "{what}, so it needs sim.window > 1 (sim.window is 1: set sim.window \
                         to 2..64, or {key} to false)"
                    ),
                ));
            }
        }
        Ok(())
    }
}

pub(crate) fn validate_cache(p: &str, c: &CacheConfig) -> Result<(), ConfigError> {
    let key = |f: &str| format!("{p}.{f}");
    if c.sets == 0 {
        return Err(ConfigError::new(key("sets"), "must be positive"));
    }
    if c.ways == 0 || c.ways > 64 {
        return Err(ConfigError::new(key("ways"), "must be between 1 and 64"));
    }
    if !c.line_bytes.is_power_of_two() || c.line_bytes < 4 {
        return Err(ConfigError::new(
            key("line_bytes"),
            "must be a power of two, at least 4",
        ));
    }
    if !c.sector_bytes.is_power_of_two()
        || c.sector_bytes > c.line_bytes
        || c.line_bytes / c.sector_bytes > 8
    {
        return Err(ConfigError::new(
            key("sector_bytes"),
            "must be a power of two dividing line_bytes into at most 8 sectors",
        ));
    }
    if c.banks == 0 || c.banks > 64 {
        return Err(ConfigError::new(key("banks"), "must be between 1 and 64"));
    }
    if !c.bank_bytes.is_power_of_two() {
        return Err(ConfigError::new(
            key("bank_bytes"),
            "must be a power of two",
        ));
    }
    match c.index.as_str() {
        "linear" => {}
        "hashed" => {
            if !c.sets.is_power_of_two() {
                return Err(ConfigError::new(
                    key("index"),
                    "`hashed` needs a power-of-two number of sets",
                ));
            }
        }
        o => {
            return Err(ConfigError::new(
                key("index"),
                format!("unknown index function `{o}` (known: linear, hashed)"),
            ))
        }
    }
    if !matches!(c.partition_fallback.as_str(), "none" | "other") {
        return Err(ConfigError::new(
            key("partition_fallback"),
            format!(
                "unknown partition fallback `{}` (known: none, other)",
                c.partition_fallback
            ),
        ));
    }
    if !matches!(c.signature.as_str(), "pc_addr" | "pc_line") {
        return Err(ConfigError::new(
            key("signature"),
            format!(
                "unknown signature `{}` (known: pc_addr, pc_line)",
                c.signature
            ),
        ));
    }
    if c.critical_ways >= c.ways {
        return Err(ConfigError::new(
            key("critical_ways"),
            format!(
                "{} critical ways leave no way for non-critical lines (ways = {})",
                c.critical_ways, c.ways
            ),
        ));
    }
    if crate::mem::replacement::find(&c.replacement).is_none() {
        return Err(ConfigError::new(
            key("replacement"),
            format!(
                "unknown replacement policy `{}` (known: {})",
                c.replacement,
                crate::mem::replacement::names().join(", ")
            ),
        ));
    }
    if let Err(e) = crate::mem::insertion::Policy::parse(&c.insertion) {
        return Err(ConfigError::new(key("insertion"), e));
    }
    if crate::mem::cache::WritePolicy::parse(&c.write_policy).is_none() {
        return Err(ConfigError::new(
            key("write_policy"),
            format!(
                "unknown write policy `{}` (known: write_through, write_evict, write_back)",
                c.write_policy
            ),
        ));
    }
    if crate::mem::cache::WriteAllocate::parse(&c.write_allocate).is_none() {
        return Err(ConfigError::new(
            key("write_allocate"),
            format!(
                "unknown write-allocate policy `{}` (known: lazy, naive, none)",
                c.write_allocate
            ),
        ));
    }
    if crate::mem::l1bank::Arbiter::new(&c.bank_arbiter).is_none() {
        return Err(ConfigError::new(
            key("bank_arbiter"),
            format!(
                "unknown L1D bank arbiter `{}` (known: {})",
                c.bank_arbiter,
                crate::mem::l1bank::names().join(", ")
            ),
        ));
    }
    if c.write_ratio > 100 {
        return Err(ConfigError::new(
            key("write_ratio"),
            format!("{} is not a percentage (0 to 100)", c.write_ratio),
        ));
    }
    if c.store_allocate && c.write_policy != "write_through" {
        return Err(ConfigError::new(
            key("store_allocate"),
            format!(
                "needs write_policy = \"write_through\" (found `{}`)",
                c.write_policy
            ),
        ));
    }
    if c.allocate_on_fill && c.write_policy == "write_back" {
        return Err(ConfigError::new(
            key("allocate_on_fill"),
            "is modelled for write_through and write_evict caches only",
        ));
    }
    if c.mshr_entries == 0 || c.mshr_merge == 0 || c.miss_queue == 0 {
        return Err(ConfigError::new(
            key("mshr_entries"),
            "mshr_entries, mshr_merge and miss_queue must be positive",
        ));
    }
    Ok(())
}
