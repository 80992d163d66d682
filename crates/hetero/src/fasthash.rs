//! A fast, deterministic hasher for the simulator's integer-keyed maps (tokens, block numbers):
//! a multiply-xorshift of the key instead of the standard library's SipHash with a random
//! seed. Used only where the map is never iterated in an order that reaches a result (lookups,
//! inserts and removals), so results do not change; it only saves time (docs/PERFORMANCE.md,
//! "Session 13").

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// The hasher: each written word is mixed into the state by a xorshift-multiply.
#[derive(Default, Clone, Copy)]
pub struct FastHasher(u64);

const K: u64 = 0x9e37_79b9_7f4a_7c15;

impl Hasher for FastHasher {
    fn finish(&self) -> u64 {
        let h = self.0;
        h ^ (h >> 29)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }

    fn write_u64(&mut self, x: u64) {
        let h = (self.0.rotate_left(23) ^ x ^ (x >> 32)).wrapping_mul(K);
        self.0 = h ^ (h >> 32);
    }

    fn write_u32(&mut self, x: u32) {
        self.write_u64(x as u64);
    }

    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
}

/// A `HashMap` with [`FastHasher`].
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;
/// A `HashSet` with [`FastHasher`].
pub type FastSet<K> = HashSet<K, BuildHasherDefault<FastHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_keep_every_key_apart() {
        let mut m: FastMap<u64, u64> = FastMap::default();
        for k in 0..10_000u64 {
            m.insert(k * 64, k);
            m.insert(k << 36, k + 1);
        }
        assert_eq!(m.len(), 20_000 - 1, "key 0 is shared by both series");
        assert_eq!(m[&(640)], 10);
        assert_eq!(m[&(5u64 << 36)], 6);
        assert!(m.remove(&(64 * 9_999)).is_some());
        assert!(!m.contains_key(&(64 * 9_999)));
    }
}
