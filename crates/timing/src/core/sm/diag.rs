//! Deadlock / livelock diagnosis of an SM: what every live warp waits for.

use super::*;

impl SmState {
    /// Describes every live warp and what it waits for (deadlock / livelock diagnosis).
    pub fn diagnose(&self, now: u64, out: &mut String, limit: &mut usize) {
        use std::fmt::Write;
        let mut m = self.used_warps;
        while m != 0 && *limit > 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            let wp = &self.warps[w];
            let c = &self.ctas[wp.cta_slot as usize];
            let what = if wp.at_barrier {
                let n = c.warps.count_ones();
                format!("barrier ({} of {} warps arrived)", c.arrived, n)
            } else if wp.exited() {
                format!("end of CTA ({} instructions in flight)", wp.inflight)
            } else if wp.len == 0 {
                if wp.branch_pending {
                    "branch resolution".to_string()
                } else if wp.fetch_barrier {
                    "barrier release before fetching on".to_string()
                } else {
                    "instruction fetch".to_string()
                }
            } else {
                let inst = &wp.ibuf[wp.head as usize];
                match wp.sb.hazard(inst) {
                    Some(r) if wp.pending_loads > 0 => {
                        format!("register r{r} (a memory load in flight)")
                    }
                    Some(r) => format!("register r{r} (an ALU result)"),
                    None if wp.imiss.is_some() && wp.len == 1 => {
                        "an instruction-cache fill from L2".to_string()
                    }
                    None if wp.refetch && wp.len == 1 => "re-fetch after an L1I fill".to_string(),
                    None if wp.ready_at[wp.head as usize] > now => "decode".to_string(),
                    None => format!("a free {:?} unit", self.unit_of(inst.class)),
                }
            };
            let pc = if wp.len > 0 {
                wp.ibuf[wp.head as usize].pc
            } else {
                wp.last_pc
            };
            let _ = writeln!(
                out,
                "  SM {} warp slot {} (CTA {}, warp {}): pc {:#x}, waits for {}",
                self.id, w, wp.cta, wp.warp_in_cta, pc, what
            );
            *limit -= 1;
        }
    }
}
