//! The pipeline on the CPU-GPU machine's shared memory side (`warpforge_hetero::MemSystem`: ring,
//! shared SRRIP LLC, DDR3 controllers and the memory-scheduling policies), optionally with the CPU
//! cores of a mix co-running. The GPU runs at 1 GHz, the memory side and the CPU cores at 4 GHz,
//! so each GPU cycle steps them `ratio` (4) cycles.

use warpforge_hetero::fasthash::FastMap;

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
    /// critical bits and their ungated `marked` bits (`writes` stays 0): claim 4 counts the
    /// critical share of these.
    pub dram: StreamCounts,
    /// Latency of the GPU reads served by DRAM, memory-side (CPU) cycles from issue to the data's
    /// return, summed and counted per critical bit (index 0: non-critical, 1: critical): how long
    /// each class waits under a policy (diagnostic of claims 7-8).
    pub dram_latency: [(u64, u64); 2],
    /// The same per stream (index `Stream as usize`), then per critical bit: which streams'
    /// reads wait under a policy (diagnostic of claims 7-8, session 22).
    pub dram_latency_by_stream: [[(u64, u64); 2]; 8],
    /// Stream, critical bit, marked bit and memory-side issue cycle of each GPU read in flight,
    /// by token.
    reads: FastMap<u64, (u8, bool, bool, u64)>,
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
            dram_latency: [(0, 0); 2],
            dram_latency_by_stream: [[(0, 0); 2]; 8],
            reads: FastMap::default(),
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
    reads: &mut FastMap<u64, (u8, bool, bool, u64)>,
    dram: &mut StreamCounts,
    latency: &mut [(u64, u64); 2],
    by_stream: &mut [[(u64, u64); 2]; 8],
) {
    if matches!(c.source, Source::Gfx(_)) && !c.write {
        if let Some((s, critical, marked, at)) = reads.remove(&c.id) {
            if !c.llc_hit {
                dram.reads[s as usize] += 1;
                dram.critical[s as usize] += critical as u64;
                dram.marked[s as usize] += marked as u64;
                let w = c.cycle.saturating_sub(at);
                let l = &mut latency[critical as usize];
                l.0 += w;
                l.1 += 1;
                let l = &mut by_stream[s as usize][critical as usize];
                l.0 += w;
                l.1 += 1;
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
            let at = self.gpu_cycle * self.ratio;
            self.reads
                .insert(a.token, (a.stream as u8, a.critical, a.marked, at));
        }
        self.mem.issue(r);
        true
    }

    /// The read counts as critical from now on (its DRAM read and latency class, claim 4 and
    /// [`SharedMem::dram_latency`]), and the memory side raises it and its LLC miss.
    fn upgrade(&mut self, token: u64, addr: u64) {
        if let Some(r) = self.reads.get_mut(&token) {
            r.1 = true;
        }
        self.mem.upgrade_critical(addr / 64);
    }

    fn tick(&mut self, done: &mut Vec<u64>) {
        let t0 = self.gpu_cycle * self.ratio;
        self.gpu_cycle += 1;
        let (reads, dram, lat, by) = (
            &mut self.reads,
            &mut self.dram,
            &mut self.dram_latency,
            &mut self.dram_latency_by_stream,
        );
        match self.cpu.as_mut() {
            Some(cpu) => {
                for t in t0 + 1..=t0 + self.ratio {
                    cpu.cycle(t, &mut self.mem, &mut |c| {
                        take(c, done, reads, dram, lat, by)
                    });
                }
            }
            None => {
                self.mem.advance_to(t0 + self.ratio);
                for c in self.mem.drain_completions() {
                    take(c, done, reads, dram, lat, by);
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

    /// Mean DRAM latency of 64 GPU reads issued at once, every other one critical, each to its
    /// own row of one bank (all row misses, so only the policy's class order separates them),
    /// `[non-critical, critical]` in memory cycles.
    fn class_latency(policy: &str) -> [f64; 2] {
        let mut cfg = HeteroConfig::preset("hetero").unwrap();
        cfg.set("policy.name", policy).unwrap();
        let mut m = SharedMem::new(MemSystem::new(&cfg), 4);
        // Successive rows of one bank: `channels x banks x row_bytes` steps the row by one, and
        // the bank index is XORed with the row's low bits (`warpforge_hetero::dram::locate`),
        // so step the row by `banks`.
        let (c, b) = (cfg.dram.channels as u64, cfg.dram.banks as u64);
        let stride = c * b * b * cfg.dram.row_bytes as u64;
        for i in 0..64u64 {
            let a = Access {
                token: i,
                addr: (1 << 30) + i * stride,
                write: false,
                stream: crate::stream::Stream::Texture,
                critical: i % 2 == 1,
                marked: i % 2 == 1,
            };
            assert!(m.issue(a));
        }
        let mut done = Vec::new();
        for _ in 0..200_000 {
            m.tick(&mut done);
            if done.len() == 64 {
                break;
            }
        }
        assert_eq!(done.len(), 64, "all reads served");
        assert_eq!(m.dram.total(), 64, "all from DRAM");
        assert_eq!(m.dram.total_critical(), 32);
        // Every read is a texture read: the per-stream split holds the class totals there and
        // nothing elsewhere (`dram_latency_by_stream`, session 22).
        let tex = crate::stream::Stream::Texture as usize;
        for (s, by) in m.dram_latency_by_stream.iter().enumerate() {
            let want = if s == tex {
                m.dram_latency
            } else {
                [(0, 0); 2]
            };
            assert_eq!(*by, want, "stream {s}");
        }
        m.dram_latency.map(|(sum, n)| {
            assert_eq!(n, 32);
            sum as f64 / n as f64
        })
    }

    /// Spec 004 §5.3-§5.5: under GPU-favoring and IM a critical GPU read (CG) ranks above a
    /// non-critical one (NG; both also rank NG below the CPU's reads), so on a contended bank
    /// the CG reads are served first and wait less; FR-FCFS ignores the bit. `dram_latency` measures that per
    /// class (the diagnostic `MixResult::gpu_dram_latency`).
    #[test]
    fn critical_gpu_reads_wait_less_than_non_critical_ones_under_im_not_under_frfcfs() {
        for p in ["gpu_favoring", "im"] {
            let [ng, cg] = class_latency(p);
            assert!(cg * 1.5 < ng, "{p}: CG {cg:.0} vs NG {ng:.0} memory cycles");
        }
        let [ng, cg] = class_latency("frfcfs");
        assert!(
            (cg / ng - 1.0).abs() < 0.1,
            "frfcfs: CG {cg:.0} vs NG {ng:.0} memory cycles"
        );
    }

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
