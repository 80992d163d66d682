// Matrix Multiply with shared-memory tiling (NVIDIA CUDA SDK `matrixMul`, BLOCK_SIZE 32): C = A * B
// for row-major A (hA x wA) and B (wA x wB). Each 32x32 CTA computes one 32x32 tile of C; per
// step it stages a tile of A and a tile of B in shared memory, synchronises, and accumulates
// As[ty][k] * Bs[k][tx] over the fully unrolled k loop. Bs[k][tx] depends on tx only, so with a
// 32-wide CTA every warp (one row ty) reads the same 32 words: the TB-redundant shared loads
// DARSIE removes (document 003, Fig. 7.2).
#include "wf.cuh"

#define MMT_BLOCK 32

WF_GLOBAL void mmt_mul(float *c, const float *a, const float *b, int wa, int wb) {
  WF_SHARED static float as[MMT_BLOCK][MMT_BLOCK];
  WF_SHARED static float bs[MMT_BLOCK][MMT_BLOCK];
  int bx = ctaid_x(), by = ctaid_y();
  int tx = tid_x(), ty = tid_y();
  int a_begin = wa * MMT_BLOCK * by;
  int a_end = a_begin + wa - 1;
  int b_begin = MMT_BLOCK * bx;
  float csub = 0.0f;
  for (int ia = a_begin, ib = b_begin; ia <= a_end; ia += MMT_BLOCK, ib += MMT_BLOCK * wb) {
    as[ty][tx] = a[ia + wa * ty + tx];
    bs[ty][tx] = b[ib + wb * ty + tx];
    sync_threads();
#pragma unroll
    for (int k = 0; k < MMT_BLOCK; ++k) csub += as[ty][k] * bs[k][tx];
    sync_threads();
  }
  c[wb * MMT_BLOCK * by + MMT_BLOCK * bx + wb * ty + tx] = csub;
}
