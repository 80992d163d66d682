//! [`WarpSource`] over the functional executor: the timing model pulls one warp instruction at a
//! time and the instruction is executed functionally at that moment, so memory effects happen in
//! the timing model's issue order.
//!
//! The source never blocks: `bar.sync` is returned as an instruction (class `Barrier`, with its
//! id and thread count) and the timing model holds the warp until its CTA has arrived. The
//! executor's own barrier bookkeeping still runs, only to deliver `bar.red` results to the
//! waiting warps when the last one arrives. Exited warps report `WarpStep::Done`; the last
//! instruction of a warp has `warp_exits` set.

use warpforge_core::{
    DynInst, InstObserver, KernelInfo, SourceError, WarpSource, WarpStep, WindowFronts,
};

use crate::exec::{step, Cta, Env, Flow};
use crate::run::LaunchStats;

mod window;

/// No slot (a CTA not running).
const NONE: u32 = u32::MAX;

/// The observer borrowed for the duration of one launch.
struct ObsRef<'o>(Option<&'o mut dyn InstObserver>);

// SAFETY: `WarpSource` must be `Send`, `InstObserver` is not required to be. The source lives on
// the stack of `Device::launch` and is handed to the runner as `&mut dyn WarpSource` for the
// duration of one synchronous `run_kernel` call; every access to the observer goes through that
// exclusive borrow, so calls are never concurrent. A runner that moves the source to another
// thread (only possible with scoped threads inside `run_kernel`) would call a non-`Send`
// observer from that thread; observers used with such runners must be thread-agnostic, which the
// observers of this workspace are (plain data, no `Rc`/thread-locals).
unsafe impl Send for ObsRef<'_> {}

/// A launch seen one warp instruction at a time.
pub struct ExecSource<'a, 'o> {
    env: Env<'a>,
    info: KernelInfo,
    /// Running CTAs, in slots (`None`: a free slot, listed in `free`).
    live: Vec<Option<Cta>>,
    free: Vec<u32>,
    /// Per linear CTA id started so far: its slot in `live` (`NONE` when not running). A
    /// direct index, because `next` looks the CTA up for every warp instruction.
    index: Vec<u32>,
    pool: Vec<Cta>,
    obs: ObsRef<'o>,
    stats: LaunchStats,
    /// Window mode (per-SM front ends), once asked for ([`WarpSource::window_fronts`]).
    win: Option<Box<window::Win>>,
}

impl<'a, 'o> ExecSource<'a, 'o> {
    /// Wraps a prepared launch.
    pub fn new(env: Env<'a>, info: KernelInfo, obs: Option<&'o mut dyn InstObserver>) -> Self {
        Self {
            env,
            info,
            live: Vec::new(),
            free: Vec::new(),
            index: Vec::new(),
            pool: Vec::new(),
            obs: ObsRef(obs),
            stats: LaunchStats::default(),
            win: None,
        }
    }

    /// Instruction counts of the CTAs finished so far plus those still running.
    pub fn stats(&self) -> LaunchStats {
        let mut s = self.stats;
        for c in self.live.iter().flatten() {
            for w in &c.warps {
                s.warp_insts += w.executed;
                s.thread_insts += w.thread_insts;
            }
        }
        s
    }
}

impl WarpSource for ExecSource<'_, '_> {
    fn kernel(&self) -> &KernelInfo {
        &self.info
    }

    fn start_cta(&mut self, cta: u32, sm: u32) -> Result<u32, SourceError> {
        if cta as u64 >= self.info.grid.size() {
            return Err(SourceError::new(format!(
                "kernel `{}`: start_cta({cta}) but the grid {} has {} CTAs",
                self.info.name,
                self.info.grid,
                self.info.grid.size()
            )));
        }
        let i = cta as usize;
        if self.index.len() <= i {
            self.index.resize(i + 1, NONE);
        }
        if self.index[i] != NONE {
            return Err(SourceError::new(format!(
                "kernel `{}`: CTA {cta} started twice",
                self.info.name
            )));
        }
        let mut c = self.pool.pop().unwrap_or_default();
        self.env.init_cta(&mut c, cta, sm);
        let n = c.warps.len() as u32;
        let slot = match self.free.pop() {
            Some(k) => {
                self.live[k as usize] = Some(c);
                k
            }
            None => {
                self.live.push(Some(c));
                (self.live.len() - 1) as u32
            }
        };
        self.index[i] = slot;
        if let Some(w) = &mut self.win {
            w.dirty = true;
        }
        Ok(n)
    }

    fn next(&mut self, cta: u32, warp: u32, out: &mut DynInst) -> Result<WarpStep, SourceError> {
        let slot = self.index.get(cta as usize).copied().unwrap_or(NONE);
        let Some(c) = self.live.get_mut(slot as usize).and_then(Option::as_mut) else {
            return Err(SourceError::new(format!(
                "kernel `{}`: next() for CTA {cta}, which is not running",
                self.info.name
            )));
        };
        let Some(w) = c.warps.get_mut(warp as usize) else {
            return Err(SourceError::new(format!(
                "kernel `{}`: CTA {cta} has no warp {warp}",
                self.info.name
            )));
        };
        if w.stack.is_empty() {
            return Ok(WarpStep::Done);
        }
        // The timing model enforces barriers; a fetched warp is past any barrier it waited at.
        w.waiting = None;
        let f = step::<true>(&mut self.env, c, warp as usize, out)
            .map_err(|f| SourceError::new(self.env.describe(c, &f)))?;
        if f == Flow::Exited {
            out.warp_exits = true;
        }
        if let Some(o) = self.obs.0.as_deref_mut() {
            o.on_inst(cta, warp, out);
        }
        Ok(WarpStep::Inst)
    }

    fn finish_cta(&mut self, cta: u32) {
        let Some(slot) = self.index.get_mut(cta as usize) else {
            return;
        };
        let k = std::mem::replace(slot, NONE);
        if let Some(c) = self.live.get_mut(k as usize).and_then(Option::take) {
            self.stats.add_cta(&c);
            self.pool.push(c);
            self.free.push(k);
            if let Some(w) = &mut self.win {
                w.dirty = true;
            }
        }
    }

    fn window_fronts(&mut self, sms: u32) -> Option<&mut dyn WindowFronts> {
        self.open_window(sms)
    }
}
