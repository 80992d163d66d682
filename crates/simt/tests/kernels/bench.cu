// Kernels of `warpforge bench --what functional`: one compute-bound, one memory-bound.
#include "wf.cuh"

// Compute-bound: a long dependent chain of integer and float arithmetic per thread.
WF_GLOBAL void bench_compute(float *out, unsigned iters) {
  unsigned i = gtid_x();
  float a = (float)(i & 255) * 0.001f, b = 1.0001f;
  unsigned h = i * 2654435761u;
  for (unsigned k = 0; k < iters; k++) {
    a = a * b + 0.5f;
    h = (h ^ (h >> 13)) * 0x5bd1e995u + k;
    b = b - 0.00001f;
  }
  out[i] = a + (float)(h & 1023);
}

// Memory-bound: grid-stride streaming triad over three arrays.
WF_GLOBAL void bench_stream(const float *x, const float *y, float *z, float s, unsigned n) {
  for (unsigned i = gtid_x(); i < n; i += ntid_x() * nctaid_x()) z[i] = x[i] + s * y[i];
}

// Divergent: data-dependent trip counts (Collatz steps), so warps run partly masked.
WF_GLOBAL void bench_divergent(unsigned *steps, unsigned base) {
  unsigned i = gtid_x();
  unsigned long long x = base + i;
  unsigned s = 0;
  while (x != 1) {
    x = (x & 1) ? 3 * x + 1 : x >> 1;
    s++;
  }
  steps[i] = s;
}
