// LAX calibration kernel: STEMKernel of document 003 Table 3.1 (Porter-style suffix stripping of
// the speech recogniser's words). One thread per word of up to 16 bytes (zero padded): three
// passes over a suffix table, each replacing the longest matching suffix (if the remaining stem
// keeps at least 2 letters) by its replacement. Writes the stemmed length.
#include "wf.cuh"

#define STEM_W 16
#define STEM_SUF 8

WF_GLOBAL void stem_words(const unsigned char *words, const unsigned char *suf,
                          const int *suf_len, const unsigned char *rep, const int *rep_len,
                          int n_suf, unsigned char *out, int *out_len, int n) {
  unsigned i = gtid_x();
  if (i >= (unsigned)n) return;
  unsigned char w[STEM_W];
  int len = 0;
  for (int k = 0; k < STEM_W; k++) {
    w[k] = words[i * STEM_W + k];
    if (w[k] != 0) len = k + 1;
  }
  for (int pass = 0; pass < 3; pass++) {
    int best = -1, best_len = 0;
    for (int s = 0; s < n_suf; s++) {
      int sl = suf_len[s];
      if (sl <= best_len || sl + 2 > len) continue;
      int ok = 1;
      for (int k = 0; k < sl; k++)
        if (w[len - sl + k] != suf[s * STEM_SUF + k]) ok = 0;
      if (ok) {
        best = s;
        best_len = sl;
      }
    }
    if (best < 0) break;
    len -= best_len;
    for (int k = 0; k < rep_len[best]; k++) w[len++] = rep[best * STEM_SUF + k];
  }
  for (int k = 0; k < STEM_W; k++) out[i * STEM_W + k] = k < len ? w[k] : 0;
  out_len[i] = len;
}
