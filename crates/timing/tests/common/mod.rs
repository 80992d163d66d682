//! A scripted [`WarpSource`] for driving the timing model without the functional executor, and
//! instruction builders.
#![allow(dead_code)]

use std::collections::BTreeMap;
use warpforge_core::*;

/// Instruction `i` of warp `w` of CTA `c`, or `None` when the warp is done.
pub type Gen = Box<dyn Fn(u32, u32, u32) -> Option<DynInst> + Send>;

/// A source whose instruction streams come from a closure. It checks the barrier contract: no
/// warp is fetched past its n-th barrier before every warp of its CTA has fetched its n-th.
pub struct Mock {
    pub info: KernelInfo,
    gen: Gen,
    pos: BTreeMap<(u32, u32), u32>,
    bars: BTreeMap<(u32, u32), u32>,
    done: BTreeMap<(u32, u32), bool>,
    pub fetched: u64,
    pub finished: Vec<u32>,
}

impl Mock {
    pub fn new(grid: u32, block: u32, gen: Gen) -> Self {
        Self {
            info: KernelInfo {
                name: "mock".into(),
                grid: Dim3::x(grid),
                block: Dim3::x(block),
                regs_per_thread: 16,
                shared_bytes: 0,
                local_bytes: 0,
            },
            gen,
            pos: BTreeMap::new(),
            bars: BTreeMap::new(),
            done: BTreeMap::new(),
            fetched: 0,
            finished: vec![],
        }
    }
}

impl WarpSource for Mock {
    fn kernel(&self) -> &KernelInfo {
        &self.info
    }
    fn start_cta(&mut self, _cta: u32, _sm: u32) -> Result<u32, SourceError> {
        Ok(self.info.warps_per_cta())
    }
    fn next(&mut self, cta: u32, warp: u32, out: &mut DynInst) -> Result<WarpStep, SourceError> {
        let my_bars = *self.bars.get(&(cta, warp)).unwrap_or(&0);
        for w in 0..self.info.warps_per_cta() {
            let b = *self.bars.get(&(cta, w)).unwrap_or(&0);
            let d = *self.done.get(&(cta, w)).unwrap_or(&false);
            if b < my_bars && !d {
                return Err(SourceError::new(format!(
                    "warp {warp} of CTA {cta} fetched past barrier {my_bars} before warp {w}"
                )));
            }
        }
        let i = self.pos.entry((cta, warp)).or_insert(0);
        match (self.gen)(cta, warp, *i) {
            Some(inst) => {
                *i += 1;
                self.fetched += 1;
                if inst.class == OpClass::Barrier {
                    *self.bars.entry((cta, warp)).or_insert(0) += 1;
                }
                if inst.warp_exits {
                    self.done.insert((cta, warp), true);
                }
                *out = inst;
                Ok(WarpStep::Inst)
            }
            None => {
                self.done.insert((cta, warp), true);
                Ok(WarpStep::Done)
            }
        }
    }
    fn finish_cta(&mut self, cta: u32) {
        self.finished.push(cta);
    }
}

pub fn alu(pc: u64, class: OpClass, dst: u16, srcs: &[u16]) -> DynInst {
    let mut i = DynInst {
        pc,
        active_mask: !0,
        class,
        n_dst: 1,
        ..Default::default()
    };
    i.dst[0] = dst;
    i.n_src = srcs.len() as u8;
    i.src[..srcs.len()].copy_from_slice(srcs);
    i
}

pub fn mem(
    pc: u64,
    space: MemSpace,
    store: bool,
    dst: u16,
    src: u16,
    addr: impl Fn(usize) -> u64,
) -> DynInst {
    let mut m = MemAccess {
        space,
        bytes_per_lane: 4,
        is_store: store,
        ..Default::default()
    };
    for (l, a) in m.addrs.iter_mut().enumerate() {
        *a = addr(l);
    }
    let mut i = DynInst {
        pc,
        active_mask: !0,
        class: if store { OpClass::Store } else { OpClass::Load },
        mem: Some(m),
        ..Default::default()
    };
    if store {
        i.n_src = 2;
        i.src[0] = src;
        i.src[1] = dst;
    } else {
        i.n_dst = 1;
        i.dst[0] = dst;
        i.n_src = 1;
        i.src[0] = src;
    }
    i
}

pub fn bar(pc: u64) -> DynInst {
    DynInst {
        pc,
        active_mask: !0,
        class: OpClass::Barrier,
        ..Default::default()
    }
}

pub fn exit(pc: u64) -> DynInst {
    DynInst {
        pc,
        active_mask: !0,
        class: OpClass::Exit,
        warp_exits: true,
        ..Default::default()
    }
}

/// Runs the registered workload `name` at size tiny on `cfg` with `threads` threads and
/// requires its output check (against the CPU reference) to pass. `prepare` sees the runner
/// before the run (e.g. to attach probes), `read` after it; returns what `read` returns.
pub fn run_tiny<R>(
    name: &str,
    cfg: warpforge_timing::GpuConfig,
    threads: usize,
    prepare: impl FnOnce(&mut warpforge_timing::TimingRunner),
    read: impl FnOnce(&mut warpforge_timing::TimingRunner) -> R,
) -> R {
    use warpforge_workloads::{registry, Check, Size};
    let w = registry()
        .into_iter()
        .find(|w| w.info().name == name)
        .unwrap_or_else(|| panic!("workload {name} not registered"));
    let mut runner = warpforge_timing::TimingRunner::new(cfg, threads);
    prepare(&mut runner);
    let mut dev = warpforge_simt::Device::new();
    dev.set_runner(Box::new(runner));
    let check = w
        .run(&mut dev, Size::Tiny)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(check, Check::Passed, "{name}: output check");
    let mut r = dev.take_runner().unwrap();
    read(
        r.as_any_mut()
            .downcast_mut::<warpforge_timing::TimingRunner>()
            .unwrap(),
    )
}

/// The preset `preset` with the keys `set` applied in order.
pub fn preset_with(preset: &str, set: &[(&str, &str)]) -> warpforge_timing::GpuConfig {
    let mut cfg = warpforge_timing::GpuConfig::preset(preset).unwrap();
    for (k, v) in set {
        cfg.set(k, v).unwrap();
    }
    cfg
}
