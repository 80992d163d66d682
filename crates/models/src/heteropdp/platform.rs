//! The two execution targets of an OpenCL kernel on the Table 6.1 platform and the
//! shared-memory interference model that gives their alone and co-located times (the ground
//! truth HeteroPDP is trained and judged on).
//!
//! Targets:
//! * **CMP**: the document-002 model in CPU mode (§4.10 of that document: one 32-work-item group
//!   per core, N = 1, MWP = 1) on the `e5645` parameter set with Table 6.1's host substituted
//!   ([`cmp_params`]: 4 cores, 3.4 GHz, 22 GB/s, an 8 MB LLC as the model's L2 extension);
//! * **GPU**: the document-002 GPU model on a GPU parameter set (default `gtx480`, the product's
//!   calibrated GPU) plus a launch overhead and the host↔device copies over PCIe 3.0 x16, which go
//!   through host DRAM (§6.1).
//!
//! Interference (documented queueing / sharing models, no constant fitted to the document):
//! * **cores**: processor sharing — `n` runnable threads on `c` cores each get `min(1, c/n)` of
//!   a core, so every CPU program's time is multiplied by `max(1, n/c)` (the OpenCL CPU runtime
//!   runs one worker per core; the GPU target's host thread sleeps);
//! * **LLC**: occupancy of a shared LRU cache in proportion to each program's insertion (miss)
//!   rate measured alone, capped at its footprint with the remainder redistributed (water
//!   filling); a program keeping a share `S` of its alone occupancy `S_a` keeps `S/S_a` of its
//!   LLC hits (random reuse, the same scaling as the analyser's first-touch L2 estimate);
//! * **host DRAM**: an M/M/1 server of capacity `B`: the latency at utilisation ρ is
//!   `L0/(1−ρ)`, so a program's DRAM-stall time measured alone at its own utilisation `ρ_a`
//!   becomes `M × (1−ρ_a)/(1−ρ)`. The utilisation is the fixed point
//!   `ρ = Σ_i bytes_i / (B × T_i(ρ))` (closed system: slower programs demand less), solved by
//!   bisection; the DMA engine of a transfer is such a program with no compute part.
//!
//! Co-runners run continuously (steady state); the GPU target loads host DRAM only while it
//! copies, so a co-runner's slowdown there is the progress-rate average over the copy and
//! compute phases.

use super::corunner::CoRunner;
use crate::analyser::KernelProfile;
use crate::options::ModelOptions;
use crate::params::{self, DeviceParams};
use crate::predict::predict;
use crate::ModelError;
use serde::{Deserialize, Serialize};

/// Table 6.1 host and the interference-model constants.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Platform {
    /// CMP cores (i7-3770: 4, Hyper-Threading off).
    pub cores: u32,
    /// Shared LLC, bytes (8 MB).
    pub llc_bytes: f64,
    /// Host DRAM bandwidth available, GB/s (22 GB/s, Table 6.1).
    pub dram_gbs: f64,
    /// Effective PCIe 3.0 x16 copy bandwidth, GB/s (15.75 GB/s raw; \[External\] about 12 GB/s
    /// achieved by pinned DMA copies).
    pub pcie_gbs: f64,
    /// Host launch overhead added per launch on the CPU device, s. 0 by default: the document
    /// measures times with `clGetEventProfilingInfo()` (§6.5), i.e. the device execution of the
    /// kernel and copy commands, which excludes the host's submission overhead (its kernels run
    /// for seconds, where the overhead would not matter anyway). \[External\] ~5 µs on a real
    /// driver.
    pub cpu_launch_s: f64,
    /// Host launch overhead per launch on the discrete GPU, s (0 by default, as above;
    /// \[External\] ~10 µs on a real driver).
    pub gpu_launch_s: f64,
    /// Highest host-DRAM utilisation the M/M/1 solve allows (keeps latencies finite).
    pub rho_max: f64,
}

impl Default for Platform {
    fn default() -> Self {
        Platform {
            cores: 4,
            llc_bytes: 8.0 * 1024.0 * 1024.0,
            dram_gbs: 22.0,
            pcie_gbs: 12.0,
            cpu_launch_s: 0.0,
            gpu_launch_s: 0.0,
            rho_max: 0.98,
        }
    }
}

/// The CMP as a document-002 CPU parameter set: `e5645` with Table 6.1's host substituted (4
/// cores, 3.4 GHz, 22 GB/s) and the 8 MB LLC as the L2 extension (round trip 30 core cycles,
/// \[External\] Ivy Bridge L3 latency; DRAM `Mem_LD` stays 250 cycles ≈ 74 ns).
pub fn cmp_params(p: &Platform) -> Result<DeviceParams, ModelError> {
    let mut d = params::builtin("e5645")?;
    d.name = "i7-3770".into();
    d.description = "Intel Core i7-3770 (Table 6.1 host) in the document-002 CPU mode".into();
    d.source = format!(
        "e5645 with document 000 Table 6.1 substituted: {} cores, 3.4 GHz, {} GB/s, {} MB LLC as the L2 extension (30-cycle hit)",
        p.cores,
        p.dram_gbs,
        p.llc_bytes / 1048576.0
    );
    d.core.num_sms = p.cores;
    d.core.freq_ghz = 3.4;
    d.memory.bandwidth_gbs = p.dram_gbs;
    d.memory.l2_latency = 30.0;
    d.memory.l2_bytes = p.llc_bytes as u64;
    Ok(d)
}

/// One program in the host-memory solve.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Load {
    /// Time not spent on DRAM stalls, s.
    pub compute_s: f64,
    /// DRAM-stall time at the alone latency, s.
    pub memory_s: f64,
    /// Bytes moved to/from host DRAM.
    pub dram_bytes: f64,
    /// Host-DRAM utilisation at which `memory_s` holds (its own, alone).
    pub rho_alone: f64,
    /// Processor-sharing factor (≥ 1; 1 for a DMA engine).
    pub ps: f64,
}

impl Load {
    /// Time at host-DRAM utilisation `rho`, s.
    pub fn time_at(&self, rho: f64) -> f64 {
        self.ps * (self.compute_s + self.memory_s * (1.0 - self.rho_alone) / (1.0 - rho))
    }
}

/// Solves the closed M/M/1 host-DRAM fixed point; returns `(ρ, times)`.
pub fn solve(p: &Platform, loads: &[Load]) -> (f64, Vec<f64>) {
    let cap = p.dram_gbs * 1e9;
    let excess = |rho: f64| -> f64 {
        loads
            .iter()
            .map(|l| {
                let t = l.time_at(rho);
                if t > 0.0 {
                    l.dram_bytes / (cap * t)
                } else {
                    0.0
                }
            })
            .sum::<f64>()
            - rho
    };
    let rho = if excess(p.rho_max) >= 0.0 {
        p.rho_max
    } else {
        let (mut lo, mut hi) = (0.0, p.rho_max);
        for _ in 0..100 {
            let mid = 0.5 * (lo + hi);
            if excess(mid) > 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        0.5 * (lo + hi)
    };
    (rho, loads.iter().map(|l| l.time_at(rho)).collect())
}

/// LLC shares (bytes) in proportion to `rates`, each capped at its footprint, the remainder
/// redistributed among the others (water filling). Programs with no insertions get their
/// footprint if it fits in what is left, else nothing.
pub fn llc_shares(llc: f64, rates: &[f64], footprints: &[f64]) -> Vec<f64> {
    let n = rates.len();
    let mut share = vec![0.0; n];
    let mut open: Vec<usize> = (0..n).collect();
    let mut left = llc;
    loop {
        let total: f64 = open.iter().map(|&i| rates[i]).sum();
        if open.is_empty() || left <= 0.0 {
            break;
        }
        if total <= 0.0 {
            for &i in &open {
                share[i] = footprints[i].min(left / open.len() as f64);
            }
            break;
        }
        let capped: Vec<usize> = open
            .iter()
            .copied()
            .filter(|&i| left * rates[i] / total >= footprints[i])
            .collect();
        if capped.is_empty() {
            for &i in &open {
                share[i] = left * rates[i] / total;
            }
            break;
        }
        for &i in &capped {
            share[i] = footprints[i];
            left -= footprints[i];
        }
        open.retain(|i| !capped.contains(i));
    }
    share
}

/// A co-runner's load when it keeps `share` bytes of the LLC, sharing the cores `ps`.
pub fn corunner_load(p: &Platform, c: &CoRunner, share: f64, ps: f64) -> Load {
    let occ_alone = c.footprint_bytes.min(p.llc_bytes);
    let keep = if occ_alone > 0.0 {
        (share / occ_alone).min(1.0)
    } else {
        1.0
    };
    let hit = c.llc_hit * keep;
    let miss = (1.0 - hit) / (1.0 - c.llc_hit).max(1e-9);
    Load {
        compute_s: 1.0 - c.memory_fraction,
        memory_s: c.memory_fraction * miss,
        dram_bytes: c.dram_gbs * 1e9 * miss,
        rho_alone: (c.dram_gbs / p.dram_gbs).min(p.rho_max),
        ps,
    }
}

/// An OpenCL kernel: the analyser's launches of one kernel name, profiled for each target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelJob {
    /// `workload/kernel`.
    pub name: String,
    /// Launches as the CMP parameter set's analyser saw them.
    pub cmp: Vec<KernelProfile>,
    /// Launches as the GPU parameter set's analyser saw them.
    pub gpu: Vec<KernelProfile>,
}

impl KernelJob {
    /// Buffers the kernel uses: the largest footprint of a launch, bytes.
    pub fn buffer_bytes(&self) -> f64 {
        self.cmp
            .iter()
            .map(|p| p.footprint_lines * 128)
            .max()
            .unwrap_or(0) as f64
    }

    /// Host↔device copies of the GPU target: the buffers in, and the stored share of them back.
    pub fn transfer_bytes(&self) -> f64 {
        let (st, mem) = self.gpu.iter().fold((0u64, 0u64), |(s, m), p| {
            (s + p.store_insts, m + p.coal_mem_insts + p.uncoal_mem_insts)
        });
        let back = if mem > 0 { st as f64 / mem as f64 } else { 0.0 };
        self.buffer_bytes() * (1.0 + back)
    }
}

/// Ground-truth times of one kernel against one set of co-runners.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// CMP alone, s.
    pub cmp_alone: f64,
    /// GPU alone (launches + kernel + copies), s.
    pub gpu_alone: f64,
    /// CMP co-located, s.
    pub cmp_coloc: f64,
    /// GPU co-located, s.
    pub gpu_coloc: f64,
    /// Co-runner slowdowns with the kernel on the CMP.
    pub corunner_sd_cmp: Vec<f64>,
    /// Co-runner slowdowns with the kernel on the GPU.
    pub corunner_sd_gpu: Vec<f64>,
    /// Host-DRAM utilisation, kernel on the CMP.
    pub rho_cmp: f64,
    /// Host-DRAM utilisation during the copies, kernel on the GPU.
    pub rho_gpu_copy: f64,
}

/// The two targets, their models and the platform.
#[derive(Debug, Clone, PartialEq)]
pub struct Targets {
    /// Host platform.
    pub platform: Platform,
    /// CMP parameter set.
    pub cmp: DeviceParams,
    /// GPU parameter set.
    pub gpu: DeviceParams,
    /// Model options (the document-002 defaults).
    pub opts: ModelOptions,
}

/// A kernel's alone CMP behaviour at an LLC capacity.
#[derive(Debug, Clone, Copy, PartialEq)]
struct CmpPoint {
    time_s: f64,
    memory_s: f64,
    dram_bytes: f64,
}

impl Targets {
    /// Table 6.1 CMP ([`cmp_params`]) and the given GPU parameter set.
    pub fn new(platform: Platform, gpu: DeviceParams) -> Result<Self, ModelError> {
        Ok(Targets {
            cmp: cmp_params(&platform)?,
            platform,
            gpu,
            opts: ModelOptions::default(),
        })
    }

    /// The CMP model at LLC capacity `llc` bytes: time, its DRAM-stall part (the model's time
    /// gained per extra `Mem_LD`, i.e. evaluated at 2× DRAM latency minus 1×) and the DRAM bytes
    /// (transactions that miss the first-touch LLC estimate).
    fn cmp_point(&self, job: &KernelJob, llc: f64) -> Result<CmpPoint, ModelError> {
        let mut prof = job.cmp.clone();
        for p in &mut prof {
            p.l2_bytes = llc.max(1.0) as u64;
        }
        let launch = prof.len() as f64 * self.platform.cpu_launch_s;
        let t1 = predict(&self.cmp, &prof, &self.opts)?.time_s;
        let mut slow = self.cmp.clone();
        slow.memory.mem_ld *= 2.0;
        let t2 = predict(&slow, &prof, &self.opts)?.time_s;
        let dram: f64 = prof
            .iter()
            .map(|p| p.transaction_bytes as f64 * (1.0 - p.l2_hit_rate()))
            .sum();
        Ok(CmpPoint {
            time_s: t1 + launch,
            memory_s: (t2 - t1).clamp(0.0, t1),
            dram_bytes: dram,
        })
    }

    fn cmp_load(&self, pt: &CmpPoint, rho_alone: f64, ps: f64) -> Load {
        Load {
            compute_s: pt.time_s - pt.memory_s,
            memory_s: pt.memory_s,
            dram_bytes: pt.dram_bytes,
            rho_alone,
            ps,
        }
    }

    /// GPU kernel time (launches + the GPU model), s.
    pub fn gpu_kernel_s(&self, job: &KernelJob) -> Result<f64, ModelError> {
        Ok(predict(&self.gpu, &job.gpu, &self.opts)?.time_s
            + job.gpu.len() as f64 * self.platform.gpu_launch_s)
    }

    /// Alone and co-located times of `job` on both targets with `corunners` running.
    pub fn measure(&self, job: &KernelJob, corunners: &[CoRunner]) -> Result<Measured, ModelError> {
        let p = &self.platform;
        let cap = p.dram_gbs * 1e9;
        // CMP alone.
        let alone = self.cmp_point(job, p.llc_bytes)?;
        let rho_k = (alone.dram_bytes / (cap * alone.time_s)).min(p.rho_max);
        // CMP co-located: LLC shares by alone insertion rate, processor sharing of the cores.
        let mut rates = vec![alone.dram_bytes / alone.time_s];
        let mut foot = vec![job.buffer_bytes()];
        for c in corunners {
            rates.push(c.insertion_rate());
            foot.push(c.footprint_bytes);
        }
        let shares = llc_shares(p.llc_bytes, &rates, &foot);
        let threads = p.cores as f64 + corunners.len() as f64;
        let ps = (threads / p.cores as f64).max(1.0);
        let kpt = if corunners.is_empty() {
            alone
        } else {
            self.cmp_point(job, shares[0].min(p.llc_bytes))?
        };
        let mut loads = vec![self.cmp_load(&kpt, rho_k, ps)];
        for (c, s) in corunners.iter().zip(&shares[1..]) {
            loads.push(corunner_load(p, c, *s, ps));
        }
        let (rho_cmp, t_cmp) = if corunners.is_empty() {
            (rho_k, vec![alone.time_s])
        } else {
            solve(p, &loads)
        };
        // GPU alone: launches + kernel + copies at the PCIe rate.
        let kernel_s = self.gpu_kernel_s(job)?;
        let xfer = job.transfer_bytes();
        let copy_alone = xfer / (p.pcie_gbs.min(p.dram_gbs) * 1e9);
        let gpu_alone = kernel_s + copy_alone;
        // GPU co-located: the co-runners share the LLC among themselves; the DMA engine joins
        // the host-DRAM solve while it copies.
        let mut gpu_sd = Vec::new();
        let (mut gpu_coloc, mut rho_copy) = (gpu_alone, 0.0);
        if !corunners.is_empty() {
            let r: Vec<f64> = corunners.iter().map(|c| c.insertion_rate()).collect();
            let f: Vec<f64> = corunners.iter().map(|c| c.footprint_bytes).collect();
            let sh = llc_shares(p.llc_bytes, &r, &f);
            let ps_g = (corunners.len() as f64 / p.cores as f64).max(1.0);
            let base: Vec<Load> = corunners
                .iter()
                .zip(&sh)
                .map(|(c, s)| corunner_load(p, c, *s, ps_g))
                .collect();
            let (_, t_quiet) = solve(p, &base);
            let mut with_dma = base.clone();
            with_dma.push(Load {
                compute_s: 0.0,
                memory_s: copy_alone,
                dram_bytes: xfer,
                rho_alone: (p.pcie_gbs / p.dram_gbs).min(p.rho_max),
                ps: 1.0,
            });
            let (rho, t_copy) = solve(p, &with_dma);
            rho_copy = rho;
            let copy_s = t_copy[corunners.len()];
            gpu_coloc = kernel_s + copy_s;
            let fx = if gpu_coloc > 0.0 {
                copy_s / gpu_coloc
            } else {
                0.0
            };
            for j in 0..corunners.len() {
                let rate = fx / t_copy[j] + (1.0 - fx) / t_quiet[j];
                gpu_sd.push(1.0 / rate);
            }
        }
        Ok(Measured {
            cmp_alone: alone.time_s,
            gpu_alone,
            cmp_coloc: t_cmp[0],
            gpu_coloc,
            corunner_sd_cmp: t_cmp[1..].to_vec(),
            corunner_sd_gpu: gpu_sd,
            rho_cmp,
            rho_gpu_copy: rho_copy,
        })
    }

    /// A co-runner's slowdown against a bubble: a streaming program on its own core that
    /// demands `bubble_gbs` of host DRAM alone and keeps `bubble_llc` bytes of LLC (Bubble-up's
    /// offline measurement, done on the same interference model).
    pub fn bubble_slowdown(&self, c: &CoRunner, bubble_gbs: f64, bubble_llc: f64) -> f64 {
        let p = &self.platform;
        let shares = llc_shares(
            p.llc_bytes,
            &[c.insertion_rate(), bubble_gbs * 1e9],
            &[c.footprint_bytes, bubble_llc],
        );
        let co = corunner_load(p, c, shares[0], 1.0);
        if bubble_gbs <= 0.0 {
            return solve(p, &[co]).1[0];
        }
        let rho_b = (bubble_gbs / p.dram_gbs).min(p.rho_max);
        let bubble = Load {
            compute_s: 0.0,
            memory_s: 1.0,
            dram_bytes: bubble_gbs * 1e9,
            rho_alone: rho_b,
            ps: 1.0,
        };
        solve(p, &[co, bubble]).1[0]
    }
}
