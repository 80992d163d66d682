// BFS (Rodinia-style, two kernels per frontier level). The host relaunches both kernels until no
// node was added to the frontier. Graph in CSR form: node i's edges are edges[start[i] ..
// start[i] + degree[i]].
#include "wf.cuh"

// Kernel 1: every frontier node relaxes its neighbours. Warps whose nodes have many neighbours
// run longer (the workload imbalance the CAWA chapters study).
WF_GLOBAL void bfs_expand(const int *start, const int *degree, const int *edges,
                          unsigned char *frontier, unsigned char *updating,
                          const unsigned char *visited, int *cost, int n) {
  int tid = gtid_x();
  if (tid < n && frontier[tid]) {
    frontier[tid] = 0;
    int first = start[tid];
    int last = first + degree[tid];
    int next_cost = cost[tid] + 1;
    for (int e = first; e < last; e++) {
      int id = edges[e];
      if (!visited[id]) {
        cost[id] = next_cost;
        updating[id] = 1;
      }
    }
  }
}

// Kernel 2: nodes reached this level join the next frontier; `over` tells the host to go on.
WF_GLOBAL void bfs_update(unsigned char *frontier, unsigned char *updating,
                          unsigned char *visited, int *over, int n) {
  int tid = gtid_x();
  if (tid < n && updating[tid]) {
    frontier[tid] = 1;
    visited[tid] = 1;
    *over = 1;
    updating[tid] = 0;
  }
}
