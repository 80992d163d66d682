// Betweenness centrality (modelled on Pannotia's BC, Brandes' algorithm, one source at a time).
// Forward phase: one bc_forward launch per BFS level expands the frontier (threads whose vertex is
// at `level`) and counts shortest paths with atomics. Backward phase: one bc_backward launch per
// level, deepest first, pulls dependencies from successors; bc_accum adds them to the scores.
// Frontier tests make most threads idle at any level (divergence); hub vertices of a power-law
// graph make a few threads walk very long adjacency lists.
#include "wf.cuh"

WF_GLOBAL void bc_init(int *dist, unsigned *sigma, float *delta, int source, int n) {
  unsigned v = gtid_x();
  if (v >= (unsigned)n) return;
  dist[v] = v == (unsigned)source ? 0 : -1;
  sigma[v] = v == (unsigned)source ? 1u : 0u;
  delta[v] = 0.0f;
}

WF_GLOBAL void bc_forward(const unsigned *row_ptr, const unsigned *col, int *dist,
                          unsigned *sigma, int *grew, int level, int n) {
  unsigned v = gtid_x();
  if (v >= (unsigned)n || dist[v] != level) return;
  unsigned sv = sigma[v];
  unsigned end = row_ptr[v + 1];
  for (unsigned e = row_ptr[v]; e < end; ++e) {
    unsigned w = col[e];
    int dw = dist[w];
    if (dw < 0) {
      dist[w] = level + 1;  // every writer stores the same value
      *grew = 1;
      dw = level + 1;
    }
    if (dw == level + 1) atomicAdd(&sigma[w], sv);
  }
}

WF_GLOBAL void bc_backward(const unsigned *row_ptr, const unsigned *col, const int *dist,
                           const unsigned *sigma, float *delta, int level, int n) {
  unsigned v = gtid_x();
  if (v >= (unsigned)n || dist[v] != level) return;
  float sv = (float)sigma[v];
  float acc = 0.0f;
  unsigned end = row_ptr[v + 1];
  for (unsigned e = row_ptr[v]; e < end; ++e) {
    unsigned w = col[e];
    if (dist[w] == level + 1) acc += sv / (float)sigma[w] * (1.0f + delta[w]);
  }
  delta[v] = acc;
}

WF_GLOBAL void bc_accum(const int *dist, const float *delta, float *bc, int source, int n) {
  unsigned v = gtid_x();
  if (v >= (unsigned)n || v == (unsigned)source || dist[v] < 0) return;
  bc[v] += delta[v];
}
