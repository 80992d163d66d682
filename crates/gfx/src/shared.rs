//! The pipeline on the CPU-GPU machine's shared memory side (`warpforge_hetero::MemSystem`: ring,
//! shared SRRIP LLC, DDR3 controllers and the memory-scheduling policies). The GPU runs at 1 GHz,
//! the memory side at the CPU clock, so each GPU cycle advances it `ratio` (4) cycles; an
//! optional co-runner hook (the CPU cores) is stepped to the same time first.

use warpforge_hetero::{MemSystem, Request, Source};

use crate::mem::{Access, GpuMemory, Ideal};
use crate::pipeline::Status;

/// Something stepped with the memory side each GPU cycle (the CPU cores of a mix).
pub trait CoRunner {
    /// Runs the co-runner up to memory cycle `t`, issuing into `mem`, and takes its completions
    /// (those not from the 3D GPU) from `done`.
    fn step(&mut self, mem: &mut MemSystem, t: u64);
}

/// [`GpuMemory`] over a [`MemSystem`].
pub struct SharedMem<'a> {
    /// The memory side.
    pub mem: MemSystem,
    /// Memory cycles per GPU cycle.
    pub ratio: u64,
    /// Accesses made ideal in the LLC (section 1.3), if any.
    pub ideal: Option<Ideal>,
    /// The co-runners.
    pub cpu: Option<&'a mut dyn CoRunner>,
    gpu_cycle: u64,
    /// Completions of requests that are not the 3D GPU's, left for the co-runner.
    pub others: Vec<warpforge_hetero::Completion>,
}

impl<'a> SharedMem<'a> {
    /// Wraps `mem`; the GPU clock is `ratio` times slower than the memory side's.
    pub fn new(mem: MemSystem, ratio: u64) -> Self {
        Self {
            mem,
            ratio: ratio.max(1),
            ideal: None,
            cpu: None,
            gpu_cycle: 0,
            others: Vec::new(),
        }
    }
}

/// The source id of stream `s` (the unit that originates it).
fn source(a: &Access) -> Source {
    Source::Gfx(a.stream.unit() as u16)
}

impl GpuMemory for SharedMem<'_> {
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
        self.mem.issue(r);
        true
    }

    fn tick(&mut self, done: &mut Vec<u64>) {
        self.gpu_cycle += 1;
        let t = self.gpu_cycle * self.ratio;
        if let Some(cpu) = self.cpu.as_deref_mut() {
            cpu.step(&mut self.mem, t);
        }
        self.mem.advance_to(t);
        for c in self.mem.drain_completions() {
            match c.source {
                Source::Gfx(_) => {
                    if !c.write {
                        done.push(c.id);
                    }
                }
                _ => self.others.push(c),
            }
        }
    }

    fn report(&mut self, s: &Status) {
        let g = self.mem.gpu_status_mut();
        g.frame = s.below_target.then_some((s.elapsed_fraction, s.progress));
        g.ready_fraction = s.ready_fraction;
    }
}
