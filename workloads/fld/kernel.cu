// Floyd-Warshall all-pairs shortest paths (modelled on Pannotia's FW): the host launches one
// kernel per intermediate vertex k; thread (i, j) relaxes d[i][j] through k. Row k and column k
// are re-read by every thread of the launch (short reuse distance: the cache-friendly CS member).
#include "wf.cuh"

WF_GLOBAL void fld_step(int *dist, int n, int k) {
  unsigned j = ctaid_x() * ntid_x() + tid_x();
  unsigned i = ctaid_y() * ntid_y() + tid_y();
  if (i >= (unsigned)n || j >= (unsigned)n) return;
  int ik = dist[i * n + k];
  int kj = dist[k * n + j];
  int ij = dist[i * n + j];
  if (ik + kj < ij) dist[i * n + j] = ik + kj;
}
