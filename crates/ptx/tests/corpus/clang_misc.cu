#include "wf.cuh"
struct S { int a; float b; double c; };
__attribute__((device)) __attribute__((noinline)) float helper(float x, int k) { return x * k + 1.0f; }
__attribute__((device)) __attribute__((noinline)) S mk(int a) { S s; s.a = a; s.b = a * 2.f; s.c = a * 0.5; return s; }
WF_CONSTANT float coef[4] = {1.0f, 2.5f, -3.0f, 0.125f};
__attribute__((device)) int table[6] = {1, 2, 3, 4, 5, 6};
__attribute__((device)) int *ptrs[2] = {&table[0], &table[2]};
WF_GLOBAL void k_calls(float *out, S *ss, int n) {
  unsigned i = gtid_x();
  if (i >= n) return;
  S s = mk(i);
  ss[i] = s;
  out[i] = helper(out[i], i) + coef[i & 3] + *ptrs[i & 1];
}
WF_GLOBAL void k_loops(int *a, long long *b, double *d, int n) {
  unsigned i = gtid_x();
  int acc = 0;
  for (int k = 0; k < n; ++k) {
    if (a[k] < 0) break;
    if (a[k] & 1) continue;
    acc += a[k] * k;
  }
  b[i] = (long long)acc * 12345678901LL >> 7;
  d[i] = (double)acc / 3.0 + __builtin_sqrt((double)i);
  unsigned m = __nvvm_vote_ballot_sync(0xffffffff, acc > 5);
  a[i] = __builtin_popcount(m) + __builtin_clz(m | 1) + __builtin_bitreverse32(m);
}
WF_GLOBAL void k_atoms(int *a, unsigned *u, float *f, unsigned long long *ull) {
  __atomic_fetch_add(a, 1, __ATOMIC_RELAXED);
  __atomic_fetch_min(a + 1, 3, __ATOMIC_RELAXED);
  __atomic_fetch_max(a + 2, 3, __ATOMIC_RELAXED);
  __atomic_fetch_or(u, 4u, __ATOMIC_RELAXED);
  __atomic_fetch_and(u + 1, 4u, __ATOMIC_RELAXED);
  __atomic_fetch_xor(u + 2, 4u, __ATOMIC_RELAXED);
  __atomic_exchange_n(u + 3, 7u, __ATOMIC_RELAXED);
  unsigned exp = 0; __atomic_compare_exchange_n(u + 4, &exp, 9u, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  __nvvm_atom_add_gen_f(f, 1.5f);
  __atomic_fetch_add(ull, 5ull, __ATOMIC_RELAXED);
  __nvvm_membar_gl(); __nvvm_membar_cta(); __nvvm_membar_sys();
  WF_SHARED int sh[32];
  __atomic_fetch_add(&sh[tid_x() & 31], 1, __ATOMIC_RELAXED);
  __nvvm_bar_sync(0);
  a[3 + tid_x()] = sh[tid_x() & 31];
}
WF_GLOBAL void k_math(float *x, double *y, int *z) {
  unsigned i = tid_x();
  float v = x[i];
  x[i] = __nvvm_ex2_approx_f(v) + __nvvm_lg2_approx_f(v) + __nvvm_sin_approx_f(v) + __nvvm_cos_approx_f(v)
       + __nvvm_rsqrt_approx_f(v) + __nvvm_rcp_rn_f(v) + __nvvm_div_rz_f(v, 3.f) + __nvvm_fma_rm_f(v, v, 1.f)
       + __nvvm_sqrt_rp_f(v) + __builtin_fabsf(v) + __builtin_fminf(v, 2.f) + __builtin_fmaxf(v, 1.f)
       + __builtin_copysignf(v, -1.f) + __nvvm_saturate_f(v);
  y[i] = __nvvm_fma_rz_d(y[i], 2.0, 1.0) + __nvvm_rcp_rm_d(y[i]) + __nvvm_sqrt_rn_d(y[i]);
  z[i] = __nvvm_f2i_rm(v) + __nvvm_f2i_rp(v) + __nvvm_f2i_rn(v) + (int)v + __nvvm_d2i_rz(y[i]) + (unsigned)y[i]
       + __nvvm_mulhi_i(z[i], 77) + __nvvm_mul24_i(z[i], 3) + __nvvm_sad_i(z[i], 3, 4);
  unsigned long long w = __nvvm_mulhi_ull(i, 0x123456789ULL);
  z[i + 1] = (int)w + __nvvm_prmt(z[i], 0x3210, 0x5140);
}
