// Pathfinder (Rodinia dynproc style): dynamic programming down a grid, min of the three cells
// above. One launch advances `iteration` rows; a 256-thread CTA keeps its row slice in shared
// memory and its valid region shrinks by one column per row on each side (a "pyramid"), so
// neighbouring CTAs overlap by `border` halo columns and need no communication.
#include "wf.cuh"

#define BLOCK 256

WF_GLOBAL void pth_dynproc(int iteration, const int *wall, const int *src, int *dst, int cols,
                           int start_row, int border) {
  WF_SHARED static int prev[BLOCK];
  WF_SHARED static int res[BLOCK];
  int tx = tid_x();
  int small = BLOCK - 2 * border;
  int blk_x = small * (int)ctaid_x() - border;
  int x = blk_x + tx;
  int valid_l = blk_x < 0 ? -blk_x : 0;
  int valid_r = blk_x + BLOCK - 1 > cols - 1 ? cols - 1 - blk_x : BLOCK - 1;
  if (x >= 0 && x < cols)
    prev[tx] = src[x];
  __syncthreads();
  bool computed = false;
  for (int i = 0; i < iteration; i++) {
    computed = false;
    if (tx >= i + 1 && tx <= BLOCK - 2 - i && tx >= valid_l && tx <= valid_r) {
      computed = true;
      int left = tx - 1 < valid_l ? prev[tx] : prev[tx - 1];
      int right = tx + 1 > valid_r ? prev[tx] : prev[tx + 1];
      res[tx] = min(left, min(prev[tx], right)) + wall[(start_row + i) * cols + x];
    }
    __syncthreads();
    if (i == iteration - 1)
      break;
    if (computed)
      prev[tx] = res[tx];
    __syncthreads();
  }
  if (computed && tx >= border && tx < BLOCK - border)
    dst[x] = res[tx];
}
