//! `sc` and `sc_mid`: Streamcluster (Rodinia streamcluster; Lee 2017 SC_small 32x4096 and
//! SC_mid 64x8192; CAWA Sens (small) / Non-sens (mid), Ctrl-C, Table 3.2).
//!
//! The document's two inputs are registered as two workloads sharing one kernel
//! (`workloads/sc/`): `sc` is SC_small (32 dimensions x 4096 points at paper size) and `sc_mid`
//! is SC_mid (64 x 8192). At `small` size both keep the document's shape and evaluate fewer
//! candidate facilities. One `sc_pgain` launch per candidate; the host reduces the per-CTA
//! accumulators and opens/closes facilities as the original's `pgain` does.
//!
//! Check (stepwise): for every candidate, the switch decisions must equal the CPU's (points whose
//! two costs are within 1e-5 relative may go either way) and the per-center sums over CTAs must
//! match the CPU's within 1e-3 of the total cost.

use rand::Rng;
use warpforge_simt::{Device, KernelArg as A};

use crate::common::{by_size, grid1d, load, rng};
use crate::{Check, Size, Workload, WorkloadError, WorkloadInfo};

const PTX: &str = include_str!("../../sc/kernel.ptx");
const BLOCK: u32 = 256;
const MAXK: usize = 64;

/// Streamcluster with one of the document's two input shapes.
pub struct Sc {
    /// `true` for SC_mid (64x8192), `false` for SC_small (32x4096).
    pub mid: bool,
}

/// SC_small.
pub static SC_SMALL: Sc = Sc { mid: false };
/// SC_mid.
pub static SC_MID: Sc = Sc { mid: true };

impl Sc {
    fn name(&self) -> &'static str {
        if self.mid {
            "sc_mid"
        } else {
            "sc"
        }
    }

    /// (dimensions, points, candidate facilities)
    fn dims(&self, size: Size) -> (usize, usize, usize) {
        if self.mid {
            by_size(size, (16, 1024, 4), (64, 8192, 4), (64, 8192, 60))
        } else {
            by_size(size, (8, 512, 4), (32, 4096, 16), (32, 4096, 60))
        }
    }
}

fn dist(coord: &[f32], n: usize, dim: usize, a: usize, b: usize) -> f64 {
    (0..dim)
        .map(|f| (coord[f * n + a] as f64 - coord[f * n + b] as f64).powi(2))
        .sum()
}

impl Workload for Sc {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: self.name(),
            application: if self.mid {
                "Streamcluster, SC_mid input (Rodinia)"
            } else {
                "Streamcluster, SC_small input (Rodinia)"
            },
            suite: "Rodinia",
            sets: if self.mid {
                "latency, CAWA (Non-sens)"
            } else {
                "latency, CAWA (Sens), Ctrl-C"
            },
            kernels: &["sc_pgain"],
            behaviour: "coalesced streaming over [dim][point], shared float atomics, low reuse",
        }
    }

    fn input(&self, size: Size) -> String {
        let (d, n, c) = self.dims(size);
        format!("{d} dims x {n} points, {c} candidates")
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let (dim, n, cands) = self.dims(size);
        let mut r = rng(self.name(), size);
        let seeds: Vec<Vec<f32>> = (0..10)
            .map(|_| (0..dim).map(|_| r.gen_range(0.0..1.0)).collect())
            .collect();
        let mut coord = vec![0f32; dim * n];
        for p in 0..n {
            let s = &seeds[r.gen_range(0..seeds.len())];
            for f in 0..dim {
                coord[f * n + p] = s[f] + r.gen_range(-0.15f32..0.15);
            }
        }
        let weight: Vec<f32> = (0..n).map(|_| r.gen_range(1..=3) as f32).collect();
        let z = dim as f64 * 0.5; // facility cost
        let mut centers = vec![0usize];
        let mut assign = vec![0i32; n];
        let mut cost: Vec<f32> = (0..n)
            .map(|p| (dist(&coord, n, dim, p, 0) * weight[p] as f64) as f32)
            .collect();

        let m = load(dev, PTX, self.name())?;
        let dc = dev.alloc_copy(&coord)?;
        let dwt = dev.alloc_copy(&weight)?;
        let da = dev.malloc(4 * n as u64)?;
        let dcost = dev.malloc(4 * n as u64)?;
        let dtable = dev.malloc(4 * n as u64)?;
        let dswitch = dev.malloc(4 * n as u64)?;
        let cfg = grid1d(n as u32, BLOCK);
        let blocks = cfg.grid.x as usize;
        let dwork = dev.malloc((4 * blocks * (MAXK + 1)) as u64)?;
        for step in 0..cands {
            let k = centers.len();
            let x = loop {
                let x = r.gen_range(0..n);
                if !centers.contains(&x) {
                    break x;
                }
            };
            let mut table = vec![0i32; n];
            for (slot, &c) in centers.iter().enumerate() {
                table[c] = slot as i32;
            }
            dev.copy_htod(da, &assign)?;
            dev.copy_htod(dcost, &cost)?;
            dev.copy_htod(dtable, &table)?;
            let args = [
                A::Ptr(dc),
                A::Ptr(dwt),
                A::Ptr(da),
                A::Ptr(dcost),
                A::Ptr(dtable),
                A::S32(x as i32),
                A::S32(dim as i32),
                A::S32(n as i32),
                A::S32(k as i32),
                A::Ptr(dwork),
                A::Ptr(dswitch),
            ];
            dev.launch(m, "sc_pgain", cfg, &args)?;
            let sw = dev.read::<i32>(dswitch, n)?;
            let work = dev.read::<f32>(dwork, blocks * (MAXK + 1))?;
            let mut gsum = vec![0f64; k + 1];
            for b in 0..blocks {
                for (j, g) in gsum.iter_mut().enumerate() {
                    *g += work[b * (k + 1) + j] as f64;
                }
            }
            // CPU reference for this step.
            let mut want = vec![0f64; k + 1];
            let x_cost: Vec<f64> = (0..n)
                .map(|p| dist(&coord, n, dim, p, x) * weight[p] as f64)
                .collect();
            for p in 0..n {
                let cur = cost[p] as f64;
                let tie = (x_cost[p] - cur).abs() <= 1e-5 * cur.max(1e-6);
                let cpu_switch = x_cost[p] < cur;
                if !tie && (sw[p] == 1) != cpu_switch {
                    return Ok(Check::Failed(format!(
                        "candidate {step}: point {p} switch = {}, reference {} (x_cost {}, cost {cur})",
                        sw[p], cpu_switch as i32, x_cost[p]
                    )));
                }
                if sw[p] == 1 {
                    want[k] += x_cost[p] - cur;
                } else {
                    want[table[assign[p] as usize] as usize] += cur - x_cost[p];
                }
            }
            let total: f64 = cost.iter().map(|&c| c as f64).sum();
            for j in 0..=k {
                if (gsum[j] - want[j]).abs() > 1e-3 * total.max(1.0) {
                    return Ok(Check::Failed(format!(
                        "candidate {step}: center slot {j} sum {}, reference {}",
                        gsum[j], want[j]
                    )));
                }
            }
            // Host decision, from the device's results (as the original).
            let mut open_cost = z + gsum[k];
            let mut close = vec![false; k];
            for (c, cl) in close.iter_mut().enumerate() {
                let benefit = z + gsum[c];
                if benefit > 0.0 {
                    *cl = true;
                    open_cost -= benefit;
                }
            }
            if open_cost < 0.0 && k < MAXK {
                for p in 0..n {
                    let slot = table[assign[p] as usize] as usize;
                    if sw[p] == 1 || close[slot] {
                        assign[p] = x as i32;
                        cost[p] = x_cost[p] as f32;
                    }
                }
                let mut next: Vec<usize> = centers
                    .iter()
                    .zip(&close)
                    .filter(|(_, &c)| !c)
                    .map(|(&c, _)| c)
                    .collect();
                next.push(x);
                centers = next;
            }
        }
        Ok(Check::Passed)
    }
}
