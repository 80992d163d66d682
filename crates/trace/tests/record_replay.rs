//! Recording a trace of an execution-driven timing run and replaying it gives the same cycle count,
//! for every workload of the suite at size `tiny`.

use warpforge_simt::Device;
use warpforge_timing::{GpuConfig, TimingRunner};
use warpforge_trace::{replay, KernelList, TraceRecorder};
use warpforge_workloads::{registry, Size};

#[test]
fn every_workload_replays_to_the_same_cycles() {
    let cfg = GpuConfig::preset("gtx480").unwrap();
    let ws = registry();
    assert!(!ws.is_empty());
    let mut failures = Vec::new();
    for w in ws {
        let name = w.info().name;
        let dir = tempfile::tempdir().unwrap();
        let mut dev = Device::new();
        dev.set_runner(Box::new(TimingRunner::new(cfg.clone(), 1)));
        dev.set_observer(Some(Box::new(TraceRecorder::new(dir.path()).unwrap())));
        w.run(&mut dev, Size::Tiny)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut obs = dev.take_observer().unwrap();
        let rec = obs.as_any_mut().downcast_mut::<TraceRecorder>().unwrap();
        rec.finish().unwrap();
        let exec = dev
            .runner_mut()
            .and_then(|r| r.as_any_mut().downcast_mut::<TimingRunner>())
            .unwrap()
            .stats();
        let kl = KernelList::open(dir.path()).unwrap();
        let mut r = TimingRunner::new(cfg.clone(), 1);
        replay(&kl, &mut r, None).unwrap_or_else(|e| panic!("{name}: replay: {e}"));
        let tr = r.stats();
        assert_eq!(tr.kernels.len(), exec.kernels.len(), "{name}");
        let a: Vec<(u64, u64)> = exec
            .kernels
            .iter()
            .map(|k| (k.cycles, k.warp_insts))
            .collect();
        let b: Vec<(u64, u64)> = tr
            .kernels
            .iter()
            .map(|k| (k.cycles, k.warp_insts))
            .collect();
        if a != b {
            failures.push(format!("{name}: execution-driven {a:?} vs replay {b:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
