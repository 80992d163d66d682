// Fast Walsh-Hadamard transform and dyadic convolution (modelled on the NVIDIA SDK's
// fastWalshTransform). Butterflies with strides of at least FWT_CHUNK/2 run from global memory,
// one launch per stride (streaming, fully coalesced); the remaining strides run inside
// FWT_CHUNK-element chunks in shared memory with a barrier per stage. fwt_modulate multiplies
// two spectra point-wise.
#include "wf.cuh"

#define FWT_CHUNK 1024

WF_GLOBAL void fwt_global_step(float *d, int n, int stride) {
  unsigned t = gtid_x();
  if (t >= (unsigned)n / 2) return;
  unsigned lo = (t / stride) * 2 * stride + t % stride;
  unsigned hi = lo + stride;
  float a = d[lo], b = d[hi];
  d[lo] = a + b;
  d[hi] = a - b;
}

/// One CTA of chunk/2 threads transforms `chunk` consecutive elements over strides chunk/2..1.
WF_GLOBAL void fwt_shared(float *d, int chunk) {
  WF_SHARED static float s[FWT_CHUNK];
  unsigned t = tid_x();
  float *base = d + ctaid_x() * chunk;
  s[t] = base[t];
  s[t + chunk / 2] = base[t + chunk / 2];
  for (int stride = chunk / 2; stride > 0; stride >>= 1) {
    __syncthreads();
    unsigned lo = (t / stride) * 2 * stride + t % stride;
    unsigned hi = lo + stride;
    float a = s[lo], b = s[hi];
    s[lo] = a + b;
    s[hi] = a - b;
  }
  __syncthreads();
  base[t] = s[t];
  base[t + chunk / 2] = s[t + chunk / 2];
}

WF_GLOBAL void fwt_modulate(float *d, const float *k, int n, float scale) {
  unsigned i = gtid_x();
  if (i < (unsigned)n) d[i] = d[i] * k[i] * scale;
}
