// Blocked LU decomposition without pivoting (Rodinia lud style), in place, L unit-lower. For
// every diagonal block step s the host launches: lud_diagonal (one CTA factorises tile (s,s)),
// lud_perimeter (one CTA per remaining tile pair: row tile (s,j) and column tile (j,s)) and
// lud_internal (one 16x16 CTA per trailing tile: a tile matrix product). Tiles are staged in
// shared memory; the first two kernels have long serial barrier chains, the third is dense.
#include "wf.cuh"

#define BS 16

WF_GLOBAL void lud_diagonal(float *a, int n, int s) {
  WF_SHARED static float d[BS][BS];
  int tx = tid_x();
  int o = s * BS;
  for (int i = 0; i < BS; i++)
    d[i][tx] = a[(o + i) * n + o + tx];
  __syncthreads();
  for (int k = 0; k < BS - 1; k++) {
    if (tx > k)
      d[tx][k] /= d[k][k];
    __syncthreads();
    if (tx > k)
      for (int j = k + 1; j < BS; j++)
        d[tx][j] -= d[tx][k] * d[k][j];
    __syncthreads();
  }
  for (int i = 0; i < BS; i++)
    a[(o + i) * n + o + tx] = d[i][tx];
}

WF_GLOBAL void lud_perimeter(float *a, int n, int s) {
  WF_SHARED static float dia[BS][BS];
  WF_SHARED static float row[BS][BS];
  WF_SHARED static float col[BS][BS];
  int tx = tid_x();
  int o = s * BS;
  int j = (s + 1 + ctaid_x()) * BS;
  for (int i = 0; i < BS; i++) {
    if (tx < BS) {
      dia[i][tx] = a[(o + i) * n + o + tx];
      row[i][tx] = a[(o + i) * n + j + tx];
    } else {
      col[i][tx - BS] = a[(j + i) * n + o + tx - BS];
    }
  }
  __syncthreads();
  if (tx < BS) {
    // Row tile: forward substitution with the unit-lower L of the diagonal tile, column tx.
    for (int i = 1; i < BS; i++) {
      float sum = row[i][tx];
      for (int k = 0; k < i; k++)
        sum -= dia[i][k] * row[k][tx];
      row[i][tx] = sum;
    }
  } else {
    // Column tile: solve X * U = C for row r of the tile.
    int r = tx - BS;
    for (int i = 0; i < BS; i++) {
      float sum = col[r][i];
      for (int k = 0; k < i; k++)
        sum -= col[r][k] * dia[k][i];
      col[r][i] = sum / dia[i][i];
    }
  }
  __syncthreads();
  for (int i = 0; i < BS; i++) {
    if (tx < BS)
      a[(o + i) * n + j + tx] = row[i][tx];
    else
      a[(j + i) * n + o + tx - BS] = col[i][tx - BS];
  }
}

WF_GLOBAL void lud_internal(float *a, int n, int s) {
  WF_SHARED static float l[BS][BS];
  WF_SHARED static float u[BS][BS];
  int tx = tid_x(), ty = tid_y();
  int o = s * BS;
  int gi = (s + 1 + ctaid_y()) * BS;
  int gj = (s + 1 + ctaid_x()) * BS;
  l[ty][tx] = a[(gi + ty) * n + o + tx];
  u[ty][tx] = a[(o + ty) * n + gj + tx];
  __syncthreads();
  float sum = 0.0f;
  for (int k = 0; k < BS; k++)
    sum += l[ty][k] * u[k][tx];
  a[(gi + ty) * n + gj + tx] -= sum;
}
