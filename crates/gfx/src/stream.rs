//! GPU access streams, their figure categories and the pipeline unit that originates each
//! (document 004 section 1.2 and the stream-to-unit mapping of section 2.6).

use serde::Serialize;

/// A GPU data stream (section 1.2). Each has its own GPU-internal cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
pub enum Stream {
    /// Vertex index data (FE).
    Index,
    /// Vertex attribute data (FE).
    Vertex,
    /// Hierarchical depth, one entry per 8×8 tile (assigned to ZS, section 2.6 \[INTERP\]).
    HiZ,
    /// Pixel depth/stencil (ZS).
    Depth,
    /// Texture sampler data (SH).
    Texture,
    /// Shader instructions and data (SH).
    Shader,
    /// Pixel colour (CW).
    Colour,
    /// Blitter data (BT).
    Blit,
}

/// The figure categories of section 1.2: C, T, Z, B and O (everything else).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Category {
    /// Colour.
    C,
    /// Texture.
    T,
    /// Depth.
    Z,
    /// Blitter.
    B,
    /// Other: vertex, index, HiZ, shader.
    O,
}

/// The pipeline units of Figure 6 (section 2.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Unit {
    /// Front end: vertex/index fetch, primitive assembly, rasterisation.
    Fe,
    /// Depth/stencil test (one per ROP).
    Zs,
    /// Shader cores with their texture samplers.
    Sh,
    /// Colour blend/write (one per ROP).
    Cw,
    /// Blitter.
    Bt,
}

impl Stream {
    /// All streams, in a fixed order (index = `as usize`).
    pub const ALL: [Stream; 8] = [
        Stream::Index,
        Stream::Vertex,
        Stream::HiZ,
        Stream::Depth,
        Stream::Texture,
        Stream::Shader,
        Stream::Colour,
        Stream::Blit,
    ];

    /// The figure category (section 1.2).
    pub fn category(self) -> Category {
        match self {
            Stream::Colour => Category::C,
            Stream::Texture => Category::T,
            Stream::Depth => Category::Z,
            Stream::Blit => Category::B,
            Stream::Index | Stream::Vertex | Stream::HiZ | Stream::Shader => Category::O,
        }
    }

    /// The unit whose bottleneck bit marks this stream critical (section 2.6 mapping).
    pub fn unit(self) -> Unit {
        match self {
            Stream::Index | Stream::Vertex => Unit::Fe,
            Stream::HiZ | Stream::Depth => Unit::Zs,
            Stream::Texture | Stream::Shader => Unit::Sh,
            Stream::Colour => Unit::Cw,
            Stream::Blit => Unit::Bt,
        }
    }

    /// Short lower-case name (JSON keys).
    pub fn name(self) -> &'static str {
        match self {
            Stream::Index => "index",
            Stream::Vertex => "vertex",
            Stream::HiZ => "hiz",
            Stream::Depth => "depth",
            Stream::Texture => "texture",
            Stream::Shader => "shader",
            Stream::Colour => "colour",
            Stream::Blit => "blit",
        }
    }
}

impl Category {
    /// The five categories in figure order.
    pub const ALL: [Category; 5] = [
        Category::C,
        Category::T,
        Category::Z,
        Category::B,
        Category::O,
    ];

    /// One-letter name.
    pub fn name(self) -> &'static str {
        match self {
            Category::C => "C",
            Category::T => "T",
            Category::Z => "Z",
            Category::B => "B",
            Category::O => "O",
        }
    }
}

impl Unit {
    /// The five units (index = `as usize`).
    pub const ALL: [Unit; 5] = [Unit::Fe, Unit::Zs, Unit::Sh, Unit::Cw, Unit::Bt];
}
