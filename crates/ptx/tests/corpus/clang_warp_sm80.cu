#include "wf.cuh"
WF_GLOBAL void warp_ops(int *o, float *f, unsigned long long *t) {
  unsigned l = lane_id();
  int v = o[l];
  v += __nvvm_shfl_sync_up_i32(0xffffffff, v, 1, 0);
  v += __nvvm_shfl_sync_bfly_i32(0xffffffff, v, 4, 0x1f);
  v += __nvvm_shfl_sync_idx_i32(0xffffffff, v, 0, 0x1f);
  unsigned m = 0xffffffffu;
  int all = __nvvm_vote_all_sync(m, v > 0);
  int any = __nvvm_vote_any_sync(m, v > 3);
  int uni = __nvvm_vote_uni_sync(m, v > 3);
  __nvvm_bar_warp_sync(m);
  unsigned mm = __nvvm_match_any_sync_i32(m, v);
  unsigned rs = __nvvm_redux_sync_add(v, m);

  t[0] = __nvvm_read_ptx_sreg_clock64();
  o[l] = v + all + any + uni + mm + rs + __nvvm_read_ptx_sreg_smid() + __nvvm_read_ptx_sreg_lanemask_lt();
  __fp16 h = (__fp16)f[l];
  f[l] = (float)(h * h) + __nvvm_fmin_nan_f(f[l], 1.f) * 0 + __builtin_fmaf(f[l], 2.f, 3.f);
  __nvvm_barrier_sync_cnt(1, 64);
  for (int i = 0; i < 100; i++) { if (f[i] > 5.f) { f[i+1] = f[i] * 3; if (i & 1) return; } else f[i+2] = 0; }
}
