// LavaMD-like particle interactions (modelled on Rodinia lavaMD): space is divided into boxes of
// 100 particles; one CTA of 128 threads per home box loads its particles, then walks the home box
// and every neighbour box, staging the neighbour's particles in shared memory, and accumulates a
// potential and a force from each pair with an exponential (SFU) decay. 100 of 128 lanes work.
#include "wf.cuh"

#define NP 100
#define THREADS 128

struct __attribute__((aligned(16))) f4 {
  float v, x, y, z;
};

WF_GLOBAL void lmd_forces(const f4 *rv, const float *qv, const int *nn, const int *nei,
                          f4 *fv, float a2) {
  WF_SHARED static f4 rb[NP];
  WF_SHARED static float qb[NP];
  int t = tid_x();
  int home = ctaid_x();
  f4 ra = {0.0f, 0.0f, 0.0f, 0.0f};
  if (t < NP)
    ra = rv[home * NP + t];
  f4 acc = {0.0f, 0.0f, 0.0f, 0.0f};
  int count = nn[home];
  for (int k = 0; k <= count; k++) {
    int box = k == 0 ? home : nei[home * 26 + k - 1];
    __syncthreads();
    if (t < NP) {
      rb[t] = rv[box * NP + t];
      qb[t] = qv[box * NP + t];
    }
    __syncthreads();
    if (t < NP) {
      for (int j = 0; j < NP; j++) {
        f4 b = rb[j];
        float r2 = ra.v + b.v - 2.0f * (ra.x * b.x + ra.y * b.y + ra.z * b.z);
        float vij = __expf(-a2 * r2);
        float fs = 2.0f * vij;
        float q = qb[j];
        acc.v += q * vij;
        acc.x += q * fs * (ra.x - b.x);
        acc.y += q * fs * (ra.y - b.y);
        acc.z += q * fs * (ra.z - b.z);
      }
    }
  }
  if (t < NP)
    fv[home * NP + t] = acc;
}
