// Single-source shortest paths on a CSR road graph (modelled on Pannotia's Dijkstra/SSSP-CSR):
// every launch relaxes each vertex against its neighbours (Bellman-Ford style, the way Pannotia
// parallelises Dijkstra); the host repeats until no distance changes. Thread v walks its own
// adjacency list: divergent loop trip counts, data-dependent gathers of dist[col[e]].
#include "wf.cuh"

WF_GLOBAL void csr_relax(const unsigned *row_ptr, const unsigned *col, const unsigned *weight,
                         const unsigned *dist_in, unsigned *dist_out, int *changed, int n) {
  unsigned v = gtid_x();
  if (v >= (unsigned)n) return;
  unsigned d = dist_in[v];
  unsigned best = d;
  unsigned end = row_ptr[v + 1];
  for (unsigned e = row_ptr[v]; e < end; ++e) {
    unsigned du = dist_in[col[e]];
    if (du != 0xffffffffu && du + weight[e] < best) best = du + weight[e];
  }
  dist_out[v] = best;
  if (best < d) *changed = 1;
}
