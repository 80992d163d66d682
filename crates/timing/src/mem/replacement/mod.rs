//! Cache replacement policies (spec 000 §8.1 item 3: LRU, 2-bit RRIP). The cache owns the tags;
//! a policy owns only its per-line state and answers "which of these ways goes".
//!
//! Adding a policy: one file implementing [`Replacement`], one row in the `policies!` call below
//! (2 edits); `l1d.replacement = "name"` selects it.

mod lru;
mod srrip;

/// A replacement policy over `sets x ways` lines.
pub trait Replacement {
    /// Chooses the victim among `candidates` (bit `w` = way `w` may be evicted; never empty).
    fn victim(&mut self, set: usize, candidates: u64) -> usize;
    /// Line (`set`, `way`) was hit.
    fn on_hit(&mut self, _set: usize, _way: usize) {}
    /// Line (`set`, `way`) was filled (allocated).
    fn on_fill(&mut self, _set: usize, _way: usize) {}
}

macro_rules! policies {
    ($($name:literal => $variant:ident($ty:path), $doc:literal;)*) => {
        /// The registered policies, statically dispatched.
        pub enum Policy { $( #[doc = $doc] $variant($ty), )* }
        /// Registry: (name, description).
        pub const REPLACEMENTS: &[(&str, &str)] = &[$(($name, $doc)),*];
        impl Policy {
            /// The policy `name` for a cache of `sets x ways` lines.
            pub fn new(name: &str, sets: usize, ways: usize) -> Option<Policy> {
                match name { $( $name => Some(Policy::$variant(<$ty>::new(sets, ways))), )* _ => None }
            }
        }
        impl Replacement for Policy {
            #[inline]
            fn victim(&mut self, set: usize, c: u64) -> usize {
                match self { $( Policy::$variant(p) => p.victim(set, c), )* }
            }
            #[inline]
            fn on_hit(&mut self, set: usize, way: usize) {
                match self { $( Policy::$variant(p) => p.on_hit(set, way), )* }
            }
            #[inline]
            fn on_fill(&mut self, set: usize, way: usize) {
                match self { $( Policy::$variant(p) => p.on_fill(set, way), )* }
            }
        }
    };
}

policies! {
    "lru" => Lru(lru::Lru), "least recently used";
    "srrip" => Srrip(srrip::Srrip), "static re-reference interval prediction, 2-bit RRPV, insert at 2";
}

/// Whether `name` is registered.
pub fn find(name: &str) -> Option<&'static str> {
    REPLACEMENTS.iter().find(|r| r.0 == name).map(|r| r.0)
}

/// Registered names.
pub fn names() -> Vec<&'static str> {
    REPLACEMENTS.iter().map(|r| r.0).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_evicts_least_recent() {
        let mut p = Policy::new("lru", 1, 4).unwrap();
        for w in 0..4 {
            p.on_fill(0, w);
        }
        p.on_hit(0, 0);
        assert_eq!(p.victim(0, 0b1111), 1);
        assert_eq!(p.victim(0, 0b1101), 2);
    }

    #[test]
    fn srrip_protects_reused_lines_and_ages_others() {
        let mut p = Policy::new("srrip", 1, 4).unwrap();
        for w in 0..4 {
            p.on_fill(0, w);
        }
        p.on_hit(0, 0);
        p.on_hit(0, 2);
        // Ways 1 and 3 were inserted at RRPV 2, aged to 3 first; way 1 is found first.
        assert_eq!(p.victim(0, 0b1111), 1);
        // Among reused lines only, aging must still find a victim.
        assert_eq!(p.victim(0, 0b0101), 0);
        assert!(Policy::new("random", 1, 4).is_none());
    }
}
