//! `cp`: Coulombic Potential (GPGPU-Sim ISPASS 2009 distribution, after VMD's cionize), the CP of
//! DARSIE's Table 7.1 (TB 16x8). See `workloads/cp/README.md`.
//!
//! Input: `natoms` point charges at random positions above a lattice slice, charges in [-1, 1),
//! held in a device-global array (constant memory in ISPASS) as (x, y, dz^2, q). One launch of `cp_energy` on a (w/16) x (h/8) grid
//! adds each lattice point's potential to the output (zero-initialised). Checked against an f64
//! reference with rtol 1e-3 (the kernel uses `rsqrt.approx`) and atol 1e-3 * natoms.

use crate::common::{by_size_fill, compare_f32, load, rng, shape};
use crate::{check_or_return, Check, Size, Workload, WorkloadError, WorkloadInfo};
use rand::Rng;
use warpforge_core::Dim3;
use warpforge_simt::{Device, KernelArg as A};

const PTX: &str = include_str!("../../cp/kernel.ptx");
/// Capacity of the constant-memory atom array (`CP_MAXATOMS` in the kernel).
const MAX_ATOMS: usize = 512;
/// Lattice spacing in Angstrom.
const SPACING: f32 = 0.1;

/// The Coulombic Potential workload.
pub struct Cp;

/// (lattice width, lattice height, atoms) at `size`.
fn dims(size: Size) -> (usize, usize, usize) {
    // Fill: the small lattice x 3.75 (30 x 30 CTAs), the same atoms.
    by_size_fill(
        size,
        (32, 16, 16),
        (128, 64, 128),
        (480, 240, 128),
        (512, 512, 400),
    )
}

impl Workload for Cp {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "cp",
            application: "Coulombic Potential (GPGPU-Sim ISPASS)",
            suite: "GPGPU-Sim ISPASS",
            sets: "DARSIE",
            kernels: &["cp_energy"],
            behaviour: "16x8 CTAs, loop over atoms in constant memory, rsqrt per atom",
        }
    }

    fn input(&self, size: Size) -> String {
        let (w, h, n) = dims(size);
        format!("{w}x{h} lattice, {n} atoms")
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let (w, h, n) = dims(size);
        assert!(n <= MAX_ATOMS && w % 16 == 0 && h % 8 == 0);
        let mut r = rng("cp", size);
        let (ex, ey) = (w as f32 * SPACING, h as f32 * SPACING);
        let atoms: Vec<[f32; 4]> = (0..n)
            .map(|_| {
                let z: f32 = r.gen_range(0.5..2.0);
                [
                    r.gen_range(0.0..ex),
                    r.gen_range(0.0..ey),
                    z * z,
                    r.gen_range(-1.0..1.0),
                ]
            })
            .collect();
        let m = load(dev, PTX, "cp")?;
        let sym = dev
            .symbol_address(m, "cp_atoms")
            .ok_or_else(|| crate::common::err("cp: constant symbol cp_atoms missing"))?;
        let flat: Vec<f32> = atoms.iter().flatten().copied().collect();
        dev.copy_htod(sym, &flat)?;
        let out = dev.alloc_copy(&vec![0f32; w * h])?;
        let cfg = shape(
            Dim3::new((w / 16) as u32, (h / 8) as u32, 1),
            Dim3::new(16, 8, 1),
        );
        dev.launch(
            m,
            "cp_energy",
            cfg,
            &[
                A::Ptr(out),
                A::S32(w as i32),
                A::F32(SPACING),
                A::S32(n as i32),
            ],
        )?;
        let mut want = vec![0f32; w * h];
        for y in 0..h {
            for x in 0..w {
                let (cx, cy) = ((SPACING * x as f32) as f64, (SPACING * y as f32) as f64);
                let mut e = 0f64;
                for a in &atoms {
                    let (dx, dy) = (cx - a[0] as f64, cy - a[1] as f64);
                    e += a[3] as f64 / (dx * dx + dy * dy + a[2] as f64).sqrt();
                }
                want[y * w + x] = e as f32;
            }
        }
        let got: Vec<f32> = dev.read(out, w * h)?;
        check_or_return!(
            "cp",
            compare_f32("energy", &got, &want, 1e-3, 1e-3 * n as f32)
        );
        Ok(Check::Passed)
    }
}
