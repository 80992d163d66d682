// HotSpot thermal simulation (modelled on Rodinia's hotspot): an explicit 5-point stencil over a
// chip's temperature grid. Each 16x16 CTA loads a tile (with a halo) into shared memory and
// advances it `pyramid` time steps, the valid region shrinking by one cell per step (the
// "pyramid"), with barriers between steps; it writes back the inner (16 - 2*pyramid)^2 cells.
// Borders replicate the edge cell. Compute-heavy with regular, coalesced global accesses.
#include "wf.cuh"

#define HOT_BLOCK 16

WF_GLOBAL void hot_step(const float *power, const float *temp_in, float *temp_out, int cols,
                        int rows, int pyramid, float step_div_cap, float rx_1, float ry_1,
                        float rz_1, float amb) {
  WF_SHARED static float t_sh[HOT_BLOCK][HOT_BLOCK];
  WF_SHARED static float p_sh[HOT_BLOCK][HOT_BLOCK];
  WF_SHARED static float n_sh[HOT_BLOCK][HOT_BLOCK];
  int tx = tid_x(), ty = tid_y();
  int inner = HOT_BLOCK - 2 * pyramid;
  int x0 = (int)ctaid_x() * inner - pyramid;  // global coordinates of tile cell (0, 0)
  int y0 = (int)ctaid_y() * inner - pyramid;
  int gx = x0 + tx, gy = y0 + ty;
  bool in_grid = gx >= 0 && gx < cols && gy >= 0 && gy < rows;
  if (in_grid) {
    t_sh[ty][tx] = temp_in[gy * cols + gx];
    p_sh[ty][tx] = power[gy * cols + gx];
  }
  __syncthreads();
  // Tile cells that lie on the grid.
  int vx0 = x0 < 0 ? -x0 : 0, vy0 = y0 < 0 ? -y0 : 0;
  int vx1 = x0 + HOT_BLOCK > cols ? cols - 1 - x0 : HOT_BLOCK - 1;
  int vy1 = y0 + HOT_BLOCK > rows ? rows - 1 - y0 : HOT_BLOCK - 1;
  int n = ty - 1 < vy0 ? vy0 : ty - 1, s = ty + 1 > vy1 ? vy1 : ty + 1;
  int w = tx - 1 < vx0 ? vx0 : tx - 1, e = tx + 1 > vx1 ? vx1 : tx + 1;
  bool computed = false;
  for (int i = 0; i < pyramid; ++i) {
    computed = false;
    if (tx >= i + 1 && tx <= HOT_BLOCK - i - 2 && ty >= i + 1 && ty <= HOT_BLOCK - i - 2 &&
        tx >= vx0 && tx <= vx1 && ty >= vy0 && ty <= vy1) {
      float c = t_sh[ty][tx];
      n_sh[ty][tx] = c + step_div_cap * (p_sh[ty][tx] + (t_sh[s][tx] + t_sh[n][tx] - 2.0f * c) * ry_1 +
                                         (t_sh[ty][e] + t_sh[ty][w] - 2.0f * c) * rx_1 +
                                         (amb - c) * rz_1);
      computed = true;
    }
    __syncthreads();
    if (i == pyramid - 1) break;
    if (computed) t_sh[ty][tx] = n_sh[ty][tx];
    __syncthreads();
  }
  if (computed && tx >= pyramid && tx < HOT_BLOCK - pyramid && ty >= pyramid &&
      ty < HOT_BLOCK - pyramid)
    temp_out[gy * cols + gx] = n_sh[ty][tx];
}
