// convolutionTexture (NVIDIA CUDA SDK, `CONVTEX` of DARSIE's Table 7.1, TB 16x16): separable 2D
// convolution of an image with a (2R+1)-tap kernel, a row pass then a column pass. Each thread of
// a 16x16 CTA owns one output pixel (ix, iy) and sums src(clamp(ix + k), iy) * kernel[R - k]
// (rows) or src(ix, clamp(iy + k)) * kernel[R - k] (columns) for k in -R..R.
//
// The SDK reads the source through a 2D texture with clamp addressing and point sampling at
// (x + k + 0.5, y + 0.5); the kernel taps are `__constant__`. Here the source is a global array
// with the same clamped indexing (no texture unit is modelled), and the taps live in a device
// array written by the host (our host API writes `.global` symbols only). The tap loads and the
// loop are uniform across the CTA; in the row pass the clamped column index depends on tid.x only
// (every warp of a 16-wide CTA computes the same vector: conditionally redundant), in the column
// pass the clamped row index depends on tid.y (vector).
#include "wf.cuh"

#define KERNEL_RADIUS 8
#define KERNEL_LENGTH (2 * KERNEL_RADIUS + 1)

__attribute__((device)) float c_Kernel[KERNEL_LENGTH];

WF_DEVICE int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

WF_GLOBAL void convolutionRowsKernel(float *dst, const float *src, int imageW, int imageH) {
  int ix = ctaid_x() * ntid_x() + tid_x();
  int iy = ctaid_y() * ntid_y() + tid_y();
  if (ix >= imageW || iy >= imageH) return;
  const float *row = src + iy * imageW;
  float sum = 0.0f;
  for (int k = -KERNEL_RADIUS; k <= KERNEL_RADIUS; k++) {
    sum += row[clampi(ix + k, 0, imageW - 1)] * c_Kernel[KERNEL_RADIUS - k];
  }
  dst[iy * imageW + ix] = sum;
}

WF_GLOBAL void convolutionColumnsKernel(float *dst, const float *src, int imageW, int imageH) {
  int ix = ctaid_x() * ntid_x() + tid_x();
  int iy = ctaid_y() * ntid_y() + tid_y();
  if (ix >= imageW || iy >= imageH) return;
  float sum = 0.0f;
  for (int k = -KERNEL_RADIUS; k <= KERNEL_RADIUS; k++) {
    sum += src[clampi(iy + k, 0, imageH - 1) * imageW + ix] * c_Kernel[KERNEL_RADIUS - k];
  }
  dst[iy * imageW + ix] = sum;
}
