//! The pipeline on the CPU-GPU machine's shared memory side (`warpforge_hetero::MemSystem`: ring,
//! shared SRRIP LLC, DDR3 controllers and the memory-scheduling policies), optionally with the CPU
//! cores of a mix co-running. The GPU runs at 1 GHz, the memory side and the CPU cores at 4 GHz,
//! so each GPU cycle steps them `ratio` (4) cycles.

use std::collections::HashMap;

use warpforge_hetero::cpu::CpuCluster;
use warpforge_hetero::{Completion, MemSystem, Request, Source};

use crate::mem::{Access, GpuMemory, Ideal};
use crate::pipeline::memif::StreamCounts;
use crate::pipeline::Status;

/// [`GpuMemory`] over a [`MemSystem`], with optional CPU co-runners.
pub struct SharedMem {
    /// The memory side.
    pub mem: MemSystem,
    /// Memory cycles per GPU cycle.
    pub ratio: u64,
    /// Accesses made ideal in the LLC (section 1.3), if any.
    pub ideal: Option<Ideal>,
    /// The CPU cores of the mix.
    pub cpu: Option<CpuCluster>,
    /// GPU reads served by DRAM (LLC misses, ideal ones excluded), per stream, with their
    /// critical bits (`writes` stays 0): claim 4 counts the critical share of these.
    pub dram: StreamCounts,
    /// Stream and critical bit of each GPU read in flight, by token.
    reads: HashMap<u64, (u8, bool)>,
    gpu_cycle: u64,
}

impl SharedMem {
    /// Wraps `mem`; the GPU clock is `ratio` times slower than the memory side's.
    pub fn new(mem: MemSystem, ratio: u64) -> Self {
        Self {
            mem,
            ratio: ratio.max(1),
            ideal: None,
            cpu: None,
            dram: StreamCounts::default(),
            reads: HashMap::new(),
            gpu_cycle: 0,
        }
    }
}

/// The source id of an access: the unit that originates its stream.
fn source(a: &Access) -> Source {
    Source::Gfx(a.stream.unit() as u16)
}

/// Hands a completed GPU read back to the pipeline, counting it in `dram` when DRAM served it.
fn take(
    c: Completion,
    done: &mut Vec<u64>,
    reads: &mut HashMap<u64, (u8, bool)>,
    dram: &mut StreamCounts,
) {
    if matches!(c.source, Source::Gfx(_)) && !c.write {
        if let Some((s, critical)) = reads.remove(&c.id) {
            if !c.llc_hit {
                dram.reads[s as usize] += 1;
                dram.critical[s as usize] += critical as u64;
            }
        }
        done.push(c.id);
    }
}

impl GpuMemory for SharedMem {
    fn issue(&mut self, a: Access) -> bool {
        if !self.mem.can_issue() {
            return false;
        }
        let mut r = if a.write {
            Request::write(a.token, a.addr, source(&a))
        } else {
            Request::read(a.token, a.addr, source(&a))
        };
        r.critical = a.critical;
        r.stream = a.stream as u8;
        r.ideal = self.ideal.is_some_and(|i| i.covers(&a));
        if !a.write {
            self.reads.insert(a.token, (a.stream as u8, a.critical));
        }
        self.mem.issue(r);
        true
    }

    fn tick(&mut self, done: &mut Vec<u64>) {
        let t0 = self.gpu_cycle * self.ratio;
        self.gpu_cycle += 1;
        let (reads, dram) = (&mut self.reads, &mut self.dram);
        match self.cpu.as_mut() {
            Some(cpu) => {
                for t in t0 + 1..=t0 + self.ratio {
                    cpu.cycle(t, &mut self.mem, &mut |c| take(c, done, reads, dram));
                }
            }
            None => {
                self.mem.advance_to(t0 + self.ratio);
                for c in self.mem.drain_completions() {
                    take(c, done, reads, dram);
                }
            }
        }
    }

    /// A 3D frame is always in progress: DynPrio and DASH read its elapsed time and progress
    /// whether or not the frame is predicted below target, and IM's all-GPU probe is for GPGPU
    /// only (`frame: None`). The below-target prediction reaches the schedulers through the
    /// critical bits (section 2.6).
    fn report(&mut self, s: &Status) {
        let g = self.mem.gpu_status_mut();
        g.frame = Some((s.elapsed_fraction, s.progress));
        g.ready_fraction = s.ready_fraction;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpforge_hetero::HeteroConfig;

    #[test]
    fn a_frame_is_reported_in_progress_above_and_below_target() {
        let cfg = HeteroConfig::preset("hetero").unwrap();
        let mut m = SharedMem::new(MemSystem::new(&cfg), 4);
        for below_target in [false, true] {
            let s = Status {
                elapsed_fraction: 0.3,
                progress: 0.5,
                below_target,
                ready_fraction: 0.7,
            };
            m.report(&s);
            let g = m.mem.gpu_status_mut();
            assert_eq!(g.frame, Some((0.3, 0.5)), "below target: {below_target}");
            assert_eq!(g.ready_fraction, 0.7);
        }
    }
}
