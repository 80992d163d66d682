// Graph colouring (modelled on Pannotia's max-min colouring, Jones-Plassmann style): in round r
// every uncoloured vertex whose random priority is the largest among its competing neighbours
// takes colour 2r, the smallest takes colour 2r+1. Neighbours coloured in this same launch
// (colour >= 2r) still compete, which makes the result independent of thread order. The host
// repeats until every vertex is coloured.
#include "wf.cuh"

WF_GLOBAL void clr_round(const unsigned *row_ptr, const unsigned *col, const unsigned *prio,
                         int *color, int *uncolored, int round, int n) {
  unsigned v = gtid_x();
  if (v >= (unsigned)n || color[v] >= 0) return;
  int c = 2 * round;
  unsigned pv = prio[v];
  bool is_max = true, is_min = true;
  unsigned end = row_ptr[v + 1];
  for (unsigned e = row_ptr[v]; e < end; ++e) {
    unsigned w = col[e];
    int cw = color[w];
    if (cw >= 0 && cw < c) continue;  // coloured in an earlier round: not competing
    unsigned pw = prio[w];
    bool w_greater = pw > pv || (pw == pv && w > v);
    if (w_greater) is_max = false; else is_min = false;
  }
  if (is_max) color[v] = c;
  else if (is_min) color[v] = c + 1;
  else *uncolored = 1;
}
