//! Three-dimensional launch extents (grid and block shapes).

use serde::{Deserialize, Serialize};

/// A CUDA-style `(x, y, z)` extent, used for grid and block dimensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Dim3 {
    /// Extent along x.
    pub x: u32,
    /// Extent along y.
    pub y: u32,
    /// Extent along z.
    pub z: u32,
}

impl Dim3 {
    /// A new extent.
    pub const fn new(x: u32, y: u32, z: u32) -> Self {
        Self { x, y, z }
    }

    /// A one-dimensional extent `(x, 1, 1)`.
    pub const fn x(x: u32) -> Self {
        Self { x, y: 1, z: 1 }
    }

    /// Number of elements, `x * y * z`.
    pub const fn size(&self) -> u64 {
        self.x as u64 * self.y as u64 * self.z as u64
    }

    /// The linear index `i` as coordinates, x fastest (CUDA order).
    pub const fn unlinear(&self, i: u64) -> Dim3 {
        let x = (i % self.x as u64) as u32;
        let y = ((i / self.x as u64) % self.y as u64) as u32;
        let z = (i / (self.x as u64 * self.y as u64)) as u32;
        Dim3 { x, y, z }
    }
}

impl Default for Dim3 {
    fn default() -> Self {
        Self::new(1, 1, 1)
    }
}

impl std::fmt::Display for Dim3 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({},{},{})", self.x, self.y, self.z)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unlinear_is_x_fastest() {
        let d = Dim3::new(4, 3, 2);
        assert_eq!(d.size(), 24);
        assert_eq!(d.unlinear(0), Dim3::new(0, 0, 0));
        assert_eq!(d.unlinear(5), Dim3::new(1, 1, 0));
        assert_eq!(d.unlinear(23), Dim3::new(3, 2, 1));
    }
}
