//! `lbm`: LBM (Parboil), document 004 Table 3 (120x150 blocks x 120 threads: the 120x120x150
//! "short" lattice). See `workloads/lbm/README.md`.
//!
//! A lid-driven cavity: the shell of the box (x = 0 and nx-1, y = 0 and ny-1, z = 0) and a sphere
//! in the fluid are obstacle cells, the top layer z = nz-1 is the accelerated lid. Distributions
//! start at the rest equilibrium with a seeded +-1 % perturbation. Each time step is one
//! `lbm_stream_collide` launch on an (ny, nz) grid of nx-thread blocks, the two lattices swapping.
//! Checked stepwise (docs/WORKLOADS.md): every step's output lattice against an f32 CPU step from
//! the device's own input lattice, rtol 1e-4 / atol 1e-6.

use crate::common::{by_size, compare_f32, load, rng, shape};
use crate::{check_or_return, Check, Size, Workload, WorkloadError, WorkloadInfo};
use rand::Rng;
use warpforge_core::Dim3;
use warpforge_simt::{Device, KernelArg as A};

const PTX: &str = include_str!("../../lbm/kernel.ptx");
/// BGK relaxation parameter (Parboil's 1.95).
const OMEGA: f32 = 1.95;
const Q: usize = 19;
// Parboil's direction order: C, N, S, E, W, T, B, NE, NW, SE, SW, NT, NB, ST, SB, ET, EB, WT, WB.
const EX: [i32; Q] = [0, 0, 0, 1, -1, 0, 0, 1, -1, 1, -1, 0, 0, 0, 0, 1, 1, -1, -1];
const EY: [i32; Q] = [0, 1, -1, 0, 0, 0, 0, 1, 1, -1, -1, 1, 1, -1, -1, 0, 0, 0, 0];
const EZ: [i32; Q] = [0, 0, 0, 0, 0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 1, -1, 1, -1];
const OPP: [usize; Q] = [
    0, 2, 1, 4, 3, 6, 5, 10, 9, 8, 7, 14, 13, 12, 11, 18, 17, 16, 15,
];
const FLUID: i32 = 0;
const OBSTACLE: i32 = 1;
const ACCEL: i32 = 2;

/// The lattice-Boltzmann workload.
pub struct Lbm;

/// (nx, ny, nz, time steps) at `size`. Paper: Parboil's "short" lattice, Table 3's grid; the step
/// count is ours (the document gives the thread configuration only).
fn dims(size: Size) -> (usize, usize, usize, usize) {
    by_size(size, (16, 8, 8, 2), (64, 64, 16, 1), (120, 120, 150, 10))
}

fn weight(e: usize) -> f32 {
    match e {
        0 => 1.0 / 3.0,
        1..=6 => 1.0 / 18.0,
        _ => 1.0 / 36.0,
    }
}

/// The cavity's cell flags, `x + nx * (y + ny * z)` order.
fn flags(nx: usize, ny: usize, nz: usize) -> Vec<i32> {
    let (cx, cy, cz) = (nx as f32 / 2.0, ny as f32 / 2.0, nz as f32 / 3.0);
    let rad = nx.min(ny).min(nz) as f32 / 5.0;
    let mut v = vec![FLUID; nx * ny * nz];
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                let (dx, dy, dz) = (
                    x as f32 + 0.5 - cx,
                    y as f32 + 0.5 - cy,
                    z as f32 + 0.5 - cz,
                );
                let shell = x == 0 || x == nx - 1 || y == 0 || y == ny - 1 || z == 0;
                v[x + nx * (y + ny * z)] = if shell || dx * dx + dy * dy + dz * dz < rad * rad {
                    OBSTACLE
                } else if z == nz - 1 {
                    ACCEL
                } else {
                    FLUID
                };
            }
        }
    }
    v
}

fn wrap(v: i32, n: usize) -> usize {
    v.rem_euclid(n as i32) as usize
}

/// One CPU time step, the kernel's arithmetic in f32.
fn step(src: &[f32], fl: &[i32], (nx, ny, nz): (usize, usize, usize)) -> Vec<f32> {
    let n = nx * ny * nz;
    let mut dst = vec![0f32; Q * n];
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                let c = x + nx * (y + ny * z);
                let f: Vec<f32> = (0..Q).map(|e| src[e * n + c]).collect();
                let mut out = [0f32; Q];
                if fl[c] == OBSTACLE {
                    for e in 0..Q {
                        out[e] = f[OPP[e]];
                    }
                } else {
                    let (mut rho, mut ux, mut uy, mut uz) = (0f32, 0f32, 0f32, 0f32);
                    for e in 0..Q {
                        rho += f[e];
                        ux += EX[e] as f32 * f[e];
                        uy += EY[e] as f32 * f[e];
                        uz += EZ[e] as f32 * f[e];
                    }
                    (ux, uy, uz) = (ux / rho, uy / rho, uz / rho);
                    if fl[c] == ACCEL {
                        (ux, uy, uz) = (0.005, 0.002, 0.0);
                    }
                    let u2 = 1.5 * (ux * ux + uy * uy + uz * uz);
                    for e in 0..Q {
                        let eu = EX[e] as f32 * ux + EY[e] as f32 * uy + EZ[e] as f32 * uz;
                        let feq = weight(e) * rho * (1.0 + 3.0 * eu + 4.5 * eu * eu - u2);
                        out[e] = f[e] + OMEGA * (feq - f[e]);
                    }
                }
                for e in 0..Q {
                    let t = wrap(x as i32 + EX[e], nx)
                        + nx * (wrap(y as i32 + EY[e], ny) + ny * wrap(z as i32 + EZ[e], nz));
                    dst[e * n + t] = out[e];
                }
            }
        }
    }
    dst
}

impl Workload for Lbm {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "lbm",
            application: "Lattice-Boltzmann Method (Parboil)",
            suite: "Parboil",
            sets: "RAI",
            kernels: &["lbm_stream_collide"],
            behaviour: "streaming D3Q19 stencil: 19 coalesced SoA loads and 19 shifted stores per cell, no reuse within a step",
        }
    }

    fn input(&self, size: Size) -> String {
        let (nx, ny, nz, t) = dims(size);
        format!("{nx}x{ny}x{nz} lattice, {t} time steps")
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let (nx, ny, nz, steps) = dims(size);
        let n = nx * ny * nz;
        let fl = flags(nx, ny, nz);
        let mut r = rng("lbm", size);
        let mut host = vec![0f32; Q * n];
        for e in 0..Q {
            for c in 0..n {
                host[e * n + c] = weight(e) * (1.0 + r.gen_range(-0.01..0.01));
            }
        }
        let m = load(dev, PTX, "lbm")?;
        let dflags = dev.alloc_copy(&fl)?;
        let mut src = dev.alloc_copy(&host)?;
        let mut dst = dev.alloc_copy(&vec![0f32; Q * n])?;
        let cfg = shape(Dim3::new(ny as u32, nz as u32, 1), Dim3::x(nx as u32));
        for s in 0..steps {
            dev.launch(
                m,
                "lbm_stream_collide",
                cfg,
                &[
                    A::Ptr(src),
                    A::Ptr(dst),
                    A::Ptr(dflags),
                    A::S32(nx as i32),
                    A::S32(ny as i32),
                    A::S32(nz as i32),
                    A::F32(OMEGA),
                ],
            )?;
            let want = step(&host, &fl, (nx, ny, nz));
            let got: Vec<f32> = dev.read(dst, Q * n)?;
            check_or_return!(
                format!("lbm step {s}"),
                compare_f32("distributions", &got, &want, 1e-4, 1e-6)
            );
            host = got;
            std::mem::swap(&mut src, &mut dst);
        }
        Ok(Check::Passed)
    }
}
