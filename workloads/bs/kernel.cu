// Black-Scholes option pricing (NVIDIA CUDA SDK 4.2 "BlackScholes" algorithm, written for
// warpforge): every option has a spot price S, a strike X and an expiry T (years); with the
// risk-free rate R and the volatility V shared by all options, the European call and put prices
// are S*N(d1) - X*exp(-RT)*N(d2) and X*exp(-RT)*(1-N(d2)) - S*(1-N(d1)), N the cumulative normal
// distribution evaluated with the Abramowitz-Stegun fifth-order polynomial (26.2.17).
// A grid-stride loop covers all options with any grid (Table 3 of document 004: 480 blocks x 128
// threads). Structure of arrays: three streamed inputs, two streamed outputs, no reuse.
#include "wf.cuh"

/// N(d): the polynomial approximation of the standard normal CDF.
WF_DEVICE float bs_cnd(float d) {
  const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f, a4 = -1.821255978f,
              a5 = 1.330274429f, rsqrt2pi = 0.39894228040143267794f;
  float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
  float c = rsqrt2pi * __expf(-0.5f * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
  return d > 0.0f ? 1.0f - c : c;
}

WF_GLOBAL void bs_price(float *call, float *put, const float *spot, const float *strike,
                        const float *years, float riskfree, float volatility, int n) {
  unsigned stride = nctaid_x() * ntid_x();
  for (unsigned i = gtid_x(); i < (unsigned)n; i += stride) {
    float s = spot[i], x = strike[i], t = years[i];
    float sqrt_t = sqrtf(t);
    float d1 = (__logf(s / x) + (riskfree + 0.5f * volatility * volatility) * t) /
               (volatility * sqrt_t);
    float d2 = d1 - volatility * sqrt_t;
    float cnd1 = bs_cnd(d1), cnd2 = bs_cnd(d2);
    float exp_rt = __expf(-riskfree * t);
    call[i] = s * cnd1 - x * exp_rt * cnd2;
    put[i] = x * exp_rt * (1.0f - cnd2) - s * (1.0f - cnd1);
  }
}
