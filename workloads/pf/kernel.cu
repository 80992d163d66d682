// Particle filter tracking a disk through noisy video frames (Rodinia particlefilter, float
// version, style). Per frame the host launches: pf_likelihood (move particles, score the disk
// footprint against the frame, update weights, CTA tree reduction of the weights), pf_sum (one
// thread adds the CTA partials), pf_normalize, pf_cdf (one thread builds the CDF: a serial
// section) and pf_find_index (each particle searches the CDF linearly: divergent, imbalanced).
#include "wf.cuh"

#define BLOCK 128

WF_GLOBAL void pf_likelihood(float *ax, float *ay, const float *nx, const float *ny,
                             const int *frame, int w, int h, const int *obj, int ones,
                             float *weights, float *partial, int n) {
  WF_SHARED static float s[BLOCK];
  int t = tid_x();
  int i = gtid_x();
  float wv = 0.0f;
  if (i < n) {
    float x = ax[i] + 1.0f + nx[i];
    float y = ay[i] - 2.0f + ny[i];
    ax[i] = x;
    ay[i] = y;
    int cx = (int)(x + 0.5f), cy = (int)(y + 0.5f);
    float lik = 0.0f;
    for (int j = 0; j < ones; j++) {
      int px = min(max(cx + obj[2 * j], 0), w - 1);
      int py = min(max(cy + obj[2 * j + 1], 0), h - 1);
      float v = (float)frame[py * w + px];
      float a = v - 100.0f, b = v - 228.0f;
      lik += (a * a - b * b) / 2000.0f;
    }
    wv = weights[i] * __expf(lik / (float)ones);
    weights[i] = wv;
  }
  s[t] = wv;
  __syncthreads();
  for (int half = BLOCK / 2; half > 0; half /= 2) {
    if (t < half)
      s[t] += s[t + half];
    __syncthreads();
  }
  if (t == 0)
    partial[ctaid_x()] = s[0];
}

WF_GLOBAL void pf_sum(const float *partial, int nblocks, float *sum) {
  if (gtid_x() == 0) {
    float acc = 0.0f;
    for (int b = 0; b < nblocks; b++)
      acc += partial[b];
    sum[0] = acc;
  }
}

WF_GLOBAL void pf_normalize(float *weights, const float *sum, int n) {
  int i = gtid_x();
  if (i < n)
    weights[i] = weights[i] / sum[0];
}

WF_GLOBAL void pf_cdf(const float *weights, float *cdf, int n) {
  if (gtid_x() == 0) {
    float acc = 0.0f;
    for (int i = 0; i < n; i++) {
      acc += weights[i];
      cdf[i] = acc;
    }
  }
}

WF_GLOBAL void pf_find_index(const float *cdf, const float *ax, const float *ay, float *xj,
                             float *yj, float *weights, float u1, int n) {
  int i = gtid_x();
  if (i >= n)
    return;
  float u = u1 + (float)i / (float)n;
  int idx = n - 1;
  for (int j = 0; j < n; j++) {
    if (cdf[j] >= u) {
      idx = j;
      break;
    }
  }
  xj[i] = ax[idx];
  yj[i] = ay[idx];
  weights[i] = 1.0f / (float)n;
}
