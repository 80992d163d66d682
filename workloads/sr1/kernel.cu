// SRAD v1 (speckle-reducing anisotropic diffusion, Rodinia srad_v1 style): one thread per pixel,
// neighbours found through clamped index arrays (gathers), statistics by a block tree reduction.
// Per iteration the host launches sr1_reduce, derives q0^2 from the block partials, then
// sr1_srad (diffusion coefficient) and sr1_srad2 (divergence + update). sr1_extract and
// sr1_compress run once before and after (exp / log on the SFU).
#include "wf.cuh"
#include "srad.cuh"

#define RBLOCK 256

WF_GLOBAL void sr1_extract(float *img, int n) {
  int i = gtid_x();
  if (i < n)
    img[i] = __expf(img[i] / 255.0f);
}

WF_GLOBAL void sr1_compress(float *img, int n) {
  int i = gtid_x();
  if (i < n)
    img[i] = __logf(img[i]) * 255.0f;
}

WF_GLOBAL void sr1_reduce(const float *img, int n, float *psum, float *psq) {
  WF_SHARED static float s[RBLOCK];
  WF_SHARED static float q[RBLOCK];
  int t = tid_x();
  int i = gtid_x();
  float v = i < n ? img[i] : 0.0f;
  s[t] = v;
  q[t] = v * v;
  __syncthreads();
  for (int half = RBLOCK / 2; half > 0; half /= 2) {
    if (t < half) {
      s[t] += s[t + half];
      q[t] += q[t + half];
    }
    __syncthreads();
  }
  if (t == 0) {
    psum[ctaid_x()] = s[0];
    psq[ctaid_x()] = q[0];
  }
}

WF_GLOBAL void sr1_srad(const float *img, int rows, int cols, const int *in, const int *is,
                        const int *jw, const int *je, float *dn, float *ds, float *dw,
                        float *de, float *c, float q0sqr) {
  int i = gtid_x();
  if (i >= rows * cols)
    return;
  int r = i / cols, col = i % cols;
  float jc = img[i];
  float n_ = img[in[r] * cols + col] - jc;
  float s_ = img[is[r] * cols + col] - jc;
  float w_ = img[r * cols + jw[col]] - jc;
  float e_ = img[r * cols + je[col]] - jc;
  srad_coefficient(jc, n_, s_, w_, e_, q0sqr, i, dn, ds, dw, de, c);
}

WF_GLOBAL void sr1_srad2(float *img, int rows, int cols, const int *is, const int *je,
                         const float *dn, const float *ds, const float *dw, const float *de,
                         const float *c, float lambda) {
  int i = gtid_x();
  if (i >= rows * cols)
    return;
  int r = i / cols, col = i % cols;
  float cn = c[i];
  float cs = c[is[r] * cols + col];
  float cw = c[i];
  float ce = c[r * cols + je[col]];
  float d = cn * dn[i] + cs * ds[i] + cw * dw[i] + ce * de[i];
  img[i] += 0.25f * lambda * d;
}
