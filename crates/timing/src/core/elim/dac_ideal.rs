//! DAC-IDEAL (Decoupled Affine Computation, Wang & Lin ISCA'17, idealised as in document 003
//! §5.6): every instruction whose result is uniform or affine in the thread index (the front
//! end's `DAC_WIDE`/`DAC_NARROW` hints, chosen by the launch's TB shape) executes once per TB
//! (the first warp to reach each dynamic instance); every other warp skips it at fetch without
//! waiting (synchronisation between the affine and the vector stream is free). Loads from
//! affine addresses (unstructured data) are never removed.

use std::collections::HashMap;

use super::{full_mask, At, ElimCounters, Eliminator, Fetch, Instances};
use crate::config::ElimConfig;
use warpforge_core::{hint, DynInst, KernelInfo};

#[derive(Default)]
struct Tb {
    warps: u32,
    inst: Instances,
    /// (static index, instance) -> warps that reached it.
    seen: HashMap<(u32, u32), u32>,
}

struct DacIdeal {
    bit: u8,
    tbs: Vec<Tb>,
    c: ElimCounters,
}

pub(super) fn new(_: &ElimConfig) -> Box<dyn Eliminator> {
    Box::new(DacIdeal {
        bit: hint::DAC_WIDE,
        tbs: Vec::new(),
        c: ElimCounters::default(),
    })
}

/// Whether warps of a TB of shape `b` hold whole runs of consecutive `%tid.x` (1D TBs, or a
/// width that is a multiple of the warp size), so `%tid` is affine within each warp.
pub(super) fn wide(k: &KernelInfo) -> bool {
    let b = k.block;
    (b.y == 1 && b.z == 1) || b.x.is_multiple_of(32)
}

impl Eliminator for DacIdeal {
    fn start_kernel(&mut self, k: &KernelInfo) {
        self.bit = if wide(k) {
            hint::DAC_WIDE
        } else {
            hint::DAC_NARROW
        };
    }
    fn cta_started(&mut self, cta_slot: usize, warps: u32) {
        if self.tbs.len() <= cta_slot {
            self.tbs.resize_with(cta_slot + 1, Tb::default);
        }
        let t = &mut self.tbs[cta_slot];
        t.warps = warps;
        t.inst.reset(warps);
        t.seen.clear();
    }
    fn fetched(&mut self, at: &At, inst: &DynInst) -> Fetch {
        if inst.hints & self.bit == 0 || !full_mask(inst) {
            return Fetch::Keep;
        }
        let t = &mut self.tbs[at.cta_slot];
        let n = t.inst.arrive(at.warp, inst.static_idx);
        let key = (inst.static_idx, n);
        let seen = t.seen.entry(key).or_insert(0);
        *seen += 1;
        let first = *seen == 1;
        if *seen >= t.warps {
            t.seen.remove(&key);
        }
        if first {
            self.c.leaders += 1;
            Fetch::Keep
        } else {
            Fetch::Skip
        }
    }
    fn stats(&self) -> ElimCounters {
        self.c
    }
}
