// Binomial option pricing (modelled on the NVIDIA SDK's binomialOptions): one CTA prices one
// European call on a binomial tree of `steps` time steps. The leaves are computed in parallel,
// then the tree is folded back one level per iteration in shared memory (double-buffered, one
// barrier per level); the number of active threads shrinks with the level. Compute-bound and
// barrier-heavy, with no global traffic in the inner loop (an NS member of the Ctrl-C set).
#include "wf.cuh"

#define BO_MAX_STEPS 1024

WF_GLOBAL void bo_price(const float *spot, const float *strike, const float *vdt,
                        const float *pu_df, const float *pd_df, int steps, float *price) {
  WF_SHARED static float buf[2][BO_MAX_STEPS + 1];
  unsigned opt = ctaid_x();
  unsigned t = tid_x(), nt = ntid_x();
  float s = spot[opt], x = strike[opt], v = vdt[opt];
  float pu = pu_df[opt], pd = pd_df[opt];
  for (int i = t; i <= steps; i += nt) {
    float st = s * __expf(v * (float)(2 * i - steps));
    buf[0][i] = fmaxf(st - x, 0.0f);
  }
  __syncthreads();
  int cur = 0;
  for (int level = steps; level > 0; --level) {
    for (int i = t; i < level; i += nt)
      buf[cur ^ 1][i] = pu * buf[cur][i + 1] + pd * buf[cur][i];
    cur ^= 1;
    __syncthreads();
  }
  if (t == 0) price[opt] = buf[cur][0];
}
