// Unstructured-grid finite-volume Euler solver (Rodinia 3.0 "cfd" euler3d algorithm, written for
// warpforge). Five conserved variables per cell (density, momentum x/y/z, energy density), stored
// as structures of arrays: variable v of cell i is at [i + v * nelr]. Each cell has 4 faces; its
// neighbour across face j is nbr[i + j * nelr] (>= 0 a cell, -1 a wall face, -2 a far-field face)
// and the face normal (area-weighted) is normals[i + (j + k * 4) * nelr], k = x/y/z.
// One time step of the Runge-Kutta scheme: cfd_step_factor (local time step per cell),
// then cfd_flux and cfd_time_step once per stage. cfd_flux gathers the four neighbours' variables
// through the index array: irregular, partly uncoalesced loads of data other threads also load.
#include "wf.cuh"

#define CFD_NNB 4
#define CFD_NVAR 5
#define CFD_GAMMA 1.4f

struct cfd_vec {
  float x, y, z;
};

WF_DEVICE float cfd_pressure(float density, float density_energy, float speed_sqd) {
  return (CFD_GAMMA - 1.0f) * (density_energy - 0.5f * density * speed_sqd);
}
WF_DEVICE float cfd_sound(float density, float pressure) {
  return sqrtf(CFD_GAMMA * pressure / density);
}

/// The per-cell flux contributions of the Euler equations (momentum rows and energy).
WF_DEVICE void cfd_contrib(float density_energy, cfd_vec m, cfd_vec v, float p, cfd_vec &fx,
                           cfd_vec &fy, cfd_vec &fz, cfd_vec &fe) {
  fx.x = v.x * m.x + p;
  fx.y = v.x * m.y;
  fx.z = v.x * m.z;
  fy.x = fx.y;
  fy.y = v.y * m.y + p;
  fy.z = v.y * m.z;
  fz.x = fx.z;
  fz.y = fy.z;
  fz.z = v.z * m.z + p;
  float dep = density_energy + p;
  fe.x = v.x * dep;
  fe.y = v.y * dep;
  fe.z = v.z * dep;
}

WF_GLOBAL void cfd_step_factor(const float *vars, const float *areas, float *step_factors,
                               int nelr) {
  int i = gtid_x();
  if (i >= nelr) return;
  float d = vars[i];
  cfd_vec m = {vars[i + nelr], vars[i + 2 * nelr], vars[i + 3 * nelr]};
  float de = vars[i + 4 * nelr];
  cfd_vec v = {m.x / d, m.y / d, m.z / d};
  float s2 = v.x * v.x + v.y * v.y + v.z * v.z;
  float c = cfd_sound(d, cfd_pressure(d, de, s2));
  step_factors[i] = 0.5f / (sqrtf(areas[i]) * (sqrtf(s2) + c));
}

/// ff: the far-field state (density, momentum x/y/z, energy) followed by its flux contributions
/// (fx, fy, fz, fe as 12 floats), computed on the host.
WF_GLOBAL void cfd_flux(const int *nbr, const float *normals, const float *vars, const float *ff,
                        float *fluxes, float smoothing, int nelr) {
  int i = gtid_x();
  if (i >= nelr) return;
  float d_i = vars[i];
  cfd_vec m_i = {vars[i + nelr], vars[i + 2 * nelr], vars[i + 3 * nelr]};
  float de_i = vars[i + 4 * nelr];
  cfd_vec v_i = {m_i.x / d_i, m_i.y / d_i, m_i.z / d_i};
  float s2_i = v_i.x * v_i.x + v_i.y * v_i.y + v_i.z * v_i.z;
  float p_i = cfd_pressure(d_i, de_i, s2_i);
  float c_i = cfd_sound(d_i, p_i);
  float sp_i = sqrtf(s2_i);
  cfd_vec fx_i, fy_i, fz_i, fe_i;
  cfd_contrib(de_i, m_i, v_i, p_i, fx_i, fy_i, fz_i, fe_i);
  float f_d = 0.0f, f_e = 0.0f;
  cfd_vec f_m = {0.0f, 0.0f, 0.0f};
  for (int j = 0; j < CFD_NNB; ++j) {
    int nb = nbr[i + j * nelr];
    cfd_vec n = {normals[i + (j + 0 * CFD_NNB) * nelr], normals[i + (j + 1 * CFD_NNB) * nelr],
                 normals[i + (j + 2 * CFD_NNB) * nelr]};
    float nlen = sqrtf(n.x * n.x + n.y * n.y + n.z * n.z);
    if (nb >= 0) {
      float d_n = vars[nb];
      cfd_vec m_n = {vars[nb + nelr], vars[nb + 2 * nelr], vars[nb + 3 * nelr]};
      float de_n = vars[nb + 4 * nelr];
      cfd_vec v_n = {m_n.x / d_n, m_n.y / d_n, m_n.z / d_n};
      float s2_n = v_n.x * v_n.x + v_n.y * v_n.y + v_n.z * v_n.z;
      float p_n = cfd_pressure(d_n, de_n, s2_n);
      float c_n = cfd_sound(d_n, p_n);
      cfd_vec fx_n, fy_n, fz_n, fe_n;
      cfd_contrib(de_n, m_n, v_n, p_n, fx_n, fy_n, fz_n, fe_n);
      // artificial viscosity
      float k = -nlen * smoothing * 0.5f * (sp_i + sqrtf(s2_n) + c_i + c_n);
      f_d += k * (d_i - d_n);
      f_e += k * (de_i - de_n);
      f_m.x += k * (m_i.x - m_n.x);
      f_m.y += k * (m_i.y - m_n.y);
      f_m.z += k * (m_i.z - m_n.z);
      // central fluxes, one face-normal component at a time
      k = 0.5f * n.x;
      f_d += k * (m_n.x + m_i.x);
      f_e += k * (fe_n.x + fe_i.x);
      f_m.x += k * (fx_n.x + fx_i.x);
      f_m.y += k * (fy_n.x + fy_i.x);
      f_m.z += k * (fz_n.x + fz_i.x);
      k = 0.5f * n.y;
      f_d += k * (m_n.y + m_i.y);
      f_e += k * (fe_n.y + fe_i.y);
      f_m.x += k * (fx_n.y + fx_i.y);
      f_m.y += k * (fy_n.y + fy_i.y);
      f_m.z += k * (fz_n.y + fz_i.y);
      k = 0.5f * n.z;
      f_d += k * (m_n.z + m_i.z);
      f_e += k * (fe_n.z + fe_i.z);
      f_m.x += k * (fx_n.z + fx_i.z);
      f_m.y += k * (fy_n.z + fy_i.z);
      f_m.z += k * (fz_n.z + fz_i.z);
    } else if (nb == -1) {
      // wall: only the pressure acts on the face
      f_m.x += n.x * p_i;
      f_m.y += n.y * p_i;
      f_m.z += n.z * p_i;
    } else if (nb == -2) {
      // far field
      float k = 0.5f * n.x;
      f_d += k * (ff[1] + m_i.x);
      f_e += k * (ff[14] + fe_i.x);
      f_m.x += k * (ff[5] + fx_i.x);
      f_m.y += k * (ff[8] + fy_i.x);
      f_m.z += k * (ff[11] + fz_i.x);
      k = 0.5f * n.y;
      f_d += k * (ff[2] + m_i.y);
      f_e += k * (ff[15] + fe_i.y);
      f_m.x += k * (ff[6] + fx_i.y);
      f_m.y += k * (ff[9] + fy_i.y);
      f_m.z += k * (ff[12] + fz_i.y);
      k = 0.5f * n.z;
      f_d += k * (ff[3] + m_i.z);
      f_e += k * (ff[16] + fe_i.z);
      f_m.x += k * (ff[7] + fx_i.z);
      f_m.y += k * (ff[10] + fy_i.z);
      f_m.z += k * (ff[13] + fz_i.z);
    }
  }
  fluxes[i] = f_d;
  fluxes[i + nelr] = f_m.x;
  fluxes[i + 2 * nelr] = f_m.y;
  fluxes[i + 3 * nelr] = f_m.z;
  fluxes[i + 4 * nelr] = f_e;
}

/// Runge-Kutta stage `stage` of RK stages: vars = old + step_factor / (RK + 1 - stage) * flux.
WF_GLOBAL void cfd_time_step(int stage, int rk, const float *old_vars, float *vars,
                             const float *step_factors, const float *fluxes, int nelr) {
  int i = gtid_x();
  if (i >= nelr) return;
  float factor = step_factors[i] / (float)(rk + 1 - stage);
#pragma unroll
  for (int v = 0; v < CFD_NVAR; ++v) vars[i + v * nelr] = old_vars[i + v * nelr] + factor * fluxes[i + v * nelr];
}
