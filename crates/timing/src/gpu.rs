//! The whole GPU: SMs, request/reply networks, L2 slices and DRAM channels, stepped in four
//! clock domains (spec 000 §1.3: core 700, interconnect 700, L2 700, DRAM 924 MHz) in the ratio
//! of their frequencies, plus the [`TimingRunner`] that the host API drives.
//!
//! Each core cycle has three phases, which keeps the statistics identical for every thread
//! count: (1) sequential, in SM order: CTA dispatch; (2) fetch (the only calls into the
//! [`WarpSource`], which executes instructions functionally) on the main thread in SM order,
//! streamed into a thread team (`team.rs`) that steps every SM's pipeline and L1s (touching
//! only SM-local state) as soon as that SM's fetch is done; (3) sequential: finished CTAs are
//! released.
//! The interconnect, L2 and DRAM domains are stepped sequentially in a fixed order; with a
//! thread team, the parts of a time step that no SM reads within the cycle (everything but the
//! request network's cycle and the reply ejection) run on the main thread while the team steps
//! the SMs (see `Gpu::run_launch`), in the same order as with one thread.
//!
//! Idle work is cheap, and with `sim.skip_idle` idle time is skipped: an SM with nothing in
//! flight returns at once, an idle DRAM channel only counts its cycle, the networks return when
//! no source has a packet, and when at a core-cycle boundary no SM can dispatch, fetch, issue,
//! retire or move a request and every memory-side component only waits for a known future
//! cycle (fixed-latency network, ROP, fill and DRAM-return queues), the clocks jump to the
//! earliest such event (`Gpu::idle_span`): each domain's cycle count and next tick time advance
//! exactly as stepping would, and the skipped core cycles are charged in bulk to the stall
//! reasons, occupancy and DRAM cycle counts they would have been counted under, so statistics
//! are identical with the switch on or off. A queued DRAM request (bank timing is not looked
//! ahead) or any request waiting for a port keeps the cycles stepped. The same test per SM
//! lets a single SM doze while the others work (`Gpu::plan_steps`): an SM that cannot change
//! state before a known cycle unless a reply or a CTA arrives is not stepped until then, and
//! is charged the skipped cycles in bulk when it resumes.

use crate::config::GpuConfig;
use crate::core::sm::{Sm, SmState};
use crate::dram::addrmap::AddrMap;
use crate::dram::port::MemoryPort;
use crate::dram::Channel;
use crate::mem::icnt::{Network, Sources};
use crate::mem::l2::L2Slice;
use crate::mem::req::MemReq;
use crate::stats::{IcntStats, KernelStats, RunStats, Totals};
use crate::team::Team;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use warpforge_core::{KernelInfo, KernelRunner, SourceError, WarpSource};

const CORE: usize = 0;
const ICNT: usize = 1;
const L2: usize = 2;
const DRAM: usize = 3;

/// A progress report, sent every few thousand core cycles.
#[derive(Debug, Clone)]
pub struct Progress {
    /// Kernel name.
    pub kernel: String,
    /// Core cycles of this kernel so far.
    pub cycles: u64,
    /// Warp instructions of this kernel so far.
    pub warp_insts: u64,
    /// CTAs finished.
    pub ctas_done: u64,
    /// CTAs in the grid.
    pub ctas_total: u64,
}

mod balance;
mod parts;
mod window;

/// The SMs as sources of the request network; only awake SMs can have a packet, and only
/// requests born before core cycle `.2` are taken (the window engine's SMs run ahead).
struct SmPorts<'a>(&'a mut [Sm], &'a [u32], u64);
impl Sources for SmPorts<'_> {
    fn head(&self, s: usize) -> Option<&MemReq> {
        self.0[s].out_q.front().filter(|r| r.born < self.2)
    }
    fn pop(&mut self, s: usize) -> MemReq {
        self.0[s].out_q.pop_front().expect("head")
    }
    fn active(&self) -> Option<&[u32]> {
        Some(self.1)
    }
}

struct SlicePorts<'a>(&'a mut [L2Slice]);
impl Sources for SlicePorts<'_> {
    fn head(&self, s: usize) -> Option<&MemReq> {
        self.0[s].out_q.front()
    }
    fn pop(&mut self, s: usize) -> MemReq {
        self.0[s].out_q.pop_front().expect("head")
    }
}

/// The memory side: both networks, the L2 slices and the DRAM channels (or a memory port).
struct Mem {
    req_net: Network,
    reply_net: Network,
    slices: Vec<L2Slice>,
    channels: Vec<Channel>,
    /// External memory replacing `channels` ([`crate::dram::port`]).
    port: Option<Box<dyn MemoryPort>>,
    /// L2 slices per DRAM channel.
    spc: usize,
}

impl Mem {
    /// One DRAM cycle `now`.
    fn dram_tick(&mut self, now: u64) {
        if let Some(p) = &mut self.port {
            p.cycle(now);
            return;
        }
        for c in &mut self.channels {
            c.cycle(now);
        }
    }

    /// One L2 cycle `now` (`dnow`: the DRAM cycle count).
    fn l2_tick(&mut self, now: u64, dnow: u64) {
        if let Some(p) = &mut self.port {
            while let Some(r) = p.pop_return(dnow) {
                self.slices[r.slice as usize].dram_return(now, &r);
            }
        }
        for c in &mut self.channels {
            while let Some(r) = c.peek_return(dnow) {
                self.slices[r.slice as usize].dram_return(now, r);
                c.pop_return();
            }
        }
        for (i, s) in self.slices.iter_mut().enumerate() {
            s.cycle(now);
            for (addr, bytes) in s.crit_upgrades.drain(..) {
                if let Some(p) = &mut self.port {
                    p.upgrade_crit(i / self.spc, addr, bytes);
                }
            }
            if let Some(d) = s.to_dram.front() {
                let ch = i / self.spc;
                if let Some(p) = &mut self.port {
                    if p.can_accept(ch, d.write) {
                        p.push(ch, *d);
                        s.to_dram.pop_front();
                    }
                } else if self.channels[ch].can_accept(d.write) {
                    self.channels[ch].push(*d);
                    s.to_dram.pop_front();
                }
            }
        }
    }

    /// The middle of interconnect cycle `now` (`l2now`: the L2 cycle count): arrived requests
    /// enter the L2 slices, and the slices' replies enter the reply network. The request
    /// network's own cycle comes before and the replies' ejection into the SMs after
    /// ([`Gpu::icnt_tick`]); ejections taken early with [`Network::pop_held`] are released.
    fn icnt_mid(&mut self, now: u64, l2now: u64) {
        for (d, s) in self.slices.iter_mut().enumerate() {
            while self.req_net.peek(d, now).is_some() && s.can_accept() {
                let r = self.req_net.pop(d);
                s.accept(l2now, r);
            }
        }
        self.reply_net.cycle(now, &mut SlicePorts(&mut self.slices));
        self.reply_net.release_held();
    }
}

/// The simulated GPU.
pub struct Gpu {
    cfg: GpuConfig,
    /// With `sim.skip_idle` an SM's state is built at its first wake ([`Gpu::wake`],
    /// [`Sm::build`]): an SM that never gets a CTA costs a few bytes.
    sms: Vec<Sm>,
    /// The address map the SMs are built with.
    map: AddrMap,
    /// One more than the highest index of an SM built so far: the SMs a window's front ends
    /// serve ([`WarpSource::window_fronts`]).
    built_span: u32,
    mem: Mem,
    team: Option<Team>,
    /// Scratch list of reply destinations.
    scratch: Vec<u32>,
    /// SMs stepped every core cycle, ascending. With `sim.skip_idle`, an SM with no warp and
    /// nothing in flight goes to sleep (leaves this list) and costs nothing until a CTA or a
    /// reply wakes it; its idle cycles are then accounted in bulk, exactly as stepping would
    /// have counted them. Without `sim.skip_idle`, every SM is always awake.
    awake: Vec<u32>,
    /// Per SM: `Some(c)` while asleep, `c` being its first core cycle not yet accounted.
    asleep: Vec<Option<u64>>,
    /// SMs woken so far ([`Gpu::wake`]; the window engine's dispatch uses it).
    wakes: u64,
    /// Per SM: the launch whose start (`Sm::start_kernel`) it has seen; a sleeper catches up
    /// when it wakes.
    started: Vec<u64>,
    /// Per awake SM: `Some((since, until))` while it dozes (`sim.skip_idle`, one-cycle engine):
    /// at core cycle `since` [`Sm::quiet_until`] said that it cannot change state before core
    /// cycle `until` unless a reply arrives or a CTA is placed, so it is not stepped; the cycles
    /// from `since` are charged in bulk ([`Sm::skip_cycles`]) when it resumes, exactly as
    /// stepping would have counted them.
    dozing: Vec<Option<(u64, u64)>>,
    /// Scratch: the awake SMs stepped in the current core cycle (not dozing), ascending.
    stepping: Vec<u32>,
    /// Launches begun, and the code base of the current one.
    launch: u64,
    code_base: u64,
    /// The L1D geometry of the current launch under a unified L1/shared array
    /// ([`crate::mem::carveout`]); `None`: the configured one.
    l1d_launch: Option<crate::config::CacheConfig>,
    period: [u64; 4],
    next: [u64; 4],
    cyc: [u64; 4],
    skipped: u64,
    /// Core cycles spent draining the memory side between launches under
    /// `l2.flush_between_launches` ([`Gpu::drain_memory`]), charged to no launch.
    uncharged: u64,
}

/// The DRAM and L2 ticks due at time `t` (femtoseconds), in that order, on the memory side's
/// clocks (`cyc`, `next`, `period`: per clock domain); a free function so that the window
/// engine can run the memory side while other threads hold the SMs.
#[inline]
fn dram_l2_ticks(
    mem: &mut Mem,
    cyc: &mut [u64; 4],
    next: &mut [u64; 4],
    period: &[u64; 4],
    t: u64,
) {
    if next[DRAM] == t {
        mem.dram_tick(cyc[DRAM]);
        cyc[DRAM] += 1;
        next[DRAM] += period[DRAM];
    }
    if next[L2] == t {
        mem.l2_tick(cyc[L2], cyc[DRAM]);
        cyc[L2] += 1;
        next[L2] += period[L2];
    }
}

fn period_fs(mhz: f64) -> u64 {
    (1e9 / mhz).round() as u64
}

impl Gpu {
    /// [`TimingRunner::set_adaptive_team`].
    pub fn set_adaptive_team(&mut self, on: bool) {
        if let Some(t) = self.team.as_mut() {
            t.set_adaptive(on);
        }
    }

    /// [`TimingRunner::team_report`].
    pub fn team_report(&self) -> Option<crate::TeamReport> {
        self.team.as_ref()?.report()
    }

    /// A GPU of `cfg` (validated) stepping its SMs on `threads` threads (1 = no thread pool).
    pub fn new(cfg: GpuConfig, threads: usize) -> Self {
        let spc = cfg.l2.slices_per_channel as usize;
        let map = AddrMap::new(&cfg.dram, spc as u32).expect("validated address map");
        let n_sm = cfg.core.num_sms as usize;
        let n_slices = cfg.dram.channels as usize * spc;
        let threads = threads.max(1);
        Self {
            sms: (0..n_sm)
                .map(|i| {
                    if cfg.sim.skip_idle {
                        Sm::unbuilt(&cfg)
                    } else {
                        Sm::new(i as u16, &cfg, map.clone())
                    }
                })
                .collect(),
            mem: Mem {
                req_net: Network::new(&cfg.icnt, n_sm, n_slices, false),
                // With SMs built at their first CTA, so are their reply buffers.
                reply_net: if cfg.sim.skip_idle {
                    Network::new_lazy(&cfg.icnt, n_slices, n_sm, true)
                } else {
                    Network::new(&cfg.icnt, n_slices, n_sm, true)
                },
                slices: (0..n_slices)
                    .map(|i| {
                        L2Slice::new(i as u16, &cfg.l2, map.clone()).with_partitions(
                            &cfg.l2,
                            n_slices as u32,
                            n_sm as u32,
                        )
                    })
                    .collect(),
                channels: (0..cfg.dram.channels)
                    .map(|_| Channel::new(&cfg.dram))
                    .collect(),
                port: None,
                spc,
            },
            team: (threads > 1).then(|| Team::new(threads.min(n_sm.max(1)))),
            scratch: Vec::new(),
            awake: if cfg.sim.skip_idle {
                Vec::new()
            } else {
                (0..n_sm as u32).collect()
            },
            asleep: vec![cfg.sim.skip_idle.then_some(0); n_sm],
            started: vec![0; n_sm],
            wakes: 0,
            dozing: vec![None; n_sm],
            stepping: Vec::with_capacity(n_sm),
            launch: 0,
            code_base: 0,
            l1d_launch: None,
            period: [
                period_fs(cfg.clocks.core_mhz),
                period_fs(cfg.clocks.icnt_mhz),
                period_fs(cfg.clocks.l2_mhz),
                period_fs(cfg.clocks.dram_mhz),
            ],
            next: [0; 4],
            cyc: [0; 4],
            skipped: 0,
            uncharged: 0,
            map,
            built_span: if cfg.sim.skip_idle { 0 } else { n_sm as u32 },
            cfg,
        }
    }

    /// Takes the warp records of the launch (`sim.warp_times`), ordered by (CTA, warp).
    pub fn take_warp_times(&mut self) -> Vec<crate::stats::WarpTime> {
        let mut v: Vec<_> = self
            .sms
            .iter_mut()
            .filter_map(Sm::state_mut)
            .flat_map(|s| std::mem::take(&mut s.warp_log))
            .collect();
        v.sort_by_key(|w| (w.cta, w.warp));
        v
    }

    /// Sends the L2 slices' DRAM traffic to `p` instead of the GPU's channels (a heterogeneous
    /// processor's shared memory side). Whole-GPU idle skipping is off while a port is installed
    /// (the port must see every cycle).
    pub fn set_memory_port(&mut self, p: Box<dyn MemoryPort>) {
        self.mem.port = Some(p);
    }

    /// Removes the installed memory port.
    pub fn take_memory_port(&mut self) -> Option<Box<dyn MemoryPort>> {
        self.mem.port.take()
    }

    /// Installs a criticality observer on every SM: `make(sm index)` ([`crate::core::probe`]).
    /// A probe sees every core cycle in which its SM has work (a CTA, or anything in flight),
    /// with `sim.skip_idle` on or off: no whole-GPU idle span is skipped while probes are
    /// installed.
    pub fn set_sm_probes(
        &mut self,
        make: &mut dyn FnMut(usize) -> Box<dyn crate::core::probe::SmProbe>,
    ) {
        for (i, s) in self.sms.iter_mut().enumerate() {
            s.set_probe(make(i));
        }
    }

    /// The configuration.
    pub fn config(&self) -> &GpuConfig {
        &self.cfg
    }

    /// SMs whose state has been built: with `sim.skip_idle`, those that have had a CTA
    /// (`core/sm/lazy.rs`); otherwise all.
    pub fn built_sms(&self) -> usize {
        self.sms.iter().filter(|s| s.is_built()).count()
    }

    /// Core cycles simulated so far (all kernels).
    pub fn core_cycles(&self) -> u64 {
        self.cyc[CORE]
    }

    /// Core cycles accounted in bulk by whole-GPU idle skipping (`sim.skip_idle`), all kernels.
    pub fn skipped_core_cycles(&self) -> u64 {
        self.skipped
    }

    /// Raw counters of every component, summed.
    pub fn totals(&self) -> Totals {
        let mut t = Totals {
            cycles: self.cyc[CORE] - self.uncharged,
            ..Default::default()
        };
        for sm in &self.sms {
            let Some(s) = sm.state() else {
                t.stalls.idle += sm.unbuilt_idle_stalls();
                continue;
            };
            t.core.add(&s.stats);
            t.stalls.add(&s.stalls);
            t.latency.add(&s.latency);
            t.l1d.add(s.l1d_stats());
            t.l1d_reuse.add(&s.l1d_reuse_stats());
            if let Some(p) = s.l1d_pc_profile() {
                t.l1d_pcs.add(p);
            }
            t.l1i.add(&s.l1i_stats);
            t.const_cache.add(s.const_stats());
            t.tex_cache.add(s.tex_stats());
        }
        for s in &self.mem.slices {
            t.l2.add(&s.stats);
        }
        for c in &self.mem.channels {
            t.dram.add(&c.stats);
        }
        let (q, r) = (&self.mem.req_net.stats, &self.mem.reply_net.stats);
        t.icnt = IcntStats {
            req_packets: q.packets,
            l1_to_l2_bytes: q.bytes,
            req_flits: q.flits,
            reply_packets: r.packets,
            l2_to_l1_bytes: r.bytes,
            reply_flits: r.flits,
        };
        t
    }

    /// The DRAM and L2 ticks due at time `t`, in that order (every loop over the memory side
    /// runs them first, then the interconnect's).
    #[inline]
    fn dram_l2_ticks_at(&mut self, t: u64) {
        dram_l2_ticks(
            &mut self.mem,
            &mut self.cyc,
            &mut self.next,
            &self.period,
            t,
        );
    }

    fn icnt_tick(&mut self) {
        self.icnt_req();
        self.mem.icnt_mid(self.cyc[ICNT], self.cyc[L2]);
        self.icnt_eject(false);
    }

    /// The request network's cycle (it takes the SMs' queued requests).
    fn icnt_req(&mut self) {
        self.icnt_req_before(u64::MAX);
    }

    /// The request network's cycle, taking only requests born before core cycle `before`.
    fn icnt_req_before(&mut self, before: u64) {
        let now = self.cyc[ICNT];
        self.mem
            .req_net
            .cycle(now, &mut SmPorts(&mut self.sms, &self.awake, before));
    }

    /// The replies that have arrived by this interconnect cycle enter their SMs (waking
    /// sleepers), in SM order, as far as the SMs' input queues take them. `early`: before the
    /// rest of the memory side of this cycle ([`Network::pop_held`]).
    fn icnt_eject(&mut self, early: bool) {
        self.icnt_eject_at(self.cyc[ICNT], early);
    }

    /// [`Gpu::icnt_eject`] of the replies that have arrived by interconnect cycle `now` (the
    /// current cycle, or with `early` false the last one stepped: the window engine's ejection
    /// at a window start that falls between two interconnect ticks).
    fn icnt_eject_at(&mut self, now: u64, early: bool) {
        let mut dests = std::mem::take(&mut self.scratch);
        dests.clear();
        dests.extend_from_slice(self.mem.reply_net.occupied());
        dests.sort_unstable();
        for &d in &dests {
            let d = d as usize;
            if self.mem.reply_net.peek(d, now).is_none() {
                continue;
            }
            self.wake(d, self.cyc[CORE]);
            let s: &mut SmState = &mut self.sms[d];
            while self.mem.reply_net.peek(d, now).is_some() && s.can_accept_reply() {
                let r = if early {
                    self.mem.reply_net.pop_held(d)
                } else {
                    self.mem.reply_net.pop(d)
                };
                s.in_q.push_back(r);
            }
        }
        self.scratch = dests;
    }

    /// Wakes SM `s` (if asleep) before its work in core cycle `now`: it catches up with the
    /// current launch's start and is charged the idle cycles it slept through.
    fn wake(&mut self, s: usize, now: u64) {
        let Some(since) = self.asleep[s].take() else {
            return;
        };
        self.wakes += 1;
        let sm = &mut self.sms[s];
        if !sm.is_built() {
            sm.build(s as u16, &self.cfg, &self.map);
            self.mem.reply_net.reserve_dst(s);
            self.built_span = self.built_span.max(s as u32 + 1);
        }
        if self.started[s] != self.launch {
            sm.start_kernel(self.code_base, (self.launch - 1) as u32);
            if let Some(c) = &self.l1d_launch {
                sm.resize_l1d(c);
            }
            self.started[s] = self.launch;
        }
        if now > since {
            sm.skip_cycles(since, now - since);
        }
        let at = self.awake.binary_search(&(s as u32)).unwrap_err();
        self.awake.insert(at, s as u32);
    }

    /// Ends SM `s`'s doze (if any) before its work in core cycle `now`: the cycles it dozed
    /// through are charged as stepping would have counted them.
    fn undoze(&mut self, s: usize, now: u64) {
        if let Some((since, _)) = self.dozing[s].take() {
            if now > since {
                self.sms[s].skip_cycles(since, now - since);
            }
        }
    }

    /// Fills `stepping` with the awake SMs to step in core cycle `now`: a dozing SM resumes
    /// when its quiet span ends or a reply has arrived; an SM that [`Sm::quiet_until`] finds
    /// quiet at `now` starts dozing (cycle `now` included). Dozing needs `sim.skip_idle`, no
    /// memory port and no criticality probe (a probe sees every cycle).
    fn plan_steps(&mut self, now: u64) {
        self.stepping.clear();
        let doze_ok = self.cfg.sim.skip_idle && self.mem.port.is_none();
        for i in 0..self.awake.len() {
            let s = self.awake[i] as usize;
            if let Some((_, until)) = self.dozing[s] {
                if now < until && self.sms[s].in_q.is_empty() {
                    continue;
                }
                self.undoze(s, now);
            } else if doze_ok {
                // (Awake, so built.)
                let sm: &SmState = &self.sms[s];
                let quiet = if !sm.has_probe() && sm.busy() {
                    sm.quiet_until(now)
                } else {
                    None
                };
                if let Some(until) = quiet {
                    if until > now {
                        let sm: &mut SmState = &mut self.sms[s];
                        // What a quiet cycle leaves for phase 3.
                        sm.progressed = false;
                        sm.exited_warp = false;
                        self.dozing[s] = Some((now, until));
                        continue;
                    }
                }
            }
            self.stepping.push(s as u32);
        }
    }

    /// Charges every dozing SM its cycles up to the current core cycle and wakes it.
    fn settle_dozers(&mut self) {
        let now = self.cyc[CORE];
        for s in 0..self.sms.len() {
            self.undoze(s, now);
        }
    }

    /// Charges every sleeping SM its idle cycles up to the current core cycle (before the
    /// statistics are read); they stay asleep.
    fn settle_sleepers(&mut self) {
        let now = self.cyc[CORE];
        for (sm, since) in self.sms.iter_mut().zip(&mut self.asleep) {
            if let Some(c) = since {
                if now > *c {
                    sm.skip_cycles(*c, now - *c);
                    *c = now;
                }
            }
        }
    }

    fn memory_busy(&self) -> bool {
        self.mem.req_net.busy()
            || self.mem.reply_net.busy()
            || self.mem.slices.iter().any(|s| s.busy())
            || self.mem.channels.iter().any(|c| c.busy())
            || self.mem.port.as_ref().is_some_and(|p| p.busy())
    }

    /// Femtosecond time of cycle `c` (`>= cyc[d]`) of clock domain `d`.
    fn time_of(&self, d: usize, c: u64) -> u64 {
        self.next[d] + c.saturating_sub(self.cyc[d]) * self.period[d]
    }

    /// Whole-GPU idle skipping, asked at core cycle `now` (time `t` fs, the other domains
    /// stepped up to `t`): when no SM can dispatch, fetch, issue, retire or move a request in
    /// this cycle and every memory-side component only waits for a known future cycle, returns
    /// `(n, t_stop)`: core cycles `now..now + n` and every other domain's cycles before time
    /// `t_stop` can be accounted in bulk. `n <= cap - now` (deadlock, watchdog and progress
    /// checks land on the cycles they would have). Conservative: anything uncertain (a queued
    /// DRAM request, a request waiting for a network port) means `None`.
    fn idle_span(
        &self,
        now: u64,
        t: u64,
        k: &KernelInfo,
        ctas_left: bool,
        cap: u64,
    ) -> Option<(u64, u64)> {
        // A criticality probe sees every cycle in which its SM has work.
        if self
            .awake
            .first()
            .is_some_and(|&s| self.sms[s as usize].has_probe())
        {
            return None;
        }
        // A sleeping SM is empty, and a CTA of the launch fits an empty SM (checked at launch).
        let sleepers = self.awake.len() < self.sms.len();
        if ctas_left
            && (sleepers
                || self
                    .awake
                    .iter()
                    .any(|&s| self.sms[s as usize].can_take_cta(k)))
        {
            return None;
        }
        let mut until = cap;
        for &s in &self.awake {
            let sm: &SmState = &self.sms[s as usize];
            // A dozing SM's state is as when it began to doze: its answer is the same.
            let u = match self.dozing[s as usize] {
                Some((_, u)) if sm.in_q.is_empty() => u,
                _ => sm.quiet_until(now)?,
            };
            until = until.min(u);
        }
        if until <= now {
            return None;
        }
        let mut t_ev = u64::MAX;
        let (ic, lc, dc) = (self.cyc[ICNT], self.cyc[L2], self.cyc[DRAM]);
        for net in [&self.mem.req_net, &self.mem.reply_net] {
            if let Some(c) = net.next_event(ic) {
                t_ev = t_ev.min(self.time_of(ICNT, c));
            }
        }
        // Each component's next event on the clock of the domain that acts on it: a slice's
        // own work on the L2 clock, its queued replies on the interconnect's (the reply network
        // takes them; with the interconnect or the L2 on a clock of its own, the L2 clock's
        // next tick could pass over interconnect ticks that drain the queue: `bt` at tiny took
        // 2.86 M cycles instead of 3,454 with `clocks.icnt_mhz=1400`).
        for s in &self.mem.slices {
            if s.has_replies() {
                t_ev = t_ev.min(self.next[ICNT]);
            }
            if let Some(c) = s.next_event(lc) {
                t_ev = t_ev.min(self.time_of(L2, c));
            }
        }
        for ch in &self.mem.channels {
            if ch.has_queued() {
                t_ev = t_ev.min(self.next[DRAM]);
            }
            if let Some(r) = ch.next_return() {
                // Visible to the L2 once the DRAM clock has counted `r` cycles.
                let at = if r <= dc {
                    self.next[L2]
                } else {
                    self.time_of(DRAM, r - 1)
                };
                t_ev = t_ev.min(at);
            }
        }
        let pc = self.period[CORE];
        let mut n = until - now;
        if t_ev != u64::MAX {
            n = n.min((t_ev - t).div_ceil(pc));
        }
        let t_stop = t_ev.min(t + n * pc);
        Some((n, t_stop))
    }

    /// Accounts `n` idle core cycles from `now` and every other domain's cycles before `t_stop`
    /// (see [`Gpu::idle_span`]), advancing each domain's cycle count and next tick time exactly
    /// as stepping would.
    fn skip_span(&mut self, now: u64, n: u64, t_stop: u64) {
        for &s in &self.awake {
            // Dozing SMs are charged these cycles when they resume.
            if self.dozing[s as usize].is_none() {
                self.sms[s as usize].skip_cycles(now, n);
            }
        }
        for d in [DRAM, L2, ICNT] {
            let k = if t_stop > self.next[d] {
                (t_stop - self.next[d]).div_ceil(self.period[d])
            } else {
                0
            };
            if d == DRAM {
                for c in &mut self.mem.channels {
                    c.skip_cycles(k);
                }
            }
            self.cyc[d] += k;
            self.next[d] += k * self.period[d];
        }
        self.cyc[CORE] += n;
        self.next[CORE] += n * self.period[CORE];
        self.skipped += n;
    }

    /// The first core cycle an idle skip from `now` may not pass (both engines): the deadlock
    /// bound (unless the memory side is busy), the watchdog bound, the next 4096-cycle poll and
    /// the launch's dispatch cycle, whichever comes first.
    fn skip_cap(&self, now: u64, last_progress: u64, last_exit: u64, dispatch_at: u64) -> u64 {
        let cap_dl = if self.memory_busy() {
            u64::MAX
        } else {
            last_progress + self.cfg.sim.deadlock_cycles + 1
        };
        let mut cap = cap_dl
            .min(last_exit + self.cfg.sim.watchdog_cycles + 1)
            .min((now / 4096 + 1) * 4096);
        if now < dispatch_at {
            cap = cap.min(dispatch_at);
        }
        cap
    }

    /// Hands the finished CTAs of the awake SMs back to `src`, in SM order (both engines, at
    /// the end of a cycle or a window); returns how many.
    fn release_finished(&mut self, src: &mut dyn WarpSource) -> u64 {
        let mut n = 0;
        for &i in &self.awake {
            let s: &mut SmState = &mut self.sms[i as usize];
            for &c in &s.finished {
                src.finish_cta(c);
                n += 1;
            }
            s.finished.clear();
        }
        n
    }

    /// With `sim.skip_idle`: awake SMs left with nothing to do go to sleep from core cycle
    /// `from` on (both engines).
    fn sleep_idle(&mut self, from: u64) {
        if self.cfg.sim.skip_idle {
            let (sms, asleep) = (&self.sms, &mut self.asleep);
            self.awake.retain(|&i| {
                let busy = sms[i as usize].busy();
                if !busy {
                    asleep[i as usize] = Some(from);
                }
                busy
            });
        }
    }

    /// The deadlock and livelock bounds at core cycle `now`: nothing moved since `last_progress`
    /// for more than `sim.deadlock_cycles`, or no warp exited and no CTA started since
    /// `last_exit` for more than `sim.watchdog_cycles` (both engines check the same way).
    fn check_stuck(&self, now: u64, last_progress: u64, last_exit: u64) -> Result<(), RunError> {
        if now - last_progress > self.cfg.sim.deadlock_cycles {
            return Err(RunError::Stuck(
                self.diagnosis("deadlock", now - last_progress),
            ));
        }
        if now - last_exit > self.cfg.sim.watchdog_cycles {
            return Err(RunError::Stuck(format!(
                "{}  (raise or lift the bound with --stall-limit or --set sim.watchdog_cycles=N)",
                self.diagnosis("livelock (no warp exited, no CTA started)", now - last_exit)
            )));
        }
        Ok(())
    }

    /// The periodic check of both engines' launch loops: an interrupt request ends the run,
    /// otherwise `progress` hears how far kernel `kernel` is (`cycles` core cycles into it, the
    /// warp instructions since `start_insts`, `ctas` = (finished, in the grid)).
    fn poll(
        &self,
        kernel: &str,
        cycles: u64,
        start_insts: u64,
        (ctas_done, ctas_total): (u64, u64),
        stop: &AtomicBool,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<(), RunError> {
        if stop.load(Ordering::Relaxed) {
            return Err(RunError::Interrupted);
        }
        let insts = self.warp_insts();
        progress(&Progress {
            kernel: kernel.to_string(),
            cycles,
            warp_insts: insts - start_insts,
            ctas_done,
            ctas_total,
        });
        Ok(())
    }

    /// Warp instructions issued so far by every SM (all launches).
    fn warp_insts(&self) -> u64 {
        self.sms
            .iter()
            .filter_map(Sm::state)
            .map(|s| s.stats.warp_insts)
            .sum()
    }

    fn diagnosis(&self, what: &str, since: u64) -> String {
        let mut s = format!(
            "{what}: no progress for {since} core cycles at cycle {}; live warps:\n",
            self.cyc[CORE]
        );
        let mut limit = 24;
        for sm in self.sms.iter().filter_map(Sm::state) {
            sm.diagnose(self.cyc[CORE], &mut s, &mut limit);
        }
        if limit == 0 {
            s.push_str("  (more warps omitted)\n");
        }
        s
    }

    /// Simulates one launch to completion.
    pub fn run_kernel(
        &mut self,
        src: &mut dyn WarpSource,
        stop: &AtomicBool,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<(), RunError> {
        let r = self.run_launch(src, stop, progress);
        // However the launch ended, dozing and sleeping SMs are charged their idle cycles
        // before anyone reads the statistics.
        self.settle_dozers();
        self.settle_sleepers();
        if r.is_ok() && self.cfg.l2.flush_between_launches {
            self.drain_memory();
        }
        r
    }

    /// Under `l2.flush_between_launches` the profiler's flush completes before the next kernel
    /// starts: the memory side finishes what the launch left in flight (write-backs queued for
    /// DRAM, requests and replies in the networks) in core cycles that are charged to no launch
    /// (their DRAM traffic counts for the launch that caused it). Bounded, in case a reply
    /// waits for an SM that does not run meanwhile.
    fn drain_memory(&mut self) {
        let start = self.cyc[CORE];
        while self.memory_busy() && self.cyc[CORE] - start < 1_000_000 {
            let t = *self.next.iter().min().expect("four domains");
            self.dram_l2_ticks_at(t);
            if self.next[ICNT] == t {
                self.icnt_tick();
                self.cyc[ICNT] += 1;
                self.next[ICNT] += self.period[ICNT];
            }
            if self.next[CORE] == t {
                self.cyc[CORE] += 1;
                self.next[CORE] += self.period[CORE];
            }
        }
        let now = self.cyc[CORE];
        self.uncharged += now - start;
        // Sleeping SMs are not charged idle cycles for the drain either.
        for since in self.asleep.iter_mut().flatten() {
            *since = (*since).max(now);
        }
    }

    fn run_launch(
        &mut self,
        src: &mut dyn WarpSource,
        stop: &AtomicBool,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<(), RunError> {
        let k: KernelInfo = src.kernel().clone();
        let total = k.num_ctas();
        if total == 0 {
            return Ok(());
        }
        SmState::check_fits(&self.cfg, &k)
            .map_err(|e| RunError::Source(SourceError::new(format!("kernel `{}`: {e}", k.name))))?;
        self.code_base = crate::mem::code::code_base(&k.name);
        self.launch += 1;
        self.l1d_launch = crate::mem::carveout::l1d_for(&self.cfg, &k);
        if self.cfg.l2.flush_between_launches {
            for sl in &mut self.mem.slices {
                sl.flush();
            }
        }
        for &s in &self.awake {
            self.sms[s as usize].start_kernel(self.code_base, (self.launch - 1) as u32);
            if let Some(c) = &self.l1d_launch {
                self.sms[s as usize].resize_l1d(c);
            }
            self.started[s as usize] = self.launch;
        }
        let start_cycle = self.cyc[CORE];
        // Launch latency: no CTA is dispatched before this core cycle.
        let dispatch_at = start_cycle
            + u64::from(self.cfg.core.launch_latency)
            + total * u64::from(self.cfg.core.cta_launch_latency);
        let start_insts = self.warp_insts();
        if self.cfg.sim.window > 1 {
            return self.run_windows(
                src,
                stop,
                progress,
                &k,
                dispatch_at,
                start_cycle,
                start_insts,
            );
        }
        let (mut next_cta, mut done) = (0u64, 0u64);
        let mut last_progress = self.cyc[CORE];
        let mut last_exit = self.cyc[CORE];
        let n_sm = self.sms.len();
        let mut cta_rr = 0usize;
        // GPU-wide dispatch throughput (`core.cta_dispatch_millicycles`): the earliest time,
        // in thousandths of a core cycle, at which the next CTA may be placed.
        let gap = u64::from(self.cfg.core.cta_dispatch_millicycles);
        let mut next_ok = 0u64;
        // The overlapped engine needs worker threads and interconnect ticks that coincide with
        // core ticks (see `Gpu::run_launch`'s loop).
        let can_overlap = self.team.is_some() && self.period[ICNT] == self.period[CORE];
        loop {
            let t = *self.next.iter().min().expect("four domains");
            // Overlapped engine (threads > 1): at a time when the core and the interconnect
            // both tick, only the two parts of the interconnect tick that an SM's core cycle
            // reads are done first: the request network's cycle (it drains the SMs' request
            // queues, whose occupancy the SMs check) and the ejection of the replies that have
            // arrived (they entered the reply network at least `icnt.latency` >= 1 cycles ago,
            // so nothing the rest of this tick does can add to them). The rest of the memory
            // side at this time (DRAM, L2, requests into the slices, the slices' replies into
            // the reply network, whose back-pressure still counts the ejected replies) touches
            // no SM and no SM reads it within the cycle, so it runs on the main thread while
            // the team steps the SMs (`Team::cycle`). Every component sees the same
            // inputs in the same order as in the sequential loop, so statistics are identical.
            let split = can_overlap
                && self.mem.port.is_none()
                && self.next[CORE] == t
                && self.next[ICNT] == t;
            if split {
                self.icnt_req();
                self.icnt_eject(true);
            } else {
                self.dram_l2_ticks_at(t);
                if self.next[ICNT] == t {
                    self.icnt_tick();
                    self.cyc[ICNT] += 1;
                    self.next[ICNT] += self.period[ICNT];
                }
                if self.next[CORE] != t {
                    continue;
                }
            }
            let now = self.cyc[CORE];
            // The memory side of time `t` still to run (split ticks only).
            let mut pending = split;
            if pending
                && self.cfg.sim.skip_idle
                && self
                    .awake
                    .iter()
                    .all(|&s| self.sms[s as usize].quiet_until(now).is_some())
            {
                // Idle skipping may apply, and it must see the whole memory side at `t`: finish
                // the ticks first (with an SM that is not quiet, `idle_span` is `None` whatever
                // the memory side holds).
                finish_ticks(
                    &mut self.mem,
                    &mut self.cyc,
                    &mut self.next,
                    &self.period,
                    t,
                );
                pending = false;
            }
            let skip = if !pending && self.cfg.sim.skip_idle && self.mem.port.is_none() {
                let cap = self.skip_cap(now, last_progress, last_exit, dispatch_at);
                self.idle_span(now, t, &k, next_cta < total && now >= dispatch_at, cap)
            } else {
                None
            };
            if let Some((n, t_stop)) = skip {
                self.skip_span(now, n, t_stop);
            } else {
                // Phase 1: dispatch (one CTA per SM per cycle, round robin).
                if next_cta < total && now >= dispatch_at {
                    // The rotation starts this cycle where the last placement left it; it must
                    // not move while the SMs are visited, or SMs are skipped.
                    let rr0 = cta_rr;
                    for i in 0..n_sm {
                        if next_cta >= total {
                            break;
                        }
                        let s = (rr0 + i) % n_sm;
                        if gap > 0 && next_ok > now * 1000 {
                            break;
                        }
                        if self.asleep[s].is_some() {
                            if !self.sms[s].can_take_cta(&k) {
                                continue;
                            }
                            self.wake(s, now);
                        }
                        if self.dozing[s].is_some() {
                            if !self.sms[s].can_take_cta(&k) {
                                continue;
                            }
                            self.undoze(s, now);
                        }
                        let placed = match self.sms[s].dispatch_cta(now, next_cta as u32, &k, src) {
                            Ok(p) => p,
                            Err(e) => {
                                // Leave the memory side where the sequential loop would.
                                if pending {
                                    finish_ticks(
                                        &mut self.mem,
                                        &mut self.cyc,
                                        &mut self.next,
                                        &self.period,
                                        t,
                                    );
                                }
                                return Err(e.into());
                            }
                        };
                        if placed {
                            if gap > 0 {
                                // No credit builds up while nothing is placed.
                                next_ok = next_ok.max(now * 1000) + gap;
                            }
                            next_cta += 1;
                            last_progress = now;
                            last_exit = now;
                            cta_rr = (s + 1) % n_sm;
                        }
                    }
                }
                // Phase 2: fetch in SM order on this thread, pipelines in parallel: each SM's
                // pipeline may start as soon as its own fetch is done. Dozing SMs are left out.
                self.plan_steps(now);
                match &mut self.team {
                    Some(team) => {
                        let (mem, cyc, next, period) =
                            (&mut self.mem, &mut self.cyc, &mut self.next, &self.period);
                        team.cycle(
                            &mut self.sms,
                            &self.stepping,
                            now,
                            |sm| sm.fetch(now, src),
                            || {
                                if pending {
                                    finish_ticks(mem, cyc, next, period, t);
                                }
                            },
                        )?
                    }
                    None => {
                        for &s in &self.stepping {
                            let sm: &mut SmState = &mut self.sms[s as usize];
                            sm.fetch(now, src)?;
                            sm.cycle(now);
                        }
                    }
                }
                // Phase 3: release finished CTAs, in SM order.
                for &i in &self.awake {
                    let s: &SmState = &self.sms[i as usize];
                    if s.progressed {
                        last_progress = now;
                    }
                    if s.exited_warp {
                        last_exit = now;
                    }
                }
                done += self.release_finished(src);
                // SMs left with nothing to do sleep from the next cycle on.
                self.sleep_idle(now + 1);
                self.cyc[CORE] += 1;
                self.next[CORE] += self.period[CORE];
            }
            if done == total {
                break;
            }
            if self.memory_busy() || self.cyc[CORE] <= dispatch_at {
                // The last core cycle stepped (or skipped), or waiting for the launch latency.
                last_progress = self.cyc[CORE] - 1;
            }
            if self.cyc[CORE] <= dispatch_at {
                last_exit = self.cyc[CORE] - 1;
            }
            let now = self.cyc[CORE];
            self.check_stuck(now, last_progress, last_exit)?;
            if now.is_multiple_of(4096) {
                self.poll(
                    &k.name,
                    now - start_cycle,
                    start_insts,
                    (done, total),
                    stop,
                    progress,
                )?;
            }
        }
        Ok(())
    }
}

/// The memory-side ticks at time `t` (femtoseconds) that follow the early part of a split
/// interconnect tick (`Gpu::icnt_req` and `Gpu::icnt_eject`): DRAM and L2 if they tick at `t`,
/// then the middle of the interconnect tick, in the sequential loop's order; advances those
/// domains' clocks.
fn finish_ticks(mem: &mut Mem, cyc: &mut [u64; 4], next: &mut [u64; 4], period: &[u64; 4], t: u64) {
    dram_l2_ticks(mem, cyc, next, period, t);
    mem.icnt_mid(cyc[ICNT], cyc[L2]);
    cyc[ICNT] += 1;
    next[ICNT] += period[ICNT];
}

/// Why a launch stopped early.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The front end failed (functional fault, bad trace, kernel too large for an SM).
    #[error(transparent)]
    Source(#[from] SourceError),
    /// Deadlock or livelock, with a diagnosis naming SM, warp, PC and what it waits for.
    #[error("{0}")]
    Stuck(String),
    /// The stop flag was raised (Ctrl-C).
    #[error("interrupted")]
    Interrupted,
}

type ProgressFn = Box<dyn FnMut(&Progress) + Send>;

/// The [`KernelRunner`] of the timing model: owns a [`Gpu`] and collects per-kernel statistics.
pub struct TimingRunner {
    gpu: Gpu,
    kernels: Vec<KernelStats>,
    raw: Vec<Totals>,
    check: String,
    stop: Arc<AtomicBool>,
    progress: Option<ProgressFn>,
    sim_seconds: f64,
    sim_cpu_seconds: f64,
    threads: usize,
}

/// CPU time (user + system) of the calling thread, seconds, from `/proc/thread-self/stat`
/// (Linux; 10 ms resolution); `None` where it cannot be read.
fn thread_cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    // Fields after the command name (which may hold spaces) end with ") ".
    let rest = &s[s.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    let ticks = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

impl TimingRunner {
    /// A runner for `cfg` stepping SMs on `threads` threads (statistics do not depend on it).
    pub fn new(cfg: GpuConfig, threads: usize) -> Self {
        Self {
            gpu: Gpu::new(cfg, threads),
            kernels: Vec::new(),
            raw: Vec::new(),
            check: "none".into(),
            stop: Arc::new(AtomicBool::new(false)),
            progress: None,
            sim_seconds: 0.0,
            sim_cpu_seconds: 0.0,
            threads: threads.max(1),
        }
    }

    /// Threads stepping the SMs (as asked at construction, at least 1).
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// `--threads auto`: lets a team of two run the window engine's windows on one thread
    /// while the host keeps the two threads far apart or the other core busy, judged by a
    /// cache-line ping-pong every 100 ms (`placement.rs`; docs/PERFORMANCE.md, "Session 21:
    /// auto"). Statistics do not change. Without a team of two, nothing changes.
    pub fn set_adaptive_team(&mut self, on: bool) {
        self.gpu.set_adaptive_team(on);
    }

    /// What the adaptive team did (windows as a team and alone, the probes' latencies), if
    /// [`TimingRunner::set_adaptive_team`] applied.
    pub fn team_report(&self) -> Option<crate::TeamReport> {
        self.gpu.team_report()
    }

    /// The simulated GPU (to install a memory port or SM probes before running).
    pub fn gpu_mut(&mut self) -> &mut Gpu {
        &mut self.gpu
    }

    /// The configuration.
    pub fn config(&self) -> &GpuConfig {
        self.gpu.config()
    }

    /// Raising this flag stops the running launch at the next check (every 4096 core cycles);
    /// the statistics so far are kept and the launch returns an "interrupted" error.
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// Installs a progress callback.
    pub fn set_progress(&mut self, f: impl FnMut(&Progress) + Send + 'static) {
        self.progress = Some(Box::new(f));
    }

    /// Records the workload's output check (`passed`, `failed` or `none`) in the statistics.
    pub fn set_check(&mut self, check: &str) {
        self.check = check.to_string();
        for k in &mut self.kernels {
            k.check = check.to_string();
        }
    }

    /// Core cycles that whole-GPU idle skipping accounted in bulk instead of stepping.
    pub fn skipped_core_cycles(&self) -> u64 {
        self.gpu.skipped_core_cycles()
    }

    /// Wall-clock seconds spent inside [`KernelRunner::run_kernel`] (simulation including the
    /// functional execution of the front end, excluding the host program).
    pub fn sim_seconds(&self) -> f64 {
        self.sim_seconds
    }

    /// CPU seconds of the thread that called [`KernelRunner::run_kernel`], spent inside it
    /// (Linux, 10 ms resolution; 0 elsewhere). With one thread this is the simulation's CPU
    /// time, which unlike wall time does not grow when other programs share the cores.
    pub fn sim_cpu_seconds(&self) -> f64 {
        self.sim_cpu_seconds
    }

    /// Per-launch statistics so far.
    pub fn kernels(&self) -> &[KernelStats] {
        &self.kernels
    }

    /// Every launch and the total.
    pub fn stats(&self) -> RunStats {
        let mut sum = Totals::default();
        for r in &self.raw {
            sum.add(r);
        }
        let c = self.gpu.config();
        let mut total = KernelStats::from_totals(&sum, c.core.num_sms, c.core.max_warps);
        total.kernel = "total".into();
        total.check = self.check.clone();
        total.interrupted = self.kernels.iter().any(|k| k.interrupted);
        RunStats {
            config: c.name.clone(),
            kernels: self.kernels.clone(),
            total,
        }
    }

    /// [`TimingRunner::stats`] as JSON.
    pub fn stats_json(&self) -> serde_json::Value {
        serde_json::to_value(self.stats()).expect("stats serialise")
    }

    /// A readable summary of every launch and the total.
    pub fn summary(&self) -> String {
        let s = self.stats();
        let mut out = String::new();
        for k in &s.kernels {
            out.push_str(&k.summary());
            out.push('\n');
        }
        if s.kernels.len() != 1 {
            out.push_str(&s.total.summary());
            out.push('\n');
        }
        out
    }
}

impl KernelRunner for TimingRunner {
    fn run_kernel(&mut self, source: &mut dyn WarpSource) -> Result<(), SourceError> {
        let before = self.gpu.totals();
        let info = source.kernel().clone();
        let mut noop = |_: &Progress| {};
        let progress: &mut dyn FnMut(&Progress) = match &mut self.progress {
            Some(f) => f.as_mut(),
            None => &mut noop,
        };
        let t0 = std::time::Instant::now();
        let c0 = thread_cpu_seconds();
        let r = self.gpu.run_kernel(source, &self.stop, progress);
        self.sim_seconds += t0.elapsed().as_secs_f64();
        if let (Some(a), Some(b)) = (c0, thread_cpu_seconds()) {
            self.sim_cpu_seconds += b - a;
        }
        let raw = self.gpu.totals().sub(&before);
        let c = self.gpu.config();
        let mut ks = KernelStats::from_totals(&raw, c.core.num_sms, c.core.max_warps);
        ks.kernel = info.name.clone();
        ks.grid = info.grid.to_string();
        ks.block = info.block.to_string();
        ks.check = self.check.clone();
        ks.interrupted = matches!(r, Err(RunError::Interrupted));
        ks.warp_times = self.gpu.take_warp_times();
        self.kernels.push(ks);
        self.raw.push(raw);
        r.map_err(|e| match e {
            RunError::Source(s) => s,
            RunError::Stuck(d) => SourceError::new(format!("kernel `{}`: {d}", info.name)),
            RunError::Interrupted => {
                SourceError::new(format!("kernel `{}`: interrupted", info.name))
            }
        })
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}
