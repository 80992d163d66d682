// Streamcluster gain evaluation (Rodinia streamcluster `pgain` style): for a candidate facility x,
// every point computes its weighted squared distance to x (coordinates stored [dim][point], so
// the feature loop is coalesced across the warp), decides whether it would switch to x, and adds
// its saving to a per-CTA accumulator per current center (shared-memory float atomics). The host
// reduces the CTA accumulators and decides whether to open x and close centers.
#include "wf.cuh"

#define MAXDIM 64
#define MAXK 64

WF_GLOBAL void sc_pgain(const float *coord, const float *weight, const int *assign,
                        const float *cost, const int *center_table, int x, int dim, int n, int k,
                        float *work_mem, int *switch_membership) {
  WF_SHARED static float cx[MAXDIM];
  WF_SHARED static float lower[MAXK + 1];
  int t = tid_x();
  int i = gtid_x();
  if (t < dim)
    cx[t] = coord[t * n + x];
  for (int j = t; j <= k; j += ntid_x())
    lower[j] = 0.0f;
  __syncthreads();
  if (i < n) {
    float d = 0.0f;
    for (int f = 0; f < dim; f++) {
      float v = coord[f * n + i] - cx[f];
      d += v * v;
    }
    float x_cost = d * weight[i];
    float cur = cost[i];
    if (x_cost < cur) {
      switch_membership[i] = 1;
      atomicAdd(&lower[k], x_cost - cur);
    } else {
      switch_membership[i] = 0;
      atomicAdd(&lower[center_table[assign[i]]], cur - x_cost);
    }
  }
  __syncthreads();
  for (int j = t; j <= k; j += ntid_x())
    work_mem[ctaid_x() * (k + 1) + j] = lower[j];
}
