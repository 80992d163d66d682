//! One SIMT core (SM), spec 000 §1.1 and §8.1 item 1. Stages, per core cycle:
//!
//! * sequential phase ([`SmState::dispatch_cta`], [`SmState::fetch`]): CTA dispatch, and fetch through the
//!   L1I into per-warp instruction buffers. Fetch calls [`WarpSource::next`], which executes the
//!   instruction functionally, so it runs in SM order; a warp is not fetched past a barrier
//!   until its CTA has arrived, nor past a branch until it has executed.
//! * parallel phase ([`SmState::cycle`]): writeback events, one reply from the interconnect (L1
//!   fill), the LD/ST unit (coalescer, shared memory, constant cache, L1D), operand collectors
//!   with register-bank arbitration and dispatch to SP/SFU/LD-ST units, then issue by the warp
//!   schedulers (scoreboard, barriers), and retirement of finished warps and CTAs.
//!
//! Files: this one holds the state and the per-cycle driver; `front.rs` dispatch and fetch,
//! `exec.rs` writeback, the LD/ST unit and the operand collectors, `issue.rs` the schedulers,
//! stall attribution and retirement, `diag.rs` the deadlock diagnosis.

mod classes;
mod diag;
mod exec;
mod front;
mod issue;
mod lazy;

pub use lazy::Sm;

use super::cpl::{self, Cpl};
use super::elim::{self, At, Eliminator, Fetch};
use super::sched::{self, SchedView, WarpInfo, WarpScheduler};
use super::warp::{Warp, MAX_IBUF};
use super::wheel::Wheel;
use crate::config::{ClassCycles, GpuConfig};
use crate::dram::addrmap::AddrMap;
use crate::mem::cache::{Cache, Lookup, Mshr};
use crate::mem::coalesce::{coalesce, distinct_chunks, Txn, MAX_TXNS};
use crate::mem::code;
use crate::mem::l1::{AccessKind, Outcome, L1};
use crate::mem::req::{MemReq, ReqKind, ReqSrc, ACK};
use crate::mem::shared::conflict_cycles;
use crate::stats::{CacheStats, CoreStats, LatencyStats, StallStats, WarpTime};
use std::cell::Cell;
use std::collections::VecDeque;
use warpforge_core::{
    DynInst, KernelInfo, MemSpace, OpClass, SourceError, WarpSource, WarpStep, MAX_DST, WARP_SIZE,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    /// ALU result (or branch resolution) of `warp` written back.
    Writeback {
        warp: u8,
        regs: [u16; MAX_DST],
        n: u8,
        branch: bool,
    },
    /// One transaction of a load tracker completed.
    Tracker(u32),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Sp,
    Sfu,
    Mem,
    None,
}

/// Operation classes ([`OpClass`] variants; the last is `Nop`).
const N_CLASS: usize = OpClass::Nop as usize + 1;

/// Every operation class, in discriminant order (a variant added in the middle changes
/// `N_CLASS`, and this list no longer compiles).
const CLASSES: [OpClass; N_CLASS] = [
    OpClass::IntAlu,
    OpClass::IntMul,
    OpClass::IntDiv,
    OpClass::FpAlu,
    OpClass::FpDiv,
    OpClass::Dp,
    OpClass::Sfu,
    OpClass::Conv,
    OpClass::Load,
    OpClass::Store,
    OpClass::Atomic,
    OpClass::Tex,
    OpClass::Branch,
    OpClass::Barrier,
    OpClass::Fence,
    OpClass::WarpCollective,
    OpClass::Exit,
    OpClass::Nop,
];

/// What the SM needs of an operation class, computed once per SM from the configuration
/// (`core.latency`, `core.initiation`, `core.dp_on_sfu`) rather than per issued instruction:
/// its unit, its result latency and its initiation interval (core cycles).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ClassInfo {
    unit: Unit,
    lat: u32,
    ii: u32,
}

#[derive(Clone, Copy, Default)]
struct Tracker {
    warp: u8,
    n: u8,
    regs: [u16; MAX_DST],
    pending: u32,
    /// One of its L1D accesses missed (its registers are then marked in [`Warp::missed`]).
    missed: bool,
    /// PC of the load.
    pc: u64,
}

/// One operand collector (whether it is busy: bit `i` of [`SmState::cu_busy`]).
#[derive(Clone)]
struct Cu {
    warp: u8,
    seq: u64,
    reads: u8,
    banks: [u8; 8],
}

#[derive(Clone, Copy, Default)]
struct CtaSlot {
    active: bool,
    cta: u32,
    /// The TB's live warp slots (a warp's bit is cleared when it retires: its slot may then
    /// go to another TB).
    warps: u64,
    live: u32,
    arrived: u32,
    regs: u32,
    smem: u32,
}

/// What the LD/ST unit is working on.
struct LdSt {
    busy: bool,
    warp: u8,
    kind: AccessKind,
    src: ReqSrc,
    pc: u64,
    ntx: usize,
    /// The first transaction not yet handed to the cache.
    next: usize,
    /// Transactions handed to the cache (bit `i` = `txns[i]`; an arbiter that lets later
    /// transactions pass a conflicting one hands them out of order).
    done: u64,
    tracker: u32,
    txns: [Txn; MAX_TXNS],
    shared_left: u32,
}

/// A sub-core's share of a per-SM width `w` of `core.pipe` (`u8::MAX` for 0, no limit; at
/// least 1 otherwise).
fn per_sub(w: u32, sub_cores: u32) -> u8 {
    if w == 0 {
        u8::MAX
    } else {
        (w / sub_cores.max(1)).clamp(1, 254) as u8
    }
}

/// Most sub-cores ([`crate::config::MAX_SUB_CORES`]).
const MAX_SUB: usize = crate::config::MAX_SUB_CORES as usize;
/// Length of an issue-spread window in core cycles (`CoreStats::issuing_warps`).
pub const ISSUE_WINDOW: u64 = 1000;

/// Free operand collectors of each unit kind (SP, SFU, memory), per sub-core.
type Free = [[u8; 3]; MAX_SUB];

/// Why a warp cannot issue; lower is closer to issuing (the stall attributed to a cycle).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Why {
    Structural,
    Ldst,
    MemData,
    DataHazard,
    Control,
    Fetch,
    Sync,
    Idle,
}

/// The state of one SM (held by an [`Sm`] from its first CTA on, `lazy.rs`).
pub struct SmState {
    id: u16,
    // configuration
    max_warps: usize,
    regs_total: u32,
    smem_total: u32,
    n_sched: usize,
    /// The scheduler that goes first at the next issue cycle (round robin, see `SmState::issue`).
    issue_first: usize,
    /// Current issue-spread window (`now / ISSUE_WINDOW`) and the warp slots that issued in it
    /// (`CoreStats::issuing_warps`).
    issue_win: u64,
    issue_win_mask: u64,
    ibuf_cap: u8,
    fetch_per_cycle: u32,
    decode: u64,
    /// Per operation class (`class as usize`): unit, latency, initiation interval.
    class_tab: [ClassInfo; N_CLASS],
    smem_banks: u32,
    /// `shared.warp_parts`.
    smem_warp_parts: u32,
    smem_bank_bytes: u32,
    smem_latency: u64,
    l1i_miss: u64,
    skip_idle: bool,
    /// `sim.latency_attribution`.
    attribute: bool,
    /// `sim.check_classes`: each kept classification is compared with a full read of the warps.
    check_classes: bool,
    /// Free collectors per sub-core and unit kind ([`SmState::free_units`]), kept as
    /// `cu_idle` changes.
    free_now: Free,
    /// `sim.warp_times`.
    record_warps: bool,
    /// Latency attribution: the LD/ST unit is held by a reservation failure (MSHRs or miss
    /// queue full), or a memory instruction waits for a free load tracker; a warp then held
    /// by the memory path is charged `mshr`, otherwise (the unit busy with other
    /// transactions) `structural`.
    mem_blocked: bool,
    /// Launches begun (0-based index of the current one, for [`WarpInfo::launch`]).
    launch: u32,
    l1d_line: u64,
    l1d_sector: u64,
    /// `l1d.banks`.
    l1d_banks: u32,
    /// `l1d.bank_bytes`.
    l1d_bank_bytes: u64,
    /// `l1d.bank_arbiter`.
    l1d_arbiter: crate::mem::l1bank::Arbiter,
    const_line: u64,
    /// `tex.enabled`: texture loads go to `tc` (otherwise to the L1D).
    tex_on: bool,
    /// `tex.line_bytes`.
    tex_line: u64,
    out_cap: usize,
    in_cap: usize,
    // state
    warps: Vec<Warp>,
    ctas: Vec<CtaSlot>,
    used_warps: u64,
    /// Warps whose head instruction waits on the scoreboard, as last classified; brought up to
    /// date when a register of the warp is released or its loads in flight change
    /// (`SmState::rehazard`), since nothing else changes a stalled warp's head, barrier or
    /// buffer state. Lets the schedulers skip reading stalled warps every cycle.
    blocked: Cell<u64>,
    /// Warps that have fetched their last instruction (`Warp::fetch_done`): the only ones
    /// retirement looks at.
    fetched_all: u64,
    /// The subset of `blocked` with loads in flight (stall reason `MemData`).
    blocked_mem: Cell<u64>,
    /// Warps whose fetch- or issue-relevant state changed ([`SmState::touch`]) since the
    /// schedulers' classification last read them.
    touched_issue: Cell<u64>,
    /// The same, since the fetch scan last read them.
    touched_fetch: u64,
    /// Warps the fetch scan found it cannot fetch for; valid until touched.
    nofetch: u64,
    /// Each warp's kept issue classification (used without latency attribution or a probe,
    /// which need every warp's reason).
    classes: Box<classes::Classes>,
    regs_used: u32,
    smem_used: u32,
    scheds: Vec<Box<dyn WarpScheduler>>,
    sched_masks: Vec<u64>,
    ages: Vec<u64>,
    age_counter: u64,
    /// Criticality prediction (spec 000 §4.3), per warp slot.
    cpl: Box<Cpl>,
    /// CPL runs (`Cpl::on_issue`, the accuracy samples, the L1D's criticality bit): a
    /// scheduler or L1D policy reads criticality, or `sim.cpl` asks for its statistics.
    /// Otherwise the counters stay 0, `cpl_*`, `critical_accesses` and `critical_hits` are 0;
    /// warp dispatch and exit still reach CPL for the TB spread statistics (`tb_spread_ppm`).
    cpl_on: bool,
    fetch_rr: usize,
    l1i: Cache,
    /// Outstanding L1I line misses (one entry per line; waiters are found by scanning warps).
    imshr: Mshr<u8>,
    /// Warps whose missing L1I line has no MSHR entry yet (waiting for a free one).
    imiss_unsent: u64,
    /// L1I miss requests waiting for the request network (sent before data misses).
    imiss_q: VecDeque<MemReq>,
    /// Code window of the running kernel ([`code::code_base`]).
    code_base: u64,
    l1d: L1,
    cc: L1,
    /// The texture cache (used only with `tex_on`).
    tc: L1,
    map: AddrMap,
    cus: Vec<Cu>,
    /// Busy collectors (bit `i` = `cus[i]`).
    cu_busy: u64,
    /// The busy collectors with operand reads left (the others wait for dispatch).
    cu_pending: u64,
    /// The collectors of `cu_range[j][k]` as a mask.
    cu_mask: Vec<[u64; 3]>,
    /// Idle collectors of `cu_range[j][k]` (the count of `cu_mask[j][k] & !cu_busy`, kept as
    /// collectors are taken and freed instead of counted every cycle).
    cu_idle: Vec<[u8; 3]>,
    /// Each collector's (sub-core, unit kind): the `cu_idle` entry it counts in.
    cu_group: Vec<(u8, u8)>,
    /// The instruction held by each collector (apart from `cus`, which the dispatch and
    /// operand-read loops scan every cycle: a `DynInst` is 320 bytes).
    cu_insts: Vec<DynInst>,
    /// Collectors of each unit kind (SP, SFU, memory) per sub-core: `cu_range[j][k]`.
    cu_range: Vec<[(usize, usize); 3]>,
    /// SP, SFU and INT pipelines of each sub-core: `unit_range[j][k]` indexes `sp_free`
    /// (k = 0), `sfu_free` (k = 1) or `int_free` (k = 2).
    unit_range: Vec<[(usize, usize); 3]>,
    /// `core.sub_cores`.
    sub_cores: usize,
    /// Sub-core of each warp slot (`w % sub_cores`).
    sub_of: [u8; 64],
    /// Register banks per sub-core.
    banks_per_sub: u32,
    cu_seq: u64,
    cu_rr: usize,
    sp_free: Vec<u64>,
    sfu_free: Vec<u64>,
    /// INT pipelines (`core.int_units`): the cycle each can take an instruction.
    int_free: Vec<u64>,
    /// The busy SP-class collectors whose instruction goes to an INT pipeline.
    cu_int: u64,
    /// `core.pipe.issue` per sub-core share (`u8::MAX`: no limit).
    issue_cap: [u8; 3],
    /// `core.pipe.dispatch` per sub-core share for the SP, SFU and INT pipelines.
    dispatch_cap: [u8; 3],
    /// `core.pipe.in_ports` (`u32::MAX`: no limit).
    in_ports: u32,
    /// `core.max_issue_per_warp`.
    issue_per_warp: u32,
    /// `core.dual_issue_diff_units`.
    issue_diff_units: bool,
    /// `core.pipe.out_ports` (`u32::MAX`: no limit).
    out_ports: u32,
    /// Dispatches left in the current operand-collector step (`out_ports`).
    disp_left: u32,
    /// `core.pipe.reg_port_throughput`: operand-collector steps per cycle (at least 1).
    oc_steps: u32,
    /// `core.pipe.result_buses` (0: no limit).
    result_buses: u8,
    /// ALU results due per cycle: (cycle, count), indexed by cycle mod the length (a power of
    /// two above the longest ALU latency, so a live entry is never overwritten).
    wb_ring: Vec<(u64, u8)>,
    /// `l1i.perfect`.
    l1i_perfect: bool,
    /// Changes of the L1I's contents (a fill, an eviction, a flush): a warp's remembered hit
    /// ([`Warp::iline`]) holds while this count is the one it was taken at.
    l1i_gen: u64,
    ldst: Box<LdSt>,
    trackers: Vec<Tracker>,
    free_trackers: Vec<u32>,
    events: Wheel<Ev>,
    /// Scratch: the events due this cycle.
    due: Vec<Ev>,
    woken: Vec<u32>,
    chunks: [u64; WARP_SIZE],
    /// Requests waiting for the request network.
    pub out_q: VecDeque<MemReq>,
    /// Replies delivered by the reply network.
    pub in_q: VecDeque<MemReq>,
    /// CTAs finished this cycle (linear ids), for the sequential phase to release.
    pub finished: Vec<u32>,
    /// Something issued or a reply was consumed this cycle.
    pub progressed: bool,
    /// Criticality observer (document 004 §3), if installed.
    probe: Option<Box<dyn crate::core::probe::SmProbe>>,
    /// This cycle's activity for the probe.
    probe_cycle: crate::core::probe::SmCycle,
    /// A warp exited this cycle.
    pub exited_warp: bool,
    /// Pipeline counters.
    pub stats: CoreStats,
    /// Issue-stall counters.
    pub stalls: StallStats,
    /// Latency attribution of the warps retired here.
    pub latency: LatencyStats,
    /// L1I counters.
    pub l1i_stats: CacheStats,
    /// Warps retired in the current launch (`sim.warp_times`), drained by the GPU.
    pub warp_log: Vec<WarpTime>,
    /// Redundancy-elimination policy (`core.elim.policy`).
    elim: Box<dyn Eliminator>,
    /// A policy other than `none` is active.
    elim_on: bool,
    /// Instructions a policy holds in fetch, per warp slot (valid where `held_mask` is set).
    held: Vec<DynInst>,
    /// Warp slots with a held instruction.
    held_mask: u64,
}

impl SmState {
    /// SM `id` of `cfg`.
    pub fn new(id: u16, cfg: &GpuConfig, map: AddrMap) -> Self {
        let c = &cfg.core;
        let ctor = sched::find(&c.scheduler).expect("validated scheduler");
        let n_sched = c.schedulers as usize;
        let mut sched_masks = vec![0u64; n_sched];
        for w in 0..c.max_warps as usize {
            sched_masks[w % n_sched] |= 1 << w;
        }
        let (a, b, m) = (
            c.collectors_sp as usize,
            c.collectors_sfu as usize,
            c.collectors_mem as usize,
        );
        let cu = Cu {
            warp: 0,
            seq: 0,
            reads: 0,
            banks: [0; 8],
        };
        Self {
            id,
            max_warps: c.max_warps as usize,
            regs_total: c.registers,
            smem_total: c.shared_bytes,
            n_sched,
            issue_first: 0,
            issue_win: 0,
            issue_win_mask: 0,
            ibuf_cap: c.ibuffer_entries.min(MAX_IBUF as u32) as u8,
            fetch_per_cycle: c.fetch_per_cycle,
            decode: c.decode_latency as u64,
            class_tab: CLASSES.map(|k| ClassInfo {
                unit: Self::unit_for(k, c.dp_on_sfu),
                lat: Self::class_cycles(&c.latency, k),
                ii: Self::class_cycles(&c.initiation, k),
            }),
            smem_banks: cfg.shared.banks,
            smem_warp_parts: cfg.shared.warp_parts,
            smem_bank_bytes: cfg.shared.bank_bytes,
            smem_latency: cfg.shared.latency as u64,
            l1i_miss: cfg.l1i.miss_latency as u64,
            skip_idle: cfg.sim.skip_idle,
            attribute: cfg.sim.latency_attribution,
            check_classes: cfg.sim.check_classes,
            free_now: [[0; 3]; MAX_SUB],
            record_warps: cfg.sim.warp_times,
            mem_blocked: false,
            launch: 0,
            l1d_line: cfg.l1d.line_bytes as u64,
            l1d_sector: cfg.l1d.sector_bytes as u64,
            l1d_banks: cfg.l1d.banks,
            l1d_bank_bytes: cfg.l1d.bank_bytes as u64,
            l1d_arbiter: crate::mem::l1bank::Arbiter::new(&cfg.l1d.bank_arbiter)
                .expect("validated bank arbiter"),
            const_line: cfg.const_cache.line_bytes as u64,
            tex_on: cfg.tex.enabled,
            tex_line: cfg.tex.line_bytes as u64,
            out_cap: cfg.icnt.input_buffer as usize,
            in_cap: cfg.icnt.ejection_buffer as usize,
            // Allocated by the first CTA dispatch (`dispatch_cta`).
            warps: Vec::new(),
            ctas: vec![CtaSlot::default(); c.max_ctas as usize],
            used_warps: 0,
            blocked: Cell::new(0),
            blocked_mem: Cell::new(0),
            touched_issue: Cell::new(0),
            touched_fetch: 0,
            nofetch: 0,
            classes: Box::new(classes::Classes::new(c.sub_cores as usize, n_sched)),
            fetched_all: 0,
            regs_used: 0,
            smem_used: 0,
            scheds: (0..n_sched).map(|_| ctor(c)).collect(),
            sched_masks,
            ages: vec![0; 64],
            age_counter: 0,
            cpl: Box::new(
                Cpl::new(cpl::Critical::parse(&cfg.core.cpl_critical).unwrap_or_default())
                    .with_stall(cpl::Stall::parse(&cfg.core.cpl_stall).unwrap_or_default())
                    .with_rank(cfg.sim.cpl_rank),
            ),
            // Set below from the policies just built.
            cpl_on: cfg.sim.cpl || cfg.sim.cpl_rank,
            fetch_rr: 0,
            l1i: Cache::new(&cfg.l1i),
            imshr: Mshr::new(cfg.l1i.mshr_entries as usize, 1),
            imiss_unsent: 0,
            imiss_q: VecDeque::with_capacity(cfg.l1i.mshr_entries as usize),
            code_base: code::code_base(""),
            l1d: {
                let mut u = L1::new(&cfg.l1d, ReqSrc::L1d);
                if cfg.sim.reuse_histogram {
                    u.observe_reuse();
                }
                if cfg.sim.warp_times {
                    u.observe_warp_reuse();
                }
                u
            },
            cc: L1::new(&cfg.const_cache, ReqSrc::Const),
            tc: L1::new(&cfg.tex.cache(), ReqSrc::Tex),
            map,
            cus: vec![cu; a + b + m],
            cu_busy: 0,
            cu_pending: 0,
            cu_mask: Vec::new(),
            cu_idle: Vec::new(),
            cu_group: Vec::new(),
            cu_insts: vec![DynInst::default(); a + b + m],
            cu_range: {
                let sc = c.sub_cores as usize;
                let (pa, pb, pm) = (a / sc, b / sc, m / sc);
                (0..sc)
                    .map(|j| {
                        [
                            (j * pa, (j + 1) * pa),
                            (a + j * pb, a + (j + 1) * pb),
                            (a + b + j * pm, a + b + (j + 1) * pm),
                        ]
                    })
                    .collect()
            },
            unit_range: {
                let sc = c.sub_cores as usize;
                let (ps, pf) = (c.sp_units as usize / sc, c.sfu_units as usize / sc);
                let pi = c.int_units as usize / sc;
                (0..sc)
                    .map(|j| {
                        [
                            (j * ps, (j + 1) * ps),
                            (j * pf, (j + 1) * pf),
                            (j * pi, (j + 1) * pi),
                        ]
                    })
                    .collect()
            },
            sub_cores: c.sub_cores as usize,
            sub_of: std::array::from_fn(|w| (w % c.sub_cores as usize) as u8),
            banks_per_sub: c.reg_banks / c.sub_cores,
            cu_seq: 0,
            cu_rr: 0,
            sp_free: vec![0; c.sp_units as usize],
            sfu_free: vec![0; c.sfu_units as usize],
            int_free: vec![0; c.int_units as usize],
            cu_int: 0,
            issue_cap: c.pipe.issue.map(|w| per_sub(w, c.sub_cores)),
            dispatch_cap: c.pipe.dispatch.map(|w| per_sub(w, c.sub_cores)),
            issue_per_warp: c.max_issue_per_warp,
            issue_diff_units: c.dual_issue_diff_units,
            in_ports: if c.pipe.in_ports == 0 {
                u32::MAX
            } else {
                c.pipe.in_ports
            },
            out_ports: if c.pipe.out_ports == 0 {
                u32::MAX
            } else {
                c.pipe.out_ports
            },
            disp_left: u32::MAX,
            oc_steps: c.pipe.reg_port_throughput.max(1),
            result_buses: c.pipe.result_buses.min(255) as u8,
            wb_ring: if c.pipe.result_buses == 0 {
                Vec::new()
            } else {
                let l = &c.latency;
                let longest = [
                    l.int_alu,
                    l.int_mul,
                    l.int_div,
                    l.fp_alu,
                    l.fp_div,
                    l.dp,
                    l.sfu,
                    l.conv,
                    l.branch,
                    l.collective,
                    l.misc,
                ]
                .into_iter()
                .max()
                .unwrap_or(1) as usize;
                vec![(u64::MAX, 0); (longest + 2).next_power_of_two()]
            },
            l1i_perfect: cfg.l1i.perfect,
            l1i_gen: 0,
            ldst: Box::new(LdSt {
                busy: false,
                warp: 0,
                kind: AccessKind::Load,
                src: ReqSrc::L1d,
                pc: 0,
                ntx: 0,
                next: 0,
                done: 0,
                tracker: u32::MAX,
                txns: [Txn::default(); MAX_TXNS],
                shared_left: 0,
            }),
            trackers: vec![Tracker::default(); c.load_trackers as usize],
            free_trackers: (0..c.load_trackers).rev().collect(),
            // Grows to its working size in the first cycles of work (no allocation after).
            events: Wheel::new(0),
            due: Vec::new(),
            woken: Vec::with_capacity(64),
            chunks: [0; WARP_SIZE],
            out_q: VecDeque::with_capacity(cfg.icnt.input_buffer as usize),
            in_q: VecDeque::with_capacity(cfg.icnt.ejection_buffer as usize),
            finished: Vec::with_capacity(c.max_ctas as usize),
            progressed: false,
            probe: None,
            probe_cycle: Default::default(),
            exited_warp: false,
            stats: CoreStats::default(),
            stalls: StallStats::default(),
            latency: LatencyStats::default(),
            l1i_stats: CacheStats::default(),
            warp_log: Vec::new(),
            elim: elim::find(&c.elim.policy).expect("validated elimination policy")(&c.elim),
            elim_on: c.elim.policy != "none",
            held: Vec::new(),
            held_mask: 0,
        }
        .with_cu_masks()
        .with_cpl_readers()
    }

    /// Turns CPL on when a scheduler or an L1D policy reads criticality (`reads_criticality`).
    fn with_cpl_readers(mut self) -> Self {
        self.cpl_on |=
            self.scheds.iter().any(|s| s.reads_criticality()) || self.l1d.reads_criticality();
        self
    }

    /// Fills `cu_mask` from `cu_range`.
    fn with_cu_masks(mut self) -> Self {
        let bits = |(lo, hi): (usize, usize)| (lo..hi).fold(0u64, |m, i| m | 1 << i);
        self.cu_mask = self
            .cu_range
            .iter()
            .map(|r| [bits(r[0]), bits(r[1]), bits(r[2])])
            .collect();
        self.cu_idle = self
            .cu_range
            .iter()
            .map(|r| r.map(|(lo, hi)| (hi - lo) as u8))
            .collect();
        let cap = self.issue_cap;
        for (f, idle) in self.free_now.iter_mut().zip(&self.cu_idle) {
            *f = [0, 1, 2].map(|k| idle[k].min(cap[k]));
        }
        self.cu_group = vec![(0, 0); self.cus.len()];
        for (j, r) in self.cu_range.iter().enumerate() {
            for (k, &(lo, hi)) in r.iter().enumerate() {
                for g in &mut self.cu_group[lo..hi] {
                    *g = (j as u8, k as u8);
                }
            }
        }
        self
    }

    /// This SM's index in the GPU.
    pub fn id(&self) -> u16 {
        self.id
    }

    /// L1D counters.
    pub fn l1d_stats(&self) -> &CacheStats {
        &self.l1d.stats
    }
    /// L1D reuse-distance counters (zero unless `sim.reuse_histogram`).
    pub fn l1d_reuse_stats(&self) -> crate::stats::ReuseStats {
        self.l1d.reuse_stats
    }
    /// L1D per-load-PC profile (only with `sim.reuse_histogram`).
    pub fn l1d_pc_profile(&self) -> Option<&crate::stats::PcProfile> {
        self.l1d.pc_profile.as_deref()
    }
    /// Constant-cache counters.
    pub fn const_stats(&self) -> &CacheStats {
        &self.cc.stats
    }
    /// Texture-cache counters (zero unless `tex.enabled`).
    pub fn tex_stats(&self) -> &CacheStats {
        &self.tc.stats
    }

    /// Whether the SM holds any CTA.
    pub fn has_work(&self) -> bool {
        self.used_warps != 0
    }

    /// Whether anything is in flight (events, memory, queues).
    pub fn busy(&self) -> bool {
        self.used_warps != 0
            || !self.events.is_empty()
            || self.l1d.busy()
            || self.cc.busy()
            || self.tc.busy()
            || !self.out_q.is_empty()
            || !self.in_q.is_empty()
            || self.imshr.used() > 0
    }

    /// Whether CTA dispatch could place a CTA of `k` here now (the checks of
    /// [`SmState::dispatch_cta`] before it touches anything).
    pub fn can_take_cta(&self, k: &KernelInfo) -> bool {
        let (w, r, s) = Self::cta_resources(k);
        let free_warps = self.max_warps as u32 - self.used_warps.count_ones();
        self.ctas.iter().any(|c| !c.active)
            && w <= free_warps
            && self.regs_used + r <= self.regs_total
            && self.smem_used + s <= self.smem_total
    }

    /// Whole-GPU idle skipping: `None` when fetch, a pipeline stage or retirement might change
    /// state in core cycle `now`; otherwise `Some(t)`, the earliest core cycle at which this SM's
    /// own state could change (`u64::MAX`: only a reply from the network can wake it). In
    /// cycles `now..t`, with no reply arriving, [`SmState::cycle`] would only count the same stall
    /// reasons and occupancy every cycle, which [`SmState::skip_cycles`] adds in bulk. Conservative:
    /// any queued request, busy collector or LD/ST unit, fetchable or retirable warp, or warp
    /// ready to issue means "not quiet".
    pub fn quiet_until(&self, now: u64) -> Option<u64> {
        if self.skip_idle && !self.busy() {
            return Some(u64::MAX);
        }
        // (The tests most often true on a busy SM first.)
        if self.cu_busy != 0
            || self.ldst.busy
            || !self.in_q.is_empty()
            || !self.out_q.is_empty()
            || self.held_mask != 0
            || self.imiss_unsent != 0
            || !self.imiss_q.is_empty()
            || !self.l1d.miss_queue.is_empty()
            || !self.cc.miss_queue.is_empty()
            || !self.tc.miss_queue.is_empty()
        {
            return None;
        }
        let until = self.events.peek_time().unwrap_or(u64::MAX);
        if until <= now {
            return None;
        }
        // Fetch: only the warps the fetch scan has not found unfetchable since they were last
        // touched (the others cannot be fetched for; `SmState::fetch` skips them the same way).
        let mut m = self.used_warps & !(self.nofetch & !self.touched_fetch);
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            let wp = &self.warps[w];
            if wp.live
                && (wp.refetch
                    || (wp.len == 0 && !wp.fetch_done && !wp.fetch_barrier && !wp.branch_pending))
            {
                return None;
            }
        }
        // Retirement: only warps that fetched their last instruction can have exited.
        let mut m = self.used_warps & self.fetched_all;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            let wp = &self.warps[w];
            if wp.live && wp.exited() && wp.inflight == 0 {
                return None;
            }
        }
        let free = self.free_units();
        for s in 0..self.n_sched {
            if self.classify(s, now, &free).1 != 0 {
                return None;
            }
        }
        // The earliest cycle a buffered head finishes decoding: after the classification every
        // live warp whose head is still decoding is in its scheduler's decoding set, whose
        // kept lower bound is enough (an earlier answer only ends the quiet span sooner).
        Some(until.min(self.classes.decode_bound()))
    }

    /// Accounts `n` core cycles from `now` in which [`SmState::quiet_until`] said nothing happens:
    /// the stall reasons, occupancy and collector round robin advance exactly as `n` calls of
    /// [`SmState::cycle`] would.
    pub fn skip_cycles(&mut self, now: u64, n: u64) {
        self.progressed = false;
        self.exited_warp = false;
        let nc = self.cus.len().max(1) as u64;
        self.cu_rr = ((self.cu_rr as u64 + n * self.oc_steps as u64) % nc) as usize;
        if self.skip_idle && !self.busy() {
            self.stalls.idle += self.n_sched as u64 * n;
            return;
        }
        self.cpl_sample(now, now + n);
        let free = self.free_units();
        let mut whys = [None; 64];
        for s in 0..self.n_sched {
            let (mask, _, _, why) = self.classify_into(s, now, &free, &mut whys);
            self.count_stall(why, n);
            // No warp is ready in a quiet span: each cycle the scheduler probes all its warps.
            if self.attribute {
                self.probe_all(mask, now, n, &whys);
            }
        }
        let live = self.used_warps.count_ones() as u64;
        self.stats.warp_cycles += live * n;
        if live > 0 {
            self.stats.active_cycles += n;
        }
    }

    /// The CPL accuracy samples of every resident thread block at the sample points of core
    /// cycles `from..to` (one cycle, or a quiet span in which no warp issues).
    fn cpl_sample(&mut self, from: u64, to: u64) {
        if !self.cpl_on {
            return;
        }
        for t in cpl::sample_points(from, to) {
            for (cs, c) in self.ctas.iter().enumerate() {
                if c.active {
                    self.cpl.sample(c.warps, cs, t);
                }
            }
        }
    }

    /// The live warps of warp slot `w`'s thread block.
    fn tb_of(&self, w: usize) -> u64 {
        self.ctas[self.warps[w].cta_slot as usize].warps
    }

    /// Whether an SM without warps has nothing in flight either (it then only counts idle
    /// cycles); out of line, so that a busy SM's cycle does not evaluate `busy`.
    #[inline(never)]
    fn sleeps(&self) -> bool {
        self.skip_idle && !self.busy()
    }

    /// Whether the SM has no warp and nothing in flight (a probe does not see the cycle).
    #[inline(never)]
    fn idle_now(&self) -> bool {
        self.used_warps == 0 && !self.busy()
    }

    /// Warp slot `w` is taken or freed: it is no longer blocked (its slot is touched, so its
    /// reason is re-read).
    #[inline]
    fn clear_blocked(&self, w: usize) {
        let bit = 1u64 << w;
        self.blocked.set(self.blocked.get() & !bit);
        self.blocked_mem.set(self.blocked_mem.get() & !bit);
    }

    /// The state that fetch or issue reads of the warps in `mask` changed (I-buffer, barrier,
    /// branch, exit, scoreboard, residency): the fetch scan's and the schedulers' memos of
    /// them are stale.
    #[inline]
    fn touch(&mut self, mask: u64) {
        self.touched_fetch |= mask;
        self.touched_issue.set(self.touched_issue.get() | mask);
    }

    /// Sets the request queue's room (`icnt.input_buffer` less the requests the window engine
    /// has taken from this SM but the network has not, `sim.window_overlap`).
    pub fn set_out_cap(&mut self, cap: usize) {
        self.out_cap = cap;
    }

    /// Room for one more reply from the network.
    pub fn can_accept_reply(&self) -> bool {
        self.in_q.len() < self.in_cap
    }

    /// Whether a criticality observer is installed (it must see every cycle).
    pub fn has_probe(&self) -> bool {
        self.probe.is_some()
    }

    /// Installs a criticality observer ([`crate::core::probe`]).
    pub fn set_probe(&mut self, p: Box<dyn crate::core::probe::SmProbe>) {
        self.probe = Some(p);
    }

    /// Parallel phase: one core cycle of the pipeline.
    pub fn cycle(&mut self, now: u64) {
        self.progressed = false;
        self.exited_warp = false;
        // (`busy` is true whenever a warp is resident: tested first, it is one comparison.)
        if self.used_warps == 0 && self.sleeps() {
            // Nothing in flight: every stage would find nothing to do; only the schedulers'
            // idle cycles are counted and the collectors' round robin advances, as the full
            // path would.
            self.stalls.idle += self.n_sched as u64;
            self.cu_rr = (self.cu_rr + self.oc_steps as usize) % self.cus.len().max(1);
            return;
        }
        // A probe sees the cycles in which the SM has work, as with `sim.skip_idle` (above).
        let unprobed = self.probe.is_some() && self.idle_now();
        self.cpl_sample(now, now + 1);
        // Writeback events (with none due, only the wheel's cycle advances).
        if !self.events.any_due(now) {
            self.events.drain_until(now, |_| {});
        } else {
            let mut due = std::mem::take(&mut self.due);
            due.clear();
            self.events.drain_until(now, |ev| due.push(ev));
            for &ev in &due {
                match ev {
                    Ev::Writeback {
                        warp,
                        regs,
                        n,
                        branch,
                    } => {
                        let wp = &mut self.warps[warp as usize];
                        for &r in &regs[..n as usize] {
                            wp.sb.release(r);
                        }
                        wp.inflight -= 1;
                        if branch {
                            wp.branch_pending = false;
                            // (`SmState::touch`: fetch and the control-hazard reason read it.)
                            self.touched_fetch |= 1 << warp;
                            self.touched_issue.set(self.touched_issue.get() | 1 << warp);
                        }
                        if self.elim_on {
                            let (cs, wic) = (wp.cta_slot as usize, wp.warp_in_cta);
                            self.elim.written(cs, wic, &regs[..n as usize]);
                        }
                        self.rehazard(warp as usize);
                        self.probe_cycle.committed += 1;
                    }
                    Ev::Tracker(t) => {
                        self.probe_cycle.committed += 1;
                        self.tracker_done(t)
                    }
                }
            }
            self.due = due;
        }
        // One reply per cycle fills the L1D or the constant cache.
        if let Some(r) = self.in_q.pop_front() {
            self.progressed = true;
            if r.bypass && r.id & ACK != 0 && r.id != u32::MAX {
                // A store acknowledgement.
                self.warps[(r.id & !ACK) as usize].inflight -= 1;
            } else {
                self.stats.read_replies += 1;
                self.stats.read_latency_cycles += now.saturating_sub(r.born);
                if r.src == ReqSrc::L1i {
                    self.ifill(&r);
                } else {
                    self.fill_reply(&r);
                }
            }
        }
        if self.imiss_unsent != 0 {
            self.imiss_step();
        }
        self.ldst_step(now);
        // Miss queues to the network (one request per cycle: L1I, then L1D, then constants,
        // then textures).
        if self.out_q.len() < self.out_cap {
            let next = if let Some(r) = self.imiss_q.pop_front() {
                Some(r)
            } else if let Some(r) = self.l1d.miss_queue.pop_front() {
                Some(r)
            } else if let Some(r) = self.cc.miss_queue.pop_front() {
                Some(r)
            } else {
                self.tc.miss_queue.pop_front()
            };
            if let Some(r) = next {
                self.out_q.push_back(MemReq { born: now, ..r });
            }
        }
        self.collect_and_dispatch(now);
        self.issue(now);
        self.retire(now);
        if let Some(p) = self.probe.as_mut().filter(|_| !unprobed) {
            self.probe_cycle.live_warps = self.warps.iter().filter(|w| w.live).count() as u32;
            p.cycle(&self.probe_cycle);
        }
        self.probe_cycle = Default::default();
        let live = self.used_warps.count_ones() as u64;
        self.stats.warp_cycles += live;
        if live > 0 {
            self.stats.active_cycles += 1;
        }
        if self.elim_on {
            self.sync_elim_stats();
        }
    }

    /// Copies the policy's own counters into [`CoreStats`].
    fn sync_elim_stats(&mut self) {
        let c = self.elim.stats();
        let s = &mut self.stats;
        s.elim_leaders = c.leaders;
        s.elim_branch_syncs = c.branch_syncs;
        s.elim_majority_exits = c.majority_exits;
        s.elim_table_full = c.table_full;
        s.elim_load_invalidations = c.load_invalidations;
        s.elim_timeouts = c.timeouts;
        s.elim_hold_wb_cycles = c.hold_leader_wb;
        s.elim_hold_wb_unissued_cycles = c.hold_leader_unissued;
        s.elim_hold_branch_cycles = c.hold_branch;
        s.elim_follower_arrivals = c.follower_arrivals;
        s.elim_arrival_gap_cycles = c.arrival_gap;
        s.elim_skips_waited = c.skips_waited;
    }

    /// Counts an instruction a policy removed: skipped at fetch (`fetch`) or reused at issue,
    /// by Table 7 power unit (the mapping of the power model's instruction analyser).
    fn count_eliminated(&mut self, inst: &DynInst, fetch: bool) {
        let s = &mut self.stats;
        if fetch {
            s.elim_skipped += 1;
            s.elim_fds += 1;
        } else {
            s.elim_reused += 1;
        }
        let mut reg = inst.n_src + inst.n_dst > 0;
        match inst.class {
            OpClass::IntAlu | OpClass::IntMul | OpClass::IntDiv => s.elim_int += 1,
            OpClass::FpAlu | OpClass::FpDiv | OpClass::Dp => s.elim_fp += 1,
            OpClass::Sfu => s.elim_sfu += 1,
            OpClass::Conv | OpClass::WarpCollective => s.elim_alu += 1,
            OpClass::Load => match inst.mem.map(|m| m.space) {
                Some(MemSpace::Shared) => s.elim_shared += 1,
                Some(MemSpace::Global) | Some(MemSpace::Local) => s.elim_global += 1,
                Some(MemSpace::Const) | Some(MemSpace::Param) => s.elim_const += 1,
                _ => {}
            },
            _ => reg = false,
        }
        if reg {
            s.elim_reg += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The class table is indexed by discriminant: `CLASSES` lists every class at its own
    /// index, and each entry holds what the configuration gives that class.
    #[test]
    fn class_table_follows_the_configuration() {
        for (i, k) in CLASSES.iter().enumerate() {
            assert_eq!(*k as usize, i, "{k:?}");
        }
        for preset in ["gtx480", "qv100", "h100"] {
            let mut cfg = GpuConfig::preset(preset).unwrap();
            for dp in [false, true] {
                cfg.core.dp_on_sfu = dp;
                let map = AddrMap::new(&cfg.dram, cfg.l2.slices_per_channel).unwrap();
                let sm = SmState::new(0, &cfg, map);
                for k in CLASSES {
                    let want = (
                        SmState::unit_for(k, dp),
                        SmState::class_cycles(&cfg.core.latency, k),
                        SmState::class_cycles(&cfg.core.initiation, k),
                    );
                    let (lat, ii) = sm.lat_ii(k);
                    assert_eq!(
                        (sm.unit_of(k), lat, ii),
                        want,
                        "{preset} {k:?} dp_on_sfu={dp}"
                    );
                }
                let dp_unit = if dp { Unit::Sfu } else { Unit::Sp };
                assert_eq!(sm.unit_of(OpClass::Dp), dp_unit);
                assert_eq!(sm.unit_of(OpClass::Load), Unit::Mem);
            }
        }
    }
}
