//! The `WarpSource` path: a tiny mock timing runner drives warps round-robin (several CTAs at a
//! time, barriers enforced by the runner) and the results must equal the functional run. Also
//! checks the instruction observer in both modes.
#![allow(clippy::too_many_arguments)]

mod common;
use common::data;
use std::any::Any;

use warpforge_core::{
    Dim3, DynInst, InstObserver, KernelInfo, KernelRunner, OpClass, SourceError, WarpSource,
    WarpStep,
};
use warpforge_simt::{Device, KernelArg, LaunchConfig, ModuleId, PC_STRIDE};

/// Drives `resident` CTAs at a time, one instruction per warp per round, in a fixed order.
struct MockRunner {
    resident: u32,
    insts: u64,
    lanes: u64,
    barriers: u64,
    mem_insts: u64,
}

impl MockRunner {
    fn new(resident: u32) -> Self {
        Self {
            resident,
            insts: 0,
            lanes: 0,
            barriers: 0,
            mem_insts: 0,
        }
    }
}

struct CtaRun {
    id: u32,
    /// Per warp: 0 = running, 1 = waiting at a barrier, 2 = done.
    state: Vec<u8>,
}

impl KernelRunner for MockRunner {
    fn run_kernel(&mut self, src: &mut dyn WarpSource) -> Result<(), SourceError> {
        let info = src.kernel().clone();
        let total = info.num_ctas() as u32;
        let mut next_cta = 0u32;
        let mut running: Vec<CtaRun> = Vec::new();
        let mut out = DynInst::default();
        let mut sm = 0;
        loop {
            while running.len() < self.resident as usize && next_cta < total {
                let nw = src.start_cta(next_cta, sm)?;
                assert_eq!(nw, info.warps_per_cta());
                sm = (sm + 1) % 4;
                running.push(CtaRun {
                    id: next_cta,
                    state: vec![0; nw as usize],
                });
                next_cta += 1;
            }
            if running.is_empty() {
                return Ok(());
            }
            for c in running.iter_mut() {
                let mut progressed = false;
                for w in 0..c.state.len() {
                    if c.state[w] != 0 {
                        continue;
                    }
                    progressed = true;
                    match src.next(c.id, w as u32, &mut out)? {
                        WarpStep::Done => c.state[w] = 2,
                        WarpStep::Wait => unreachable!("only window-mode fronts wait"),
                        WarpStep::Inst => {
                            self.insts += 1;
                            self.lanes += out.active_lanes() as u64;
                            assert_eq!(out.pc, out.static_idx as u64 * PC_STRIDE);
                            if out.class.is_memory() {
                                let m = out.mem.expect("memory instruction carries addresses");
                                assert!(m.bytes_per_lane >= 1);
                                self.mem_insts += 1;
                            }
                            if out.warp_exits {
                                c.state[w] = 2;
                            } else if out.class == OpClass::Barrier {
                                self.barriers += 1;
                                c.state[w] = 1;
                            }
                        }
                    }
                }
                // Release the barrier when every live warp waits.
                let live = c.state.iter().filter(|s| **s != 2).count();
                let waiting = c.state.iter().filter(|s| **s == 1).count();
                if live > 0 && waiting == live {
                    c.state.iter_mut().filter(|s| **s == 1).for_each(|s| *s = 0);
                } else if !progressed && live > 0 {
                    return Err(SourceError::new("mock runner: no progress"));
                }
            }
            running.retain(|c| {
                let done = c.state.iter().all(|s| *s == 2);
                if done {
                    src.finish_cta(c.id);
                }
                !done
            });
        }
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

fn load(dev: &mut Device, name: &str) -> ModuleId {
    let path = format!("{}/tests/kernels/{name}.ptx", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    dev.load_ptx(&text, &path).unwrap()
}

/// Runs `kernel` on a fresh device (functional, or with the mock runner) and returns the
/// contents of the output buffer plus the launch statistics.
fn run_case(
    runner: Option<u32>,
    module: &str,
    kernel: &str,
    grid: u32,
    block: u32,
    shared: u32,
    inputs: &[Vec<u32>],
    out_len: usize,
    scalars: &[KernelArg],
) -> (
    Vec<u32>,
    warpforge_simt::LaunchStats,
    Option<(u64, u64, u64)>,
) {
    let mut dev = Device::new();
    if let Some(r) = runner {
        dev.set_runner(Box::new(MockRunner::new(r)));
    }
    let m = load(&mut dev, module);
    let mut args = Vec::new();
    for i in inputs {
        args.push(KernelArg::Ptr(dev.alloc_copy(i).unwrap()));
    }
    let out = dev.malloc(4 * out_len as u64).unwrap();
    args.push(KernelArg::Ptr(out));
    args.extend_from_slice(scalars);
    let cfg = LaunchConfig {
        grid: Dim3::x(grid),
        block: Dim3::x(block),
        shared_bytes: shared,
    };
    dev.launch(m, kernel, cfg, &args).unwrap();
    let st = dev.last_launch_stats();
    let res = dev.read(out, out_len).unwrap();
    let mock = dev.runner_mut().map(|r| {
        let m = r.as_any_mut().downcast_mut::<MockRunner>().unwrap();
        (m.insts, m.lanes, m.barriers)
    });
    (res, st, mock)
}

#[test]
fn mock_runner_matches_functional_run() {
    let n = 2000u32;
    let v: Vec<u32> = data(n as usize, 3).iter().map(|x| x % 1000).collect();
    let starts: Vec<u32> = (0..n).map(|i| i * 3 + 1).collect();
    type Case<'a> = (
        &'a str,
        &'a str,
        u32,
        u32,
        Vec<Vec<u32>>,
        usize,
        Vec<KernelArg>,
    );
    let cases: Vec<Case> = vec![
        (
            "reduce",
            "reduce_sum",
            4,
            256,
            vec![v.clone()],
            4,
            vec![KernelArg::U32(n)],
        ),
        (
            "divergent",
            "collatz",
            16,
            128,
            vec![starts.clone()],
            n as usize,
            vec![KernelArg::U32(n)],
        ),
        (
            "localmem",
            "local_array",
            8,
            64,
            vec![v.clone()],
            500,
            vec![KernelArg::U32(500)],
        ),
        ("shuffle", "warp_sum", 4, 96, vec![v.clone()], 12, vec![]),
        (
            "divergent",
            "classify",
            7,
            100,
            vec![v.clone()],
            650,
            vec![KernelArg::U32(650)],
        ),
    ];
    for (module, kernel, grid, block, inputs, out_len, scalars) in cases {
        let (f_out, f_st, _) = run_case(
            None, module, kernel, grid, block, 0, &inputs, out_len, &scalars,
        );
        for resident in [1, 3] {
            let (t_out, t_st, mock) = run_case(
                Some(resident),
                module,
                kernel,
                grid,
                block,
                0,
                &inputs,
                out_len,
                &scalars,
            );
            assert_eq!(f_out, t_out, "{kernel} with {resident} resident CTAs");
            assert_eq!(f_st.warp_insts, t_st.warp_insts, "{kernel}");
            assert_eq!(f_st.thread_insts, t_st.thread_insts, "{kernel}");
            let (insts, lanes, bars) = mock.unwrap();
            assert_eq!(insts, t_st.warp_insts);
            assert_eq!(lanes, t_st.thread_insts);
            if kernel == "reduce_sum" {
                // 1 + log2(256) barriers per warp, 8 warps, 4 CTAs.
                assert_eq!(bars, 9 * 8 * 4);
            }
        }
    }
    // Atomics: the histogram is order-independent, so it must match exactly.
    let hv = data(3000, 5);
    let mut dev = Device::new();
    dev.set_runner(Box::new(MockRunner::new(2)));
    let m = load(&mut dev, "atomics");
    let dv = dev.alloc_copy(&hv).unwrap();
    let dh = dev.malloc(256).unwrap();
    let cfg = LaunchConfig {
        grid: Dim3::x(5),
        block: Dim3::x(128),
        shared_bytes: 0,
    };
    dev.launch(
        m,
        "histogram",
        cfg,
        &[KernelArg::Ptr(dv), KernelArg::U32(3000), KernelArg::Ptr(dh)],
    )
    .unwrap();
    let h: Vec<u32> = dev.read(dh, 64).unwrap();
    let mut want = vec![0u32; 64];
    hv.iter().for_each(|x| want[(*x & 63) as usize] += 1);
    assert_eq!(h, want);
}

#[derive(Default)]
struct Counter {
    launches: u32,
    ends: u32,
    insts: u64,
    lanes: u64,
    loads_with_addrs: u64,
    last: Option<KernelInfo>,
}

impl InstObserver for Counter {
    fn on_launch(&mut self, k: &KernelInfo) {
        self.launches += 1;
        self.last = Some(k.clone());
    }
    fn on_inst(&mut self, _cta: u32, _warp: u32, inst: &DynInst) {
        self.insts += 1;
        self.lanes += inst.active_lanes() as u64;
        if inst.class == OpClass::Load {
            let m = inst.mem.unwrap();
            let mut mask = inst.active_mask;
            let mut ok = true;
            while mask != 0 {
                let l = mask.trailing_zeros();
                mask &= mask - 1;
                ok &= m.addrs[l as usize] != 0;
            }
            if ok && inst.active_mask != 0 {
                self.loads_with_addrs += 1;
            }
        }
    }
    fn on_launch_end(&mut self, _k: &KernelInfo) {
        self.ends += 1;
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

#[test]
fn observer_sees_every_instruction_in_both_modes() {
    for with_runner in [false, true] {
        let mut dev = Device::new();
        if with_runner {
            dev.set_runner(Box::new(MockRunner::new(2)));
        }
        dev.set_observer(Some(Box::new(Counter::default())));
        let m = load(&mut dev, "divergent");
        let n = 300u32;
        let starts: Vec<u32> = (1..=n).collect();
        let ds = dev.alloc_copy(&starts).unwrap();
        let dout = dev.malloc(4 * n as u64).unwrap();
        let cfg = LaunchConfig {
            grid: Dim3::x(3),
            block: Dim3::x(128),
            shared_bytes: 0,
        };
        dev.launch(
            m,
            "collatz",
            cfg,
            &[KernelArg::Ptr(ds), KernelArg::Ptr(dout), KernelArg::U32(n)],
        )
        .unwrap();
        let st = dev.last_launch_stats();
        let c = dev
            .observer_mut()
            .unwrap()
            .as_any_mut()
            .downcast_mut::<Counter>()
            .unwrap();
        assert_eq!((c.launches, c.ends), (1, 1));
        assert_eq!(c.insts, st.warp_insts);
        assert_eq!(c.lanes, st.thread_insts);
        assert!(c.loads_with_addrs > 0);
        let info = c.last.as_ref().unwrap();
        assert_eq!(info.name, "collatz");
        assert_eq!(info.grid, Dim3::x(3));
        assert!(info.regs_per_thread >= 8 && info.regs_per_thread <= 255);
        let out: Vec<u32> = dev.read(dout, n as usize).unwrap();
        assert_eq!(out[26], 111, "collatz(27) takes 111 steps");
    }
}
