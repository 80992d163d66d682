// LAX calibration kernel: GMMKernel of document 003 Table 3.1 (acoustic scoring of speech
// recognition, compute-bound). One thread per Gaussian component g scores every frame f of the
// utterance held in shared memory: score[f][g] = const[g] - 0.5 sum_d (x[f][d] - mu[g][d])^2
// prec[g][d], with D = 39 features (MFCC + deltas).
#include "wf.cuh"

#define GMM_D 39
#define GMM_MAX_FRAMES 52

WF_GLOBAL void gmm_score(const float *frames, const float *mu, const float *prec,
                         const float *cst, float *score, int n_frames, int n_gauss) {
  WF_SHARED static float xs[GMM_MAX_FRAMES * GMM_D];
  for (unsigned i = tid_x(); i < (unsigned)(n_frames * GMM_D); i += ntid_x()) xs[i] = frames[i];
  sync_threads();
  unsigned g = gtid_x();
  if (g >= (unsigned)n_gauss) return;
  float m[GMM_D], p[GMM_D];
  for (int d = 0; d < GMM_D; d++) {
    m[d] = mu[d * n_gauss + g];
    p[d] = prec[d * n_gauss + g];
  }
  for (int f = 0; f < n_frames; f++) {
    float acc = 0.0f;
    for (int d = 0; d < GMM_D; d++) {
      float t = xs[f * GMM_D + d] - m[d];
      acc += t * t * p[d];
    }
    score[f * n_gauss + g] = cst[g] - 0.5f * acc;
  }
}
