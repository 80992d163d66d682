//! UV (Uniform Vector, Xiang et al. ICS'13, as document 003 §5.6 describes it): an instruction
//! reuse buffer at issue. A non-memory instruction whose sources are all uniform scalars (the
//! front end's `UV` hint) is still fetched, decoded and issued, but when an earlier warp of the
//! TB already executed the same dynamic instance its result is reused: no operand read, no
//! execution unit, the destination is ready the next cycle. The first warp executes it.

use std::collections::HashMap;

use super::{full_mask, ElimCounters, Eliminator, Instances};
use crate::config::ElimConfig;
use warpforge_core::{hint, DynInst};

#[derive(Default)]
struct Tb {
    warps: u32,
    inst: Instances,
    seen: HashMap<(u32, u32), u32>,
}

struct Uv {
    tbs: Vec<Tb>,
    c: ElimCounters,
}

pub(super) fn new(_: &ElimConfig) -> Box<dyn Eliminator> {
    Box::new(Uv {
        tbs: Vec::new(),
        c: ElimCounters::default(),
    })
}

impl Eliminator for Uv {
    fn cta_started(&mut self, cta_slot: usize, warps: u32) {
        if self.tbs.len() <= cta_slot {
            self.tbs.resize_with(cta_slot + 1, Tb::default);
        }
        let t = &mut self.tbs[cta_slot];
        t.warps = warps;
        t.inst.reset(warps);
        t.seen.clear();
    }
    fn at_issue(&mut self, cta_slot: usize, warp: u32, inst: &DynInst) -> bool {
        if inst.hints & hint::UV == 0 || !full_mask(inst) {
            return false;
        }
        let t = &mut self.tbs[cta_slot];
        let n = t.inst.arrive(warp, inst.static_idx);
        let key = (inst.static_idx, n);
        let seen = t.seen.entry(key).or_insert(0);
        *seen += 1;
        let first = *seen == 1;
        if *seen >= t.warps {
            t.seen.remove(&key);
        }
        if first {
            self.c.leaders += 1;
        }
        !first
    }
    fn stats(&self) -> ElimCounters {
        self.c
    }
}
