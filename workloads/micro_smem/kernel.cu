// Shared-memory bank conflicts: each thread reads words `(tid * stride) mod 1024` of a
// 4 KB shared array `iters` times. stride 1 is conflict free; stride 32 puts all 32 lanes of a
// warp in one bank (a 32-way conflict on Fermi's 32 banks).
#include "wf.cuh"

WF_GLOBAL void smem(const float *in, float *out, int stride, int iters) {
  WF_SHARED static float s[1024];
  unsigned t = tid_x();
  for (unsigned i = t; i < 1024; i += ntid_x())
    s[i] = in[i];
  sync_threads();
  float acc = 0.0f;
  unsigned idx = (t * (unsigned)stride) & 1023u;
  for (int k = 0; k < iters; k++) {
    acc += s[idx];
    idx = (idx + 1) & 1023u;
  }
  out[ctaid_x() * ntid_x() + t] = acc;
}
