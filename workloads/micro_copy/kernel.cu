// Streaming copy, grid-stride: every warp moves 128 contiguous bytes per iteration (coalesced).
#include "wf.cuh"

WF_GLOBAL void copy(const float *src, float *dst, int n) {
  int stride = (int)(nctaid_x() * ntid_x());
  for (int i = (int)gtid_x(); i < n; i += stride)
    dst[i] = src[i];
}
