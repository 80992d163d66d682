// A non-inlined device function called from a kernel, with a divergent call site.
#include "wf.cuh"

__attribute__((device)) __attribute__((noinline)) static int poly(int x, int y) {
  int r = 0;
  for (int k = 0; k < (x & 7); k++) r += x * k - y;
  return r;
}

__attribute__((device)) __attribute__((noinline)) static float scale(float v, float s) {
  return v * s + 1.0f;
}

WF_GLOBAL void call_poly(const int *in, int *out, float *fout, unsigned n) {
  unsigned i = gtid_x();
  if (i >= n) return;
  int v = in[i];
  int r = v;
  if (v & 1) r = poly(v, 3);
  out[i] = r;
  fout[i] = scale((float)v, 0.5f);
}
