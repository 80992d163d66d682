//! The synthetic frame generator (document 004 section 10.3): from a title's [`Profile`](crate::title::Profile) it emits,
//! per frame, a shadow-map pass (depth only), the main pass, render-to-texture blits and
//! post-processing passes that sample the blitted texture. The scene (draw sizes, textures,
//! vertex buffers) is fixed per title; each frame jitters positions and sizes by a few percent, so
//! consecutive frames are similar but not identical. The resolution is divided by `res_div` per
//! axis (a frame is 1/`res_div²` of the real one) and the texture footprint by `mem_div` (the
//! memory hierarchy's divisor).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::pipeline::FrameSource;
use crate::scene::{Blit, Command, Draw, Frame, Layout, QUAD_PX};
use crate::title::Title;

/// Texture id of the shadow map sampled as a texture.
const SHADOW_TEX: u16 = 100;
/// Texture id written by the blitter.
const BLIT_TEX: u16 = 200;

/// Generates the frames of one title.
pub struct Generator {
    title: Title,
    qw: u16,
    qh: u16,
    res_div: u32,
    mem_div: u32,
    seed: u64,
    /// Relative per-frame jitter of draw sizes and positions.
    pub jitter: f64,
}

impl Generator {
    /// A generator for `title` at 1/`res_div` of its resolution per axis, its textures
    /// 1/`mem_div` of their size.
    pub fn new(title: Title, res_div: u32, mem_div: u32, seed: u64) -> Self {
        let (w, h) = Self::size(&title, res_div);
        Self {
            title,
            qw: w.div_ceil(QUAD_PX) as u16,
            qh: h.div_ceil(QUAD_PX) as u16,
            res_div,
            mem_div,
            seed,
            jitter: 0.05,
        }
    }

    /// The scaled render-target size in pixels.
    pub fn size(title: &Title, res_div: u32) -> (usize, usize) {
        let d = res_div.max(1);
        (
            (title.width / d).max(32) as usize,
            (title.height / d).max(32) as usize,
        )
    }

    /// The work scale: real frame work over simulated frame work.
    pub fn work_scale(&self) -> f64 {
        let (w, h) = Self::size(&self.title, self.res_div);
        (self.title.width as f64 * self.title.height as f64) / (w as f64 * h as f64)
    }

    fn rect(
        &self,
        rng: &mut ChaCha8Rng,
        frame_rng: &mut ChaCha8Rng,
        cover: f64,
    ) -> (u16, u16, u16, u16) {
        let area = (cover.clamp(0.0, 1.0) * self.qw as f64 * self.qh as f64).max(1.0);
        let aspect: f64 = rng.gen_range(0.5..2.0);
        let j = 1.0 + self.jitter * frame_rng.gen_range(-1.0..1.0);
        let w = ((area * aspect).sqrt() * j).clamp(1.0, self.qw as f64) as u16;
        let h = ((area / w as f64) * j).clamp(1.0, self.qh as f64) as u16;
        let x = rng.gen_range(0..=(self.qw - w));
        let y = rng.gen_range(0..=(self.qh - h));
        let jx = (frame_rng.gen_range(-1.0..1.0) * self.jitter * w as f64) as i32;
        let jy = (frame_rng.gen_range(-1.0..1.0) * self.jitter * h as f64) as i32;
        let x = (x as i32 + jx).clamp(0, (self.qw - w) as i32) as u16;
        let y = (y as i32 + jy).clamp(0, (self.qh - h) as i32) as u16;
        (x, y, w, h)
    }

    fn tex_side(&self, mb: f64, textures: u32) -> u32 {
        let blocks = mb * (1u64 << 20) as f64 / 64.0 / self.mem_div.max(1) as f64 / textures as f64;
        (blocks.sqrt() as u32).max(4)
    }
}

impl FrameSource for Generator {
    fn frame(&mut self, i: u64) -> Frame {
        let p = self.title.profile;
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        let mut fr =
            ChaCha8Rng::seed_from_u64(self.seed ^ (i + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let mut f = Frame::default();
        let screen_blocks = Layout {
            qw: self.qw as usize,
            qh: self.qh as usize,
            rops: 16,
            rt_scale: crate::scene::rt_scale(self.res_div, self.mem_div),
        }
        .surface_blocks();
        let textures = 8u32;
        let side = self.tex_side(p.tex_mb, textures);
        let base = Draw {
            rect: (0, 0, 1, 1),
            early_z: true,
            depth_test: true,
            z_reject: p.z_reject,
            z_write: true,
            depth: 0,
            shader_cycles: p.shader_cycles,
            tex_fetches: p.tex_fetches,
            texture: 0,
            tex_side: side,
            tex_step: p.tex_step,
            tex_origin: (0, 0),
            colour_write: true,
            blend: false,
            target: 0,
            vbuf: (0, 0),
            program: 0,
            after_blit: false,
        };
        let mut vbuf = 0u16;
        let push = |f: &mut Frame, d: Draw| {
            f.commands.push(Command::Draw(f.draws.len() as u32));
            f.draws.push(d);
        };
        // Shadow-map pass: depth only, cheap shader, vertex heavy.
        let shadow_draws = if p.shadow > 0.0 { 8 } else { 0 };
        for _ in 0..shadow_draws {
            let rect = self.rect(&mut rng, &mut fr, p.shadow / shadow_draws as f64);
            let quads = rect.2 as f64 * rect.3 as f64;
            vbuf += 1;
            push(
                &mut f,
                Draw {
                    rect,
                    z_reject: p.z_reject * 0.5,
                    depth: 1,
                    shader_cycles: 4,
                    tex_fetches: 0,
                    colour_write: false,
                    vbuf: (vbuf, (quads * p.vertex * 2.0 / 100.0).ceil() as u32),
                    program: 1,
                    ..base.clone()
                },
            );
        }
        // Main pass.
        for k in 0..p.draws {
            let rect = self.rect(&mut rng, &mut fr, p.layers / p.draws as f64);
            let quads = rect.2 as f64 * rect.3 as f64;
            vbuf += 1;
            let late = rng.gen_bool(p.late_z);
            let blend = rng.gen_bool(p.blend);
            let shadowed = shadow_draws > 0 && k % 4 == 0;
            push(
                &mut f,
                Draw {
                    rect,
                    early_z: !late,
                    z_reject: if blend { p.z_reject * 0.5 } else { p.z_reject },
                    z_write: !blend,
                    texture: if shadowed {
                        SHADOW_TEX
                    } else {
                        rng.gen_range(0..textures) as u16
                    },
                    tex_origin: (rng.gen_range(0..side), rng.gen_range(0..side)),
                    blend,
                    vbuf: (vbuf, (quads * p.vertex / 100.0).ceil() as u32),
                    program: 2 + (k % 16) as u16,
                    ..base.clone()
                },
            );
        }
        // Render to texture and post-processing.
        if p.blit > 0.0 {
            let blocks = (screen_blocks as f64 * p.blit).ceil() as u32;
            f.commands.push(Command::Blit(f.blits.len() as u32));
            f.blits.push(Blit {
                src: 0,
                dst: BLIT_TEX,
                blocks,
            });
            let bside = (blocks as f64).sqrt().ceil() as u32;
            for k in 0..p.post {
                push(
                    &mut f,
                    Draw {
                        rect: (0, 0, self.qw, self.qh),
                        depth_test: false,
                        z_write: false,
                        shader_cycles: p.shader_cycles / 2,
                        tex_fetches: 2,
                        texture: BLIT_TEX,
                        tex_side: bside.max(4),
                        tex_step: 0.5,
                        vbuf: (0, 0),
                        program: 20 + k as u16,
                        after_blit: true,
                        ..base.clone()
                    },
                );
            }
        }
        f
    }
}
