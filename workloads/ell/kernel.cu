// Single-source shortest paths on an ELLPACK road graph (modelled on Pannotia's Dijkstra/SSSP-ELL):
// the same relaxation as csr, but neighbour slots are stored column-major (slot k of vertex v at
// k * n + v), so the index loads of a warp are coalesced while the dist[] gathers stay irregular;
// padded slots make short rows diverge on the EMPTY test.
#include "wf.cuh"

WF_GLOBAL void ell_relax(const unsigned *col, const unsigned *weight, int width,
                         const unsigned *dist_in, unsigned *dist_out, int *changed, int n) {
  unsigned v = gtid_x();
  if (v >= (unsigned)n) return;
  unsigned d = dist_in[v];
  unsigned best = d;
  for (int k = 0; k < width; ++k) {
    unsigned c = col[k * n + v];
    if (c == 0xffffffffu) continue;
    unsigned du = dist_in[c];
    if (du != 0xffffffffu && du + weight[k * n + v] < best) best = du + weight[k * n + v];
  }
  dist_out[v] = best;
  if (best < d) *changed = 1;
}
