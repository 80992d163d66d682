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
/// `limit` bounds the warp instructions of the launch (`u64::MAX`: none); past it the launch
/// stops with an error naming the CTA and the warps' pcs (a livelock, or a spin-wait on another
/// CTA, which cannot finish because functional mode runs CTAs one after another).
pub fn run_functional(
    env: &mut Env,
    mut obs: Option<&mut dyn InstObserver>,
    limit: u64,
) -> Result<LaunchStats, SimtError> {
    let mut cta = Cta::default();
    let mut stats = LaunchStats::default();
    let n = env.grid.size();
    let mut di = DynInst::default();
    for id in 0..n {
        env.init_cta(&mut cta, id as u32, (id % env.nsm as u64) as u32);
        let budget = limit.saturating_sub(stats.warp_insts);
        match obs.as_deref_mut() {
            Some(o) => run_cta::<true>(env, &mut cta, &mut di, Some(o), budget)?,
            None => run_cta::<false>(env, &mut cta, &mut di, None, budget)?,
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
) -> Result<(), SimtError> {
    let nw = cta.warps.len();
    loop {
        let used: u64 = cta.warps.iter().map(|w| w.executed).sum();
        if used > budget {
            return Err(SimtError::Exec(limit_report(env, cta)));
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

/// Describes a CTA stopped by the instruction limit.
fn limit_report(env: &Env, cta: &Cta) -> String {
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
    format!(
        "{}: kernel `{}`, CTA {}: stopped at the warp-instruction limit; a livelock, or a spin-wait \
         on another CTA (functional mode runs CTAs one after another); {}",
        code.file,
        code.name,
        cta.idx,
        pcs.join(", ")
    )
}
