// warpforge device header: the CUDA built-ins our kernels need, defined on clang's NVVM
// builtins so kernels compile with clang-16 and no CUDA toolkit (see docs/TOOLCHAIN.md).
#pragma once

#define WF_DEVICE __attribute__((device)) static inline
#define WF_GLOBAL extern "C" __attribute__((global))
#define WF_SHARED __attribute__((shared))
#define WF_CONSTANT __attribute__((constant))

WF_DEVICE unsigned tid_x() { return __nvvm_read_ptx_sreg_tid_x(); }
WF_DEVICE unsigned tid_y() { return __nvvm_read_ptx_sreg_tid_y(); }
WF_DEVICE unsigned tid_z() { return __nvvm_read_ptx_sreg_tid_z(); }
WF_DEVICE unsigned ntid_x() { return __nvvm_read_ptx_sreg_ntid_x(); }
WF_DEVICE unsigned ntid_y() { return __nvvm_read_ptx_sreg_ntid_y(); }
WF_DEVICE unsigned ctaid_x() { return __nvvm_read_ptx_sreg_ctaid_x(); }
WF_DEVICE unsigned ctaid_y() { return __nvvm_read_ptx_sreg_ctaid_y(); }
WF_DEVICE unsigned nctaid_x() { return __nvvm_read_ptx_sreg_nctaid_x(); }
WF_DEVICE unsigned nctaid_y() { return __nvvm_read_ptx_sreg_nctaid_y(); }
WF_DEVICE unsigned lane_id() { return __nvvm_read_ptx_sreg_laneid(); }
/// Global linear thread index along x.
WF_DEVICE unsigned gtid_x() { return ctaid_x() * ntid_x() + tid_x(); }

// `__syncthreads` is a clang builtin already (emits `bar.sync 0`).
WF_DEVICE void sync_threads() { __nvvm_bar_sync(0); }
WF_DEVICE void __threadfence() { __nvvm_membar_gl(); }

WF_DEVICE int atomicAdd(int *p, int v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
WF_DEVICE unsigned atomicAdd(unsigned *p, unsigned v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
WF_DEVICE float atomicAdd(float *p, float v) { return __nvvm_atom_add_gen_f(p, v); }
WF_DEVICE int atomicMin(int *p, int v) { return __nvvm_atom_min_gen_i(p, v); }
WF_DEVICE int atomicMax(int *p, int v) { return __nvvm_atom_max_gen_i(p, v); }
WF_DEVICE unsigned atomicMin(unsigned *p, unsigned v) { return __nvvm_atom_min_gen_ui(p, v); }
WF_DEVICE int atomicExch(int *p, int v) { return __nvvm_atom_xchg_gen_i(p, v); }
WF_DEVICE int atomicCAS(int *p, int cmp, int v) { return __nvvm_atom_cas_gen_i(p, cmp, v); }
WF_DEVICE int atomicOr(int *p, int v) { return __nvvm_atom_or_gen_i(p, v); }

WF_DEVICE float __shfl_down_sync(unsigned mask, float v, unsigned d) {
  return __nvvm_shfl_sync_down_f32(mask, v, d, 0x1f);
}
WF_DEVICE int __shfl_down_sync(unsigned mask, int v, unsigned d) {
  return __nvvm_shfl_sync_down_i32(mask, v, d, 0x1f);
}
WF_DEVICE int __shfl_xor_sync(unsigned mask, int v, unsigned d) {
  return __nvvm_shfl_sync_bfly_i32(mask, v, d, 0x1f);
}
WF_DEVICE float __shfl_xor_sync(unsigned mask, float v, unsigned d) {
  return __nvvm_shfl_sync_bfly_f32(mask, v, d, 0x1f);
}
WF_DEVICE unsigned __ballot_sync(unsigned mask, int p) { return __nvvm_vote_ballot_sync(mask, p); }

// Fast math on the .approx hardware paths (no libdevice): sufficient for our references, which
// compare with tolerances.
WF_DEVICE float __expf(float x) { return __nvvm_ex2_approx_f(x * 1.4426950408889634f); }
WF_DEVICE float __logf(float x) { return __nvvm_lg2_approx_f(x) * 0.6931471805599453f; }
WF_DEVICE float __sinf(float x) { return __nvvm_sin_approx_f(x); }
WF_DEVICE float __cosf(float x) { return __nvvm_cos_approx_f(x); }
WF_DEVICE float sqrtf(float x) { return __nvvm_sqrt_rn_f(x); }
WF_DEVICE float rsqrtf(float x) { return __nvvm_rsqrt_approx_f(x); }
WF_DEVICE float fabsf(float x) { return __builtin_fabsf(x); }
WF_DEVICE float fminf(float a, float b) { return __nvvm_fmin_f(a, b); }
WF_DEVICE float fmaxf(float a, float b) { return __nvvm_fmax_f(a, b); }
WF_DEVICE int min(int a, int b) { return a < b ? a : b; }
WF_DEVICE int max(int a, int b) { return a > b ? a : b; }

// ---- Mars-style map-reduce group/reduce steps (used by the Ctrl-C set: pvr, wc, str) ----
// Records are (key, value) pairs with keys in [0, n_keys). Grouping is a counting sort: a key
// histogram (atomics), an exclusive scan of it (host), then a scatter that claims slots with
// atomics. Values within a group end up in an arbitrary order, so reductions must be
// order-independent (integer sums, minima).

/// Thread i counts record i's key: key_count[keys[i]]++.
WF_DEVICE void wf_mr_hist(const unsigned *keys, int n, unsigned *key_count) {
  unsigned i = gtid_x();
  if (i < (unsigned)n) atomicAdd(&key_count[keys[i]], 1u);
}
/// Thread i moves record i's value into its key's group; `fill` starts as the group offsets.
WF_DEVICE void wf_mr_scatter(const unsigned *keys, const unsigned *vals, int n, unsigned *fill,
                             unsigned *grouped) {
  unsigned i = gtid_x();
  if (i >= (unsigned)n) return;
  unsigned slot = atomicAdd(&fill[keys[i]], 1u);
  grouped[slot] = vals[i];
}
/// Thread k sums the values of group k.
WF_DEVICE void wf_mr_reduce_sum(const unsigned *start, const unsigned *count,
                                const unsigned *grouped, int n_keys, unsigned *out) {
  unsigned k = gtid_x();
  if (k >= (unsigned)n_keys) return;
  unsigned s = 0, b = start[k], e = b + count[k];
  for (unsigned i = b; i < e; ++i) s += grouped[i];
  out[k] = s;
}
