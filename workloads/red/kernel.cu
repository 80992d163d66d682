// Parallel sum reduction (NVIDIA CUDA SDK 4.2 "reduction" sample's most optimised variant, the
// "reduce6" algorithm, written for warpforge): each thread first adds many elements serially,
// two per iteration (i and i + blockDim), striding by 2 * blockDim * gridDim so that any grid
// covers any n with coalesced loads; the block then combines its threads' sums in shared memory
// with a tree of sequential addressing (the lower half adds the upper half, halving each step,
// a barrier between steps) and thread 0 writes the block's sum. A second one-block launch of the
// same kernel sums the per-block partials (the SDK's GPU final reduction). Integer data (the
// SDK's default type), so the result is exact. blockDim must be a power of two <= 512.
#include "wf.cuh"

WF_GLOBAL void red_sum(const int *in, int *out, unsigned n) {
  WF_SHARED static int sdata[512];
  unsigned tid = tid_x(), bs = ntid_x();
  unsigned i = ctaid_x() * bs * 2 + tid;
  unsigned grid = bs * 2 * nctaid_x();
  int sum = 0;
  while (i < n) {
    sum += in[i];
    if (i + bs < n) sum += in[i + bs];
    i += grid;
  }
  sdata[tid] = sum;
  __syncthreads();
  for (unsigned s = bs / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] = sum = sum + sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[ctaid_x()] = sum;
}
