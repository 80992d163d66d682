//! An SM whose state is built when it first gets work (issue 20 item 4: idle hardware costs
//! nothing). With `sim.skip_idle` an SM with no CTA sleeps: nothing steps it, and the only
//! things that happen to it are idle cycles charged in bulk ([`SmState::skip_cycles`], which for
//! an empty SM counts `core.schedulers` idle scheduler cycles per core cycle and turns the
//! collector round robin) and, when it wakes, the catch-up with the current launch. An [`Sm`]
//! therefore holds no [`SmState`] (caches, warp and collector slots, CPL tables, load trackers:
//! ~56 KB with gtx480's geometry) until its first CTA: it only counts the idle cycles charged
//! to it, and [`Sm::build`] replays them on the new state in one call, which leaves it exactly
//! as charging them one span at a time would have (both counts are sums). The SMs that never
//! get a CTA cost a few bytes each.
//!
//! The queries the engines ask of sleeping SMs ([`Sm::busy`], [`Sm::can_take_cta`],
//! [`Sm::quiet_until`], [`Sm::skip_cycles`], [`Sm::has_probe`], ...) are answered here for an
//! SM not yet built; everything else reaches the state through `Deref`, which an SM not yet
//! built does not have (a panic names the misuse).

use super::SmState;
use crate::config::GpuConfig;
use crate::core::probe::SmProbe;
use crate::dram::addrmap::AddrMap;
use std::ops::{Deref, DerefMut};
use warpforge_core::KernelInfo;

/// One SM of the GPU: its state, or (before its first CTA, `sim.skip_idle` only) the idle
/// core cycles charged to it.
pub struct Sm {
    state: Option<Box<SmState>>,
    /// Core cycles charged ([`Sm::skip_cycles`]) while not built.
    idle: u64,
    /// `core.schedulers`.
    n_sched: u64,
    /// A criticality observer installed while not built.
    probe: Option<Box<dyn SmProbe>>,
}

impl Sm {
    /// SM `id` of `cfg`, built now.
    pub fn new(id: u16, cfg: &GpuConfig, map: AddrMap) -> Self {
        Self {
            state: Some(Box::new(SmState::new(id, cfg, map))),
            idle: 0,
            n_sched: u64::from(cfg.core.schedulers),
            probe: None,
        }
    }

    /// An SM of `cfg` built at its first CTA ([`Sm::build`]). Only with `sim.skip_idle`: an SM
    /// that is not built is empty and asleep, and is never stepped.
    pub fn unbuilt(cfg: &GpuConfig) -> Self {
        debug_assert!(
            cfg.sim.skip_idle,
            "an SM is built lazily only with sim.skip_idle"
        );
        Self {
            state: None,
            idle: 0,
            n_sched: u64::from(cfg.core.schedulers),
            probe: None,
        }
    }

    /// Whether the state has been built.
    pub fn is_built(&self) -> bool {
        self.state.is_some()
    }

    /// The state, if built.
    pub fn state(&self) -> Option<&SmState> {
        self.state.as_deref()
    }

    /// The state, if built.
    pub fn state_mut(&mut self) -> Option<&mut SmState> {
        self.state.as_deref_mut()
    }

    /// Builds the state of SM `id` (if not built yet) as [`SmState::new`] would have built it
    /// with the machine, then charged the idle cycles counted since: both counters that an
    /// empty SM's idle cycles move are sums, so one charge of all of them is exact.
    pub fn build(&mut self, id: u16, cfg: &GpuConfig, map: &AddrMap) {
        if self.state.is_some() {
            return;
        }
        let mut s = Box::new(SmState::new(id, cfg, map.clone()));
        if self.idle > 0 {
            s.skip_cycles(0, self.idle);
        }
        if let Some(p) = self.probe.take() {
            s.set_probe(p);
        }
        self.state = Some(s);
    }

    /// Whether the SM holds any CTA.
    pub fn has_work(&self) -> bool {
        self.state.as_ref().is_some_and(|s| s.has_work())
    }

    /// Whether anything is in flight ([`SmState::busy`]; never, before the first CTA).
    pub fn busy(&self) -> bool {
        self.state.as_ref().is_some_and(|s| s.busy())
    }

    /// [`SmState::can_take_cta`]: an SM not built is empty, and a CTA of a launch fits an
    /// empty SM ([`SmState::check_fits`], checked at the launch's start).
    pub fn can_take_cta(&self, k: &KernelInfo) -> bool {
        self.state.as_ref().is_none_or(|s| s.can_take_cta(k))
    }

    /// [`SmState::quiet_until`]: an SM not built is empty and asleep, quiet until a CTA or a
    /// reply reaches it (`u64::MAX`).
    pub fn quiet_until(&self, now: u64) -> Option<u64> {
        match &self.state {
            Some(s) => s.quiet_until(now),
            None => Some(u64::MAX),
        }
    }

    /// [`SmState::skip_cycles`]; an SM not built counts them for [`Sm::build`].
    pub fn skip_cycles(&mut self, now: u64, n: u64) {
        match &mut self.state {
            Some(s) => s.skip_cycles(now, n),
            None => self.idle += n,
        }
    }

    /// [`SmState::set_out_cap`]; nothing for an SM not built (it is built with the full room,
    /// `icnt.input_buffer`).
    pub fn set_out_cap(&mut self, cap: usize) {
        if let Some(s) = &mut self.state {
            s.set_out_cap(cap);
        }
    }

    /// Whether a criticality observer is installed.
    pub fn has_probe(&self) -> bool {
        match &self.state {
            Some(s) => s.has_probe(),
            None => self.probe.is_some(),
        }
    }

    /// Installs a criticality observer ([`crate::core::probe`]); an SM not built keeps it
    /// for its state.
    pub fn set_probe(&mut self, p: Box<dyn SmProbe>) {
        match &mut self.state {
            Some(s) => s.set_probe(p),
            None => self.probe = Some(p),
        }
    }

    /// The idle scheduler cycles (`StallStats::idle`) of an SM not built: each charged core
    /// cycle counts one per scheduler, as [`SmState::skip_cycles`] counts them for an empty
    /// SM. 0 once built (the state counts them).
    pub fn unbuilt_idle_stalls(&self) -> u64 {
        if self.state.is_some() {
            0
        } else {
            self.n_sched * self.idle
        }
    }
}

impl Deref for Sm {
    type Target = SmState;

    #[inline]
    fn deref(&self) -> &SmState {
        self.state
            .as_deref()
            .expect("SM state read before the SM was built (Sm::build)")
    }
}

impl DerefMut for Sm {
    #[inline]
    fn deref_mut(&mut self) -> &mut SmState {
        self.state
            .as_deref_mut()
            .expect("SM state changed before the SM was built (Sm::build)")
    }
}
