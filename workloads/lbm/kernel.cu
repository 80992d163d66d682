// Lattice-Boltzmann fluid step (Parboil "lbm" algorithm, written for warpforge): D3Q19 lattice,
// BGK collision with relaxation omega, then streaming by "push": every cell writes each of its 19
// post-collision distributions into the neighbour cell it moves to, in a second grid (the two
// grids swap every time step). Structure of arrays as Parboil's GPU version: distribution e of
// cell c is f[e * ncells + c], c = x + nx * (y + ny * z), so the threads of a block (one per cell
// along x, a block per (y, z) line) read and write 19 contiguous rows: a streaming stencil with no
// reuse inside a time step. Cell flags: 0 fluid, 1 obstacle (bounce-back: the cell sends back
// what it received, reversed), 2 accelerated (fluid with a fixed velocity, the driven lid).
// Boundaries wrap around (the domain's shell is obstacle cells, so only reflections cross it).
#include "wf.cuh"

#define LBM_Q 19
// Parboil's direction order: C, N, S, E, W, T, B, NE, NW, SE, SW, NT, NB, ST, SB, ET, EB, WT, WB.
WF_DEVICE int lbm_ex(int e) {
  const int v[LBM_Q] = {0, 0, 0, 1, -1, 0, 0, 1, -1, 1, -1, 0, 0, 0, 0, 1, 1, -1, -1};
  return v[e];
}
WF_DEVICE int lbm_ey(int e) {
  const int v[LBM_Q] = {0, 1, -1, 0, 0, 0, 0, 1, 1, -1, -1, 1, 1, -1, -1, 0, 0, 0, 0};
  return v[e];
}
WF_DEVICE int lbm_ez(int e) {
  const int v[LBM_Q] = {0, 0, 0, 0, 0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 1, -1, 1, -1};
  return v[e];
}
WF_DEVICE int lbm_opp(int e) {
  const int v[LBM_Q] = {0, 2, 1, 4, 3, 6, 5, 10, 9, 8, 7, 14, 13, 12, 11, 18, 17, 16, 15};
  return v[e];
}
WF_DEVICE float lbm_w(int e) { return e == 0 ? 1.0f / 3.0f : (e < 7 ? 1.0f / 18.0f : 1.0f / 36.0f); }
WF_DEVICE int lbm_wrap(int v, int n) { return v < 0 ? v + n : (v >= n ? v - n : v); }

WF_GLOBAL void lbm_stream_collide(const float *src, float *dst, const int *flags, int nx, int ny,
                                  int nz, float omega) {
  int x = tid_x(), y = ctaid_x(), z = ctaid_y();
  int ncells = nx * ny * nz;
  int c = x + nx * (y + ny * z);
  float f[LBM_Q];
#pragma unroll
  for (int e = 0; e < LBM_Q; ++e) f[e] = src[e * ncells + c];
  int flag = flags[c];
  float out[LBM_Q];
  if (flag == 1) {
#pragma unroll
    for (int e = 0; e < LBM_Q; ++e) out[e] = f[lbm_opp(e)];
  } else {
    float rho = 0.0f, ux = 0.0f, uy = 0.0f, uz = 0.0f;
#pragma unroll
    for (int e = 0; e < LBM_Q; ++e) {
      rho += f[e];
      ux += (float)lbm_ex(e) * f[e];
      uy += (float)lbm_ey(e) * f[e];
      uz += (float)lbm_ez(e) * f[e];
    }
    ux /= rho;
    uy /= rho;
    uz /= rho;
    if (flag == 2) {
      ux = 0.005f;
      uy = 0.002f;
      uz = 0.0f;
    }
    float u2 = 1.5f * (ux * ux + uy * uy + uz * uz);
#pragma unroll
    for (int e = 0; e < LBM_Q; ++e) {
      float eu = (float)lbm_ex(e) * ux + (float)lbm_ey(e) * uy + (float)lbm_ez(e) * uz;
      float feq = lbm_w(e) * rho * (1.0f + 3.0f * eu + 4.5f * eu * eu - u2);
      out[e] = f[e] + omega * (feq - f[e]);
    }
  }
#pragma unroll
  for (int e = 0; e < LBM_Q; ++e) {
    int n = lbm_wrap(x + lbm_ex(e), nx) + nx * (lbm_wrap(y + lbm_ey(e), ny) + ny * lbm_wrap(z + lbm_ez(e), nz));
    dst[e * ncells + n] = out[e];
  }
}
