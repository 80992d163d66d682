//! Statistics: plain counter structs owned by the components (`#[derive(Default, Serialize)]`),
//! summed and differenced by the framework, and the derived per-kernel report
//! ([`KernelStats`]) with the JSON keys of the issue (spec 000 §8.2 metric definitions).

use serde::Serialize;

/// Declares a struct of `u64` counters with `add` and `sub` (for per-kernel differences).
macro_rules! counters {
    ($(#[$m:meta])* $name:ident { $($(#[$fm:meta])* $f:ident),* $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
        pub struct $name { $( $(#[$fm])* pub $f: u64, )* }
        impl $name {
            /// Adds `o` field by field.
            pub fn add(&mut self, o: &Self) { $( self.$f += o.$f; )* }
            /// `self - o` field by field (saturating).
            pub fn sub(&self, o: &Self) -> Self { Self { $( $f: self.$f.saturating_sub(o.$f), )* } }
        }
    };
}
pub(crate) use counters;

counters! {
    /// Counters of one cache (L1D, constant cache, L1I, or an L2 slice).
    CacheStats {
        /// Accesses that completed (reads, writes, atomics; retries after reservation failures
        /// are not counted again).
        accesses,
        /// Accesses that found their data.
        hits,
        /// Accesses that did not: new misses, merges into a pending miss, bypassed misses.
        misses,
        /// Misses merged into an outstanding MSHR entry.
        merged,
        /// Misses sent on without allocating (bypass path): read misses, and stores of a cache
        /// that skips global stores (insertion `bypass_all`).
        bypassed,
        /// Accesses refused for lack of an MSHR, merge slot, miss-queue slot or free way.
        reservation_fails,
        /// Write accesses (included in `accesses`).
        writes,
        /// Lines evicted.
        evictions,
        /// Lines evicted that were never hit after their fill (zero-reuse lines, spec 000 §8.2).
        evictions_unreused,
        /// Dirty lines written back.
        writebacks,
        /// L1D loads (completed accesses) by warps that CPL ranked critical (spec 000 §4.3).
        critical_accesses,
        /// Those that hit (Lee 2017 Figure 4.14's critical-warp hit rate is the ratio).
        critical_hits,
        /// L1D loads (completed accesses), by any warp.
        loads,
        /// Those that hit (`critical_hits / load_hits` is
        /// the critical warps' share of the load hits).
        load_hits,
        /// Lines allocated for load misses (L1D).
        fills,
        /// Those placed in the replacement policy's critical partition (CACP's critical ways,
        /// spec 000 §4.5; 0 for unpartitioned policies).
        critical_fills,
        /// L1D: sectors looked up by completed loads (Nsight Compute
        /// `l1tex__t_sectors_pipe_lsu_mem_global_op_ld`).
        sector_lookups,
        /// L1D: of those, sectors neither valid nor already on their way, i.e. the sectors the
        /// loads sent for (`..._op_ld_lookup_miss`; a sector whose fetch is in flight counts
        /// as a hit there and here, unlike `misses`, which counts merged accesses).
        sector_misses,
        /// L1D: sectors requested from the L2 for loads, whole-line fills and bypassed spans
        /// included (`l1tex__m_xbar2l1tex_read_sectors_mem_lg_op_ld`).
        sectors_fetched,
    }
}

counters! {
    /// Reuse-distance histogram of L1D load accesses (per-set stack distance, spec 000 §5.1
    /// Figure 5.3; see `mem::reuse`), only with `sim.reuse_histogram`: accesses whose line was
    /// last accessed with `k` distinct other lines of its set in between, binned by `k`.
    ReuseStats {
        /// First access to the line.
        cold,
        /// k = 0.
        d0,
        /// k = 1.
        d1,
        /// k in 2..=3.
        d2_3,
        /// k in 4..=7.
        d4_7,
        /// k in 8..=15.
        d8_15,
        /// k in 16..=31.
        d16_31,
        /// k in 32..=63.
        d32_63,
        /// k in 64..=127.
        d64_127,
        /// k >= 128.
        d128_up,
    }
}

impl ReuseStats {
    /// Counts one access at distance `k`.
    pub fn count(&mut self, k: u64) {
        let b = match k {
            0 => &mut self.d0,
            1 => &mut self.d1,
            2..=3 => &mut self.d2_3,
            4..=7 => &mut self.d4_7,
            8..=15 => &mut self.d8_15,
            16..=31 => &mut self.d16_31,
            32..=63 => &mut self.d32_63,
            64..=127 => &mut self.d64_127,
            _ => &mut self.d128_up,
        };
        *b += 1;
    }

    /// The bins after `cold` as (label, count), in order of distance.
    pub fn bins(&self) -> [(&'static str, u64); 9] {
        [
            ("0", self.d0),
            ("1", self.d1),
            ("2-3", self.d2_3),
            ("4-7", self.d4_7),
            ("8-15", self.d8_15),
            ("16-31", self.d16_31),
            ("32-63", self.d32_63),
            ("64-127", self.d64_127),
            (">=128", self.d128_up),
        ]
    }
}

/// Per-instruction L1D profile (spec 000 §5.1 Figures 5.4-5.5), only with
/// `sim.reuse_histogram`: per load-PC table index (instruction index mod 128, the index of
/// Ctrl-C's iReuse table, `mem::insertion::pc_index`), the load misses it made and the lines it
/// inserted that left the cache, with those never reused. Serialised as an object keyed by index
/// holding only the indices that missed or inserted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PcProfile {
    /// Load misses (including merged and bypassed) per index.
    pub misses: [u64; 128],
    /// Lines inserted by the index that left the cache (evicted or write-invalidated).
    pub evictions: [u64; 128],
    /// Of those, lines never hit after their fill.
    pub evictions_unreused: [u64; 128],
}

impl Default for PcProfile {
    fn default() -> Self {
        Self {
            misses: [0; 128],
            evictions: [0; 128],
            evictions_unreused: [0; 128],
        }
    }
}

impl PcProfile {
    /// Adds `o` entry by entry.
    pub fn add(&mut self, o: &Self) {
        for i in 0..128 {
            self.misses[i] += o.misses[i];
            self.evictions[i] += o.evictions[i];
            self.evictions_unreused[i] += o.evictions_unreused[i];
        }
    }
    /// `self - o` entry by entry (saturating).
    pub fn sub(&self, o: &Self) -> Self {
        let mut r = *self;
        for i in 0..128 {
            r.misses[i] = self.misses[i].saturating_sub(o.misses[i]);
            r.evictions[i] = self.evictions[i].saturating_sub(o.evictions[i]);
            r.evictions_unreused[i] =
                self.evictions_unreused[i].saturating_sub(o.evictions_unreused[i]);
        }
        r
    }
}

impl Serialize for PcProfile {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let used: Vec<usize> = (0..128)
            .filter(|&i| self.misses[i] + self.evictions[i] > 0)
            .collect();
        let mut m = ser.serialize_map(Some(used.len()))?;
        for i in used {
            m.serialize_entry(
                &i.to_string(),
                &[
                    ("misses", self.misses[i]),
                    ("evictions", self.evictions[i]),
                    ("evictions_unreused", self.evictions_unreused[i]),
                ]
                .into_iter()
                .collect::<std::collections::BTreeMap<_, _>>(),
            )?;
        }
        m.end()
    }
}

counters! {
    /// Issue-stall cycles per reason, counted per scheduler per core cycle in which it issued
    /// nothing. Each such cycle has exactly one reason: the one of the warp closest to issuing.
    StallStats {
        /// No live warp assigned to the scheduler.
        idle,
        /// Instruction buffer empty or instruction still decoding (fetch / I-cache).
        fetch,
        /// Waiting for a branch to resolve.
        control,
        /// Waiting at a barrier.
        sync,
        /// Scoreboard: a source or destination register awaits an ALU result.
        data_hazard,
        /// Scoreboard: a register awaits a memory load.
        mem_data,
        /// No free operand collector / execution unit for an ALU instruction.
        structural,
        /// LD/ST path busy (memory collectors full, unit busy, MSHR or miss-queue stalls).
        ldst,
    }
}

counters! {
    /// Latency attribution (spec 000 §2, Lee 2017 §3.2.1, Algorithms 1 and 2), summed over the
    /// warps that retired: every cycle of a warp's life, from its dispatch cycle to its
    /// retirement cycle inclusive, is charged to exactly one factor, so the factors sum to
    /// `lifetime`. Each cycle a scheduler probes its warps in its priority order up to the one it
    /// issues (all of them when none is ready); a probed warp is charged one cycle of the first
    /// factor that holds it, and the cycles since its previous probe minus one to `scheduling`
    /// (the doc's `t`, with the `t − 1` reading of §2.3 so nothing is counted twice).
    LatencyStats {
        /// Warps that retired.
        warps,
        /// Their lifetimes, core cycles.
        lifetime,
        /// Waiting while the scheduler served other warps (not probed).
        scheduling,
        /// Instruction buffer empty or the next instruction still in fetch / decode.
        fetch,
        /// Instruction buffer empty because fetch waits for a branch to resolve.
        control,
        /// A RAW/WAW dependence on a producer that is not a load that missed in the L1D (an ALU
        /// result, a shared-memory or constant load, a load that hit or has not yet reached
        /// the L1D), or the first stall cycle on a load that missed.
        data_hazard,
        /// Further cycles waiting on the same load that missed in the L1D (`DataCacheMiss` of
        /// Algorithm 2, "Data$").
        data_miss,
        /// The LD/ST path cannot take the memory instruction because the L1 MSHRs or miss queue
        /// are full (a reservation failure holds the unit) or no load tracker is free.
        mshr,
        /// No free operand collector / unit: for an ALU instruction, or for a memory
        /// instruction while the LD/ST unit is busy with other accesses.
        structural,
        /// At a barrier, or finished and waiting for its CTA / stores (to retirement).
        sync,
        /// Issued.
        exec,
    }
}

counters! {
    /// Counters of one SM's pipeline.
    CoreStats {
        /// Warp instructions issued.
        warp_insts,
        /// Thread instructions issued (active lanes).
        thread_insts,
        /// Sum over core cycles of resident warps (for occupancy).
        warp_cycles,
        /// Core cycles in which the SM held at least one CTA.
        active_cycles,
        /// CTAs completed.
        ctas,
        /// Shared-memory accesses (warp instructions).
        shared_accesses,
        /// Extra cycles of shared-memory bank conflicts (degree - 1 per access).
        shared_conflict_cycles,
        /// Register-file bank-conflict cycles in the operand collector.
        bank_conflicts,
        /// L1D bank conflicts (`l1d.banks` > 1): cycles in which the LD/ST unit stopped
        /// handing an instruction's transactions to the L1D because the next one's bank was taken.
        l1d_bank_conflicts,
        /// Read replies (loads, atomics, instruction and constant fills) consumed from the
        /// interconnect.
        read_replies,
        /// Sum over those replies of core cycles from sending the request into the interconnect
        /// to consuming the reply (the counterpart of GPGPU-Sim's `averagemflatency`).
        read_latency_cycles,
        /// CPL accuracy samples (spec 000 §8.2): per finished thread block, the samples taken
        /// while its oracle critical warp was live (one per `cpl::SAMPLE_PERIOD` core cycles).
        cpl_samples,
        /// Those in which the TB's oracle critical warp (its longest-running warp) ranked in the
        /// slower half of the TB by its CPL counter; `cpl_correct / cpl_samples` is the accuracy.
        cpl_correct,
        /// Those in which the oracle critical warp ranked in the slower half counting itself
        /// among the TB's warps (`cpl::Marks::top_inclusive`, the reading of Lee 2017 §4.3.3's
        /// footnote 2); `cpl_correct_inclusive / cpl_samples` is that accuracy.
        cpl_correct_inclusive,
        /// Sum over the same samples of the accuracy a random ranking would score under
        /// `cpl_correct`'s rule, parts per million (`/ cpl_samples / 1e6` is the chance level).
        cpl_chance_ppm,
        /// The same under `cpl_correct_inclusive`'s rule.
        cpl_chance_inclusive_ppm,
        /// `cpl_samples` of the TBs whose warp execution times spread by at least 1% of the
        /// slowest one's (`cpl::SPREAD_MIN_PPM`; below it the oracle critical warp is noise).
        cpl_samples_spread,
        /// `cpl_correct` of those TBs.
        cpl_correct_spread,
        /// `cpl_correct` by the `nInst * CPI_avg` term of Eq. 4.1 alone (ties in the warp's
        /// favour, as for the counter): which part of the counter finds the critical warp.
        cpl_correct_inst,
        /// `cpl_correct` by the `nStall` term of Eq. 4.1 alone.
        cpl_correct_stall,
        /// Rank-correlation diagnostic (`sim.cpl_rank`, `cpl::TbRecord::rho`): finished TBs of
        /// at least 3 warps whose warp times spread by at least 1%.
        cpl_rank_tbs,
        /// Over those TBs, the sum of (Spearman's rho + 1) x 1e6 between the warps' final
        /// execution times and their CPL counters at 25% of the TB's lifetime:
        /// `/ cpl_rank_tbs / 1e6 - 1` is the mean rho (-1 to 1; 0 = no relation).
        cpl_rho_counter_25_ppm,
        /// The same at 50% of the TB's lifetime.
        cpl_rho_counter_50_ppm,
        /// The same at 75%.
        cpl_rho_counter_75_ppm,
        /// The same for the counter's `nInst * CPI_avg` term alone, at 25%.
        cpl_rho_inst_25_ppm,
        /// The `nInst * CPI_avg` term at 50%.
        cpl_rho_inst_50_ppm,
        /// The `nInst * CPI_avg` term at 75%.
        cpl_rho_inst_75_ppm,
        /// The counter's `nStall` term alone, at 25%.
        cpl_rho_stall_25_ppm,
        /// The `nStall` term at 50%.
        cpl_rho_stall_50_ppm,
        /// The `nStall` term at 75%.
        cpl_rho_stall_75_ppm,
        /// Finished TBs whose warp execution times spread by at least 1%.
        tbs_spread,
        /// Sum over finished TBs of (slowest - fastest warp execution time) / slowest, in parts
        /// per million; `/ ctas / 1e6` is the mean spread.
        tb_spread_ppm,
        /// Sum over finished TBs of core cycles from the first warp's dispatch to the last
        /// warp's exit; `/ ctas` is the mean TB lifetime.
        tb_lifetime_cycles,
        /// Issue-spread windows (`sm::ISSUE_WINDOW` = 1,000 core cycles, aligned to cycle 0) in
        /// which the SM issued at least one instruction (the last window of the run is not
        /// counted).
        issue_windows,
        /// Sum over those windows of the number of distinct warp slots that issued in the
        /// window; `issuing_warps / issue_windows / core.schedulers` is the mean number of warps
        /// a scheduler issues from per 1,000 cycles (how greedy the scheduling is).
        issuing_warps,
        /// Redundancy elimination (`core.elim`): warp instructions skipped at fetch.
        elim_skipped,
        /// Warp instructions eliminated at issue (UV's reuse).
        elim_reused,
        /// Skipped or reused instructions by Table 7 power unit (for power from simulation):
        /// integer unit.
        elim_int,
        /// Floating-point unit.
        elim_fp,
        /// Special-function unit.
        elim_sfu,
        /// Logic/convert ALU.
        elim_alu,
        /// Shared-memory loads.
        elim_shared,
        /// Global-memory loads.
        elim_global,
        /// Constant / parameter loads.
        elim_const,
        /// Register-file accesses.
        elim_reg,
        /// Fetch/decode/schedule (skipped at fetch only).
        elim_fds,
        /// Leaders created (DARSIE skip-table entries, DAC/UV first executions).
        elim_leaders,
        /// DARSIE branch barriers completed.
        elim_branch_syncs,
        /// DARSIE warps removed from the majority path.
        elim_majority_exits,
        /// DARSIE redundant instances run normally for lack of a skip-table entry.
        elim_table_full,
        /// DARSIE load entries invalidated by stores or global atomics.
        elim_load_invalidations,
        /// DARSIE holds released by the deadlock guard (expected 0).
        elim_timeouts,
        /// Warp-cycles spent held in fetch by the policy (LeaderWB waits, branch barriers).
        elim_hold_cycles,
        /// Of those, DARSIE followers waiting for their leader's write-back (LeaderWB).
        elim_hold_wb_cycles,
        /// Of the LeaderWB waits, warp-cycles in which the leader had not issued the instance
        /// yet (the rest is the leader's execution latency).
        elim_hold_wb_unissued_cycles,
        /// Of those, DARSIE warps waiting at a branch barrier (majority-path election).
        elim_hold_branch_cycles,
        /// DARSIE follower arrivals: a majority-path warp presenting a dynamic instance that
        /// already has a skip-table entry (counted once per arrival, not per retry).
        elim_follower_arrivals,
        /// Sum over those arrivals of core cycles since the leader made the entry (its fetch):
        /// how far the leader runs ahead of its followers.
        elim_arrival_gap_cycles,
        /// DARSIE skips that waited at least one cycle for LeaderWB (the rest found it set).
        elim_skips_waited,
        /// Fetch attempts that only skipped or held instructions (no I-cache probe) and so
        /// used no fetch slot (document 003 §7.3.2: skipping works beside the fetch scheduler).
        elim_slotless_fetches,
    }
}

counters! {
    /// Counters of the interconnect, per direction.
    IcntStats {
        /// Packets from SMs to L2 slices.
        req_packets,
        /// Bytes from SMs to L2 slices (headers included).
        l1_to_l2_bytes,
        /// Flits from SMs to L2 slices.
        req_flits,
        /// Packets from L2 slices to SMs.
        reply_packets,
        /// Bytes from L2 slices to SMs.
        l2_to_l1_bytes,
        /// Flits from L2 slices to SMs.
        reply_flits,
    }
}

counters! {
    /// Counters of one DRAM channel.
    DramStats {
        /// Read requests completed.
        reads,
        /// Write requests completed.
        writes,
        /// Requests whose first column access found their row open.
        row_hits,
        /// Requests that needed an activate.
        row_misses,
        /// Activate commands.
        activates,
        /// Precharge commands.
        precharges,
        /// DRAM cycles the data bus carried data.
        busy_cycles,
        /// DRAM cycles simulated.
        cycles,
        /// Bytes moved over the data bus.
        bytes,
    }
}

/// Cache figures of the report.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct CacheReport {
    /// Accesses.
    pub accesses: u64,
    /// Hits.
    pub hits: u64,
    /// Misses (including merged and bypassed).
    pub misses: u64,
    /// hits / accesses (0 when there were none).
    pub hit_rate: f64,
    /// Misses per 1000 thread instructions (GPGPU-Sim convention, spec 000 §8.2).
    pub mpki: f64,
    /// Reservation failures (retried accesses).
    pub reservation_fails: u64,
    /// Bypassed read misses.
    pub bypassed: u64,
    /// Lines evicted.
    pub evictions: u64,
    /// Evicted lines never hit after their fill / evicted lines (spec 000 §8.2; 0 without
    /// evictions).
    pub zero_reuse_fraction: f64,
    /// L1D: sectors looked up by loads (see [`CacheStats::sector_lookups`]; 0 for others).
    pub sector_lookups: u64,
    /// L1D: load sectors neither valid nor on their way (see [`CacheStats::sector_misses`]).
    pub sector_misses: u64,
    /// L1D: sectors fetched for loads (see [`CacheStats::sectors_fetched`]).
    pub sectors_fetched: u64,
}

impl CacheReport {
    fn new(c: &CacheStats, thread_insts: u64) -> Self {
        Self {
            accesses: c.accesses,
            hits: c.hits,
            misses: c.misses,
            hit_rate: ratio(c.hits, c.accesses),
            mpki: ratio(c.misses * 1000, thread_insts),
            reservation_fails: c.reservation_fails,
            bypassed: c.bypassed,
            evictions: c.evictions,
            zero_reuse_fraction: ratio(c.evictions_unreused, c.evictions),
            sector_lookups: c.sector_lookups,
            sector_misses: c.sector_misses,
            sectors_fetched: c.sectors_fetched,
        }
    }
}

/// DRAM figures of the report.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct DramReport {
    /// Read requests.
    pub reads: u64,
    /// Write requests.
    pub writes: u64,
    /// Row-buffer hits / requests.
    pub row_hit_rate: f64,
    /// Data-bus busy cycles / DRAM cycles, averaged over channels (1.0 = peak bandwidth).
    pub bandwidth_utilization: f64,
    /// Bytes moved.
    pub bytes: u64,
}

/// Interconnect figures of the report.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct IcntReport {
    /// Bytes from L1s to L2 (requests, write data, headers).
    pub l1_to_l2_bytes: u64,
    /// Bytes from L2 to L1s (read data, headers).
    pub l2_to_l1_bytes: u64,
    /// Flits from L1s to L2.
    pub l1_to_l2_flits: u64,
    /// Flits from L2 to L1s.
    pub l2_to_l1_flits: u64,
}

/// Raw counters of the whole GPU at one moment (sums over components).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    /// Core cycles.
    pub cycles: u64,
    /// SM pipelines.
    pub core: CoreStats,
    /// Latency attribution of retired warps.
    pub latency: LatencyStats,
    /// Issue stalls.
    pub stalls: StallStats,
    /// L1 data caches.
    pub l1d: CacheStats,
    /// Reuse distances of L1D loads (zero unless `sim.reuse_histogram`).
    pub l1d_reuse: ReuseStats,
    /// Per-load-PC L1D profile (zero unless `sim.reuse_histogram`).
    pub l1d_pcs: PcProfile,
    /// L1 instruction caches.
    pub l1i: CacheStats,
    /// Constant caches.
    pub const_cache: CacheStats,
    /// Texture caches (zero unless `tex.enabled`).
    pub tex_cache: CacheStats,
    /// L2 slices.
    pub l2: CacheStats,
    /// Interconnect.
    pub icnt: IcntStats,
    /// DRAM channels.
    pub dram: DramStats,
}

impl Totals {
    /// `self - o`.
    pub fn sub(&self, o: &Totals) -> Totals {
        Totals {
            cycles: self.cycles - o.cycles,
            core: self.core.sub(&o.core),
            latency: self.latency.sub(&o.latency),
            stalls: self.stalls.sub(&o.stalls),
            l1d: self.l1d.sub(&o.l1d),
            l1d_reuse: self.l1d_reuse.sub(&o.l1d_reuse),
            l1d_pcs: self.l1d_pcs.sub(&o.l1d_pcs),
            l1i: self.l1i.sub(&o.l1i),
            const_cache: self.const_cache.sub(&o.const_cache),
            tex_cache: self.tex_cache.sub(&o.tex_cache),
            l2: self.l2.sub(&o.l2),
            icnt: self.icnt.sub(&o.icnt),
            dram: self.dram.sub(&o.dram),
        }
    }
    /// `self + o` (cycles add too: kernels run one after another).
    pub fn add(&mut self, o: &Totals) {
        self.cycles += o.cycles;
        self.core.add(&o.core);
        self.latency.add(&o.latency);
        self.stalls.add(&o.stalls);
        self.l1d.add(&o.l1d);
        self.l1d_reuse.add(&o.l1d_reuse);
        self.l1d_pcs.add(&o.l1d_pcs);
        self.l1i.add(&o.l1i);
        self.const_cache.add(&o.const_cache);
        self.tex_cache.add(&o.tex_cache);
        self.l2.add(&o.l2);
        self.icnt.add(&o.icnt);
        self.dram.add(&o.dram);
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// Latency attribution averaged over a launch's warps (Lee 2017 Figure 3.2 plots these), core
/// cycles per warp; the factors sum to `lifetime`.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct LatencyReport {
    /// Warps that retired.
    pub warps: u64,
    /// Average warp lifetime.
    pub lifetime: f64,
    /// See [`LatencyStats`] for each factor.
    pub scheduling: f64,
    /// Instruction fetch.
    pub fetch: f64,
    /// Control hazard.
    pub control: f64,
    /// Data hazard.
    pub data_hazard: f64,
    /// Data-cache miss (further cycles on the same pending load).
    pub data_miss: f64,
    /// LD/ST path and MSHRs.
    pub mshr: f64,
    /// Structural hazard.
    pub structural: f64,
    /// Synchronisation.
    pub sync: f64,
    /// Issued.
    pub exec: f64,
}

impl LatencyReport {
    /// Per-warp averages of `l`.
    pub fn new(l: &LatencyStats) -> Self {
        let avg = |v: u64| ratio(v, l.warps);
        Self {
            warps: l.warps,
            lifetime: avg(l.lifetime),
            scheduling: avg(l.scheduling),
            fetch: avg(l.fetch),
            control: avg(l.control),
            data_hazard: avg(l.data_hazard),
            data_miss: avg(l.data_miss),
            mshr: avg(l.mshr),
            structural: avg(l.structural),
            sync: avg(l.sync),
            exec: avg(l.exec),
        }
    }
}

/// One warp's execution record (`sim.warp_times`; spec 000 §3.1, §8.1 item 7: per-warp
/// execution time, the oracle criticality of CAWS, and criticality inversion).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct WarpTime {
    /// SM it ran on.
    pub sm: u16,
    /// Linear CTA id in the grid.
    pub cta: u32,
    /// Warp index within its CTA.
    pub warp: u32,
    /// Core cycle it was dispatched.
    pub start: u64,
    /// Core cycle it retired (exited with nothing in flight); `end + 1 - start` is its
    /// execution time, core cycles (the attribution's lifetime).
    pub end: u64,
    /// The warp scheduler prioritised it as critical at some time of its life
    /// ([`crate::core::sched::WarpScheduler::was_critical`]).
    pub critical: bool,
    /// Its latency attribution (with `sim.latency_attribution`), core cycles per factor.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency: Option<LatencyStats>,
    /// L1D blocks it re-referenced and found still held (a hit or a merge into the line's
    /// pending miss), once per block residency: reuses the L1D served (spec 000 §4.1; with
    /// `sim.warp_times`).
    pub l1d_reuse_served: u64,
    /// L1D blocks it re-referenced after the L1D had evicted them: reusable blocks evicted
    /// before their reuse (claim 6).
    pub l1d_reuse_lost: u64,
}

impl WarpTime {
    /// Execution time, core cycles.
    pub fn cycles(&self) -> u64 {
        self.end + 1 - self.start
    }
}

/// Statistics of one kernel launch (or of the whole run), as written to JSON.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct KernelStats {
    /// Kernel name (`total` for the sum).
    pub kernel: String,
    /// Grid, e.g. `(64,1,1)` (empty for the total).
    pub grid: String,
    /// Block, e.g. `(256,1,1)`.
    pub block: String,
    /// Core cycles.
    pub cycles: u64,
    /// Warp instructions issued.
    pub warp_insts: u64,
    /// Thread instructions issued.
    pub thread_insts: u64,
    /// Thread instructions per core cycle (whole GPU).
    pub ipc: f64,
    /// Average resident warps / (SMs x max warps per SM).
    pub occupancy: f64,
    /// L1 data caches.
    pub l1d: CacheReport,
    /// L2.
    pub l2: CacheReport,
    /// DRAM.
    pub dram: DramReport,
    /// Interconnect.
    pub icnt: IcntReport,
    /// Average memory read latency, core cycles: from an SM sending a read into the
    /// interconnect to consuming its reply, over every read reply (GPGPU-Sim's
    /// `averagemflatency`); 0 without reads.
    pub avg_mem_latency: f64,
    /// Latency attribution: per-warp average cycles of each factor (spec 000 §2); only with
    /// `sim.latency_attribution`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency: Option<LatencyReport>,
    /// Issue-stall cycles per reason (per scheduler).
    pub stalls: StallStats,
    /// Output check of the workload: `passed`, `failed` or `none`.
    pub check: String,
    /// Whether the simulation was interrupted before the kernel finished.
    pub interrupted: bool,
    /// Raw counters (every component), for tools that want more than the summary.
    pub raw: Totals,
    /// Every warp of the launch, ordered by (CTA, warp); only with `sim.warp_times`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warp_times: Vec<WarpTime>,
}

impl KernelStats {
    /// Derives the report from raw counters.
    pub fn from_totals(t: &Totals, num_sms: u32, max_warps: u32) -> Self {
        let th = t.core.thread_insts;
        let busy = t.dram.busy_cycles;
        Self {
            kernel: String::new(),
            grid: String::new(),
            block: String::new(),
            cycles: t.cycles,
            warp_insts: t.core.warp_insts,
            thread_insts: th,
            ipc: ratio(th, t.cycles),
            occupancy: ratio(
                t.core.warp_cycles,
                t.cycles * num_sms as u64 * max_warps as u64,
            ),
            l1d: CacheReport::new(&t.l1d, th),
            l2: CacheReport::new(&t.l2, th),
            dram: DramReport {
                reads: t.dram.reads,
                writes: t.dram.writes,
                row_hit_rate: ratio(t.dram.row_hits, t.dram.row_hits + t.dram.row_misses),
                bandwidth_utilization: ratio(busy, t.dram.cycles),
                bytes: t.dram.bytes,
            },
            icnt: IcntReport {
                l1_to_l2_bytes: t.icnt.l1_to_l2_bytes,
                l2_to_l1_bytes: t.icnt.l2_to_l1_bytes,
                l1_to_l2_flits: t.icnt.req_flits,
                l2_to_l1_flits: t.icnt.reply_flits,
            },
            avg_mem_latency: ratio(t.core.read_latency_cycles, t.core.read_replies),
            latency: (t.latency.warps > 0).then(|| LatencyReport::new(&t.latency)),
            stalls: t.stalls,
            check: "none".into(),
            interrupted: false,
            raw: *t,
            warp_times: Vec::new(),
        }
    }

    /// A readable multi-line summary.
    pub fn summary(&self) -> String {
        let s = &self.stalls;
        format!(
            "{kernel}{shape}\n  cycles {cyc}  warp insts {wi}  thread insts {ti}  IPC {ipc:.2}  occupancy {occ:.1}%\n  L1D  {l1a} acc  hit {l1h:.1}%  MPKI {l1m:.2}   L2 {l2a} acc  hit {l2h:.1}%  MPKI {l2m:.2}\n  DRAM {dr} rd {dw} wr  row hits {rh:.1}%  bandwidth {bw:.1}%   icnt {up} B up {down} B down\n  stalls: idle {} fetch {} control {} sync {} data {} mem-data {} structural {} ldst {}\n  check: {check}{int}",
            s.idle,
            s.fetch,
            s.control,
            s.sync,
            s.data_hazard,
            s.mem_data,
            s.structural,
            s.ldst,
            kernel = self.kernel,
            shape = if self.grid.is_empty() {
                String::new()
            } else {
                format!(" {}x{}", self.grid, self.block)
            },
            cyc = self.cycles,
            wi = self.warp_insts,
            ti = self.thread_insts,
            ipc = self.ipc,
            occ = self.occupancy * 100.0,
            l1a = self.l1d.accesses,
            l1h = self.l1d.hit_rate * 100.0,
            l1m = self.l1d.mpki,
            l2a = self.l2.accesses,
            l2h = self.l2.hit_rate * 100.0,
            l2m = self.l2.mpki,
            dr = self.dram.reads,
            dw = self.dram.writes,
            rh = self.dram.row_hit_rate * 100.0,
            bw = self.dram.bandwidth_utilization * 100.0,
            up = self.icnt.l1_to_l2_bytes,
            down = self.icnt.l2_to_l1_bytes,
            check = self.check,
            int = if self.interrupted { " (interrupted)" } else { "" },
        )
    }
}

/// Statistics of a whole run: every kernel and the total.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct RunStats {
    /// Configuration name.
    pub config: String,
    /// Per launch, in order.
    pub kernels: Vec<KernelStats>,
    /// Sum over launches.
    pub total: KernelStats,
}
