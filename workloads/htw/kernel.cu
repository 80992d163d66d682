// Heartwall-like template tracking (modelled on Rodinia heartwall): one CTA per tracked sample
// point. The CTA stages the point's template (from the first frame) and the search window of the
// current frame in shared memory, every thread scores a set of candidate displacements by the
// sum of squared differences over the whole template (a long compute loop on shared memory), and
// a shared-memory argmin reduction (8 barrier steps) picks the displacement with the lowest
// score (ties: the lowest candidate index).
#include "wf.cuh"

#define THREADS 256
#define MAX_TS 32
#define MAX_WS 64

WF_GLOBAL void htw_track(const int *frame0, const int *frame, int w, int h, const int *px,
                         const int *py, const int *cx, const int *cy, int ts, int radius,
                         int *out_x, int *out_y) {
  WF_SHARED static int tmpl[MAX_TS * MAX_TS];
  WF_SHARED static int win[MAX_WS * MAX_WS];
  WF_SHARED static int best_s[THREADS];
  WF_SHARED static int best_i[THREADS];
  int t = tid_x();
  int p = ctaid_x();
  int half = ts / 2;
  int ws = 2 * radius + ts;
  int x0 = px[p] - half, y0 = py[p] - half;
  for (int k = t; k < ts * ts; k += THREADS) {
    int yy = min(max(y0 + k / ts, 0), h - 1), xx = min(max(x0 + k % ts, 0), w - 1);
    tmpl[k] = frame0[yy * w + xx];
  }
  int wx0 = cx[p] - radius - half, wy0 = cy[p] - radius - half;
  for (int k = t; k < ws * ws; k += THREADS) {
    int yy = min(max(wy0 + k / ws, 0), h - 1), xx = min(max(wx0 + k % ws, 0), w - 1);
    win[k] = frame[yy * w + xx];
  }
  __syncthreads();
  int side = 2 * radius + 1;
  int best = 0x7fffffff, bi = 0x7fffffff;
  for (int o = t; o < side * side; o += THREADS) {
    int oy = o / side, ox = o % side;
    int s = 0;
    for (int ty = 0; ty < ts; ty++) {
      const int *wrow = win + (oy + ty) * ws + ox;
      const int *trow = tmpl + ty * ts;
      for (int tx = 0; tx < ts; tx++) {
        int d = wrow[tx] - trow[tx];
        s += d * d;
      }
    }
    if (s < best) {
      best = s;
      bi = o;
    }
  }
  best_s[t] = best;
  best_i[t] = bi;
  __syncthreads();
  for (int stride = THREADS / 2; stride > 0; stride /= 2) {
    if (t < stride) {
      int s2 = best_s[t + stride], i2 = best_i[t + stride];
      if (s2 < best_s[t] || (s2 == best_s[t] && i2 < best_i[t])) {
        best_s[t] = s2;
        best_i[t] = i2;
      }
    }
    __syncthreads();
  }
  if (t == 0) {
    out_x[p] = cx[p] + best_i[0] % side - radius;
    out_y[p] = cy[p] + best_i[0] / side - radius;
  }
}
