//! Pagoda's software shared-memory allocator (§5.3.1 of document 003; digest §3.8).
//!
//! A binary tree stored as an array (heap layout, root at index 1) over each MTB's 32 KB pool with
//! 512 B leaves: 7 levels, 127 nodes (the document's "128" counts the unused slot 0). A marked
//! node is allocated or has an allocated descendant; the invariant is *marked ⇒ parent marked*, so
//! an unmarked node is entirely free. Allocation picks the smallest level whose block fits, takes
//! the first unmarked node there and marks its ancestors and descendants. Free unmarks the
//! descendants and the node, then walks up unmarking each parent whose other child is unmarked.
//! Only the scheduler warp allocates and frees, so no locking is modelled.

/// Pool size per MTB (bytes).
pub const POOL_BYTES: u32 = 32 * 1024;
/// Leaf (minimum block) size (bytes).
pub const LEAF_BYTES: u32 = 512;
/// Tree levels (32 KB .. 512 B).
pub const LEVELS: u32 = 7;
/// Array slots (node indices 1..=127).
pub const NODES: usize = 128;

/// A block handed out by [`Buddy::alloc`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    /// Tree node index (1 = root).
    pub node: usize,
    /// Byte offset in the pool (32-byte aligned, as `getSMPtr` promises).
    pub offset: u32,
    /// Block size in bytes (a power of two >= 512).
    pub size: u32,
}

/// The per-MTB buddy tree.
#[derive(Debug, Clone)]
pub struct Buddy {
    marked: [bool; NODES],
}

impl Default for Buddy {
    fn default() -> Self {
        Self {
            marked: [false; NODES],
        }
    }
}

fn level_of(node: usize) -> u32 {
    usize::BITS - 1 - node.leading_zeros()
}

impl Buddy {
    /// An all-free pool.
    pub fn new() -> Self {
        Self::default()
    }

    /// Block size of a node (bytes).
    pub fn node_size(node: usize) -> u32 {
        POOL_BYTES >> level_of(node)
    }

    /// Byte offset of a node.
    pub fn node_offset(node: usize) -> u32 {
        let lvl = level_of(node);
        (node - (1 << lvl)) as u32 * Self::node_size(node)
    }

    /// Allocates `bytes` (rounded up to a power of two >= 512). `None` when no block is free or
    /// the request exceeds 32 KB.
    pub fn alloc(&mut self, bytes: u32) -> Option<Block> {
        if bytes > POOL_BYTES {
            return None;
        }
        let size = bytes.max(LEAF_BYTES).next_power_of_two();
        let lvl = (POOL_BYTES / size).trailing_zeros();
        let first = 1usize << lvl;
        let node = (first..first * 2).find(|&n| !self.marked[n])?;
        // descendants
        let mut lo = node;
        let mut hi = node;
        while lo * 2 < NODES {
            lo *= 2;
            hi = hi * 2 + 1;
            for n in lo..=hi {
                self.marked[n] = true;
            }
        }
        // the node and its ancestors
        let mut n = node;
        while n >= 1 {
            self.marked[n] = true;
            n /= 2;
        }
        Some(Block {
            node,
            offset: Self::node_offset(node),
            size,
        })
    }

    /// Frees a block previously returned by [`Buddy::alloc`].
    pub fn free(&mut self, b: Block) {
        let mut lo = b.node;
        let mut hi = b.node;
        while lo * 2 < NODES {
            lo *= 2;
            hi = hi * 2 + 1;
            for n in lo..=hi {
                self.marked[n] = false;
            }
        }
        self.marked[b.node] = false;
        let mut n = b.node;
        while n > 1 {
            let sibling = n ^ 1;
            if self.marked[sibling] {
                break;
            }
            n /= 2;
            self.marked[n] = false;
        }
    }

    /// True when nothing is allocated.
    pub fn all_free(&self) -> bool {
        self.marked.iter().all(|m| !m)
    }

    /// Checks *marked ⇒ parent marked* for every node.
    pub fn invariant_holds(&self) -> bool {
        (2..NODES).all(|n| !self.marked[n] || self.marked[n / 2])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_geometry() {
        assert_eq!(Buddy::node_size(1), 32 * 1024);
        assert_eq!(Buddy::node_size(64), 512);
        assert_eq!(Buddy::node_size(127), 512);
        assert_eq!(Buddy::node_offset(127), 32 * 1024 - 512);
        assert_eq!(LEVELS, (POOL_BYTES / LEAF_BYTES).trailing_zeros() + 1);
    }

    #[test]
    fn alloc_8k_then_free_restores_all_free_tree() {
        // Fig. 5.4 / 5.5: an 8K request into an empty tree, then freeing it.
        let mut b = Buddy::new();
        let blk = b.alloc(8 * 1024).unwrap();
        assert_eq!((blk.node, blk.offset, blk.size), (4, 0, 8192));
        assert!(b.invariant_holds());
        let blk2 = b.alloc(3000).unwrap(); // rounds to 4K, next to the 8K block's buddy
        assert_eq!(blk2.size, 4096);
        assert_eq!(blk2.offset, 8192);
        b.free(blk);
        b.free(blk2);
        assert!(b.all_free());
    }

    #[test]
    fn exhaustion_and_oversize() {
        let mut b = Buddy::new();
        for _ in 0..64 {
            assert!(b.alloc(1).is_some());
        }
        assert!(b.alloc(1).is_none());
        assert!(Buddy::new().alloc(64 * 1024).is_none());
    }
}
