// Warp-level reductions with shuffles and ballots.
#include "wf.cuh"

WF_GLOBAL void warp_sum(const int *in, int *out) {
  unsigned i = gtid_x();
  int v = in[i];
  for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d);
  if (lane_id() == 0) out[i / 32] = v;
}

WF_GLOBAL void warp_xor_max(const float *in, float *out) {
  unsigned i = gtid_x();
  float v = in[i];
  for (int d = 1; d < 32; d <<= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, d));
  out[i] = v;
}

WF_GLOBAL void ballot_count(const int *in, unsigned *out) {
  unsigned i = gtid_x();
  unsigned b = __ballot_sync(0xffffffffu, in[i] > 0);
  if (lane_id() == 0) out[i / 32] = b;
}
