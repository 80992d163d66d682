// Similarity Score (modelled on Mars' SimilarityScore): cosine similarity of every pair of
// documents' feature vectors. ss_norms computes each vector's length; the map (ss_map) gives one
// document pair to each thread, which walks both row-major feature vectors: the lanes of a warp
// share document i but read rows j..j+31, a whole row apart (one line per lane, reused over the
// next features: cache-capacity sensitive). The reduce (ss_best) gathers, for each document,
// the scores of its pairs (irregular indices into the triangular output) and keeps the best.
#include "wf.cuh"

WF_GLOBAL void ss_norms(const float *feat, int docs, int dim, float *norm) {
  unsigned d = gtid_x();
  if (d >= (unsigned)docs) return;
  float s = 0.0f;
  for (int f = 0; f < dim; ++f) s += feat[d * dim + f] * feat[d * dim + f];
  norm[d] = sqrtf(s);
}

/// Index of pair (i, j), i < j, in the row-major upper triangle.
WF_DEVICE unsigned pair_index(unsigned i, unsigned j, unsigned docs) {
  return i * (2 * docs - i - 1) / 2 + (j - i - 1);
}

WF_GLOBAL void ss_map(const float *feat, const float *norm, int docs, int dim, float *score) {
  unsigned p = gtid_x();
  unsigned d = docs, pairs = d * (d - 1) / 2;
  if (p >= pairs) return;
  // Invert the triangular index: an estimate from the quadratic formula, then exact fix-up.
  float b = 2.0f * d - 1.0f;
  unsigned i = (unsigned)((b - sqrtf(b * b - 8.0f * (float)p)) * 0.5f);
  if (i > d - 2) i = d - 2;
  while (i > 0 && pair_index(i, i + 1, d) > p) --i;
  while (i + 2 < d && pair_index(i + 1, i + 2, d) <= p) ++i;
  unsigned j = p - pair_index(i, i + 1, d) + i + 1;
  float dot = 0.0f;
  for (int f = 0; f < dim; ++f) dot += feat[i * dim + f] * feat[j * dim + f];
  float den = norm[i] * norm[j];
  score[p] = den > 0.0f ? dot / den : 0.0f;
}

WF_GLOBAL void ss_best(const float *score, int docs, unsigned *best, float *best_score) {
  unsigned i = gtid_x();
  unsigned d = docs;
  if (i >= d) return;
  float bs = -2.0f;
  unsigned bj = 0;
  for (unsigned j = 0; j < d; ++j) {
    if (j == i) continue;
    unsigned p = i < j ? pair_index(i, j, d) : pair_index(j, i, d);
    float s = score[p];
    if (s > bs) {
      bs = s;
      bj = j;
    }
  }
  best[i] = bj;
  best_score[i] = bs;
}
