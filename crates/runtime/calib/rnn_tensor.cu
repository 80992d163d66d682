// LAX calibration kernel: the RNN "TensorKernel" family of document 003 Table 3.1 (MIOpen
// OpTensor-style element-wise ops that copy, scale and add the state tensors around each step).
// out[i] = alpha * a[i] + beta * b[i] over n elements, grid-stride.
#include "wf.cuh"

WF_GLOBAL void rnn_tensor(const float *a, const float *b, float *out, float alpha, float beta,
                          int n) {
  for (unsigned i = gtid_x(); i < (unsigned)n; i += ntid_x() * nctaid_x())
    out[i] = alpha * a[i] + beta * b[i];
}
