// Histogram with shared-memory atomics merged into global atomics, plus a global min/max/CAS mix.
#include "wf.cuh"

WF_GLOBAL void histogram(const unsigned *data, unsigned n, unsigned *hist) {
  WF_SHARED unsigned local[64];
  unsigned t = tid_x();
  if (t < 64) local[t] = 0;
  sync_threads();
  for (unsigned i = gtid_x(); i < n; i += ntid_x() * nctaid_x())
    atomicAdd(&local[data[i] & 63], 1u);
  sync_threads();
  if (t < 64) atomicAdd(&hist[t], local[t]);
}

WF_GLOBAL void minmax(const int *data, unsigned n, int *out) {
  unsigned i = gtid_x();
  if (i >= n) return;
  atomicMin(&out[0], data[i]);
  atomicMax(&out[1], data[i]);
  atomicAdd((unsigned *)&out[2], 1u);
  // Lock-free increment through CAS.
  int old = out[3];
  int assumed;
  do {
    assumed = old;
    old = atomicCAS(&out[3], assumed, assumed + 2);
  } while (old != assumed);
  atomicOr(&out[4], 1 << (i & 31));
  atomicAdd((float *)&out[5], 0.5f);
}
