// Block-level sum reduction in shared memory with barriers; one partial sum per CTA.
#include "wf.cuh"

WF_GLOBAL void reduce_sum(const unsigned *in, unsigned *out, unsigned n) {
  WF_SHARED unsigned buf[256];
  unsigned t = tid_x();
  unsigned i = ctaid_x() * ntid_x() * 2 + t;
  unsigned v = 0;
  if (i < n) v = in[i];
  if (i + ntid_x() < n) v += in[i + ntid_x()];
  buf[t] = v;
  sync_threads();
  for (unsigned s = ntid_x() / 2; s > 0; s >>= 1) {
    if (t < s) buf[t] += buf[t + s];
    sync_threads();
  }
  if (t == 0) out[ctaid_x()] = buf[0];
}

// Dynamic shared memory variant: the block size is the dynamic shared size / 4.
extern WF_SHARED unsigned dyn_buf[];
WF_GLOBAL void reduce_dyn(const unsigned *in, unsigned *out) {
  unsigned t = tid_x();
  dyn_buf[t] = in[ctaid_x() * ntid_x() + t];
  sync_threads();
  for (unsigned s = ntid_x() / 2; s > 0; s >>= 1) {
    if (t < s) dyn_buf[t] += dyn_buf[t + s];
    sync_threads();
  }
  if (t == 0) out[ctaid_x()] = dyn_buf[0];
}
