//! The counters of the GPU's outstanding memory requests (spec 004 §7: what bounds them):
//! the LLC MSHRs held by each requester class at their peak (`MemSystem::llc_mshr_peak`) and
//! the blocks and L2 requests the port keeps in flight (`HeteroPort::outstanding`).

use std::sync::Arc;
use warpforge_hetero::cpu::CpuCluster;
use warpforge_hetero::crit::GpuShared;
use warpforge_hetero::port::HeteroPort;
use warpforge_hetero::{HeteroConfig, MemSystem, Request, Source};
use warpforge_timing::dram::port::MemoryPort;
use warpforge_timing::dram::DramReq;

#[test]
fn llc_mshr_peak_is_the_pool_when_gpu_misses_outnumber_it() {
    let c = HeteroConfig::preset("hetero").unwrap();
    let mut m = MemSystem::new(&c);
    // 600 GPU read misses, one DRAM row apart, then one CPU read: the pool (512) fills with
    // GPU misses; the CPU read holds at most one.
    for i in 0..600 {
        m.issue(Request::read(i, i * 8192, Source::Gpgpu));
    }
    m.issue(Request::read(600, 0x7_0000_0000, Source::Cpu(0)));
    let (mut t, mut done) = (0, 0);
    while done < 601 {
        t += 1;
        m.advance_to(t);
        done += m.drain_completions().count();
        assert!(t < 10_000_000, "requests never completed");
    }
    assert_eq!(m.llc_mshr_peak(), (c.llc.mshrs as u64, 1));
    let (gpu_mean, _, _) = m.llc_mshr_occupancy();
    assert!(gpu_mean > 0.0 && gpu_mean < c.llc.mshrs as f64);
}

#[test]
fn port_counts_outstanding_blocks_and_its_own_limit() {
    let c = HeteroConfig::preset("hetero").unwrap();
    let mem = MemSystem::new(&c);
    let cpu = CpuCluster::new(&c.cpu, Vec::new());
    let mut port = HeteroPort::new(mem, cpu, Arc::new(GpuShared::default()), 0, 3);
    // Three 128 B reads (two blocks each), one row apart: the port's limit of 3 requests.
    for i in 0..3u64 {
        assert!(port.can_accept(0, false));
        port.push(
            0,
            DramReq {
                addr: i * 8192,
                bytes: 128,
                ..DramReq::default()
            },
        );
    }
    assert!(!port.can_accept(0, false), "the limit of 3 requests");
    let mut back = 0;
    let mut cycles = 0u64;
    while back < 3 {
        port.cycle(0);
        cycles += 1;
        while port.pop_return(0).is_some() {
            back += 1;
        }
        assert!(cycles < 1_000_000, "requests never came back");
    }
    let o = port.outstanding();
    assert_eq!(o.blocks_peak, 6);
    assert_eq!(o.requests_peak, 3);
    // Full from the first cycle until the first request completed; the mean lies between.
    assert!(o.full_fraction > 0.0 && o.full_fraction < 1.0, "{o:?}");
    assert!(o.blocks_mean > 0.0 && o.blocks_mean < 6.0, "{o:?}");
    assert!(!port.busy());
}
