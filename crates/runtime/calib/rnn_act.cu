// LAX calibration kernel: the RNN "ActivationKernel" of document 003 Table 3.1. One thread per
// hidden unit j applies the gate non-linearities to the pre-activations `g` (gates x h, gate-major)
// and updates the cell: with 4 gates (LSTM) c = sig(f) c + sig(i) tanh(z), h = sig(o) tanh(c);
// with fewer gates (GRU, vanilla RNN) h = tanh of the first gate blended by the second.
#include "wf.cuh"

WF_DEVICE float sigm(float x) { return 1.0f / (1.0f + __expf(-x)); }
WF_DEVICE float tanh_f(float x) { return 2.0f * sigm(2.0f * x) - 1.0f; }

WF_GLOBAL void rnn_act(const float *g, float *c, float *h, int hidden, int gates) {
  unsigned j = gtid_x();
  if (j >= (unsigned)hidden) return;
  if (gates == 4) {
    float i = sigm(g[j]);
    float f = sigm(g[hidden + j]);
    float z = tanh_f(g[2 * hidden + j]);
    float o = sigm(g[3 * hidden + j]);
    float cn = f * c[j] + i * z;
    c[j] = cn;
    h[j] = o * tanh_f(cn);
  } else if (gates >= 2) {
    float u = sigm(g[hidden + j]);
    float n = tanh_f(g[j]);
    h[j] = u * h[j] + (1.0f - u) * n;
  } else {
    h[j] = tanh_f(g[j]);
  }
}
