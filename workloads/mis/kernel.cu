// Maximal independent set (modelled on Pannotia's MIS, Luby's algorithm with fixed random node
// priorities). Round structure: mis_select adds every undecided vertex whose (priority, id) is
// smaller than that of all undecided neighbours; mis_remove takes the neighbours of selected
// vertices out. The host repeats both until no vertex is undecided. State: 0 undecided,
// 1 in the set, 2 removed.
#include "wf.cuh"

WF_GLOBAL void mis_select(const unsigned *row_ptr, const unsigned *col, const unsigned *prio,
                          int *state, int n) {
  unsigned v = gtid_x();
  if (v >= (unsigned)n || state[v] != 0) return;
  unsigned pv = prio[v];
  unsigned end = row_ptr[v + 1];
  for (unsigned e = row_ptr[v]; e < end; ++e) {
    unsigned w = col[e];
    int sw = state[w];
    // A neighbour already in the set can only have joined in this launch (the previous
    // mis_remove cleared all others), so it has the smaller priority: v loses.
    if (sw == 1) return;
    if (sw == 0) {
      unsigned pw = prio[w];
      if (pw < pv || (pw == pv && w < v)) return;
    }
  }
  state[v] = 1;
}

WF_GLOBAL void mis_remove(const unsigned *row_ptr, const unsigned *col, int *state,
                          int *undecided, int n) {
  unsigned v = gtid_x();
  if (v >= (unsigned)n || state[v] != 0) return;
  unsigned end = row_ptr[v + 1];
  for (unsigned e = row_ptr[v]; e < end; ++e) {
    if (state[col[e]] == 1) {
      state[v] = 2;
      return;
    }
  }
  *undecided = 1;
}
