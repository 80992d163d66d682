#include "wf.cuh"
WF_GLOBAL void vecadd(const float *a, const float *b, float *c, int n) {
  unsigned i = gtid_x();
  if (i < n) c[i] = a[i] + b[i];
}
WF_GLOBAL void red(const float *a, float *out, int n) {
  WF_SHARED float s[256];
  unsigned t = tid_x();
  s[t] = gtid_x() < n ? a[gtid_x()] : 0.f;
  __syncthreads();
  for (unsigned k = 128; k > 0; k >>= 1) { if (t < k) s[t] += s[t + k]; __syncthreads(); }
  float v = s[t]; v += __shfl_down_sync(0xffffffff, v, 1);
  if (t == 0) atomicAdd(out, v + __expf(v) + sqrtf(v));
}
