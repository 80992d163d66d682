// Back propagation, input-to-hidden layer (Rodinia backprop style): 16x16 CTAs, one row of the
// weight matrix per thread row. bp_layerforward multiplies inputs by weights and reduces the 16
// rows of the CTA in shared memory (log2(16) barrier steps), writing one partial sum per hidden
// unit per CTA; bp_adjust_weights applies the weight update with momentum.
#include "wf.cuh"

#define HID 16
#define ETA 0.3f
#define MOMENTUM 0.3f

WF_GLOBAL void bp_layerforward(const float *input, const float *w, float *partial) {
  WF_SHARED static float in_s[HID];
  WF_SHARED static float m[HID][HID];
  int tx = tid_x(), ty = tid_y();
  int by = ctaid_y();
  int row = by * HID + ty;
  if (tx == 0)
    in_s[ty] = input[row];
  __syncthreads();
  m[ty][tx] = w[row * HID + tx] * in_s[ty];
  __syncthreads();
  for (int s = 1; s < HID; s *= 2) {
    if (ty % (2 * s) == 0)
      m[ty][tx] += m[ty + s][tx];
    __syncthreads();
  }
  if (ty == 0)
    partial[by * HID + tx] = m[0][tx];
}

WF_GLOBAL void bp_adjust_weights(const float *delta, const float *input, float *w, float *oldw) {
  int tx = tid_x(), ty = tid_y();
  int row = ctaid_y() * HID + ty;
  int idx = row * HID + tx;
  float dw = ETA * delta[tx] * input[row] + MOMENTUM * oldw[idx];
  w[idx] += dw;
  oldw[idx] = dw;
}
