// Needleman-Wunsch global alignment (Rodinia nw style): the (n+1)x(n+1) score matrix is processed
// in 16x16 tiles, one CTA of 16 threads per tile, tiles of one anti-diagonal per launch. Inside a
// tile the 31 cell anti-diagonals are swept with a barrier after each one.
#include "wf.cuh"

#define B 16

WF_DEVICE int max3(int a, int b, int c) { return max(a, max(b, c)); }

WF_DEVICE void nw_tile(int *score, const int *ref, int n, int penalty, int bx, int by) {
  WF_SHARED static int t[B + 1][B + 1];
  WF_SHARED static int rf[B][B];
  int tx = tid_x();
  int w = n + 1;
  int r0 = by * B, c0 = bx * B;
  for (int ty = 0; ty < B; ty++)
    rf[ty][tx] = ref[(r0 + 1 + ty) * w + c0 + 1 + tx];
  if (tx == 0)
    t[0][0] = score[r0 * w + c0];
  t[tx + 1][0] = score[(r0 + 1 + tx) * w + c0];
  t[0][tx + 1] = score[r0 * w + c0 + 1 + tx];
  __syncthreads();
  for (int m = 0; m < B; m++) {
    if (tx <= m) {
      int x = tx + 1, y = m - tx + 1;
      t[y][x] = max3(t[y - 1][x - 1] + rf[y - 1][x - 1], t[y][x - 1] - penalty,
                     t[y - 1][x] - penalty);
    }
    __syncthreads();
  }
  for (int m = B - 2; m >= 0; m--) {
    if (tx <= m) {
      int x = tx + B - m, y = B - tx;
      t[y][x] = max3(t[y - 1][x - 1] + rf[y - 1][x - 1], t[y][x - 1] - penalty,
                     t[y - 1][x] - penalty);
    }
    __syncthreads();
  }
  for (int ty = 0; ty < B; ty++)
    score[(r0 + 1 + ty) * w + c0 + 1 + tx] = t[ty + 1][tx + 1];
}

// Upper-left half: launch `diag` (1..=nb) has `diag` tiles.
WF_GLOBAL void nw_kernel1(int *score, const int *ref, int n, int penalty, int diag) {
  int b = ctaid_x();
  nw_tile(score, ref, n, penalty, b, diag - 1 - b);
}

// Lower-right half: launch `diag` (nb-1 down to 1) has `diag` tiles.
WF_GLOBAL void nw_kernel2(int *score, const int *ref, int n, int penalty, int diag) {
  int b = ctaid_x();
  int nb = n / B;
  nw_tile(score, ref, n, penalty, b + nb - diag, nb - 1 - b);
}
