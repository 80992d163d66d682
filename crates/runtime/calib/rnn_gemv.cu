// LAX calibration kernel: the per-step RNN GEMM of document 003 Table 3.1 (batch 1, so a
// matrix-vector product). y[r] = bias[r] + sum_k W[k][r] x[k] for `rows` = gates x h rows over
// K = input + hidden columns, W stored k-major (as a transposed-GEMV library kernel reads it) so
// that consecutive threads read consecutive rows (coalesced). A CTA holds blockDim / t rows and
// `t` threads share one row (thread `sub` takes k = sub, sub + t, ...); thread sub = 0 of the row
// sums the partials from shared memory. Leftover threads idle.
#include "wf.cuh"

WF_GLOBAL void rnn_gemv(const float *W, const float *x, const float *bias, float *y, int rows,
                        int K, int t) {
  WF_SHARED static float part[1024];
  unsigned tid = tid_x();
  unsigned per_cta = ntid_x() / (unsigned)t;
  unsigned local = tid % per_cta;
  unsigned sub = tid / per_cta;
  unsigned row = ctaid_x() * per_cta + local;
  int live = sub < (unsigned)t && row < (unsigned)rows;
  float s = 0.0f;
  if (live)
    for (int k = sub; k < K; k += t) s += W[(unsigned long)k * rows + row] * x[k];
  part[tid] = s;
  sync_threads();
  if (sub == 0 && live) {
    float acc = bias[row];
    for (int p = 0; p < t; p++) acc += part[p * per_cta + local];
    y[row] = acc;
  }
}
