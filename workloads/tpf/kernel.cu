// Two-point angular correlation (Parboil tpacf style): histogram of the angular separations of
// point pairs, binned by a binary search over decreasing cos(angle) bin edges. One thread per
// point of set A; the points of set B stream through shared memory in 128-point tiles; each
// CTA keeps a shared histogram updated with integer atomics and writes it out at the end.
// grid.y selects the set pair (random set number); self-correlation counts only pairs j > i,
// so in DD and RR launches lanes drop out progressively (divergence, imbalance).
#include "wf.cuh"

#define TILE 128
#define NB 20

WF_GLOBAL void tpf_hist(const float *a, const float *b, int n, int a_stride, int b_stride,
                        int self, const float *binb, unsigned *hist_out) {
  WF_SHARED static unsigned hist[NB + 1];
  WF_SHARED static float edges[NB + 1];
  WF_SHARED static float bx[TILE], by[TILE], bz[TILE];
  int t = tid_x();
  int i = ctaid_x() * TILE + t;
  int set = ctaid_y();
  const float *pa = a + set * a_stride;
  const float *pb = b + set * b_stride;
  if (t <= NB) {
    hist[t] = 0;
    edges[t] = binb[t];
  }
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  if (i < n) {
    ax = pa[i];
    ay = pa[n + i];
    az = pa[2 * n + i];
  }
  for (int base = 0; base < n; base += TILE) {
    __syncthreads();
    if (base + t < n) {
      bx[t] = pb[base + t];
      by[t] = pb[n + base + t];
      bz[t] = pb[2 * n + base + t];
    }
    __syncthreads();
    int len = min(TILE, n - base);
    if (i < n) {
      for (int j = 0; j < len; j++) {
        if (self && base + j <= i)
          continue;
        float d = ax * bx[j] + ay * by[j] + az * bz[j];
        int lo = 0, hi = NB;
        while (lo < hi) {
          int mid = (lo + hi + 1) / 2;
          if (edges[mid] >= d)
            lo = mid;
          else
            hi = mid - 1;
        }
        atomicAdd(&hist[lo], 1u);
      }
    }
  }
  __syncthreads();
  if (t <= NB)
    hist_out[(set * nctaid_x() + ctaid_x()) * (NB + 1) + t] = hist[t];
}
