// String Match (modelled on Mars' StringMatch): find every occurrence of a few keywords in a
// text of words. Map (count pass, then emit pass): each thread scans its own chunk of bytes and,
// at each word start, compares the word against every keyword byte by byte with early exit
// (divergent, byte-granular loads from lanes a chunk apart); it emits (keyword, word offset).
// Group: counting sort by keyword; reduce: the first occurrence of each keyword.
#include "wf.cuh"

WF_DEVICE bool is_letter(unsigned char c) { return c >= 'a' && c <= 'z'; }

/// Index of the keyword the word at text[i] equals, or -1.
WF_DEVICE int match_word(const unsigned char *text, int n, int i, const unsigned char *kw,
                         const unsigned *kw_off, int n_kw) {
  for (int k = 0; k < n_kw; ++k) {
    unsigned b = kw_off[k], e = kw_off[k + 1];
    int j = i;
    unsigned p = b;
    while (p < e && j < n && text[j] == kw[p]) {
      ++j;
      ++p;
    }
    if (p == e && (j >= n || !is_letter(text[j]))) return k;
  }
  return -1;
}

WF_DEVICE unsigned str_scan(const unsigned char *text, int n, int b, int e,
                            const unsigned char *kw, const unsigned *kw_off, int n_kw,
                            unsigned *keys, unsigned *vals, unsigned o) {
  unsigned c = 0;
  bool prev_letter = b > 0 && is_letter(text[b - 1]);
  for (int i = b; i < e; ++i) {
    bool l = is_letter(text[i]);
    if (l && !prev_letter) {
      int k = match_word(text, n, i, kw, kw_off, n_kw);
      if (k >= 0) {
        if (keys) {
          keys[o + c] = k;
          vals[o + c] = i;
        }
        ++c;
      }
    }
    prev_letter = l;
  }
  return c;
}

WF_GLOBAL void str_map_count(const unsigned char *text, int n, int chunk, const unsigned char *kw,
                             const unsigned *kw_off, int n_kw, unsigned *count) {
  unsigned t = gtid_x();
  int b = t * chunk;
  if (b >= n) return;
  count[t] = str_scan(text, n, b, min(b + chunk, n), kw, kw_off, n_kw, 0, 0, 0);
}

WF_GLOBAL void str_map_emit(const unsigned char *text, int n, int chunk, const unsigned char *kw,
                            const unsigned *kw_off, int n_kw, const unsigned *offset,
                            unsigned *keys, unsigned *vals) {
  unsigned t = gtid_x();
  int b = t * chunk;
  if (b >= n) return;
  str_scan(text, n, b, min(b + chunk, n), kw, kw_off, n_kw, keys, vals, offset[t]);
}

WF_GLOBAL void str_hist(const unsigned *keys, int n, unsigned *key_count) {
  wf_mr_hist(keys, n, key_count);
}

WF_GLOBAL void str_scatter(const unsigned *keys, const unsigned *vals, int n, unsigned *fill,
                           unsigned *grouped) {
  wf_mr_scatter(keys, vals, n, fill, grouped);
}

WF_GLOBAL void str_reduce_first(const unsigned *start, const unsigned *count,
                                const unsigned *grouped, int n_keys, unsigned *first) {
  unsigned k = gtid_x();
  if (k >= (unsigned)n_keys) return;
  unsigned m = 0xffffffffu, b = start[k], e = b + count[k];
  for (unsigned i = b; i < e; ++i) m = grouped[i] < m ? grouped[i] : m;
  first[k] = m;
}
