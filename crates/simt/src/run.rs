//! Functional execution of a whole launch: CTAs in linear order, each CTA's warps round-robin.
//!
//! A warp runs until it waits at a barrier, exits, or has executed [`QUANTUM`] instructions, then
//! the next warp of the CTA runs. The order is fixed, so results (including the order of atomics)
//! are deterministic. When every live warp of a CTA waits at a barrier that cannot complete, the
//! launch stops with a deadlock report naming kernel, CTA, barrier and PC.

use warpforge_core::{DynInst, InstObserver};

use crate::exec::{step, Cta, Env, Flow};
use crate::program::PC_STRIDE;
use crate::SimtError;

/// Instructions a warp runs before the next warp of its CTA gets a turn (keeps spin-waits on
/// other warps of the same CTA from hanging).
pub const QUANTUM: u32 = 4096;

/// Default bound of the endless-kernel guard: warp instructions a CTA may execute without
/// forward progress (a warp exiting, or a store or atomic with an active lane) before the
/// functional launch stops. 2^28: about 5 s of a spinning warp, far above what any CTA of
/// the built-in workloads executes between two stores at paper size.
pub const DEFAULT_STALL_LIMIT: u64 = 1 << 28;

/// Bounds of a functional launch (`u64::MAX`: none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Warp instructions of the whole launch (`--max-warp-insts`).
    pub insts: u64,
    /// Warp instructions of one CTA without forward progress (the endless-kernel guard).
    pub stall: u64,
}

static STALL_DEFAULT: std::sync::atomic::AtomicU64 =
    std::sync::atomic::AtomicU64::new(DEFAULT_STALL_LIMIT);

/// Sets the stall bound of devices created from now on in this process (`None`: no guard);
/// a command-line flag uses it to reach every device a command creates.
pub fn set_default_stall_limit(limit: Option<u64>) {
    STALL_DEFAULT.store(
        limit.unwrap_or(u64::MAX),
        std::sync::atomic::Ordering::Relaxed,
    );
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            insts: u64::MAX,
            stall: STALL_DEFAULT.load(std::sync::atomic::Ordering::Relaxed),
        }
    }
}

/// Instruction counts of a launch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LaunchStats {
    /// Warp instructions executed (issued, including fully predicated-off ones).
    pub warp_insts: u64,
    /// Thread instructions executed (active lanes summed over warp instructions).
    pub thread_insts: u64,
    /// CTAs run.
    pub ctas: u64,
}

impl LaunchStats {
    pub(crate) fn add_cta(&mut self, cta: &Cta) {
        for w in &cta.warps {
            self.warp_insts += w.executed;
            self.thread_insts += w.thread_insts;
        }
        self.ctas += 1;
    }
}

/// Runs every CTA of the launch functionally.
///
/// `limits.insts` bounds the warp instructions of the launch; past it the launch stops with an
/// error naming the CTA and the warps' pcs (a livelock, or a spin-wait on another CTA, which
/// cannot finish because functional mode runs CTAs one after another). `limits.stall` bounds
/// the warp instructions a CTA executes without forward progress (no warp exits, no store or
/// atomic executes): an endless kernel stops with an error naming kernel, CTA, warps and pcs.
pub fn run_functional(
    env: &mut Env,
    mut obs: Option<&mut dyn InstObserver>,
    limits: Limits,
) -> Result<LaunchStats, SimtError> {
    let limit = limits.insts;
    let mut cta = Cta::default();
    let mut stats = LaunchStats::default();
    let n = env.grid.size();
    let mut di = DynInst::default();
    for id in 0..n {
        env.init_cta(&mut cta, id as u32, (id % env.nsm as u64) as u32);
        let budget = limit.saturating_sub(stats.warp_insts);
        match obs.as_deref_mut() {
            Some(o) => run_cta::<true>(env, &mut cta, &mut di, Some(o), budget, limits.stall)?,
            None => run_cta::<false>(env, &mut cta, &mut di, None, budget, limits.stall)?,
        }
        stats.add_cta(&cta);
    }
    Ok(stats)
}

fn run_cta<const TRACE: bool>(
    env: &mut Env,
    cta: &mut Cta,
    di: &mut DynInst,
    mut obs: Option<&mut dyn InstObserver>,
    budget: u64,
    stall: u64,
) -> Result<(), SimtError> {
    let nw = cta.warps.len();
    // Forward progress: (live warps, writes) changes; `since` = instructions at the last change.
    let mut mark = (u32::MAX, u64::MAX);
    let mut since = 0u64;
    loop {
        let used: u64 = cta.warps.iter().map(|w| w.executed).sum();
        if used > budget {
            return Err(SimtError::Exec(limit_report(env, cta)));
        }
        let now = (
            cta.live_warps,
            cta.warps.iter().map(|w| w.writes).sum::<u64>(),
        );
        if now != mark {
            mark = now;
            since = used;
        } else if used - since > stall {
            return Err(SimtError::Exec(stall_report(env, cta, used - since)));
        }
        let mut ran = false;
        let mut live = false;
        for wi in 0..nw {
            {
                let w = &cta.warps[wi];
                if w.stack.is_empty() {
                    continue;
                }
                live = true;
                if w.waiting.is_some() {
                    continue;
                }
            }
            ran = true;
            for _ in 0..QUANTUM {
                let f = step::<TRACE>(env, cta, wi, di)
                    .map_err(|f| SimtError::Exec(env.describe(cta, &f)))?;
                if TRACE {
                    if let Some(o) = obs.as_deref_mut() {
                        o.on_inst(cta.id, wi as u32, di);
                        if o.wants_values() {
                            let regs = &cta.warps[wi].regs;
                            let mut vals = [[0u64; 32]; warpforge_core::MAX_DST];
                            let n = di.n_dst as usize;
                            for (v, &d) in vals.iter_mut().zip(di.dsts()) {
                                *v = regs.row(env.code.phys[d as usize]);
                            }
                            o.on_values(cta.id, wi as u32, di, &vals[..n]);
                        }
                    }
                }
                if f != Flow::Go {
                    break;
                }
                if cta.warps[wi].waiting.is_some() {
                    break;
                }
            }
        }
        if !live {
            return Ok(());
        }
        if !ran {
            return Err(SimtError::Exec(deadlock_report(env, cta)));
        }
    }
}

/// Describes a CTA whose live warps all wait at barriers that cannot complete.
pub fn deadlock_report(env: &Env, cta: &Cta) -> String {
    let code = env.code;
    let mut parts = Vec::new();
    for (id, b) in cta.bars.iter().enumerate() {
        if b.waiters == 0 {
            continue;
        }
        let need = if b.expected == 0 {
            cta.live_warps * 32
        } else {
            b.expected
        };
        parts.push(format!(
            "barrier {id} at pc 0x{:x} (line {}): {} of {} threads arrived, waiting warps {:?}",
            b.pc as u64 * PC_STRIDE,
            code.line(b.pc),
            b.arrived,
            need,
            (0..64)
                .filter(|w| b.waiters >> w & 1 == 1)
                .collect::<Vec<_>>()
        ));
    }
    let first_pc = cta.bars.iter().find(|b| b.waiters != 0).map_or(0, |b| b.pc);
    format!(
        "{}:{}: kernel `{}`, CTA {}: deadlock: every live warp waits at a barrier that can never complete ({} of {} warps exited); {}",
        code.file,
        code.line(first_pc),
        code.name,
        cta.idx,
        cta.warps.len() as u32 - cta.live_warps,
        cta.warps.len(),
        parts.join("; ")
    )
}

/// Describes a CTA stopped by the endless-kernel guard after `n` instructions without progress.
fn stall_report(env: &Env, cta: &Cta, n: u64) -> String {
    let code = env.code;
    let first = cta
        .warps
        .iter()
        .find_map(|w| w.stack.last())
        .map_or(0, |e| e.pc);
    format!(
        "{}:{}: kernel `{}`, CTA {}: no forward progress (no warp exited, no store or atomic) \
         in {n} warp instructions: an endless loop, or a spin-wait on another CTA (functional \
         mode runs CTAs one after another); {} (raise or lift the bound with --stall-limit)",
        code.file,
        code.line(first),
        code.name,
        cta.idx,
        warp_pcs(env, cta)
    )
}

/// `warp W at pc 0x.. (line L)` for the first live warps of `cta`.
fn warp_pcs(env: &Env, cta: &Cta) -> String {
    let code = env.code;
    let pcs: Vec<String> = cta
        .warps
        .iter()
        .enumerate()
        .filter_map(|(i, w)| {
            w.stack.last().map(|e| {
                format!(
                    "warp {i} at pc 0x{:x} (line {})",
                    e.pc as u64 * PC_STRIDE,
                    code.line(e.pc)
                )
            })
        })
        .take(8)
        .collect();
    pcs.join(", ")
}

/// Describes a CTA stopped by the instruction limit.
fn limit_report(env: &Env, cta: &Cta) -> String {
    let code = env.code;
    format!(
        "{}: kernel `{}`, CTA {}: stopped at the warp-instruction limit; a livelock, or a spin-wait \
         on another CTA (functional mode runs CTAs one after another); {}",
        code.file,
        code.name,
        cta.idx,
        warp_pcs(env, cta)
    )
}
