// Myocyte-like excitable-cell ODE solver (modelled on the workload of Rodinia myocyte): every
// thread integrates one cell model (Hodgkin-Huxley-type gating plus a calcium pool and a
// calcium-activated potassium current) with forward Euler for `steps` steps of `dt` ms per
// launch; the host launches one span after another. Few threads, long dependent chains of SFU
// exponentials and divides: latency-bound with little parallelism to hide it.
#include "wf.cuh"

#define NV 5 // V, m, h, n, ca

WF_DEVICE float vtrap(float x, float k) {
  // x / (1 - exp(-x/k)), continuous at x = 0
  return fabsf(x) < 1e-4f ? k : x / (1.0f - __expf(-x / k));
}

WF_GLOBAL void myc_solve(float *state, const float *gna, const int *period, int ncells,
                         int step0, int steps, float dt) {
  int i = gtid_x();
  if (i >= ncells)
    return;
  float v = state[i], m = state[ncells + i], hh = state[2 * ncells + i];
  float n = state[3 * ncells + i], ca = state[4 * ncells + i];
  float g_na = gna[i];
  int per = period[i];
  for (int s = 0; s < steps; s++) {
    float am = 0.1f * vtrap(v + 40.0f, 10.0f);
    float bm = 4.0f * __expf(-(v + 65.0f) / 18.0f);
    float ah = 0.07f * __expf(-(v + 65.0f) / 20.0f);
    float bh = 1.0f / (1.0f + __expf(-(v + 35.0f) / 10.0f));
    float an = 0.01f * vtrap(v + 55.0f, 10.0f);
    float bn = 0.125f * __expf(-(v + 65.0f) / 80.0f);
    float ina = g_na * m * m * m * hh * (v - 50.0f);
    float ik = 36.0f * n * n * n * n * (v + 77.0f);
    float il = 0.3f * (v + 54.4f);
    float ikca = 2.0f * ca / (ca + 1.0f) * (v + 77.0f);
    float stim = (step0 + s) % per < 100 ? 10.0f : 0.0f;
    float dv = stim - ina - ik - il - ikca;
    float dca = -0.0005f * ina - ca / 80.0f;
    v += dt * dv;
    m += dt * (am * (1.0f - m) - bm * m);
    hh += dt * (ah * (1.0f - hh) - bh * hh);
    n += dt * (an * (1.0f - n) - bn * n);
    ca += dt * dca;
  }
  state[i] = v;
  state[ncells + i] = m;
  state[2 * ncells + i] = hh;
  state[3 * ncells + i] = n;
  state[4 * ncells + i] = ca;
}
