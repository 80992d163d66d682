// Page View Rank (modelled on Mars' PageViewRank): a map-reduce over a web-server log.
// Map (two passes, as Mars sizes its output first): each thread scans its own contiguous chunk
// of 16-byte log records -- lanes of a warp touch records a whole chunk apart, one cache line
// each, and come back to that line for the next records (long per-set reuse distances: the
// thrashing pattern of the document's §5.1) -- and emits (url, bytes) for successful requests.
// Group: counting sort by url. Reduce: views and bytes per url. Rank: each url's position in
// descending view order (ties by url id), every thread streaming the whole views array.
#include "wf.cuh"

struct LogEntry {
  unsigned url, ip, status, bytes;
};

WF_GLOBAL void pvr_map_count(const LogEntry *log, int n, int chunk, unsigned *count) {
  unsigned t = gtid_x();
  int b = t * chunk;
  if (b >= n) return;
  int e = min(b + chunk, n);
  unsigned c = 0;
  for (int i = b; i < e; ++i)
    if (log[i].status == 200) ++c;
  count[t] = c;
}

WF_GLOBAL void pvr_map_emit(const LogEntry *log, int n, int chunk, const unsigned *offset,
                            unsigned *keys, unsigned *vals) {
  unsigned t = gtid_x();
  int b = t * chunk;
  if (b >= n) return;
  int e = min(b + chunk, n);
  unsigned o = offset[t];
  for (int i = b; i < e; ++i) {
    LogEntry r = log[i];
    if (r.status == 200) {
      keys[o] = r.url;
      vals[o] = r.bytes;
      ++o;
    }
  }
}

WF_GLOBAL void pvr_hist(const unsigned *keys, int n, unsigned *key_count) {
  wf_mr_hist(keys, n, key_count);
}

WF_GLOBAL void pvr_scatter(const unsigned *keys, const unsigned *vals, int n, unsigned *fill,
                           unsigned *grouped) {
  wf_mr_scatter(keys, vals, n, fill, grouped);
}

WF_GLOBAL void pvr_reduce(const unsigned *start, const unsigned *count, const unsigned *grouped,
                          int n_keys, unsigned *bytes) {
  wf_mr_reduce_sum(start, count, grouped, n_keys, bytes);
}

WF_GLOBAL void pvr_rank(const unsigned *views, int n_keys, unsigned *rank) {
  unsigned u = gtid_x();
  if (u >= (unsigned)n_keys) return;
  unsigned vu = views[u], r = 0;
  for (unsigned w = 0; w < (unsigned)n_keys; ++w) {
    unsigned vw = views[w];
    if (vw > vu || (vw == vu && w < u)) ++r;
  }
  rank[u] = r;
}
