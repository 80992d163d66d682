// K-means assignment step (Rodinia kmeans `kmeansPoint` style) with the feature layout of Lee
// 2017 Algorithm 10: features are stored [point][feature], so each thread walks its own row and
// one warp-wide load touches 32 different lines. The row is re-read for every centroid, which is
// the reuse a 16 kB L1D cannot hold for all resident warps (thrashing).
#include "wf.cuh"

WF_GLOBAL void kmn_assign(const float *features, const float *clusters, int *membership,
                          int npoints, int nfeatures, int nclusters) {
  int p = gtid_x();
  if (p >= npoints)
    return;
  const float *row = features + (long)p * nfeatures;
  int best = 0;
  float best_dist = 3.0e38f;
  for (int c = 0; c < nclusters; c++) {
    float dist = 0.0f;
    for (int f = 0; f < nfeatures; f++) {
      float d = row[f] - clusters[c * nfeatures + f];
      dist += d * d;
    }
    if (dist < best_dist) {
      best_dist = dist;
      best = c;
    }
  }
  membership[p] = best;
}
