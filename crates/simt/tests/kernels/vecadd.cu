// Element-wise vector add (float and int), one thread per element with a bounds check.
#include "wf.cuh"

WF_GLOBAL void vecadd_f32(const float *a, const float *b, float *c, unsigned n) {
  unsigned i = gtid_x();
  if (i < n) c[i] = a[i] + b[i];
}

WF_GLOBAL void saxpy_i32(int alpha, const int *x, int *y, unsigned n) {
  unsigned i = gtid_x();
  if (i < n) y[i] = alpha * x[i] + y[i];
}
