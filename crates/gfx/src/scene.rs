//! Frames as the pipeline sees them: draw calls and blits, and the memory layout of the surfaces
//! they touch (document 004 section 10.3: tiled 8×8-pixel depth and colour tiles of 256 B, HiZ at
//! one 4-B entry per tile, screen-space interleaving of tiles over the ROPs, sequential vertex and
//! index buffers, textures in 4×4-texel 64-B blocks).

/// Pixels per quad side (a quad is 2×2 fragments).
pub const QUAD_PX: usize = 2;
/// Quads per tile side (8×8-pixel tiles).
pub const TILE_QUADS: usize = 4;

/// Address regions (block numbers = byte address / 64), one per surface kind and id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    /// Colour render target `id` (0 = back buffer).
    Colour(u16),
    /// Depth buffer `id` (0 = main depth; 1 = shadow map).
    Depth(u16),
    /// HiZ of depth buffer `id`.
    HiZ(u16),
    /// Texture `id`.
    Texture(u16),
    /// Vertex buffer `id`.
    Vertex(u16),
    /// Index buffer `id`.
    Index(u16),
    /// Shader program `id`.
    Program(u16),
}

impl Region {
    /// First block number of the region (each kind and id has 64 MB of address space).
    pub fn base(self) -> u64 {
        let (kind, id) = match self {
            Region::Colour(i) => (1u64, i),
            Region::Depth(i) => (2, i),
            Region::HiZ(i) => (3, i),
            Region::Texture(i) => (4, i),
            Region::Vertex(i) => (5, i),
            Region::Index(i) => (6, i),
            Region::Program(i) => (7, i),
        };
        ((kind << 32) | ((id as u64) << 26)) / 64
    }
}

/// A quad of fragments in flight: its position (in quads) and its draw call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quad {
    /// Column, in quads.
    pub qx: u16,
    /// Row, in quads.
    pub qy: u16,
    /// Index of the draw call in the frame.
    pub draw: u32,
}

/// One draw call (section 10.3 parameters).
#[derive(Clone, Debug, PartialEq)]
pub struct Draw {
    /// Covered rectangle, in quads: left, top, width, height.
    pub rect: (u16, u16, u16, u16),
    /// Depth test before shading (early-Z) or after (late-Z).
    pub early_z: bool,
    /// Depth test enabled at all.
    pub depth_test: bool,
    /// Fraction of tested quads rejected (hidden) by the depth test.
    pub z_reject: f64,
    /// Depth written by passing quads.
    pub z_write: bool,
    /// Depth buffer id.
    pub depth: u16,
    /// Shader cycles per quad on one SIMD unit.
    pub shader_cycles: u16,
    /// Texture blocks fetched per quad.
    pub tex_fetches: u8,
    /// Texture id sampled.
    pub texture: u16,
    /// Side of the (square) texture, in 64-B blocks.
    pub tex_side: u32,
    /// Texture blocks advanced per quad step (texel density; 0.5 = one block per 2×2 quads).
    pub tex_step: f64,
    /// Texture offset of the draw, in blocks.
    pub tex_origin: (u32, u32),
    /// Colour written.
    pub colour_write: bool,
    /// Blending (colour read-modify-write).
    pub blend: bool,
    /// Colour render target id (0 = back buffer, tracked by the frame-rate estimator).
    pub target: u16,
    /// Vertex buffer id and its size in blocks.
    pub vbuf: (u16, u32),
    /// Shader program id.
    pub program: u16,
    /// Waits for the blitter to be idle (it samples a blit's destination).
    pub after_blit: bool,
}

impl Draw {
    /// Quads covered.
    pub fn quads(&self) -> u32 {
        self.rect.2 as u32 * self.rect.3 as u32
    }

    /// The quads in rasterisation order: tile by tile (8×8-pixel tiles, row-major over the
    /// tiles the rectangle touches), the covered quads of a tile row-major within it.
    pub fn raster_order(&self, draw: u32) -> Vec<Quad> {
        let (x0, y0, w, h) = (
            self.rect.0 as usize,
            self.rect.1 as usize,
            self.rect.2 as usize,
            self.rect.3 as usize,
        );
        let mut out = Vec::with_capacity(w * h);
        let t = TILE_QUADS;
        for ty in y0 / t..(y0 + h).div_ceil(t) {
            for tx in x0 / t..(x0 + w).div_ceil(t) {
                for qy in (ty * t).max(y0)..((ty + 1) * t).min(y0 + h) {
                    for qx in (tx * t).max(x0)..((tx + 1) * t).min(x0 + w) {
                        out.push(Quad {
                            qx: qx as u16,
                            qy: qy as u16,
                            draw,
                        });
                    }
                }
            }
        }
        out
    }

    /// The vertex block needed before quad `i` is emitted.
    pub fn vblock_of(&self, i: u32) -> u32 {
        ((i as u64 * self.vbuf.1 as u64) / self.quads().max(1) as u64) as u32
    }

    /// Block number of texture fetch `j` of quad `q`.
    pub fn tex_block(&self, q: Quad, j: u8) -> u64 {
        let side = self.tex_side.max(1) as u64;
        let u = (q.qx as f64 * self.tex_step) as u64 + self.tex_origin.0 as u64 + 5 * j as u64;
        let v = (q.qy as f64 * self.tex_step) as u64 + self.tex_origin.1 as u64 + 3 * j as u64;
        Region::Texture(self.texture).base() + (v % side) * side + (u % side)
    }
}

/// A blit: copies `blocks` blocks of colour target `src` into texture `dst`.
#[derive(Clone, Debug, PartialEq)]
pub struct Blit {
    /// Source colour target.
    pub src: u16,
    /// Destination texture.
    pub dst: u16,
    /// Blocks copied.
    pub blocks: u32,
}

/// A command of the frame, in submission order.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Draw call (index into [`Frame::draws`]).
    Draw(u32),
    /// Blit (index into [`Frame::blits`]).
    Blit(u32),
}

/// One frame: its draw calls and blits, and the commands that submit them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Frame {
    /// Draw calls.
    pub draws: Vec<Draw>,
    /// Blits.
    pub blits: Vec<Blit>,
    /// Submission order.
    pub commands: Vec<Command>,
}

/// Bytes of a render-target pixel (colour and depth) at full scale.
pub const PIXEL_BYTES: u64 = 4;

/// The render-target scale of a reduced run: how many real pixels' bytes one simulated pixel of a
/// render target (colour, depth, HiZ, shadow map, blit source) stores, `res_div² / mem_div`
/// (at least 1).
///
/// Consistent scaling \[INTERP\] (docs/history/EXPERIMENTS-004.md, 3D, "Scaling"): a reduced frame has
/// 1/`res_div²` of the pixels while the LLC, the texture footprint and the capacity-bound caches
/// are divided by `mem_div`. Stored at 4 B per simulated pixel, the render targets would shrink
/// by `res_div²` against an LLC shrunk by `mem_div` only (at `tiny`, 16 x 16 against 16: a
/// 20 KB colour buffer in a 1 MB LLC, which never leaves it). Storing `res_div² / mem_div`
/// real pixels' bytes per simulated pixel makes every surface's footprint-to-LLC ratio the
/// full-size frame's, like the textures' (whose footprint is divided by `mem_div` too).
pub fn rt_scale(res_div: u32, mem_div: u32) -> usize {
    let r = res_div.max(1) as f64;
    ((r * r / mem_div.max(1) as f64).round() as usize).max(1)
}

/// The tiled surface layout of a `width`×`height`-pixel render target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Width in quads.
    pub qw: usize,
    /// Height in quads.
    pub qh: usize,
    /// ROPs the tiles are interleaved over.
    pub rops: usize,
    /// Real pixels stored per simulated pixel ([`rt_scale`]; 1 at full scale).
    pub rt_scale: usize,
}

impl Layout {
    /// Tiles per row.
    pub fn tiles_x(&self) -> usize {
        self.qw.div_ceil(TILE_QUADS)
    }

    /// The ROP owning quad `q`: tiles interleaved diagonally, `(tx + 4·ty) mod rops`, so that
    /// consecutive tiles of a row, and 4×4 blocks of tiles, go to different ROPs.
    pub fn rop(&self, q: Quad) -> usize {
        let (tx, ty) = (q.qx as usize / TILE_QUADS, q.qy as usize / TILE_QUADS);
        (tx + 4 * ty) % self.rops
    }

    fn tile(&self, q: Quad) -> u64 {
        ((q.qy as usize / TILE_QUADS) * self.tiles_x() + q.qx as usize / TILE_QUADS) as u64
    }

    /// Bytes of one quad of a surface: 4 pixels of [`PIXEL_BYTES`] x [`Layout::rt_scale`].
    fn quad_bytes(&self) -> u64 {
        4 * PIXEL_BYTES * self.rt_scale.max(1) as u64
    }

    /// The 64-B blocks of a tiled surface holding quad `q`. Quads are stored tile by tile, row-major
    /// within the tile: at full scale (16 B a quad) a tile is 4 blocks, one per row of quads; with
    /// [`Layout::rt_scale`] 4 a quad fills one block, with 16 four.
    pub fn pixel_blocks(&self, region: Region, q: Quad) -> std::ops::Range<u64> {
        let t = TILE_QUADS as u64;
        let index = self.tile(q) * t * t + (q.qy as u64 % t) * t + q.qx as u64 % t;
        let first = region.base() + index * self.quad_bytes() / 64;
        first..first + (self.quad_bytes() / 64).max(1)
    }

    /// The first block of [`Layout::pixel_blocks`].
    pub fn pixel_block(&self, region: Region, q: Quad) -> u64 {
        self.pixel_blocks(region, q).start
    }

    /// The HiZ block of quad `q` (one 4-B entry per tile, x [`Layout::rt_scale`]).
    pub fn hiz_block(&self, depth: u16, q: Quad) -> u64 {
        Region::HiZ(depth).base() + self.tile(q) * PIXEL_BYTES * self.rt_scale.max(1) as u64 / 64
    }

    /// Blocks of one full-screen colour surface.
    pub fn surface_blocks(&self) -> u32 {
        let tiles = (self.tiles_x() * self.qh.div_ceil(TILE_QUADS)) as u64;
        (tiles * (TILE_QUADS * TILE_QUADS) as u64 * self.quad_bytes()).div_ceil(64) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raster_order_covers_the_rectangle_once_tile_by_tile() {
        let d = Draw {
            rect: (2, 3, 7, 5),
            early_z: true,
            depth_test: true,
            z_reject: 0.0,
            z_write: true,
            depth: 0,
            shader_cycles: 1,
            tex_fetches: 0,
            texture: 0,
            tex_side: 4,
            tex_step: 0.5,
            tex_origin: (0, 0),
            colour_write: true,
            blend: false,
            target: 0,
            vbuf: (0, 0),
            program: 0,
            after_blit: false,
        };
        let q = d.raster_order(0);
        assert_eq!(q.len(), 35);
        let mut seen = std::collections::HashSet::new();
        for p in &q {
            assert!((2..9).contains(&p.qx) && (3..8).contains(&p.qy));
            assert!(seen.insert((p.qx, p.qy)));
        }
        // Tile by tile: the first tile (0,0) holds the quads x 2..4, y 3..4.
        assert_eq!((q[0].qx, q[0].qy), (2, 3));
        assert_eq!((q[1].qx, q[1].qy), (3, 3));
        assert_eq!((q[2].qx, q[2].qy), (4, 3), "next tile");
    }

    #[test]
    fn tiles_interleave_over_all_rops_and_blocks_hold_four_quads() {
        let l = Layout {
            qw: 64,
            qh: 64,
            rops: 16,
            rt_scale: 1,
        };
        let mut seen = [0; 16];
        for ty in 0..4u16 {
            for tx in 0..4u16 {
                seen[l.rop(Quad {
                    qx: tx * 4,
                    qy: ty * 4,
                    draw: 0,
                })] += 1;
            }
        }
        assert_eq!(seen, [1; 16]);
        let mut row = [0; 16];
        for tx in 0..16u16 {
            row[l.rop(Quad {
                qx: tx * 4,
                qy: 8,
                draw: 0,
            })] += 1;
        }
        assert_eq!(row, [1; 16], "a row of 16 tiles uses every ROP");
        let b = |qx, qy| l.pixel_block(Region::Colour(0), Quad { qx, qy, draw: 0 });
        assert_eq!(b(0, 0), b(3, 0));
        assert_ne!(b(0, 0), b(0, 1));
        assert_ne!(b(0, 0), b(4, 0));
        assert_ne!(Region::Colour(0).base(), Region::Depth(0).base());
    }

    /// The consistent-scaling rule: a surface's bytes grow with `rt_scale`, so that its size
    /// against an LLC divided by `mem_div` is the full-size frame's.
    #[test]
    fn scaled_surfaces_keep_the_full_size_footprint_to_llc_ratio() {
        assert_eq!(rt_scale(16, 16), 16, "tiny: 1/256 of the pixels, LLC / 16");
        assert_eq!(rt_scale(8, 16), 4, "small");
        assert_eq!(rt_scale(1, 1), 1, "full size");
        assert_eq!(rt_scale(2, 16), 1, "never below one pixel's bytes");
        let full_px = 1280u64 * 1024;
        let llc_full = 16u64 << 20;
        for (res_div, mem_div) in [(16u32, 16u32), (8, 16), (4, 16), (1, 1)] {
            let (w, h) = (1280 / res_div as usize, 1024 / res_div as usize);
            let l = Layout {
                qw: w / QUAD_PX,
                qh: h / QUAD_PX,
                rops: 16,
                rt_scale: rt_scale(res_div, mem_div),
            };
            let ratio = l.surface_blocks() as f64 * 64.0 / (llc_full / mem_div as u64) as f64;
            let full = (full_px * PIXEL_BYTES) as f64 / llc_full as f64;
            assert!(
                (ratio / full - 1.0).abs() < 0.02,
                "res/{res_div}, mem/{mem_div}: colour surface {ratio:.3} of the LLC, full size {full:.3}"
            );
            // Every quad's blocks are its own once a quad fills a block; none is shared by
            // two surfaces' quads, and a whole surface is covered exactly.
            let mut seen = std::collections::HashSet::new();
            for qy in 0..l.qh as u16 {
                for qx in 0..l.qw as u16 {
                    for b in l.pixel_blocks(Region::Colour(0), Quad { qx, qy, draw: 0 }) {
                        let fresh = seen.insert(b);
                        assert!(
                            fresh || l.rt_scale < 4,
                            "block {b} shared at rt_scale {}",
                            l.rt_scale
                        );
                    }
                }
            }
            assert_eq!(seen.len() as u32, l.surface_blocks());
        }
    }
}
