// Matrix Multiply (modelled on Mars' MatrixMul, which uses no shared memory): C = A * B for
// square row-major matrices. Map: each thread computes one partial dot product over a k-chunk
// and emits it keyed by (row, column, chunk); consecutive threads take consecutive rows, so a
// warp's A loads are a full row apart (one 128-byte line per lane for 4 useful bytes: the poor
// spatial locality for which the document finds MM faster with the L1D off) while its B loads
// are a broadcast. Reduce: one thread per output element sums its chunks in order.
#include "wf.cuh"

WF_GLOBAL void mm_map(const float *a, const float *b, int n, int kchunk, float *partial) {
  unsigned t = gtid_x();
  unsigned nn = n, chunks = nn / kchunk;
  if (t >= nn * nn * chunks) return;
  unsigned row = t % nn;
  unsigned col = (t / nn) % nn;
  unsigned c = t / (nn * nn);
  float s = 0.0f;
  for (unsigned k = c * kchunk; k < (c + 1) * kchunk; ++k) s += a[row * nn + k] * b[k * nn + col];
  partial[(row * nn + col) * chunks + c] = s;
}

WF_GLOBAL void mm_reduce(const float *partial, int n, int chunks, float *out) {
  unsigned e = gtid_x();
  if (e >= (unsigned)(n * n)) return;
  float s = 0.0f;
  for (int c = 0; c < chunks; ++c) s += partial[e * chunks + c];
  out[e] = s;
}
