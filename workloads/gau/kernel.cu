// Gaussian elimination without pivoting (Rodinia gaussian style): for every pivot step t the host
// launches gau_fan1 (multipliers of column t) then gau_fan2 (rank-1 update of the trailing
// matrix and of b). Fan2 covers the whole n x n index space, so most CTAs retire at once in late
// steps: many short launches with shrinking useful work.
#include "wf.cuh"

WF_GLOBAL void gau_fan1(const float *a, float *mult, int n, int t) {
  int i = gtid_x();
  if (i >= n - 1 - t)
    return;
  int row = i + 1 + t;
  mult[row * n + t] = a[row * n + t] / a[t * n + t];
}

WF_GLOBAL void gau_fan2(float *a, float *b, const float *mult, int n, int t) {
  int x = ctaid_x() * ntid_x() + tid_x(); // column offset
  int y = ctaid_y() * ntid_y() + tid_y(); // row offset
  if (y >= n - 1 - t || x >= n - t)
    return;
  int row = y + 1 + t;
  int col = x + t;
  float m = mult[row * n + t];
  a[row * n + col] -= m * a[t * n + col];
  if (x == 0)
    b[row] -= m * b[t];
}
