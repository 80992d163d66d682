// The SRAD diffusion coefficient shared by sr1 (index-array gathers) and sr2 (shared-memory
// tiles): from a pixel `jc` and its four directional derivatives, the instantaneous coefficient
// of variation against `q0sqr`, clamped to [0, 1]; stores the derivatives and the coefficient at
// index i. Include after wf.cuh.
#pragma once

WF_DEVICE void srad_coefficient(float jc, float n_, float s_, float w_, float e_, float q0sqr,
                                int i, float *dn, float *ds, float *dw, float *de, float *c) {
  float g2 = (n_ * n_ + s_ * s_ + w_ * w_ + e_ * e_) / (jc * jc);
  float l = (n_ + s_ + w_ + e_) / jc;
  float num = 0.5f * g2 - (1.0f / 16.0f) * (l * l);
  float den = 1.0f + 0.25f * l;
  float qsqr = num / (den * den);
  den = (qsqr - q0sqr) / (q0sqr * (1.0f + q0sqr));
  float cv = 1.0f / (1.0f + den);
  cv = cv < 0.0f ? 0.0f : (cv > 1.0f ? 1.0f : cv);
  dn[i] = n_;
  ds[i] = s_;
  dw[i] = w_;
  de[i] = e_;
  c[i] = cv;
}
