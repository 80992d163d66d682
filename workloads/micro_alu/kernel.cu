// ALU-bound: four independent chains per thread of two-operand fp32 multiplies and adds, in a
// loop unrolled 16 times (branches are rare), with few registers so that 48 warps fit on an SM.
// (Three-operand fma streams lose about 10% of issue slots to register-bank conflicts in the
// operand collectors, as in GPGPU-Sim; this kernel measures the issue limit itself.)
#include "wf.cuh"

WF_GLOBAL void alu(float *out, int iters, float a, float b) {
  float x0 = gtid_x(), x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3;
#pragma unroll 16
  for (int i = 0; i < iters; i++) {
    x0 = x0 * a; x1 = x1 + b; x2 = x2 * a; x3 = x3 + b;
  }
  out[gtid_x()] = x0 + x1 + x2 + x3;
}
