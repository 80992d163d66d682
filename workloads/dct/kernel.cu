// 8x8 discrete cosine transform (modelled on the NVIDIA SDK's dct8x8, its first kernel): one CTA
// of 8x8 threads per 8x8 pixel block. The block is staged in shared memory, transformed along
// rows, then along columns, with a barrier between the passes; `inverse` selects the transposed
// basis (IDCT). The 64-entry basis table is read by every CTA (high reuse, tiny footprint).
#include "wf.cuh"

WF_GLOBAL void dct8x8(const float *src, float *dst, const float *basis, int width,
                      int inverse) {
  WF_SHARED static float blk[8][8];
  WF_SHARED static float tmp[8][8];
  unsigned x = tid_x(), y = tid_y();
  unsigned gx = ctaid_x() * 8 + x, gy = ctaid_y() * 8 + y;
  blk[y][x] = src[gy * width + gx];
  __syncthreads();
  float s = 0.0f;
  for (int k = 0; k < 8; ++k) {
    float c = inverse ? basis[k * 8 + x] : basis[x * 8 + k];
    s += c * blk[y][k];
  }
  tmp[y][x] = s;
  __syncthreads();
  s = 0.0f;
  for (int k = 0; k < 8; ++k) {
    float c = inverse ? basis[k * 8 + y] : basis[y * 8 + k];
    s += c * tmp[k][x];
  }
  dst[gy * width + gx] = s;
}
