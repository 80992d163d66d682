// Data-dependent trip counts: Collatz step counts, so lanes of a warp diverge and reconverge.
#include "wf.cuh"

WF_GLOBAL void collatz(const unsigned *start, unsigned *steps, unsigned n) {
  unsigned i = gtid_x();
  if (i >= n) return;
  unsigned long long x = start[i];
  unsigned s = 0;
  while (x != 1 && x != 0) {
    if (x & 1) x = 3 * x + 1;
    else x >>= 1;
    s++;
  }
  steps[i] = s;
}

// Nested divergence with an early exit inside the loop.
WF_GLOBAL void classify(const int *in, int *out, unsigned n) {
  unsigned i = gtid_x();
  if (i >= n) return;
  int v = in[i];
  int r = 0;
  for (int k = 0; k < (v & 15); k++) {
    if (k == 7 && v < 0) break;
    if ((v + k) % 3 == 0) r += 2;
    else r -= 1;
  }
  out[i] = r;
}
