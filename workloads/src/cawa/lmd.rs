//! `lmd`: LavaMD-like particle interactions (modelled on Rodinia lavaMD; latency Table 3.2).
//!
//! `boxes^3` boxes of 100 particles; one 128-thread CTA per home box walks itself and its up to
//! 26 neighbours, staging each neighbour's particles in shared memory (16-byte vector loads), and
//! accumulates potential and force with an `exp` decay. Dense shared-memory and SFU traffic: the
//! LD/ST structural-hazard case of §2.4.
//!
//! Check: potentials and forces within 1e-3 relative (+1e-3 absolute) of a CPU f64 sum.

use rand::Rng;
use warpforge_core::Dim3;
use warpforge_simt::{Device, KernelArg as A};

use crate::common::{by_size, compare_f32, load, rng, shape};
use crate::{Check, Size, Workload, WorkloadError, WorkloadInfo};

const PTX: &str = include_str!("../../lmd/kernel.ptx");
const NP: usize = 100;
const A2: f32 = 0.5;

/// The LavaMD-like workload.
pub struct Lmd;

fn boxes(size: Size) -> usize {
    by_size(size, 1, 2, 10)
}

impl Workload for Lmd {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "lmd",
            application: "LavaMD (Rodinia)",
            suite: "Rodinia",
            sets: "latency",
            kernels: &["lmd_forces"],
            behaviour: "shared-memory heavy pair loop, vector loads, SFU exp, 100 of 128 lanes",
        }
    }

    fn input(&self, size: Size) -> String {
        let b = boxes(size);
        format!("{b}x{b}x{b} boxes x {NP} particles")
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let b = boxes(size);
        let nbox = b * b * b;
        let mut r = rng("lmd", size);
        let mut rv = Vec::with_capacity(4 * nbox * NP);
        let mut qv = Vec::with_capacity(nbox * NP);
        for bi in 0..nbox {
            let (bx, by, bz) = (
                (bi % b) as f32,
                ((bi / b) % b) as f32,
                (bi / (b * b)) as f32,
            );
            for _ in 0..NP {
                let (x, y, z) = (
                    bx + r.gen_range(0.0f32..1.0),
                    by + r.gen_range(0.0f32..1.0),
                    bz + r.gen_range(0.0f32..1.0),
                );
                rv.extend([x * x + y * y + z * z, x, y, z]);
                qv.push(r.gen_range(0.1f32..1.0));
            }
        }
        let mut nn = vec![0i32; nbox];
        let mut nei = vec![0i32; nbox * 26];
        for bi in 0..nbox {
            let (x, y, z) = (
                (bi % b) as i32,
                ((bi / b) % b) as i32,
                (bi / (b * b)) as i32,
            );
            for dz in -1..=1 {
                for dy in -1..=1 {
                    for dx in -1..=1 {
                        let (nx, ny, nz) = (x + dx, y + dy, z + dz);
                        let inside = [nx, ny, nz].iter().all(|&c| (0..b as i32).contains(&c));
                        if (dx, dy, dz) != (0, 0, 0) && inside {
                            let id = (nz as usize * b + ny as usize) * b + nx as usize;
                            nei[bi * 26 + nn[bi] as usize] = id as i32;
                            nn[bi] += 1;
                        }
                    }
                }
            }
        }
        let m = load(dev, PTX, "lmd")?;
        let drv = dev.alloc_copy(&rv)?;
        let dqv = dev.alloc_copy(&qv)?;
        let dnn = dev.alloc_copy(&nn)?;
        let dnei = dev.alloc_copy(&nei)?;
        let dfv = dev.malloc((16 * nbox * NP) as u64)?;
        let cfg = shape(Dim3::x(nbox as u32), Dim3::x(128));
        let args = [
            A::Ptr(drv),
            A::Ptr(dqv),
            A::Ptr(dnn),
            A::Ptr(dnei),
            A::Ptr(dfv),
            A::F32(A2),
        ];
        dev.launch(m, "lmd_forces", cfg, &args)?;
        let got = dev.read::<f32>(dfv, 4 * nbox * NP)?;
        let mut want = vec![0f32; 4 * nbox * NP];
        for home in 0..nbox {
            let boxes_of = std::iter::once(home).chain(
                nei[home * 26..home * 26 + nn[home] as usize]
                    .iter()
                    .map(|&v| v as usize),
            );
            let list: Vec<usize> = boxes_of.collect();
            for i in 0..NP {
                let a = &rv[(home * NP + i) * 4..][..4];
                let mut acc = [0f64; 4];
                for &bx in &list {
                    for j in 0..NP {
                        let o = &rv[(bx * NP + j) * 4..][..4];
                        let dot = a[1] as f64 * o[1] as f64
                            + a[2] as f64 * o[2] as f64
                            + a[3] as f64 * o[3] as f64;
                        let r2 = a[0] as f64 + o[0] as f64 - 2.0 * dot;
                        let vij = (-(A2 as f64) * r2).exp();
                        let q = qv[bx * NP + j] as f64;
                        acc[0] += q * vij;
                        for c in 1..4 {
                            acc[c] += q * 2.0 * vij * (a[c] as f64 - o[c] as f64);
                        }
                    }
                }
                for c in 0..4 {
                    want[(home * NP + i) * 4 + c] = acc[c] as f32;
                }
            }
        }
        Ok(compare_f32("lmd force", &got, &want, 1e-3, 1e-3))
    }
}
