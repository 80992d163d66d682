// SRAD v2 (Rodinia srad_v2 style): 16x16 CTAs stage their image tile plus a one-pixel halo in
// shared memory (edge threads load the halo: divergent loads), compute the four directional
// derivatives and the diffusion coefficient (sr2_srad1), then the divergence and the update from
// a coefficient tile with its south/east halo (sr2_srad2). The host computes the image statistics
// between iterations, as the original does.
#include "wf.cuh"
#include "srad.cuh"

#define T 16

WF_GLOBAL void sr2_srad1(const float *img, int rows, int cols, float *dn, float *ds, float *dw,
                         float *de, float *c, float q0sqr) {
  WF_SHARED static float s[T + 2][T + 2];
  int tx = tid_x(), ty = tid_y();
  int r = ctaid_y() * T + ty, col = ctaid_x() * T + tx;
  int i = r * cols + col;
  s[ty + 1][tx + 1] = img[i];
  if (ty == 0)
    s[0][tx + 1] = img[max(r - 1, 0) * cols + col];
  if (ty == T - 1)
    s[T + 1][tx + 1] = img[min(r + 1, rows - 1) * cols + col];
  if (tx == 0)
    s[ty + 1][0] = img[r * cols + max(col - 1, 0)];
  if (tx == T - 1)
    s[ty + 1][T + 1] = img[r * cols + min(col + 1, cols - 1)];
  __syncthreads();
  float jc = s[ty + 1][tx + 1];
  float n_ = s[ty][tx + 1] - jc;
  float s_ = s[ty + 2][tx + 1] - jc;
  float w_ = s[ty + 1][tx] - jc;
  float e_ = s[ty + 1][tx + 2] - jc;
  srad_coefficient(jc, n_, s_, w_, e_, q0sqr, i, dn, ds, dw, de, c);
}

WF_GLOBAL void sr2_srad2(float *img, int rows, int cols, const float *dn, const float *ds,
                         const float *dw, const float *de, const float *c, float lambda) {
  WF_SHARED static float cs[T + 1][T + 1];
  int tx = tid_x(), ty = tid_y();
  int r = ctaid_y() * T + ty, col = ctaid_x() * T + tx;
  int i = r * cols + col;
  cs[ty][tx] = c[i];
  if (ty == T - 1)
    cs[T][tx] = c[min(r + 1, rows - 1) * cols + col];
  if (tx == T - 1)
    cs[ty][T] = c[r * cols + min(col + 1, cols - 1)];
  __syncthreads();
  float cc = cs[ty][tx];
  float d = cc * dn[i] + cs[ty + 1][tx] * ds[i] + cc * dw[i] + cs[ty][tx + 1] * de[i];
  img[i] += 0.25f * lambda * d;
}
