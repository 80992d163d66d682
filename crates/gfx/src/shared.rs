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

    fn report(&mut self, s: &Status) {
        let g = self.mem.gpu_status_mut();
        g.frame = s.below_target.then_some((s.elapsed_fraction, s.progress));
        g.ready_fraction = s.ready_fraction;
    }
}
