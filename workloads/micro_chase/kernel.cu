// Pointer chase: one thread follows a chain of device addresses for `steps` hops; every load's
// address is the previous load's value (no address arithmetic), so the kernel's time is
// steps x load-to-use latency. The host lays the chain out to hit the L1, the L2 or DRAM
// (micro_lat_l1 / micro_lat_l2 / micro_lat_dram).
#include "wf.cuh"

WF_GLOBAL void chase(const unsigned long long *start, int steps, unsigned long long *out) {
  const unsigned long long *p = start;
#pragma unroll 8
  for (int i = 0; i < steps; i++)
    p = (const unsigned long long *)*p;
  out[0] = (unsigned long long)p;
}
