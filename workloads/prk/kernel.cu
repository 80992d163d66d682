// PageRank by sparse matrix-vector products (modelled on Pannotia's PageRank-SpMV): per iteration
// one kernel scales each rank by the inverse out-degree, and one CSR-scalar SpMV kernel (a thread
// per row) gathers the contributions of the in-neighbours. On a power-law graph the row lengths
// vary wildly (divergence) and the x[col[e]] gathers have little spatial locality.
#include "wf.cuh"

WF_GLOBAL void prk_contrib(const unsigned *row_ptr, const float *rank, float *contrib, int n) {
  unsigned v = gtid_x();
  if (v >= (unsigned)n) return;
  unsigned deg = row_ptr[v + 1] - row_ptr[v];
  contrib[v] = deg ? rank[v] / (float)deg : 0.0f;
}

WF_GLOBAL void prk_spmv(const unsigned *row_ptr, const unsigned *col, const float *contrib,
                        float *rank, float base, float damping, int n) {
  unsigned v = gtid_x();
  if (v >= (unsigned)n) return;
  float sum = 0.0f;
  unsigned end = row_ptr[v + 1];
  for (unsigned e = row_ptr[v]; e < end; ++e) sum += contrib[col[e]];
  rank[v] = base + damping * sum;
}
