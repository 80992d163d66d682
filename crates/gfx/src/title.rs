//! Per-title frame profiles standing in for the 14 Attila/3DMark06 traces of document 004 Table 2
//! (section 10.3 substitutes: the traces are not available). Each profile sets the parameters the
//! frame generator draws from: passes, depth complexity, early-Z rejection, shader cost, texture
//! fetches and footprint, blending, vertex density, shadow maps and render-to-texture blits. The
//! flavour of each profile follows what the document says of the title (e.g. COD2: more Z than C
//! accesses but colour-critical; L4D: texture volume but colour-critical, blitter in use; NFS:
//! texture-critical with as many Z as T accesses). They are substitutes, not measurements.
//!
//! Calibration (claim 19; docs/EXPERIMENTS.md, "Calibration of the title profiles"): only the
//! main pass's depth complexity `layers` is fitted, per title, so that the FR-FCFS baseline with
//! the title's HL CPU mix at `--size tiny` (`mix::baseline`, exactly the run `experiment frame`
//! makes) gives Table 2's FPS within a few percent (`examples/calibrate.rs`); every other field
//! keeps the title's flavour. Recalibrated after the GPU's DRAM bus share was scaled with the
//! frame (`mix::gpu_bus_div`): the below-40 titles are back at 23-275 layers (from 7.5-28 when
//! the scaled frame was bus-bound; GT1, GT2, HDR1 and Crysis, the slowest, fitted in session 12,
//! GT1 stopped at +8.5%, one step short of the 8% tolerance); DOOM3 and Quake4 stay low, their fixed costs (shadow pass,
//! vertices) being a large part of a frame. The policies, the memory side and the criticality
//! machinery are not calibrated.

use serde::Serialize;

/// Graphics API of the original trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Api {
    /// DirectX 9.
    Dx,
    /// OpenGL.
    Ogl,
}

/// Synthetic frame parameters of one title (full-resolution quantities).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Profile {
    /// Draw calls of the main pass.
    pub draws: u32,
    /// Depth complexity of the main pass: screen coverages summed over its draws.
    pub layers: f64,
    /// Fraction of depth-tested quads rejected.
    pub z_reject: f64,
    /// Fraction of main-pass draws with late-Z (shader-modified depth or discard).
    pub late_z: f64,
    /// Shader cycles per quad on one SIMD unit.
    pub shader_cycles: u16,
    /// Texture blocks fetched per quad.
    pub tex_fetches: u8,
    /// Texture blocks advanced per quad step (texel density).
    pub tex_step: f64,
    /// Texture footprint of the frame, MB.
    pub tex_mb: f64,
    /// Fraction of main-pass draws that blend.
    pub blend: f64,
    /// Vertex blocks per 100 quads.
    pub vertex: f64,
    /// Depth-only shadow-map coverage (0: no shadow pass).
    pub shadow: f64,
    /// Fraction of the render target copied by the blitter for render-to-texture (0: none).
    pub blit: f64,
    /// Full-screen post-processing passes sampling the blitted texture.
    pub post: u32,
}

/// One title of Table 2.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Title {
    /// Short name.
    pub name: &'static str,
    /// API.
    pub api: Api,
    /// Resolution, pixels.
    pub width: u32,
    /// Resolution, pixels.
    pub height: u32,
    /// Baseline FPS of Table 2 (co-run with the 4-way CPU mixes).
    pub doc_fps: f64,
    /// Frame profile.
    pub profile: Profile,
}

/// The FPS target of the evaluation (section 4).
pub const TARGET_FPS: f64 = 40.0;

/// Relative half-width of a title's FPS band around Table 2's value (claim 19).
pub const BAND: f64 = 0.25;

impl Title {
    /// Below the 40-FPS target in the document (the eight titles of Figures 11-14).
    pub fn below_target(&self) -> bool {
        self.doc_fps < TARGET_FPS
    }

    /// The band the calibrated baseline FPS must fall in (claim 19): Table 2's FPS ±[`BAND`],
    /// on the same side of the 40-FPS target as the document's value.
    pub fn fps_band(&self) -> (f64, f64) {
        let (lo, hi) = (self.doc_fps * (1.0 - BAND), self.doc_fps * (1.0 + BAND));
        if self.below_target() {
            (lo, hi.min(TARGET_FPS))
        } else {
            (lo.max(TARGET_FPS), hi)
        }
    }
}

/// Table-row constructor of a [`Profile`] (positional, to keep [`TITLES`] one row per title).
#[allow(clippy::too_many_arguments)]
const fn p(
    draws: u32,
    layers: f64,
    z_reject: f64,
    late_z: f64,
    shader_cycles: u16,
    tex_fetches: u8,
    tex_step: f64,
    tex_mb: f64,
    blend: f64,
    vertex: f64,
    shadow: f64,
    blit: f64,
    post: u32,
) -> Profile {
    Profile {
        draws,
        layers,
        z_reject,
        late_z,
        shader_cycles,
        tex_fetches,
        tex_step,
        tex_mb,
        blend,
        vertex,
        shadow,
        blit,
        post,
    }
}

const fn t(
    name: &'static str,
    api: Api,
    width: u32,
    height: u32,
    doc_fps: f64,
    profile: Profile,
) -> Title {
    Title {
        name,
        api,
        width,
        height,
        doc_fps,
        profile,
    }
}

/// The 14 titles of Table 2, in the table's order.
pub const TITLES: [Title; 14] = [
    //                                   draws layers zrej  lateZ sc  tex step  texMB blend vert shadow blit post
    t(
        "GT1",
        Api::Dx,
        1280,
        1024,
        5.9,
        p(
            300, 275.2, 0.45, 0.10, 48, 6, 0.9, 96.0, 0.15, 8.0, 25.7, 0.5, 2,
        ),
    ),
    t(
        "GT2",
        Api::Dx,
        1280,
        1024,
        14.0,
        p(
            250, 112.2, 0.40, 0.10, 40, 5, 0.8, 64.0, 0.20, 5.0, 13.5, 0.5, 2,
        ),
    ),
    t(
        "HDR1",
        Api::Dx,
        1280,
        1024,
        16.7,
        p(
            200, 115.11, 0.35, 0.05, 32, 4, 0.7, 48.0, 0.60, 3.0, 6.5, 1.0, 3,
        ),
    ),
    t(
        "HDR2",
        Api::Dx,
        1280,
        1024,
        21.8,
        p(
            200, 76.35, 0.35, 0.05, 32, 4, 0.7, 48.0, 0.55, 3.0, 5.7, 1.0, 3,
        ),
    ),
    t(
        "COD2",
        Api::Dx,
        1920,
        1200,
        19.5,
        p(
            225, 71.99, 0.60, 0.05, 24, 2, 0.5, 32.0, 0.70, 2.0, 14.2, 0.0, 0,
        ),
    ),
    t(
        "Crysis",
        Api::Dx,
        1920,
        1200,
        6.7,
        p(
            371, 76.3, 0.40, 0.20, 64, 6, 0.9, 128.0, 0.25, 10.0, 9.9, 0.5, 2,
        ),
    ),
    t(
        "DOOM3",
        Api::Ogl,
        1600,
        1200,
        80.7,
        p(
            145, 2.19, 0.50, 0.00, 16, 2, 0.5, 24.0, 0.30, 2.0, 4.8, 0.0, 0,
        ),
    ),
    t(
        "HL2",
        Api::Dx,
        1600,
        1200,
        77.4,
        p(
            150, 16.78, 0.40, 0.05, 16, 2, 0.6, 24.0, 0.15, 2.0, 0.0, 0.0, 0,
        ),
    ),
    t(
        "L4D",
        Api::Dx,
        1280,
        1024,
        33.6,
        p(
            200, 22.94, 0.40, 0.05, 20, 4, 0.6, 32.0, 0.65, 2.0, 2.6, 1.0, 1,
        ),
    ),
    t(
        "NFS",
        Api::Dx,
        1280,
        1024,
        66.6,
        p(
            125, 8.68, 0.45, 0.00, 16, 4, 0.9, 32.0, 0.10, 2.0, 4.7, 0.0, 0,
        ),
    ),
    t(
        "Quake4",
        Api::Ogl,
        1600,
        1200,
        80.5,
        p(
            140, 2.01, 0.55, 0.05, 18, 2, 0.6, 24.0, 0.25, 2.5, 4.4, 0.0, 0,
        ),
    ),
    t(
        "COR",
        Api::Ogl,
        1280,
        1024,
        103.9,
        p(
            125, 6.61, 0.45, 0.00, 12, 2, 0.5, 16.0, 0.20, 2.0, 3.5, 0.0, 0,
        ),
    ),
    t(
        "UT2004",
        Api::Ogl,
        1600,
        1200,
        132.5,
        p(
            100, 10.18, 0.35, 0.00, 8, 2, 0.5, 16.0, 0.10, 3.0, 0.0, 0.0, 0,
        ),
    ),
    t(
        "UT3",
        Api::Dx,
        1280,
        1024,
        26.6,
        p(
            225, 49.95, 0.40, 0.10, 32, 4, 0.7, 48.0, 0.30, 4.0, 9.0, 0.5, 2,
        ),
    ),
];

/// The title called `name` (case-insensitive).
pub fn by_name(name: &str) -> Option<&'static Title> {
    TITLES.iter().find(|t| t.name.eq_ignore_ascii_case(name))
}
