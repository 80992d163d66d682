// Coulombic Potential (GPGPU-Sim ISPASS 2009 distribution, `cp`, after VMD's cionize): the
// electrostatic potential of a set of point charges on one z-slice of a regular lattice. Each
// thread of a 16x8 CTA owns one lattice point (x, y) and loops over the atoms held in a device
// array as (x, y, dz^2, q): energy += q * rsqrt(dx^2 + dy^2 + dz^2). The atom loads are uniform
// across the CTA, dx depends on tid.x only (repeated by every warp of a 16-wide CTA), dy on the
// row: uniform, conditionally redundant and vector work in one loop.
#include "wf.cuh"

#define CP_MAXATOMS 512

struct cp_atom {
  float x, y, dz2, q;
};

// ISPASS CP keeps the atoms in __constant__ memory; the host API writes `.global` symbols only,
// so they live in a device-global array here (uniform loads either way).
__attribute__((device)) cp_atom cp_atoms[CP_MAXATOMS];

WF_GLOBAL void cp_energy(float *energy, int width, float spacing, int natoms) {
  unsigned x = ctaid_x() * ntid_x() + tid_x();
  unsigned y = ctaid_y() * ntid_y() + tid_y();
  float cx = spacing * (float)x;
  float cy = spacing * (float)y;
  float e = 0.0f;
  for (int i = 0; i < natoms; ++i) {
    cp_atom at = cp_atoms[i];
    float dx = cx - at.x;
    float dy = cy - at.y;
    e += at.q * rsqrtf(dx * dx + dy * dy + at.dz2);
  }
  energy[y * width + x] += e;
}
