//! `cfd`: CFD (Rodinia 3.0 euler3d), document 004 Table 3 (759 blocks x 128 threads: the 97K-cell
//! mesh). See `workloads/cfd/README.md`.
//!
//! The mesh is generated: the first `nel` cells of a gx x gy x gz box, each with four faces (x+1,
//! x-1, and one y and one z neighbour chosen by the cell's parity, a symmetric relation), cell
//! numbers shuffled within windows of 512 (the local disorder of a renumbered unstructured
//! mesh), faces leaving the mesh at z = 0 are walls (-1), all other missing neighbours far field
//! (-2). Face normals are antisymmetric between the two cells of a face; the initial state is
//! the far field (Mach 1.2, 3 degrees) with a seeded +-5 % perturbation. Per iteration: save the
//! variables, `cfd_step_factor`, then 3 Runge-Kutta stages of `cfd_flux` + `cfd_time_step`.
//! Checked stepwise: every launch's output against an f32 CPU computation from the device's own
//! inputs, rtol 1e-3 / atol 1e-4.

use crate::common::{by_size, compare_f32, grid1d, load, rng};
use crate::{check_or_return, Check, Size, Workload, WorkloadError, WorkloadInfo};
use rand::seq::SliceRandom;
use rand::Rng;
use warpforge_simt::{Device, KernelArg as A};

const PTX: &str = include_str!("../../cfd/kernel.ptx");
const NNB: usize = 4;
const NVAR: usize = 5;
const GAMMA: f32 = 1.4;
/// Runge-Kutta stages per iteration (Rodinia's RK).
const RK: usize = 3;
/// Artificial-viscosity coefficient (Rodinia's smoothing coefficient).
const SMOOTHING: f32 = 0.2;
const THREADS: u32 = 128;
/// Renumbering window: cells are shuffled within consecutive windows of this many.
const WINDOW: usize = 512;

/// The CFD workload.
pub struct Cfd;

/// (cells, box gx x gy x gz holding them, iterations) at `size`. Paper: the 97046 cells of
/// Rodinia's fvcorr.domn.097K (759 blocks of 128); the iteration count is ours.
fn dims(size: Size) -> (usize, [usize; 3], usize) {
    by_size(
        size,
        (1000, [10, 10, 10], 1),
        (16_384, [32, 32, 16], 1),
        (97_046, [46, 46, 46], 10),
    )
}

/// The generated mesh: neighbours `[i + j * nel]` and normals `[i + (j + k * 4) * nel]`.
struct Mesh {
    nbr: Vec<i32>,
    normals: Vec<f32>,
    areas: Vec<f32>,
}

fn hash01(a: usize, b: usize) -> f32 {
    let mut h = (a as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (b as u64);
    h ^= h >> 29;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 32;
    (h % 10_000) as f32 / 10_000.0
}

fn mesh(nel: usize, [gx, gy, gz]: [usize; 3], r: &mut impl Rng) -> Mesh {
    assert!(gx * gy * gz >= nel);
    // perm[grid cell] = mesh cell number
    let mut perm: Vec<usize> = (0..nel).collect();
    for w in perm.chunks_mut(WINDOW) {
        w.shuffle(r);
    }
    let mut nbr = vec![0i32; NNB * nel];
    let mut normals = vec![0f32; 3 * NNB * nel];
    let areas: Vec<f32> = (0..nel).map(|_| r.gen_range(0.8..1.2)).collect();
    for g in 0..nel {
        let (x, y, z) = (g % gx, (g / gx) % gy, g / (gx * gy));
        let s: i64 = if (x + y + z) % 2 == 0 { 1 } else { -1 };
        let faces: [(usize, i64); NNB] = [(0, 1), (0, -1), (1, s), (2, s)];
        let i = perm[g];
        for (j, &(axis, d)) in faces.iter().enumerate() {
            let mut p = [x as i64, y as i64, z as i64];
            p[axis] += d;
            let dims = [gx as i64, gy as i64, gz as i64];
            let inside = (0..3).all(|k| p[k] >= 0 && p[k] < dims[k]);
            let gn = (p[0] + dims[0] * (p[1] + dims[1] * p[2])) as usize;
            let (id, mag) = if inside && gn < nel {
                let n = perm[gn];
                (n as i32, 1.0 + 0.2 * (hash01(g.min(gn), g.max(gn)) - 0.5))
            } else if p[2] < 0 {
                (-1, r.gen_range(0.9..1.1))
            } else {
                (-2, r.gen_range(0.9..1.1))
            };
            nbr[i + j * nel] = id;
            normals[i + (j + axis * NNB) * nel] = d as f32 * mag;
        }
    }
    Mesh {
        nbr,
        normals,
        areas,
    }
}

/// The far-field state and its flux contributions, the kernel's `ff` layout (17 floats).
fn far_field() -> Vec<f32> {
    let (density, pressure, mach, aoa) = (1.4f32, 1.0f32, 1.2f32, 3.0f32.to_radians());
    let speed = mach * (GAMMA * pressure / density).sqrt();
    let v = [speed * aoa.cos(), speed * aoa.sin(), 0.0];
    let m = [density * v[0], density * v[1], density * v[2]];
    let de = density * 0.5 * speed * speed + pressure / (GAMMA - 1.0);
    let mut ff = vec![density, m[0], m[1], m[2], de];
    let (fx, fy, fz, fe) = contrib(de, m, v, pressure);
    for a in [fx, fy, fz, fe] {
        ff.extend(a);
    }
    ff
}

type V3 = [f32; 3];

fn contrib(de: f32, m: V3, v: V3, p: f32) -> (V3, V3, V3, V3) {
    let fx = [v[0] * m[0] + p, v[0] * m[1], v[0] * m[2]];
    let fy = [fx[1], v[1] * m[1] + p, v[1] * m[2]];
    let fz = [fx[2], fy[2], v[2] * m[2] + p];
    let dep = de + p;
    (fx, fy, fz, [v[0] * dep, v[1] * dep, v[2] * dep])
}

/// (density, momentum, energy, velocity, speed^2, pressure, speed of sound) of cell `i`.
fn state(vars: &[f32], i: usize, nel: usize) -> (f32, V3, f32, V3, f32, f32, f32) {
    let d = vars[i];
    let m = [vars[i + nel], vars[i + 2 * nel], vars[i + 3 * nel]];
    let de = vars[i + 4 * nel];
    let v = [m[0] / d, m[1] / d, m[2] / d];
    let s2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    let p = (GAMMA - 1.0) * (de - 0.5 * d * s2);
    let c = (GAMMA * p / d).sqrt();
    (d, m, de, v, s2, p, c)
}

fn step_factors(vars: &[f32], areas: &[f32]) -> Vec<f32> {
    let nel = areas.len();
    (0..nel)
        .map(|i| {
            let (_, _, _, _, s2, _, c) = state(vars, i, nel);
            0.5 / (areas[i].sqrt() * (s2.sqrt() + c))
        })
        .collect()
}

fn fluxes(mesh: &Mesh, vars: &[f32], ff: &[f32]) -> Vec<f32> {
    let nel = mesh.areas.len();
    let mut out = vec![0f32; NVAR * nel];
    for i in 0..nel {
        let (d_i, m_i, de_i, v_i, s2_i, p_i, c_i) = state(vars, i, nel);
        let (fx_i, fy_i, fz_i, fe_i) = contrib(de_i, m_i, v_i, p_i);
        let (mut f_d, mut f_e, mut f_m) = (0f32, 0f32, [0f32; 3]);
        for j in 0..NNB {
            let nb = mesh.nbr[i + j * nel];
            let n: V3 = std::array::from_fn(|k| mesh.normals[i + (j + k * NNB) * nel]);
            let nlen = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            let (m_o, fx_o, fy_o, fz_o, fe_o) = if nb >= 0 {
                let (d_n, m_n, de_n, v_n, s2_n, p_n, c_n) = state(vars, nb as usize, nel);
                let (fx_n, fy_n, fz_n, fe_n) = contrib(de_n, m_n, v_n, p_n);
                let k = -nlen * SMOOTHING * 0.5 * (s2_i.sqrt() + s2_n.sqrt() + c_i + c_n);
                f_d += k * (d_i - d_n);
                f_e += k * (de_i - de_n);
                for a in 0..3 {
                    f_m[a] += k * (m_i[a] - m_n[a]);
                }
                (m_n, fx_n, fy_n, fz_n, fe_n)
            } else if nb == -1 {
                for a in 0..3 {
                    f_m[a] += n[a] * p_i;
                }
                continue;
            } else {
                let t = |o: usize| [ff[o], ff[o + 1], ff[o + 2]];
                (t(1), t(5), t(8), t(11), t(14))
            };
            for a in 0..3 {
                let k = 0.5 * n[a];
                f_d += k * (m_o[a] + m_i[a]);
                f_e += k * (fe_o[a] + fe_i[a]);
                f_m[0] += k * (fx_o[a] + fx_i[a]);
                f_m[1] += k * (fy_o[a] + fy_i[a]);
                f_m[2] += k * (fz_o[a] + fz_i[a]);
            }
        }
        out[i] = f_d;
        out[i + nel] = f_m[0];
        out[i + 2 * nel] = f_m[1];
        out[i + 3 * nel] = f_m[2];
        out[i + 4 * nel] = f_e;
    }
    out
}

impl Workload for Cfd {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "cfd",
            application: "CFD Solver (Rodinia euler3d)",
            suite: "Rodinia",
            sets: "RAI",
            kernels: &["cfd_step_factor", "cfd_flux", "cfd_time_step"],
            behaviour: "unstructured finite volumes: 4 neighbour gathers through an index array, SoA variables, divides and square roots",
        }
    }

    fn input(&self, size: Size) -> String {
        let (nel, _, it) = dims(size);
        format!("{nel} cells, {it} iterations x {RK} RK stages")
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let (nel, boxdims, iterations) = dims(size);
        let mut r = rng("cfd", size);
        let mesh = mesh(nel, boxdims, &mut r);
        let ff = far_field();
        let mut host = vec![0f32; NVAR * nel];
        for v in 0..NVAR {
            for i in 0..nel {
                host[i + v * nel] = ff[v] * (1.0 + r.gen_range(-0.05..0.05));
            }
        }
        let m = load(dev, PTX, "cfd")?;
        let d_nbr = dev.alloc_copy(&mesh.nbr)?;
        let d_normals = dev.alloc_copy(&mesh.normals)?;
        let d_areas = dev.alloc_copy(&mesh.areas)?;
        let d_ff = dev.alloc_copy(&ff)?;
        let d_vars = dev.alloc_copy(&host)?;
        let d_old = dev.alloc_copy(&host)?;
        let d_sf = dev.alloc_copy(&vec![0f32; nel])?;
        let d_flux = dev.alloc_copy(&vec![0f32; NVAR * nel])?;
        let cfg = grid1d(nel as u32, THREADS);
        let n = nel as i32;
        for it in 0..iterations {
            let old: Vec<f32> = dev.read(d_vars, NVAR * nel)?;
            dev.copy_htod(d_old, &old)?;
            dev.launch(
                m,
                "cfd_step_factor",
                cfg,
                &[A::Ptr(d_vars), A::Ptr(d_areas), A::Ptr(d_sf), A::S32(n)],
            )?;
            let sf: Vec<f32> = dev.read(d_sf, nel)?;
            check_or_return!(
                format!("cfd iteration {it}"),
                compare_f32(
                    "step factors",
                    &sf,
                    &step_factors(&old, &mesh.areas),
                    1e-3,
                    1e-4
                )
            );
            for stage in 0..RK {
                let vars: Vec<f32> = dev.read(d_vars, NVAR * nel)?;
                dev.launch(
                    m,
                    "cfd_flux",
                    cfg,
                    &[
                        A::Ptr(d_nbr),
                        A::Ptr(d_normals),
                        A::Ptr(d_vars),
                        A::Ptr(d_ff),
                        A::Ptr(d_flux),
                        A::F32(SMOOTHING),
                        A::S32(n),
                    ],
                )?;
                let fl: Vec<f32> = dev.read(d_flux, NVAR * nel)?;
                check_or_return!(
                    format!("cfd iteration {it} stage {stage}"),
                    compare_f32("fluxes", &fl, &fluxes(&mesh, &vars, &ff), 1e-3, 1e-4)
                );
                dev.launch(
                    m,
                    "cfd_time_step",
                    cfg,
                    &[
                        A::S32(stage as i32),
                        A::S32(RK as i32),
                        A::Ptr(d_old),
                        A::Ptr(d_vars),
                        A::Ptr(d_sf),
                        A::Ptr(d_flux),
                        A::S32(n),
                    ],
                )?;
                let got: Vec<f32> = dev.read(d_vars, NVAR * nel)?;
                let want: Vec<f32> = (0..NVAR * nel)
                    .map(|x| {
                        let i = x % nel;
                        old[x] + sf[i] / (RK + 1 - stage) as f32 * fl[x]
                    })
                    .collect();
                check_or_return!(
                    format!("cfd iteration {it} stage {stage}"),
                    compare_f32("variables", &got, &want, 1e-4, 1e-5)
                );
            }
        }
        Ok(Check::Passed)
    }
}
