// A per-thread array indexed with data-dependent indices, so it lives in local memory.
#include "wf.cuh"

WF_GLOBAL void local_array(const unsigned *idx, unsigned *out, unsigned n) {
  unsigned i = gtid_x();
  if (i >= n) return;
  volatile unsigned arr[16];
  for (unsigned k = 0; k < 16; k++) arr[k] = k * k + i;
  unsigned s = 0;
  for (unsigned k = 0; k < 8; k++) s += arr[(idx[i] + k * 5) & 15];
  out[i] = s;
}
