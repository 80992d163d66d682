// B+tree point search (Rodinia b+tree findK style): one CTA per query, one thread per key slot of
// a node. Each level, the thread whose key range holds the query publishes the child through
// shared memory; two barriers per level. Node i has nkeys[i] keys in keys[i*fanout ..]; ptrs holds
// child node indices (inner levels) or record values (leaves).
#include "wf.cuh"

WF_GLOBAL void bt_find_k(const int *keys, const int *ptrs, const int *nkeys, int root,
                         int height, int fanout, const int *queries, int *out) {
  WF_SHARED static int next;
  WF_SHARED static int found;
  int q = queries[ctaid_x()];
  int t = tid_x();
  int node = root;
  for (int level = 0; level < height; level++) {
    int n = nkeys[node];
    if (t < n) {
      const int *k = keys + node * fanout;
      bool last = t == n - 1;
      if ((t == 0 || k[t] <= q) && (last || q < k[t + 1]))
        next = ptrs[node * fanout + t];
    }
    __syncthreads();
    node = next;
    __syncthreads();
  }
  if (t == 0)
    found = -1;
  __syncthreads();
  if (t < nkeys[node] && keys[node * fanout + t] == q)
    found = ptrs[node * fanout + t];
  __syncthreads();
  if (t == 0)
    out[ctaid_x()] = found;
}
