//! Workload characterisation from a functional run: an [`InstObserver`] that aggregates every
//! dynamic warp instruction into a [`Profile`] (instruction mix, SIMD efficiency, coalescing,
//! footprint, barriers, launch shapes). `warpforge characterize` prints it; the analytical models
//! can install the same observer to get their instruction-level inputs.
//!
//! Definitions (the documents do not fix them; these follow GPGPU-Sim / Nsight conventions):
//! - *thread instructions* = sum over warp instructions of their active lanes;
//! - a *global request* is one warp-level global (or local) load, store or atomic; its
//!   *sectors* are the distinct 32 B sectors and its *lines* the distinct 128 B lines touched by
//!   its active lanes (an access straddling a boundary counts both sides);
//! - *footprint* = distinct 128 B lines touched by global/local accesses over the whole run;
//! - *barriers per CTA* = `bar` warp instructions / warps, i.e. the number of barrier episodes
//!   an average CTA goes through (summed over all launches of a kernel, averaged per CTA).

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;
use warpforge_core::{Dim3, DynInst, InstObserver, KernelInfo, MemSpace, OpClass, WARP_SIZE};

/// Instruction mix, in warp instructions.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct InstMix {
    /// Integer ALU, multiply and divide.
    pub int: u64,
    /// Single- and double-precision arithmetic.
    pub fp: u64,
    /// Special functions (transcendentals, rcp, sqrt) and conversions.
    pub sfu: u64,
    /// Global loads.
    pub ld_global: u64,
    /// Global stores.
    pub st_global: u64,
    /// Local loads and stores.
    pub ldst_local: u64,
    /// Shared loads.
    pub ld_shared: u64,
    /// Shared stores.
    pub st_shared: u64,
    /// Constant and parameter loads.
    pub ld_const_param: u64,
    /// Texture fetches.
    pub tex: u64,
    /// Atomics and reductions (any space).
    pub atomic: u64,
    /// Branches, calls and returns.
    pub branch: u64,
    /// Barriers.
    pub barrier: u64,
    /// Everything else: fences, warp collectives, exits, nops.
    pub other: u64,
}

impl InstMix {
    fn add(&mut self, inst: &DynInst) {
        let space = inst.mem.map(|m| m.space);
        let slot = match inst.class {
            OpClass::IntAlu | OpClass::IntMul | OpClass::IntDiv => &mut self.int,
            OpClass::FpAlu | OpClass::FpDiv | OpClass::Dp => &mut self.fp,
            OpClass::Sfu | OpClass::Conv => &mut self.sfu,
            OpClass::Atomic => &mut self.atomic,
            OpClass::Tex => &mut self.tex,
            OpClass::Branch => &mut self.branch,
            OpClass::Barrier => &mut self.barrier,
            OpClass::Load | OpClass::Store => {
                let store = inst.class == OpClass::Store;
                match (space.unwrap_or_default(), store) {
                    (MemSpace::Global, false) => &mut self.ld_global,
                    (MemSpace::Global, true) => &mut self.st_global,
                    (MemSpace::Local, _) => &mut self.ldst_local,
                    (MemSpace::Shared, false) => &mut self.ld_shared,
                    (MemSpace::Shared, true) => &mut self.st_shared,
                    (MemSpace::Tex, _) => &mut self.tex,
                    (MemSpace::Const | MemSpace::Param, _) => &mut self.ld_const_param,
                }
            }
            OpClass::Fence | OpClass::WarpCollective | OpClass::Exit | OpClass::Nop => {
                &mut self.other
            }
        };
        *slot += 1;
    }
}

/// Per-kernel aggregate (all launches of one kernel name).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct KernelProfile {
    /// Number of launches.
    pub launches: u64,
    /// Distinct launch shapes: `(grid, block, shared bytes per CTA)` with their launch counts.
    pub shapes: Vec<LaunchShape>,
    /// Registers per thread (as reported by the front end).
    pub regs_per_thread: u32,
    /// Shared memory per CTA in bytes (largest over launches).
    pub shared_bytes_per_cta: u32,
    /// Local memory per thread in bytes.
    pub local_bytes_per_thread: u32,
    /// Warp instructions.
    pub warp_insts: u64,
    /// Thread instructions.
    pub thread_insts: u64,
    /// CTAs run (all launches).
    pub ctas: u64,
    /// Barrier episodes per CTA (see the module documentation).
    pub barriers_per_cta: f64,
}

/// One launch shape and how many launches used it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LaunchShape {
    /// Grid in CTAs.
    pub grid: Dim3,
    /// CTA in threads.
    pub block: Dim3,
    /// Shared memory per CTA (static + dynamic), bytes.
    pub shared_bytes: u32,
    /// Launches with this shape.
    pub count: u64,
}

/// The characterisation of a whole run (every launch).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Profile {
    /// Dynamic warp instructions.
    pub warp_insts: u64,
    /// Dynamic thread instructions (active lanes summed).
    pub thread_insts: u64,
    /// Instruction mix in warp instructions.
    pub mix: InstMix,
    /// Average active lanes per warp instruction (32 = no divergence).
    pub avg_active_lanes: f64,
    /// Global/local memory requests (warp-level loads, stores, atomics).
    pub global_requests: u64,
    /// 32 B sectors per global request (1 to 4 per lane-word: 4 = fully coalesced 4 B loads).
    pub sectors_per_request: f64,
    /// 128 B lines per global request (1 = fully coalesced 4 B loads).
    pub lines_per_request: f64,
    /// Distinct 128 B lines touched (global and local).
    pub footprint_lines: u64,
    /// Footprint in bytes (`footprint_lines * 128`).
    pub footprint_bytes: u64,
    /// Fraction of warp instructions that access global/local memory.
    pub global_mem_fraction: f64,
    /// Fraction of warp instructions that access shared memory.
    pub shared_mem_fraction: f64,
    /// Kernel launches in total.
    pub launches: u64,
    /// Barrier episodes per CTA, averaged over every CTA of every launch.
    pub barriers_per_cta: f64,
    /// Per-kernel aggregates by kernel name.
    pub kernels: BTreeMap<String, KernelProfile>,
}

impl Profile {
    /// Qualitative labels derived from the numbers, for tables: divergence, coalescing, barrier
    /// use and the compute/memory balance. Thresholds: divergent below 28 active lanes;
    /// scattered above 2 lines per request; barrier-heavy above 4 barrier episodes per CTA;
    /// memory-bound when global accesses exceed 1 in 12 warp instructions or each request
    /// touches more than 8 sectors on average.
    pub fn labels(&self) -> [&'static str; 4] {
        let div = if self.avg_active_lanes < 28.0 {
            "divergent"
        } else {
            "convergent"
        };
        let coal = if self.global_requests == 0 {
            "no-global"
        } else if self.lines_per_request > 2.0 {
            "scattered"
        } else {
            "coalesced"
        };
        let bar = if self.barriers_per_cta > 4.0 {
            "barrier-heavy"
        } else if self.barriers_per_cta > 0.0 {
            "some-barriers"
        } else {
            "barrier-free"
        };
        let bound = if self.global_mem_fraction > 1.0 / 12.0 || self.sectors_per_request > 8.0 {
            "memory-bound"
        } else {
            "compute-bound"
        };
        [div, coal, bar, bound]
    }
}

#[derive(Default)]
struct KernelAcc {
    launches: u64,
    shapes: Vec<LaunchShape>,
    regs: u32,
    shared: u32,
    local: u32,
    warp_insts: u64,
    thread_insts: u64,
    ctas: u64,
    warps: u64,
    barrier_insts: u64,
}

/// The collecting observer. Install with `Device::set_observer(Some(Box::new(Characterizer::new())))`,
/// run, then take it back through `observer_mut()` + `as_any_mut()` and call
/// [`profile`](Characterizer::profile).
#[derive(Default)]
pub struct Characterizer {
    warp_insts: u64,
    thread_insts: u64,
    mix: InstMix,
    global_requests: u64,
    sectors: u64,
    lines: u64,
    shared_accesses: u64,
    footprint: HashSet<u64>,
    /// Per-kernel accumulators, indexed by `kernel_index`.
    kernels: Vec<KernelAcc>,
    kernel_index: BTreeMap<String, usize>,
    /// Index of the running launch's kernel (no string lookup per instruction).
    current: Option<usize>,
    /// Scratch for one request's sector numbers (no allocation per instruction).
    scratch: Vec<u64>,
}

impl Characterizer {
    /// An empty collector.
    pub fn new() -> Self {
        Self {
            scratch: Vec::with_capacity(4 * WARP_SIZE),
            ..Self::default()
        }
    }

    /// The profile of everything observed so far.
    pub fn profile(&self) -> Profile {
        let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        let mut kernels = BTreeMap::new();
        let (mut bar_total, mut warps_total) = (0u64, 0u64);
        let mut launches = 0;
        for (name, &idx) in &self.kernel_index {
            let k = &self.kernels[idx];
            bar_total += k.barrier_insts;
            warps_total += k.warps;
            launches += k.launches;
            // barrier episodes per CTA = barrier warp insts / warps (each warp of a CTA executes
            // each episode once).
            let bpc = ratio(k.barrier_insts, k.warps);
            kernels.insert(
                name.clone(),
                KernelProfile {
                    launches: k.launches,
                    shapes: k.shapes.clone(),
                    regs_per_thread: k.regs,
                    shared_bytes_per_cta: k.shared,
                    local_bytes_per_thread: k.local,
                    warp_insts: k.warp_insts,
                    thread_insts: k.thread_insts,
                    ctas: k.ctas,
                    barriers_per_cta: bpc,
                },
            );
        }
        let barriers_per_cta = ratio(bar_total, warps_total);
        let global_insts = self.global_requests;
        Profile {
            warp_insts: self.warp_insts,
            thread_insts: self.thread_insts,
            mix: self.mix.clone(),
            avg_active_lanes: ratio(self.thread_insts, self.warp_insts),
            global_requests: self.global_requests,
            sectors_per_request: ratio(self.sectors, self.global_requests),
            lines_per_request: ratio(self.lines, self.global_requests),
            footprint_lines: self.footprint.len() as u64,
            footprint_bytes: self.footprint.len() as u64 * 128,
            global_mem_fraction: ratio(global_insts, self.warp_insts),
            shared_mem_fraction: ratio(self.shared_accesses, self.warp_insts),
            launches,
            barriers_per_cta,
            kernels,
        }
    }

    /// Counts the distinct 32 B sectors and 128 B lines of one request and adds its lines to the
    /// footprint.
    fn add_request(&mut self, inst: &DynInst, bytes: u64) {
        let Some(mem) = inst.mem.as_ref() else { return };
        let s = &mut self.scratch;
        s.clear();
        let mut mask = inst.active_mask;
        while mask != 0 {
            let lane = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            let a = mem.addrs[lane];
            let last = a + bytes.max(1) - 1;
            let mut sec = a >> 5;
            while sec <= last >> 5 {
                s.push(sec);
                sec += 1;
            }
        }
        s.sort_unstable();
        s.dedup();
        self.sectors += s.len() as u64;
        let mut prev_line = u64::MAX;
        for &sec in s.iter() {
            let line = sec >> 2;
            if line != prev_line {
                self.lines += 1;
                self.footprint.insert(line);
                prev_line = line;
            }
        }
    }
}

impl InstObserver for Characterizer {
    fn on_launch(&mut self, k: &KernelInfo) {
        let idx = match self.kernel_index.get(&k.name) {
            Some(&i) => i,
            None => {
                self.kernels.push(KernelAcc::default());
                self.kernel_index
                    .insert(k.name.clone(), self.kernels.len() - 1);
                self.kernels.len() - 1
            }
        };
        let acc = &mut self.kernels[idx];
        acc.launches += 1;
        acc.regs = acc.regs.max(k.regs_per_thread);
        acc.shared = acc.shared.max(k.shared_bytes);
        acc.local = acc.local.max(k.local_bytes);
        acc.ctas += k.num_ctas();
        acc.warps += k.num_ctas() * k.warps_per_cta() as u64;
        match acc
            .shapes
            .iter_mut()
            .find(|s| s.grid == k.grid && s.block == k.block && s.shared_bytes == k.shared_bytes)
        {
            Some(s) => s.count += 1,
            None => acc.shapes.push(LaunchShape {
                grid: k.grid,
                block: k.block,
                shared_bytes: k.shared_bytes,
                count: 1,
            }),
        }
        self.current = Some(idx);
    }

    fn on_inst(&mut self, _cta: u32, _warp: u32, inst: &DynInst) {
        let lanes = inst.active_lanes() as u64;
        self.warp_insts += 1;
        self.thread_insts += lanes;
        self.mix.add(inst);
        if let Some(acc) = self.current.and_then(|i| self.kernels.get_mut(i)) {
            acc.warp_insts += 1;
            acc.thread_insts += lanes;
            if inst.class == OpClass::Barrier {
                acc.barrier_insts += 1;
            }
        }
        if let Some(mem) = &inst.mem {
            match mem.space {
                MemSpace::Global | MemSpace::Local => {
                    self.global_requests += 1;
                    self.add_request(inst, mem.bytes_per_lane as u64);
                }
                MemSpace::Shared => self.shared_accesses += 1,
                _ => {}
            }
        }
    }

    fn on_launch_end(&mut self, _k: &KernelInfo) {
        self.current = None;
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

/// A cheap observer that only counts warp and thread instructions (what `warpforge run
/// --mode functional` reports).
#[derive(Debug, Default, Clone, Copy)]
pub struct InstCounter {
    /// Dynamic warp instructions.
    pub warp_insts: u64,
    /// Dynamic thread instructions.
    pub thread_insts: u64,
    /// Kernel launches.
    pub launches: u64,
}

impl InstObserver for InstCounter {
    fn on_launch(&mut self, _k: &KernelInfo) {
        self.launches += 1;
    }
    fn on_inst(&mut self, _cta: u32, _warp: u32, inst: &DynInst) {
        self.warp_insts += 1;
        self.thread_insts += inst.active_lanes() as u64;
    }
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpforge_core::MemAccess;

    fn mem_inst(class: OpClass, mask: u32, addr: impl Fn(usize) -> u64, bytes: u8) -> DynInst {
        let mut addrs = [0u64; WARP_SIZE];
        for (i, a) in addrs.iter_mut().enumerate() {
            *a = addr(i);
        }
        DynInst {
            class,
            active_mask: mask,
            mem: Some(MemAccess {
                space: MemSpace::Global,
                bytes_per_lane: bytes,
                is_store: class == OpClass::Store,
                is_atomic: false,
                addrs,
            }),
            ..DynInst::default()
        }
    }

    fn kernel(name: &str, grid: u32, block: u32) -> KernelInfo {
        KernelInfo {
            name: name.into(),
            grid: Dim3::x(grid),
            block: Dim3::x(block),
            regs_per_thread: 20,
            shared_bytes: 512,
            local_bytes: 0,
        }
    }

    #[test]
    fn coalesced_and_scattered_requests() {
        let mut c = Characterizer::new();
        let k = kernel("k", 2, 64);
        c.on_launch(&k);
        // 32 lanes x 4 B consecutive, 128 B aligned: 4 sectors, 1 line.
        c.on_inst(
            0,
            0,
            &mem_inst(OpClass::Load, !0, |i| 0x1000 + 4 * i as u64, 4),
        );
        // 32 lanes x 4 B with a 136 B stride (kmn rows): 32 sectors, 32 lines.
        c.on_inst(
            0,
            0,
            &mem_inst(OpClass::Load, !0, |i| 0x10000 + 136 * i as u64, 4),
        );
        // half a warp, 8 B straddling a sector boundary at lane 0 only.
        c.on_inst(0, 1, &mem_inst(OpClass::Store, 0xffff, |_| 0x2000 + 28, 8));
        c.on_launch_end(&k);
        let p = c.profile();
        assert_eq!(p.warp_insts, 3);
        assert_eq!(p.thread_insts, 80);
        assert_eq!(p.global_requests, 3);
        assert_eq!(p.mix.ld_global, 2);
        assert_eq!(p.mix.st_global, 1);
        assert!((p.sectors_per_request - (4.0 + 32.0 + 2.0) / 3.0).abs() < 1e-9);
        assert!((p.lines_per_request - (1.0 + 32.0 + 1.0) / 3.0).abs() < 1e-9);
        // footprint: 1 line + 32 distinct lines (136 B stride never shares a line within 32) + 1
        assert_eq!(p.footprint_lines, 34);
        assert!((p.avg_active_lanes - 80.0 / 3.0).abs() < 1e-9);
    }

    #[test]
    fn barriers_per_cta_and_shapes() {
        let mut c = Characterizer::new();
        let k = kernel("b", 4, 64); // 4 CTAs x 2 warps
        for _ in 0..2 {
            c.on_launch(&k);
            for cta in 0..4 {
                for w in 0..2 {
                    for _ in 0..3 {
                        let i = DynInst {
                            class: OpClass::Barrier,
                            active_mask: !0,
                            ..DynInst::default()
                        };
                        c.on_inst(cta, w, &i);
                    }
                }
            }
            c.on_launch_end(&k);
        }
        let p = c.profile();
        assert_eq!(p.launches, 2);
        assert!((p.barriers_per_cta - 3.0).abs() < 1e-9);
        let kp = &p.kernels["b"];
        assert_eq!(kp.shapes.len(), 1);
        assert_eq!(kp.shapes[0].count, 2);
        assert_eq!(kp.ctas, 8);
        assert_eq!(p.mix.barrier, 48);
        assert_eq!(p.labels()[2], "some-barriers");
    }
}
