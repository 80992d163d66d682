// Word Count (modelled on Mars' WordCount): map-reduce over a text. Map (count pass, then emit
// pass): each thread scans its own contiguous chunk of bytes, finds the words that start in it
// (reading past the chunk end to finish the last one) and emits (hash(word) mod buckets, 1).
// Byte loads from lanes a chunk apart, data-dependent word lengths (divergence). Group: counting
// sort by bucket; reduce: sum per bucket.
#include "wf.cuh"

WF_DEVICE bool is_letter(unsigned char c) { return c >= 'a' && c <= 'z'; }

/// Visits the words starting in [b, e): returns how many, and emits them if `keys` is non-null.
WF_DEVICE unsigned wc_scan(const unsigned char *text, int n, int b, int e, unsigned buckets,
                           unsigned *keys, unsigned *vals, unsigned o) {
  unsigned c = 0;
  bool prev_letter = b > 0 && is_letter(text[b - 1]);
  for (int i = b; i < e; ++i) {
    bool l = is_letter(text[i]);
    if (l && !prev_letter) {
      unsigned h = 2166136261u;  // FNV-1a over the word
      int j = i;
      while (j < n && is_letter(text[j])) {
        h = (h ^ text[j]) * 16777619u;
        ++j;
      }
      if (keys) {
        keys[o + c] = h % buckets;
        vals[o + c] = 1;
      }
      ++c;
    }
    prev_letter = l;
  }
  return c;
}

WF_GLOBAL void wc_map_count(const unsigned char *text, int n, int chunk, unsigned buckets,
                            unsigned *count) {
  unsigned t = gtid_x();
  int b = t * chunk;
  if (b >= n) return;
  count[t] = wc_scan(text, n, b, min(b + chunk, n), buckets, 0, 0, 0);
}

WF_GLOBAL void wc_map_emit(const unsigned char *text, int n, int chunk, unsigned buckets,
                           const unsigned *offset, unsigned *keys, unsigned *vals) {
  unsigned t = gtid_x();
  int b = t * chunk;
  if (b >= n) return;
  wc_scan(text, n, b, min(b + chunk, n), buckets, keys, vals, offset[t]);
}

WF_GLOBAL void wc_hist(const unsigned *keys, int n, unsigned *key_count) {
  wf_mr_hist(keys, n, key_count);
}

WF_GLOBAL void wc_scatter(const unsigned *keys, const unsigned *vals, int n, unsigned *fill,
                          unsigned *grouped) {
  wf_mr_scatter(keys, vals, n, fill, grouped);
}

WF_GLOBAL void wc_reduce(const unsigned *start, const unsigned *count, const unsigned *grouped,
                         int n_keys, unsigned *out) {
  wf_mr_reduce_sum(start, count, grouped, n_keys, out);
}
